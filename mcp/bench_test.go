package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wiremcp/wiremcp/transport/memory"
)

// BenchmarkTypedEchoRoundTrip measures one client→server→client tools/call of a typed,
// validated echo tool over the memory transport (encode and decode on both sides).
// DESIGN.md asks for ns/op, B/op and allocs/op; docs/performance.md keeps the figures.
func BenchmarkTypedEchoRoundTrip(b *testing.B) {
	for _, rev := range []string{LatestInitializeRevision, Revision20260728} {
		b.Run(rev, func(b *testing.B) { benchEcho(b, rev) })
	}
}

func benchEcho(b *testing.B, rev string) {
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "echo"}, func(ctx context.Context, req *CallToolRequest, in echoIn) (*CallToolResult, any, error) {
		return TextResult(in.Message), nil, nil
	})
	ctx := context.Background()
	a, c := memory.NewPair()
	ss, _ := s.Connect(ctx, a)
	defer ss.Close()
	cs, err := NewClient(Implementation{Name: "bench", Version: "1"}, &ClientOptions{ProtocolVersion: rev}).Connect(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	p := &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hello, benchmark"}`)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, p)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkServerToolsCall measures the server side alone: a pre-encoded tools/call
// of the typed echo tool goes in over the memory transport and its response comes
// out (2025-11-25 session).
func BenchmarkServerToolsCall(b *testing.B) {
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "echo"}, func(ctx context.Context, req *CallToolRequest, in echoIn) (*CallToolResult, any, error) {
		return TextResult(in.Message), nil, nil
	})
	ctx := context.Background()
	a, c := memory.NewPair()
	ss, _ := s.Connect(ctx, a)
	defer ss.Close()
	send := func(line string) {
		if err := c.WriteRaw(ctx, []byte(line)); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if _, err := c.Read(ctx); err != nil {
		b.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, benchmark"}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := c.WriteRaw(ctx, req); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
