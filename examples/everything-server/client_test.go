package main

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestClientOverHTTP drives the everything server with the library's own client over
// Streamable HTTP, the way an application would: server-to-client requests answered by
// handlers, progress and log callbacks, and the test_reconnection tool, whose result
// only arrives once the client transport has resumed the closed SSE stream.
func TestClientOverHTTP(t *testing.T) {
	url := httpServer(t, false)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	logs := make(chan string, 16)
	progress := make(chan float64, 16)
	tr, err := streamable.NewClient(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "client-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.Revision20251125,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "gopher", "email": req.Params.Message}}, nil
		},
		SamplingHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content[0].(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{&mcp.TextContent{Text: "echo " + prompt}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			logs <- p.Data.(string)
		},
	}).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if v := cs.ProtocolVersion(); v != mcp.Revision20251125 {
		t.Errorf("negotiated %s", v)
	}

	call := func(ctx context.Context, name, args string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: result %+v", name, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	checks := []struct{ tool, args, want string }{
		{"test_elicitation", `{"message":"gopher@example.com"}`, `User response: action=accept, content={"email":"gopher@example.com","username":"gopher"}`},
		{"test_sampling", `{"prompt":"hello"}`, "LLM response: echo hello"},
		{"test_reconnection", `{}`, "Reconnection test completed: the result was delivered on the resumed stream"},
	}
	for _, c := range checks {
		if got := call(ctx, c.tool, c.args); got != c.want {
			t.Errorf("%s = %q, want %q", c.tool, got, c.want)
		}
	}

	pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { progress <- p.Progress })
	call(pctx, "test_tool_with_progress", `{}`)
	if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
		t.Fatal(err)
	}
	call(ctx, "test_tool_with_logging", `{}`)
	if got := receive(ctx, t, progress, 3); !slices.Equal(got, []float64{0, 50, 100}) {
		t.Errorf("progress = %v", got)
	}
	if got, want := receive(ctx, t, logs, 3), []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(got, want) {
		t.Errorf("logs = %q, want %q", got, want)
	}
	select {
	case p := <-progress:
		t.Errorf("extra progress %v", p)
	case l := <-logs:
		t.Errorf("extra log %q", l)
	default:
	}
}

// receive takes n values from ch, failing the test if ctx ends first.
func receive[T any](ctx context.Context, t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	var got []T
	for range n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-ctx.Done():
			t.Fatalf("got %v, then nothing: %v", got, ctx.Err())
		}
	}
	return got
}
