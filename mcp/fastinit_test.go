package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// slowInitializeParams decodes params the way initialize does without the fast
// path.
func slowInitializeParams(params []byte) (InitializeParams, error) {
	var p InitializeParams
	err := unmarshalParams(params, &p)
	return p, err
}

// checkInitializeParamsFast fails when the fast decoder takes params and differs
// from unmarshalParams. It reports whether the fast decoder took them.
func checkInitializeParamsFast(t *testing.T, params []byte) bool {
	t.Helper()
	var fast InitializeParams
	if !decodeInitializeParamsFast(params, &fast) {
		return false
	}
	slow, err := slowInitializeParams(params)
	if err != nil {
		t.Errorf("%s: the fast path decoded what unmarshalParams refuses (%v)", params, err)
		return true
	}
	if d := cmp.Diff(slow, fast); d != "" {
		t.Errorf("%s: fast path differs from unmarshalParams (-slow +fast):\n%s", params, d)
	}
	return true
}

func TestDecodeInitializeParamsFast(t *testing.T) {
	tests := []struct {
		params string
		fast   bool
	}{
		{`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}`, true},
		{`{ "protocolVersion" : "2025-11-25" , "capabilities" : { } , "clientInfo" : { "name" : "c" , "title" : "C" , "version" : "2" } }`, true},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}`, true},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":false}},"clientInfo":{"name":"c","version":"1"}}`, true},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{}}}`, true},
		{`{"protocolVersion":"2025-06-18"}`, true},
		{`{}`, true},
		{`{"clientInfo":{}}`, true},
		{`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ünïcode ✓","version":"1"}}`, true},
		// Anything else is left to encoding/json.
		{``, false},
		{`null`, false},
		{`[]`, false},
		{`{"protocolVersion":"2025\u002d06-18"}`, false},
		{`{"protocolVersion":5}`, false},
		{`{"protocolVersion":null}`, false},
		{`{"ProtocolVersion":"2025-06-18"}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":null}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":[]}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":{}}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"tasks":{}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":1}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true,"x":1}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"other":true}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"roots":null}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"sampling":{"context":{}}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"form":{}}}}`, false},
		{`{"protocolVersion":"2025-06-18","capabilities":{"Roots":{}}}`, false},
		{`{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1","icons":[]}}`, false},
		{`{"protocolVersion":"2025-06-18","clientInfo":{"name":"c\"d","version":"1"}}`, false},
		{`{"protocolVersion":"2025-06-18","clientInfo":{"name":1,"version":"1"}}`, false},
		{`{"protocolVersion":"2025-06-18","clientInfo":{"Name":"c","version":"1"}}`, false},
		{`{"protocolVersion":"2025-06-18","clientInfo":null}`, false},
		{`{"protocolVersion":"2025-06-18","_meta":{"progressToken":1}}`, false},
		{`{"protocolVersion":"2025-06-18","extra":1}`, false},
	}
	for _, tt := range tests {
		if got := checkInitializeParamsFast(t, []byte(tt.params)); got != tt.fast {
			t.Errorf("%s: fast path taken = %v, want %v", tt.params, got, tt.fast)
		}
	}
}

// FuzzInitializeParamsFast: whatever params the jsonrpc decoder lets through, the
// fast path either declines or decodes exactly what unmarshalParams does.
func FuzzInitializeParamsFast(f *testing.F) {
	for _, s := range []string{
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","title":"t","version":"1"}}`,
		`{"capabilities":{"roots":{}}}`,
		`{"protocolVersion":"x","clientInfo":{"name":"a\u0062","version":""}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		msg, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`), nil)
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return
		}
		checkInitializeParamsFast(t, req.Params)
	})
}

func TestEncodeInitializeResult(t *testing.T) {
	lc := func(b bool) *ListChangedCapability { return &ListChangedCapability{ListChanged: b} }
	results := []*InitializeResult{
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Tools: lc(true), Logging: &struct{}{}},
			ServerInfo: &Implementation{Name: "wiremcp-echo", Version: "0.1.0"}},
		{ProtocolVersion: "2025-11-25", Capabilities: &ServerCapabilities{
			Prompts: lc(false), Resources: &ResourcesCapability{Subscribe: true, ListChanged: true}, Tools: lc(false),
			Logging: &struct{}{}, Completions: &struct{}{}},
			ServerInfo:   &Implementation{Name: "n", Title: "T <&> \u2028", Version: "v", Description: "d\"\\", WebsiteURL: "https://x/?a=1&b=2"},
			Instructions: "use <b>tools</b> & \x01 \ufffd"},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Resources: &ResourcesCapability{Subscribe: true}}, ServerInfo: &Implementation{}},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Resources: &ResourcesCapability{ListChanged: true}}},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Resources: &ResourcesCapability{}}},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{}},
		{},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Experimental: map[string]any{}, Extensions: map[string]any{}},
			ServerInfo: &Implementation{Name: "n", Icons: []Icon{}}},
		// Through encoding/json:
		{ProtocolVersion: "2025-11-25", Capabilities: &ServerCapabilities{Tasks: json.RawMessage(`{ "list" : {} }`)}},
		{ProtocolVersion: "2025-06-18", Capabilities: &ServerCapabilities{Experimental: map[string]any{"b": 1, "a": "<"}}},
		{ProtocolVersion: "2026-07-28", Capabilities: &ServerCapabilities{Extensions: map[string]any{"x": map[string]any{}}}},
		{ProtocolVersion: "2025-11-25", ServerInfo: &Implementation{Name: "n", Icons: []Icon{{Src: "data:,x", Sizes: []string{"any"}}}}},
		{ProtocolVersion: "2025-06-18", Meta: Meta{"k": []int{1}}},
	}
	for i, r := range results {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeInitializeResult(r)
		if err != nil || string(got) != string(want) {
			t.Errorf("result %d:\n got %s, %v\nwant %s", i, got, err, want)
		}
	}
}

// FuzzEncodeInitializeResult compares the hand-written encoder with encoding/json
// over every combination of capabilities and arbitrary strings.
func FuzzEncodeInitializeResult(f *testing.F) {
	f.Add(uint16(0x1ff), "2025-06-18", "name", "title", "1.0", "desc", "https://e/x?a&b", "<instructions>")
	f.Add(uint16(0), "", "", "", "", "", "", "")
	f.Add(uint16(0x155), "v\u2029", "\xff", "\x00", "\\", "\"", "&amp;", "\u00e9")
	f.Fuzz(func(t *testing.T, bits uint16, version, name, title, ver, desc, url, instr string) {
		bit := func(i uint) bool { return bits&(1<<i) != 0 }
		r := &InitializeResult{ProtocolVersion: version, Instructions: instr}
		if bit(0) {
			c := &ServerCapabilities{}
			if bit(1) {
				c.Prompts = &ListChangedCapability{ListChanged: bit(2)}
			}
			if bit(3) {
				c.Resources = &ResourcesCapability{Subscribe: bit(4), ListChanged: bit(5)}
			}
			if bit(6) {
				c.Tools = &ListChangedCapability{ListChanged: bit(7)}
			}
			if bit(8) {
				c.Logging = &struct{}{}
			}
			if bit(9) {
				c.Completions = &struct{}{}
			}
			r.Capabilities = c
		}
		if bit(10) {
			r.ServerInfo = &Implementation{Name: name, Title: title, Version: ver, Description: desc, WebsiteURL: url}
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeInitializeResult(r)
		if err != nil || string(got) != string(want) {
			t.Errorf("\n got %s, %v\nwant %s", got, err, want)
		}
	})
}
