package uritemplate

import (
	"regexp"
	"strings"
)

// matcher is the compiled form of a template for Match: regular expressions with
// the same capture groups, tried in turn: two accepting only what Expand
// writes (the first with the separators that give the natural split kept out of
// values, the second without) and one that is lenient about unencoded characters.
type matcher struct {
	strict, loose, lenient *regexp.Regexp
	// empty is the strict pattern in which a {var} may be empty, and
	// emptyLoose the loose one, tried in turn only when one of the three
	// above matched and none of their splits gives the URI back.
	empty, emptyLoose *regexp.Regexp
	groups            []group
	// query holds the variables of trailing '?' and '&' expressions, matched
	// from the query string in any order; tail is the capture group holding it.
	query []string
	tail  int   // capture group index of the query string, 0 when there is none
	end   int   // index in Template.parts of the first query expression (or len)
	ids   []int // for each group, its variable's index in Template.vars
	// repeats: the template uses a variable more than once. One regular
	// expression finds one split, and for such a template it may be the one
	// the values cannot give back ({.a}{.a} of "....": the first takes
	// "..."): a split is kept only when it gives the URI back, and when none
	// of the passes' does, a bounded search (search.go) tries the others.
	repeats bool
}

// group says what a capture group holds.
type group struct {
	name     string
	named    bool // a ';' parameter: the capture is "" or "=value"
	reserved bool // a '+' or '#' variable: see unescape
}

// Character classes from RFC 3986 (unreserved, sub-delims, gen-delims).
const (
	unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	subDelimChars   = "!$&'()*+,;="
	pcharExtra      = ":@"
	genDelimChars   = ":/?#[]@"
)

// Match reports whether uri is an expansion of the template and, if so, returns the
// variable values, percent-decoded. It never panics; any template or URI it does not
// handle gives ok == false. The rules:
//
//   - Literal text must appear exactly as Expand writes it (case-sensitive).
//   - Supported: every operator, without prefix (:N) or explode (*) modifiers, with
//     '?' and '&' expressions only at the end of the template (a '?' one only
//     first among them). A template using anything else never matches.
//   - {var} (and each variable of {a,b}) matches one or more unreserved characters
//     and pct-encoded triplets. If that finds no match, a second, lenient pass
//     also accepts the unencoded characters a path segment may hold (sub-delims,
//     ':' and '@'), as clients that build URIs by hand send them. {var} never
//     matches '/', '?' or '#'; with several variables ',' separates them, and
//     every variable of a {a,b} expression must be present.
//   - {+var} and {#var} also match the reserved characters, so they may span '/'.
//   - {.a,b}, {/a,b}, {;a,b} and {#a,b} are optional as a whole, and each of their
//     variables may be missing (absent from the result) or empty. A {.var} value
//     holds no '.', a {;var} value no ';', a {#var} value no '#' — unless the URI
//     has no other split into what Expand writes: Expand leaves '.' in a {.var}
//     value (and '#', ',', '?', '&' in a {+var} or {#var} one) as it is, so
//     {.x} of "." is "..", and only a value holding the '.' gives it back.
//   - Trailing {?a,b} and {&a,b} match the query: parameters in any order, each at
//     most once (as often as the template names it), all optional, none other
//     allowed; "a" and "a=" both give "".
//     When a template has such a query part, '?', '&' and '#' are excluded from
//     all the other variables.
//   - A URI that only the lenient pass reads, but that is what Expand writes
//     when some values are empty ({;a}{b} of ";a"), gets the split that gives it
//     back (a = "", b absent), not b = ";a".
//   - Where a URI could be split more than one way, earlier variables take as
//     much as they can. A variable used more than once must be present at every
//     place with the same value, or at none, and a template that uses one more
//     than once matches a URI only with values that expand to exactly that URI
//     (so not a URI built by hand with unencoded characters). Where the split
//     the passes find does not give the URI back, Match searches the other
//     splits in the same order and takes the first that does, a split with
//     an empty {var} value only after every split without one: {x}-{x} of
//     "a-b-a-b" is x = "a-b", {#x}{.x} of "#0.0" is x = "0". The search is
//     bounded: after max(4096, 8 × (len(uri)+1) × (number of expressions))
//     units of work (one place a value may end, or one byte compared or
//     checked) it gives up with no match, so its time grows at most with the
//     URI's length times the template's expressions (about 60 ms for a 100 KB
//     URI and six expressions, seconds for a template of 50 or more).
//
// Values are percent-decoded, so a {var} value may contain '/' when the URI has
// %2F: callers that use values as paths must check them. In {+var} and {#var}
// values, a triplet that encodes an unreserved or reserved character (such as %2F
// or %41) is kept as written, because Expand passes such triplets through there,
// as is %25 before two hex digits; other triplets (%20, %C3%BC) are decoded.
//
// For a URI that Expand produced, Expand(Match(uri)) == uri whenever Match succeeds
// (the values themselves may differ where the URI is ambiguous, as in {x}{y}). For
// other URIs the lenient parts (unencoded characters, lower-case hex, query order,
// "a" for "a=") make Expand's result differ from uri in those respects only.
func (t *Template) Match(uri string) (map[string]string, bool) {
	t.matchOnce.Do(func() { t.m = t.compileMatcher() })
	m := t.m
	if m == nil {
		return nil, false
	}
	// The passes in turn; the first split whose values Expand writes as uri
	// is the one. Where none gives uri back (a URI built by hand: unencoded
	// characters, query order, "a" for "a="), the first split of the strict,
	// loose and lenient passes is. The empty passes count only when they give
	// uri back: they read a URI that only the lenient pass reads, but that is
	// what Expand writes when some values are empty ({;a}{b} of ";a", a = b =
	// ""; {.a}{;b}{c} of "..;b", a = "."), not b = ";a", which expands to
	// "%3Ba". A split that leaves a query separator out of a value may not be
	// the one either ({#f}{&q} of "#&": f = "&", not a bare "&" query).
	matched := false // one of the patterns matched, whether or not its values are consistent
	split := func(re *regexp.Regexp) map[string]string {
		if idx := re.FindStringSubmatchIndex(uri); idx != nil {
			matched = true
			if v, ok := m.values(uri, idx); ok {
				return v
			}
		}
		return nil
	}
	var first map[string]string
	for _, re := range []*regexp.Regexp{m.strict, m.loose, m.lenient} {
		if v := split(re); v != nil {
			if t.givesBack(v, uri) {
				return v, true
			}
			if first == nil {
				first = v
			}
		}
	}
	if first == nil && !m.repeats {
		return nil, false // a {var} is never empty alone ("report://" is no report://{id})
	}
	if first != nil {
		for _, re := range []*regexp.Regexp{m.empty, m.emptyLoose} {
			if v := split(re); v != nil && t.givesBack(v, uri) {
				return v, true
			}
		}
	}
	if m.repeats {
		// The first split of a regular expression may hold different values
		// at the places of one variable where another split would not; a
		// search over the splits finds one that gives uri back. A {var} may
		// be empty there only when one of the patterns above matched
		// ("report://" is no report://{id}{id}).
		v, ok, _ := t.search(uri, matched)
		return v, ok
	}
	return first, true
}

