package streamable

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/clientaddr"
	"github.com/wiremcp/wiremcp/transport/httpbody"
	"github.com/wiremcp/wiremcp/transport/internal/hostcheck"
)

// Handler serves the Streamable HTTP transport on one endpoint (POST, GET, DELETE).
// It is an http.Handler; the caller owns the http.Server and the route.
type Handler struct {
	connect ConnectFunc
	opts    HandlerOptions
	store   EventStore // nil when resumability is off
	log     *slog.Logger
	retryMS int
	limits  jsonrpc.Limits
	epoch   time.Time
	check   *hostcheck.Checker // Host and Origin checks
	body    *httpbody.Reader   // POST bodies (MaxBodyBytes, timeouts, in-flight caps)

	sessions  sync.Map // session id → *ServerTransport
	nsessions atomic.Int64
	// Sessions that have not completed initialization, oldest first, and the live
	// sessions per client (clientaddr.Key: an address, for IPv6 its /64;
	// MaxSessionsPerClient); under admitMu.
	admitMu  sync.Mutex
	uninit   list.List // of *ServerTransport
	byClient map[string]int
	closing  atomic.Bool
	inflight atomic.Int64 // POSTs in progress
	idle     chan struct{}
	janitor  janitor // idle expiry (session.go)

	attachHook func(sessionID string, stream int64) // tests: a GET attached to a stream
	postHook   func()                               // tests: a POST was served
}

// NewHandler returns a Handler that calls connect for every new logical connection.
// opts may be nil.
func NewHandler(connect ConnectFunc, opts *HandlerOptions) *Handler {
	if connect == nil {
		panic("streamable: NewHandler with nil ConnectFunc")
	}
	h := &Handler{connect: connect, epoch: time.Now(), idle: make(chan struct{}, 1)}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.ProtocolVersions == nil {
		o.ProtocolVersions = DefaultProtocolVersions
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = defaultIdle
	}
	if o.SessionInitTimeout == 0 {
		o.SessionInitTimeout = defaultInit
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = defaultMaxSessions
	}
	if o.MaxSessionsPerClient == 0 {
		o.MaxSessionsPerClient = defaultPerClient
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultMaxBody
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = defaultRetry
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = defaultKeepAlive
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = defaultWrite
	}
	h.body = httpbody.New(httpbody.TransportDefaults(httpbody.Options{Max: o.MaxBodyBytes, ReadTimeout: o.BodyReadTimeout,
		Timeout: o.BodyTimeout, InFlight: o.MaxBodyBytesInFlight, PerClient: o.MaxBodyBytesInFlightPerClient}))
	h.retryMS = int(o.RetryInterval / time.Millisecond)
	if h.retryMS < 1 {
		h.retryMS = 1
	}
	h.limits = o.Limits
	if h.limits.MaxSize == 0 || int64(h.limits.MaxSize) < o.MaxBodyBytes {
		h.limits.MaxSize = int(o.MaxBodyBytes)
	}
	if !o.Stateless && !o.DisableResumability {
		h.store = o.EventStore
		if h.store == nil {
			h.store = NewMemoryEventStore(0, 0)
		}
	}
	h.log = o.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.check = hostcheck.New(o.AllowedHosts, o.AllowedOrigins, o.DisableHostCheck, o.DisableOriginCheck)
	return h
}

func (h *Handler) now() int64 { return int64(time.Since(h.epoch)) }

func (h *Handler) supports(v string) bool {
	for _, s := range h.opts.ProtocolVersions {
		if s == v {
			return true
		}
	}
	return false
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.checkHostAndOrigin(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, http.StatusMethodNotAllowed, "Method not allowed")
	}
}

