package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// post is what a mock server saw of one POST: the JSON-RPC method and id, the
// standard and parameter headers, and the params.
type post struct {
	method, id         string
	hMethod, hName     string
	hVersion           string
	paramHeaders       map[string]string // Mcp-Param-* by suffix
	params             map[string]json.RawMessage
	requestState       *string
	hasInputResponses  bool
	protocolVersionTag string // params._meta protocolVersion
	capabilities       map[string]json.RawMessage
}

// recorder keeps every POST a mock saw, in order.
type recorder struct {
	mu    sync.Mutex
	posts []post
}

func (r *recorder) all() []post {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.posts)
}

// record parses a POST body and appends what it says; the body is restored for the
// next handler.
func (r *recorder) record(t *testing.T, req *http.Request) post {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Errorf("reading a POST: %v", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage            `json:"id"`
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Errorf("POST body %s: %v", body, err)
	}
	p := post{method: msg.Method, id: string(msg.ID), params: msg.Params,
		hMethod: req.Header.Get("Mcp-Method"), hName: req.Header.Get("Mcp-Name"),
		hVersion: req.Header.Get("Mcp-Protocol-Version"), paramHeaders: map[string]string{}}
	for k, v := range req.Header {
		if suffix, ok := strings.CutPrefix(k, "Mcp-Param-"); ok {
			p.paramHeaders[suffix] = v[0]
		}
	}
	if raw, ok := msg.Params["requestState"]; ok {
		var s string
		_ = json.Unmarshal(raw, &s)
		p.requestState = &s
	}
	_, p.hasInputResponses = msg.Params["inputResponses"]
	var meta struct {
		Version      string                     `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities map[string]json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	_ = json.Unmarshal(msg.Params["_meta"], &meta)
	p.protocolVersionTag, p.capabilities = meta.Version, meta.Capabilities
	r.mu.Lock()
	r.posts = append(r.posts, p)
	r.mu.Unlock()
	return p
}

// serveMock serves h on 127.0.0.1, recording every POST first, and returns the URL.
func serveMock(t *testing.T, rec *recorder, h http.Handler) string {
	t.Helper()
	checkNoLeaks(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			rec.record(t, req)
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// libraryMock is an everything-style mock built with package mcp (it serves
// 2026-07-28 itself), set up by setup.
func libraryMock(t *testing.T, rec *recorder, setup func(s *mcp.Server), wrap func(http.Handler) http.Handler) string {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "mock", Version: "1.0.0"}, nil)
	setup(s)
	var h http.Handler = streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, nil)
	sh := h.(*streamable.Handler)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sh.Shutdown(ctx)
	})
	if wrap != nil {
		h = wrap(h)
	}
	return serveMock(t, rec, h)
}

// runModern runs a scenario's flow on the 2026-07-28 wire against url.
func runModern(t *testing.T, scenario, url string) {
	t.Helper()
	protocolVersion = mcp.Revision20260728
	t.Cleanup(func() { protocolVersion, conformanceContext = "", "" })
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := scenarios[scenario](ctx, url); err != nil {
		t.Fatalf("scenario %s: %v", scenario, err)
	}
}

func textTool(s *mcp.Server, name, schema string) {
	s.AddTool(&mcp.Tool{Name: name, Description: "mock tool " + name, InputSchema: json.RawMessage(schema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		})
}

// request-metadata: the first POST is refused with -32022; the client retries with
// the version the error names, and every request carries header and _meta versions.
func TestRequestMetadata(t *testing.T) {
	rec := &recorder{}
	var refused atomic.Bool
	url := libraryMock(t, rec, func(s *mcp.Server) { textTool(s, "add_numbers", `{"type":"object"}`) },
		func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && !refused.Swap(true) {
					var msg struct {
						ID json.RawMessage `json:"id"`
					}
					body, _ := io.ReadAll(r.Body)
					_ = json.Unmarshal(body, &msg)
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, msg.ID)
					return
				}
				next.ServeHTTP(w, r)
			})
		})
	runModern(t, "request-metadata", url)
	var methods []string
	for _, p := range rec.all() {
		methods = append(methods, p.method)
		if p.hVersion != "2026-07-28" || p.protocolVersionTag != "2026-07-28" {
			t.Errorf("%s: header version %q, _meta version %q", p.method, p.hVersion, p.protocolVersionTag)
		}
		for _, c := range []string{"elicitation", "sampling", "roots"} {
			if v := p.capabilities[c]; len(v) == 0 || v[0] != '{' {
				t.Errorf("%s: capability %s = %s, want an object", p.method, c, v)
			}
		}
	}
	if want := []string{"server/discover", "server/discover", "tools/list"}; !slices.Equal(methods, want) {
		t.Errorf("requests %v, want %v", methods, want)
	}
}

// http-standard-headers: every method sent carries Mcp-Method, and the named ones
// Mcp-Name, equal to the body.
func TestStandardHeaders(t *testing.T) {
	rec := &recorder{}
	url := libraryMock(t, rec, func(s *mcp.Server) {
		textTool(s, "my-hyphenated-tool", `{"type":"object"}`)
		s.AddResource(&mcp.Resource{URI: "file:///path/to/file%20name.txt", Name: "spaces"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
			})
		s.AddPrompt(&mcp.Prompt{Name: "test_prompt", Description: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hi"}}}}, nil
		})
	}, nil)
	runModern(t, "http-standard-headers", url)
	got := map[string]string{}
	for _, p := range rec.all() {
		if p.hMethod != p.method {
			t.Errorf("%s: Mcp-Method %q", p.method, p.hMethod)
		}
		got[p.method] = p.hName
	}
	want := map[string]string{"server/discover": "", "tools/list": "", "tools/call": "my-hyphenated-tool",
		"resources/list": "", "resources/read": "file:///path/to/file%20name.txt", "prompts/list": "", "prompts/get": "test_prompt"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Mcp-Name by method (-want +got):\n%s", d)
	}
}

// http-custom-headers: the calls of MCP_CONFORMANCE_CONTEXT, with their annotated
// arguments mirrored into Mcp-Param-* headers, base64 where a plain value cannot go.
func TestCustomHeaders(t *testing.T) {
	rec := &recorder{}
	url := libraryMock(t, rec, func(s *mcp.Server) {
		textTool(s, "test_custom_headers", `{"type":"object","properties":{`+
			`"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},`+
			`"verbose":{"type":"boolean","x-mcp-header":"Verbose"},"empty_val":{"type":"string","x-mcp-header":"EmptyVal"},`+
			`"method_val":{"type":"string","x-mcp-header":"Method"},"float_val":{"type":"number"},`+
			`"non_ascii_val":{"type":"string","x-mcp-header":"NonAscii"},"crlf_val":{"type":"string","x-mcp-header":"CrLf"},`+
			`"leading_space_val":{"type":"string","x-mcp-header":"LeadingSpace"},"internal_space_val":{"type":"string","x-mcp-header":"InternalSpace"},`+
			`"query":{"type":"string"}},"required":["region","priority","query"]}`)
	}, nil)
	conformanceContext = `{"name":"http-custom-headers","toolCalls":[{"name":"test_custom_headers","arguments":{` +
		`"region":"us-west1","priority":42,"verbose":false,"empty_val":"","method_val":"test-method","float_val":3.14159,` +
		`"non_ascii_val":"Hello, 世界","crlf_val":"line1\r\nline2","leading_space_val":" us-west1","internal_space_val":"us west 1",` +
		`"query":"SELECT * FROM users"}},{"name":"test_custom_headers","arguments":{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}}]}`
	runModern(t, "http-custom-headers", url)
	var calls []map[string]string
	for _, p := range rec.all() {
		if p.method == "tools/call" {
			calls = append(calls, p.paramHeaders)
		}
	}
	want := []map[string]string{
		{"Region": "us-west1", "Priority": "42", "Verbose": "false", "Emptyval": "", "Method": "test-method",
			"Nonascii": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Crlf": "=?base64?bGluZTENCmxpbmUy?=",
			"Leadingspace": "=?base64?IHVzLXdlc3Qx?=", "Internalspace": "us west 1"},
		{"Region": "us-east1", "Priority": "1"},
	}
	if d := cmp.Diff(want, calls); d != "" {
		t.Errorf("Mcp-Param headers (canonical names) by call (-want +got):\n%s", d)
	}
}

