package jsonrpc_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// A peer that sends notifications faster than their handler runs fills the queue up
// to MaxQueuedNotifications; the excess is dropped and counted, while calls are
// still answered and every queued notification is handled once the handler frees.
func TestNotificationQueueBounded(t *testing.T) {
	checkLeaks(t)
	const max = 20
	started := make(chan struct{})
	release := make(chan struct{})
	var handled atomic.Int32
	conn, peer := serve(t, &jsonrpc.ConnOptions{
		MaxQueuedNotifications: max,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsNotification() {
				if handled.Add(1) == 1 {
					close(started)
					<-release
				}
				return nil, nil
			}
			return "pong", nil
		}),
	})
	peer.send(`{"jsonrpc":"2.0","method":"n"}`)
	<-started // the first one runs (and blocks): it is not in the queue
	for range max + 10 {
		peer.send(`{"jsonrpc":"2.0","method":"n"}`)
	}
	// A call after them is answered at once: the reader got past every notification.
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"pong"}`; got != want {
		t.Fatalf("ping: %s, want %s", got, want)
	}
	if got := conn.DroppedNotifications(); got != 10 {
		t.Errorf("dropped %d notifications, want 10", got)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for handled.Load() < 1+max && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := handled.Load(); got != 1+max {
		t.Errorf("handled %d notifications, want %d", got, 1+max)
	}
	// The queue has room again.
	peer.send(`{"jsonrpc":"2.0","method":"n"}`)
	for handled.Load() < 2+max && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := handled.Load(); got != 2+max || conn.DroppedNotifications() != 10 {
		t.Errorf("after the queue drained: handled %d, dropped %d; want %d, 10", got, conn.DroppedNotifications(), 2+max)
	}
}
