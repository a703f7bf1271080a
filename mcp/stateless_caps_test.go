package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// statelessPipe is a memory pipe that says it is a stateless transport, as a
// stateless Streamable HTTP POST's connection does.
type statelessPipe struct{ *memory.Pipe }

func (statelessPipe) Stateless() bool { return true }

// TestStatelessSessionDeclaresNoLaterNotifications: a connection of a stateless
// transport lasts one request, so the server declares to an initialize-era client
// on it neither listChanged nor subscribe, and refuses resources/subscribe; the same
// server declares both to a client with a session.
func TestStatelessSessionDeclaresNoLaterNotifications(t *testing.T) {
	s := resourceServer() // resources and prompts
	s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) {
		return &CallToolResult{}, nil
	})
	ctx := testCtx(t)
	a, b := memory.NewPair()
	if _, err := s.Connect(ctx, statelessPipe{a}); err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolVersion: "2025-06-18"}).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	caps := cs.ServerCapabilities()
	if caps.Tools == nil || caps.Tools.ListChanged || caps.Prompts == nil || caps.Prompts.ListChanged ||
		caps.Resources == nil || caps.Resources.ListChanged || caps.Resources.Subscribe {
		t.Errorf("stateless: tools %+v prompts %+v resources %+v", caps.Tools, caps.Prompts, caps.Resources)
	}
	if err := cs.Subscribe(ctx, &SubscribeParams{URI: "test://static"}); err == nil {
		t.Error("our client subscribed on a stateless connection")
	}
	if _, err := cs.ListResources(ctx, nil); err != nil {
		t.Errorf("resources/list: %v", err)
	}
	// The server refuses it too, to a client that asks anyway.
	a2, b2 := memory.NewPair()
	if _, err := s.Connect(ctx, statelessPipe{a2}); err != nil {
		t.Fatal(err)
	}
	raw := jsonrpc.NewConn(b2, nil)
	defer raw.Close()
	var je *jsonrpc.Error
	if err := raw.Call(ctx, "resources/subscribe", map[string]any{"uri": "test://static"}, nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("resources/subscribe on a stateless connection: %v", err)
	}

	cs2, _ := pair(t, s, &ClientOptions{ProtocolVersion: "2025-06-18"})
	caps = cs2.ServerCapabilities()
	if !caps.Tools.ListChanged || !caps.Prompts.ListChanged || !caps.Resources.ListChanged || !caps.Resources.Subscribe {
		t.Errorf("in a session: tools %+v prompts %+v resources %+v", caps.Tools, caps.Prompts, caps.Resources)
	}
}
