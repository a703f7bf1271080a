package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wiremcp/wiremcp/transport/memory"
)

// BenchmarkTypedEchoRoundTrip measures one client→server→client tools/call of a typed,
// validated echo tool over the memory transport (encode and decode on both sides).
// Budget (DESIGN.md): at most 100 allocs/op and 8 KB/op.
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
