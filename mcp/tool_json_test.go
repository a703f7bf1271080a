package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// callToolResultSeeds are tools/call results of every shape the decoder meets.
var callToolResultSeeds = []string{
	`{"content":[{"type":"text","text":"x","_meta":{}}],"structuredContent":{},"_meta":{}}`,
	`{"0000000":[{"0000":"0000","0000":"","00000000000":{}}],"_metA":{}}`,
	`{"content":[],"structuredContent":{"a":1},"Content":[{"type":"text","text":"later"}],"ISERROR":true,"structuredcontent":null}`,
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[],"structuredContent":{"rows":[[1,2.5,"x",null,true]],"rowCount":1}}`,
	`{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1},"isError":false}`,
	`{ "content" : [ { "type" : "text" , "text" : "spaced" } ] , "structuredContent" : { "a" : [ 1 , 2 ] } }`,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"audio","data":"aGk=","mimeType":"audio/wav"}]}`,
	`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","size":3},{"type":"resource","resource":{"uri":"file:///b","text":"b"}}]}`,
	`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}}],"_meta":{"m":1}}`,
	`{"content":[{"type":"text","text":"bad"}],"isError":true,"structuredContent":{"error":"no such table","suggestions":["orders"]}}`,
	`{"structuredContent":null,"content":null}`,
	`{"content":[],"structuredContent":{"s":"<a & b>","u":"é\u00e9\ud83d\ude00","esc":"\"\\\/\b\f\n\r\t"}}`,
	`{"content":[],"resultType":"complete","ttlMs":0,"unknown":{"deep":[{"x":[]}]}}`,
	`{"\u0063ontent":[{"type":"text","text":"escaped name"}],"structured\u0043ontent":{"a":1}}`,
	`{"Content":[{"type":"text","text":"case"}],"StructuredContent":{"a":1},"IsError":true}`,
	`{"content":[{"type":"nope"}]}`,
	`{"content":{"type":"text"}}`,
	`{"isError":"yes","content":[]}`,
	`{"content":[],"content":[]}`,
	`[]`, `"x"`, `null`, `{}`, `{"content":[`, `{"content":[]}x`,
}

// referenceCallToolResult decodes a result the plain way: encoding/json into the
// wire form (unmarshalPlain, the general path).
func referenceCallToolResult(b []byte) (*CallToolResult, error) {
	var r CallToolResult
	if err := r.unmarshalPlain(b); err != nil {
		return nil, err
	}
	return &r, nil
}

// compareCallToolResult checks CallToolResult.UnmarshalJSON against the reference:
// whatever it accepts, the reference accepts with the same value; whatever the
// reference refuses, it refuses. (It may refuse more: what every message the
// jsonrpc decoder reads is refused for anyway — a member name repeated in an
// object, which the reference's map hides, invalid UTF-8, which encoding/json
// replaces, and nesting deeper than jsonrpc.DefaultMaxDepth.) A decoded result encodes and decodes to itself.
func compareCallToolResult(t *testing.T, b []byte) {
	t.Helper()
	var got CallToolResult
	err := got.UnmarshalJSON(b)
	want, refErr := referenceCallToolResult(b)
	if refErr != nil {
		if err == nil {
			t.Fatalf("%s: decoded, but the reference refuses it: %v", b, refErr)
		}
		return
	}
	if err != nil {
		if json.Valid(b) && utf8.Valid(b) && !repeatsOrNests(b) {
			t.Fatalf("%s: refused (%v), the reference decodes it", b, err)
		}
		return
	}
	if diff := cmp.Diff(want, &got, cmp.Comparer(sameJSON)); diff != "" {
		t.Fatalf("%s (-reference +decoded):\n%s", b, diff)
	}
	if !utf8.Valid(b) || repeatsOrNests(b) {
		// Raw structured content is written as it came; invalid UTF-8 or a repeated
		// member in it never leaves a server (the jsonrpc layer refuses such a
		// result) and is not read back by the scanner: no round trip to check.
		return
	}
	enc, err := got.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: encoding the decoded result: %v", b, err)
	}
	var again CallToolResult
	if err := again.UnmarshalJSON(enc); err != nil {
		t.Fatalf("%s: encoded as %s, which does not decode: %v", b, enc, err)
	}
	// (An empty _meta, or an empty audience of annotations, is not written, so it
	// comes back absent.)
	emptyMeta := cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().Type() == reflect.TypeFor[Meta]() || p.Last().Type() == reflect.TypeFor[[]Role]()
	}, cmpopts.EquateEmpty())
	if diff := cmp.Diff(&got, &again, cmp.Comparer(sameJSON), emptyMeta); diff != "" {
		t.Fatalf("%s: encoded as %s, decoded again differs:\n%s", b, enc, diff)
	}
}

