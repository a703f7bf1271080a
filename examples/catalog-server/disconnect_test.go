package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
)

// TestClientGoneStopsQuery: a client that gives up on a query over stateless HTTP
// (its POST closed) stops the query at once. Eight such queries take every
// connection of the model; a ninth query must still get one promptly, not wait
// for the eight to reach their time limit. (One client takes all eight: its
// share, -max-queries-per-client, is off here.)
func TestClientGoneStopsQuery(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{QueryTimeout: 20 * time.Second, MaxQueriesPerClient: -1})
	ts := startHTTP(t, svc)
	slow := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_query","arguments":{"path":"retail/shop/sales","sql":"SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"}}}`
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "POST", ts.URL, bytes.NewReader([]byte(slow)))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Error("a query of a trillion rows answered within a second")
			}
		})
	}
	wg.Wait()
	cs := connectHTTP(t, ts.URL, "2025-06-18")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_query", Arguments: json.RawMessage(`{"path":"retail/shop/sales","sql":"SELECT 42 AS answer"}`)})
	if err != nil {
		t.Fatalf("a query after eight abandoned ones: %v (after %s): their connections were not freed", err, time.Since(start))
	}
	if res.IsError {
		t.Fatalf("a query after eight abandoned ones: %s", text(res))
	}
}

// TestCancelledSaysWhatToDo: a call cut short by the server stopping (SIGTERM with
// queries in flight) is answered with why and what to do, in text and structure.
func TestCancelledSaysWhatToDo(t *testing.T) {
	r := errorResult(classify(fmt.Errorf("query: %w", context.Canceled)))
	var te toolError
	if err := json.Unmarshal(r.StructuredContent.(json.RawMessage), &te); err != nil {
		t.Fatal(err)
	}
	if te.Kind != "cancelled" || !strings.Contains(te.Error, "server is stopping") || te.Hint == "" || !strings.Contains(text(r), te.Hint) {
		t.Errorf("cancelled: %+v, text %q", te, text(r))
	}
}
