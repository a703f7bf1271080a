package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"
)

// Handler answers requests and notifications. For a notification the result is
// ignored. The result is marshalled with encoding/json unless it is a json.RawMessage
// (used as is). A returned error is sent as AsError(err).
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// ConnOptions configures a Conn. The zero value (or nil) is usable.
type ConnOptions struct {
	// Handler answers incoming requests. Nil answers every call with -32601.
	Handler Handler
	// AcceptBatch decides whether an incoming batch is processed. Nil accepts all.
	// A refused batch is answered with one -32600 error ("id": null).
	AcceptBatch func() bool
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
	// Context is the parent of every handler context: its values are visible to
	// handlers and its cancellation cancels them. Nil means context.Background().
	// Close does not cancel handler contexts (it waits for handlers to return); they
	// are cancelled individually by Cancel, and all at once only after the
	// connection has ended.
	Context context.Context
	// MaxResponseSize bounds what the peer's calls make this side hold and send: a
	// call's result larger than it is replaced by an Internal error (-32603) saying
	// so, and once the results of one batch add up to more than it, each further
	// result of that batch is replaced the same way. Zero means
	// DefaultMaxResponseSize; negative means no limit.
	MaxResponseSize int
	// MaxQueuedNotifications bounds the peer's notifications waiting for the
	// notification worker (the one being handled is not counted). A notification
	// that arrives when that many are queued is dropped and logged: a peer that sends
	// notifications faster than their handlers run loses the excess, never a call or
	// a response. Zero means DefaultMaxQueuedNotifications; negative means no limit.
	MaxQueuedNotifications int
	// WaitWhenQueueFull makes the reader wait, when MaxQueuedNotifications are
	// queued, until the notification worker takes one, instead of dropping the
	// notification: nothing the peer sent is lost, and the peer is slowed down
	// instead (the transport stops being read, so its buffers fill). Without it, a
	// burst larger than the queue is dropped whenever the worker is not scheduled
	// while the reader reads it, however quick the handlers. The cost: while a
	// notification handler that never returns holds the worker, once the queue is
	// full nothing more is read (no call, no response). A Conn whose handlers may
	// block, and whose peer must still be answered, leaves it false.
	WaitWhenQueueFull bool
	// OnDone, if set, is called once when the connection has ended (after Done is
	// closed), on the goroutine that ended it: the reader, or the caller of Close.
	// It must not block; it spares a goroutine waiting on Done.
	OnDone func()
}

// DefaultMaxResponseSize is the default ConnOptions.MaxResponseSize (16 MiB).
const DefaultMaxResponseSize = 16 << 20

// DefaultMaxQueuedNotifications is the default ConnOptions.MaxQueuedNotifications.
const DefaultMaxQueuedNotifications = 1024

// ErrClosed is the error of a Call or Notify on a connection that has ended, and
// what pending Calls fail with when it ends. Err returns it after Close.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Conn is one JSON-RPC connection over a Transport. Exactly one goroutine reads at
// any time, from NewConn until Close or the end of the transport.
//
// Goroutines: the reader reads, matches responses to pending Calls and dispatches
// requests. Each incoming call runs on a goroutine of its own, so calls run
// concurrently and no message waits for another's handler. A call a transport
// passes directly (see Direct) runs on the transport's goroutine instead.
// Notifications run in arrival order on one worker goroutine, started when one is
// queued and ended when none is left (see Async). All of them are owned by the Conn
// and have ended when Done is closed.
//
// When the transport ends (io.EOF or another error), the Conn stops reading, lets
// the handlers that are running finish and send their replies, then closes the
// transport; Err reports why. Close does the same on request.
//
// Call, Notify, Cancel, Close, Done and Err are safe for concurrent use. Close must
// not be called from a handler of the same Conn (it would wait for itself); start a
// goroutine for that.
type Conn struct {
	t           Transport
	handler     Handler
	acceptBatch func() bool
	log         *slog.Logger
	maxResp     int // MaxResponseSize; <= 0: none

	ctx      context.Context // parent of handler contexts; cancelled once everything ended
	cancel   context.CancelFunc
	readCtx  context.Context // cancelled by Close to stop the reader
	stopRead context.CancelFunc

	mu         sync.Mutex
	running    bool // false once the conn started to end: no new work is accepted
	endErr     error
	nextID     int64
	pending    map[ID]chan *Response // our calls awaiting a response
	active     map[ID]*callCtx       // the peer's calls being handled
	notes      []Message             // queued notifications (and responses held behind them), in arrival order
	noteBusy   bool                  // a notification handler is running on the worker
	queued     int                   // notifications in notes
	maxQueued  int                   // ConnOptions.MaxQueuedNotifications (≤ 0: no limit)
	waitRoom   bool                  // ConnOptions.WaitWhenQueueFull
	room       *sync.Cond            // on mu: the worker took a notification, or the conn stopped taking work
	dropped    int64                 // notifications dropped because maxQueued were queued
	noteWorker bool                  // a notification worker goroutine runs (noteLoop)
	onDone     func()

	handlers   sync.WaitGroup // call goroutines and the notification worker
	readerDone chan struct{}
	done       chan struct{}
	closeErr   error // from Transport.Close
}

