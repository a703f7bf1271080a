package jschema

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formatChecker reports whether s is valid for one format.
type formatChecker func(s string) bool

// formats maps every format name this validator asserts to its checker.
var formats = map[string]formatChecker{
	"date-time":             isDateTime,
	"date":                  isDate,
	"time":                  isTime,
	"duration":              isDuration,
	"email":                 isEmail,
	"idn-email":             isIdnEmail,
	"hostname":              isHostname,
	"idn-hostname":          isIdnHostname,
	"ipv4":                  isIPv4,
	"ipv6":                  isIPv6,
	"uri":                   isURI,
	"uri-reference":         isURIReference,
	"iri":                   isIRI,
	"iri-reference":         isIRIReference,
	"uuid":                  isUUID,
	"regex":                 isRegex,
	"json-pointer":          isJSONPointer,
	"relative-json-pointer": isRelativeJSONPointer,
	"uri-template":          isURITemplate,
}

// ---- small ASCII helpers ----

func fmtIsDigit(c byte) bool { return c >= '0' && c <= '9' }

func fmtIsAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func fmtIsHex(c byte) bool { return fmtIsDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// fmtDigits parses s, which must be one or more ASCII digits, as a decimal
// number; it is only used on short fixed-width fields, so it cannot overflow.
func fmtDigits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !fmtIsDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// fmtAllDigits reports whether s is one or more ASCII digits.
func fmtAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !fmtIsDigit(s[i]) {
			return false
		}
	}
	return true
}

// ---- dates and times (RFC 3339) ----

// fmtDaysIn returns the number of days of month m (1-12) of year y in the
// proleptic Gregorian calendar (RFC 3339 section 5.7).
func fmtDaysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// isDate: RFC 3339 full-date, YYYY-MM-DD with the day valid for the month.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := fmtDigits(s[0:4])
	m, ok2 := fmtDigits(s[5:7])
	d, ok3 := fmtDigits(s[8:10])
	return ok1 && ok2 && ok3 && m >= 1 && m <= 12 && d >= 1 && d <= fmtDaysIn(y, m)
}

// isTime: RFC 3339 full-time, HH:MM:SS[.frac] then Z or ±HH:MM; second 60
// only where the UTC time is 23:59:60.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := fmtDigits(s[0:2])
	m, ok2 := fmtDigits(s[3:5])
	sec, ok3 := fmtDigits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if rest != "" && rest[0] == '.' {
		j := 1
		for j < len(rest) && fmtIsDigit(rest[j]) {
			j++
		}
		if j == 1 {
			return false
		}
		rest = rest[j:]
	}
	off := 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := fmtDigits(rest[1:3])
		om, ok2 := fmtDigits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		off = oh*60 + om
		if rest[0] == '-' {
			off = -off
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-off)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// isDateTime: RFC 3339 date-time, full-date "T" full-time (T and Z in either case).
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// fmtDurationPart parses a run of number-designator pairs whose designators
// appear in the order given by order, each at most once; it returns how many
// pairs it read.
func fmtDurationPart(s, order string) (int, bool) {
	n, last := 0, -1
	for s != "" {
		j := 0
		for j < len(s) && fmtIsDigit(s[j]) {
			j++
		}
		if j == 0 || j == len(s) {
			return 0, false
		}
		k := strings.IndexByte(order, s[j])
		if k <= last {
			return 0, false
		}
		last = k
		n++
		s = s[j+1:]
	}
	return n, true
}

// isDuration: RFC 3339 appendix A (ISO 8601) duration, "P" then
// Y/M/D and/or "T" H/M/S components in order, or weeks alone.
func isDuration(s string) bool {
	if len(s) < 3 || s[0] != 'P' {
		return false
	}
	s = s[1:]
	date, tm, hasT := strings.Cut(s, "T")
	if hasT && tm == "" {
		return false
	}
	if strings.HasSuffix(date, "W") && !hasT {
		return fmtAllDigits(date[:len(date)-1])
	}
	nd, ok1 := fmtDurationPart(date, "YMD")
	nt, ok2 := fmtDurationPart(tm, "HMS")
	return ok1 && ok2 && nd+nt > 0
}

