package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

const e2eConfig = `{"all": true, "cors": {"allowedOrigins": ["https://app.example.com"]}, "servers": {
  "up": {"description": "test upstream <script>alert(1)</script>",
         "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}},
         "rename": {"echo": {"name": "say", "description": "Says it back."}},
         "denyTools": ["crash"]},
  "cmd": {"description": "argv echo", "command": {"argv": ["sh", "-c", "echo \"args:$*\"", "x"]}},
  "tools": {"root": "root",
    "tools": {
      "greet": {"inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                "command": {"argv": ["sh", "-c", "printf 'Hello, %s!' \"$1\"", "greet", "{{.name}}"]}},
      "fail":  {"command": {"argv": ["sh", "-c", "echo partial; echo oops >&2; exit 4"]}},
      "slow":  {"command": {"argv": ["sleep", "10"], "timeout": "300ms"}},
      "stdin": {"inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "command": {"argv": ["cat"], "stdin": "json"}}},
    "resources": {
      "t": {"uri": "test://text", "text": "hello", "mimeType": "text/plain"},
      "f": {"uri": "test://file", "file": "data.txt", "mimeType": "text/plain"},
      "esc": {"uri": "test://escape", "file": "../outside.txt"}},
    "prompts": {"p": {"arguments": [{"name": "topic", "required": true}],
                      "messages": [{"role": "user", "text": "About {{.topic}}"}]}}},
  "off": {"enabled": false, "command": {"argv": ["true"]}}
}}`

// e2eExampleConfig is e2eConfig plus "echo": examples/echo-server over stdio, an
// upstream that is one of our examples rather than this test binary.
var e2eExampleConfig = strings.Replace(e2eConfig, `"servers": {`, `"servers": {
  "echo": {"description": "examples/echo-server", "mcp": {"command": ["$ECHO", "-stdio"]}},`, 1)

