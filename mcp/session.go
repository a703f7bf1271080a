package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// ServerSession is one client's connection to a Server. Its methods are safe for
// concurrent use.
type ServerSession struct {
	server *Server
	conn   *jsonrpc.Conn
	ctx    context.Context // for messages sent outside any request
	id     string          // transport session id, if any
	// stateless: no initialize will come (Streamable HTTP stateless mode, or a single
	// 2026-07-28 request); every request stands alone.
	stateless bool
	ended     bool // the connection has ended; guarded by server.mu

	mu         sync.Mutex
	state      sessionState
	rev        *revision
	caps       *ServerCapabilities // what we declared at initialize
	clientCaps *ClientCapabilities
	clientInfo *Implementation
	logLevel   LoggingLevel        // "" until logging/setLevel
	subs       map[string]struct{} // made on the first subscription
	urlElicits map[string]struct{} // made on the first URL-mode elicitation
	stopOnce   sync.Once
	stopping   chan struct{} // closed when the transport ends or Close starts

	// The outbox (outbox.go): notifications related to no request, written by a
	// goroutine of the session in order.
	outMu     sync.Mutex
	out       []outNote
	outWorker bool  // drainOutbox runs
	dropped   int64 // notifications dropped because out was full
	toldDrop  bool  // the standalone stream was ended for the current overflow
	// closer ends the transport's standalone stream, when it has one (outbox.go).
	closer standaloneCloser
}

// watchedTransport tells the session when its transport stops delivering messages,
// so that long-lived handlers (subscriptions/listen) can end and let the connection
// close.
type watchedTransport struct {
	jsonrpc.Transport
	ss *ServerSession
	// ready is closed once the session is complete (its conn set): nothing the
	// peer sends is handled before, whether it is read or passed directly.
	ready chan struct{}
}

func (w *watchedTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-w.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m, err := w.Transport.Read(ctx)
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			w.ss.stop()
		}
	}
	return m, err
}

// SetDirect passes jsonrpc.Direct through to the transport, so that Streamable
// HTTP runs calls on their POST's goroutine (an embedded interface promotes only
// the Transport methods themselves).
func (w *watchedTransport) SetDirect(serve jsonrpc.DirectFunc) {
	if d, ok := w.Transport.(jsonrpc.Direct); ok {
		d.SetDirect(func(m jsonrpc.Message) bool {
			<-w.ready
			return serve(m)
		})
	}
}

func (ss *ServerSession) stop() { ss.stopOnce.Do(func() { close(ss.stopping) }) }

type sessionState int

const (
	stateNew         sessionState = iota // before initialize
	stateInitialized                     // initialize answered
)

func newServerSession(ctx context.Context, s *Server, t jsonrpc.Transport) *ServerSession {
	ss := &ServerSession{
		server:   s,
		ctx:      context.WithoutCancel(ctx),
		stopping: make(chan struct{}),
	}
	if st, ok := t.(interface{ Stateless() bool }); ok && st.Stateless() {
		ss.stateless = true
	}
	if si, ok := t.(interface{ SessionID() string }); ok {
		ss.id = si.SessionID()
	}
	// The session is listed, and the peer's messages handled, only once ss.conn is
	// set: a broadcast (ResourceUpdated, Log) or a handler may use it at once.
	ss.closer, _ = t.(standaloneCloser)
	wt := &watchedTransport{Transport: t, ss: ss, ready: make(chan struct{})}
	defer close(wt.ready)
	ss.conn = jsonrpc.NewConn(wt, &jsonrpc.ConnOptions{
		Handler:     jsonrpc.HandlerFunc(ss.handle),
		AcceptBatch: ss.acceptBatch,
		Logger:      s.log,
		// The transport's context (for HTTP, the request's): its values reach the
		// handlers, and its end cancels them.
		Context: ctx,
		OnDone:  func() { s.sessionEnded(ss) },
	})
	s.mu.Lock()
	if !ss.ended { // the connection may have ended already (its context was done)
		s.sessions[ss] = struct{}{}
	}
	s.mu.Unlock()
	return ss
}