// ---- host names and addresses ----

// isIPv4: RFC 2673 dotted-quad, four decimal octets 0-255 without leading zeros.
func isIPv4(s string) bool {
	parts := 0
	for {
		part, rest, more := strings.Cut(s, ".")
		if len(part) == 0 || len(part) > 3 || (len(part) > 1 && part[0] == '0') {
			return false
		}
		n, ok := fmtDigits(part)
		if !ok || n > 255 {
			return false
		}
		parts++
		if !more {
			return parts == 4
		}
		if parts == 4 {
			return false
		}
		s = rest
	}
}

// fmtHexGroups validates a colon-separated list of 1-4 digit hex groups
// (possibly empty) and returns how many there are.
func fmtHexGroups(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	n := 0
	for _, g := range strings.Split(s, ":") {
		if len(g) == 0 || len(g) > 4 {
			return 0, false
		}
		for i := 0; i < len(g); i++ {
			if !fmtIsHex(g[i]) {
				return 0, false
			}
		}
		n++
	}
	return n, true
}

// isIPv6: RFC 4291 section 2.2 text form: eight hex groups, at most one "::",
// optional dotted-quad tail standing for the last two groups; no zone.
func isIPv6(s string) bool {
	if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.IndexByte(s[i+1:], '.') >= 0 {
		if !isIPv4(s[i+1:]) {
			return false
		}
		s = s[:i+1] + "0:0"
	}
	if i := strings.Index(s, "::"); i >= 0 {
		nh, ok1 := fmtHexGroups(s[:i])
		nt, ok2 := fmtHexGroups(s[i+2:])
		return ok1 && ok2 && nh+nt <= 7
	}
	n, ok := fmtHexGroups(s)
	return ok && n == 8
}

