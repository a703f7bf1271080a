package jsonrpc_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// TestConnMaxCallsInFlight: with MaxCallsInFlight calls of the peer running, a
// further call is not run but answered at once, with its own id, by a -32000
// "busy" error; in a batch too. Once the calls are answered there is room
// again. A negative cap means none.
func TestConnMaxCallsInFlight(t *testing.T) {
	checkLeaks(t)
	release := make(chan struct{})
	var ran atomic.Int32
	_, peer := serve(t, &jsonrpc.ConnOptions{MaxCallsInFlight: 3, Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		ran.Add(1)
		if req.Method == "hold" {
			<-release
		}
		return "ok", nil
	})})
	for i := 1; i <= 3; i++ {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"hold"}`, i))
	}
	waitUntil(t, "three calls running", func() bool { return ran.Load() == 3 })
	peer.send(`{"jsonrpc":"2.0","id":4,"method":"quick"}`)
	if got := peer.recv(); !strings.Contains(got, `"id":4`) || !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "3 calls of this connection are in flight") {
		t.Fatalf("a fourth call: %s, want a busy error with its id", got)
	}
	peer.send(`[{"jsonrpc":"2.0","id":5,"method":"quick"},{"jsonrpc":"2.0","id":6,"method":"quick"}]`)
	if got := peer.recv(); strings.Count(got, `"code":-32000`) != 2 || !strings.Contains(got, `"id":5`) || !strings.Contains(got, `"id":6`) {
		t.Fatalf("a batch: %s, want two busy errors with their ids", got)
	}
	if n := ran.Load(); n != 3 {
		t.Fatalf("%d calls ran, want the 3 held", n)
	}
	close(release)
	for range 3 {
		if got := peer.recv(); !strings.Contains(got, `"result":"ok"`) {
			t.Fatalf("a held call's answer: %s", got)
		}
	}
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"quick"}`)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":7,"result":"ok"}` {
		t.Fatalf("a call once the others are answered: %s", got)
	}

	// No cap.
	release2 := make(chan struct{})
	var ran2 atomic.Int32
	_, peer2 := serve(t, &jsonrpc.ConnOptions{MaxCallsInFlight: -1, Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		ran2.Add(1)
		<-release2
		return "ok", nil
	})})
	for i := 1; i <= 300; i++ {
		peer2.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"hold"}`, i))
	}
	waitUntil(t, "300 calls running without a cap", func() bool { return ran2.Load() == 300 })
	close(release2)
	for range 300 {
		peer2.recv()
	}
}

// gatedWrites is a Transport whose writes wait for gate.
type gatedWrites struct {
	jsonrpc.Transport
	gate chan struct{}
}

func (g *gatedWrites) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Transport.Write(ctx, msg)
}

// TestConnCallsInFlightCountUnwrittenAnswers: a call whose handler returned
// but whose answer the transport has not taken (a stdio peer that does not
// read) still counts: with the cap reached, the next call is refused and the
// reader waits to write the refusal, so no further call is read or run, and
// the answers held stay at the cap however many calls the peer sends.
func TestConnCallsInFlightCountUnwrittenAnswers(t *testing.T) {
	checkLeaks(t)
	a, b := memory.NewPair()
	gw := &gatedWrites{Transport: a, gate: make(chan struct{})}
	var ran atomic.Int32
	c := jsonrpc.NewConn(gw, &jsonrpc.ConnOptions{MaxCallsInFlight: 3, Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		ran.Add(1)
		return strings.Repeat("x", 1000), nil
	})})
	defer func() {
		c.Close()
		b.Close()
	}()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= 50; i++ {
			if b.WriteRaw(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, i)) != nil {
				return
			}
		}
	}()
	waitUntil(t, "three calls run", func() bool { return ran.Load() == 3 })
	// Nothing more runs while the answers cannot be written (an absence: given
	// time to go wrong).
	time.Sleep(200 * time.Millisecond)
	if n := ran.Load(); n != 3 {
		t.Fatalf("%d calls ran while 3 answers waited to be written, want 3", n)
	}
	close(gw.gate)
	answered, busy := 0, 0
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for answered+busy < 50 {
		msg, err := b.Read(ctx)
		if err != nil {
			t.Fatalf("after %d answers and %d refusals: %v", answered, busy, err)
		}
		r, ok := msg.(*jsonrpc.Response)
		switch {
		case !ok:
			t.Fatalf("got %T", msg)
		case r.Error != nil && r.Error.Code == -32000:
			busy++
		case r.Error == nil:
			answered++
		default:
			t.Fatalf("error %v", r.Error)
		}
	}
	<-sent
	if busy == 0 || answered < 3 {
		t.Errorf("%d answered, %d refused: want the 3 first answered and some refused", answered, busy)
	}
}

// waitUntil waits at most 5 s for cond.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
