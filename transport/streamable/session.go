package streamable

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Errors returned by ServerTransport.Write.
var (
	// ErrClosed is returned by Write after the connection has ended.
	ErrClosed = errors.New("streamable: connection closed")
	// ErrNoStream is returned when a server-to-client request has no stream to
	// travel on (no related POST stream, and no GET stream open or resumable).
	ErrNoStream = errors.New("streamable: no stream to carry the message")
)

// ServerTransport is one logical server-side connection: a session, or a single POST
// served without one. Handler creates it and passes it to the ConnectFunc.
//
// Read is for one goroutine at a time; Write and Close are safe for concurrent use.
// Write routes each message to the right HTTP stream: a response to the POST that
// carried its request; a request or notification written with a context whose
// jsonrpc.RequestFromContext is an in-flight request to that request's stream (when
// it is an SSE stream that is still open or resumable); anything else to the
// session's GET stream.
//
// Lock order: a stream's mu may be held while taking the transport's mu, never the
// reverse.
type ServerTransport struct {
	h         *Handler
	id        string // session id; "" without a session
	stateless bool   // no session: one POST
	owner     string // HandlerOptions.SessionOwner of the initialize request
	in        chan jsonrpc.Message
	done      chan struct{}
	closeOnce sync.Once
	ctx       context.Context // given to ConnectFunc; cancelled when the connection ends
	cancel    context.CancelFunc

	mu      sync.Mutex
	byID    map[jsonrpc.ID]*stream // pending POST streams by request id
	byNum   map[int64]*stream      // pending POST streams by stream number
	batches []*stream              // pending batch streams, oldest first
	lastNum int64
	get     *stream // the standalone (GET) stream, number 0; nil without a session

	// negotiated is the protocolVersion of the session's successful initialize
	// result, read from the response on its way out; nil until then.
	negotiated atomic.Pointer[string]

	// direct runs a call on the goroutine of its POST (see direct.go); ordered counts
	// the messages accepted but not yet passed on by the reader, and held whether the
	// reader's last message was one of them (reader only).
	direct  atomic.Pointer[jsonrpc.DirectFunc]
	ordered atomic.Int64
	held    bool

	lastUse atomic.Int64 // h.now() at the last HTTP activity
	busy    atomic.Int32 // HTTP requests in progress on this session
	created int64        // h.now() when the session opened
	inited  atomic.Bool  // the client sent notifications/initialized

	// Admission (guarded by h.admitMu): the session's place among those that have
	// not completed initialization, and the client address it counts against.
	uninit *list.Element
	client string
}

func newTransport(parent context.Context, h *Handler, id string, stateless bool) *ServerTransport {
	t := &ServerTransport{
		h:         h,
		id:        id,
		stateless: stateless,
		in:        make(chan jsonrpc.Message, 8),
		done:      make(chan struct{}),
		created:   h.now(),
	}
	t.ctx, t.cancel = context.WithCancel(parent)
	// Handler contexts descend from t.ctx: the package-level CloseSSEStream finds
	// the transport there.
	t.ctx = context.WithValue(t.ctx, transportKey{}, t)
	if !stateless {
		t.byID = make(map[jsonrpc.ID]*stream)
		t.byNum = make(map[int64]*stream)
		t.get = &stream{t: t, num: 0, kind: kindGET, resumable: h.store != nil}
	}
	return t
}

// SessionID returns the Mcp-Session-Id of the session, or "" for a connection that
// serves a single POST without a session.
func (t *ServerTransport) SessionID() string { return t.id }

// Stateless reports whether this connection serves POSTs without a session: no
// initialize will arrive, so the layer above should treat it as already initialized.
func (t *ServerTransport) Stateless() bool { return t.stateless }

// Read returns the next message a client POSTed. It returns io.EOF once the
// connection has ended (session deleted, expired or shut down; stateless POST
// answered) and every message already accepted has been read.
func (t *ServerTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	if t.held {
		// The Conn is back for more: it has passed the previous message on.
		t.held = false
		t.ordered.Add(-1)
	}
	m, err := t.read(ctx)
	if err == nil {
		t.held = countsForOrder(m)
	}
	return m, err
}

