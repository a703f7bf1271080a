package streamable

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// replyTailGrace bounds how long a Write keeps reading its POST's SSE stream after
// the last response it awaits: long enough for the end of a stream the server closes
// right away (so the connection is reused), short enough that a server keeping the
// stream open does not hold the caller.
const replyTailGrace = 100 * time.Millisecond

// replyWait is one Write reading an SSE reply: the responses it still awaits, and
// what to stop when the last of them arrives on another stream (the standalone GET
// stream, read by getLoop). It also carries the timer that ends the read of a reply
// stream's tail. replyWaits are pooled.
//
// left, body and cancel are guarded by the transport's mu; every id in left maps to
// this replyWait in the transport's waits. tailBody is guarded by tailMu. tail and
// spent belong to the goroutine running the Write.
type replyWait struct {
	left   []jsonrpc.ID       // responses not yet handed to Read (its own array)
	body   io.Closer          // the stream being read
	cancel context.CancelFunc // ends a resumption in progress; nil before the first

	tailMu   sync.Mutex
	tailBody io.Closer   // closed when tail fires
	tail     *time.Timer // created on first use, then reset
	spent    bool        // tail may have fired: never reuse this replyWait
}

var waitPool sync.Pool // of *replyWait

// startWait registers a Write awaiting the responses to the requests want names.
func (t *ClientTransport) startWait(want []jsonrpc.ID) *replyWait {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.startWaitLocked(want)
}

// startWaitLocked is startWait with t.mu held.
func (t *ClientTransport) startWaitLocked(want []jsonrpc.ID) *replyWait {
	w, _ := waitPool.Get().(*replyWait)
	if w == nil {
		w = new(replyWait)
	}
	w.left = append(w.left[:0], want...)
	if t.waits == nil {
		t.waits = make(map[jsonrpc.ID]*replyWait)
	}
	for _, id := range want {
		t.waits[id] = w
	}
	return w
}

// endWait unregisters w once its Write is done with it.
func (t *ClientTransport) endWait(w *replyWait) {
	t.mu.Lock()
	t.clearLocked(w)
	w.body, w.cancel = nil, nil
	t.mu.Unlock()
	if !w.spent {
		waitPool.Put(w)
	}
}

// takeLocked records that the response with id was handed to Read and reports
// whether w awaited it. t.mu is held.
func (t *ClientTransport) takeLocked(w *replyWait, id jsonrpc.ID) bool {
	for i, x := range w.left {
		if x == id {
			n := len(w.left) - 1
			w.left[i] = w.left[n]
			w.left = w.left[:n]
			if t.waits[id] == w {
				delete(t.waits, id)
			}
			return true
		}
	}
	return false
}

// clearLocked drops every id w still awaits. t.mu is held.
func (t *ClientTransport) clearLocked(w *replyWait) {
	for _, id := range w.left {
		if t.waits[id] == w {
			delete(t.waits, id)
		}
	}
	w.left = w.left[:0]
}

// waitOver reports whether every response w awaited has been handed to Read.
func (t *ClientTransport) waitOver(w *replyWait) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(w.left) == 0
}

// deliverUnrelated hands a message from the standalone GET stream to Read. When it
// is the last response a Write awaits, that Write stops reading its own stream (or
// waiting to resume it) and returns.
func (t *ClientTransport) deliverUnrelated(m jsonrpc.Message) {
	t.deliver(m)
	switch r := m.(type) {
	case *jsonrpc.Response:
		t.arrivedElsewhere(r.ID)
	case jsonrpc.Batch:
		for _, el := range r {
			if e, ok := el.(*jsonrpc.Response); ok {
				t.arrivedElsewhere(e.ID)
			}
		}
	}
}

func (t *ClientTransport) arrivedElsewhere(id jsonrpc.ID) {
	t.mu.Lock()
	w := t.waits[id]
	if w == nil || !t.takeLocked(w, id) || len(w.left) > 0 {
		t.mu.Unlock()
		return
	}
	body, cancel := w.body, w.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if body != nil {
		body.Close() // the Write's read fails at once and it sees that nothing is left
	}
}

// arm starts the tail timer: body is closed if it has not ended within d.
func (w *replyWait) arm(body io.Closer, d time.Duration) {
	w.tailMu.Lock()
	w.tailBody = body
	w.tailMu.Unlock()
	if w.tail == nil {
		w.tail = time.AfterFunc(d, w.expire)
	} else {
		w.tail.Reset(d)
	}
}

// disarm stops the tail timer after the stream ended.
func (w *replyWait) disarm() {
	if !w.tail.Stop() {
		// expire ran or is about to: it may still look at tailBody, so this
		// replyWait is not reused.
		w.spent = true
	}
	w.tailMu.Lock()
	w.tailBody = nil
	w.tailMu.Unlock()
}

func (w *replyWait) expire() {
	w.tailMu.Lock()
	b := w.tailBody
	w.tailBody = nil
	w.tailMu.Unlock()
	if b != nil {
		b.Close()
	}
}
