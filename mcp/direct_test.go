package mcp

import (
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// directPipe is a memory pipe that also offers jsonrpc.Direct, keeping the
// DirectFunc the session's connection gives it.
type directPipe struct {
	*memory.Pipe
	serve chan jsonrpc.DirectFunc
}

func (p *directPipe) SetDirect(serve jsonrpc.DirectFunc) { p.serve <- serve }

// TestSessionPassesDirectThrough: a server session hands its transport's
// jsonrpc.Direct to the connection (through the wrapper it reads with), so that
// messages passed directly are served: a notification, then a call whose reply has
// been written when the DirectFunc returns.
func TestSessionPassesDirectThrough(t *testing.T) {
	leaktest.Check(t)
	ctx := testCtx(t)
	a, b := memory.NewPair()
	p := &directPipe{Pipe: a, serve: make(chan jsonrpc.DirectFunc, 1)}
	s := newTestServer()
	ss, err := s.Connect(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	defer b.Close()
	var serve jsonrpc.DirectFunc
	select {
	case serve = <-p.serve:
	default:
		t.Fatal("Connect did not pass a DirectFunc to the transport")
	}
	decode := func(line string) jsonrpc.Message {
		m, err := jsonrpc.Decode([]byte(line), nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	w := &wire{t: t, pipe: b, ctx: ctx}
	if !serve(decode(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"d","version":"1"}}}`)) {
		t.Fatal("initialize was not served directly")
	}
	if got := w.recv(); !strings.Contains(got, `"id":1,"result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize reply: %s", got)
	}
	if !serve(decode(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)) {
		t.Fatal("notifications/initialized was not taken directly")
	}
	// A call is served directly unless the notification is still queued or running;
	// either way it is answered.
	ping := decode(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if !serve(ping) {
		w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	}
	if got := w.recv(); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping reply: %s", got)
	}
}

// TestSessionForgottenWhenItEnds: the server lists a session until its connection
// ends, and not after Close returns.
func TestSessionForgottenWhenItEnds(t *testing.T) {
	s := newTestServer()
	_, ss := pair(t, s, nil)
	if got := s.Sessions(); len(got) != 1 || got[0] != ss {
		t.Fatalf("Sessions() = %v, want the one session", got)
	}
	ss.Close()
	if got := s.Sessions(); len(got) != 0 {
		t.Fatalf("Sessions() after Close = %v, want none", got)
	}
}
