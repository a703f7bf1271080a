package uritemplate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Pair is one member of an associative-array value, for when member order matters.
type Pair struct {
	Key, Value string
}

// value is a variable value in one of the three RFC 6570 forms.
type value struct {
	str   string
	list  []string
	pairs []Pair
	kind  int // kindString, kindList or kindPairs
}

const (
	kindString = iota
	kindList
	kindPairs
)

// toValue converts a variable to its RFC 6570 form. ok is false when the variable is
// undefined: nil, absent, or an empty list or associative array (RFC 6570 2.3).
func toValue(name string, v any) (value, bool, error) {
	switch v := v.(type) {
	case nil:
		return value{}, false, nil
	case string:
		return value{str: v}, true, nil
	case []string:
		return value{list: v, kind: kindList}, len(v) > 0, nil
	case []Pair:
		return value{pairs: v, kind: kindPairs}, len(v) > 0, nil
	case map[string]string:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		pairs := make([]Pair, len(keys))
		for i, k := range keys {
			pairs[i] = Pair{k, v[k]}
		}
		return value{pairs: pairs, kind: kindPairs}, len(pairs) > 0, nil
	case bool:
		return value{str: strconv.FormatBool(v)}, true, nil
	case int:
		return value{str: strconv.Itoa(v)}, true, nil
	case int64:
		return value{str: strconv.FormatInt(v, 10)}, true, nil
	case int32:
		return value{str: strconv.FormatInt(int64(v), 10)}, true, nil
	case uint:
		return value{str: strconv.FormatUint(uint64(v), 10)}, true, nil
	case uint64:
		return value{str: strconv.FormatUint(v, 10)}, true, nil
	case uint32:
		return value{str: strconv.FormatUint(uint64(v), 10)}, true, nil
	}
	return value{}, false, fmt.Errorf("uritemplate: variable %q: unsupported value type %T", name, v)
}

// Expand fills in the template (RFC 6570 section 3). Each value is a string,
// []string (a list), map[string]string or []Pair (an associative array; a map is
// expanded in sorted key order), a bool or an integer (written in decimal). A nil or
// absent value, an empty list and an empty associative array are undefined and
// expand to nothing. A prefix modifier on a list or array value is an error, as is
// any other value type.
func (t *Template) Expand(vars map[string]any) (string, error) {
	var b strings.Builder
	b.Grow(len(t.raw) + 16)
	for _, p := range t.parts {
		if p.expr == nil {
			b.WriteString(p.lit)
			continue
		}
		if err := p.expr.expand(&b, vars); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func (e *expression) expand(b *strings.Builder, vars map[string]any) error {
	op := e.op
	first := true
	for _, vs := range e.vars {
		val, defined, err := toValue(vs.name, vars[vs.name])
		if err != nil {
			return err
		}
		if !defined {
			continue
		}
		if first {
			b.WriteString(op.first)
			first = false
		} else {
			b.WriteString(op.sep)
		}
		switch val.kind {
		case kindString:
			s := val.str
			if vs.prefix > 0 {
				s = truncate(s, vs.prefix)
			}
			if op.named {
				b.WriteString(vs.name)
				if s == "" {
					b.WriteString(op.ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			encode(b, s, op.allowReserved)
		case kindList, kindPairs:
			if vs.prefix > 0 {
				return fmt.Errorf("uritemplate: variable %q: a prefix modifier does not apply to a composite value", vs.name)
			}
			if vs.explode {
				explode(b, op, vs.name, val)
				continue
			}
			if op.named {
				b.WriteString(vs.name)
				b.WriteByte('=')
			}
			if val.kind == kindList {
				for i, s := range val.list {
					if i > 0 {
						b.WriteByte(',')
					}
					encode(b, s, op.allowReserved)
				}
				continue
			}
			for i, p := range val.pairs {
				if i > 0 {
					b.WriteByte(',')
				}
				encode(b, p.Key, op.allowReserved)
				b.WriteByte(',')
				encode(b, p.Value, op.allowReserved)
			}
		}
	}
	return nil
}

// explode writes a list or associative array with the explode modifier: each
// member is a separate value, named by the variable (lists) or by its key (arrays).
func explode(b *strings.Builder, op *operator, name string, val value) {
	if val.kind == kindList {
		for i, s := range val.list {
			if i > 0 {
				b.WriteString(op.sep)
			}
			if op.named {
				b.WriteString(name)
				if s == "" {
					b.WriteString(op.ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			encode(b, s, op.allowReserved)
		}
		return
	}
	for i, p := range val.pairs {
		if i > 0 {
			b.WriteString(op.sep)
		}
		encode(b, p.Key, op.allowReserved)
		if op.named && p.Value == "" {
			b.WriteString(op.ifEmpty)
			continue
		}
		b.WriteByte('=')
		encode(b, p.Value, op.allowReserved)
	}
}

// truncate keeps the first n Unicode characters of s.
func truncate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// encode writes s with every byte outside the allowed set pct-encoded (upper-case
// hex, UTF-8 bytes). Unreserved characters are always allowed; with allowReserved,
// reserved characters and existing pct-encoded triplets are kept as well (the
// triplets normalized to upper-case hex).
func encode(b *strings.Builder, s string, allowReserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUnreserved(c):
			b.WriteByte(c)
		case allowReserved && isReserved(c):
			b.WriteByte(c)
		case allowReserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			// Kept, with its hex digits in upper case (RFC 3986 section 6.2.2.1).
			appendPct(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			appendPct(b, c)
		}
	}
}