// NewConn starts serving t. The Conn takes ownership of t: it calls t.Read from its
// reader goroutine only, and t.Close when it ends.
func NewConn(t Transport, opts *ConnOptions) *Conn {
	var o ConnOptions
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxQueuedNotifications == 0 {
		o.MaxQueuedNotifications = DefaultMaxQueuedNotifications
	}
	if o.MaxResponseSize == 0 {
		o.MaxResponseSize = DefaultMaxResponseSize
	}
	parent := o.Context
	if parent == nil {
		parent = context.Background()
	}
	c := &Conn{
		t:           t,
		handler:     o.Handler,
		acceptBatch: o.AcceptBatch,
		log:         o.Logger,
		onDone:      o.OnDone,
		maxResp:     o.MaxResponseSize,
		maxQueued:   o.MaxQueuedNotifications,
		waitRoom:    o.WaitWhenQueueFull,
		running:     true,
		pending:     make(map[ID]chan *Response),
		active:      make(map[ID]*callCtx),
		readerDone:  make(chan struct{}),
		done:        make(chan struct{}),
	}
	c.room = sync.NewCond(&c.mu)
	c.ctx, c.cancel = context.WithCancel(parent)
	c.readCtx, c.stopRead = context.WithCancel(c.ctx)
	if d, ok := t.(Direct); ok {
		d.SetDirect(c.serveDirect)
	}
	go c.readLoop()
	return c
}

// Call sends a request with a fresh id and waits for its response, decoding the
// result into result (if non-nil; a *json.RawMessage receives the raw bytes). An error
// response is returned as *Error. When ctx ends first, Call returns ctx.Err() and
// forgets the id (a late response is dropped); the error is a *CallCanceledError
// naming the id (see CanceledCallID) and errors.Is(err, ctx.Err()) holds.
//
// params is marshalled with encoding/json unless it is a json.RawMessage; nil sends
// no params. It must encode as an object or an array. ctx is passed to
// Transport.Write, so a Call made from a handler's context is routed with the
// request being handled. A Call on an ended connection returns an error wrapping
// ErrClosed, as does a pending Call when the connection ends.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return c.closedErr()
	}
	c.nextID++
	id := Int64ID(c.nextID)
	ch := make(chan *Response, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if rec, ok := ctx.Value(idRecorderKey{}).(func(ID)); ok {
		rec(id)
	}

	if err := c.t.Write(ctx, &Request{ID: id, Method: method, Params: p, Header: headerFrom(ctx)}); err != nil {
		c.forget(id)
		return fmt.Errorf("jsonrpc: call %q: %w", method, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return fmt.Errorf("jsonrpc: call %q: %w", method, c.closedErr())
		}
		if resp.Error != nil {
			return resp.Error
		}
		switch r := result.(type) {
		case nil:
		case *json.RawMessage:
			*r = resp.Result
		case json.Unmarshaler:
			// Straight to the type's decoder: the reader has checked the result
			// already, and json.Unmarshal would check it and skip over it again
			// before calling the same method.
			if err := r.UnmarshalJSON(resp.Result); err != nil {
				return fmt.Errorf("jsonrpc: call %q: decoding the result: %w", method, err)
			}
		default:
			if err := json.Unmarshal(resp.Result, result); err != nil {
				return fmt.Errorf("jsonrpc: call %q: decoding the result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return &CallCanceledError{ID: id, Err: ctx.Err()}
	}
}

func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// closedErr is the error for work refused or failed because the conn ended.
func (c *Conn) closedErr() error {
	c.mu.Lock()
	cause := c.endErr
	c.mu.Unlock()
	if cause == nil || errors.Is(cause, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}

// Notify sends a notification. ctx is passed to Transport.Write. Notify on an ended
// connection returns an error wrapping ErrClosed; while the connection is ending
// (handlers still finishing) notifications are still sent.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	select {
	case <-c.done:
		return c.closedErr()
	default:
	}
	if err := c.t.Write(ctx, &Request{Method: method, Params: p, Header: headerFrom(ctx)}); err != nil {
		return fmt.Errorf("jsonrpc: notify %q: %w", method, err)
	}
	return nil
}

func marshalParams(params any) (json.RawMessage, error) {
	var p json.RawMessage
	switch v := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		p = v
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: marshalling params: %w", err)
		}
		p = b
	}
	if len(p) == 0 {
		return nil, nil
	}
	if c := firstByte(p); c != '{' && c != '[' {
		return nil, errors.New("jsonrpc: params must be a JSON object or array")
	}
	return p, nil
}

