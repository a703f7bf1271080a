package catalog

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the form of s that search and closest-name matching compare: its
// compatibility decomposition (NFKD: "ﬁ" is "fi", "²" is "2", "Ｔ" is "T"), full
// Unicode case folding ("ß" and "ẞ" are "ss", "Σ" and "ς" are "σ"), and no
// combining marks ("é" is "e", "ø" stays "ø": it has no decomposition), recomposed
// (NFC). So "température", "TEMPERATURE" and "temperature" fold alike, and so do
// "straße" and "STRASSE". ASCII text is only lowered.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	// Case folding can make letters that decompose again ("İ" folds to "i" and
	// a combining dot; "ℌ" decomposes to "H", which folds), hence the second
	// decomposition, as Unicode's NFKC_Casefold does.
	s = norm.NFKD.String(s)
	s = cases.Fold().String(s) // a Caser holds state: one per call
	s = norm.NFKD.String(s)
	s = strings.Map(func(r rune) rune {
		// Combining marks, and format characters (a zero-width space or
		// joiner, a soft hyphen), which show nothing.
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	return norm.NFC.String(s)
}

// SplitWords splits a folded search query into the words search compares: at
// spaces, each word without the punctuation and symbols around it (`"orders"`,
// `customers.`, `revenue?`, `order*`, `-orders`), which no name or column
// begins or ends with as a query means it; '_' is kept (a name may begin or end
// with one). A word of punctuation alone is left out.
func SplitWords(folded string) []string {
	var words []string
	for _, w := range strings.Fields(folded) {
		w = strings.TrimFunc(w, func(r rune) bool {
			return r != '_' && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		})
		if w != "" {
			words = append(words, w)
		}
	}
	return words
}