// Shutdown stops the handler: new sessions and new requests get 503, GET streams end,
// in-flight POSTs may finish until ctx ends, then every session is closed (their
// connections read io.EOF). It returns ctx.Err() if ctx ended first.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.closing.Store(true)
	h.sessions.Range(func(_, v any) bool {
		st := v.(*ServerTransport).get
		st.mu.Lock()
		st.endAttachment()
		st.mu.Unlock()
		return true
	})
	var err error
	for h.inflight.Load() > 0 {
		select {
		case <-h.idle:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	h.sessions.Range(func(_, v any) bool {
		v.(*ServerTransport).Close()
		return true
	})
	h.stopJanitor(ctx)
	return err
}

func (h *Handler) endInflight() {
	if h.postHook != nil {
		h.postHook()
	}
	if h.inflight.Add(-1) == 0 && h.closing.Load() {
		select {
		case h.idle <- struct{}{}:
		default:
		}
	}
}

// forget removes a closed session.
func (h *Handler) forget(t *ServerTransport) {
	if _, ok := h.sessions.LoadAndDelete(t.id); ok {
		h.nsessions.Add(-1)
		h.admitMu.Lock()
		if t.uninit != nil {
			h.uninit.Remove(t.uninit)
			t.uninit = nil
		}
		if t.client != "" {
			if h.byClient[t.client]--; h.byClient[t.client] <= 0 {
				delete(h.byClient, t.client)
			}
		}
		h.admitMu.Unlock()
	}
}

// admit decides whether a new session may open for the client at addr, and counts
// it when it may: 0, or the HTTP status of the refusal. When the client's own share
// (MaxSessionsPerClient) is used up it ends that client's oldest session that has
// not completed initialization and is not busy, and refuses (429) when there is
// none; when the table is full it ends the oldest such session of anyone, and
// refuses (503) when there is none.
func (h *Handler) admit(t *ServerTransport, addr string) int {
	h.admitMu.Lock()
	defer h.admitMu.Unlock()
	per := h.opts.MaxSessionsPerClient
	if addr == "" {
		per = 0
	}
	evicted := false
	if per > 0 && h.byClient[addr] >= per {
		victim := h.evictable(addr)
		if victim == nil {
			return http.StatusTooManyRequests
		}
		h.evict(victim)
		evicted = true // its place in the table is the new session's
	}
	if max := int64(h.opts.MaxSessions); !evicted && max > 0 && h.nsessions.Load() >= max {
		victim := h.evictable("")
		if victim == nil {
			return http.StatusServiceUnavailable
		}
		h.evict(victim)
	}
	h.nsessions.Add(1)
	t.uninit = h.uninit.PushBack(t)
	if per > 0 {
		if h.byClient == nil {
			h.byClient = make(map[string]int)
		}
		h.byClient[addr]++
		t.client = addr
	}
	return 0
}

// evictable returns the oldest session that has not completed initialization and
// has no request in progress, of the client at addr ("": of any client), or nil.
// admitMu is held.
func (h *Handler) evictable(addr string) *ServerTransport {
	for e := h.uninit.Front(); e != nil; e = e.Next() {
		if v := e.Value.(*ServerTransport); v.busy.Load() == 0 && (addr == "" || v.client == addr) {
			return v
		}
	}
	return nil
}

// evict ends victim to make room for a new session. Its count per client address is
// given up at once (the new session takes it); the table's when it is closed.
// admitMu is held.
func (h *Handler) evict(victim *ServerTransport) {
	h.uninit.Remove(victim.uninit)
	victim.uninit = nil
	if c := victim.client; c != "" {
		if h.byClient[c]--; h.byClient[c] <= 0 {
			delete(h.byClient, c)
		}
		victim.client = ""
	}
	h.log.Debug("streamable: session evicted before completing initialization", "session", victim.id)
	// Close calls forget, which takes admitMu: not from here.
	go victim.Close()
}

// initialized records that the client of t completed initialization.
func (h *Handler) initialized(t *ServerTransport) {
	if t.inited.Load() || t.negotiated.Load() == nil {
		return
	}
	t.inited.Store(true)
	h.admitMu.Lock()
	if t.uninit != nil {
		h.uninit.Remove(t.uninit)
		t.uninit = nil
	}
	h.admitMu.Unlock()
}

// completesInit reports whether msg carries notifications/initialized.
func completesInit(msg jsonrpc.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return m.Method == "notifications/initialized" && m.IsNotification()
	case jsonrpc.Batch:
		for _, el := range m {
			if completesInit(el) {
				return true
			}
		}
	}
	return false
}