// Cancel cancels the context of the in-flight handler for the peer's request id, if
// any. It reports whether a handler was found.
//
// The cancelled request is not answered: its handler's result is dropped, as MCP
// requires of a receiver that got a cancellation notification.
func (c *Conn) Cancel(id ID) bool {
	c.mu.Lock()
	x := c.active[id]
	if x != nil {
		x.cancelled = true
		delete(c.active, id)
	}
	c.mu.Unlock()
	if x == nil {
		return false
	}
	x.cancel()
	return true
}

// Close stops reading, cancels nothing that is running, waits for in-flight handlers to
// return (their replies are still sent if the transport allows), closes the transport
// and fails pending Calls. It is safe to call more than once.
//
// Pending Calls fail (with ErrClosed) as soon as Close starts, so a handler waiting on
// a Call of its own cannot hold Close up. A handler that never returns, or a reply
// blocked on a peer that stops reading, does hold it up: to bound Close, close the
// transport after a deadline, which makes blocked writes fail. Close returns the
// error of Transport.Close.
func (c *Conn) Close() error {
	c.mu.Lock()
	first := c.running
	if first {
		c.running = false
		c.endErr = ErrClosed
		c.room.Broadcast() // a reader waiting for room in the queue (WaitWhenQueueFull) stops
	}
	c.mu.Unlock()
	if first {
		c.stopRead()
		c.drain()
		<-c.readerDone
		c.finish()
	}
	<-c.done
	return c.closeErr
}

// DroppedNotifications reports how many of the peer's notifications were dropped
// because ConnOptions.MaxQueuedNotifications were already waiting.
func (c *Conn) DroppedNotifications() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (nil while it is running; io.EOF for a clean end).
// After Close it is ErrClosed.
func (c *Conn) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endErr
}

// drain fails pending calls, lets the handlers finish and closes the transport. It
// runs once, on the goroutine that ended the conn (Close or the reader).
func (c *Conn) drain() {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	c.handlers.Wait()
	c.closeErr = c.t.Close()
}

func (c *Conn) finish() {
	c.cancel()
	close(c.done)
	if c.onDone != nil {
		c.onDone()
	}
}

// readLoop is the reader goroutine.
func (c *Conn) readLoop() {
	var cause error
	for {
		msg, err := c.t.Read(c.readCtx)
		if err != nil {
			var e *Error
			if c.readCtx.Err() == nil && errors.As(err, &e) {
				// A frame that could not be decoded: answer it and read on.
				c.replyInvalid(msg, err)
				continue
			}
			cause = err
			break
		}
		c.dispatch(msg)
	}
	c.mu.Lock()
	first := c.running
	if first {
		c.running = false
		c.endErr = cause
		c.room.Broadcast() // a direct caller waiting for room in the queue stops
	}
	c.mu.Unlock()
	if !first { // Close is ending the conn and waits for this goroutine.
		close(c.readerDone)
		return
	}
	c.log.Debug("jsonrpc: connection ended", "cause", cause)
	c.drain()
	close(c.readerDone)
	c.finish()
}

