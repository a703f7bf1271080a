package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// wireConn is one raw connection to the server under test: a stdio process,
// a Streamable HTTP endpoint or a legacy SSE stream with its POST endpoint.
// Everything the server sends, on whatever stream, lands in the inbox in
// arrival order. send and close may be called from one goroutine at a time;
// the inbox is safe for concurrent use.
type wireConn interface {
	// send delivers one message body. hdr holds extra HTTP headers; it is
	// ignored by stdio. The reply is nil for stdio.
	send(ctx context.Context, body []byte, hdr http.Header) (*HTTPReply, error)
	// box returns the connection's inbox.
	box() *inbox
	// close releases the connection and waits for its goroutines.
	close() error
}

// inbox collects server messages. Readers wait on a channel that is closed
// and replaced whenever a message arrives, so waiting needs no polling.
type inbox struct {
	mu      sync.Mutex
	msgs    []Msg
	changed chan struct{}
	closed  bool
	err     error
}

func newInbox() *inbox { return &inbox{changed: make(chan struct{})} }

// push appends m and wakes waiters.
func (b *inbox) push(m Msg) {
	b.mu.Lock()
	b.msgs = append(b.msgs, m)
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// end marks the inbox finished (the server's output ended) with err.
func (b *inbox) end(err error) {
	b.mu.Lock()
	if !b.closed {
		b.closed, b.err = true, err
		close(b.changed)
		b.changed = make(chan struct{})
	}
	b.mu.Unlock()
}

// all returns a copy of every message so far.
func (b *inbox) all() []Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Msg(nil), b.msgs...)
}

// len returns the number of messages so far.
func (b *inbox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.msgs)
}

// errEnded is returned by wait when the server's output has ended.
type errEnded struct{ cause error }

func (e errEnded) Error() string {
	if e.cause != nil {
		return "server output ended: " + e.cause.Error()
	}
	return "server output ended"
}

// errNoJSONRPC is returned for a request whose HTTP reply carried no
// JSON-RPC message at all (an HTML error page, a plain-text 404): at the
// start of a run it means nothing at the URL speaks MCP.
type errNoJSONRPC struct {
	method string
	reply  *HTTPReply
}

func (e errNoJSONRPC) Error() string {
	// The body on one line: an HTML page would otherwise fill the screen.
	body := strings.Join(strings.Fields(short(e.reply.Body)), " ")
	return fmt.Sprintf("%s: no JSON-RPC response (HTTP %d, Content-Type %q, body %s)", e.method, e.reply.Status, e.reply.Header.Get("Content-Type"), body)
}

// wait returns the first message at index >= from that satisfies pred, with
// its index. It fails when ctx ends or the output ends first.
func (b *inbox) wait(ctx context.Context, from int, pred func(Msg) bool) (Msg, int, error) {
	for {
		b.mu.Lock()
		for i := from; i < len(b.msgs); i++ {
			if pred(b.msgs[i]) {
				m := b.msgs[i]
				b.mu.Unlock()
				return m, i, nil
			}
		}
		from = len(b.msgs)
		if b.closed {
			err := b.err
			b.mu.Unlock()
			return Msg{}, -1, errEnded{err}
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Msg{}, -1, ctx.Err()
		}
	}
}