// lookup returns the live session id that r may use: with SessionOwner set, only
// a request of the session's owner finds it.
func (h *Handler) lookup(r *http.Request, id string) *ServerTransport {
	v, ok := h.sessions.Load(id)
	if !ok {
		return nil
	}
	t := v.(*ServerTransport)
	if t.closed() {
		return nil
	}
	if h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != t.owner {
		return nil
	}
	return t
}

// session returns the live session r's Mcp-Session-Id names (lookup), or nil
// after answering 400 for a request without the header and 404 for an unknown,
// ended or foreign session.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) *ServerTransport {
	sid, ok := first(r.Header, hdrSessionID)
	if !ok {
		writeHTTPError(w, http.StatusBadRequest, "Bad Request: Mcp-Session-Id header is required")
		return nil
	}
	t := h.lookup(r, sid)
	if t == nil {
		writeHTTPError(w, http.StatusNotFound, "Not Found: unknown or expired session")
	}
	return t
}

// Canonical header keys, looked up directly in http.Header maps.
const (
	hdrSessionID   = "Mcp-Session-Id"
	hdrProtocol    = "Mcp-Protocol-Version"
	hdrMethod      = "Mcp-Method"
	hdrName        = "Mcp-Name"
	hdrLastEventID = "Last-Event-Id"
)

// first returns the first value of a header, without surrounding spaces and tabs.
func first(h http.Header, key string) (string, bool) {
	v := h[key]
	if len(v) == 0 {
		return "", false
	}
	return strings.Trim(v[0], " \t"), true
}

