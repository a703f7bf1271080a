package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

const metaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func modernServer() *Server {
	s := newTestServer()
	s.AddPrompt(&Prompt{Name: "p", Description: "a prompt"}, func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error) {
		return &GetPromptResult{Messages: []*PromptMessage{{Role: RoleUser, Content: &TextContent{Text: "hi"}}}}, nil
	})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, Text: "r"}}}, nil
	})
	AddTool(s, &Tool{Name: "greet", Description: "asks for a name"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		res, err := req.Session.Input(ctx, map[string]InputRequest{"user_name": ElicitInput(&ElicitParams{Message: "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})})
		if err != nil {
			return nil, nil, err
		}
		e, _ := res.Elicit("user_name")
		return TextResult(fmt.Sprintf("Hello, %v!", e.Content["name"])), nil, nil
	})
	AddTool(s, &Tool{Name: "two_steps", Description: "asks twice"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		schema := func(p string) json.RawMessage {
			return json.RawMessage(`{"type":"object","properties":{"` + p + `":{"type":"string"}},"required":["` + p + `"]}`)
		}
		r1, err := req.Session.Input(ctx, map[string]InputRequest{"step1": ElicitInput(&ElicitParams{Message: "name?", RequestedSchema: schema("name")})})
		if err != nil {
			return nil, nil, err
		}
		r2, err := req.Session.Input(ctx, map[string]InputRequest{"step2": ElicitInput(&ElicitParams{Message: "color?", RequestedSchema: schema("color")})})
		if err != nil {
			return nil, nil, err
		}
		a, _ := r1.Elicit("step1")
		b, _ := r2.Elicit("step2")
		return TextResult(fmt.Sprintf("%v likes %v", a.Content["name"], b.Content["color"])), nil, nil
	})
	AddTool(s, &Tool{Name: "log", Description: "logs"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		for _, l := range []LoggingLevel{LevelDebug, LevelError} {
			_ = req.Session.Log(ctx, l, "t", string(l))
		}
		return TextResult("ok"), nil, nil
	})
	return s
}

func modernCall(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s%s}}`, id, method, params, metaJSON)
}

func result(t *testing.T, reply map[string]any) map[string]any {
	t.Helper()
	r, ok := reply["result"].(map[string]any)
	if !ok {
		t.Fatalf("expected a result, got %v", reply)
	}
	return r
}

func TestModernDiscover(t *testing.T) {
	w := rawPeer(t, modernServer())
	r := result(t, w.roundTrip(modernCall(1, "server/discover", "")))
	diff(t, "complete", r["resultType"])
	vers := r["supportedVersions"].([]any)
	if fmt.Sprint(vers) != "[2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28]" {
		t.Errorf("supportedVersions = %v", vers)
	}
	diff(t, float64(0), r["ttlMs"])
	diff(t, "private", r["cacheScope"])
	info := r["_meta"].(map[string]any)[MetaServerInfo].(map[string]any)
	diff(t, "test-server", info["name"])
	caps := r["capabilities"].(map[string]any)
	if _, ok := caps["tasks"]; ok {
		t.Error("2026-07-28 capabilities carry the removed tasks key")
	}
	// discover without modern _meta is an unknown legacy method.
	diff(t, float64(-32601), errCode(t, w.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}`)))
}