func TestEndToEnd(t *testing.T) {
	tg := startGateway(t, e2eExampleConfig)
	up := tg.connect(t, "/mcp/up", nil)

	t.Run("an example server as the upstream", func(t *testing.T) {
		for _, cs := range []*mcp.ClientSession{tg.connect(t, "/mcp/echo", nil), tg.connectSSE(t, "/mcp/echo/sse")} {
			if got := toolNames(t, cs); !slices.Equal(got, []string{"echo"}) {
				t.Errorf("tools of examples/echo-server through the gateway: %v", got)
			}
			if text, isErr := callText(t, cs, "echo", map[string]any{"message": "from an example"}); text != "from an example" || isErr {
				t.Errorf("echo = %q, %v", text, isErr)
			}
		}
		all := tg.connect(t, "/mcp/all", nil)
		if text, isErr := callText(t, all, "echo__echo", map[string]any{"message": "via all"}); text != "via all" || isErr {
			t.Errorf("echo__echo on /mcp/all = %q, %v", text, isErr)
		}
	})

	t.Run("upstream tools, filtered and renamed", func(t *testing.T) {
		got := toolNames(t, up)
		want := []string{"add" /* never */}
		_ = want
		for _, n := range []string{"say", "pid", "progress", "log", "ask", "sample", "block", "touch", "relist"} {
			if !slices.Contains(got, n) {
				t.Errorf("tool %q missing from %v", n, got)
			}
		}
		for _, n := range []string{"echo", "crash"} {
			if slices.Contains(got, n) {
				t.Errorf("tool %q should be hidden: %v", n, got)
			}
		}
		if text, isErr := callText(t, up, "say", map[string]any{"message": "hi"}); text != "hi" || isErr {
			t.Errorf("say = %q, %v", text, isErr)
		}
		if text, isErr := callText(t, up, "say", map[string]any{"message": 5}); !isErr {
			t.Errorf("say with a bad argument = %q, want isError", text)
		}
	})

	t.Run("command tools", func(t *testing.T) {
		cs := tg.connect(t, "/mcp/tools", nil)
		if text, isErr := callText(t, cs, "greet", map[string]any{"name": "<b>'Ann' $(id)"}); text != "Hello, <b>'Ann' $(id)!" || isErr {
			t.Errorf("greet = %q, %v", text, isErr)
		}
		text, isErr := callText(t, cs, "fail", nil)
		if !isErr || !strings.Contains(text, "oops") || !strings.Contains(text, "exit status 4") || !strings.Contains(text, "partial") {
			t.Errorf("fail = %q, %v; want isError with stderr, status and stdout", text, isErr)
		}
		start := time.Now()
		text, isErr = callText(t, cs, "slow", nil)
		if !isErr || !strings.Contains(text, "timed out") || time.Since(start) > 5*time.Second {
			t.Errorf("slow = %q, %v after %v; want a timeout error", text, isErr, time.Since(start))
		}
		if text, isErr := callText(t, cs, "stdin", map[string]any{"n": 7}); strings.TrimSpace(text) != `{"n":7}` || isErr {
			t.Errorf("stdin = %q, %v", text, isErr)
		}
		cmd := tg.connect(t, "/mcp/cmd", nil)
		if got := toolNames(t, cmd); !cmp.Equal(got, []string{"cmd"}) {
			t.Errorf("command server tools = %v, want [cmd]", got)
		}
		if text, _ := callText(t, cmd, "cmd", map[string]any{"command_args": `a 'b c' "d"`}); strings.TrimSpace(text) != "args:a b c d" {
			t.Errorf("cmd = %q", text)
		}
	})

	t.Run("static resources and prompts", func(t *testing.T) {
		cs := tg.connect(t, "/mcp/tools", nil)
		ctx := testCtx(t)
		for uri, want := range map[string]string{"test://text": "hello", "test://file": "file data"} {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != want {
				t.Errorf("read %s = %+v, %v", uri, res, err)
			}
		}
		if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://escape"}); err == nil {
			t.Errorf("a file outside the root was read: %+v", res.Contents[0])
		}
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p", Arguments: map[string]string{"topic": "gateways"}})
		if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "About gateways" {
			t.Errorf("prompt = %+v, %v", pr, err)
		}
		var je *jsonrpc.Error
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"}); !errors.As(err, &je) || je.Code != -32602 {
			t.Errorf("prompt without its required argument: %v, want -32602", err)
		}
	})

	t.Run("upstream resources, prompts, completion", func(t *testing.T) {
		ctx := testCtx(t)
		res, err := up.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://note"})
		if err != nil || res.Contents[0].Text != "a note" {
			t.Errorf("read = %+v, %v", res, err)
		}
		if _, err := up.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://nothing"}); !mcp.IsResourceNotFound(err) {
			t.Errorf("unknown resource: %v, want not found", err)
		}
		pr, err := up.GetPrompt(ctx, &mcp.GetPromptParams{Name: "hello", Arguments: map[string]string{"who": "you"}})
		if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello you" {
			t.Errorf("prompt = %+v, %v", pr, err)
		}
		cr, err := up.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "hello"}, Argument: mcp.CompleteArgument{Name: "who", Value: "a"}})
		if err != nil || !cmp.Equal(cr.Completion.Values, []string{"alpha", "beta"}) {
			t.Errorf("complete = %+v, %v", cr, err)
		}
	})

	t.Run("progress, logging, elicitation and sampling travel through", func(t *testing.T) {
		var mu sync.Mutex
		var logs []string
		cs := tg.connect(t, "/mcp/up", &mcp.ClientOptions{
			LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.LoggingMessageParams) {
				mu.Lock()
				logs = append(logs, string(p.Level)+":"+p.Data.(string))
				mu.Unlock()
			},
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
			},
			SamplingHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, Model: "m"}, nil
			},
		})
		var progress []float64
		ctx := mcp.WithProgress(testCtx(t), func(p *mcp.ProgressNotificationParams) {
			mu.Lock()
			progress = append(progress, p.Progress)
			mu.Unlock()
		})
		if text, _ := callTextCtx(t, ctx, cs, "progress", nil); text != "done" {
			t.Errorf("progress = %q", text)
		}
		mu.Lock()
		if !cmp.Equal(progress, []float64{1, 2, 3}) {
			t.Errorf("progress notifications = %v, want [1 2 3]", progress)
		}
		mu.Unlock()
		if text, _ := callText(t, cs, "log", map[string]any{"message": "hello log"}); text != "logged" {
			t.Errorf("log = %q", text)
		}
		mu.Lock()
		if !slices.Contains(logs, "warning:hello log") {
			t.Errorf("logs = %v, want the upstream's warning", logs)
		}
		mu.Unlock()
		if text, _ := callText(t, cs, "ask", nil); text != "accept Ann" {
			t.Errorf("ask = %q, want the client's answer", text)
		}
		if text, _ := callText(t, cs, "sample", nil); text != "model said: ok" {
			t.Errorf("sample = %q", text)
		}
		// A client that cannot elicit: its own upstream session declared no
		// elicitation either, so the upstream knows not to ask (a shared upstream
		// session gets a decline instead: TestSharedUpstreamDeclinesForClient).
		if text, isErr := callText(t, up, "ask", nil); !isErr || !strings.Contains(text, "client did not declare elicitation") {
			t.Errorf("ask without elicitation = %q (isError %v), want the upstream's refusal to ask", text, isErr)
		}
	})

	t.Run("one client's cancellation leaves others alone", func(t *testing.T) {
		other := tg.connect(t, "/mcp/up", nil)
		ctx, cancel := context.WithCancel(testCtx(t))
		done := make(chan error, 1)
		go func() {
			_, err := up.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
			done <- err
		}()
		// The other client's calls go through while the first one blocks.
		if text, _ := callText(t, other, "say", map[string]any{"message": "still here"}); text != "still here" {
			t.Errorf("other = %q", text)
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled call: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("cancelled call did not return")
		}
		if text, _ := callText(t, up, "say", map[string]any{"message": "after"}); text != "after" {
			t.Errorf("after cancel = %q", text)
		}
	})

	t.Run("resource updates and list changes", func(t *testing.T) {
		updated := make(chan string, 4)
		changed := make(chan struct{}, 4)
		cs := tg.connect(t, "/mcp/up", &mcp.ClientOptions{
			ResourceUpdatedHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.ResourceUpdatedParams) { updated <- p.URI },
			ToolListChangedHandler: func(ctx context.Context, cs *mcp.ClientSession) { changed <- struct{}{} },
		})
		ctx := testCtx(t)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "demo://note"}); err != nil {
			t.Fatal(err)
		}
		callText(t, cs, "touch", nil)
		select {
		case uri := <-updated:
			if uri != "demo://note" {
				t.Errorf("updated %q", uri)
			}
		case <-time.After(10 * time.Second):
			t.Error("no notifications/resources/updated")
		}
		// What a server offers is what its shared upstream session lists: a
		// 2026-07-28 client, which uses that session, makes the upstream register a
		// tool again, and this client hears of it and sees the new tool.
		modern := tg.connect(t, "/mcp/up", &mcp.ClientOptions{ProtocolVersion: "2026-07-28"})
		if text, _ := callText(t, modern, "relist", nil); text != "relisted" {
			t.Errorf("relist = %q", text)
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Error("no notifications/tools/list_changed")
		}
		deadline := time.Now().Add(10 * time.Second)
		for !slices.Contains(toolNames(t, cs), "added") {
			if time.Now().After(deadline) {
				t.Fatal("the new upstream tool never appeared")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("legacy SSE route", func(t *testing.T) {
		cs := tg.connectSSE(t, "/mcp/up/sse")
		if text, _ := callText(t, cs, "say", map[string]any{"message": "over sse"}); text != "over sse" {
			t.Errorf("say over SSE = %q", text)
		}
		cs2 := tg.connectSSE(t, "/mcp/tools/sse")
		if text, _ := callText(t, cs2, "greet", map[string]any{"name": "sse"}); text != "Hello, sse!" {
			t.Errorf("greet over SSE = %q", text)
		}
	})

	t.Run("/mcp/all", func(t *testing.T) {
		cs := tg.connect(t, "/mcp/all", nil)
		got := toolNames(t, cs)
		for _, n := range []string{"up__say", "tools__greet", "cmd__cmd", "up__ask"} {
			if !slices.Contains(got, n) {
				t.Errorf("%q missing from /mcp/all: %v", n, got)
			}
		}
		for _, n := range got {
			if !allNameRE.MatchString(n) {
				t.Errorf("name %q is not valid for clients", n)
			}
		}
		if text, _ := callText(t, cs, "tools__greet", map[string]any{"name": "all"}); text != "Hello, all!" {
			t.Errorf("tools__greet = %q", text)
		}
		if text, _ := callText(t, cs, "up__say", map[string]any{"message": "x"}); text != "x" {
			t.Errorf("up__say = %q", text)
		}
		res, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "demo://note"})
		if err != nil || res.Contents[0].Text != "a note" {
			t.Errorf("read on /mcp/all = %+v, %v", res, err)
		}
		if _, err := cs.GetPrompt(testCtx(t), &mcp.GetPromptParams{Name: "tools__p", Arguments: map[string]string{"topic": "x"}}); err != nil {
			t.Errorf("prompt on /mcp/all: %v", err)
		}
	})

	t.Run("pages and errors", func(t *testing.T) {
		status, hdr, body := tg.get(t, "/mcp/nope", "application/json")
		if status != 404 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "nope") || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("unknown server: %d %q", status, body)
		}
		status, _, body = tg.get(t, "/mcp/off", "text/html")
		if status != 404 || !strings.Contains(body, "<html") {
			t.Errorf("disabled server page: %d", status)
		}
		status, _, body = tg.get(t, "/mcp/meta/off", "text/html")
		if status != 404 || !strings.Contains(body, "disabled") {
			t.Errorf("disabled server meta page: %d %q", status, body)
		}
		status, _, body = tg.get(t, "/mcp/../etc/passwd", "text/html")
		if status != 404 || strings.Contains(body, "root:") {
			t.Errorf("traversal: %d", status)
		}
		status, _, body = tg.get(t, "/mcp/up", "text/html,application/xhtml+xml")
		if status != 200 || !strings.Contains(body, "an MCP endpoint") {
			t.Errorf("browser GET of an endpoint: %d %q", status, body)
		}
		status, hdr, body = tg.get(t, "/mcp", "text/html")
		if status != 200 || !strings.Contains(body, `href="/mcp/meta/up"`) || !strings.Contains(body, `class="endpoint-link" href="/mcp/up"`) ||
			!strings.Contains(body, "disabled") || hdr.Get("Content-Security-Policy") == "" {
			t.Errorf("index: %d %q", status, body)
		}
		callText(t, up, "stderr", map[string]any{"message": "<marker>"})
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && !strings.Contains(record(tg.g, "/mcp/meta/up"), "upstream: &lt;marker&gt;") {
			time.Sleep(10 * time.Millisecond)
		}
		status, _, body = tg.get(t, "/mcp/meta/up", "text/html")
		if status != 200 || strings.Contains(body, "<script>alert(1)") || !strings.Contains(body, "&lt;script&gt;alert(1)") {
			t.Errorf("meta page does not escape the description: %d", status)
		}
		for _, want := range []string{"say", "upstream name echo", "up__say", "upstream: &lt;marker&gt;", "--transport http"} {
			if !strings.Contains(body, want) {
				t.Errorf("meta page lacks %q", want)
			}
		}
		status, _, body = tg.get(t, "/healthz", "")
		var h Health
		if err := json.Unmarshal([]byte(body), &h); err != nil || status != 200 || !h.Healthy || h.Servers["off"].State != "disabled" || h.Servers["up"].Tools < 5 {
			t.Errorf("healthz: %d %s", status, body)
		}
	})

	t.Run("origin checks and CORS", func(t *testing.T) {
		post := func(origin, method string) *http.Response {
			req, _ := http.NewRequest(method, tg.srv.URL+"/mcp/up", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Origin", origin)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if method == http.MethodOptions {
				req.Header.Set("Access-Control-Request-Method", "POST")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		if resp := post("https://evil.example", http.MethodPost); resp.StatusCode != 403 {
			t.Errorf("foreign origin: %d, want 403", resp.StatusCode)
		}
		resp := post("https://app.example.com", http.MethodOptions)
		if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
			t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
		}
		if resp := post("https://app.example.com", http.MethodPost); resp.StatusCode == 403 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
			t.Errorf("allowed origin: %d %v", resp.StatusCode, resp.Header)
		}
		if resp := post("https://evil.example", http.MethodOptions); resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from a foreign origin was allowed")
		}
	})
}
