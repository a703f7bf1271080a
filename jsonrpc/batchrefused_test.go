package jsonrpc_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// TestConnBatchFirstCallRefusedAnsweredOnce: a batch whose first call is refused
// (its id still in use by a call in progress) gets one reply holding the
// refusal and the other calls' answers. Before, the refusal was sent at once
// on its own, and again in a second reply with the answers.
func TestConnBatchFirstCallRefusedAnsweredOnce(t *testing.T) {
	checkLeaks(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "hold" {
			started <- struct{}{}
			<-release
		}
		return "ok", nil
	})})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the Conn's own cleanup, which waits for the held call
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	wait(t, started, "the held call")
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"quick"},{"jsonrpc":"2.0","id":2,"method":"quick"}]`)
	got := peer.recv()
	if !strings.HasPrefix(got, "[") || !strings.Contains(got, `"id":null`) || !strings.Contains(got, "id already in use") || !strings.Contains(got, `{"jsonrpc":"2.0","id":2,"result":"ok"}`) {
		t.Fatalf("the batch's reply: %s, want the refusal and id 2's answer in one", got)
	}
	free()
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
		t.Fatalf("after the batch's reply: %s, want the held call's answer (and no second batch reply)", got)
	}
	// Nothing more arrives.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if msg, err := peer.pipe.Read(ctx); err == nil {
		t.Fatalf("a further message: %#v", msg)
	}
}
