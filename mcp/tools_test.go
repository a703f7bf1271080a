package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

func TestTypedToolEcho(t *testing.T) {
	cs, _ := pair(t, newTestServer(), nil)
	ctx := testCtx(t)
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi there"}`)})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, false, res.IsError)
	diff(t, []Content{&TextContent{Text: "hi there"}}, res.Content)
	diff(t, nil, res.StructuredContent)
}

func TestToolArgumentValidation(t *testing.T) {
	cs, _ := pair(t, newTestServer(), nil)
	ctx := testCtx(t)
	cases := []struct {
		name, tool, args, wantIn string
	}{
		{"missing required", "echo", `{}`, "message"},
		{"missing arguments is {}", "echo", ``, "message"},
		{"wrong type", "echo", `{"message":5}`, "/message"},
		{"out of range", "sum", `{"a":101}`, "/a"},
		{"negative", "sum", `{"a":-1}`, "/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("argument errors must be tool results, got protocol error %v", err)
			}
			if !res.IsError {
				t.Fatalf("want isError result, got %+v", res)
			}
			text := res.Content[0].(*TextContent).Text
			if !strings.Contains(text, c.wantIn) {
				t.Errorf("message %q does not name %q", text, c.wantIn)
			}
		})
	}
}

// TestInvalidArgumentsHandler: a server's InvalidArgumentsHandler shapes the
// results of calls refused before the tool ran (schema and typed decoding), with
// structured content and the same JSON as text; returning nil keeps the default.
func TestInvalidArgumentsHandler(t *testing.T) {
	var seen []string
	s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{
		InvalidArgumentsHandler: func(ctx context.Context, req *CallToolRequest, err *InvalidArgumentsError) *CallToolResult {
			seen = append(seen, err.Tool)
			if req.Params.Name == "plain" {
				return nil
			}
			return &CallToolResult{StructuredContent: map[string]string{"kind": "invalid", "error": err.Error(), "cause": err.Err.Error()}}
		},
	})
	type in struct {
		N int `json:"n"`
	}
	handler := func(ctx context.Context, req *CallToolRequest, in in) (*CallToolResult, any, error) {
		return TextResult("ran"), nil, nil
	}
	AddTool(s, &Tool{Name: "count"}, handler)
	// A schema looser than the type: {"n":"x"} passes it and fails decoding.
	AddTool(s, &Tool{Name: "loose", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	AddTool(s, &Tool{Name: "plain"}, handler)
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	for _, c := range []struct{ tool, args, cause string }{
		{"count", `{"n":"x"}`, "/n"},
		{"loose", `{"n":"x"}`, "cannot unmarshal"},
	} {
		res, err := cs.CallTool(ctx, &CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil || !res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		var got map[string]string
		raw, _ := res.StructuredContent.(json.RawMessage)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: structured content %s: %v", c.tool, raw, err)
		}
		if got["kind"] != "invalid" || !strings.Contains(got["error"], `invalid arguments for tool "`+c.tool+`"`) || !strings.Contains(got["cause"], c.cause) {
			t.Errorf("%s: structured content %v", c.tool, got)
		}
		diff(t, []Content{&TextContent{Text: string(raw)}}, res.Content)
	}
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "plain", Arguments: json.RawMessage(`{"n":"x"}`)})
	if err != nil || !res.IsError || res.StructuredContent != nil {
		t.Fatalf("plain: %v %+v", err, res)
	}
	if text := res.Content[0].(*TextContent).Text; !strings.Contains(text, `invalid arguments for tool "plain"`) {
		t.Errorf("default text %q", text)
	}
	// Valid arguments reach the tool; the handler was asked once per refusal.
	if res, err := cs.CallTool(ctx, &CallToolParams{Name: "count", Arguments: json.RawMessage(`{"n":2}`)}); err != nil || res.IsError {
		t.Fatalf("valid call: %v %+v", err, res)
	}
	diff(t, []string{"count", "loose", "plain"}, seen)
}

func TestStructuredOutput(t *testing.T) {
	cs, _ := pair(t, newTestServer(), nil)
	ctx := testCtx(t)
	tools := map[string]*Tool{}
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	diff(t, `{"type":"object","properties":{"message":{"type":"string","description":"the text to echo"}},"required":["message"]}`, string(tools["echo"].InputSchema))
	if len(tools["echo"].OutputSchema) != 0 {
		t.Errorf("echo has output schema %s", tools["echo"].OutputSchema)
	}
	if !strings.Contains(string(tools["sum"].OutputSchema), `"sum"`) {
		t.Errorf("sum output schema = %s", tools["sum"].OutputSchema)
	}
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, `{"sum":5}`, string(res.StructuredContent.(json.RawMessage)))
	diff(t, []Content{&TextContent{Text: `{"sum":5}`}}, res.Content)
}

