package mcp

import (
	"encoding/json"
	"testing"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "<tag> & amp", "\n\r\t\b\f\x00\x1f",
		"ünïcödé ✓ 😀", "bad \xff utf8 \xc3", "line\u2028sep\u2029para", "\x7f del"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func TestEncodeCallToolResultMatchesEncodingJSON(t *testing.T) {
	p := 0.5
	for _, r := range []*CallToolResult{
		{},
		TextResult("hi <there>"),
		ErrorResult("bad %q", "x"),
		{Content: []Content{&TextContent{Text: "a", Annotations: &Annotations{Priority: &p}}, &ImageContent{Data: []byte{1}, MIMEType: "image/png"}},
			StructuredContent: json.RawMessage(`{"a":1}`), Meta: Meta{"k": "v"}},
		{Content: []Content{&TextContent{Text: "x", MIMEType: "text/markdown"}}, StructuredContent: map[string]int{"n": 2}},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeCallToolResult(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func TestDecodeCallToolParams(t *testing.T) {
	var p CallToolParams
	err := decodeCallToolParams([]byte(` {"name":"e\u0063ho", "arguments" : {"message":"x,}"},"task":{"ttl":5},"_meta":{"progressToken":1},"other":[1,2]}`), &p)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "echo", p.Name)
	diff(t, `{"message":"x,}"}`, string(p.Arguments))
	diff(t, int64(5), *p.Task.TTL)
	diff(t, float64(1), p.Meta["progressToken"])
	for _, bad := range []string{`{"name":5}`, `{"Name":"echo"}`, `[1]`, `{"task":"x"}`} {
		var q CallToolParams
		if decodeCallToolParams([]byte(bad), &q) == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
