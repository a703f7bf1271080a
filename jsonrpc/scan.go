package jsonrpc

import (
	"bytes"
	"fmt"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a strict, allocation-free JSON scanner over one frame. It validates
// syntax (RFC 8259), UTF-8, nesting depth and member-name uniqueness, and reports
// spans of the input instead of building values.
//
// Errors are of two kinds. A syntax error (the frame is not JSON) aborts the scan and
// is returned as a parse error. A semantic error (the frame is JSON, but not an
// acceptable message: a duplicate member, a wrong type) is recorded in sem and the
// scan continues, so that a frame which is also broken further on is still reported
// as a parse error, as JSON-RPC prescribes.
type scanner struct {
	data     []byte
	pos      int
	maxDepth int
	sem      *Error   // first semantic error of the current message
	keys     [][]byte // member names of the open objects, for duplicate detection
	keysHigh int      // most keys held at once, to clear on release
	sawSpace bool     // whitespace was skipped somewhere (Encode uses it to compact)
}

var scanners = sync.Pool{New: func() any { return &scanner{keys: make([][]byte, 0, 32)} }}

// newScanner returns a pooled scanner over data; release it with free.
func newScanner(data []byte, maxDepth int) *scanner {
	s := scanners.Get().(*scanner)
	s.data, s.maxDepth = data, maxDepth
	return s
}

func (s *scanner) free() {
	if cap(s.keys) > 1024 {
		return // let an unusually large key stack go
	}
	clear(s.keys[:s.keysHigh])
	*s = scanner{keys: s.keys[:0]}
	scanners.Put(s)
}

// smallObject is the member count up to which duplicates are found by a linear
// scan; larger objects switch to a map so that a hostile object stays O(n).
const smallObject = 16

func (s *scanner) syntax(format string, args ...any) *Error {
	return &Error{Code: CodeParseError, Message: "Parse error: " + fmt.Sprintf(format, args...)}
}

// invalid records the first semantic error of the current message.
func (s *scanner) invalid(format string, args ...any) {
	if s.sem == nil {
		s.sem = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: " + fmt.Sprintf(format, args...)}
	}
}

func (s *scanner) unexpected() *Error {
	if s.pos >= len(s.data) {
		return s.syntax("unexpected end of input")
	}
	c := s.data[s.pos]
	if c < 0x20 || c >= 0x7f {
		return s.syntax("unexpected byte 0x%02x at offset %d", c, s.pos)
	}
	return s.syntax("unexpected character %q at offset %d", c, s.pos)
}

func (s *scanner) skipWS() {
	i := s.pos
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	if i != s.pos {
		s.sawSpace = true
		s.pos = i
	}
}

// expect consumes byte c after optional whitespace.
func (s *scanner) expect(c byte) *Error {
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return nil
	}
	return s.unexpected()
}

// str scans a string starting at s.pos (which holds '"'). It returns the content
// span (without quotes) and whether it contains escapes.
func (s *scanner) str() (start, end int, esc bool, err *Error) {
	d := s.data
	i := s.pos + 1
	start = i
	for i < len(d) {
		if i = plainRun(d, i); i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return start, i, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				s.pos = len(d)
				return 0, 0, false, s.unexpected()
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:i+6]) {
					return 0, 0, false, s.syntax("bad \\u escape at offset %d", i)
				}
				i += 6
			default:
				return 0, 0, false, s.syntax("bad escape at offset %d", i)
			}
		case c < 0x20:
			return 0, 0, false, s.syntax("control character 0x%02x in string at offset %d", c, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, 0, false, s.syntax("invalid UTF-8 at offset %d", i)
			}
			i += size
		}
	}
	s.pos = len(d)
	return 0, 0, false, s.unexpected()
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// number scans a number at s.pos. It reports whether it is an integer (no fraction
// or exponent).
func (s *scanner) number() (isInt bool, err *Error) {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return false, s.unexpected()
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return false, s.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return false, s.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return isInt, nil
}

func (s *scanner) literal(lit string) *Error {
	if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return nil
	}
	return s.unexpected()
}

// key scans a member name at s.pos and returns it in canonical form: the raw bytes
// when it has no escapes, an unescaped copy otherwise.
func (s *scanner) key() ([]byte, *Error) {
	s.skipWS()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, s.unexpected()
	}
	start, end, esc, err := s.str()
	if err != nil {
		return nil, err
	}
	if esc {
		return unescape(nil, s.data[start:end]), nil
	}
	return s.data[start:end], nil
}

// addKey records name as a member of the object whose keys start at base, and
// records a semantic error when it is a duplicate. big is the object's overflow set.
func (s *scanner) addKey(base int, name []byte, big *map[string]struct{}) {
	if *big != nil {
		if _, dup := (*big)[string(name)]; dup {
			s.invalid("duplicate member %q", name)
			return
		}
		(*big)[string(name)] = struct{}{}
		return
	}
	for _, k := range s.keys[base:] {
		if bytes.Equal(k, name) {
			s.invalid("duplicate member %q", name)
			return
		}
	}
	s.keys = append(s.keys, name)
	s.keysHigh = max(s.keysHigh, len(s.keys))
	if len(s.keys)-base > smallObject {
		m := make(map[string]struct{}, 2*smallObject)
		for _, k := range s.keys[base:] {
			m[string(k)] = struct{}{}
		}
		*big = m
	}
}

// value skips one JSON value at s.pos (after whitespace), validating it. depth is
// the nesting level the value would have if it is an array or object.
func (s *scanner) value(depth int) *Error {
	s.skipWS()
	if s.pos >= len(s.data) {
		return s.unexpected()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		_, _, _, err := s.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.unexpected()
}

func (s *scanner) tooDeep() *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: nesting deeper than %d", s.maxDepth)}
}