func TestStructuredOutputDroppedForOldRevisions(t *testing.T) {
	cs, _ := pair(t, newTestServer(), &ClientOptions{ProtocolVersion: "2025-03-26"})
	ctx := testCtx(t)
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		if tool.OutputSchema != nil || tool.Title != "" {
			t.Errorf("2025-03-26 tool %s carries outputSchema/title", tool.Name)
		}
		if tool.Name == "sum" && tool.Annotations == nil {
			t.Errorf("annotations exist in 2025-03-26 and must be kept")
		}
	}
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "sum", Arguments: json.RawMessage(`{"a":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, nil, res.StructuredContent)
	diff(t, []Content{&TextContent{Text: `{"sum":2}`}}, res.Content)
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	cs, _ := pair(t, newTestServer(), nil)
	_, err := cs.CallTool(testCtx(t), &CallToolParams{Name: "nope"})
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Fatalf("err = %v, want -32602", err)
	}
}

func TestToolHandlerErrors(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	s.AddTool(&Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return nil, errors.New("upstream is down")
	})
	s.AddTool(&Tool{Name: "proto", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return nil, jsonrpc.NewError(-32099, "custom", nil)
	})
	s.AddTool(&Tool{Name: "badout", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
			return &CallToolResult{StructuredContent: map[string]any{"n": "not a number"}}, nil
		})
	s.AddTool(&Tool{Name: "panics", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		panic("boom")
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "fail"})
	if err != nil || !res.IsError || res.Content[0].(*TextContent).Text != "upstream is down" {
		t.Errorf("fail: res=%+v err=%v", res, err)
	}
	_, err = cs.CallTool(ctx, &CallToolParams{Name: "proto"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32099 {
		t.Errorf("proto: err = %v", err)
	}
	_, err = cs.CallTool(ctx, &CallToolParams{Name: "badout"})
	if !errors.Is(err, jsonrpc.ErrInternal) {
		t.Errorf("badout: err = %v, want -32603", err)
	}
	_, err = cs.CallTool(ctx, &CallToolParams{Name: "panics"})
	if !errors.Is(err, jsonrpc.ErrInternal) {
		t.Errorf("panics: err = %v, want -32603", err)
	}
	// The session survives all of that.
	if err := cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRawToolRegistrationRejectsBadSchemas(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	for _, schema := range []string{``, `[]`, `{"type":"array"}`, `{"type":"object","properties":{"a":{"type":"nonsense"}}}`, `{"$schema":"https://example.com/unknown-dialect","type":"object"}`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("schema %q was accepted", schema)
				}
			}()
			s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(schema)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
		}()
	}
}

func TestClientValidatesStructuredContent(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	bad := false
	s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
			return &CallToolResult{StructuredContent: map[string]any{"n": 1}}, nil
		})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Tamper with the cached schema so that the (valid) answer no longer matches it:
	// the client must notice.
	cs.mu.Lock()
	cs.outSchemas["t"], _ = compileToolSchema(json.RawMessage(`{"type":"object","required":["m"]}`))
	cs.mu.Unlock()
	_, err := cs.CallTool(ctx, &CallToolParams{Name: "t"})
	if !errors.Is(err, ErrInvalidStructuredContent) {
		t.Fatalf("err = %v", err)
	}
	_ = bad
}

func TestToolListChangedCoalesced(t *testing.T) {
	s := newTestServer()
	changed := make(chan struct{}, 10)
	cs, _ := pair(t, s, &ClientOptions{ToolListChangedHandler: func(ctx context.Context, cs *ClientSession) { changed <- struct{}{} }})
	ctx := testCtx(t)
	// Ten registrations in a burst produce one notification.
	for i := range 10 {
		s.AddTool(&Tool{Name: "t" + string(rune('a'+i)), InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed notification")
	}
	// A ping round trip after the notification shows no second one queued before it.
	if err := cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(changed); n != 0 {
		t.Errorf("%d extra list_changed notifications", n)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, 12, len(lt.Tools))
	s.RemoveTools("ta", "tb")
	<-changed
	lt, _ = cs.ListTools(ctx, nil)
	diff(t, 10, len(lt.Tools))
	// A replaced tool keeps its place; a new one goes last.
	s.AddTool(&Tool{Name: "echo", Description: "replaced", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	<-changed
	lt, _ = cs.ListTools(ctx, nil)
	diff(t, "echo", lt.Tools[0].Name)
	diff(t, "replaced", lt.Tools[0].Description)
	diff(t, "tj", lt.Tools[len(lt.Tools)-1].Name)
}

func TestPagination(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{PageSize: 3})
	for i := range 10 {
		s.AddTool(&Tool{Name: string(rune('a' + i)), InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	}
	s.AddPrompt(&Prompt{Name: "p"}, func(context.Context, *GetPromptRequest) (*GetPromptResult, error) { return &GetPromptResult{}, nil })
	s.AddResource(&Resource{Name: "r", URI: "test://r"}, func(context.Context, *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	var names []string
	pages := 0
	cursor := ""
	for {
		r, err := cs.ListTools(ctx, &ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tool := range r.Tools {
			names = append(names, tool.Name)
		}
		if r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
	}
	diff(t, 4, pages)
	diff(t, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, names)
	n := 0
	for _, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	diff(t, 10, n)
	for _, bad := range []string{"garbage!", "YWZ0ZXI", "bm9wZQ"} {
		_, err := cs.ListTools(ctx, &ListToolsParams{Cursor: bad})
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("cursor %q: err = %v, want -32602", bad, err)
		}
	}
	// A cursor continues its own list only: a tools/list cursor given to
	// prompts/list or resources/list is refused, not read as a place in it.
	first, err := cs.ListTools(ctx, nil)
	if err != nil || first.NextCursor == "" {
		t.Fatal(err)
	}
	if _, err := cs.ListPrompts(ctx, &ListPromptsParams{Cursor: first.NextCursor}); !errors.Is(err, jsonrpc.ErrInvalidParams) || !strings.Contains(err.Error(), "prompts/list") {
		t.Errorf("a tools/list cursor on prompts/list: %v, want -32602", err)
	}
	if _, err := cs.ListResources(ctx, &ListResourcesParams{Cursor: first.NextCursor}); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("a tools/list cursor on resources/list: %v, want -32602", err)
	}
}

func TestListChangedHandlerMayCallBack(t *testing.T) {
	s := newTestServer()
	got := make(chan int, 1)
	pair(t, s, &ClientOptions{ToolListChangedHandler: func(ctx context.Context, cs *ClientSession) {
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Error(err)
			got <- -1
			return
		}
		got <- len(lt.Tools)
	}})
	s.AddTool(&Tool{Name: "later", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	select {
	case n := <-got:
		diff(t, 3, n)
	case <-testCtx(t).Done():
		t.Fatal("the handler's call never returned")
	}
}

// TestTextResult: the helper builds the same result as the literal, in one
// allocation, and the result stays an ordinary value to change and extend.
func TestTextResult(t *testing.T) {
	r := TextResult("hello")
	diff(t, &CallToolResult{Content: []Content{&TextContent{Text: "hello"}}}, r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, `{"content":[{"type":"text","text":"hello"}]}`, string(b))

	r.Content = append(r.Content, &TextContent{Text: "more"})
	r.Content[0].(*TextContent).Text = "changed"
	diff(t, []Content{&TextContent{Text: "changed"}, &TextContent{Text: "more"}}, r.Content)
	if r2 := TextResult("again"); r2.Content[0].(*TextContent).Text != "again" {
		t.Errorf("a second result shares the first's block: %+v", r2.Content[0])
	}

	var sink *CallToolResult
	if n := testing.AllocsPerRun(100, func() { sink = TextResult("x") }); n != 1 {
		t.Errorf("TextResult: %v allocations, want 1", n)
	}
	_ = sink
}

// TestListResourcesByURI: with ListResourcesByURI, resources/list is in URI order
// and a cursor names the last URI sent, so it continues correctly on another server
// holding a changed set (a rebuilt server, a replica) and on the same server after
// removals and additions before it; in registration order (the default) the same
// cursor is a place in one server's registrations.
func TestListResourcesByURI(t *testing.T) {
	read := func(context.Context, *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	}
	newServer := func(byURI bool, uris ...string) *Server {
		s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{PageSize: 2, ListResourcesByURI: byURI})
		for _, u := range uris {
			s.AddResource(&Resource{URI: u, Name: u}, read)
		}
		return s
	}
	ctx := testCtx(t)
	page := func(cs *ClientSession, cursor string) ([]string, string) {
		t.Helper()
		r, err := cs.ListResources(ctx, &ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, res := range r.Resources {
			uris = append(uris, res.URI)
		}
		return uris, r.NextCursor
	}
	// Registered out of order; listed by URI.
	a := newServer(true, "r:/h", "r:/d", "r:/b", "r:/f")
	csA, _ := pair(t, a, nil)
	first, cursor := page(csA, "")
	diff(t, []string{"r:/b", "r:/d"}, first)
	// The same cursor on a server rebuilt with r:/d gone and r:/a, r:/c, r:/e new:
	// the next page starts after r:/d, repeating and skipping nothing that stayed.
	b := newServer(true, "r:/a", "r:/b", "r:/c", "r:/e", "r:/f", "r:/h")
	csB, _ := pair(t, b, nil)
	next, cursor2 := page(csB, cursor)
	diff(t, []string{"r:/e", "r:/f"}, next)
	last, end := page(csB, cursor2)
	diff(t, []string{"r:/h"}, last)
	diff(t, "", end)
	// On the first server, a removal before the cursor changes nothing after it.
	a.RemoveResources("r:/b")
	a.AddResource(&Resource{URI: "r:/a", Name: "r:/a"}, read)
	next, _ = page(csA, cursor)
	diff(t, []string{"r:/f", "r:/h"}, next)
	// Registration order (the default): the listing follows registrations.
	c := newServer(false, "r:/h", "r:/d", "r:/b", "r:/f")
	csC, _ := pair(t, c, nil)
	first, _ = page(csC, "")
	diff(t, []string{"r:/h", "r:/d"}, first)
	if _, err := csA.ListResources(ctx, &ListResourcesParams{Cursor: "garbage!"}); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("bad cursor: %v", err)
	}
}
