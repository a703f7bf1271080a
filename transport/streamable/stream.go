package streamable

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

type streamKind uint8

const (
	kindJSON streamKind = iota // initialize era, JSON mode: carries only the response(s)
	kindSSE                    // initialize era, SSE mode (AlwaysSSE)
	kindAuto                   // initialize era, default: JSON if the response comes first, else SSE
	kindLazy                   // 2026-07-28: JSON if the response comes first, else SSE
	kindGET                    // the session's standalone stream
)

// adaptive reports whether a stream of this kind starts undecided: answered with
// JSON when the response is its first message, switched to SSE otherwise.
func (k streamKind) adaptive() bool { return k == kindAuto || k == kindLazy }

type sendMode uint8

const (
	sendResponse   sendMode = iota // one response
	sendRefusal                    // an id-less error answering a whole batch
	sendBatchReply                 // a batch of responses: the whole reply
)

// stream is one logical stream of a connection: the reply stream of one POST, or the
// session's GET stream. It outlives the HTTP responses that carry it when it is
// resumable: a client may reattach with GET and Last-Event-ID.
//
// Fields above mu are set before the stream is shared and never change.
type stream struct {
	t         *ServerTransport
	num       int64
	kind      streamKind
	resumable bool // events carry ids and go to the event store
	priming   bool // send a priming event when an HTTP response attaches
	batch     bool
	reqs      []*jsonrpc.Request // the requests whose responses end the stream
	one       [1]*jsonrpc.Request
	first     attachment // the POST's own response: the first attachment, not allocated apart

	mu        sync.Mutex
	att       *attachment
	seq       int64 // last event sequence number used
	owed      int   // responses still to come
	collected []jsonrpc.Message
	complete  bool // every response sent (or the connection ended)
	dead      bool // detached for good: nothing more can reach the client
	sse       bool // an adaptive stream switched to SSE
	ever      bool // GET stream: a client attached at least once
}

// attachment is one HTTP response currently carrying a stream. Its ResponseWriter is
// used only under the stream's mu while the attachment is the stream's att; after it
// is detached only the goroutine serving the HTTP request touches it.
type attachment struct {
	w       http.ResponseWriter
	rc      *http.ResponseController // write deadlines and flushes of w
	ctx     context.Context          // the HTTP request's
	timeout time.Duration            // WriteTimeout; <= 0: none
	end     chan struct{}            // closed when the stream lets go of this response
	started bool                     // the status line and headers were written
	keep    *time.Timer
}

func newAttachment(w http.ResponseWriter, ctx context.Context, timeout time.Duration) *attachment {
	a := new(attachment)
	a.init(w, ctx, timeout)
	return a
}

func (a *attachment) init(w http.ResponseWriter, ctx context.Context, timeout time.Duration) {
	*a = attachment{w: w, rc: http.NewResponseController(w), ctx: ctx, timeout: timeout, end: make(chan struct{})}
}

// gone reports whether the client has left: net/http ended the request's context
// because the connection closed. A write could still appear to succeed (the kernel
// takes it before it learns of the peer's close) and be lost, so the stream lets go
// of the response instead, keeping resumable events in the event store. The
// goroutine serving the request notices too, but later when it is busy running the
// call (see runDirect).
func (a *attachment) gone() bool { return a.ctx.Err() != nil }

// write writes b (which may be empty) and flushes it to the client within the
// handler's WriteTimeout. The deadline is set on the connection for this write only
// and cleared after it: net/http keeps a connection's deadline across keep-alive
// requests unless the server has a WriteTimeout of its own, so a stale one would cut
// a later request on the same connection short. An error (the deadline passed, the
// client went away) means the response is broken: the caller lets go of it.
func (a *attachment) write(b []byte) error {
	if a.timeout > 0 {
		// ErrNotSupported (a ResponseWriter that cannot set deadlines): write without.
		_ = a.rc.SetWriteDeadline(time.Now().Add(a.timeout))
		defer a.rc.SetWriteDeadline(time.Time{})
	}
	if len(b) > 0 {
		if _, err := a.w.Write(b); err != nil {
			return err
		}
	}
	if err := a.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

var keepAliveFrame = []byte(":\n\n")

var (
	hdrJSON        = []string{"application/json"}
	hdrEventStream = []string{"text/event-stream"}
	hdrNoCache     = []string{"no-cache"}
	hdrNo          = []string{"no"}
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(bp *[]byte) {
	if cap(*bp) > 64<<10 {
		return
	}
	*bp = (*bp)[:0]
	bufPool.Put(bp)
}

// owns reports whether r is one of the requests this stream answers.
func (st *stream) owns(r *jsonrpc.Request) bool {
	for _, x := range st.reqs {
		if x == r {
			return true
		}
	}
	return false
}

// answers reports whether this stream carries the request with id and method.
func (st *stream) answers(id jsonrpc.ID, method string) bool {
	for _, r := range st.reqs {
		if r.ID == id {
			return r.Method == method
		}
	}
	return false
}

// send writes a response (or a batch reply) and ends the stream once nothing more is
// owed.
func (st *stream) send(ctx context.Context, msg jsonrpc.Message, mode sendMode) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete || st.dead {
		return nil
	}
	final := true
	if mode == sendResponse {
		st.owed--
		final = st.owed <= 0
	}
	var err error
	if st.kind == kindJSON || (st.kind.adaptive() && !st.sse) {
		switch {
		case mode == sendRefusal:
			err = st.writeJSON(msg)
		case st.batch:
			st.collected = appendFlat(st.collected, msg)
			if final {
				err = st.writeJSON(jsonrpc.Batch(st.collected))
			}
		default:
			err = st.writeJSON(msg)
		}
	} else {
		err = st.writeEvent(ctx, msg)
	}
	if final {
		st.finish()
	}
	return err
}

func appendFlat(dst []jsonrpc.Message, msg jsonrpc.Message) []jsonrpc.Message {
	if b, ok := msg.(jsonrpc.Batch); ok {
		return append(dst, b...)
	}
	return append(dst, msg)
}

// sendRelated writes a request or notification if this stream can carry it now or
// on resumption. It reports whether the stream took the message.
func (st *stream) sendRelated(ctx context.Context, msg jsonrpc.Message) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete || st.dead || st.kind == kindJSON {
		return false, nil
	}
	if st.att == nil && !(st.canResume() && (st.kind != kindGET || st.ever)) {
		return false, nil
	}
	if st.kind.adaptive() && !st.sse {
		st.switchSSE(ctx)
	}
	return true, st.writeEvent(ctx, msg)
}

