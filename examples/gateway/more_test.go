package main

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestSSEKeepAlive: idle event streams carry ":" comment lines, on the legacy SSE route
// and on a Streamable HTTP session's GET stream.
func TestSSEKeepAlive(t *testing.T) {
	c, err := ParseConfig([]byte(`{"servers": {"date": {"command": {"argv": ["date"]}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(c, &Options{KeepAlive: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	defer func() { srv.CloseClientConnections(); g.Close(); srv.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	comments := func(t *testing.T, req *http.Request) {
		t.Helper()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s %s: %s %s", req.Method, req.URL.Path, resp.Status, resp.Header.Get("Content-Type"))
		}
		sc := bufio.NewScanner(resp.Body)
		n := 0
		for sc.Scan() && n < 2 {
			if strings.HasPrefix(sc.Text(), ":") {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%s: %d keep-alive comments before the stream ended", req.URL.Path, n)
		}
	}
	t.Run("sse", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/mcp/date/sse", nil)
		req.Header.Set("Accept", "text/event-stream")
		comments(t, req)
	})
	t.Run("streamable GET", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp/date", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		sid := resp.Header.Get("Mcp-Session-Id")
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/mcp/date", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		comments(t, req)
	})
}

// TestLazyStartAndTimeout: a lazy upstream starts with its first client; a call the
// upstream does not answer within the server's timeout is an error result.
func TestLazyStartAndTimeout(t *testing.T) {
	// The timeout is long enough for the echo call after it on a loaded machine.
	tg := startGateway(t, `{"servers": {"up": {"timeout": "2s",
	  "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "start": "lazy"}}}}`)
	if h := tg.g.health().Servers["up"]; !h.Healthy || h.Parts[0].PID != 0 || h.Parts[0].State != "idle" {
		t.Fatalf("before any client: %+v", h)
	}
	changed := make(chan struct{}, 1)
	cs := tg.connect(t, "/mcp/up", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	// The client initialized before the upstream was discovered: it is told.
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the lazy start")
	}
	waitFor(t, "the tools of the lazily started upstream", func() bool { return slices.Contains(toolNames(t, cs), "block") })
	if tg.g.health().Servers["up"].Parts[0].PID == 0 {
		t.Error("no child after the first client")
	}
	start := time.Now()
	text, isErr := callText(t, cs, "block", nil)
	if !isErr || !strings.Contains(text, "no answer within 2s") || time.Since(start) > 10*time.Second {
		t.Errorf("block = %q, %v after %v", text, isErr, time.Since(start))
	}
	if text, _ := callText(t, cs, "echo", map[string]any{"message": "after"}); text != "after" {
		t.Errorf("echo after a timeout = %q", text)
	}
}

// TestSharedUpstreamLogReachesEveryClient: a log message a shared upstream sends
// outside any request goes to every client of the server (each at its own level).
func TestSharedUpstreamLogReachesEveryClient(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "sessions": "shared"}}}}`)
	got := make(chan string, 4)
	handler := func(name string) *mcp.ClientOptions {
		return &mcp.ClientOptions{LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			if p.Logger == "later" {
				got <- name + ":" + p.Data.(string)
			}
		}}
	}
	a := tg.connect(t, "/mcp/up", handler("a"))
	tg.connect(t, "/mcp/up", handler("b"))
	quiet := tg.connect(t, "/mcp/up", handler("quiet"))
	if err := quiet.SetLoggingLevel(testCtx(t), mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	callText(t, a, "log_later", map[string]any{"message": "hi"})
	var seen []string
	for len(seen) < 2 {
		select {
		case s := <-got:
			seen = append(seen, s)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %v, want the message at a and b", seen)
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"a:hi", "b:hi"}) {
		t.Errorf("got %v", seen)
	}
	select {
	case s := <-got:
		t.Errorf("unexpected %q (the quiet client asked for errors only)", s)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestSharedUpstreamDeclinesForClient: elicitation from a shared upstream session
// (which declared elicitation for every client) on behalf of a client that cannot
// be asked is declined by the gateway, as the user's refusal would be.
func TestSharedUpstreamDeclinesForClient(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "sessions": "shared"}}}}`)
	cs := tg.connect(t, "/mcp/up", nil)
	if text, isErr := callText(t, cs, "ask", nil); text != "decline <nil>" || isErr {
		t.Errorf("ask without elicitation = %q (isError %v), want a decline", text, isErr)
	}
}