// isHostname: RFC 1123 host name, dot-separated labels of 1-63 letters,
// digits and hyphens not starting or ending with a hyphen, at most 253
// characters, no trailing dot.
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if !fmtLDHLabel(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// fmtLDHLabel reports whether label is an RFC 1123 letter-digit-hyphen label.
func fmtLDHLabel(label string) bool {
	if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !fmtIsAlpha(c) && !fmtIsDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// fmtIsIDNDot reports whether r separates labels (RFC 3490 section 3.1).
func fmtIsIDNDot(r rune) bool {
	return r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61'
}

// isIdnHostname: RFC 5890/5891 internationalized host name: labels as for
// hostname, or U-labels of letters, marks and digits (plus the RFC 5892
// exceptions and contextual rules) that do not start with a mark.
func isIdnHostname(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	total := -1 // the first label has no dot in front of it
	start := 0
	for i, r := range s {
		if fmtIsIDNDot(r) {
			n, ok := fmtIDNLabel(s[start:i])
			if !ok {
				return false
			}
			total += n + 1
			start = i + utf8.RuneLen(r)
		}
	}
	n, ok := fmtIDNLabel(s[start:])
	return ok && total+n+1 <= 253
}

// fmtIDNLabel validates one label of an idn-hostname and returns a lower
// bound of its length in ASCII (A-label) form.
func fmtIDNLabel(label string) (int, bool) {
	ascii := true
	for i := 0; i < len(label); i++ {
		if label[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return len(label), fmtLDHLabel(label)
	}
	rs := []rune(label)
	// The A-label is "xn--" plus at least one character per code point.
	if len(rs)+4 > 63 || rs[0] == '-' || rs[len(rs)-1] == '-' || unicode.Is(unicode.M, rs[0]) {
		return 0, false
	}
	if len(rs) >= 4 && rs[2] == '-' && rs[3] == '-' { // RFC 5891 section 4.2.3.1
		return 0, false
	}
	arabicIndic, extArabicIndic := false, false
	for i, r := range rs {
		switch {
		case r < utf8.RuneSelf:
			c := byte(r)
			if !fmtIsAlpha(c) && !fmtIsDigit(c) && c != '-' {
				return 0, false
			}
		case fmtIDNDisallowed(r):
			return 0, false
		case r == 0x00DF, r == 0x03C2, r == 0x06FD, r == 0x06FE, r == 0x0F0B, r == 0x3007:
			// PVALID exceptions (RFC 5892 section 2.6).
		case r == 0x00B7: // MIDDLE DOT: between two 'l'
			if i == 0 || i == len(rs)-1 || rs[i-1] != 'l' || rs[i+1] != 'l' {
				return 0, false
			}
		case r == 0x0375: // GREEK LOWER NUMERAL SIGN: followed by Greek
			if i == len(rs)-1 || !unicode.Is(unicode.Greek, rs[i+1]) {
				return 0, false
			}
		case r == 0x05F3, r == 0x05F4: // HEBREW GERESH/GERSHAYIM: after Hebrew
			if i == 0 || !unicode.Is(unicode.Hebrew, rs[i-1]) {
				return 0, false
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT: label has Hiragana, Katakana or Han
			if !fmtHasKana(rs) {
				return 0, false
			}
		case r == 0x200D: // ZERO WIDTH JOINER: after a virama (approximated by any nonspacing mark)
			if i == 0 || !unicode.Is(unicode.Mn, rs[i-1]) {
				return 0, false
			}
		case r == 0x200C: // ZERO WIDTH NON-JOINER: after a virama, or between joining letters (approximated)
			if i == 0 || !(unicode.Is(unicode.Mn, rs[i-1]) ||
				(i < len(rs)-1 && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]))) {
				return 0, false
			}
		case r >= 0x0660 && r <= 0x0669:
			arabicIndic = true
		case r >= 0x06F0 && r <= 0x06F9:
			extArabicIndic = true
		case unicode.IsLetter(r), unicode.Is(unicode.M, r), unicode.Is(unicode.Nd, r):
		default:
			return 0, false
		}
	}
	if arabicIndic && extArabicIndic {
		return 0, false
	}
	return len(rs) + 4, true
}

// fmtIDNDisallowed reports the DISALLOWED exceptions of RFC 5892 section 2.6
// that would otherwise pass as letters or marks.
func fmtIDNDisallowed(r rune) bool {
	switch r {
	case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B:
		return true
	}
	return false
}

// fmtHasKana reports whether rs has a Hiragana, Katakana or Han character.
func fmtHasKana(rs []rune) bool {
	for _, r := range rs {
		if r != 0x30FB && unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

// ---- e-mail addresses (RFC 5321, RFC 6531) ----

// isEmail: RFC 5321 Mailbox, dot-atom or quoted local part "@" a hostname or
// an [IPv4] / [IPv6:...] address literal.
func isEmail(s string) bool { return fmtMailbox(s, false) }

// isIdnEmail: RFC 6531 Mailbox, as email but with UTF-8 in the local part and
// an idn-hostname domain.
func isIdnEmail(s string) bool { return fmtMailbox(s, true) }

func fmtMailbox(s string, intl bool) bool {
	at := strings.LastIndexByte(s, '@')
	if at < 0 || !utf8.ValidString(s) {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) == 0 || len(local) > 64 { // RFC 5321 section 4.5.3.1.1
		return false
	}
	if local[0] == '"' {
		if !fmtQuotedLocal(local, intl) {
			return false
		}
	} else {
		for {
			atom, rest, more := strings.Cut(local, ".")
			if !fmtAtom(atom, intl) {
				return false
			}
			if !more {
				break
			}
			local = rest
		}
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		lit := domain[1 : len(domain)-1]
		if len(lit) >= 5 && strings.EqualFold(lit[:5], "IPv6:") {
			return isIPv6(lit[5:])
		}
		return isIPv4(lit)
	}
	if intl {
		return isIdnHostname(domain)
	}
	return isHostname(domain)
}

// fmtAtom: RFC 5322 atext+ (RFC 6531 adds UTF8-non-ascii).
func fmtAtom(s string, intl bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if !intl {
				return false
			}
			continue
		}
		if !fmtIsAlpha(c) && !fmtIsDigit(c) && !strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", rune(c)) {
			return false
		}
	}
	return true
}

// fmtQuotedLocal: RFC 5321 Quoted-string of qtextSMTP and quoted-pairSMTP
// (RFC 6531 adds UTF8-non-ascii to qtextSMTP).
func fmtQuotedLocal(s string, intl bool) bool {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return false
	}
	s = s[1 : len(s)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
			if i == len(s) || s[i] < 32 || s[i] > 126 {
				return false
			}
		case c == '"':
			return false
		case c >= utf8.RuneSelf:
			if !intl {
				return false
			}
		case c < 32 || c > 126:
			return false
		}
	}
	return true
}

