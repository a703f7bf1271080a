package uritemplate

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Template is a parsed URI template. It is immutable and safe for concurrent use.
type Template struct {
	raw   string
	parts []part
	vars  []string

	matchOnce sync.Once
	m         *matcher // nil when the template is outside what Match supports
}

// part is a literal run or an expression.
type part struct {
	lit  string // the literal, already encoded as Expand writes it
	expr *expression
}

type expression struct {
	op   *operator
	vars []varSpec
}

type varSpec struct {
	name    string
	prefix  int // maximum length in characters; 0 means no prefix modifier
	explode bool
}

// operator holds the expansion rules of one expression type (RFC 6570 appendix A).
type operator struct {
	char          byte   // the operator character, 0 for simple string expansion
	first         string // written before the first defined value
	sep           string // written between values
	named         bool   // values are written as name=value
	ifEmpty       string // written after the name when the value is empty
	allowReserved bool   // reserved characters and pct-encoded triplets are kept
}

var (
	opSimple   = &operator{0, "", ",", false, "", false}
	opReserved = &operator{'+', "", ",", false, "", true}
	opFragment = &operator{'#', "#", ",", false, "", true}
	opLabel    = &operator{'.', ".", ".", false, "", false}
	opPath     = &operator{'/', "/", "/", false, "", false}
	opParam    = &operator{';', ";", ";", true, "", false}
	opQuery    = &operator{'?', "?", "&", true, "=", false}
	opQueryCnt = &operator{'&', "&", "&", true, "=", false}
)

func operatorFor(c byte) *operator {
	switch c {
	case '+':
		return opReserved
	case '#':
		return opFragment
	case '.':
		return opLabel
	case '/':
		return opPath
	case ';':
		return opParam
	case '?':
		return opQuery
	case '&':
		return opQueryCnt
	}
	return nil
}

// SyntaxError reports why a template does not parse.
type SyntaxError struct {
	Template string
	Offset   int // byte offset of the problem in Template
	Msg      string
}

// Error formats the message with the offset and the template.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("uritemplate: %s at offset %d in %q", e.Msg, e.Offset, e.Template)
}

// Parse parses an RFC 6570 URI template (levels 1 to 4). Literal characters that
// RFC 6570 section 2.1 excludes (spaces, controls, quotes, '<', '>', '\\', '^', '`',
// '|', a '%' not starting a pct-encoded triplet, a stray '}') are errors, as are
// malformed expressions; the error is a *SyntaxError.
func Parse(s string) (*Template, error) {
	t := &Template{raw: s}
	seen := map[string]bool{}
	fail := func(off int, format string, args ...any) (*Template, error) {
		return nil, &SyntaxError{Template: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return fail(i, "unclosed expression")
			}
			body := s[i+1 : i+1+end]
			if j := strings.IndexByte(body, '{'); j >= 0 {
				return fail(i+1+j, "'{' inside an expression")
			}
			e, off, msg := parseExpression(body)
			if msg != "" {
				return fail(i+1+off, "%s", msg)
			}
			flush()
			t.parts = append(t.parts, part{expr: e})
			for _, v := range e.vars {
				if !seen[v.name] {
					seen[v.name] = true
					t.vars = append(t.vars, v.name)
				}
			}
			i += end + 2
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fail(i, "'%%' not followed by two hex digits")
			}
			lit.WriteString(s[i : i+3])
			i += 3
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return fail(i, "invalid UTF-8")
			}
			// Characters outside ASCII are written pct-encoded (RFC 6570 section 3.1).
			for j := range size {
				appendPct(&lit, s[i+j])
			}
			i += size
		case isLiteral(c):
			lit.WriteByte(c)
			i++
		default:
			return fail(i, "character %q not allowed in a literal", c)
		}
	}
	flush()
	return t, nil
}

// MustParse is Parse for templates known to be valid; it panics on a syntax error.
func MustParse(s string) *Template {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// parseExpression parses the text between '{' and '}'. On failure it returns the
// offset within body and a message.
func parseExpression(body string) (*expression, int, string) {
	if body == "" {
		return nil, 0, "empty expression"
	}
	e := &expression{op: opSimple}
	off := 0
	switch c := body[0]; c {
	case '+', '#', '.', '/', ';', '?', '&':
		e.op = operatorFor(c)
		off = 1
	case '=', ',', '!', '@', '|':
		return nil, 0, fmt.Sprintf("operator %q is reserved", c)
	}
	for _, spec := range strings.Split(body[off:], ",") {
		v, msg := parseVarSpec(spec)
		if msg != "" {
			return nil, off, msg
		}
		e.vars = append(e.vars, v)
		off += len(spec) + 1
	}
	return e, 0, ""
}

func parseVarSpec(spec string) (varSpec, string) {
	var v varSpec
	name := spec
	if strings.HasSuffix(spec, "*") {
		v.explode = true
		name = spec[:len(spec)-1]
	} else if i := strings.IndexByte(spec, ':'); i >= 0 {
		name = spec[:i]
		digits := spec[i+1:]
		if len(digits) == 0 || len(digits) > 4 || digits[0] == '0' {
			return v, fmt.Sprintf("bad prefix length %q (want 1 to 9999)", digits)
		}
		for j := 0; j < len(digits); j++ {
			if digits[j] < '0' || digits[j] > '9' {
				return v, fmt.Sprintf("bad prefix length %q (want 1 to 9999)", digits)
			}
			v.prefix = v.prefix*10 + int(digits[j]-'0')
		}
	}
	if !validVarName(name) {
		return v, fmt.Sprintf("bad variable name %q", name)
	}
	v.name = name
	return v, ""
}

// validVarName checks varname = varchar *( ["."] varchar ), where varchar is ALPHA,
// DIGIT, '_' or a pct-encoded triplet.
func validVarName(s string) bool {
	if s == "" {
		return false
	}
	prevDot := true // a name may not start with '.'
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if prevDot {
				return false
			}
			prevDot = true
			continue
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case c == '_' || isAlnum(c):
		default:
			return false
		}
		prevDot = false
	}
	return !prevDot
}

// String returns the template text as given to Parse.
func (t *Template) String() string { return t.raw }

// Vars returns the distinct variable names in the order they first appear.
func (t *Template) Vars() []string { return append([]string(nil), t.vars...) }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isUnreserved(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isReserved(c byte) bool {
	return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0
}

// isLiteral reports whether an ASCII byte may appear as itself in a template literal
// (RFC 6570 section 2.1; '%' and '{' are handled by the caller).
func isLiteral(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return strings.IndexByte("\"'%<>\\^`{|}", c) < 0
}

const upperHex = "0123456789ABCDEF"

func appendPct(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(upperHex[c>>4])
	b.WriteByte(upperHex[c&0xf])
}