// replyInvalid answers a frame the transport could not decode. When the transport
// also returned the *Invalid (as Decode does), its ID says whom to answer; an absent
// ID is a malformed notification, which gets no answer.
func (c *Conn) replyInvalid(msg Message, err error) {
	id := NullID
	if inv, ok := msg.(*Invalid); ok {
		if inv.ID.IsAbsent() {
			c.log.Debug("jsonrpc: dropped a malformed notification", "error", err)
			return
		}
		id = inv.ID
	}
	c.log.Debug("jsonrpc: malformed message", "id", id, "error", err)
	if werr := c.t.Write(c.ctx, &Response{ID: id, Error: AsError(err)}); werr != nil {
		c.log.Warn("jsonrpc: replying to a malformed message", "error", werr)
	}
}

// dispatch handles one message read.
func (c *Conn) dispatch(msg Message) {
	switch m := msg.(type) {
	case *Request:
		if m.IsNotification() {
			c.enqueue(m)
			return
		}
		c.mu.Lock()
		x, err := c.startCall(m, nil)
		c.mu.Unlock()
		if err != nil {
			c.replyRefused(m, err)
		} else if x != nil {
			go c.runCall(x)
		}
	case *Response:
		c.deliverInOrder(m)
	case Batch:
		c.dispatchBatch(m)
	case *Invalid:
		if !m.ID.IsAbsent() {
			c.reply(c.ctx, m)
		}
	}
}

// serveDirect is the Conn's DirectFunc (see Direct). It does what the reader
// does with a message it reads, on the calling goroutine: a call runs there, a
// notification is queued for the notification worker, a response is handed to its
// Call (behind the notifications queued before it).
func (c *Conn) serveDirect(msg Message) bool {
	var req *Request
	switch m := msg.(type) {
	case *Request:
		if m.IsNotification() {
			c.enqueue(m)
			return true
		}
		req = m
	case *Response:
		c.deliverInOrder(m)
		return true
	default:
		return false
	}
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return false
	}
	x, err := c.startCall(req, nil)
	c.mu.Unlock()
	if err != nil {
		c.replyRefused(req, err)
		return true
	}
	c.runCall(x)
	return true
}