// TestRootsPerClient: a client's own upstream session declares the client's roots,
// and follows their changes.
func TestRootsPerClient(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "sessions": "per-client"}}}}`)
	c := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125,
		Roots: []*mcp.Root{{URI: "file:///one"}}})
	tr, err := streamable.NewClient(tg.srv.URL+"/mcp/up", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(testCtx(t), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := callText(t, cs, "roots", nil); text != "file:///one" || isErr {
		t.Errorf("roots = %q, %v", text, isErr)
	}
	c.SetRoots(testCtx(t), []*mcp.Root{{URI: "file:///one"}, {URI: "file:///two"}})
	waitFor(t, "the new roots upstream", func() bool {
		text, _ := callText(t, cs, "roots", nil)
		return text == "file:///one file:///two"
	})
	// A client without roots: its upstream session declares none.
	other := tg.connect(t, "/mcp/up", nil)
	if text, isErr := callText(t, other, "roots", nil); !isErr {
		t.Errorf("roots without the capability = %q", text)
	}
}

// TestURLResourceAndAllowList: a static resource fetched from a URL, and a server
// whose allowTools keeps only the named upstream tools.
func TestURLResourceAndAllowList(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/doc.txt" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("from the web"))
	}))
	defer web.Close()
	tg := startGateway(t, `{"servers": {
	  "web": {"resources": {"doc": {"uri": "web://doc", "url": "`+web.URL+`/doc.txt", "mimeType": "text/plain"},
	                        "gone": {"uri": "web://gone", "url": "`+web.URL+`/missing"}}},
	  "up": {"allowTools": ["echo", "pid"], "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	cs := tg.connect(t, "/mcp/web", nil)
	ctx := testCtx(t)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "web://doc"})
	if err != nil || res.Contents[0].Text != "from the web" {
		t.Errorf("url resource = %+v, %v", res, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "web://gone"}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing url resource: %v, want an error naming the 404", err)
	}
	up := tg.connect(t, "/mcp/up", nil)
	got := toolNames(t, up)
	slices.Sort(got)
	if !slices.Equal(got, []string{"echo", "pid"}) {
		t.Errorf("allowTools: tools = %v", got)
	}
}

// TestCommandOutputIsCapped: a command's stdout beyond maxCommandOutput is cut, and
// the result says so.
func TestCommandOutputIsCapped(t *testing.T) {
	tg := startGateway(t, `{"servers": {"big": {"tools": {"flood": {"command": {"argv": ["sh", "-c", "head -c 5000000 /dev/zero | tr '\\000' a"]}}}}}}`)
	cs := tg.connect(t, "/mcp/big", nil)
	text, isErr := callText(t, cs, "flood", nil)
	out, note, _ := strings.Cut(text, "\n[output cut")
	if isErr || note != " at 4194304 bytes]" || len(out) != maxCommandOutput || strings.Count(out, "a") != maxCommandOutput {
		t.Errorf("flood: isError %v, %d bytes, ends %q", isErr, len(text), text[max(0, len(text)-40):])
	}
}

// TestCommandSlots: a call that finds every command slot of its server taken waits
// within its timeout, then says so.
func TestCommandSlots(t *testing.T) {
	slots := make(chan struct{}, 1)
	// The timeout bounds running `true` too: long enough for a loaded machine.
	ct, err := newCommandTool(&CommandConfig{Argv: []string{"true"}, Timeout: "2s"}, &ServerConfig{}, t.TempDir(), false, newLineRing(5), slots)
	if err != nil {
		t.Fatal(err)
	}
	call := func() *mcp.CallToolResult {
		res, err := ct.handle(testCtx(t), &mcp.CallToolRequest{Params: &mcp.CallToolParams{Name: "x"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.IsError {
		t.Fatalf("with a free slot: %+v", res.Content[0])
	}
	slots <- struct{}{} // every slot taken
	res := call()
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "no free slot within 2s") {
		t.Errorf("without a free slot: %v %q", res.IsError, text)
	}
	<-slots
	if res := call(); res.IsError {
		t.Errorf("after the slot was freed: %+v", res.Content[0])
	}
}
