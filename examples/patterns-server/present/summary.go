package present

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSummaryChars is the longest summary, in characters (runes), ellipsis included.
const MaxSummaryChars = 200

// Summarize collapses the white space of s and, when the result is longer than
// max characters, cuts it at the last word boundary that leaves room for an
// ellipsis ("…"), dropping trailing punctuation before it. A single word longer
// than max is cut inside the word. The result never exceeds max characters.
func Summarize(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	limit := max - 1 // room for the ellipsis
	cut := -1
	// A boundary is a space at index i: the text before it is whole words.
	for i := limit; i > 0; i-- {
		if runes[i] == ' ' {
			cut = i
			break
		}
	}
	var head []rune
	if cut > 0 {
		head = runes[:cut]
	} else {
		head = runes[:limit]
	}
	out := strings.TrimRightFunc(string(head), func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) && r != ')' && r != '"')
	})
	if out == "" {
		out = string(runes[:limit])
	}
	return out + "…"
}
