package catalog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// lookAlikes maps characters that look like Latin letters, digits or ASCII
// punctuation (but are other characters) to what they look like, with their
// Unicode names. It is a small fold of the common cases (Cyrillic and Greek
// letters shaped like Latin ones, dashes), not Unicode's whole confusables
// list; compatibility forms (fullwidth letters, ligatures) are NFKC's.
var lookAlikes = map[rune]struct {
	as   string
	name string
}{
	// Cyrillic
	'а': {"a", "CYRILLIC SMALL LETTER A"}, 'в': {"b", "CYRILLIC SMALL LETTER VE"}, 'е': {"e", "CYRILLIC SMALL LETTER IE"},
	'о': {"o", "CYRILLIC SMALL LETTER O"}, 'р': {"p", "CYRILLIC SMALL LETTER ER"}, 'с': {"c", "CYRILLIC SMALL LETTER ES"},
	'у': {"y", "CYRILLIC SMALL LETTER U"}, 'х': {"x", "CYRILLIC SMALL LETTER HA"}, 'і': {"i", "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I"},
	'ј': {"j", "CYRILLIC SMALL LETTER JE"}, 'ѕ': {"s", "CYRILLIC SMALL LETTER DZE"}, 'ԁ': {"d", "CYRILLIC SMALL LETTER KOMI DE"},
	'һ': {"h", "CYRILLIC SMALL LETTER SHHA"}, 'ԛ': {"q", "CYRILLIC SMALL LETTER QA"}, 'ԝ': {"w", "CYRILLIC SMALL LETTER WE"},
	'А': {"A", "CYRILLIC CAPITAL LETTER A"}, 'В': {"B", "CYRILLIC CAPITAL LETTER VE"}, 'Е': {"E", "CYRILLIC CAPITAL LETTER IE"},
	'К': {"K", "CYRILLIC CAPITAL LETTER KA"}, 'М': {"M", "CYRILLIC CAPITAL LETTER EM"}, 'Н': {"H", "CYRILLIC CAPITAL LETTER EN"},
	'О': {"O", "CYRILLIC CAPITAL LETTER O"}, 'Р': {"P", "CYRILLIC CAPITAL LETTER ER"}, 'С': {"C", "CYRILLIC CAPITAL LETTER ES"},
	'Т': {"T", "CYRILLIC CAPITAL LETTER TE"}, 'Х': {"X", "CYRILLIC CAPITAL LETTER HA"}, 'У': {"Y", "CYRILLIC CAPITAL LETTER U"},
	'І': {"I", "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I"}, 'Ј': {"J", "CYRILLIC CAPITAL LETTER JE"}, 'Ѕ': {"S", "CYRILLIC CAPITAL LETTER DZE"},
	// Greek
	'α': {"a", "GREEK SMALL LETTER ALPHA"}, 'ο': {"o", "GREEK SMALL LETTER OMICRON"}, 'ν': {"v", "GREEK SMALL LETTER NU"},
	'ι': {"i", "GREEK SMALL LETTER IOTA"}, 'κ': {"k", "GREEK SMALL LETTER KAPPA"}, 'ρ': {"p", "GREEK SMALL LETTER RHO"},
	'τ': {"t", "GREEK SMALL LETTER TAU"}, 'υ': {"u", "GREEK SMALL LETTER UPSILON"}, 'χ': {"x", "GREEK SMALL LETTER CHI"},
	'Α': {"A", "GREEK CAPITAL LETTER ALPHA"}, 'Β': {"B", "GREEK CAPITAL LETTER BETA"}, 'Ε': {"E", "GREEK CAPITAL LETTER EPSILON"},
	'Ζ': {"Z", "GREEK CAPITAL LETTER ZETA"}, 'Η': {"H", "GREEK CAPITAL LETTER ETA"}, 'Ι': {"I", "GREEK CAPITAL LETTER IOTA"},
	'Κ': {"K", "GREEK CAPITAL LETTER KAPPA"}, 'Μ': {"M", "GREEK CAPITAL LETTER MU"}, 'Ν': {"N", "GREEK CAPITAL LETTER NU"},
	'Ο': {"O", "GREEK CAPITAL LETTER OMICRON"}, 'Ρ': {"P", "GREEK CAPITAL LETTER RHO"}, 'Τ': {"T", "GREEK CAPITAL LETTER TAU"},
	'Υ': {"Y", "GREEK CAPITAL LETTER UPSILON"}, 'Χ': {"X", "GREEK CAPITAL LETTER CHI"},
	// Dashes and spaces
	'\u2010': {"-", "HYPHEN"}, '\u2011': {"-", "NON-BREAKING HYPHEN"}, '\u2012': {"-", "FIGURE DASH"},
	'\u2013': {"-", "EN DASH"}, '\u2014': {"-", "EM DASH"}, '\u2212': {"-", "MINUS SIGN"},
	'\u00A0': {" ", "NO-BREAK SPACE"}, '\u2007': {" ", "FIGURE SPACE"}, '\u202F': {" ", "NARROW NO-BREAK SPACE"},
	'\u3000': {" ", "IDEOGRAPHIC SPACE"},
	// Invisible: dropped
	'\u200B': {"", "ZERO WIDTH SPACE"}, '\u200C': {"", "ZERO WIDTH NON-JOINER"}, '\u200D': {"", "ZERO WIDTH JOINER"},
	'\u2060': {"", "WORD JOINER"}, '\uFEFF': {"", "ZERO WIDTH NO-BREAK SPACE"}, '\u00AD': {"", "SOFT HYPHEN"},
}