// sameJSON compares two raw JSON values by meaning.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(x, y)
}

// repeatsOrNests reports whether some object in b (valid JSON) names a member
// twice, or b nests deeper than jsonrpc.DefaultMaxDepth: what the jsonrpc decoder
// refuses in every message, and encoding/json takes.
func repeatsOrNests(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj   bool
		key   bool // the next string token is a name
		names map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.obj {
					top.key = true
				}
				stack = append(stack, &frame{obj: v == '{', key: v == '{', names: map[string]bool{}})
				if len(stack) > jsonrpc.DefaultMaxDepth {
					return true
				}
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.obj && top.key {
				if top.names[v] {
					return true
				}
				top.names[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}

func TestCallToolResultDecode(t *testing.T) {
	for _, s := range callToolResultSeeds {
		compareCallToolResult(t, []byte(s))
	}
	// Names are matched as encoding/json matches them, with structured content or
	// without: exactly, else without regard to case.
	var r CallToolResult
	for _, in := range []string{
		`{"Content":[{"type":"text","text":"x"}],"IsError":true}`,
		`{"Content":[{"type":"text","text":"x"}],"IsError":true,"structuredContent":{"a":1}}`,
	} {
		if err := r.UnmarshalJSON([]byte(in)); err != nil || len(r.Content) != 1 || !r.IsError {
			t.Errorf("%s: case-variant names were not taken: %+v %v", in, r, err)
		}
	}
	// Read by the scanner (with structured content), a repeated member is refused,
	// as the jsonrpc decoder refuses it in every message it reads.
	if err := r.UnmarshalJSON([]byte(`{"content":[],"isError":false,"isError":true,"structuredContent":{}}`)); err == nil {
		t.Error("a repeated member was accepted")
	}
	// Structured content is kept as sent, and owned by the result.
	in := []byte(`{"content":[],"structuredContent":{ "a" : 1 }}`)
	if err := r.UnmarshalJSON(in); err != nil {
		t.Fatal(err)
	}
	copy(in, strings.Repeat("x", len(in)))
	if got := string(r.StructuredContent.(json.RawMessage)); got != `{ "a" : 1 }` {
		t.Errorf("structured content %q", got)
	}
}

func FuzzCallToolResultJSON(f *testing.F) {
	for _, s := range callToolResultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { compareCallToolResult(t, b) })
}

// TestCallToolResultEncode: a result with raw structured content encodes to what
// encoding/json makes of the same wire form (same members, same values), and raw
// content that is not JSON makes the result's bytes refused by json.Marshal.
func TestCallToolResultEncode(t *testing.T) {
	text := "a <b> & \"c\"\n"
	meta := Meta{"k": "v"}
	for _, r := range []*CallToolResult{
		{Content: []Content{&TextContent{Text: text}}, StructuredContent: json.RawMessage(`{"rows":[[1,"<x>"]],"n":1}`)},
		{Content: []Content{&TextContent{Text: text}}, StructuredContent: json.RawMessage(`{ "spaced" : [ 1 , 2 ] }`), IsError: true, Meta: meta},
		{StructuredContent: json.RawMessage(`{"a":1}`), Meta: meta},
		{Content: []Content{&ImageContent{Data: []byte("hi"), MIMEType: "image/png"}}, StructuredContent: map[string]any{"x": 1}},
		{Content: []Content{&TextContent{Text: "plain"}}},
		{StructuredContent: json.RawMessage(nil)},
	} {
		got, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		w := wireCallToolResult{Content: make([]any, len(r.Content)), IsError: r.IsError, Meta: r.Meta}
		for i, c := range r.Content {
			w.Content[i] = wireOf(c)
		}
		if raw, ok := r.StructuredContent.(json.RawMessage); !ok || len(raw) > 0 {
			w.StructuredContent = r.StructuredContent
		}
		want, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(got, want) {
			t.Errorf("encoded %s\nencoding/json %s", got, want)
		}
		if !strings.HasPrefix(string(got), `{"content":[`) {
			t.Errorf("content is not first: %s", got)
		}
	}
	bad := &CallToolResult{StructuredContent: json.RawMessage(`{"a":`)}
	if b, err := json.Marshal(bad); err == nil {
		t.Errorf("invalid structured content encoded: %s", b)
	}
}