func (s *scanner) object(depth int) *Error {
	if depth > s.maxDepth {
		return s.tooDeep()
	}
	s.pos++ // '{'
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return nil
	}
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	var big map[string]struct{}
	for {
		name, err := s.key()
		if err != nil {
			return err
		}
		s.addKey(base, name, &big)
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := s.value(depth + 1); err != nil {
			return err
		}
		if more, err := s.next('}'); err != nil || !more {
			return err
		}
	}
}

func (s *scanner) array(depth int) *Error {
	if depth > s.maxDepth {
		return s.tooDeep()
	}
	s.pos++ // '['
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		if err := s.value(depth + 1); err != nil {
			return err
		}
		if more, err := s.next(']'); err != nil || !more {
			return err
		}
	}
}

// next consumes ',' (more is true) or the closing byte (more is false).
func (s *scanner) next(closing byte) (more bool, err *Error) {
	s.skipWS()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			return true, nil
		case closing:
			s.pos++
			return false, nil
		}
	}
	return false, s.unexpected()
}

// unescape appends the decoded content of a JSON string (without quotes, already
// validated) to dst. Lone surrogates become U+FFFD, as in encoding/json.
func unescape(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '\\' {
			j := bytes.IndexByte(src[i:], '\\')
			if j < 0 {
				return append(dst, src[i:]...)
			}
			dst = append(dst, src[i:i+j]...)
			i += j
			continue
		}
		switch src[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(src[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
					if r2 := hex4(src[i+2 : i+6]); utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, src[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// plainRun returns the index of the first byte at or after i that needs a closer
// look inside a JSON string: a quote, a backslash, a control character or a
// non-ASCII byte.
func plainRun[T []byte | string](b T, i int) int {
	for i < len(b) {
		c := b[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	return i
}

// plainRunHTML is plainRun that also stops at '<', '>' and '&', which
// encoding/json escapes by default (AppendString with escapeHTML).
func plainRunHTML(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&':
			return i
		}
		i++
	}
	return i
}

// StringMember returns the value of the string member name of the JSON object obj
// (a request's params, a response's result), its name matched exactly, as Decode
// matches names. It reports false when obj is not a well-formed object, has no such
// member, or the member's value is not a string. As for Decode, obj is malformed
// when it nests deeper than DefaultMaxDepth or repeats a member name in any object.
func StringMember(obj []byte, name string) (string, bool) {
	s := newScanner(obj, DefaultMaxDepth)
	defer s.free()
	if s.expect('{') != nil {
		return "", false
	}
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		return "", false
	}
	var big map[string]struct{}
	found, ok := "", false
	for {
		key, err := s.key()
		if err != nil {
			return "", false
		}
		s.addKey(0, key, &big)
		if s.expect(':') != nil {
			return "", false
		}
		s.skipWS()
		if string(key) == name && s.pos < len(s.data) && s.data[s.pos] == '"' {
			start, end, esc, err := s.str()
			if err != nil {
				return "", false
			}
			if esc {
				found = string(unescape(nil, s.data[start:end]))
			} else {
				found = string(s.data[start:end])
			}
			ok = true
		} else if s.value(2) != nil {
			return "", false
		}
		more, err := s.next('}')
		if err != nil {
			return "", false
		}
		if !more {
			break
		}
	}
	s.skipWS()
	if s.pos != len(s.data) || s.sem != nil {
		return "", false
	}
	return found, ok
}

// Members calls fn with the name (unescaped) and the raw value of each member of the
// JSON object obj, in order, until fn returns false. It reports whether obj is a
// well-formed object by Decode's rules (nesting up to DefaultMaxDepth, no member
// name repeated in any object, valid UTF-8); fn may have been called for the members
// before a malformation that comes later in obj. The mcp package uses it to hold the
// members of params to the same exact-case rule as the JSON-RPC members, with the
// one scanner the decoder uses.
func Members(obj []byte, fn func(name, value []byte) bool) bool {
	s := newScanner(obj, DefaultMaxDepth)
	defer s.free()
	if s.expect('{') != nil {
		return false
	}
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.skipWS()
		return s.pos == len(s.data)
	}
	var big map[string]struct{}
	for {
		key, err := s.key()
		if err != nil {
			return false
		}
		s.addKey(0, key, &big)
		if s.expect(':') != nil {
			return false
		}
		s.skipWS()
		start := s.pos
		if s.value(2) != nil {
			return false
		}
		if !fn(key, s.data[start:s.pos]) {
			return s.sem == nil
		}
		more, err := s.next('}')
		if err != nil {
			return false
		}
		if !more {
			break
		}
	}
	s.skipWS()
	return s.pos == len(s.data) && s.sem == nil
}

// Elements calls fn with the raw value of each element of the JSON array arr, in
// order, until fn returns false. It reports whether arr is a well-formed array by
// the rules Members applies to an object (nesting up to DefaultMaxDepth, no member
// name repeated in any object, valid UTF-8); fn may have been called for the
// elements before a malformation that comes later in arr. With Members, it lets the
// mcp package walk a typed tool's arguments alongside the Go type they decode into.
func Elements(arr []byte, fn func(value []byte) bool) bool {
	s := newScanner(arr, DefaultMaxDepth)
	defer s.free()
	if s.expect('[') != nil {
		return false
	}
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.skipWS()
		return s.pos == len(s.data)
	}
	for {
		s.skipWS()
		start := s.pos
		if s.value(2) != nil {
			return false
		}
		if !fn(s.data[start:s.pos]) {
			return s.sem == nil
		}
		more, err := s.next(']')
		if err != nil {
			return false
		}
		if !more {
			break
		}
	}
	s.skipWS()
	return s.pos == len(s.data) && s.sem == nil
}
