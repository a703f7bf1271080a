package sse

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/clientaddr"
	"github.com/wiremcp/wiremcp/transport/httpbody"
	"github.com/wiremcp/wiremcp/transport/internal/hostcheck"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// ConnectFunc is called for every new SSE connection (one GET). It must start serving
// t and return without waiting; the connection ends when t.Read returns io.EOF (the
// client went away, or the handler shut down). ctx carries the values of the GET
// request and is cancelled when the connection ends. A returned error answers the GET
// with 500.
type ConnectFunc func(ctx context.Context, t jsonrpc.Transport) error

// HandlerOptions configures a Handler. The zero value (or nil) gives the defaults
// documented on each field. The struct is copied by NewHandler.
type HandlerOptions struct {
	// MessagePath is the path announced in the endpoint event, to which clients POST
	// their messages (with a sessionId query parameter). Empty means the path of the
	// GET request, so one Handler mounted on one route serves both.
	MessagePath string
	// MaxSessions caps the open event streams; a GET beyond it gets 503. Zero means
	// 10000; negative means no cap.
	MaxSessions int
	// MaxSessionsPerClient caps the open event streams of one client: the host of
	// http.Request.RemoteAddr, an IPv4 address as itself and an IPv6 address as
	// its /64 network (a host usually holds a whole /64 and can use any of its
	// addresses; an IPv4-mapped address counts as its IPv4 address). A GET beyond
	// it gets 429. Zero means 1000. Negative means no per-client cap, which is the
	// setting behind a reverse proxy, where every client has the proxy's address.
	MaxSessionsPerClient int
	// MaxBodyBytes caps a POST body; a larger one gets 413. Zero means 4 MiB.
	MaxBodyBytes int64
	// Limits bounds decoding; MaxSize is raised to MaxBodyBytes when smaller.
	Limits jsonrpc.Limits
	// KeepAlive is the period of ":" comment lines on idle streams. Zero means 25
	// seconds; negative disables.
	KeepAlive time.Duration
	// BodyReadTimeout bounds each read of a POST body, set per read with
	// http.ResponseController: a client that stops sending its body for this long
	// gets 400. Zero means 10 seconds; negative disables.
	BodyReadTimeout time.Duration
	// BodyTimeout bounds the reading of a whole POST body: a client that keeps
	// sending a byte now and then gets 408 once it has passed. Zero means 30
	// seconds; negative disables.
	BodyTimeout time.Duration
	// MaxBodyBytesInFlight and MaxBodyBytesInFlightPerClient cap the memory held by
	// POST bodies still arriving, all clients together (503 beyond it) and per
	// client (429; a client as for MaxSessionsPerClient, an IPv6 address counting
	// as its /64), both with Retry-After: 1, as in streamable.HandlerOptions:
	// buffers grow with the bytes received and are counted until the body is read.
	// Zero means 64 MiB and 16 MiB; negative means no cap (per client: the setting
	// behind a reverse proxy); a smaller value than one body of MaxBodyBytes needs
	// is raised to it.
	MaxBodyBytesInFlight          int64
	MaxBodyBytesInFlightPerClient int64
	// WriteTimeout bounds every write (and flush) to an event stream. A stream that
	// cannot take a message within it is closed: Write returns the error, the
	// connection ends (its Read returns io.EOF) and the client must connect again.
	// The deadline is set with http.ResponseController for each write and cleared
	// after it. There is no queue in front of the stream: a writer waits for the
	// previous write, so at most this long. Zero means 10 seconds; negative disables.
	WriteTimeout time.Duration
	// DisableOriginCheck, AllowedOrigins, DisableHostCheck and AllowedHosts work as
	// in streamable.HandlerOptions: a present Origin must match the Host, be a
	// loopback origin on a loopback listener or be listed; on a loopback listener the
	// Host must be a loopback name or be listed. Failures get 403.
	DisableOriginCheck bool
	AllowedOrigins     []string
	DisableHostCheck   bool
	AllowedHosts       []string
	// SessionOwner, when set, names the owner of a request, for example the
	// principal that authorization middleware put in its context (auth.SessionOwner
	// has this shape). A session belongs to the owner of the GET that opened its
	// event stream; a POST naming the session with another owner gets 404, as if
	// the session did not exist. Nil means sessions have no owner.
	SessionOwner func(*http.Request) string
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// Handler serves the 2024-11-05 HTTP+SSE transport: GET opens an event stream whose
// first event, "endpoint", names the URI to POST messages to; POSTs are answered 202
// and replies travel on the stream as "message" events.
type Handler struct {
	connect ConnectFunc
	opts    HandlerOptions
	log     *slog.Logger
	limits  jsonrpc.Limits
	check   *hostcheck.Checker // Host and Origin checks
	body    *httpbody.Reader   // POST bodies (MaxBodyBytes, timeouts, in-flight caps)

	sessions  sync.Map // id → *ServerTransport
	nsessions atomic.Int64
	clientsMu sync.Mutex
	byClient  map[string]int // open streams per client (clientaddr.Key; MaxSessionsPerClient)
	closing   atomic.Bool
}

// NewHandler returns a Handler that calls connect for every event stream. opts may be
// nil.
func NewHandler(connect ConnectFunc, opts *HandlerOptions) *Handler {
	if connect == nil {
		panic("sse: NewHandler with nil ConnectFunc")
	}
	h := &Handler{connect: connect}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.MaxSessions == 0 {
		o.MaxSessions = 10000
	}
	if o.MaxSessionsPerClient == 0 {
		o.MaxSessionsPerClient = 1000
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 25 * time.Second
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 10 * time.Second
	}
	h.body = httpbody.New(httpbody.TransportDefaults(httpbody.Options{Max: o.MaxBodyBytes, ReadTimeout: o.BodyReadTimeout,
		Timeout: o.BodyTimeout, InFlight: o.MaxBodyBytesInFlight, PerClient: o.MaxBodyBytesInFlightPerClient}))
	h.limits = o.Limits
	if h.limits.MaxSize == 0 || int64(h.limits.MaxSize) < o.MaxBodyBytes {
		h.limits.MaxSize = int(o.MaxBodyBytes)
	}
	h.log = o.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.check = hostcheck.New(o.AllowedHosts, o.AllowedOrigins, o.DisableHostCheck, o.DisableOriginCheck)
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.checkHostAndOrigin(w, r) {
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodPost:
		h.servePOST(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		httpError(w, http.StatusMethodNotAllowed, "Method not allowed")
	}
}

// Shutdown ends every event stream (their connections read io.EOF) and refuses new
// ones with 503. ctx bounds nothing here yet; it is taken for symmetry with
// streamable.Handler.Shutdown and future draining.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.closing.Store(true)
	h.sessions.Range(func(_, v any) bool {
		v.(*ServerTransport).Close()
		return true
	})
	return ctx.Err()
}

// ServerTransport is one server-side HTTP+SSE connection (one event stream). Read is
// for one goroutine at a time; Write and Close are safe for concurrent use.
type ServerTransport struct {
	id     string
	owner  string // HandlerOptions.SessionOwner of the GET that opened the stream
	in     chan jsonrpc.Message
	done   chan struct{}
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex // serialises writes to w
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration // WriteTimeout; <= 0: none
	dead    bool
}

// SessionID returns the sessionId of the connection's POST endpoint.
func (t *ServerTransport) SessionID() string { return t.id }

// Read returns the next POSTed message; io.EOF once the stream has ended.
func (t *ServerTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-t.in:
		return m, nil
	default:
	}
	select {
	case m := <-t.in:
		return m, nil
	case <-t.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ErrClosed is returned by Write after the stream has ended.
var ErrClosed = errors.New("sse: connection closed")

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// Write sends msg as a "message" event.
func (t *ServerTransport) Write(ctx context.Context, msg jsonrpc.Message) error {
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 64<<10 {
			*bp = (*bp)[:0]
			bufPool.Put(bp)
		}
	}()
	b := append((*bp)[:0], "event: message\ndata: "...)
	b, err := jsonrpc.Encode(b, msg)
	if err != nil {
		*bp = b
		return err
	}
	b = append(b, '\n', '\n')
	*bp = b
	return t.writeFrame(b)
}

func (t *ServerTransport) writeFrame(b []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead {
		return ErrClosed
	}
	if t.timeout > 0 {
		// Set for this write only: net/http keeps a connection's deadline across
		// requests unless its server has a WriteTimeout.
		_ = t.rc.SetWriteDeadline(time.Now().Add(t.timeout))
		defer t.rc.SetWriteDeadline(time.Time{})
	}
	_, err := t.w.Write(b)
	if err == nil {
		err = t.rc.Flush()
	}
	if err != nil {
		// Too slow or gone: the stream is over, and so is the connection.
		t.dead = true
		go t.Close()
		return err
	}
	return nil
}

// CloseStandaloneStream ends the event stream and with it the connection (over
// HTTP+SSE one stream carries everything, so this is Close; the client connects
// again). mcp calls it for a session too slow to take the notifications queued for
// it, once they start being dropped, so that the client learns it missed some. It
// reports true.
func (t *ServerTransport) CloseStandaloneStream() bool {
	t.Close()
	return true
}

// Close ends the stream. It is safe to call more than once.
func (t *ServerTransport) Close() error {
	t.once.Do(func() {
		t.mu.Lock()
		t.dead = true
		t.mu.Unlock()
		close(t.done)
		t.cancel()
	})
	return nil
}

func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	if h.closing.Load() {
		httpError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	if max := int64(h.opts.MaxSessions); max > 0 && h.nsessions.Add(1) > max {
		h.nsessions.Add(-1)
		httpError(w, http.StatusServiceUnavailable, "Service Unavailable: too many sessions")
		return
	} else if max <= 0 {
		h.nsessions.Add(1)
	}
	defer h.nsessions.Add(-1)
	if per := h.opts.MaxSessionsPerClient; per > 0 {
		addr := clientaddr.Key(r.RemoteAddr)
		h.clientsMu.Lock()
		if h.byClient[addr] >= per {
			h.clientsMu.Unlock()
			httpError(w, http.StatusTooManyRequests, "Too Many Requests: too many sessions from this client address (for IPv6, its /64 network)")
			return
		}
		if h.byClient == nil {
			h.byClient = make(map[string]int)
		}
		h.byClient[addr]++
		h.clientsMu.Unlock()
		defer func() {
			h.clientsMu.Lock()
			if h.byClient[addr]--; h.byClient[addr] <= 0 {
				delete(h.byClient, addr)
			}
			h.clientsMu.Unlock()
		}()
	}
	id := rand.Text()
	t := &ServerTransport{id: id, in: make(chan jsonrpc.Message, 8), done: make(chan struct{}), w: w,
		rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout}
	t.ctx, t.cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	if h.opts.SessionOwner != nil {
		t.owner = h.opts.SessionOwner(r)
	}
	h.sessions.Store(id, t)
	defer h.sessions.Delete(id)
	defer t.Close()

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Connection", "keep-alive")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	path := h.opts.MessagePath
	if path == "" {
		path = r.URL.Path
	}
	endpoint := path + "?sessionId=" + url.QueryEscape(id)
	// The first event MUST be "endpoint", naming where to POST.
	if err := t.writeFrame(sse.AppendEvent(nil, "endpoint", "", 0, []byte(endpoint))); err != nil {
		return
	}
	if h.closing.Load() {
		return
	}
	if err := h.connect(t.ctx, t); err != nil {
		h.log.Error("sse: connect failed", "err", err)
		return
	}
	var tick <-chan time.Time
	if d := h.opts.KeepAlive; d > 0 {
		tk := time.NewTicker(d)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-t.done:
			return
		case <-tick:
			if t.writeFrame([]byte(":\n\n")) != nil {
				return
			}
		}
	}
}

