package present

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 chars
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short", "a short text", 200, "a short text"},
		{"white space collapsed", "  a \n\t b  ", 200, "a b"},
		{"exactly max", "abcde", 5, "abcde"},
		{"cut at word", "alpha beta gamma", 12, "alpha beta…"},
		{"punctuation dropped", "alpha beta, gamma", 13, "alpha beta…"},
		{"one long word", "abcdefghij", 5, "abcd…"},
		{"zero max", "abc", 0, ""},
		{"multibyte counted as characters", "héllo wörld ünïcode", 12, "héllo wörld…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.in, tc.max); got != tc.want {
				t.Errorf("Summarize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
	if got := Summarize(long, 200); utf8.RuneCountInString(got) > 200 || !strings.HasSuffix(got, "word…") {
		t.Errorf("long summary = %q (%d chars)", got, utf8.RuneCountInString(got))
	}
}

// TestSummaryProperties checks every catalog description: the summary is at
// most 200 characters and, when shortened, is whole words of the description
// followed by an ellipsis.
func TestSummaryProperties(t *testing.T) {
	e := newTestEngine(t)
	cut := 0
	for _, p := range e.cat.All() {
		norm := strings.Join(strings.Fields(p.Description), " ")
		s := Summarize(p.Description, MaxSummaryChars)
		if n := utf8.RuneCountInString(s); n > MaxSummaryChars {
			t.Errorf("%s: summary has %d characters", p.ID, n)
		}
		if s == norm {
			continue
		}
		cut++
		head, ok := strings.CutSuffix(s, "…")
		if !ok {
			t.Errorf("%s: shortened summary lacks the ellipsis: %q", p.ID, s)
			continue
		}
		if !strings.HasPrefix(norm, head) {
			t.Errorf("%s: summary %q is not a prefix of the description", p.ID, s)
			continue
		}
		rest := norm[len(head):]
		// The cut is at a word boundary: what follows starts with a space or
		// with punctuation that was trimmed before the space.
		next := strings.TrimLeft(rest, ",.;:!?")
		if !strings.HasPrefix(next, " ") {
			t.Errorf("%s: summary %q cuts inside a word (rest %q)", p.ID, s, rest[:min(10, len(rest))])
		}
	}
	if cut == 0 {
		t.Error("no description is longer than 200 characters; the cut is untested on real data")
	}
}