func (t *ServerTransport) read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-t.in:
		return m, nil
	default:
	}
	select {
	case m := <-t.in:
		return m, nil
	case <-t.done:
		select {
		case m := <-t.in:
			return m, nil
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends msg to the client on the stream it belongs to (see the type comment).
// A response whose stream is gone (the client disconnected and the stream cannot be
// resumed) is dropped without error.
func (t *ServerTransport) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-t.done:
		return ErrClosed
	default:
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if m.ID.IsNull() || m.ID.IsAbsent() {
			// A refusal of one request (its id still in use) goes to that request's POST.
			if req, ok := jsonrpc.RequestFromContext(ctx); ok && !req.ID.IsAbsent() {
				if st := t.streamFor(req.ID); st != nil && st.owns(req) {
					return st.send(ctx, msg, sendResponse)
				}
			}
			if st := t.latestBatch(); st != nil {
				return st.send(ctx, msg, sendRefusal)
			}
			return nil
		}
		if st := t.streamFor(m.ID); st != nil {
			if m.Error == nil && !t.stateless && st.answers(m.ID, "initialize") {
				t.noteNegotiated(m.Result)
			}
			return st.send(ctx, msg, sendResponse)
		}
		return nil
	case jsonrpc.Batch:
		for _, el := range m {
			if r, ok := el.(*jsonrpc.Response); ok && !r.ID.IsNull() && !r.ID.IsAbsent() {
				if st := t.streamFor(r.ID); st != nil {
					return st.send(ctx, msg, sendBatchReply)
				}
			}
		}
		if st := t.latestBatch(); st != nil {
			return st.send(ctx, msg, sendBatchReply)
		}
		return nil
	case *jsonrpc.Request:
		if req, ok := jsonrpc.RequestFromContext(ctx); ok && !req.ID.IsAbsent() {
			if st := t.streamFor(req.ID); st != nil && st.owns(req) {
				if delivered, err := st.sendRelated(ctx, msg); delivered {
					return err
				}
			}
		}
		if t.get == nil {
			if m.IsNotification() {
				return nil
			}
			return ErrNoStream
		}
		delivered, err := t.get.sendRelated(ctx, msg)
		if !delivered && err == nil && !m.IsNotification() {
			return ErrNoStream
		}
		return err
	default:
		return errors.New("streamable: cannot write this kind of message")
	}
}

// noteNegotiated records the protocolVersion of an initialize result: the revision
// the session speaks, whatever MCP-Protocol-Version later requests carry.
func (t *ServerTransport) noteNegotiated(result []byte) {
	if v, ok := jsonrpc.StringMember(result, "protocolVersion"); ok && isLegacyRevision(v) {
		t.negotiated.Store(&v)
	}
}

// revision returns the revision that decides the wire details of a request on this
// connection: the newer of the one negotiated at initialize and header, the
// request's MCP-Protocol-Version ("" when absent). A client that negotiated
// 2025-11-25 gets priming events even when one of its requests names an older
// revision in its header.
func (t *ServerTransport) revision(header string) string {
	if p := t.negotiated.Load(); p != nil && *p > header {
		return *p
	}
	return header
}

// Close ends the connection: Read returns io.EOF, open streams end, and a session is
// forgotten (later requests naming it get 404). It is safe to call more than once.
func (t *ServerTransport) Close() error {
	t.closeOnce.Do(t.shutdown)
	return nil
}

func (t *ServerTransport) shutdown() {
	close(t.done)
	t.cancel()
	if t.stateless {
		return
	}
	t.h.forget(t)
	t.mu.Lock()
	streams := make([]*stream, 0, len(t.byNum)+1)
	for _, st := range t.byNum {
		streams = append(streams, st)
	}
	t.mu.Unlock()
	streams = append(streams, t.get)
	for _, st := range streams {
		st.mu.Lock()
		st.complete = true
		st.endAttachment()
		st.mu.Unlock()
	}
	if t.h.store != nil {
		t.h.store.DeleteSession(t.id)
	}
}

func (t *ServerTransport) closed() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *ServerTransport) streamFor(id jsonrpc.ID) *stream {
	t.mu.Lock()
	st := t.byID[id]
	t.mu.Unlock()
	return st
}

func (t *ServerTransport) latestBatch() *stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.batches); n > 0 {
		return t.batches[n-1]
	}
	return nil
}

