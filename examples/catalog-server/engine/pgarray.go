package engine

import "strings"

// pgArray reads PostgreSQL's text form of an array — `{a,"b c",NULL,{…}}`,
// optionally after its bounds (`[0:1]={a,b}`, which are dropped) — into nested
// []any: each element the string PostgreSQL wrote for it, nil for NULL, an inner
// array for each further dimension. delim separates elements (',' but ';' for
// box). ok is false when s is not such text.
func pgArray(s string, delim byte) (v []any, ok bool) {
	if strings.HasPrefix(s, "[") {
		_, rest, found := strings.Cut(s, "=")
		if !found {
			return nil, false
		}
		s = rest
	}
	p := arrayText{s: s, delim: delim}
	v, ok = p.array()
	p.space()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return v, true
}

// arrayText is a reader of an array's text form (PostgreSQL's array_out).
type arrayText struct {
	s     string
	i     int
	delim byte
}

// space skips the blanks PostgreSQL allows around elements.
func (p *arrayText) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\v\f", p.s[p.i]) >= 0 {
		p.i++
	}
}

// array reads `{…}` at p.i.
func (p *arrayText) array() ([]any, bool) {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	out := []any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, true
	}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case '{':
			sub, ok := p.array()
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		case '"':
			e, ok := p.quoted()
			if !ok {
				return nil, false
			}
			out = append(out, e)
		default:
			e, ok := p.bare()
			if !ok {
				return nil, false
			}
			out = append(out, e)
		}
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case p.delim:
			p.i++
		case '}':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
}

// quoted reads `"…"` at p.i, where a backslash takes the next byte as it is.
func (p *arrayText) quoted() (string, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", false
			}
			b.WriteByte(p.s[p.i])
		case '"':
			p.i++
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// bare reads an unquoted element up to the delimiter or `}`: nil for NULL (in any
// case), else its text without surrounding blanks; a backslash takes the next
// byte as it is (and makes `\NULL` the string).
func (p *arrayText) bare() (any, bool) {
	var b strings.Builder
	escaped, end := false, 0 // end: length of b up to its last byte that is not a blank (or was escaped)
	for ; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == p.delim || c == '}':
			e := b.String()[:end]
			if e == "" {
				return nil, false
			}
			if !escaped && strings.EqualFold(e, "NULL") {
				return nil, true
			}
			return e, true
		case c == '{' || c == '"':
			return nil, false
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return nil, false
			}
			b.WriteByte(p.s[p.i])
			escaped, end = true, b.Len()
		default:
			b.WriteByte(c)
			if strings.IndexByte(" \t\n\r\v\f", c) < 0 {
				end = b.Len()
			}
		}
	}
	return nil, false
}
