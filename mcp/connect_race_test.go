package mcp

import (
	"context"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// A message that is already waiting when Connect is called (the legacy SSE transport
// announces its endpoint first), and a broadcast running meanwhile, see a complete
// session: under the race detector, a handler or a broadcast reading the session's
// connection before Connect has set it is reported.
func TestConnectPublishesCompleteSession(t *testing.T) {
	for range 50 {
		s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
		a, b := memory.NewPair()
		peer := jsonrpc.NewConn(b, nil)
		// Queued before Connect: the reader handles it as soon as it starts.
		go peer.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": 1})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 20 {
				for _, ss := range s.Sessions() {
					_ = ss.conn.Err()
				}
			}
		}()
		ss, err := s.Connect(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if got := len(s.Sessions()); got != 1 {
			t.Fatalf("%d sessions listed, want 1", got)
		}
		peer.Close()
		ss.Wait()
	}
}