// deliverInOrder hands a response to its Call only after every notification that
// arrived before it has been handled (or released with Async): a peer that sends
// progress or log notifications and then the result has them seen by the caller's
// handlers before the Call returns.
func (c *Conn) deliverInOrder(r *Response) {
	c.mu.Lock()
	if c.running && (len(c.notes) > 0 || c.noteBusy) {
		// The worker that runs them delivers r after them.
		c.notes = append(c.notes, r)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.deliver(r)
}

func (c *Conn) deliver(r *Response) {
	c.mu.Lock()
	ch, ok := c.pending[r.ID]
	if ok {
		delete(c.pending, r.ID)
	}
	c.mu.Unlock()
	if ok {
		ch <- r // buffered, and only ever sent once
		return
	}
	if r.Error != nil && (r.ID.IsNull() || r.ID.IsAbsent()) {
		c.log.Warn("jsonrpc: peer reported an error", "code", r.Error.Code, "message", r.Error.Message)
		return
	}
	c.log.Warn("jsonrpc: dropped a response to an unknown id", "id", r.ID)
}

func (c *Conn) reply(ctx context.Context, msg Message) {
	if err := c.t.Write(ctx, msg); err != nil {
		c.log.Warn("jsonrpc: sending a reply", "error", err)
	}
}

// replyRefused answers a call refused before it started (its id is still in use)
// with an id-less error, written with a context that carries req (see
// RequestFromContext) so that a transport can route it to where req came from.
func (c *Conn) replyRefused(req *Request, err *Error) {
	c.reply(&reqCtx{Context: c.ctx, req: req}, &Response{ID: NullID, Error: err})
}

// errIDInUse answers a request whose id is still in use by an earlier request of the
// same peer.
var errIDInUse = &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id already in use by a request in progress"}

// startCall registers an incoming call; c.mu is held. It returns nil, nil when the
// conn no longer takes work.
func (c *Conn) startCall(req *Request, b *batchReply) (*callCtx, *Error) {
	if !c.running {
		c.log.Debug("jsonrpc: dropped a request after close", "method", req.Method)
		return nil, nil
	}
	if _, dup := c.active[req.ID]; dup {
		c.log.Warn("jsonrpc: request id reused while in progress", "id", req.ID)
		return nil, errIDInUse
	}
	x := &callCtx{req: req, batch: b}
	x.Context, x.cancel = context.WithCancel(c.ctx)
	x.write = reqCtx{Context: c.ctx, req: req}
	c.active[req.ID] = x
	c.handlers.Add(1)
	return x, nil
}

// callCtx is the context of one incoming call's handler: cancellable by Cancel,
// carrying the request. write is the context its reply is sent with: the same
// request, not cancellable.
type callCtx struct {
	context.Context
	cancel    context.CancelFunc
	req       *Request
	batch     *batchReply
	cancelled bool // by Cancel; guarded by Conn.mu
	write     reqCtx
}

func (x *callCtx) Value(key any) any {
	if key == (requestKey{}) {
		return x.req
	}
	return x.Context.Value(key)
}

// reqCtx carries a request without adding cancellation.
type reqCtx struct {
	context.Context
	req *Request
}

func (x *reqCtx) Value(key any) any {
	if key == (requestKey{}) {
		return x.req
	}
	return x.Context.Value(key)
}

// runCall runs one incoming call and sends its reply.
func (c *Conn) runCall(x *callCtx) {
	defer c.handlers.Done()
	resp := &Response{ID: x.req.ID}
	result, err := c.handle(x, x.req)
	if err == nil {
		resp.Result, err = marshalResult(result)
	}
	if err == nil && c.maxResp > 0 && len(resp.Result) > c.maxResp {
		err = tooLarge(len(resp.Result), c.maxResp)
	}
	if err != nil {
		resp.Result = nil
		resp.Error = AsError(err)
	}
	x.cancel()
	c.mu.Lock()
	cancelled := x.cancelled
	if !cancelled {
		delete(c.active, x.req.ID)
	}
	c.mu.Unlock()
	if x.batch != nil {
		if cancelled {
			x.batch.add(c, nil)
		} else {
			x.batch.add(c, resp)
		}
		return
	}
	if cancelled {
		c.log.Debug("jsonrpc: not answering a cancelled request", "id", x.req.ID)
		return
	}
	c.reply(&x.write, resp)
}

// handle calls the handler, turning a panic into an internal error.
func (c *Conn) handle(ctx context.Context, req *Request) (result any, err error) {
	if c.handler == nil {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method}
	}
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("jsonrpc: handler panic", "method", req.Method, "id", req.ID,
				"panic", v, "stack", string(debug.Stack()))
			result, err = nil, &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}()
	return c.handler.Handle(ctx, req)
}

// tooLarge is the error that replaces a result over MaxResponseSize.
func tooLarge(n, limit int) *Error {
	return &Error{Code: CodeInternalError,
		Message: fmt.Sprintf("Internal error: a response of %d bytes exceeds the limit of %d bytes", n, limit)}
}

var nullResult = json.RawMessage("null")

func marshalResult(v any) (json.RawMessage, error) {
	switch r := v.(type) {
	case nil:
		return nullResult, nil
	case json.RawMessage:
		if len(r) == 0 {
			return nullResult, nil
		}
		if err := checkRaw(r, encodeMaxDepth); err != nil {
			return nil, &Error{Code: CodeInternalError, Message: "Internal error: handler returned invalid JSON: " + err.Message}
		}
		return r, nil
	case json.Marshaler:
		// The type's own encoder, checked by this package's scanner: json.Marshal
		// would run the same MarshalJSON and then re-read its whole output with
		// encoding/json's slower compactor.
		if p := reflect.ValueOf(v); p.Kind() == reflect.Pointer && p.IsNil() {
			return nullResult, nil
		}
		b, err := r.MarshalJSON()
		if err != nil {
			return nil, &Error{Code: CodeInternalError, Message: "Internal error: " + err.Error()}
		}
		if len(b) == 0 {
			return nil, &Error{Code: CodeInternalError, Message: "Internal error: the result's MarshalJSON returned nothing"}
		}
		if err := checkRaw(b, encodeMaxDepth); err != nil {
			return nil, &Error{Code: CodeInternalError, Message: "Internal error: handler returned invalid JSON: " + err.Message}
		}
		return b, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &Error{Code: CodeInternalError, Message: "Internal error: " + err.Error()}
	}
	return b, nil
}