func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	h.inflight.Add(1)
	defer h.endInflight()

	// The client MUST accept both kinds of reply; the server picks one.
	if !acceptsBoth(r.Header["Accept"]) {
		writeHTTPError(w, http.StatusNotAcceptable, "Not Acceptable: Accept must list application/json and text/event-stream")
		return
	}
	if !isJSONContentType(r.Header["Content-Type"]) {
		writeHTTPError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	pv, hasPV := first(r.Header, hdrProtocol)
	// A header naming no initialize-era revision marks a 2026-07-28-style request;
	// the MCP layer decides whether it supports that revision (-32022).
	modern := pv != "" && !isLegacyRevision(pv)
	if pv != "" && !modern && !h.supports(pv) {
		writeHTTPError(w, http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+pv)
		return
	}
	body, status, text := h.body.Read(w, r)
	if status != 0 {
		writeRPCError(w, status, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, text)
		return
	}
	msg, err := jsonrpc.Decode(body, &h.limits)
	if err != nil {
		// A malformed body: the JSON-RPC error, with the id when it could be read.
		var id jsonrpc.ID
		if inv, ok := msg.(*jsonrpc.Invalid); ok && !inv.ID.IsNull() {
			id = inv.ID
		}
		e := jsonrpc.AsError(err)
		writeRPCError(w, http.StatusBadRequest, id, e.Code, e.Message)
		return
	}
	sid, hasSID := first(r.Header, hdrSessionID)
	if !modern && !hasSID {
		if req, ok := msg.(*jsonrpc.Request); ok && hasModernMeta(req.Params) {
			modern = true
		}
	}
	if hasPV && pv == "" && !modern {
		// An empty header names no revision: for the initialize era that is an
		// invalid MCP-Protocol-Version, which gets 400 (not the absent header's
		// 2025-03-26, and not a 2026-07-28 answer).
		writeHTTPError(w, http.StatusBadRequest, "Bad Request: empty MCP-Protocol-Version header")
		return
	}
	if modern {
		if pv != "" && !h.supports(pv) && !hasMetaVersion(msg) {
			// Neither an initialize-era revision nor a request of a later one.
			writeHTTPError(w, http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+pv)
			return
		}
		h.serveModern(w, r, msg, pv)
		return
	}
	if b, ok := msg.(jsonrpc.Batch); ok {
		// Batches exist only in 2025-03-26 (the revision assumed when the header is
		// absent); later revisions forbid them.
		if pv != "" && revisionOnOrAfter(pv, "2025-06-18") {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				"Invalid Request: batches are not allowed in protocol revision "+pv)
			return
		}
		for _, el := range b {
			if req, ok := el.(*jsonrpc.Request); ok {
				req.Header = r.Header
			}
		}
	} else if req, ok := msg.(*jsonrpc.Request); ok {
		req.Header = r.Header
	}
	if pv == "" {
		pv = "2025-03-26"
	}

	if h.opts.Stateless {
		if h.closing.Load() {
			writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
			return
		}
		h.serveStateless(w, r, msg, pv, false)
		return
	}
	if hasSID {
		t := h.lookup(r, sid)
		if t == nil {
			// The session ended (or never existed): the client must initialize again.
			writeHTTPError(w, http.StatusNotFound, "Not Found: unknown or expired session")
			return
		}
		if h.closing.Load() && carriesRequest(msg) {
			writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
			return
		}
		t.touch()
		defer t.untouch()
		if completesInit(msg) {
			h.initialized(t)
		}
		h.serveMessage(w, r, t, msg, h.legacyKind(), pv)
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && !req.ID.IsAbsent() {
		h.initialize(w, r, req)
		return
	}
	// A server that uses sessions answers a non-initialize request without one with 400.
	writeHTTPError(w, http.StatusBadRequest, "Bad Request: Mcp-Session-Id header is required")
}

func (h *Handler) legacyKind() streamKind {
	switch {
	case h.opts.JSONResponse:
		return kindJSON
	case h.opts.AlwaysSSE:
		return kindSSE
	}
	return kindAuto
}

// initialize opens a session for an initialize request.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	if h.closing.Load() {
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
		return
	}
	// 128 bits from crypto/rand, base32: visible ASCII only.
	id := rand.Text()
	t := newTransport(context.WithoutCancel(r.Context()), h, id, false)
	switch h.admit(t, clientaddr.Key(r.RemoteAddr)) {
	case http.StatusTooManyRequests:
		t.cancel()
		writeHTTPError(w, http.StatusTooManyRequests, "Too Many Requests: too many sessions from this client address (for IPv6, its /64 network)")
		return
	case http.StatusServiceUnavailable:
		t.cancel()
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: too many sessions")
		return
	}
	if h.opts.SessionOwner != nil {
		t.owner = h.opts.SessionOwner(r)
	}
	t.lastUse.Store(h.now())
	h.sessions.Store(id, t)
	h.armJanitor()
	if h.closing.Load() {
		t.Close()
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
		return
	}
	if err := h.connect(t.ctx, t); err != nil {
		h.log.Error("streamable: connect failed", "err", err)
		t.Close()
		writeHTTPError(w, http.StatusInternalServerError, "Internal Server Error: cannot start the session")
		return
	}
	w.Header()[hdrSessionID] = []string{id}
	t.touch()
	defer t.untouch()
	h.serveMessage(w, r, t, req, h.legacyKind(), initializeVersion(req))
}

// initializeVersion returns the protocolVersion an initialize request asks for.
func initializeVersion(req *jsonrpc.Request) string {
	v, _ := jsonrpc.StringMember(req.Params, "protocolVersion")
	return v
}