// sessionEnded forgets a session whose connection has ended.
func (s *Server) sessionEnded(ss *ServerSession) {
	s.mu.Lock()
	delete(s.sessions, ss)
	ss.ended = true
	s.mu.Unlock()
	if s.tasks != nil {
		s.tasks.sessionEnded(ss)
	}
}

// ID returns the transport's session id (Streamable HTTP), or "".
func (ss *ServerSession) ID() string { return ss.id }

// ProtocolVersion returns the negotiated revision ("" before initialize).
func (ss *ServerSession) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.rev == nil {
		return ""
	}
	return ss.rev.name
}

// ClientCapabilities returns what the client declared (nil before initialize).
func (ss *ServerSession) ClientCapabilities() *ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.clientCaps
}

// ClientInfo returns the client's Implementation (nil before initialize).
func (ss *ServerSession) ClientInfo() *Implementation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.clientInfo
}

// Close ends the session: it stops reading, waits for running handlers and closes
// the transport.
func (ss *ServerSession) Close() error {
	ss.stop()
	return ss.conn.Close()
}

// Wait blocks until the session has ended.
func (ss *ServerSession) Wait() { <-ss.conn.Done() }

// Done is closed when the session has ended.
func (ss *ServerSession) Done() <-chan struct{} { return ss.conn.Done() }

func (ss *ServerSession) acceptBatch() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	// SPEC NOTE: batches exist only in 2025-03-26; before initialize nothing may be
	// batched (initialize itself must not be).
	if ss.stateless {
		// No handshake on this connection: a request without MCP-Protocol-Version is
		// 2025-03-26, which has batches (the HTTP transport refuses a batch whose
		// header names a later revision before it gets here).
		return true
	}
	return ss.rev != nil && ss.rev.batches
}

// requestInfo is the per-request state a handler's context carries.
type requestInfo struct {
	ss            *ServerSession
	req           *jsonrpc.Request
	rev           *revision
	clientCaps    *ClientCapabilities
	progressToken json.RawMessage
	logLevel      LoggingLevel         // per-request level (2026-07-28), overrides the session's
	modernLogging bool                 // 2026-07-28: log only when the request set a level
	mrtr          *mrtrState           // 2026-07-28 tools/call, prompts/get, resources/read
	autoSeq       int                  // numbering of automatic input keys; guarded by mu
	task          atomic.Pointer[task] // the task the handler runs as, if any
	starter       *deferredStart       // set when the handler may call StartTask
	parent        context.Context      // the handler's context without ri (see context)

	mu           sync.Mutex
	lastProgress float64
	sentProgress bool
	done         atomic.Bool // the response has been produced
}

type requestInfoKey struct{}

// context returns parent carrying ri (see requestInfoFrom). ri is the context
// itself, which spares the allocation of context.WithValue; it must not be in use
// as a context already.
func (ri *requestInfo) context(parent context.Context) context.Context {
	ri.parent = parent
	return (*requestCtx)(ri)
}

// requestCtx is a requestInfo seen as the context of its handler.
type requestCtx requestInfo

func (c *requestCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *requestCtx) Done() <-chan struct{}       { return c.parent.Done() }
func (c *requestCtx) Err() error                  { return c.parent.Err() }
func (c *requestCtx) Value(key any) any {
	if key == (requestInfoKey{}) {
		return (*requestInfo)(c)
	}
	return c.parent.Value(key)
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return ri
}

// method describes how the server answers one request method.
type method struct {
	// gate reports whether the capability this method needs was declared.
	gate   func(c *ServerCapabilities) bool
	handle func(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error)
}

var serverMethods = buildServerMethods()

