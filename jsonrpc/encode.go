package jsonrpc

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// encodeMaxDepth bounds the nesting of raw payloads that Encode accepts. It is far
// above DefaultMaxDepth so that anything a peer could decode can be re-encoded.
const encodeMaxDepth = 10000

// Encode appends the JSON encoding of msg to dst and returns it.
//
// The output is compact JSON on one line with the members in a fixed order:
//
//	{"jsonrpc":"2.0","id":…,"method":…,"params":…}   (no "id" for a notification)
//	{"jsonrpc":"2.0","id":…,"result":…}
//	{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}
//
// A Response whose ID is absent encodes "id":null; one with neither Result nor
// Error encodes "result":null. An *Invalid encodes as the error response it is owed.
// A Batch encodes as an array of its elements.
//
// Raw payloads (Params, Result, Error.Data) are checked with the same strict rules
// as Decode (except the depth limit, which is 10000 here) and compacted when they
// contain whitespace, so the output never holds a raw line break. Params must be an
// object or an array. On error, Encode returns dst unchanged with the error.
func Encode(dst []byte, msg Message) ([]byte, error) {
	n := len(dst)
	out, err := encode(dst, msg, true)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

func encode(dst []byte, msg Message, top bool) ([]byte, error) {
	switch m := msg.(type) {
	case *Request:
		if m == nil {
			return dst, errors.New("jsonrpc: encode: nil *Request")
		}
		dst = grow(dst, 48+len(m.ID.raw)+len(m.Method)+len(m.Params))
		dst = append(dst, `{"jsonrpc":"2.0"`...)
		if !m.ID.IsAbsent() {
			if !m.ID.IsString() && !m.ID.IsNumber() {
				return dst, fmt.Errorf("jsonrpc: encode: a request id must be a string or a number, not %s", m.ID.raw)
			}
			dst = append(dst, `,"id":`...)
			dst = append(dst, m.ID.raw...)
		}
		dst = append(dst, `,"method":`...)
		dst = appendString(dst, m.Method)
		if len(m.Params) > 0 {
			if c := firstByte(m.Params); c != '{' && c != '[' {
				return dst, errors.New("jsonrpc: encode: params must be an object or an array")
			}
			dst = append(dst, `,"params":`...)
			var err error
			if dst, err = appendRaw(dst, m.Params); err != nil {
				return dst, fmt.Errorf("jsonrpc: encode params: %w", err)
			}
		}
		return append(dst, '}'), nil
	case *Response:
		if m == nil {
			return dst, errors.New("jsonrpc: encode: nil *Response")
		}
		if m.Error != nil && len(m.Result) > 0 {
			return dst, errors.New("jsonrpc: encode: a response carries a result or an error, not both")
		}
		return appendResponse(dst, m.ID, m.Result, m.Error)
	case *Invalid:
		if m == nil || m.Err == nil {
			return dst, errors.New("jsonrpc: encode: *Invalid without an error")
		}
		return appendResponse(dst, m.ID, nil, m.Err)
	case Batch:
		if !top {
			return dst, errors.New("jsonrpc: encode: batches do not nest")
		}
		if len(m) == 0 {
			return dst, errors.New("jsonrpc: encode: empty batch")
		}
		dst = append(dst, '[')
		for i, e := range m {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = encode(dst, e, false); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case nil:
		return dst, errors.New("jsonrpc: encode: nil message")
	}
	return dst, fmt.Errorf("jsonrpc: encode: unknown message type %T", msg)
}

func appendResponse(dst []byte, id ID, result []byte, e *Error) ([]byte, error) {
	size := 48 + len(id.raw) + len(result)
	if e != nil {
		size += 32 + len(e.Message) + len(e.Data)
	}
	dst = grow(dst, size)
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	switch {
	case id.IsAbsent():
		dst = append(dst, "null"...)
	case id.IsString() || id.IsNumber() || id.IsNull():
		dst = append(dst, id.raw...)
	default:
		return dst, fmt.Errorf("jsonrpc: encode: bad id %s", id.raw)
	}
	var err error
	if e != nil {
		dst = append(dst, `,"error":{"code":`...)
		dst = strconv.AppendInt(dst, e.Code, 10)
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, e.Message)
		if len(e.Data) > 0 {
			dst = append(dst, `,"data":`...)
			if dst, err = appendRaw(dst, e.Data); err != nil {
				return dst, fmt.Errorf("jsonrpc: encode error data: %w", err)
			}
		}
		return append(dst, "}}"...), nil
	}
	dst = append(dst, `,"result":`...)
	if len(result) == 0 {
		dst = append(dst, "null"...)
	} else if dst, err = appendRaw(dst, result); err != nil {
		return dst, fmt.Errorf("jsonrpc: encode result: %w", err)
	}
	return append(dst, '}'), nil
}

func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		dst = slices.Grow(dst, n)
	}
	return dst
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// Valid reports whether raw is one JSON value that Decode would accept inside a
// message: well-formed, valid UTF-8, no duplicate member names, nested no deeper
// than maxDepth (DefaultMaxDepth when zero or less).
func Valid(raw []byte, maxDepth int) bool {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	return checkRaw(raw, maxDepth) == nil
}

func checkRaw(raw []byte, maxDepth int) *Error {
	s := newScanner(raw, maxDepth)
	defer s.free()
	if err := s.value(1); err != nil {
		return err
	}
	if s.sem != nil {
		return s.sem
	}
	s.skipWS()
	if s.pos != len(raw) {
		return s.syntax("data after the value at offset %d", s.pos)
	}
	return nil
}

// appendRaw validates raw and appends it to dst, without whitespace.
func appendRaw(dst, raw []byte) ([]byte, error) {
	s := newScanner(raw, encodeMaxDepth)
	err := s.value(1)
	if err == nil {
		err = s.sem
	}
	if err == nil {
		s.skipWS()
		if s.pos != len(raw) {
			err = s.syntax("data after the value at offset %d", s.pos)
		}
	}
	sawSpace := s.sawSpace
	s.free()
	if err != nil {
		return dst, err
	}
	if !sawSpace {
		return append(dst, raw...), nil
	}
	// raw is valid JSON: drop every whitespace byte outside strings.
	dst = grow(dst, len(raw))
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				dst = append(dst, raw[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst, nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string (see AppendString).
func appendString(dst []byte, s string) []byte { return AppendString(dst, s, false) }

// AppendString appends s to dst as a JSON string. Invalid UTF-8 becomes U+FFFD;
// control characters, U+2028 and U+2029 are escaped, so the result never holds a raw
// line break; with escapeHTML, <, > and & are escaped too, as encoding/json does by
// default (the output is then byte-for-byte encoding/json's).
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if escapeHTML {
			i = plainRunHTML(s, i)
		} else {
			i = plainRun(s, i)
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