// serveStateless serves msg on a connection of its own, closed once answered.
//
// The connection's context is the HTTP request's, on every revision: a 2026-07-28
// client cancels by closing the stream, and for an initialize-era client a
// stateless POST is the only way back — no session, no event store, nothing
// resumes it — so a client that goes away ends the call instead of leaving it to
// run for nobody. (In a session, an initialize-era client's disconnect is not a
// cancellation: it may resume the stream.)
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, pv string, modern bool) {
	t := newTransport(r.Context(), h, "", true)
	if err := h.connect(t.ctx, t); err != nil {
		h.log.Error("streamable: connect failed", "err", err)
		t.Close()
		writeHTTPError(w, http.StatusInternalServerError, "Internal Server Error: cannot start a connection")
		return
	}
	defer t.Close()
	kind := h.legacyKind()
	if modern {
		kind = kindLazy
	}
	h.serveMessage(w, r, t, msg, kind, pv)
}

func carriesRequest(msg jsonrpc.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return !m.IsNotification()
	case jsonrpc.Batch:
		for _, el := range m {
			if r, ok := el.(*jsonrpc.Request); ok && !r.IsNotification() {
				return true
			}
		}
	}
	return false
}

// serveMessage delivers msg to t and answers the POST: 202 when nothing is owed,
// otherwise the response(s) as JSON or on an SSE stream.
func (h *Handler) serveMessage(w http.ResponseWriter, r *http.Request, t *ServerTransport, msg jsonrpc.Message, kind streamKind, pv string) {
	var reqs []*jsonrpc.Request // the calls of a batch
	var single *jsonrpc.Request // or the call that is msg
	var invalid []jsonrpc.Message
	batch, isBatch := msg.(jsonrpc.Batch)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsNotification() {
			single = m
		}
	case jsonrpc.Batch:
		// Invalid elements are answered here; the rest goes to the connection.
		rest := make(jsonrpc.Batch, 0, len(m))
		for _, el := range m {
			switch e := el.(type) {
			case *jsonrpc.Request:
				if !e.IsNotification() {
					reqs = append(reqs, e)
				}
				rest = append(rest, e)
			case *jsonrpc.Invalid:
				invalid = append(invalid, &jsonrpc.Response{ID: e.ID, Error: e.Err})
			default:
				rest = append(rest, el)
			}
		}
		batch = rest
		msg = rest
	}
	ctx := r.Context()
	if single == nil && len(reqs) == 0 {
		if !isBatch || len(batch) > 0 {
			if !t.passDirect(msg) && !t.deliver(ctx, msg) {
				h.connectionGone(w, t)
				return
			}
			if !t.stateless {
				// A cancelled request's response will not come: its POST ends.
				t.noteCancelled(msg)
			}
		}
		if len(invalid) > 0 {
			writeMessageJSON(w, jsonrpc.Batch(invalid))
			return
		}
		// Notifications and responses are accepted with 202 and no body.
		w.WriteHeader(http.StatusAccepted)
		return
	}

	st := &stream{t: t, kind: kind, batch: isBatch, collected: invalid}
	if single != nil {
		st.one[0] = single
		st.reqs = st.one[:]
	} else {
		st.reqs = reqs
	}
	st.owed = len(st.reqs)
	st.resumable = (kind == kindSSE || kind == kindAuto) && h.store != nil && !t.stateless
	// Priming events arrived with 2025-11-25; older clients may choke on empty data.
	// The session's negotiated revision counts, not only this POST's header: a
	// 2025-11-25 client may name an older revision in MCP-Protocol-Version.
	st.priming = st.resumable && revisionOnOrAfter(t.revision(pv), "2025-11-25")
	if !t.register(st) {
		writeRPCError(w, http.StatusBadRequest, st.reqs[0].ID, jsonrpc.CodeInvalidRequest,
			"Invalid Request: a request with this id is already in progress")
		return
	}
	a := &st.first
	a.init(w, r.Context(), h.opts.WriteTimeout)
	st.mu.Lock()
	st.att = a
	if st.priming && kind == kindSSE {
		// An adaptive stream sends its priming event only if it switches to SSE.
		st.writePriming()
	}
	if kind == kindSSE && len(invalid) > 0 {
		_ = st.writeEvent(ctx, jsonrpc.Batch(invalid))
		st.collected = nil
	}
	st.mu.Unlock()

	direct := t.runDirect(st)
	if !direct && !t.deliver(ctx, msg) {
		st.mu.Lock()
		st.abandon()
		st.endAttachment()
		started := a.started
		st.mu.Unlock()
		if !started {
			h.connectionGone(w, t)
		}
		return
	}
	if isBatch && !t.stateless {
		t.noteCancelled(msg)
	}

	gone := false
	select {
	case <-a.end: // at once when the call ran directly and was answered
	default:
		select {
		case <-a.end:
		case <-ctx.Done():
			gone = true
		case <-t.done:
		}
	}
	complete, started := st.leave(a)
	if !started && !gone && !complete {
		h.connectionGone(w, t)
	}
	if gone && !complete && !direct && kind == kindLazy {
		// 2026-07-28: a client that closes the stream cancels the request (a call
		// run directly has returned already: its context descends from ctx).
		t.cancelRequest(st.reqs[0], pv, r.Header)
	}
}