func TestModernMetaValidation(t *testing.T) {
	w := rawPeer(t, modernServer())
	cases := []struct {
		name, line string
		code       float64
	}{
		{"no version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`, -32602},
		{"no capabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, -32602},
		{"unsupported", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`, -32022},
		{"legacy version in meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`, -32022},
		{"removed initialize", modernCall(1, "initialize", `"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"}`), -32601},
		{"removed ping", modernCall(1, "ping", ""), -32601},
		{"removed setLevel", modernCall(1, "logging/setLevel", `"level":"info"`), -32601},
		{"removed subscribe", modernCall(1, "resources/subscribe", `"uri":"test://r"`), -32601},
		{"unknown tool", modernCall(1, "tools/call", `"name":"nope"`), -32602},
		{"bad log level", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}`, -32602},
		{"resource not found", modernCall(1, "resources/read", `"uri":"test://nope"`), -32602},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.roundTrip(c.line)
			diff(t, c.code, errCode(t, r))
			if c.code == -32022 {
				data := r["error"].(map[string]any)["data"].(map[string]any)
				diff(t, []any{"2026-07-28"}, data["supported"])
			}
			if c.name == "resource not found" {
				diff(t, map[string]any{"uri": "test://nope"}, r["error"].(map[string]any)["data"])
			}
		})
	}
	// clientInfo is optional.
	r := result(t, w.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	diff(t, "complete", r["resultType"])
}

func TestModernResults(t *testing.T) {
	w := rawPeer(t, modernServer())
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		r := result(t, w.roundTrip(modernCall(1, m, "")))
		diff(t, "complete", r["resultType"])
		if _, ok := r["ttlMs"]; !ok {
			t.Errorf("%s: no ttlMs", m)
		}
	}
	r := result(t, w.roundTrip(modernCall(2, "resources/read", `"uri":"test://r"`)))
	diff(t, "private", r["cacheScope"])
	r = result(t, w.roundTrip(modernCall(3, "tools/call", `"name":"echo","arguments":{"message":"x"}`)))
	diff(t, "complete", r["resultType"])
	if _, ok := r["ttlMs"]; ok {
		t.Error("tools/call results are not cacheable")
	}
}

func TestModernMRTR(t *testing.T) {
	w := rawPeer(t, modernServer())
	first := result(t, w.roundTrip(modernCall(1, "tools/call", `"name":"greet","arguments":{}`)))
	diff(t, "input_required", first["resultType"])
	reqs := first["inputRequests"].(map[string]any)
	diff(t, "elicitation/create", reqs["user_name"].(map[string]any)["method"])
	state := first["requestState"].(string)

	answer := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}`
	// With the answer (and without requestState: a single round needs none).
	r := result(t, w.roundTrip(modernCall(2, "tools/call", `"name":"greet","arguments":{},`+answer)))
	diff(t, "complete", r["resultType"])
	diff(t, "Hello, Ada!", r["content"].([]any)[0].(map[string]any)["text"])
	// With the answer, the state, and junk extra keys.
	r = result(t, w.roundTrip(modernCall(3, "tools/call", `"name":"greet","arguments":{},"requestState":"`+state+`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}},"junk":{"x":1}}`)))
	diff(t, "Hello, Bo!", r["content"].([]any)[0].(map[string]any)["text"])
	// A wrong key, a malformed answer, a null map, an answer that breaks the schema: asked again.
	for _, bad := range []string{
		`"inputResponses":{"other":{"action":"accept","content":{"name":"Ada"}}}`,
		`"inputResponses":{"user_name":12345}`,
		`"inputResponses":null`,
		`"inputResponses":{"user_name":{"action":"accept","content":{"name":5}}}`,
	} {
		r = result(t, w.roundTrip(modernCall(4, "tools/call", `"name":"greet","arguments":{},`+bad)))
		if r["resultType"] != "input_required" {
			t.Errorf("%s: resultType %v, want input_required", bad, r["resultType"])
		}
	}
	// A tampered state is an error, never a completion.
	diff(t, float64(-32602), errCode(t, w.roundTrip(modernCall(5, "tools/call", `"name":"greet","arguments":{},"requestState":"`+state+`-TAMPERED",`+answer))))
	// A state minted for another tool is refused too.
	diff(t, float64(-32602), errCode(t, w.roundTrip(modernCall(6, "tools/call", `"name":"two_steps","arguments":{},"requestState":"`+state+`"`))))
}

func TestModernMultiRound(t *testing.T) {
	w := rawPeer(t, modernServer())
	r1 := result(t, w.roundTrip(modernCall(1, "tools/call", `"name":"two_steps","arguments":{}`)))
	if _, ok := r1["inputRequests"].(map[string]any)["step1"]; !ok {
		t.Fatalf("round 1 = %v", r1)
	}
	s1 := r1["requestState"].(string)
	r2 := result(t, w.roundTrip(modernCall(2, "tools/call", `"name":"two_steps","arguments":{},"requestState":"`+s1+`","inputResponses":{"step1":{"action":"accept","content":{"name":"Ada"}}}`)))
	if _, ok := r2["inputRequests"].(map[string]any)["step2"]; !ok {
		t.Fatalf("round 2 = %v", r2)
	}
	s2 := r2["requestState"].(string)
	if s1 == s2 {
		t.Error("round 2 reused round 1's requestState")
	}
	r3 := result(t, w.roundTrip(modernCall(3, "tools/call", `"name":"two_steps","arguments":{},"requestState":"`+s2+`","inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}}`)))
	diff(t, "Ada likes blue", r3["content"].([]any)[0].(map[string]any)["text"])
}

func TestModernCapabilitiesPerRequest(t *testing.T) {
	w := rawPeer(t, modernServer())
	// No elicitation declared on this request: the tool cannot ask, and says so.
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	r := result(t, w.roundTrip(line))
	diff(t, true, r["isError"])
	if !strings.Contains(fmt.Sprint(r["content"]), "did not declare elicitation") {
		t.Errorf("content = %v", r["content"])
	}
}

func TestModernLogLevel(t *testing.T) {
	w := rawPeer(t, modernServer())
	// Without a logLevel, no log messages at all: the next message is the reply.
	w.send(modernCall(1, "tools/call", `"name":"log","arguments":{}`))
	if got := w.recv(); !strings.Contains(got, `"id":1`) {
		t.Fatalf("got %s before the reply", got)
	}
	line := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}}}`
	w.send(line)
	got := w.recv()
	if !strings.Contains(got, `"method":"notifications/message"`) || !strings.Contains(got, `"level":"error"`) {
		t.Fatalf("want the error-level message, got %s", got)
	}
	if got := w.recv(); !strings.Contains(got, `"id":2`) {
		t.Fatalf("want the reply, got %s", got)
	}
}

func TestModernListen(t *testing.T) {
	s := modernServer()
	w := rawPeer(t, s)
	w.send(modernCall(7, "subscriptions/listen", `"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://r"]}`))
	ack := w.recv()
	diff(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://r"]}}}`, ack)
	s.AddTool(&Tool{Name: "new", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	diff(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, w.recv())
	s.ResourceUpdated(context.Background(), "test://other")
	s.ResourceUpdated(context.Background(), "test://r")
	diff(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"test://r"}}`, w.recv())
	// Cancelling the listen request ends it without a reply.
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	w.send(modernCall(8, "tools/list", ""))
	if got := w.recv(); !strings.Contains(got, `"id":8`) {
		t.Fatalf("want the tools/list reply, got %s", got)
	}
}

// TestModernListenSubscribeHandler: a listen's resource subscriptions are told to
// the SubscribeHandler (a gateway forwards them upstream), and one it refuses is
// left out of the acknowledgement.
func TestModernListenSubscribeHandler(t *testing.T) {
	var mu sync.Mutex
	var told []string
	s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{
		SubscribeHandler: func(ctx context.Context, ss *ServerSession, uri string) error {
			mu.Lock()
			told = append(told, uri)
			mu.Unlock()
			if uri == "test://denied" {
				return errors.New("no")
			}
			return nil
		}})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, Text: "r"}}}, nil
	})
	w := rawPeer(t, s)
	w.send(modernCall(7, "subscriptions/listen", `"notifications":{"resourceSubscriptions":["test://r","test://denied"]}`))
	diff(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"resourceSubscriptions":["test://r"]}}}`, w.recv())
	mu.Lock()
	diff(t, []string{"test://r", "test://denied"}, told)
	mu.Unlock()
	s.ResourceUpdated(context.Background(), "test://denied")
	s.ResourceUpdated(context.Background(), "test://r")
	diff(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"test://r"}}`, w.recv())
}

// TestDualEra runs an initialize-era client and 2026-07-28 requests against one
// server at the same time.
func TestDualEra(t *testing.T) {
	s := modernServer()
	cs, _ := pair(t, s, nil)
	w := rawPeer(t, s)
	ctx := testCtx(t)
	done := make(chan error, 1)
	go func() {
		for i := range 20 {
			r, err := cs.CallTool(ctx, &CallToolParams{Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"message":"m%d"}`, i))})
			if err != nil || r.Content[0].(*TextContent).Text != fmt.Sprintf("m%d", i) {
				done <- fmt.Errorf("legacy call %d: %v %v", i, r, err)
				return
			}
		}
		done <- nil
	}()
	for i := range 20 {
		r := result(t, w.roundTrip(modernCall(100+i, "tools/call", fmt.Sprintf(`"name":"echo","arguments":{"message":"n%d"}`, i))))
		diff(t, "complete", r["resultType"])
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	diff(t, "2025-11-25", cs.ProtocolVersion())
}

