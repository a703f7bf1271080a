// Fuzz tests: check an invariant over generated inputs.
package fuzztest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func FuzzReverse(f *testing.F) {
	for _, seed := range []string{"", "gopher", "héllo"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("only valid UTF-8 round-trips")
		}
		if got := reverse(reverse(s)); got != s {
			t.Errorf("double reverse of %q = %q", s, got)
		}
		if strings.Count(reverse(s), "") != strings.Count(s, "") {
			t.Errorf("rune count changed for %q", s)
		}
	})
}
