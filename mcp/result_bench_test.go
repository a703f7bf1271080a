package mcp

import (
	"context"
	"encoding/json"

	"net/http/httptest"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// tableResult is a query-shaped result: 100 rows of 4 columns as structured content
// and the same JSON as text, as a data tool returns it (about 7.5 KB on the wire).
func tableResult() *CallToolResult {
	rows := make([][]any, 100)
	for i := range rows {
		rows[i] = []any{i, 10000, 4995000 + i, 499.5 + float64(i)/7}
	}
	raw, _ := json.Marshal(map[string]any{
		"columns":  []map[string]string{{"name": "k", "type": "BIGINT"}, {"name": "n", "type": "BIGINT"}, {"name": "total", "type": "HUGEINT"}, {"name": "mean", "type": "DOUBLE"}},
		"rows":     rows,
		"rowCount": 100, "truncated": false, "rowLimit": 1000, "elapsedMs": 5.3,
	})
	return &CallToolResult{StructuredContent: json.RawMessage(raw), Content: []Content{&TextContent{Text: string(raw)}}}
}

// BenchmarkCallToolResultJSON measures encoding and decoding a table-shaped result.
func BenchmarkCallToolResultJSON(b *testing.B) {
	r := tableResult()
	wire, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		b.ReportAllocs()
		for b.Loop() {
			var out CallToolResult
			if err := decodeResult("tools/call", wire, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTableRoundTrip measures one tools/call whose result is table-shaped,
// client to server to client over the memory transport for each revision family,
// and over stateless Streamable HTTP on loopback (2026-07-28).
func BenchmarkTableRoundTrip(b *testing.B) {
	for _, rev := range []string{LatestInitializeRevision, Revision20260728, "http-stateless"} {
		b.Run(rev, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
			res := tableResult()
			AddTool(s, &Tool{Name: "query"}, func(ctx context.Context, req *CallToolRequest, in echoIn) (*CallToolResult, any, error) {
				return res, nil, nil
			})
			ctx := context.Background()
			var t jsonrpc.Transport
			if rev == "http-stateless" {
				h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
					_, err := s.Connect(ctx, tr)
					return err
				}, &streamable.HandlerOptions{Stateless: true})
				srv := httptest.NewServer(h)
				defer srv.Close()
				ct, err := streamable.NewClient(srv.URL, nil)
				if err != nil {
					b.Fatal(err)
				}
				t, rev = ct, Revision20260728
			} else {
				a, c := memory.NewPair()
				ss, _ := s.Connect(ctx, a)
				defer ss.Close()
				t = c
			}
			cs, err := NewClient(Implementation{Name: "bench", Version: "1"}, &ClientOptions{ProtocolVersion: rev}).Connect(ctx, t)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			p := &CallToolParams{Name: "query", Arguments: json.RawMessage(`{"message":"SELECT k, count(*) FROM events GROUP BY k"}`)}
			b.ReportAllocs()
			for b.Loop() {
				got, err := cs.CallTool(ctx, p)
				if err != nil || got.IsError || len(got.Content) != 1 {
					b.Fatal(err, got)
				}
			}
		})
	}
}