// register records a new POST stream under the ids of the requests it carries. It
// fails when one of the ids is already pending in this connection.
func (t *ServerTransport) register(st *stream) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = make(map[jsonrpc.ID]*stream, 1)
	}
	for _, r := range st.reqs {
		if _, dup := t.byID[r.ID]; dup {
			return false
		}
	}
	for _, r := range st.reqs {
		t.byID[r.ID] = st
	}
	t.lastNum++
	st.num = t.lastNum
	if t.byNum != nil {
		t.byNum[st.num] = st
	}
	if st.batch {
		t.batches = append(t.batches, st)
	}
	return true
}

// unregisterID forgets that st carries the request with id (it was cancelled).
func (t *ServerTransport) unregisterID(st *stream, id jsonrpc.ID) {
	t.mu.Lock()
	if t.byID[id] == st {
		delete(t.byID, id)
	}
	t.mu.Unlock()
}

// noteCancelled looks at a message the connection has been given: for each
// notifications/cancelled naming a request that a POST stream of this connection
// still owes a response, that stream stops owing it (see stream.cancelled).
func (t *ServerTransport) noteCancelled(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		t.cancelOwed(m)
	case jsonrpc.Batch:
		for _, el := range m {
			if r, ok := el.(*jsonrpc.Request); ok {
				t.cancelOwed(r)
			}
		}
	}
}

func (t *ServerTransport) cancelOwed(r *jsonrpc.Request) {
	if !r.IsNotification() || r.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(r.Params, &p) != nil || p.RequestID.IsAbsent() || p.RequestID.IsNull() {
		return // the connection ignores it too
	}
	if st := t.streamFor(p.RequestID); st != nil {
		st.cancelled(p.RequestID)
	}
}

// unregister forgets a stream that will carry nothing more.
func (t *ServerTransport) unregister(st *stream) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range st.reqs {
		if t.byID[r.ID] == st {
			delete(t.byID, r.ID)
		}
	}
	if t.byNum != nil && t.byNum[st.num] == st {
		delete(t.byNum, st.num)
	}
	if st.batch {
		for i, b := range t.batches {
			if b == st {
				t.batches = append(t.batches[:i], t.batches[i+1:]...)
				break
			}
		}
	}
}

// deliver hands msg to the connection's reader. It reports false when the connection
// ended or ctx was cancelled first.
func (t *ServerTransport) deliver(ctx context.Context, msg jsonrpc.Message) bool {
	counted := countsForOrder(msg)
	if counted {
		t.ordered.Add(1)
	}
	select {
	case t.in <- msg:
		return true
	default:
	}
	select {
	case t.in <- msg:
		return true
	case <-t.done:
	case <-ctx.Done():
	}
	if counted {
		t.ordered.Add(-1)
	}
	return false
}

// touch records HTTP activity (for idle expiry) and marks the session busy until
// untouch.
func (t *ServerTransport) touch() {
	t.lastUse.Store(t.h.now())
	t.busy.Add(1)
}

// untouch ends what touch started.
func (t *ServerTransport) untouch() {
	t.lastUse.Store(t.h.now())
	t.busy.Add(-1)
}

// Idle expiry. One goroutine per Handler, the janitor, looks at the sessions every
// quarter of SessionIdleTimeout while there are any, and closes those without HTTP
// traffic for SessionIdleTimeout: a session expires between 1 and 1.25 times that
// after its last request. (A timer per session cost an allocation and a timer
// insertion and removal per session.) The janitor ends when no session is left and
// is started again by the next one.
type janitor struct {
	mu      sync.Mutex
	on      bool          // the janitor goroutine runs
	stopped bool          // Shutdown: never again
	wake    chan struct{} // the running janitor's: closed by stopJanitor
	done    chan struct{} // closed when the running janitor ends
}

// sweepEvery is the janitor's period.
func (h *Handler) sweepEvery() time.Duration {
	d := h.opts.SessionIdleTimeout
	if i := h.opts.SessionInitTimeout; i > 0 && (d <= 0 || i < d) {
		d = i
	}
	return max(d/4, time.Millisecond)
}

// armJanitor makes sure the janitor runs, after a session started.
func (h *Handler) armJanitor() {
	if h.opts.SessionIdleTimeout <= 0 && h.opts.SessionInitTimeout <= 0 {
		return
	}
	j := &h.janitor
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.on || j.stopped || h.closing.Load() {
		return
	}
	j.on = true
	j.wake = make(chan struct{})
	j.done = make(chan struct{})
	go h.runJanitor(j.wake, j.done)
}