// givesBack reports whether Expand writes uri from the values v.
func (t *Template) givesBack(v map[string]string, uri string) bool {
	back, err := t.Expand(toValues(v))
	return err == nil && back == uri
}

// toValues is a match's values as Expand takes them.
func toValues(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// values reads the variables' values from the capture groups idx of a pattern
// that matched uri.
func (m *matcher) values(uri string, idx []int) (map[string]string, bool) {
	out := map[string]string{}
	set := func(name, raw string, reserved bool) bool {
		v, ok := unescape(raw, reserved)
		if !ok {
			return false
		}
		if old, dup := out[name]; dup && old != v {
			return false
		}
		out[name] = v
		return true
	}
	var absent map[string]bool
	for i, g := range m.groups {
		s, e := idx[2*i+2], idx[2*i+3]
		if s < 0 {
			// An optional variable that is not there.
			if absent == nil {
				absent = map[string]bool{}
			}
			absent[g.name] = true
			continue
		}
		raw := uri[s:e]
		if g.named {
			raw = strings.TrimPrefix(raw, "=")
		}
		if !set(g.name, raw, g.reserved) {
			return nil, false
		}
	}
	var queried map[string]int // query parameters seen, and how often
	if m.tail > 0 && idx[2*m.tail] >= 0 && idx[2*m.tail] < idx[2*m.tail+1] {
		queried = map[string]int{}
		q := uri[idx[2*m.tail]+1 : idx[2*m.tail+1]]
		for _, param := range strings.Split(q, "&") {
			if param == "" && q == "" {
				continue // a bare "?"
			}
			if param == "" {
				// "a&&b": Expand never writes an empty parameter. A value of a
				// variable before the query that held '&' ({#f}{&q}, f = "&")
				// would be split here wrongly; there is no match instead.
				return nil, false
			}
			name, raw, _ := strings.Cut(param, "=")
			// A name may repeat as often as the template names it (Expand
			// writes it each time, with the same value: set checks that).
			if queried[name] >= count(m.query, name) {
				return nil, false
			}
			queried[name]++
			if !set(name, raw, false) {
				return nil, false
			}
		}
	}
	// A variable used twice is either everywhere or nowhere: Expand writes a
	// defined variable at each place it appears.
	for name := range absent {
		if _, ok := out[name]; ok {
			return nil, false
		}
	}
	if m.tail > 0 {
		for _, name := range m.query {
			if _, ok := out[name]; ok && queried[name] == 0 {
				return nil, false
			}
		}
	}
	return out, true
}

func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// compileMatcher builds the regular expressions for Match, or returns nil when the
// template uses a feature Match does not support.
func (t *Template) compileMatcher() *matcher {
	// Find the trailing run of query expressions.
	end := len(t.parts)
	for end > 0 {
		e := t.parts[end-1].expr
		if e == nil || (e.op != opQuery && e.op != opQueryCnt) {
			break
		}
		end--
	}
	for i, p := range t.parts {
		if p.expr == nil {
			continue
		}
		if i < end && (p.expr.op == opQuery || p.expr.op == opQueryCnt) {
			return nil // a query expression before the end
		}
		if i > end && p.expr.op == opQuery {
			return nil // a second '?' inside the query ("{&a}{?b}", "{?a}{?b}")
		}
		for _, v := range p.expr.vars {
			if v.prefix > 0 || v.explode {
				return nil
			}
		}
	}
	m := &matcher{end: end}
	var err error
	if m.strict, err = t.buildRegexp(end, matchStrict); err != nil {
		return nil
	}
	if m.loose, err = t.buildRegexp(end, matchLoose); err != nil {
		return nil
	}
	if m.lenient, err = t.buildRegexp(end, matchLenient); err != nil {
		return nil
	}
	if m.empty, err = t.buildRegexp(end, matchEmpty); err != nil {
		return nil
	}
	if m.emptyLoose, err = t.buildRegexp(end, matchEmptyLoose); err != nil {
		return nil
	}
	for _, p := range t.parts[:end] {
		if e := p.expr; e != nil {
			for _, v := range e.vars {
				m.groups = append(m.groups, group{name: v.name, named: e.op.named, reserved: e.op.allowReserved})
				for id, name := range t.vars {
					if name == v.name {
						m.ids = append(m.ids, id)
					}
				}
			}
		}
	}
	if end < len(t.parts) {
		m.tail = len(m.groups) + 1
		for _, p := range t.parts[end:] {
			for _, v := range p.expr.vars {
				m.query = append(m.query, v.name)
			}
		}
	}
	// Every place of a variable is a group or a query name; t.vars names
	// each variable once.
	m.repeats = len(m.groups)+len(m.query) > len(t.vars)
	return m
}

// buildRegexp writes the pattern for the parts before queryStart, one capture
// group per variable, and a last group for the query string when there is one.
func (t *Template) buildRegexp(queryStart int, mode matchMode) (*regexp.Regexp, error) {
	hasQuery := queryStart < len(t.parts)
	var re strings.Builder
	re.WriteString(`^`)
	for _, p := range t.parts[:queryStart] {
		if p.expr == nil {
			re.WriteString(regexp.QuoteMeta(p.lit))
			continue
		}
		writeExpr(&re, p.expr, hasQuery, mode)
	}
	if hasQuery {
		lead := `\?`
		if t.parts[queryStart].expr.op == opQueryCnt {
			lead = `&`
		}
		re.WriteString(`(` + lead + `[^#]*)?`)
	}
	re.WriteString(`$`)
	return regexp.Compile(re.String())
}

// matchMode is one of Match's passes.
type matchMode int

const (
	matchStrict     matchMode = iota // what Expand writes, separators kept out of values
	matchLoose                       // what Expand writes
	matchLenient                     // also unencoded characters Expand would encode
	matchEmpty                       // strict, a {var} or {+var} also empty
	matchEmptyLoose                  // loose, a {var} or {+var} also empty
)

// writeExpr appends the pattern for one expression. Strict and loose patterns
// accept only the characters Expand leaves unencoded (strict ones keep the
// operator's separators out of values); lenient ones also accept the rest of what
// a path segment may hold (sub-delims, ':' and '@').
func writeExpr(re *strings.Builder, e *expression, hasQuery bool, mode matchMode) {
	lenient := mode == matchLenient
	op := e.op
	multi := len(e.vars) > 1
	allowed := unreservedChars
	switch {
	case op.allowReserved:
		allowed += subDelimChars + genDelimChars
	case lenient:
		allowed += subDelimChars + pcharExtra
	}
	exclude := ""
	switch op {
	case opLabel:
		exclude = "."
	case opParam:
		exclude = ";"
	case opFragment:
		exclude = "#"
	}
	if multi && op.sep == "," {
		exclude += ","
	}
	if hasQuery {
		exclude += "?&#"
	}
	if mode == matchLoose || mode == matchEmptyLoose {
		// Every character of allowed is one Expand writes as it is: a value
		// may hold any of them.
		exclude = ""
	}
	val := `(?:` + charClass(allowed, exclude) + `|` + tripletPattern(mode, op.allowReserved) + `)`

	switch op {
	case opSimple, opReserved:
		for i := range e.vars {
			if i > 0 {
				re.WriteString(`,`)
			}
			if mode == matchEmpty || mode == matchEmptyLoose {
				re.WriteString(`(` + val + `*)`)
			} else {
				re.WriteString(`(` + val + `+)`)
			}
		}
	case opParam:
		// ";name" for an empty value, ";name=value" otherwise. Expand never
		// writes "name=" with nothing after it; the lenient pattern accepts it.
		rep := `+`
		if lenient {
			rep = `*`
		}
		for _, v := range e.vars {
			re.WriteString(`(?:;` + regexp.QuoteMeta(v.name) + `((?:=` + val + rep + `)?))?`)
		}
	default: // '.', '/', '#': optional as a whole, later variables optional
		re.WriteString(`(?:` + regexp.QuoteMeta(op.first))
		for i := range e.vars {
			if i > 0 {
				re.WriteString(`(?:` + regexp.QuoteMeta(op.sep))
			}
			re.WriteString(`(` + val + `*)`)
		}
		re.WriteString(strings.Repeat(`)?`, len(e.vars)))
	}
}

// tripletPattern returns the pattern for one pct-encoded triplet in a value.
// Expand writes upper-case hex, and outside '+' and '#' expressions it never
// encodes an unreserved character: the strict passes accept only such triplets,
// so that a value Match returns expands to the triplets the URI holds ("%70" in a
// {var} is not a "p" that Expand would write as "p"). The lenient pass accepts
// every triplet, in either case.
func tripletPattern(mode matchMode, reserved bool) string {
	if mode == matchLenient {
		return `%[0-9A-Fa-f]{2}`
	}
	if reserved {
		return `%[0-9A-F]{2}`
	}
	return encodedTriplet
}

// encodedTriplet matches "%XY" in upper-case hex for every byte that is not
// unreserved: what Expand writes for a byte it encodes.
var encodedTriplet = func() string {
	const hex = "0123456789ABCDEF"
	var alts []string
	for hi := 0; hi < 16; hi++ {
		var lows []byte
		for lo := 0; lo < 16; lo++ {
			if !isUnreserved(byte(hi<<4 | lo)) {
				lows = append(lows, hex[lo])
			}
		}
		if len(lows) > 0 {
			alts = append(alts, string(hex[hi])+"["+string(lows)+"]")
		}
	}
	return `%(?:` + strings.Join(alts, "|") + `)`
}()

// charClass returns a bracket expression matching the bytes of allowed that are
// not in exclude.
func charClass(allowed, exclude string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < len(allowed); i++ {
		c := allowed[i]
		if strings.IndexByte(exclude, c) >= 0 || strings.IndexByte(allowed[:i], c) >= 0 {
			continue
		}
		if !isAlnum(c) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte(']')
	return b.String()
}

// unescape percent-decodes s. It fails on a '%' not followed by two hex digits.
//
// With reserved set (values of '+' and '#' expressions) a triplet that encodes an
// unreserved or reserved character is kept as written: Expand never encodes those
// characters there, so the triplet was part of the value (RFC 6570 section 3.2.3
// passes pct-encoded triplets through), and so is a "%25" followed by two hex
// digits. Only the other bytes are decoded.
func unescape(s string, reserved bool) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		c := unhex(s[i+1])<<4 | unhex(s[i+2])
		// "%25" before two hex digits stays too: decoded, it would make a triplet
		// that Expand passes through instead of encoding the '%'.
		if reserved && (isUnreserved(c) || isReserved(c) || c == '%' && i+4 < len(s) && isHex(s[i+3]) && isHex(s[i+4])) {
			b = append(b, s[i:i+3]...)
		} else {
			b = append(b, c)
		}
		i += 2
	}
	return string(b), true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