// canResume reports whether a client could reattach to this stream with GET and
// Last-Event-ID: it is resumable, and an adaptive stream has switched to SSE (a
// client holds no event id of a stream that has sent nothing yet).
func (st *stream) canResume() bool {
	return st.resumable && (st.sse || !st.kind.adaptive())
}

// switchSSE turns an adaptive stream into an SSE stream, before its first event: the
// headers, the priming event when the client's revision has them, and any responses
// of a batch collected so far. st.mu is held and st.att is set.
func (st *stream) switchSSE(ctx context.Context) {
	st.sse = true
	if st.priming {
		st.writePriming()
	}
	if len(st.collected) > 0 {
		_ = st.writeEvent(ctx, jsonrpc.Batch(st.collected))
		st.collected = nil
	}
}

// writeEvent frames msg as an SSE event, stores it when the stream is resumable and
// writes it to the attached response, if any. st.mu is held.
func (st *stream) writeEvent(ctx context.Context, msg jsonrpc.Message) error {
	bp := getBuf()
	defer putBuf(bp)
	b := append((*bp)[:0], "event: message\n"...)
	if st.resumable {
		st.seq++
		b = appendEventID(b, st.num, st.seq)
	}
	b = append(b, "data: "...)
	start := len(b)
	b, err := jsonrpc.Encode(b, msg)
	if err != nil {
		*bp = b
		return err
	}
	data := b[start:]
	if st.resumable {
		if err := st.t.h.store.Append(ctx, st.t.id, st.num, st.seq, data); err != nil {
			st.t.h.log.Warn("streamable: event store append failed", "session", st.t.id, "err", err)
		}
	}
	// jsonrpc.Encode never emits a raw line break, so the message is one data line.
	b = append(b, '\n', '\n')
	*bp = b
	if st.att != nil {
		st.writeFrame(b)
	}
	return nil
}

// writeFrame writes bytes already framed as SSE to the attached response and flushes.
func (st *stream) writeFrame(b []byte) {
	a := st.att
	if a.gone() {
		st.lost()
		return
	}
	if !a.started {
		st.startSSE(a)
	}
	if err := a.write(b); err != nil {
		st.lost()
	}
}

func (st *stream) startSSE(a *attachment) {
	h := a.w.Header()
	h["Content-Type"] = hdrEventStream
	h["Cache-Control"] = hdrNoCache
	h["X-Accel-Buffering"] = hdrNo
	a.w.WriteHeader(http.StatusOK)
	a.started = true
	if st.kind == kindGET || st.kind.adaptive() {
		st.startKeepAlive(a)
	}
}

func (st *stream) startKeepAlive(a *attachment) {
	d := st.t.h.opts.KeepAlive
	if d <= 0 || a.keep != nil {
		return
	}
	a.keep = time.AfterFunc(d, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.att != a {
			return
		}
		if a.gone() {
			st.lost()
			return
		}
		if err := a.write(keepAliveFrame); err != nil {
			st.lost()
			return
		}
		a.keep.Reset(d)
	})
}

// writePriming sends the event that gives the client a Last-Event-ID before anything
// else, with the reconnection delay. st.mu is held.
func (st *stream) writePriming() {
	bp := getBuf()
	b := appendEventID((*bp)[:0], st.num, st.seq)
	b = sse.AppendRetryField(b, st.t.h.retryMS)
	b = append(b, "data: \n\n"...)
	*bp = b
	st.writeFrame(b)
	putBuf(bp)
}