// connectionGone answers a POST whose connection ended before it could be served.
func (h *Handler) connectionGone(w http.ResponseWriter, t *ServerTransport) {
	switch {
	case h.closing.Load():
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
	case t.stateless:
		writeHTTPError(w, http.StatusInternalServerError, "Internal Server Error: connection closed")
	default:
		writeHTTPError(w, http.StatusNotFound, "Not Found: session terminated")
	}
}

// cancelRequest tells the connection that the client abandoned req, in the form the
// MCP layer already understands (notifications/cancelled).
func (t *ServerTransport) cancelRequest(req *jsonrpc.Request, pv string, hdr http.Header) {
	b := append([]byte(`{"requestId":`), req.ID.Raw()...)
	b = append(b, `,"reason":"client disconnected"`...)
	if pv != "" {
		q, _ := json.Marshal(pv)
		b = append(b, `,"_meta":{"io.modelcontextprotocol/protocolVersion":`...)
		b = append(b, q...)
		b = append(b, '}')
	}
	b = append(b, '}')
	n := &jsonrpc.Request{Method: "notifications/cancelled", Params: b, Header: hdr}
	t.ordered.Add(1)
	select {
	case t.in <- n:
	default:
		t.ordered.Add(-1)
	}
}

func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	pv, hasPV := first(r.Header, hdrProtocol)
	if h.opts.Stateless || h.opts.DisableGET || (pv != "" && !isLegacyRevision(pv)) {
		w.Header().Set("Allow", h.allowed())
		writeHTTPError(w, http.StatusMethodNotAllowed, "Method Not Allowed: no standalone SSE stream")
		return
	}
	if hasPV && pv == "" {
		writeHTTPError(w, http.StatusBadRequest, "Bad Request: empty MCP-Protocol-Version header")
		return
	}
	if pv != "" && !h.supports(pv) {
		writeHTTPError(w, http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+pv)
		return
	}
	if _, sse := acceptTypes(r.Header["Accept"]); !sse {
		writeHTTPError(w, http.StatusNotAcceptable, "Not Acceptable: Accept must list text/event-stream")
		return
	}
	t := h.session(w, r)
	if t == nil {
		return
	}
	if h.closing.Load() {
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
		return
	}
	t.touch()
	defer t.untouch()

	st, after, resume := t.get, int64(-1), false
	if last, ok := first(r.Header, hdrLastEventID); ok && last != "" && h.store != nil {
		num, seq, ok := parseEventID(last)
		if !ok {
			writeHTTPError(w, http.StatusBadRequest, "Bad Request: malformed Last-Event-ID")
			return
		}
		t.mu.Lock()
		known := num <= t.lastNum
		if num != 0 {
			st = t.byNum[num]
		}
		t.mu.Unlock()
		if !known {
			writeHTTPError(w, http.StatusBadRequest, "Bad Request: unknown Last-Event-ID")
			return
		}
		if st == nil {
			// The stream already ended: replay what the client missed, then end.
			h.replayEnded(w, r, t, num, seq)
			return
		}
		after, resume = seq, true
	}

	a := newAttachment(w, r.Context(), h.opts.WriteTimeout)
	st.mu.Lock()
	if st.complete {
		st.mu.Unlock()
		if resume {
			h.replayEnded(w, r, t, st.num, after)
		} else {
			writeHTTPError(w, http.StatusNotFound, "Not Found: session terminated")
		}
		return
	}
	if st.att != nil {
		if !resume {
			st.mu.Unlock()
			// One standalone stream per session.
			writeHTTPError(w, http.StatusConflict, "Conflict: a GET stream is already open for this session")
			return
		}
		st.endAttachment() // the client resumed elsewhere: let the old response go
	}
	st.att = a
	st.ever = true
	st.startSSE(a)
	replayed := 0
	if resume && st.resumable {
		err := h.store.Replay(r.Context(), t.id, st.num, after, func(seq int64, data []byte) error {
			replayed++
			return writeStored(a, st.num, seq, data)
		})
		if err != nil {
			st.lost()
		}
	}
	if st.att == a {
		if replayed == 0 && st.resumable && revisionOnOrAfter(t.revision(pv), "2025-11-25") {
			st.writePriming()
		} else if err := a.write(nil); err != nil {
			st.lost()
		}
	}
	st.mu.Unlock()
	if h.attachHook != nil {
		h.attachHook(t.id, st.num)
	}

	select {
	case <-a.end:
	case <-r.Context().Done():
	case <-t.done:
	}
	st.mu.Lock()
	if st.att == a {
		st.endAttachment()
	}
	st.mu.Unlock()
}