// runJanitor sweeps every sweepEvery while sessions remain.
func (h *Handler) runJanitor(wake, done chan struct{}) {
	defer close(done)
	j := &h.janitor
	tick := time.NewTicker(h.sweepEvery())
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-wake:
			// stopJanitor, seen below. (Shutdown has closed every session by
			// then, so the sweep finds nothing to do.)
		}
		h.sweep()
		j.mu.Lock()
		// nsessions counts a session from the start of its initialize, before
		// armJanitor (which waits for j.mu) would find the janitor still on.
		if j.stopped || h.nsessions.Load() == 0 || h.closing.Load() {
			j.on = false
			j.wake = nil
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
	}
}

// sweep closes the sessions idle for SessionIdleTimeout, and those that have not
// completed initialization within SessionInitTimeout.
func (h *Handler) sweep() {
	idle := int64(h.opts.SessionIdleTimeout)
	init := int64(h.opts.SessionInitTimeout)
	now := h.now()
	h.sessions.Range(func(_, v any) bool {
		t := v.(*ServerTransport)
		if t.busy.Load() != 0 || t.closed() {
			return true
		}
		switch {
		case idle > 0 && now-t.lastUse.Load() >= idle:
			h.log.Debug("streamable: session expired", "session", t.id)
			t.Close()
		case init > 0 && !t.inited.Load() && now-t.created >= init:
			h.log.Debug("streamable: session did not complete initialization", "session", t.id)
			t.Close()
		}
		return true
	})
}

// stopJanitor stops the janitor for good (Shutdown) and waits until it has ended,
// or ctx has.
func (h *Handler) stopJanitor(ctx context.Context) {
	j := &h.janitor
	j.mu.Lock()
	j.stopped = true
	var done chan struct{}
	if j.on {
		close(j.wake)
		j.wake = nil
		done = j.done
	}
	j.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
}

// CloseSSEStream ends the HTTP response carrying the SSE stream of the request whose
// handler ctx belongs to, without ending the logical stream: later messages for that
// request (its response included) are kept and delivered when the client resumes with
// GET and Last-Event-ID. A "retry:" field is sent first. It reports false when there
// is no such stream or it cannot be resumed (JSON responses, stateless connections,
// resumability disabled, or a client of a revision before 2025-11-25: those revisions
// owe the client the response on its stream, which has no priming event to resume
// from).
func (t *ServerTransport) CloseSSEStream(ctx context.Context) bool {
	req, ok := jsonrpc.RequestFromContext(ctx)
	if !ok || req.ID.IsAbsent() {
		return false
	}
	st := t.streamFor(req.ID)
	if st == nil || !st.owns(req) {
		return false
	}
	return st.closeEarly(ctx)
}

// CloseStandaloneStream ends the HTTP response carrying the session's standalone
// (GET) stream, if one is open, without ending the session: the client sees the
// stream end and may open it again (with Last-Event-ID when the stream is
// resumable, for the events that were kept). mcp calls it for a session too slow to
// take the notifications queued for it, once they start being dropped, so that the
// client learns it missed some. It waits for a write in progress on that stream
// (at most HandlerOptions.WriteTimeout). It reports whether a stream was open.
func (t *ServerTransport) CloseStandaloneStream() bool {
	st := t.get
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.att == nil {
		return false
	}
	st.endAttachment()
	return true
}

// transportKey is the context key under which a ServerTransport is found in the
// context it passes to ConnectFunc (and so in every context derived from it).
type transportKey struct{}

// CloseSSEStream is ServerTransport.CloseSSEStream for a handler context: it finds
// the Streamable HTTP stream of the request ctx belongs to, wherever it is served.
// ctx must descend from the context the transport passed to ConnectFunc, as handler
// contexts do when that context is the connection's parent (see ConnectFunc). It
// reports false when ctx is not the context of a request served by a Handler over a
// stream that can be resumed.
func CloseSSEStream(ctx context.Context) bool {
	t, ok := ctx.Value(transportKey{}).(*ServerTransport)
	if !ok {
		return false
	}
	return t.CloseSSEStream(ctx)
}