// lookAlikeSkeleton returns what s looks like: each character of lookAlikes
// replaced by its look, invisible ones dropped, the rest in NFKC (fullwidth
// "ｏ" is "o"); and the characters that were so replaced, in order, once each.
func lookAlikeSkeleton(s string) (string, []rune) {
	var b strings.Builder
	var odd []rune
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		if la, ok := lookAlikes[r]; ok {
			b.WriteString(la.as)
			odd = appendOnce(odd, r)
			continue
		}
		if k := norm.NFKC.String(string(r)); k != string(r) {
			b.WriteString(k)
			odd = appendOnce(odd, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), odd
}

func appendOnce(rs []rune, r rune) []rune {
	for _, x := range rs {
		if x == r {
			return rs
		}
	}
	return append(rs, r)
}

// LookAlike looks for the one of names that name differs from only by
// characters that look alike (a Cyrillic "о" for a Latin "o", a fullwidth
// letter, a no-break or zero-width space), compared without case. It returns
// that name and a sentence saying so ("\"оrders\" contains U+043E CYRILLIC SMALL
// LETTER O; did you mean \"orders\"?"), or "" and "" when there is none (a name
// of plain ASCII has none).
func LookAlike(name string, names []string) (match, note string) {
	sk, odd := lookAlikeSkeleton(name)
	if len(odd) == 0 {
		return "", ""
	}
	fsk := Fold(sk)
	for _, n := range names {
		if n == name {
			return "", "" // the name exists as written
		}
		if match == "" {
			if nsk, _ := lookAlikeSkeleton(n); Fold(nsk) == fsk {
				match = n
			}
		}
	}
	if match == "" {
		return "", ""
	}
	var parts []string
	for _, r := range odd {
		parts = append(parts, RuneName(r)+" "+looksLike(r))
	}
	return match, fmt.Sprintf("%q contains %s; did you mean %q?", name, joinAnd(parts), match)
}

// looksLike says, in parentheses, what the look-alike character r looks like.
func looksLike(r rune) string {
	as := norm.NFKC.String(string(r))
	if la, ok := lookAlikes[r]; ok {
		as = la.as
	}
	switch as {
	case "":
		return "(invisible)"
	case " ":
		return "(which looks like a space)"
	}
	return fmt.Sprintf("(which looks like %q)", as)
}

// RuneName is r's code point and, when known here, its Unicode name
// ("U+043E CYRILLIC SMALL LETTER O"): the names of the look-alike characters
// and of fullwidth ASCII letters and digits.
func RuneName(r rune) string {
	if la, ok := lookAlikes[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, la.name)
	}
	if r >= 0xFF01 && r <= 0xFF5E { // fullwidth forms of ASCII '!' to '~'
		a := r - 0xFF01 + '!'
		switch {
		case a >= 'A' && a <= 'Z':
			return fmt.Sprintf("U+%04X FULLWIDTH LATIN CAPITAL LETTER %c", r, a)
		case a >= 'a' && a <= 'z':
			return fmt.Sprintf("U+%04X FULLWIDTH LATIN SMALL LETTER %c", r, a-'a'+'A')
		}
		return fmt.Sprintf("U+%04X (fullwidth %q)", r, string(a))
	}
	return fmt.Sprintf("U+%04X", r)
}

func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