// ---- URIs and IRIs (RFC 3986, RFC 3987) ----

// isURI: RFC 3986 URI, an absolute URI with scheme and optional fragment.
func isURI(s string) bool { return fmtURI(s, false, false) }

// isURIReference: RFC 3986 URI-reference, a URI or a relative reference.
func isURIReference(s string) bool { return fmtURI(s, false, true) }

// isIRI: RFC 3987 IRI, as uri but with non-ASCII ucschar (iprivate in the query).
func isIRI(s string) bool { return fmtURI(s, true, false) }

// isIRIReference: RFC 3987 IRI-reference, an IRI or a relative reference.
func isIRIReference(s string) bool { return fmtURI(s, true, true) }

// fmtIsUcschar reports RFC 3987 ucschar.
func fmtIsUcschar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xDFFFD:
		return r&0xFFFF <= 0xFFFD
	case r >= 0xE1000 && r <= 0xEFFFD:
		return true
	}
	return false
}

// fmtIsIprivate reports RFC 3987 iprivate.
func fmtIsIprivate(r rune) bool {
	return (r >= 0xE000 && r <= 0xF8FF) || (r >= 0xF0000 && r <= 0xFFFFD) || (r >= 0x100000 && r <= 0x10FFFD)
}

// fmtIsUnreserved reports RFC 3986 unreserved.
func fmtIsUnreserved(c byte) bool {
	return fmtIsAlpha(c) || fmtIsDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

// fmtIsSubDelim reports RFC 3986 sub-delims.
func fmtIsSubDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

// fmtURIChars reports whether s consists of unreserved, sub-delims,
// pct-encoded and the bytes in extra; with iri it also allows ucschar, and
// with private iprivate as well.
func fmtURIChars(s, extra string, iri, private bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !fmtIsHex(s[i+1]) || !fmtIsHex(s[i+2]) {
				return false
			}
			i += 3
		case c < utf8.RuneSelf:
			if !fmtIsUnreserved(c) && !fmtIsSubDelim(c) && strings.IndexByte(extra, c) < 0 {
				return false
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !iri || !(fmtIsUcschar(r) || (private && fmtIsIprivate(r))) {
				return false
			}
			i += n
		}
	}
	return true
}

// fmtIsScheme: RFC 3986 scheme, ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func fmtIsScheme(s string) bool {
	if s == "" || !fmtIsAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !fmtIsAlpha(c) && !fmtIsDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// fmtIsIPvFuture: RFC 3986 IPvFuture, "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
func fmtIsIPvFuture(s string) bool {
	if len(s) < 4 || s[0]|0x20 != 'v' {
		return false
	}
	dot := strings.IndexByte(s, '.')
	if dot < 2 || dot == len(s)-1 {
		return false
	}
	for i := 1; i < dot; i++ {
		if !fmtIsHex(s[i]) {
			return false
		}
	}
	for i := dot + 1; i < len(s); i++ {
		c := s[i]
		if !fmtIsUnreserved(c) && !fmtIsSubDelim(c) && c != ':' {
			return false
		}
	}
	return true
}

// fmtAuthority: RFC 3986 authority, [ userinfo "@" ] host [ ":" port ], the
// host being a bracketed IP-literal, or a reg-name (which covers IPv4address).
func fmtAuthority(a string, iri bool) bool {
	if i := strings.IndexByte(a, '@'); i >= 0 {
		if !fmtURIChars(a[:i], ":", iri, false) {
			return false
		}
		a = a[i+1:]
	}
	port := ""
	if a != "" && a[0] == '[' {
		j := strings.IndexByte(a, ']')
		if j < 0 {
			return false
		}
		if lit := a[1:j]; !isIPv6(lit) && !fmtIsIPvFuture(lit) {
			return false
		}
		a = a[j+1:]
		if a != "" {
			if a[0] != ':' {
				return false
			}
			port = a[1:]
		}
	} else {
		host, p, _ := strings.Cut(a, ":")
		if !fmtURIChars(host, "", iri, false) {
			return false
		}
		port = p
	}
	return port == "" || fmtAllDigits(port)
}

