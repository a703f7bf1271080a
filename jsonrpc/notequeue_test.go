package jsonrpc_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// With WaitWhenQueueFull, a full queue makes the reader wait for the worker instead
// of dropping: every notification the peer sent is handled, in order, and what the
// peer sent after them (a call) is read once there is room again.
func TestNotificationQueueWaitsWhenFull(t *testing.T) {
	checkLeaks(t)
	const max, extra = 4, 10
	started := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	conn, peer := serve(t, &jsonrpc.ConnOptions{
		MaxQueuedNotifications: max,
		WaitWhenQueueFull:      true,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsNotification() {
				mu.Lock()
				order = append(order, string(req.Params))
				first := len(order) == 1
				mu.Unlock()
				if first {
					close(started)
					<-release
				}
				return nil, nil
			}
			return "pong", nil
		}),
	})
	peer.send(`{"jsonrpc":"2.0","method":"n","params":[0]}`)
	<-started // the first one runs (and blocks): it is not in the queue
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= max+extra; i++ {
			peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":[%d]}`, i))
		}
		peer.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}()
	close(release)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"pong"}`; got != want {
		t.Fatalf("ping: %s, want %s", got, want)
	}
	<-sent
	if got := conn.DroppedNotifications(); got != 0 {
		t.Errorf("dropped %d notifications, want none", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(order)
		mu.Unlock()
		if n == 1+max+extra || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var want []string
	for i := range 1 + max + extra {
		want = append(want, fmt.Sprintf("[%d]", i))
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("notifications handled (-want +got):\n%s", diff)
	}
}

// Close ends a Conn whose reader waits for room in a full queue (WaitWhenQueueFull)
// as soon as the handler holding the worker returns.
func TestNotificationQueueWaitEndsOnClose(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{})
	release := make(chan struct{})
	var handled atomic.Int32
	conn, peer := serve(t, &jsonrpc.ConnOptions{
		MaxQueuedNotifications: 1,
		WaitWhenQueueFull:      true,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if handled.Add(1) == 1 {
				close(started)
				<-release
			}
			return nil, nil
		}),
	})
	peer.send(`{"jsonrpc":"2.0","method":"n"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"n"}`)                                           // queued
	go peer.pipe.WriteRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"n"}`)) // the reader waits with it
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	close(release)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}
