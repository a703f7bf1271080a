package mcp

import (
	"context"
	"encoding/json"

	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// statelessHTTP serves s over stateless Streamable HTTP on 127.0.0.1 until the
// benchmark ends and returns a client transport to it.
func statelessHTTP(b *testing.B, s *Server) jsonrpc.Transport {
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, &streamable.HandlerOptions{Stateless: true})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	t, err := streamable.NewClient(srv.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	return t
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
			version := rev
			if rev == "http-stateless" {
				t, version = statelessHTTP(b, s), Revision20260728
			} else {
				a, c := memory.NewPair()
				ss, _ := s.Connect(ctx, a)
				defer ss.Close()
				t = c
			}
			cs, err := NewClient(Implementation{Name: "bench", Version: "1"}, &ClientOptions{ProtocolVersion: version}).Connect(ctx, t)
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

// BenchmarkCallAfterIdle measures what a call costs on top of its handler's own
// time, back to back ("hot") and when the handler leaves the process idle for 1, 6
// or 30 ms first, as a tool waiting on a database does ("idle"): the goroutines and threads
// that carry the response have to be woken again. The metric is the median of
// (call time − handler time), over the memory transport and stateless HTTP, and for
// the floor of any HTTP endpoint, a bare net/http handler doing the same.
func BenchmarkCallAfterIdle(b *testing.B) {
	idleWaits := []int{0, 1, 6, 30} // ms the handler waits
	s := NewServer(Implementation{Name: "bench", Version: "1"}, nil)
	var inner atomic.Int64
	AddTool(s, &Tool{Name: "wait"}, func(ctx context.Context, req *CallToolRequest, in struct {
		Ms int `json:"ms"`
	}) (*CallToolResult, any, error) {
		start := time.Now()
		if in.Ms > 0 {
			time.Sleep(time.Duration(in.Ms) * time.Millisecond)
		}
		inner.Store(int64(time.Since(start)))
		return TextResult("done"), nil, nil
	})
	ctx := context.Background()
	ht := statelessHTTP(b, s)
	a, c := memory.NewPair()
	ss, _ := s.Connect(ctx, a)
	defer ss.Close()
	for _, tr := range []struct {
		name string
		t    jsonrpc.Transport
	}{{"memory", c}, {"http-stateless", ht}} {
		cs, err := NewClient(Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tr.t)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for _, ms := range idleWaits {
			name := tr.name + "/hot"
			if ms > 0 {
				name = fmt.Sprintf("%s/idle-%dms", tr.name, ms)
			}
			p := &CallToolParams{Name: "wait", Arguments: json.RawMessage(fmt.Sprintf(`{"ms":%d}`, ms))}
			b.Run(name, func(b *testing.B) {
				var over []time.Duration
				for b.Loop() {
					start := time.Now()
					if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
						b.Fatal(err, res)
					}
					over = append(over, time.Since(start)-time.Duration(inner.Load()))
				}
				slices.Sort(over)
				b.ReportMetric(float64(over[len(over)/2].Microseconds()), "µs-over-handler")
			})
		}
	}
	// The floor: a bare net/http handler on loopback that reads the POSTed body,
	// waits as the tool does and answers with a short JSON body — no MCP, no
	// JSON-RPC. What it adds after idle is what any HTTP endpoint pays here.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body, _ := io.ReadAll(r.Body)
		if ms, _ := strconv.Atoi(string(body)); ms > 0 {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		inner.Store(int64(time.Since(start)))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"text":"done"}`)
	}))
	defer srv.Close()
	for _, ms := range idleWaits {
		name := "http-floor/hot"
		if ms > 0 {
			name = fmt.Sprintf("http-floor/idle-%dms", ms)
		}
		b.Run(name, func(b *testing.B) {
			var over []time.Duration
			for b.Loop() {
				start := time.Now()
				resp, err := http.Post(srv.URL, "text/plain", strings.NewReader(strconv.Itoa(ms)))
				if err != nil {
					b.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || string(body) != `{"text":"done"}` {
					b.Fatal(resp.StatusCode, err, string(body))
				}
				over = append(over, time.Since(start)-time.Duration(inner.Load()))
			}
			slices.Sort(over)
			b.ReportMetric(float64(over[len(over)/2].Microseconds()), "µs-over-handler")
		})
	}
}
