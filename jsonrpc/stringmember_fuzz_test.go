package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// manyMembers returns an object of n members "m0".."m{n-1}" with numbers, followed
// by extra (which starts with a comma, or is empty).
func manyMembers(n int, extra string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"m%d":%d`, i, i)
	}
	return b.String() + extra + "}"
}

func TestStringMember(t *testing.T) {
	const none = "\x00none" // want ok == false
	tests := []struct {
		name, obj, member, want string
	}{
		{"plain", `{"a":"x"}`, "a", "x"},
		{"empty value", `{"a":""}`, "a", ""},
		{"empty name", `{"":"x"}`, "", "x"},
		{"escaped value", `{"a":"a\u0062"}`, "a", "ab"},
		{"every escape", `{"a":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, "a", "\"\\/\b\f\n\r\té😀"},
		{"lone surrogate", `{"a":"\ud800\u0041"}`, "a", "\uFFFDA"},
		{"escaped name", `{"\u0061":"x"}`, "a", "x"},
		{"UTF-8 value", `{"a":"héllo, 世界"}`, "a", "héllo, 世界"},
		{"whitespace everywhere", " \t\r\n{ \n\"b\" : [ 1 , 2 ] ,\r\n \"a\" \t:\r \"x\" \n} \n\t", "a", "x"},
		{"member not first", `{"b":1,"c":[1,{"a":"no"}],"a":"yes"}`, "a", "yes"},
		{"member first", `{"a":"yes","b":{"a":"no"},"c":[{"a":"no"}]}`, "a", "yes"},
		{"many members", manyMembers(40, `,"a":"x"`), "a", "x"},
		{"nested 64 deep", `{"b":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `,"a":"x"}`, "a", "x"},
		{"nested 65 deep", `{"b":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `,"a":"x"}`, "a", none},
		{"same name nested only", `{"b":{"a":"x"}}`, "a", none},
		{"same name in an array only", `{"b":[{"a":"x"}],"c":["a","x"]}`, "a", none},
		{"name as a value", `{"b":"a"}`, "a", none},
		{"wrong case in obj", `{"A":"x"}`, "a", none},
		{"wrong case asked", `{"a":"x"}`, "A", none},
		{"prefix of the name", `{"ab":"x"}`, "a", none},
		{"number", `{"a":1}`, "a", none},
		{"string-looking number", `{"a":1,"b":"1"}`, "a", none},
		{"null", `{"a":null}`, "a", none},
		{"bool", `{"a":true}`, "a", none},
		{"object", `{"a":{"a":"x"}}`, "a", none},
		{"array", `{"a":["x"]}`, "a", none},
		{"missing", `{"b":"x"}`, "a", none},
		{"empty object", `{}`, "a", none},
		{"empty object, empty name", `{ }`, "", none},
		{"empty input", ``, "a", none},
		{"whitespace only", " \n", "a", none},
		{"array document", `["a","x"]`, "a", none},
		{"string document", `"a"`, "a", none},
		{"null document", `null`, "a", none},
		{"trailing comma", `{"a":"x",}`, "a", none},
		{"missing closing brace", `{"a":"x"`, "a", none},
		{"missing colon", `{"a" "x"}`, "a", none},
		{"missing comma", `{"a":"x" "b":1}`, "a", none},
		{"missing value", `{"a":}`, "a", none},
		{"unterminated string", `{"a":"x}`, "a", none},
		{"malformed after the member", `{"a":"x","b":[1,}`, "a", none},
		{"malformed before the member", `{"b":tru,"a":"x"}`, "a", none},
		{"bad number", `{"b":01,"a":"x"}`, "a", none},
		{"trailing garbage", `{"a":"x"}x`, "a", none},
		{"two objects", `{"a":"x"}{"a":"y"}`, "a", none},
		{"single quotes", `{'a':'x'}`, "a", none},
		{"bad escape", `{"a":"\x"}`, "a", none},
		{"short unicode escape", `{"a":"\u12"}`, "a", none},
		{"raw control character", "{\"a\":\"x\ty\"}", "a", none},
		{"invalid UTF-8 in the value", "{\"a\":\"\xff\"}", "a", none},
		{"invalid UTF-8 elsewhere", "{\"b\":\"\xc3\x28\",\"a\":\"x\"}", "a", none},
		{"invalid UTF-8 in a name", "{\"\xff\":1,\"a\":\"x\"}", "a", none},
		{"surrogate encoded as UTF-8", "{\"a\":\"\xed\xa0\x80\"}", "a", none},
		{"duplicate name", `{"a":"x","a":"x"}`, "a", none},
		{"duplicate of another member", `{"b":1,"a":"x","b":2}`, "a", none},
		{"duplicate by escape", `{"a":"x","\u0061":"y"}`, "a", none},
		{"duplicate name, non-string first", `{"a":1,"a":"x"}`, "a", none},
		{"duplicate among many members", manyMembers(40, `,"a":"x","m3":3`), "a", none},
		{"duplicate nested", `{"a":"x","b":{"c":1,"c":2}}`, "a", none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := jsonrpc.StringMember([]byte(tt.obj), tt.member)
			if tt.want == none {
				if ok {
					t.Errorf("StringMember(%q, %q) = %q, true; want false", tt.obj, tt.member, got)
				} else if got != "" {
					t.Errorf("StringMember(%q, %q) = %q with false, want \"\"", tt.obj, tt.member, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Errorf("StringMember(%q, %q) = %q, %v; want %q, true", tt.obj, tt.member, got, ok, tt.want)
			}
		})
	}
}