func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		// Also what a Streamable HTTP client probing this URL gets: 400 makes it fall
		// back to this transport.
		httpError(w, http.StatusBadRequest, "Bad Request: sessionId query parameter is required")
		return
	}
	v, ok := h.sessions.Load(id)
	if !ok {
		httpError(w, http.StatusNotFound, "Not Found: unknown session")
		return
	}
	t := v.(*ServerTransport)
	if h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != t.owner {
		httpError(w, http.StatusNotFound, "Not Found: unknown session")
		return
	}
	// The body is JSON and must say so: a missing Content-Type is refused like a
	// wrong one (a form or a text/plain POST a browser may send without preflight).
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	if !strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		httpError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	body, status, text := h.body.Read(w, r)
	if status != 0 {
		httpError(w, status, text)
		return
	}
	msg, err := jsonrpc.Decode(body, &h.limits)
	if err != nil {
		e := jsonrpc.AsError(err)
		rpcError(w, http.StatusBadRequest, e.Code, e.Message)
		return
	}
	setHeader(msg, r.Header)
	select {
	case t.in <- msg:
	case <-t.done:
		httpError(w, http.StatusNotFound, "Not Found: session ended")
		return
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "Accepted")
}

func setHeader(msg jsonrpc.Message, hdr http.Header) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		m.Header = hdr
	case jsonrpc.Batch:
		for _, el := range m {
			if r, ok := el.(*jsonrpc.Request); ok {
				r.Header = hdr
			}
		}
	}
}

func httpError(w http.ResponseWriter, status int, msg string) {
	rpcError(w, status, -32000, msg)
}

func rpcError(w http.ResponseWriter, status int, code int64, msg string) {
	b, _ := jsonrpc.Encode(nil, &jsonrpc.Response{ID: jsonrpc.NullID, Error: &jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// checkHostAndOrigin applies the DNS-rebinding defences and answers 403 on failure.
func (h *Handler) checkHostAndOrigin(w http.ResponseWriter, r *http.Request) bool {
	if msg := h.check.Check(r); msg != "" {
		httpError(w, http.StatusForbidden, msg)
		return false
	}
	return true
}
