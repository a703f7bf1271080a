package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
)

var fixedNow = time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC)

func testServer(t *testing.T) *mcp.Server {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return newServer(cat, &present.Options{Now: func() time.Time { return fixedNow }}, nil)
}

// connectMemory connects a client with opts to a fresh server over the memory
// transport; the server's output is checked against the official MCP schema
// when MCP_SCHEMA_DIR is set. Both ends are closed when the test ends.
func connectMemory(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := memory.NewPair()
	ss, err := testServer(t).Connect(t.Context(), mcpschema.CheckServer(t, st))
	if err != nil {
		t.Fatal(err)
	}
	cs := connectClient(t, ct, opts)
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	})
	return cs
}

func connectClient(t *testing.T, tr jsonrpc.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	// The tests speak 2025-11-25 unless they pin a revision (TestRevisions covers
	// every revision, the stateless 2026-07-28 one included).
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = mcp.LatestInitializeRevision
	}
	c := mcp.NewClient(mcp.Implementation{Name: "patterns-test", Version: "1.0.0"}, &o)
	cs, err := c.Connect(t.Context(), tr)
	if err != nil {
		t.Fatal(err)
	}
	// Listing the tools makes the client check structuredContent against
	// each tool's outputSchema on every call.
	for _, err := range cs.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: raw})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, raw, err)
	}
	return res
}

// parsed is a tool result taken apart the way a program would: the JSON block
// found by parsing every text block, not by its mimeType.
type parsed struct {
	texts      []*mcp.TextContent
	markdown   []string // text blocks that are not JSON
	jsonBlocks []int    // indexes into texts of blocks that parse as a JSON object with "kind"
	payload    []byte   // the JSON block's text (nil when there is none)
	structured []byte
	kind       string
}

func parseResult(t *testing.T, res *mcp.CallToolResult) *parsed {
	t.Helper()
	p := &parsed{}
	for i, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %d is %T, want text", i, c)
		}
		p.texts = append(p.texts, tc)
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(tc.Text), &obj) == nil && obj["kind"] != nil {
			p.jsonBlocks = append(p.jsonBlocks, i)
			p.payload = []byte(tc.Text)
			continue
		}
		p.markdown = append(p.markdown, tc.Text)
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(raw) == 0 {
		t.Fatalf("structuredContent is %T %s, want a JSON object", res.StructuredContent, raw)
	}
	p.structured = raw
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.Kind == "" {
		t.Fatalf("structuredContent has no kind: %s", raw)
	}
	p.kind = head.Kind
	validatePayload(t, raw)
	if p.payload != nil {
		validatePayload(t, p.payload)
		if !jsonEqual(t, p.payload, raw) {
			t.Errorf("JSON block and structuredContent differ:\n%s\n%s", p.payload, raw)
		}
	}
	return p
}

// checkFormat asserts the block layout of a result for the requested format.
func checkFormat(t *testing.T, p *parsed, format string) {
	t.Helper()
	switch format {
	case "", "markdown":
		if len(p.jsonBlocks) != 0 || len(p.markdown) == 0 {
			t.Fatalf("markdown format: %d JSON blocks, %d markdown", len(p.jsonBlocks), len(p.markdown))
		}
	case "json":
		if len(p.jsonBlocks) != 1 || len(p.texts) != 1 {
			t.Fatalf("json format: %d JSON blocks among %d", len(p.jsonBlocks), len(p.texts))
		}
	case "both":
		if len(p.jsonBlocks) != 1 || p.jsonBlocks[0] != len(p.texts)-1 || len(p.markdown) == 0 {
			t.Fatalf("both format: JSON blocks at %v of %d", p.jsonBlocks, len(p.texts))
		}
	}
	// The hints match what the blocks are.
	for i, tc := range p.texts {
		isJSON := len(p.jsonBlocks) > 0 && p.jsonBlocks[len(p.jsonBlocks)-1] == i
		want, aud := present.MIMEMarkdown, "user"
		if isJSON {
			want, aud = present.MIMEJSON, "assistant"
		}
		if tc.MIMEType != want || tc.Annotations == nil || !containsRole(tc.Annotations.Audience, aud) {
			t.Errorf("block %d: mimeType %q annotations %+v", i, tc.MIMEType, tc.Annotations)
		}
	}
}

func containsRole(rs []mcp.Role, want string) bool {
	for _, r := range rs {
		if string(r) == want {
			return true
		}
	}
	return false
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

var (
	schemaMu sync.Mutex
	schemas  = map[string]*jsonschema.Schema{}
)

// validatePayload validates a payload against the schema of the kind it claims.
func validatePayload(t *testing.T, data []byte) {
	t.Helper()
	var head struct {
		Kind string `json:"kind"`
	}
	json.Unmarshal(data, &head)
	raw, ok := present.Schema(head.Kind)
	if !ok {
		t.Fatalf("unknown payload kind %q", head.Kind)
	}
	schemaMu.Lock()
	s, ok := schemas[head.Kind]
	if !ok {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			schemaMu.Unlock()
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("mem:///"+head.Kind, doc); err != nil {
			schemaMu.Unlock()
			t.Fatal(err)
		}
		if s, err = c.Compile("mem:///" + head.Kind); err != nil {
			schemaMu.Unlock()
			t.Fatal(err)
		}
		schemas[head.Kind] = s
	}
	schemaMu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("%s payload does not match its schema: %v\n%s", head.Kind, err, data)
	}
}

func decode[T any](t *testing.T, data []byte) *T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func countMarker(md []string, marker string) int {
	n := 0
	for _, s := range md {
		n += strings.Count(s, marker)
	}
	return n
}