// jsonShape is what encoding/json says about a document: whether it is one object
// (json.Valid, '{' first), whether any object in it repeats a member name, and its
// deepest nesting (the outermost object is at 1).
type jsonShape struct {
	object bool
	dup    bool
	depth  int
}

func shapeOf(data []byte) jsonShape {
	if !json.Valid(data) {
		return jsonShape{}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return jsonShape{}
	}
	sh := jsonShape{object: true, depth: 1}
	// One entry per open container: the member names seen (nil for an array), and
	// whether the next token of an object is a name.
	type open struct {
		names  map[string]bool
		isName bool
	}
	stack := []open{{names: map[string]bool{}, isName: true}}
	for len(stack) > 0 {
		tok, err := dec.Token()
		if err != nil {
			panic(fmt.Sprintf("token walk of a valid document %q: %v", data, err))
		}
		top := &stack[len(stack)-1]
		if top.names != nil && top.isName {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				continue
			}
			name := tok.(string)
			if top.names[name] {
				sh.dup = true
			}
			top.names[name] = true
			top.isName = false
			continue
		}
		if top.names != nil {
			top.isName = true // this token starts the member's value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, open{names: map[string]bool{}, isName: true})
		case json.Delim('['):
			stack = append(stack, open{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		sh.depth = max(sh.depth, len(stack))
	}
	if _, err := dec.Token(); err != io.EOF {
		panic(fmt.Sprintf("valid document %q continues: %v", data, err))
	}
	return sh
}

// FuzzStringMember holds StringMember to encoding/json. Deliberate differences are
// left out of the comparison: StringMember rejects invalid UTF-8 (as Decode does),
// duplicate member names at any depth (as Decode does) and nesting beyond the depth
// limit, where encoding/json replaces bad bytes, keeps the last duplicate and nests
// 10000 deep. Member names are compared exactly by both (encoding/json folds case
// only for struct fields, not map keys).
func FuzzStringMember(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":"x"}`, "a"},
		{`{"protocolVersion":"2025-06-18","capabilities":{}}`, "protocolVersion"},
		{`{"b":{"a":"no"},"a":"a\u0062"}`, "a"},
		{` {"A":"x", "a" : "y" } `, "a"},
		{`{"a":"x","a":"y"}`, "a"},
		{`{"a":1}`, "a"},
		{`{"\u0061":"\ud800"}`, "a"},
		{`{"a":"x"}x`, "a"},
		{"{\"a\":\"\xff\"}", "a"},
		{`{"":"","b":[{"c":null}]}`, ""},
		{`["a","x"]`, "a"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	f.Fuzz(func(t *testing.T, obj []byte, name string) {
		got, ok := jsonrpc.StringMember(obj, name)
		sh := shapeOf(obj)
		if ok {
			if !utf8.Valid(obj) {
				t.Fatalf("StringMember(%q, %q) = %q, true on invalid UTF-8", obj, name, got)
			}
			if !sh.object || sh.dup {
				t.Fatalf("StringMember(%q, %q) = %q, true; encoding/json: %+v", obj, name, got, sh)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(obj, &m); err != nil {
				t.Fatalf("StringMember(%q, %q) = %q, true; json.Unmarshal: %v", obj, name, got, err)
			}
			raw, has := m[name]
			if !has {
				t.Fatalf("StringMember(%q, %q) = %q, true; encoding/json finds no such member", obj, name, got)
			}
			var want string
			if err := json.Unmarshal(raw, &want); err != nil || want != got {
				t.Fatalf("StringMember(%q, %q) = %q, true; encoding/json: %q, %v", obj, name, got, want, err)
			}
			return
		}
		if got != "" {
			t.Fatalf("StringMember(%q, %q) = %q with false", obj, name, got)
		}
		if !utf8.Valid(obj) || !sh.object || sh.dup || sh.depth > jsonrpc.DefaultMaxDepth {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(obj, &m); err != nil {
			t.Fatalf("json.Unmarshal(%q) of a valid object: %v", obj, err)
		}
		var want string
		if raw, has := m[name]; has && len(raw) > 0 && raw[0] == '"' {
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("json.Unmarshal(%s): %v", raw, err)
			}
			t.Fatalf("StringMember(%q, %q) = false; encoding/json finds the string %q", obj, name, want)
		}
	})
}
