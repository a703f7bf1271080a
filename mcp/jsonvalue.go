package mcp

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// decodeValue parses a JSON document into the generic form the schema validator
// (mcp/internal/jschema) takes — map[string]any, []any, string, bool, nil and
// json.Number (numbers keep their exact text) — without reflection. It is what
// santhosh-tekuri/jsonschema's UnmarshalJSON produces (a test holds it to that),
// several times faster; the input has normally been checked by the jsonrpc
// decoder already, but anything malformed is still an error here.
func decodeValue(data []byte) (any, error) {
	d := valueDecoder{data: data}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.skip(); d.i != len(d.data) {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

type valueDecoder struct {
	data []byte
	i    int
}

var errSyntax = errors.New("invalid JSON")

// maxValueDepth bounds nesting (the jsonrpc decoder applies its own, lower, limit).
const maxValueDepth = 512

func (d *valueDecoder) skip() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *valueDecoder) value(depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	d.skip()
	if d.i >= len(d.data) {
		return nil, errSyntax
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		d.skip()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return m, nil
		}
		for {
			d.skip()
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.skip()
			if d.i >= len(d.data) || d.data[d.i] != ':' {
				return nil, errSyntax
			}
			d.i++
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			d.skip()
			if d.i >= len(d.data) {
				return nil, errSyntax
			}
			if d.data[d.i] == ',' {
				d.i++
				continue
			}
			if d.data[d.i] == '}' {
				d.i++
				return m, nil
			}
			return nil, errSyntax
		}
	case c == '[':
		d.i++
		a := []any{}
		d.skip()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return a, nil
		}
		for {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			d.skip()
			if d.i >= len(d.data) {
				return nil, errSyntax
			}
			if d.data[d.i] == ',' {
				d.i++
				continue
			}
			if d.data[d.i] == ']' {
				d.i++
				return a, nil
			}
			return nil, errSyntax
		}
	case c == '"':
		return d.str()
	case c == 't':
		return d.lit("true", true)
	case c == 'f':
		return d.lit("false", false)
	case c == 'n':
		return d.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		d.i++
		for d.i < len(d.data) {
			switch d.data[d.i] {
			case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', 'e', 'E', '+', '-':
				d.i++
				continue
			}
			break
		}
		n := string(d.data[start:d.i])
		if _, err := strconv.ParseFloat(n, 64); err != nil && !errors.Is(err, strconv.ErrRange) || !json.Valid([]byte(n)) {
			return nil, errSyntax
		}
		return json.Number(n), nil
	}
	return nil, errSyntax
}

func (d *valueDecoder) lit(word string, v any) (any, error) {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		return nil, errSyntax
	}
	d.i += len(word)
	return v, nil
}

// str reads a JSON string; escapes and anything unusual go through encoding/json.
func (d *valueDecoder) str() (string, error) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", errSyntax
	}
	start := d.i
	plain := true
	for j := d.i + 1; j < len(d.data); {
		j += jsonrpc.PlainPrefix(d.data[j:]) // plain ASCII first, eight bytes at a time
		if j >= len(d.data) {
			break
		}
		c := d.data[j]
		switch {
		case c == '"':
			d.i = j + 1
			if plain {
				return string(d.data[start+1 : j]), nil
			}
			var s string
			if err := json.Unmarshal(d.data[start:j+1], &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			plain = false
			j += 2
		case c < 0x20:
			return "", errSyntax
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(d.data[j:])
			if r == utf8.RuneError && n == 1 {
				plain = false // let encoding/json replace it as it always does
			}
			j += n
		}
	}
	return "", errSyntax
}