func buildServerMethods() map[string]*method {
	always := func(*ServerCapabilities) bool { return true }
	tools := func(c *ServerCapabilities) bool { return c.Tools != nil }
	resources := func(c *ServerCapabilities) bool { return c.Resources != nil }
	subscribe := func(c *ServerCapabilities) bool { return c.Resources != nil && c.Resources.Subscribe }
	prompts := func(c *ServerCapabilities) bool { return c.Prompts != nil }
	logging := func(c *ServerCapabilities) bool { return c.Logging != nil }
	tasks := func(c *ServerCapabilities) bool { return len(c.Tasks) > 0 }
	return map[string]*method{
		"tasks/get":                {tasks, handleTaskGet},
		"tasks/result":             {tasks, handleTaskResult},
		"tasks/list":               {tasks, handleTaskList},
		"tasks/cancel":             {tasks, handleTaskCancel},
		"ping":                     {always, handlePing},
		"tools/list":               {tools, handleListTools},
		"tools/call":               {tools, handleCallTool},
		"resources/list":           {resources, handleListResources},
		"resources/templates/list": {resources, handleListTemplates},
		"resources/read":           {resources, handleReadResource},
		"resources/subscribe":      {subscribe, handleSubscribe},
		"resources/unsubscribe":    {subscribe, handleUnsubscribe},
		"prompts/list":             {prompts, handleListPrompts},
		"prompts/get":              {prompts, handleGetPrompt},
		"logging/setLevel":         {logging, handleSetLevel},
		"completion/complete":      {always, handleComplete},
	}
}

// handle is the jsonrpc handler of the session.
func (ss *ServerSession) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		ss.handleNotification(ctx, req)
		return nil, nil
	}
	if meta, ok := classify(req); ok {
		return ss.handleModern(ctx, req, meta)
	}
	if req.Method == "initialize" {
		return ss.initialize(ctx, req)
	}
	m := serverMethods[req.Method]
	if m == nil {
		return nil, methodNotFound("method %q not found", req.Method)
	}
	ss.mu.Lock()
	state, rev, caps, clientCaps, level := ss.state, ss.rev, ss.caps, ss.clientCaps, ss.logLevel
	ss.mu.Unlock()
	if state == stateNew && req.Method != "ping" {
		if !ss.stateless {
			// SPEC NOTE: the specification leaves requests before initialize undefined;
			// we refuse them with -32600 so that a client cannot skip negotiation.
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "session not initialized: send initialize first (method %q)", req.Method)
		}
		rev = ss.statelessRevision(req)
		caps = ss.capabilities(rev)
		clientCaps = &ClientCapabilities{}
	}
	if rev == nil {
		rev = lookupRevision(LatestInitializeRevision)
		caps = ss.capabilities(rev)
	}
	if !m.gate(caps) && !(req.Method == "completion/complete" && !rev.completionsCap && ss.server.opts.CompletionHandler != nil) {
		return nil, methodNotFound("method %q is not supported: the server did not declare its capability", req.Method)
	}
	ri := &requestInfo{ss: ss, req: req, rev: rev, clientCaps: clientCaps, logLevel: level}
	ri.progressToken = progressTokenOf(req.Params)
	ctx = ri.context(ctx)
	res, err := m.handle(ctx, ss, ri)
	ri.done.Store(true)
	return res, err
}

// capabilities is what the server declares to this session's client of revision
// rev. A connection of a stateless transport (a stateless Streamable HTTP POST)
// lasts one request, so an initialize-era client on it can be sent nothing later:
// no list_changed and no resources/updated. Its tools, resources and prompts are
// declared without listChanged, and resources without subscribe (resources/subscribe
// is then refused: nothing could be delivered). A 2026-07-28 client subscribes
// with subscriptions/listen, a stream of its own, and keeps them.
func (ss *ServerSession) capabilities(rev *revision) *ServerCapabilities {
	caps := ss.server.capabilities(rev)
	if !ss.stateless || rev.stateless {
		return caps
	}
	if caps.Tools != nil {
		caps.Tools = &ListChangedCapability{}
	}
	if caps.Prompts != nil {
		caps.Prompts = &ListChangedCapability{}
	}
	if caps.Resources != nil {
		caps.Resources = &ResourcesCapability{}
	}
	return caps
}

// statelessRevision picks the revision of a request on a stateless connection: the
// MCP-Protocol-Version header when present and supported, else 2025-03-26 (what the
// specification says to assume when the header is absent).
func (ss *ServerSession) statelessRevision(req *jsonrpc.Request) *revision {
	for k, v := range req.Header {
		if strings.EqualFold(k, "Mcp-Protocol-Version") && len(v) > 0 {
			if r := lookupRevision(strings.TrimSpace(v[0])); r != nil && !r.stateless {
				return r
			}
		}
	}
	return lookupRevision(Revision20250326)
}