// writeJSON writes msg as the whole application/json body. st.mu is held.
func (st *stream) writeJSON(msg jsonrpc.Message) error {
	a := st.att
	if a == nil {
		return nil
	}
	if a.gone() {
		st.lost()
		return nil
	}
	bp := getBuf()
	defer putBuf(bp)
	b, err := jsonrpc.Encode((*bp)[:0], msg)
	*bp = b
	if err != nil {
		return err
	}
	h := a.w.Header()
	h["Content-Type"] = hdrJSON
	// Flushed within the write deadline below, so net/http cannot add the length.
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	status := http.StatusOK
	if st.kind == kindLazy {
		status = modernStatus(msg)
	}
	a.w.WriteHeader(status)
	a.started = true
	if err := a.write(b); err != nil {
		st.lost()
	}
	return nil
}

// modernStatus maps a 2026-07-28 error response to its HTTP status.
func modernStatus(msg jsonrpc.Message) int {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error == nil {
		return http.StatusOK
	}
	switch r.Error.Code {
	case codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return http.StatusBadRequest
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// finish marks the stream complete and lets go of it. st.mu is held.
func (st *stream) finish() {
	st.complete = true
	if st.att != nil && st.seq > 0 && st.resumable && st.kind != kindGET {
		// Every event reached the attached response (a failed write detaches it):
		// nothing is left to resume, so the events need not be kept.
		if d, ok := st.t.h.store.(EventStreamDeleter); ok {
			d.DeleteStream(st.t.id, st.num)
		}
	}
	st.endAttachment()
	st.t.unregister(st)
}

// leave lets go of attachment a, whose HTTP request ended (the client went away)
// while the stream was pending, and forgets the stream unless the client can resume
// it. It reports whether the stream had completed and whether a was ever written to.
func (st *stream) leave(a *attachment) (complete, started bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.att == a {
		st.endAttachment()
	}
	if !st.complete && (!st.canResume() || st.t.closed()) {
		st.abandon()
	}
	return st.complete, a.started
}

// lost handles a failed write: the client is gone. st.mu is held.
func (st *stream) lost() {
	st.endAttachment()
	if !st.canResume() {
		st.abandon()
	}
}

// abandon gives up on a stream that can no longer reach the client. st.mu is held.
func (st *stream) abandon() {
	if st.complete || st.dead || st.kind == kindGET {
		return
	}
	st.dead = true
	st.t.unregister(st)
}

func (st *stream) endAttachment() {
	a := st.att
	if a == nil {
		return
	}
	if a.keep != nil {
		a.keep.Stop()
	}
	close(a.end)
	st.att = nil
}

// cancelled records that the client cancelled the request with id, which this
// stream carries: its response will never come (the connection drops the reply of a
// cancelled request). The id is freed at once; once the stream owes nothing more it
// ends: an SSE response closes, and a response that has sent nothing yet is answered
// 202 Accepted with no body (there is no JSON-RPC message to send, and 202 is what
// clients already expect of a POST that gets none). A batch's responses collected so
// far are still sent.
func (st *stream) cancelled(id jsonrpc.ID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete || st.dead || st.kind == kindGET {
		return
	}
	st.t.unregisterID(st, id)
	st.owed--
	if st.owed > 0 {
		return
	}
	if a := st.att; a != nil && !a.started && !a.gone() {
		if st.batch && len(st.collected) > 0 {
			_ = st.writeJSON(jsonrpc.Batch(st.collected))
		} else {
			a.w.WriteHeader(http.StatusAccepted)
			a.started = true
			if err := a.write(nil); err != nil {
				st.lost()
			}
		}
	}
	st.finish()
}

// closeEarly ends the attached response of a pending SSE stream after a retry field;
// the client resumes with GET and Last-Event-ID.
func (st *stream) closeEarly(ctx context.Context) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete || st.dead || !st.priming {
		return false
	}
	switch {
	case st.kind == kindAuto && !st.sse:
		if st.att == nil {
			return false // the client left before anything was sent: nothing to resume
		}
		st.switchSSE(ctx)
	case st.kind != kindSSE && st.kind != kindAuto:
		return false
	}
	a := st.att
	if a == nil {
		return true
	}
	if !a.started {
		st.startSSE(a)
	}
	bp := getBuf()
	*bp = sse.AppendRetry((*bp)[:0], st.t.h.retryMS)
	_ = a.write(*bp) // the response ends here either way
	putBuf(bp)
	st.endAttachment()
	return true
}

// appendEventID appends "id: <stream>-<seq>\n". Ids are unique across the streams of
// a session and name the stream they belong to.
func appendEventID(b []byte, num, seq int64) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, num, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, seq, 10)
	return append(b, '\n')
}

// parseEventID parses an id made by appendEventID.
func parseEventID(s string) (num, seq int64, ok bool) {
	i := strings.IndexByte(s, '-')
	if i <= 0 {
		return 0, 0, false
	}
	n, err1 := strconv.ParseInt(s[:i], 10, 64)
	q, err2 := strconv.ParseInt(s[i+1:], 10, 64)
	if err1 != nil || err2 != nil || n < 0 || q < 0 {
		return 0, 0, false
	}
	return n, q, true
}
