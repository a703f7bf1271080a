package streamable

import (
	"context"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The connection's reader starts only when a message is queued for it (see
// direct.go): a connection that is closed without one ends at once, on the
// goroutine that closes the transport; one with a message queued reads it, and
// still notices the close afterwards.
func TestLazyReader(t *testing.T) {
	tests := []struct {
		name  string
		queue bool // a notification is queued for the reader before Close
	}{
		{"closed unread", false},
		{"queued then closed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHandler(func(context.Context, jsonrpc.Transport) error { return nil }, &HandlerOptions{Stateless: true})
			tr := newTransport(t.Context(), h, "", true)
			handled := make(chan string, 1)
			conn := jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				handled <- req.Method
				return nil, nil
			})})
			defer conn.Close()
			if tt.queue {
				if !tr.deliver(t.Context(), &jsonrpc.Request{Method: "notifications/queued"}) {
					t.Fatal("deliver refused the notification")
				}
				if got := waitFor(t, handled, "the queued notification"); got != "notifications/queued" {
					t.Errorf("handled %q", got)
				}
			}
			tr.Close()
			if !tt.queue {
				select {
				case <-conn.Done():
				default:
					t.Fatal("the connection had not ended when Close returned")
				}
			}
			waitFor(t, conn.Done(), "the connection to end")
			if err := conn.Err(); err == nil || err.Error() != "EOF" {
				t.Errorf("Err() = %v, want EOF", err)
			}
		})
	}
}
