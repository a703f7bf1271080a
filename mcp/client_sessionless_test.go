package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

func TestClientProbesModern(t *testing.T) {
	cs, _ := pairProbing(t, modernServer(), nil)
	ctx := testCtx(t)
	diff(t, Revision20260728, cs.ProtocolVersion())
	diff(t, "test-server", cs.InitializeResult().ServerInfo.Name)
	if cs.DiscoverResult() == nil || cs.ServerCapabilities().Tools == nil {
		t.Fatalf("discover = %+v", cs.DiscoverResult())
	}
	r, err := cs.CallTool(ctx, &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"modern"}`)})
	diff(t, "modern", text(t, r, err))
	if err := cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &SubscribeParams{URI: "test://r"}); err == nil {
		t.Error("resources/subscribe allowed on a 2026-07-28 session")
	}
}

func TestClientAnswersInputRequired(t *testing.T) {
	asked := 0
	cs, _ := pairProbing(t, modernServer(), &ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			asked++
			switch req.Params.Message {
			case "name?", "What is your name?":
				return &ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			}
			return &ElicitResult{Action: "accept", Content: map[string]any{"color": "green"}}, nil
		},
	})
	ctx := testCtx(t)
	r, err := cs.CallTool(ctx, &CallToolParams{Name: "greet"})
	diff(t, "Hello, Ada!", text(t, r, err))
	r, err = cs.CallTool(ctx, &CallToolParams{Name: "two_steps"})
	diff(t, "Ada likes green", text(t, r, err))
	diff(t, 3, asked)
	// The same handler code serves an initialize-era client through elicitation/create.
	legacy, _ := pair(t, modernServer(), &ClientOptions{ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo"}}, nil
	}})
	r, err = legacy.CallTool(ctx, &CallToolParams{Name: "greet"})
	diff(t, "Hello, Bo!", text(t, r, err))
}

func TestClientModernLogLevel(t *testing.T) {
	got := make(chan string, 10)
	cs, _ := pairProbing(t, modernServer(), &ClientOptions{LoggingMessageHandler: func(ctx context.Context, cs *ClientSession, p *LoggingMessageParams) {
		got <- string(p.Level)
	}})
	ctx := testCtx(t)
	if _, err := cs.CallTool(ctx, &CallToolParams{Name: "log"}); err != nil {
		t.Fatal(err)
	}
	diff(t, 0, len(got))
	if err := cs.SetLoggingLevel(ctx, LevelInfo); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &CallToolParams{Name: "log"}); err != nil {
		t.Fatal(err)
	}
	diff(t, 1, len(got))
	diff(t, "error", <-got)
}

func TestClientListen(t *testing.T) {
	s := modernServer()
	changed := make(chan string, 10)
	cs, _ := pairProbing(t, s, &ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, cs *ClientSession) { changed <- "tools" },
		ResourceUpdatedHandler: func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams) { changed <- p.URI },
	})
	ctx := testCtx(t)
	sub, err := cs.Listen(ctx, &SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"test://r"}})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, true, sub.Acknowledged.ToolsListChanged)
	s.AddTool(&Tool{Name: "new", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) { return nil, nil })
	diff(t, "tools", <-changed)
	s.ResourceUpdated(ctx, "test://r")
	diff(t, "test://r", <-changed)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if sub.Err() != nil {
		t.Fatal(sub.Err())
	}
	// The server dropped the listener once cancelled.
	deadline := time.Now().Add(5 * time.Second)
	for len(s.listenerSnapshot()) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling a deadline
	}
	diff(t, 0, len(s.listenerSnapshot()))
}

// legacyOnlyServer answers like an initialize-era server that has never heard of
// server/discover: -32601 before initialize.
func TestClientFallsBackToInitialize(t *testing.T) {
	for _, answer := range []string{"method-not-found", "silence"} {
		t.Run(answer, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := memory.NewPair()
			s := newTestServer()
			// A shim in front of the real server plays the legacy peer's part for
			// the probe only.
			shim := &probeShim{Transport: a, mode: answer}
			ss, _ := s.Connect(ctx, shim)
			defer ss.Close()
			c := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProbeTimeout: 200 * time.Millisecond})
			cs, err := c.Connect(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			diff(t, LatestInitializeRevision, cs.ProtocolVersion())
			r, err := cs.CallTool(ctx, &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"old"}`)})
			diff(t, "old", text(t, r, err))
		})
	}
	// A client that requires 2026-07-28 does not fall back.
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, _ := newTestServer().Connect(ctx, &probeShim{Transport: a, mode: "method-not-found"})
	defer ss.Close()
	_, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolVersion: Revision20260728}).Connect(ctx, b)
	if err == nil {
		t.Fatal("a modern-only client accepted a legacy server")
	}
}

// probeShim hides server/discover from the server behind it, answering like a legacy
// peer: with -32601, or not at all.
type probeShim struct {
	jsonrpc.Transport
	mode string
}

func (p *probeShim) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := p.Transport.Read(ctx)
		if err != nil {
			return m, err
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || r.Method != "server/discover" {
			return m, nil
		}
		if p.mode == "method-not-found" {
			if err := p.Transport.Write(ctx, &jsonrpc.Response{ID: r.ID, Error: jsonrpc.NewError(-32601, "Method not found", nil)}); err != nil {
				return nil, err
			}
		}
	}
}

// resultRewriter replaces resultType in the server's answers, to play a server
// that uses a value the client does not know.
type resultRewriter struct {
	jsonrpc.Transport
	to string
}

func (w *resultRewriter) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil && bytes.Contains(r.Result, []byte(`"content"`)) {
		r2 := *r
		r2.Result = bytes.Replace(r.Result, []byte(`"resultType":"complete"`), []byte(`"resultType":"`+w.to+`"`), 1)
		m = &r2
	}
	return w.Transport.Write(ctx, m)
}

func TestClientRejectsUnknownResultType(t *testing.T) {
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, _ := modernServer().Connect(ctx, &resultRewriter{Transport: a, to: "weird"})
	defer ss.Close()
	cs, err := NewClient(Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"x"}`)})
	if err == nil || !strings.Contains(err.Error(), `unknown resultType "weird"`) {
		t.Fatalf("err = %v", err)
	}
}
