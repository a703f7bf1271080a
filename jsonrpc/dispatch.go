package jsonrpc

import (
	"context"
	"sync"
)

// Notifications run one at a time, in arrival order, on the notification worker
// (noteLoop): a goroutine started when a notification is queued and none runs, which
// ends once the queue is empty, so that an idle connection keeps no goroutine for
// them. A handler that calls Async hands the worker role to a new goroutine and
// finishes on its own.

// enqueue queues a notification for the worker, starting one if none runs.
func (c *Conn) enqueue(req *Request) {
	c.mu.Lock()
	// WaitWhenQueueFull: wait for the worker to take one. It takes them whenever it
	// runs, unless a handler holds it; Close wakes this wait.
	for c.waitRoom && c.running && c.maxQueued > 0 && c.queued >= c.maxQueued {
		c.room.Wait()
	}
	if !c.running {
		c.mu.Unlock()
		c.log.Debug("jsonrpc: dropped a notification after close", "method", req.Method)
		return
	}
	if c.maxQueued > 0 && c.queued >= c.maxQueued {
		c.dropped++
		c.mu.Unlock()
		c.log.Warn("jsonrpc: dropped a notification: too many are waiting for their handlers", "method", req.Method, "limit", c.maxQueued)
		return
	}
	c.queued++
	c.notes = append(c.notes, req)
	start := !c.noteWorker
	if start {
		c.noteWorker = true
		c.handlers.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.noteLoop()
	}
}

// noteLoop is the notification worker. It ends when the queue is empty (c.mu held
// while it says so, so that enqueue starts a new one for the next notification), or
// when a handler it runs calls Async (a new worker then carries on if anything is
// queued).
func (c *Conn) noteLoop() {
	defer c.handlers.Done()
	for {
		c.mu.Lock()
		if len(c.notes) == 0 {
			c.noteWorker = false
			c.notes = c.notes[:0:0] // let the backing array go; append reallocates
			c.mu.Unlock()
			return
		}
		item := c.notes[0]
		c.notes[0] = nil
		c.notes = c.notes[1:]
		resp, isResp := item.(*Response)
		if !isResp {
			c.noteBusy = true
			c.queued--
			if c.waitRoom {
				c.room.Signal() // one slot freed: for one caller of enqueue waiting for room
			}
		}
		c.mu.Unlock()
		if isResp {
			c.deliver(resp)
			continue
		}
		released := c.runNote(item.(*Request))
		if released {
			return
		}
		c.mu.Lock()
		c.noteBusy = false
		c.mu.Unlock()
	}
}

// noteCtx is the context of a notification handler.
type noteCtx struct {
	context.Context
	req  *Request
	conn *Conn

	mu    sync.Mutex
	state int // noteRunning, noteReleased (Async was called), noteFinished
}

const (
	noteRunning = iota
	noteReleased
	noteFinished
)

type asyncKey struct{}

func (x *noteCtx) Value(key any) any {
	switch key {
	case requestKey{}:
		return x.req
	case asyncKey{}:
		return x
	}
	return x.Context.Value(key)
}

// runNote runs one notification handler and reports whether it called Async.
func (c *Conn) runNote(req *Request) (released bool) {
	x := &noteCtx{Context: c.ctx, req: req, conn: c}
	if _, err := c.handle(x, req); err != nil {
		c.log.Debug("jsonrpc: notification handler failed", "method", req.Method, "error", err)
	}
	x.mu.Lock()
	released = x.state == noteReleased
	x.state = noteFinished
	x.mu.Unlock()
	return released
}

// Async, called from a notification handler, lets the next notification start
// before this handler returns. It is a no-op elsewhere, and when called again or
// after the handler returned.
//
// The handler goes on running on its own goroutine, which Close still waits for.
func Async(ctx context.Context) {
	x, ok := ctx.Value(asyncKey{}).(*noteCtx)
	if !ok {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state != noteRunning {
		return
	}
	x.state = noteReleased
	c := x.conn
	c.mu.Lock()
	c.noteBusy = false
	// The calling handler is counted in handlers, so Add cannot race with a Wait
	// that has already seen zero.
	start := len(c.notes) > 0
	if start {
		c.handlers.Add(1)
	} else {
		c.noteWorker = false
	}
	c.mu.Unlock()
	if start {
		go c.noteLoop()
	}
}

// batchReply collects the replies to one batch and sends them as one array when
// the last call of the batch has finished (JSON-RPC 2.0 section 6).
type batchReply struct {
	ctx     context.Context // write context: the batch's first call, not cancellable
	mu      sync.Mutex
	replies Batch
	size    int // bytes of the results in replies
	left    int // calls still running, plus one held by dispatchBatch
}

// add records a reply (nil for none) of a finished call and sends the batch's
// replies once nothing is left. A result that would take the batch's results over
// MaxResponseSize is replaced by an error.
func (b *batchReply) add(c *Conn, r Message) {
	b.mu.Lock()
	if resp, ok := r.(*Response); ok && resp.Error == nil && c.maxResp > 0 {
		if b.size+len(resp.Result) > c.maxResp {
			r = &Response{ID: resp.ID, Error: tooLarge(b.size+len(resp.Result), c.maxResp)}
		} else {
			b.size += len(resp.Result)
		}
	}
	if r != nil {
		b.replies = append(b.replies, r)
	}
	b.left--
	send := b.left == 0 && len(b.replies) > 0
	b.mu.Unlock()
	if send {
		c.reply(b.ctx, b.replies)
	}
}

var errBatchRefused = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: batches are not accepted"}

func (c *Conn) dispatchBatch(batch Batch) {
	if c.acceptBatch != nil && !c.acceptBatch() {
		c.reply(c.ctx, &Response{ID: NullID, Error: errBatchRefused})
		return
	}
	b := &batchReply{ctx: c.ctx, left: 1}
	for _, m := range batch {
		if r, ok := m.(*Request); ok && !r.IsNotification() {
			b.ctx = &reqCtx{Context: c.ctx, req: r}
			break
		}
	}
	for _, m := range batch {
		switch m := m.(type) {
		case *Request:
			if m.IsNotification() {
				c.enqueue(m)
				continue
			}
			c.mu.Lock()
			x, err := c.startCall(m, b)
			c.mu.Unlock()
			if err != nil {
				// Counted up before add counts it down: added first, the
				// refusal of a batch's first call was sent alone, and again
				// with the batch's answers.
				b.mu.Lock()
				b.left++
				b.mu.Unlock()
				b.add(c, &Response{ID: NullID, Error: err})
				continue
			}
			if x != nil {
				b.mu.Lock()
				b.left++
				b.mu.Unlock()
				go c.runCall(x)
			}
		case *Response:
			c.deliver(m)
		case *Invalid:
			if !m.ID.IsAbsent() {
				b.mu.Lock()
				b.replies = append(b.replies, m)
				b.mu.Unlock()
			}
		}
	}
	b.add(c, nil)
}