// http-invalid-tool-headers: tools with invalid x-mcp-header annotations are dropped
// and never called; the valid one is.
func TestInvalidToolHeaders(t *testing.T) {
	rec := &recorder{}
	url := libraryMock(t, rec, func(s *mcp.Server) {
		textTool(s, "valid_tool", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)
		textTool(s, "invalid_empty_header", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}},"required":["value"]}`)
		textTool(s, "invalid_number_header", `{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}},"required":["score"]}`)
		textTool(s, "invalid_duplicate_diff_case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`)
		textTool(s, "invalid_colon_in_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region:Primary"}}}`)
		textTool(s, "invalid_non_ascii_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Région"}}}`)
	}, nil)
	runModern(t, "http-invalid-tool-headers", url)
	var called []string
	for _, p := range rec.all() {
		if p.method == "tools/call" {
			called = append(called, p.hName+" Region="+p.paramHeaders["Region"])
		}
	}
	if want := []string{"valid_tool Region=us-east1"}; !slices.Equal(called, want) {
		t.Errorf("tools called %v, want %v", called, want)
	}
}

// sep-2322-client-request-state, against a raw mock like the suite's: the retry echoes
// requestState byte for byte under a new id; the call made between rounds carries no
// MRTR fields; a round without requestState is retried without one; a result without
// resultType is complete.
func TestClientRequestState(t *testing.T) {
	rec := &recorder{}
	const state = `{"nonce":"n-1", "odd spacing":true}`
	url := serveMock(t, rec, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name           string          `json:"name"`
				InputResponses json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		ask := `{"confirm":{"method":"elicitation/create","params":{"message":"Confirm?","requestedSchema":{"type":"object","properties":{"confirmed":{"type":"boolean"}}}}}}`
		var result string
		switch {
		case msg.Method == "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
		case msg.Method == "tools/list":
			result = `{"resultType":"complete","tools":[]}`
		case msg.Params.Name == "test_mrtr_echo_state" && msg.Params.InputResponses == nil:
			result = `{"resultType":"input_required","inputRequests":` + ask + `,"requestState":` + quoteJSON(state) + `}`
		case msg.Params.Name == "test_mrtr_no_state" && msg.Params.InputResponses == nil:
			result = `{"resultType":"input_required","inputRequests":` + ask + `}`
		case msg.Params.Name == "test_mrtr_no_result_type":
			result = `{"content":[{"type":"text","text":"no type"}]}`
		default:
			result = `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}))
	runModern(t, "sep-2322-client-request-state", url)
	var got []string
	ids := map[string]string{}
	for _, p := range rec.all() {
		if p.method != "tools/call" {
			continue
		}
		name := p.hName
		line := name
		if p.hasInputResponses {
			line += " +inputResponses"
		}
		if p.requestState != nil {
			line += " state=" + *p.requestState
		}
		if prev, ok := ids[name]; ok && prev == p.id {
			t.Errorf("%s: retry reused id %s", name, p.id)
		}
		ids[name] = p.id
		got = append(got, line)
	}
	want := []string{
		"test_mrtr_echo_state",
		"test_mrtr_unrelated",
		"test_mrtr_echo_state +inputResponses state=" + state,
		"test_mrtr_no_state",
		"test_mrtr_no_state +inputResponses",
		"test_mrtr_no_result_type",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools/call sequence (-want +got):\n%s", d)
	}
}

// json-schema-ref-no-deref: listing a tool whose schema $refs a URL fetches nothing.
func TestSchemaRefNoDeref(t *testing.T) {
	var fetched atomic.Int32
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		io.WriteString(w, `{"type":"object"}`)
	}))
	defer canary.Close()
	rec := &recorder{}
	url := serveMock(t, rec, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		result := `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
		if msg.Method == "tools/list" {
			result = `{"resultType":"complete","tools":[{"name":"lookup_user","inputSchema":{"type":"object","$defs":{"userId":{"type":"string"}},` +
				`"properties":{"id":{"$ref":"#/$defs/userId"},"profile":{"$ref":"` + canary.URL + `/canary/profile-schema.json"}}}}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}))
	runModern(t, "json-schema-ref-no-deref", url)
	if n := fetched.Load(); n != 0 {
		t.Errorf("the $ref URL was fetched %d times", n)
	}
	if posts := rec.all(); len(posts) == 0 || posts[len(posts)-1].method != "tools/list" {
		t.Errorf("the client did not list tools: %v", posts)
	}
}

// quoteJSON returns s as a JSON string literal.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