// progressTokenOf extracts params._meta.progressToken, keeping its exact JSON.
func progressTokenOf(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return nil
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	t := p.Meta.ProgressToken
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	return t
}

func (ss *ServerSession) initialize(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p InitializeParams
	if err := unmarshalParams(req.Params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, invalidParams("initialize: protocolVersion is required")
	}
	rev := negotiate(p.ProtocolVersion)
	caps := ss.capabilities(rev)
	ss.mu.Lock()
	if ss.state != stateNew {
		ss.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "session already initialized")
	}
	ss.state = stateInitialized
	ss.rev = rev
	ss.caps = caps
	ss.clientCaps = p.Capabilities
	if ss.clientCaps == nil {
		ss.clientCaps = &ClientCapabilities{}
	}
	ss.clientInfo = p.ClientInfo
	ss.mu.Unlock()
	info := downgradeImplementation(&ss.server.impl, rev)
	return &InitializeResult{
		ProtocolVersion: rev.name,
		Capabilities:    caps,
		ServerInfo:      info,
		Instructions:    ss.server.opts.Instructions,
	}, nil
}

func (ss *ServerSession) handleNotification(ctx context.Context, req *jsonrpc.Request) {
	switch req.Method {
	case "notifications/initialized":
		if h := ss.server.opts.InitializedHandler; h != nil {
			jsonrpc.Async(ctx)
			h(ctx, ss)
		}
	case "notifications/cancelled":
		var p CancelledNotificationParams
		if json.Unmarshal(req.Params, &p) != nil || len(p.RequestID) == 0 {
			return // malformed cancellations are ignored
		}
		id, err := jsonrpc.RawID(p.RequestID)
		if err != nil {
			return
		}
		ss.conn.Cancel(id)
	case "notifications/roots/list_changed":
		if h := ss.server.opts.RootsListChangedHandler; h != nil {
			jsonrpc.Async(ctx)
			h(ctx, ss)
		}
	}
	// Unknown notifications are ignored, as the specification requires.
}

// unmarshalParams decodes params into v; absent params decode as {}.
func unmarshalParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = []byte("{}")
	}
	if err := checkMemberCase(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// notify queues a notification outside any request (list changes, updates) for the
// session's outbox; it never waits for the client. ctx's values travel with it, not
// its cancellation.
func (ss *ServerSession) notify(ctx context.Context, method string, params any) error {
	ss.mu.Lock()
	state := ss.state
	ss.mu.Unlock()
	if state == stateNew || ss.stateless {
		return ErrNotInitialized
	}
	if ctx == nil {
		ctx = ss.ctx
	} else {
		ctx = context.WithoutCancel(ctx)
	}
	if !ss.enqueue(outNote{ctx: ctx, method: method, params: params}) {
		return ErrQueueFull
	}
	return nil
}

func (ss *ServerSession) notifyListChanged(c changeSet) {
	ss.mu.Lock()
	caps, state := ss.caps, ss.state
	ss.mu.Unlock()
	if state == stateNew || caps == nil {
		return
	}
	// Only features whose listChanged was declared are announced.
	if c.tools && caps.Tools != nil && caps.Tools.ListChanged {
		_ = ss.notify(ss.ctx, "notifications/tools/list_changed", nil)
	}
	if c.resources && caps.Resources != nil && caps.Resources.ListChanged {
		_ = ss.notify(ss.ctx, "notifications/resources/list_changed", nil)
	}
	if c.prompts && caps.Prompts != nil && caps.Prompts.ListChanged {
		_ = ss.notify(ss.ctx, "notifications/prompts/list_changed", nil)
	}
}

func (ss *ServerSession) subscribed(uri string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.subs[uri]; ok {
		return true
	}
	for s := range ss.subs {
		if strings.HasPrefix(uri, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}

// revisionFor returns the revision and client capabilities that apply to ctx's request.
func (ss *ServerSession) revisionFor(ctx context.Context) (*revision, *ClientCapabilities) {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.rev, ri.clientCaps
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rev, ss.clientCaps
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
