package jsonrpc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// TestCallContext checks a call handler's context under every kind of
// ConnOptions.Context: its values are visible, Cancel cancels it (Err and Cause
// are context.Canceled), it has ended once the handler returned, and the end of
// a cancellable parent cancels it while it runs.
func TestCallContext(t *testing.T) {
	type ended struct {
		err, cause error
		value      any
	}
	parents := map[string]func() (context.Context, context.CancelFunc){
		"background": func() (context.Context, context.CancelFunc) {
			return context.WithValue(context.Background(), ctxKey{}, "v"), func() {}
		},
		"cancellable": func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
		},
		"deadline": func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, "v"), time.Hour)
		},
		"without cancel": func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
			return context.WithoutCancel(ctx), cancel
		},
	}
	for name, mk := range parents {
		t.Run(name, func(t *testing.T) {
			checkLeaks(t)
			parent, cancelParent := mk()
			defer cancelParent()
			started := make(chan context.Context, 2)
			out := make(chan ended, 2)
			c, peer := serve(t, &jsonrpc.ConnOptions{
				Context: parent,
				Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					started <- ctx
					if req.Method == "quick" {
						return "done", nil
					}
					select {
					case <-ctx.Done():
					case <-time.After(10 * time.Second):
					}
					out <- ended{ctx.Err(), context.Cause(ctx), ctx.Value(ctxKey{})}
					return nil, nil
				})})

			// Cancel ends a running call's context.
			peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
			wait(t, started, "call 1")
			if !c.Cancel(jsonrpc.Int64ID(1)) {
				t.Fatal("Cancel found no call 1")
			}
			got := wait(t, out, "call 1 to end")
			if !errors.Is(got.err, context.Canceled) || !errors.Is(got.cause, context.Canceled) || got.value != "v" {
				t.Errorf("after Cancel: Err %v, Cause %v, value %v", got.err, got.cause, got.value)
			}

			// A finished call's context has ended.
			peer.send(`{"jsonrpc":"2.0","id":2,"method":"quick"}`)
			ctx := wait(t, started, "call 2")
			if r := peer.recv(); r != `{"jsonrpc":"2.0","id":2,"result":"done"}` {
				t.Fatalf("reply %s", r)
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Error("the context of a call that returned is not done")
			}

			// The end of a cancellable parent cancels a running call.
			peer.send(`{"jsonrpc":"2.0","id":3,"method":"block"}`)
			ctx = wait(t, started, "call 3")
			cancelParent()
			if parent.Done() == nil {
				// Nothing outside can cancel: the call runs on until cancelled.
				select {
				case <-ctx.Done():
					t.Fatal("a call was cancelled by the end of a parent that cannot be cancelled")
				case <-time.After(20 * time.Millisecond):
				}
				c.Cancel(jsonrpc.Int64ID(3))
			}
			got = wait(t, out, "call 3 to end")
			if !errors.Is(got.err, context.Canceled) {
				t.Errorf("call 3 ended with %v", got.err)
			}
		})
	}
}

var errGone = errors.New("parent gone")

// TestCallContextParentCause: calls running when ConnOptions.Context is cancelled
// with a cause end with that cause; a parent's deadline reaches the calls and ends
// them with DeadlineExceeded.
func TestCallContextParentCause(t *testing.T) {
	checkLeaks(t)
	parent, cancel := context.WithCancelCause(context.Background())
	started := make(chan context.Context, 4)
	_, peer := serve(t, &jsonrpc.ConnOptions{
		Context: parent,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- ctx
			<-ctx.Done()
			return nil, nil
		})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`)
	running := []context.Context{wait(t, started, "call 1"), wait(t, started, "call 2")}
	cancel(errGone)
	for i, ctx := range running {
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("call %d not cancelled", i+1)
		}
		if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), errGone) {
			t.Errorf("call %d: Err %v, Cause %v", i+1, ctx.Err(), context.Cause(ctx))
		}
	}
	dl, cancelDL := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelDL()
	_, peer2 := serve(t, &jsonrpc.ConnOptions{
		Context: dl,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- ctx
			<-ctx.Done()
			return nil, nil
		})})
	peer2.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	ctx := wait(t, started, "deadline call")
	if d, ok := ctx.Deadline(); !ok || d.IsZero() {
		t.Error("the parent's deadline is not visible to the call")
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the deadline did not end the call")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("deadline call ended with %v", ctx.Err())
	}
}
