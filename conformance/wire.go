package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Msg is one JSON value the server sent, kept as raw bytes together with its
// top-level members. The suite never decodes server output through a
// permissive decoder first: Members is built with a token scanner that keeps
// exact member names and notices duplicates.
type Msg struct {
	// Raw is the message exactly as it arrived (one line, one SSE data
	// payload or one HTTP body).
	Raw []byte
	// Members holds the top-level members of an object message; nil when
	// the message is not an object.
	Members map[string]json.RawMessage
	// Dup lists top-level member names that occurred more than once.
	Dup []string
	// Err is set when Raw is not a single well-formed JSON value.
	Err error
	// Source says where the message was read (stdout, POST, GET, SSE).
	Source string
}

// parseMsg scans raw into a Msg. It never fails: problems land in Err.
func parseMsg(raw []byte, source string) Msg {
	m := Msg{Raw: raw, Source: source}
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		m.Err = errors.New("not valid JSON")
		return m
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return m
	}
	m.Members, m.Dup, m.Err = objectMembers(trimmed)
	return m
}

// objectMembers returns the members of the JSON object in data, keeping exact
// names, and the names that were repeated.
func objectMembers(data []byte) (map[string]json.RawMessage, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not an object")
	}
	out := map[string]json.RawMessage{}
	var dup []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, ok := tok.(string)
		if !ok {
			return nil, nil, errors.New("member name is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, seen := out[name]; seen {
			dup = append(dup, name)
		}
		out[name] = v
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return out, dup, nil
}

// IsArray reports whether the message is a JSON array (a batch).
func (m Msg) IsArray() bool {
	t := bytes.TrimSpace(m.Raw)
	return len(t) > 0 && t[0] == '['
}

// Elements splits an array message into its elements.
func (m Msg) Elements() []Msg {
	var raws []json.RawMessage
	if json.Unmarshal(m.Raw, &raws) != nil {
		return nil
	}
	out := make([]Msg, 0, len(raws))
	for _, r := range raws {
		out = append(out, parseMsg(r, m.Source))
	}
	return out
}

// Has reports whether the top-level member name is present.
func (m Msg) Has(name string) bool { _, ok := m.Members[name]; return ok }

// IDRaw returns the raw JSON of the id member ("" when absent).
func (m Msg) IDRaw() string {
	if v, ok := m.Members["id"]; ok {
		return string(bytes.TrimSpace(v))
	}
	return ""
}

// Method returns the method member when it is a string.
func (m Msg) Method() string {
	var s string
	if v, ok := m.Members["method"]; ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// IsResponse reports whether the message is a response (result or error,
// no method).
func (m Msg) IsResponse() bool {
	return m.Members != nil && !m.Has("method") && (m.Has("result") || m.Has("error"))
}

// IsNotification reports whether the message is a notification.
func (m Msg) IsNotification() bool {
	return m.Members != nil && m.Has("method") && !m.Has("id")
}

// IsRequest reports whether the message is a request from the server.
func (m Msg) IsRequest() bool { return m.Members != nil && m.Has("method") && m.Has("id") }

// RPCError is a decoded JSON-RPC error object.
type RPCError struct {
	Code    json.Number     `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CodeInt returns the error code as an integer and whether it is one.
func (e *RPCError) CodeInt() (int64, bool) {
	n, err := strconv.ParseInt(string(e.Code), 10, 64)
	return n, err == nil
}

// Error returns the error member, or nil when there is none.
func (m Msg) Error() *RPCError {
	v, ok := m.Members["error"]
	if !ok {
		return nil
	}
	var e RPCError
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&e) != nil {
		return &RPCError{Code: "?"}
	}
	return &e
}

// Result returns the members of the result object (nil when absent or not
// an object).
func (m Msg) Result() Obj {
	v, ok := m.Members["result"]
	if !ok {
		return nil
	}
	o, _ := toObj(v)
	return o
}

// Params returns the members of the params object.
func (m Msg) Params() Obj {
	o, _ := toObj(m.Members["params"])
	return o
}

// Obj is a decoded JSON object with raw member values.
type Obj map[string]json.RawMessage

// toObj decodes raw as an object.
func toObj(raw json.RawMessage) (Obj, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	var o Obj
	if json.Unmarshal(t, &o) != nil {
		return nil, false
	}
	if o == nil {
		o = Obj{}
	}
	return o, true
}

// Str returns member k as a string and whether it is one.
func (o Obj) Str(k string) (string, bool) {
	var s string
	v, ok := o[k]
	if !ok || json.Unmarshal(v, &s) != nil || !isJSONString(v) {
		return "", false
	}
	return s, true
}

// Obj returns member k as an object.
func (o Obj) Obj(k string) (Obj, bool) { return toObj(o[k]) }

// Arr returns member k as an array of raw values.
func (o Obj) Arr(k string) ([]json.RawMessage, bool) {
	v, ok := o[k]
	t := bytes.TrimSpace(v)
	if !ok || len(t) == 0 || t[0] != '[' {
		return nil, false
	}
	var a []json.RawMessage
	if json.Unmarshal(t, &a) != nil {
		return nil, false
	}
	return a, true
}

// Kind returns the JSON type of member k ("" when absent).
func (o Obj) Kind(k string) string {
	v, ok := o[k]
	if !ok {
		return ""
	}
	return jsonKind(v)
}

// jsonKind names the JSON type of raw: object, array, string, number,
// boolean or null.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func isJSONString(raw json.RawMessage) bool { return jsonKind(raw) == "string" }

// isJSONInteger reports whether raw is a number without fraction or
// exponent.
func isJSONInteger(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	if jsonKind(raw) != "number" {
		return false
	}
	return !strings.ContainsAny(t, ".eE")
}

// objs decodes an array of raw values into objects, reporting the index of
// the first non-object.
func objs(items []json.RawMessage) ([]Obj, error) {
	out := make([]Obj, 0, len(items))
	for i, it := range items {
		o, ok := toObj(it)
		if !ok {
			return nil, fmt.Errorf("item %d is %s, not an object", i, jsonKind(it))
		}
		out = append(out, o)
	}
	return out, nil
}

// short renders raw bytes for evidence, cut to a readable length.
func short(b []byte) string {
	const max = 300
	s := string(b)
	if len(s) > max {
		return s[:max] + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return s
}

// mustJSON encodes v; v is always built by the suite itself.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("conformance: encoding %T: %v", v, err))
	}
	return b
}
