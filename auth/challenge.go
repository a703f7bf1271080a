package auth

import (
	"errors"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110 section 11.6.1):
// a scheme and its parameters.
type Challenge struct {
	// Scheme is the authentication scheme as sent (compare with strings.EqualFold).
	Scheme string
	// Token68 is the scheme's token68 form, when it was sent instead of parameters.
	Token68 string
	// Params holds the parameters, names lower-cased, values unquoted. A repeated
	// name keeps its first value.
	Params map[string]string
}

// Limits of ParseChallenges: a header beyond them is refused rather than parsed.
const (
	maxChallengeBytes  = 8 << 10
	maxChallenges      = 16
	maxChallengeParams = 32
)

// ErrMalformedChallenge is returned by ParseChallenges for a header that does not
// follow the WWW-Authenticate grammar or exceeds its limits.
var ErrMalformedChallenge = errors.New("auth: malformed WWW-Authenticate header")

// ParseChallenges parses the values of one or more WWW-Authenticate header lines.
// It never panics; input beyond 8 KiB, 16 challenges or 32 parameters per challenge
// is refused with ErrMalformedChallenge.
func ParseChallenges(values []string) ([]Challenge, error) {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	if n > maxChallengeBytes {
		return nil, ErrMalformedChallenge
	}
	var out []Challenge
	for _, v := range values {
		cs, err := parseChallengeLine(v)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
		if len(out) > maxChallenges {
			return nil, ErrMalformedChallenge
		}
	}
	return out, nil
}

// BearerChallenge returns the parameters of the first Bearer challenge in h's
// WWW-Authenticate lines, or nil when there is none or the header is malformed.
func BearerChallenge(values []string) map[string]string {
	cs, err := ParseChallenges(values)
	if err != nil {
		return nil
	}
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			if c.Params == nil {
				return map[string]string{}
			}
			return c.Params
		}
	}
	return nil
}

type challengeLexer struct {
	s string
	i int
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68Char(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

func (l *challengeLexer) ws() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

func (l *challengeLexer) token() string {
	j := l.i
	for l.i < len(l.s) && isTchar(l.s[l.i]) {
		l.i++
	}
	return l.s[j:l.i]
}

func (l *challengeLexer) quoted() (string, bool) {
	// l.s[l.i] == '"'
	l.i++
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return b.String(), true
		case c == '\\':
			if l.i+1 >= len(l.s) {
				return "", false
			}
			b.WriteByte(l.s[l.i+1])
			l.i += 2
		case c < 0x20 && c != '\t', c == 0x7f:
			return "", false
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	return "", false
}

// atEndOfItem reports whether the lexer stands at the end of the line or a comma.
func (l *challengeLexer) atEndOfItem() bool {
	l.ws()
	return l.i >= len(l.s) || l.s[l.i] == ','
}

func parseChallengeLine(s string) ([]Challenge, error) {
	l := &challengeLexer{s: s}
	var out []Challenge
	var cur *Challenge
	for {
		// Skip empty list elements.
		for {
			l.ws()
			if l.i < len(l.s) && l.s[l.i] == ',' {
				l.i++
				continue
			}
			break
		}
		if l.i >= len(l.s) {
			return out, nil
		}
		name := l.token()
		if name == "" {
			return nil, ErrMalformedChallenge
		}
		l.ws()
		if cur != nil && l.i < len(l.s) && l.s[l.i] == '=' {
			// name=value: a parameter of the current challenge.
			l.i++
			l.ws()
			if err := l.param(cur, name); err != nil {
				return nil, err
			}
			if !l.atEndOfItem() {
				return nil, ErrMalformedChallenge
			}
			continue
		}
		// A new challenge: the scheme, then a token68, parameters or nothing.
		out = append(out, Challenge{Scheme: name})
		if len(out) > maxChallenges {
			return nil, ErrMalformedChallenge
		}
		cur = &out[len(out)-1]
		if l.atEndOfItem() {
			continue
		}
		// token68, or the first parameter.
		j := l.i
		tok := l.token()
		l.ws()
		if tok != "" && l.i < len(l.s) && l.s[l.i] == '=' {
			// name=value, or a token68 ending in '=' padding (then nothing but the
			// end of the item follows the padding).
			k := l.i
			for k < len(l.s) && l.s[k] == '=' {
				k++
			}
			rest := k
			for rest < len(l.s) && (l.s[rest] == ' ' || l.s[rest] == '\t') {
				rest++
			}
			if (rest >= len(l.s) || l.s[rest] == ',') && l.i == j+len(tok) {
				cur.Token68 = l.s[j:k]
				l.i = k
				continue
			}
			l.i++
			l.ws()
			if err := l.param(cur, tok); err != nil {
				return nil, err
			}
			if !l.atEndOfItem() {
				return nil, ErrMalformedChallenge
			}
			continue
		}
		// token68 without '=' padding.
		l.i = j
		k := j
		for k < len(l.s) && isToken68Char(l.s[k]) {
			k++
		}
		for k < len(l.s) && l.s[k] == '=' {
			k++
		}
		if k == j {
			return nil, ErrMalformedChallenge
		}
		cur.Token68 = l.s[j:k]
		l.i = k
		if !l.atEndOfItem() {
			return nil, ErrMalformedChallenge
		}
	}
}

// param reads a parameter value (token or quoted-string) for name into c.
func (l *challengeLexer) param(c *Challenge, name string) error {
	var v string
	if l.i < len(l.s) && l.s[l.i] == '"' {
		q, ok := l.quoted()
		if !ok {
			return ErrMalformedChallenge
		}
		v = q
	} else {
		v = l.token()
		if v == "" {
			return ErrMalformedChallenge
		}
	}
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	key := strings.ToLower(name)
	if _, dup := c.Params[key]; !dup {
		if len(c.Params) >= maxChallengeParams {
			return ErrMalformedChallenge
		}
		c.Params[key] = v
	}
	return nil
}

// FormatChallenge renders a challenge for a WWW-Authenticate header. Parameters are
// written in the order given as name="value" pairs; empty values are left out.
func FormatChallenge(scheme string, params ...[2]string) string {
	var b strings.Builder
	b.WriteString(scheme)
	first := true
	for _, p := range params {
		if p[1] == "" {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(p[0])
		b.WriteString(`="`)
		for i := 0; i < len(p[1]); i++ {
			c := p[1][i]
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			if c < 0x20 || c == 0x7f {
				continue // never put control characters in a header
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	return b.String()
}
