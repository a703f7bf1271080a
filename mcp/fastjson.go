package mcp

import (
	"encoding/json"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Hand-written encoding and decoding for the hot path of tools/call. The output is
// byte-for-byte what encoding/json would write; anything unusual falls back to it.

// eachMember calls fn with the name and raw value of every member of the JSON object
// in data (already validated by the jsonrpc decoder), until fn returns false. Names
// with escapes are unescaped.
func eachMember(data []byte, fn func(key, value []byte) bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return
		}
		end, escaped := scanString(data, i)
		if end < 0 {
			return
		}
		raw := data[i : end+1]
		key := raw[1 : len(raw)-1]
		if escaped {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return
			}
			key = []byte(s)
		}
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return
		}
		start := skipSpace(data, i+1)
		stop := skipValue(data, start)
		if stop < 0 {
			return
		}
		if !fn(key, data[start:stop]) {
			return
		}
		i = skipSpace(data, stop)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i++
	}
}

// decodeCallToolParams decodes tools/call params without reflection: name, arguments
// (kept raw), _meta and task; other members are ignored. Member names must match
// exactly (a case variant of a known name is an error, as in unmarshalParams).
func decodeCallToolParams(data []byte, p *CallToolParams) error {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	if d := skipSpace(data, 0); d >= len(data) || data[d] != '{' {
		return invalidParams("invalid params: params must be an object")
	}
	var err error
	eachMember(data, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			if len(value) < 2 || value[0] != '"' {
				err = invalidParams("invalid params: name must be a string")
				return false
			}
			inner := value[1 : len(value)-1]
			if plainString(inner) {
				p.Name = string(inner)
			} else if e := json.Unmarshal(value, &p.Name); e != nil {
				err = invalidParams("invalid params: name: %v", e)
				return false
			}
		case "arguments":
			p.Arguments = json.RawMessage(value)
		case "_meta":
			if e := json.Unmarshal(value, &p.Meta); e != nil {
				err = invalidParams("invalid params: _meta: %v", e)
				return false
			}
		case "task":
			if e := json.Unmarshal(value, &p.Task); e != nil {
				err = invalidParams("invalid params: task: %v", e)
				return false
			}
		default:
			if exact, ok := jsonNames(callToolParamsType)[lower(key)]; ok && exact != string(key) {
				err = invalidParams("invalid params: member %q: member names are case-sensitive (the field is %q)", key, exact)
				return false
			}
		}
		return true
	})
	return err
}

// plainString reports whether the body of a JSON string has no escapes.
func plainString(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return false
		}
	}
	return true
}

func lower(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return string(out)
}

// encodeCallToolResult writes a result as encoding/json would, without reflection for
// the common shapes (plain text blocks, raw structured content).
func encodeCallToolResult(r *CallToolResult) (json.RawMessage, error) {
	b := make([]byte, 0, 64+estimateSize(r))
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if t, ok := c.(*TextContent); ok && t.Annotations == nil && t.Meta == nil && t.MIMEType == "" {
			b = append(b, `{"type":"text","text":`...)
			b = appendString(b, t.Text)
			b = append(b, '}')
			continue
		}
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		if raw, ok := r.StructuredContent.(json.RawMessage); ok && json.Valid(raw) {
			b = append(b, raw...)
		} else {
			raw, err := json.Marshal(r.StructuredContent)
			if err != nil {
				return nil, err
			}
			b = append(b, raw...)
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if r.Meta != nil {
		raw, err := json.Marshal(r.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"_meta":`...)
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

func estimateSize(r *CallToolResult) int {
	n := 0
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			n += len(t.Text) + 32
		}
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw) + 24
	}
	return n
}

// appendString appends s as a JSON string exactly as encoding/json writes it.
func appendString(b []byte, s string) []byte { return jsonrpc.AppendString(b, s, true) }
