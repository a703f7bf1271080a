package jsonrpc_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// noteLog records which notifications ran, in order, and on which goroutine.
type noteLog struct {
	mu    sync.Mutex
	names []string
	gids  map[string]string
	ran   chan string
}

func newNoteLog() *noteLog { return &noteLog{gids: map[string]string{}, ran: make(chan string, 64)} }

func (l *noteLog) add(method string) {
	l.mu.Lock()
	l.names = append(l.names, method)
	l.gids[method] = goid()
	l.mu.Unlock()
	l.ran <- method
}

func (l *noteLog) order() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.names...)
}

func (l *noteLog) gid(method string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gids[method]
}

// inlineOpts runs notifications whose method starts with "inline" inline; the
// handler of "inline/block" and "inline/async" (which calls Async first) says so on
// started and waits for g.
func inlineOpts(l *noteLog, g *gate, started chan<- string) *jsonrpc.ConnOptions {
	return &jsonrpc.ConnOptions{
		InlineNotification: func(r *jsonrpc.Request) bool { return strings.HasPrefix(r.Method, "inline") },
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if !req.IsNotification() {
				return json.RawMessage(`{}`), nil
			}
			switch req.Method {
			case "inline/async":
				jsonrpc.Async(ctx)
				started <- req.Method
				<-g.ch
			case "inline/block":
				started <- req.Method
				<-g.ch
			}
			l.add(req.Method)
			return nil, nil
		}),
	}
}

func notif(method string) *jsonrpc.Request { return &jsonrpc.Request{Method: method} }

func TestInlineNotificationRunsOnCaller(t *testing.T) {
	checkLeaks(t)
	l, g := newNoteLog(), newGate()
	defer g.open()
	_, d, peer := serveDirect(t, inlineOpts(l, g, nil))

	// Through the reader: the notification has run by the time the call read
	// after it is answered.
	peer.send(`{"jsonrpc":"2.0","method":"inline/c"}`)
	peer.ping()
	if got := l.order(); !cmp.Equal(got, []string{"inline/c"}) {
		t.Errorf("ran %v before the ping was answered, want [inline/c]", got)
	}
	// Through the DirectFunc: on the caller, before it returns.
	if !d.serve(notif("inline/a")) {
		t.Fatal("DirectFunc refused a notification")
	}
	if got := l.order(); !cmp.Equal(got, []string{"inline/c", "inline/a"}) || l.gid("inline/a") != goid() {
		t.Errorf("after the DirectFunc returned: ran %v, inline/a on goroutine %s (caller %s)", got, l.gid("inline/a"), goid())
	}
	d.serve(notif("worker/b"))
	wait(t, l.ran, "inline/c")
	wait(t, l.ran, "inline/a")
	wait(t, l.ran, "worker/b")
	if l.gid("worker/b") == goid() {
		t.Error("a notification that is not inline ran on the caller")
	}
}

// TestInlineNotificationOrder: while an inline notification runs, a response and
// later notifications (inline or not) wait for it.
func TestInlineNotificationOrder(t *testing.T) {
	checkLeaks(t)
	l, g := newNoteLog(), newGate()
	defer g.open()
	started := make(chan string, 1)
	c, d, peer := serveDirect(t, inlineOpts(l, g, started))

	// A call of ours whose response will arrive while inline/block runs.
	callDone := make(chan error, 1)
	go func() {
		var s string
		callDone <- c.Call(context.Background(), "m", nil, &s)
	}()
	req, ok := peer.recvMsg().(*jsonrpc.Request)
	if !ok {
		t.Fatal("the peer did not get the call")
	}

	blocked := make(chan bool, 1)
	go func() { blocked <- d.serve(notif("inline/block")) }()
	wait(t, started, "inline/block to start")
	// A response arriving now waits for the notification before it.
	d.serve(&jsonrpc.Response{ID: req.ID, Result: []byte(`"r"`)})
	select {
	case err := <-callDone:
		t.Fatalf("the Call returned (%v) while the notification that arrived before its response ran", err)
	case <-time.After(20 * time.Millisecond):
	}
	// inline/block holds the worker role: a notification queued now waits.
	d.serve(notif("worker/probe"))
	select {
	case m := <-l.ran:
		t.Fatalf("%s ran while inline/block held the queue", m)
	case <-time.After(20 * time.Millisecond):
	}
	d.serve(notif("inline/x"))
	d.serve(notif("worker/y"))
	g.open()
	if !<-blocked {
		t.Error("DirectFunc refused inline/block")
	}
	if err := wait(t, callDone, "the Call"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		wait(t, l.ran, "notifications")
	}
	want := []string{"inline/block", "worker/probe", "inline/x", "worker/y"}
	if got := l.order(); !cmp.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestInlineNotificationAsync(t *testing.T) {
	checkLeaks(t)
	l, g := newNoteLog(), newGate()
	started := make(chan string, 1)
	_, d, _ := serveDirect(t, inlineOpts(l, g, started))
	done := make(chan bool, 1)
	go func() { done <- d.serve(notif("inline/async")) }()
	wait(t, started, "inline/async to start")
	// inline/async released the queue: a later notification runs while it waits.
	d.serve(notif("worker/after"))
	if m := wait(t, l.ran, "worker/after"); m != "worker/after" {
		t.Fatalf("%s ran first", m)
	}
	g.open()
	if !<-done {
		t.Error("DirectFunc refused inline/async")
	}
	if m := wait(t, l.ran, "inline/async"); m != "inline/async" {
		t.Errorf("got %s", m)
	}
}