// fmtURI parses an RFC 3986 URI (or RFC 3987 IRI with iri); with ref it
// also accepts a relative reference.
func fmtURI(s string, iri, ref bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	// A colon before any of "/?#" ends the scheme; a relative reference
	// cannot have one there (path-noscheme).
	if i := strings.IndexAny(s, ":/?#"); i >= 0 && s[i] == ':' {
		if !fmtIsScheme(s[:i]) {
			return false
		}
		s = s[i+1:]
	} else if !ref {
		return false
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		if !fmtURIChars(s[i+1:], ":@/?", iri, false) {
			return false
		}
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		if !fmtURIChars(s[i+1:], ":@/?", iri, true) {
			return false
		}
		s = s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexByte(s, '/')
		if end < 0 {
			end = len(s)
		}
		if !fmtAuthority(s[:end], iri) {
			return false
		}
		s = s[end:]
	}
	return fmtURIChars(s, ":@/", iri, false)
}

// ---- miscellaneous ----

// isUUID: RFC 4122 string form, 8-4-4-4-12 hex digits in either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !fmtIsHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// isRegex: compiles as a Go (RE2) regular expression, the dialect used for "pattern".
func isRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}

// isJSONPointer: RFC 6901 JSON Pointer, empty or "/"-prefixed with "~" only in "~0" or "~1".
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' {
			if i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1') {
				return false
			}
			i++
		}
	}
	return true
}

// isRelativeJSONPointer: Relative JSON Pointer, a non-negative integer
// without leading zeros followed by "#" or a JSON Pointer.
func isRelativeJSONPointer(s string) bool {
	i := 0
	for i < len(s) && fmtIsDigit(s[i]) {
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return false
	}
	return s[i:] == "#" || isJSONPointer(s[i:])
}

// isURITemplate: RFC 6570 URI Template (level 4): literals and balanced
// {expressions} of an optional operator and varspecs with :prefix or *.
func isURITemplate(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			j := strings.IndexByte(s[i+1:], '}')
			if j < 0 || !fmtTemplateExpr(s[i+1:i+1+j]) {
				return false
			}
			i += j + 2
		case c == '%':
			if i+2 >= len(s) || !fmtIsHex(s[i+1]) || !fmtIsHex(s[i+2]) {
				return false
			}
			i += 3
		case c < utf8.RuneSelf:
			// literals: any ASCII except CTL, SP, DQUOTE, "'", "%", "<",
			// ">", "\", "^", "`", "{", "|", "}"
			if c <= ' ' || c == 0x7F || strings.IndexByte("\"'<>\\^`{|}", c) >= 0 {
				return false
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !fmtIsUcschar(r) && !fmtIsIprivate(r) {
				return false
			}
			i += n
		}
	}
	return true
}

// fmtTemplateExpr: RFC 6570 expression body, [ operator ] variable-list.
func fmtTemplateExpr(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for {
		spec, rest, more := strings.Cut(e, ",")
		if !fmtVarspec(spec) {
			return false
		}
		if !more {
			return true
		}
		e = rest
	}
}

// fmtVarspec: RFC 6570 varspec, varname [ ":" max-length / "*" ].
func fmtVarspec(v string) bool {
	if strings.HasSuffix(v, "*") {
		v = v[:len(v)-1]
	} else if i := strings.IndexByte(v, ':'); i >= 0 {
		n := v[i+1:]
		if len(n) == 0 || len(n) > 4 || n[0] == '0' || !fmtAllDigits(n) {
			return false
		}
		v = v[:i]
	}
	// varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded
	if v == "" || v[0] == '.' || v[len(v)-1] == '.' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case fmtIsAlpha(c), fmtIsDigit(c), c == '_':
		case c == '.':
			if v[i+1] == '.' {
				return false
			}
		case c == '%':
			if i+2 >= len(v) || !fmtIsHex(v[i+1]) || !fmtIsHex(v[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}