func TestHeaderValue(t *testing.T) {
	tests := []struct {
		name   string
		header map[string][]string
		want   string
		found  bool
	}{
		{"canonical", map[string][]string{"Mcp-Protocol-Version": {" 2025-06-18 "}}, "2025-06-18", true},
		{"other case", map[string][]string{"mcp-protocol-VERSION": {"2025-03-26"}}, "2025-03-26", true},
		{"canonical key without values", map[string][]string{"Mcp-Protocol-Version": {}, "mcp-protocol-version": {"x"}}, "x", true},
		{"absent", map[string][]string{"Mcp-Session-Id": {"s"}}, "", false},
		{"only empty lists", map[string][]string{"Mcp-Protocol-Version": nil}, "", false},
		{"no header", nil, "", false},
	}
	for _, tt := range tests {
		got, found := headerValue(&jsonrpc.Request{Method: "m", Header: tt.header}, "Mcp-Protocol-Version")
		if got != tt.want || found != tt.found {
			t.Errorf("%s: headerValue = %q, %v; want %q, %v", tt.name, got, found, tt.want, tt.found)
		}
	}
}

// An empty MCP-Protocol-Version header names no revision: a request of an
// initialize-era session that carries one is not served as a 2026-07-28 request.
func TestClassifyEmptyHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hdr    map[string][]string
		modern bool
	}{
		{"empty", map[string][]string{"Mcp-Protocol-Version": {""}}, false},
		{"blank", map[string][]string{"Mcp-Protocol-Version": {"  "}}, false},
		{"initialize era", map[string][]string{"Mcp-Protocol-Version": {"2025-06-18"}}, false},
		{"modern", map[string][]string{"Mcp-Protocol-Version": {"2026-07-28"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/list", Params: []byte(`{}`), Header: tc.hdr}
			if _, got := classify(req); got != tc.modern {
				t.Errorf("classify = %v, want %v", got, tc.modern)
			}
		})
	}
}