// replayEnded answers a resumption of a stream that already ended: the events after
// seq, then the end of the response.
func (h *Handler) replayEnded(w http.ResponseWriter, r *http.Request, t *ServerTransport, num, seq int64) {
	a := newAttachment(w, r.Context(), h.opts.WriteTimeout)
	st := &stream{t: t, num: num}
	st.startSSE(a)
	_ = h.store.Replay(r.Context(), t.id, num, seq, func(seq int64, data []byte) error {
		return writeStored(a, num, seq, data)
	})
	_ = a.write(nil)
}

func writeStored(a *attachment, num, seq int64, data []byte) error {
	bp := getBuf()
	defer putBuf(bp)
	id := appendEventID(nil, num, seq)
	b := appendStoredEvent((*bp)[:0], string(id[4:len(id)-1]), data)
	*bp = b
	return a.write(b)
}

func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	pv, _ := first(r.Header, hdrProtocol)
	if h.opts.Stateless || h.opts.DisableDelete || (pv != "" && !isLegacyRevision(pv)) {
		w.Header().Set("Allow", h.allowed())
		writeHTTPError(w, http.StatusMethodNotAllowed, "Method Not Allowed: sessions cannot be deleted")
		return
	}
	t := h.session(w, r)
	if t == nil {
		return
	}
	t.Close()
	w.WriteHeader(http.StatusOK)
}

func (h *Handler) allowed() string {
	switch {
	case h.opts.Stateless:
		return "POST"
	case h.opts.DisableGET && h.opts.DisableDelete:
		return "POST"
	case h.opts.DisableGET:
		return "POST, DELETE"
	case h.opts.DisableDelete:
		return "GET, POST"
	}
	return "GET, POST, DELETE"
}
