package main

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/mcp"
)

// TestSSEProgressOrder: over the legacy SSE route, every progress notification of a
// forwarded call reaches the client before its result, every time.
func TestSSEProgressOrder(t *testing.T) {
	tg := startGateway(t, e2eConfig)
	cs := tg.connectSSE(t, "/mcp/up/sse")
	for i := 0; i < 20; i++ {
		var mu sync.Mutex
		var got []float64
		ctx := mcp.WithProgress(testCtx(t), func(p *mcp.ProgressNotificationParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
		})
		callTextCtx(t, ctx, cs, "progress", nil)
		mu.Lock()
		if diff := cmp.Diff([]float64{1, 2, 3}, got); diff != "" {
			t.Fatalf("round %d: progress (-want +got):\n%s", i, diff)
		}
		mu.Unlock()
	}
}
