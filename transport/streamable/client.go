package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// ClientOptions configures a ClientTransport. The zero value (or nil) gives the
// defaults documented on each field. The struct is copied by NewClient.
type ClientOptions struct {
	// HTTPClient sends the requests. Nil means a shared client whose transport keeps
	// up to 64 idle connections per host.
	HTTPClient *http.Client
	// Header is added to every HTTP request (for example Authorization).
	Header http.Header
	// ProtocolVersion is sent in MCP-Protocol-Version from the start. Empty means the
	// header is sent once the version is known: sniffed from the initialize result,
	// or set with SetProtocolVersion.
	ProtocolVersion string
	// DisableGETStream stops the client from opening the standalone GET stream after
	// notifications/initialized.
	DisableGETStream bool
	// DisableReinitialize turns off the transparent new session after a 404 on a
	// request that carried a session id; the 404 is then returned by Write.
	DisableReinitialize bool
	// MaxReconnects bounds consecutive reconnection attempts of an SSE stream (GET
	// stream, or resumption of a POST stream). Zero means 5; negative disables
	// reconnection.
	MaxReconnects int
	// ReconnectDelay is the first delay before reconnecting when the server sent no
	// "retry:" field; it doubles per failed attempt up to 30 seconds. Zero means 1
	// second.
	ReconnectDelay time.Duration
	// MaxMessageBytes bounds one incoming message. Zero means 16 MiB.
	MaxMessageBytes int
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// StatusError is returned by Write when the server answered with an HTTP status that
// carries no JSON-RPC response for the message.
type StatusError struct {
	StatusCode int
	Body       string // the start of the response body, for diagnostics
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("streamable: HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("streamable: HTTP %d: %s", e.StatusCode, e.Body)
}

// ErrSessionExpired is returned by Write when the server forgot the session (404)
// and a new session could not be set up.
var ErrSessionExpired = errors.New("streamable: session expired")

var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
})

// ClientTransport is the client side of Streamable HTTP: a jsonrpc.Transport that
// POSTs every message to one endpoint.
//
// Write sends one message and, for a request, reads the reply stream until the
// response arrived (resuming it with GET and Last-Event-ID if it breaks): every
// message on the way is handed to Read. Write returns once every response it awaits
// has been handed to Read, whichever stream carried it (the reply stream, its
// resumption, or the standalone GET stream); only the POST's own stream is read on to
// its end, for at most replyTailGrace, so that its connection can be reused.
//
// Read, Write and Close may be called concurrently (Read from one goroutine at a
// time). The transport owns one goroutine, the reader of the GET stream, which Close
// ends.
type ClientTransport struct {
	url    string
	client *http.Client
	opts   ClientOptions
	log    *slog.Logger
	maxMsg int

	tailGrace time.Duration // replyTailGrace; tests lengthen it

	in     chan jsonrpc.Message
	done   chan struct{}
	ctx    context.Context // lives as long as the transport (GET stream, DELETE)
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	sessionID   string
	version     string
	initParams  json.RawMessage // the initialize request's params, for a new session
	initialized bool            // notifications/initialized was sent
	getRunning  bool
	waits       map[jsonrpc.ID]*replyWait // SSE replies being read, by awaited id
	reinits     int
	closed      bool

	reinitMu sync.Mutex
}

// NewClient returns a client for the MCP endpoint at url. Nothing is sent until the
// first Write. opts may be nil.
func NewClient(url string, opts *ClientOptions) (*ClientTransport, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("streamable: %q is not an http(s) URL", url)
	}
	t := &ClientTransport{url: url, in: make(chan jsonrpc.Message, 64), done: make(chan struct{})}
	if opts != nil {
		t.opts = *opts
	}
	t.client = t.opts.HTTPClient
	if t.client == nil {
		t.client = defaultHTTPClient()
	}
	t.log = t.opts.Logger
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.opts.MaxReconnects == 0 {
		t.opts.MaxReconnects = 5
	}
	if t.opts.ReconnectDelay <= 0 {
		t.opts.ReconnectDelay = time.Second
	}
	t.maxMsg = t.opts.MaxMessageBytes
	if t.maxMsg <= 0 {
		t.maxMsg = 16 << 20
	}
	t.version = t.opts.ProtocolVersion
	t.tailGrace = replyTailGrace
	// The transport's own lifetime: it parents the GET stream and the final DELETE,
	// and is cancelled by Close.
	t.ctx, t.cancel = context.WithCancel(context.Background())
	return t, nil
}

// SessionID returns the session id the server issued ("" before or without one).
func (t *ClientTransport) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// ProtocolVersion returns the version sent in MCP-Protocol-Version ("" if none yet).
func (t *ClientTransport) ProtocolVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version
}

// SetProtocolVersion sets the version sent in MCP-Protocol-Version from now on.
func (t *ClientTransport) SetProtocolVersion(v string) {
	t.mu.Lock()
	t.version = v
	t.mu.Unlock()
}

// Read returns the next message from the server. It returns io.EOF after Close.
func (t *ClientTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-t.in:
		return m, nil
	case <-t.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the session (DELETE, a 405 is fine), stops the GET stream and makes Read
// return io.EOF. It is safe to call more than once.
func (t *ClientTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	sid := t.sessionID
	t.mu.Unlock()
	if sid != "" {
		ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
		if req, err := t.newRequest(ctx, http.MethodDelete, nil, sid, ""); err == nil {
			if resp, err := t.client.Do(req); err == nil {
				drain(resp)
			}
		}
		cancel()
	}
	t.cancel()
	close(t.done)
	t.wg.Wait()
	return nil
}

func (t *ClientTransport) isClosed() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

var (
	hdrAcceptBoth = []string{"application/json, text/event-stream"}
	hdrAcceptSSE  = []string{"text/event-stream"}
)

// newRequest builds an HTTP request with the headers every request carries.
func (t *ClientTransport) newRequest(ctx context.Context, method string, body []byte, sid, version string) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, rd)
	if err != nil {
		return nil, err
	}
	h := req.Header
	for k, v := range t.opts.Header {
		h[k] = v
	}
	if method == http.MethodPost {
		h["Content-Type"] = hdrJSON
		h["Accept"] = hdrAcceptBoth
	} else if method == http.MethodGet {
		h["Accept"] = hdrAcceptSSE
	}
	if sid != "" {
		h[hdrSessionID] = []string{sid}
	}
	if version != "" {
		h[hdrProtocol] = []string{version}
	}
	return req, nil
}

// Write sends msg. For a request it returns once the response has been handed to
// Read (or the exchange failed); for anything else once the server accepted it.
// After notifications/initialized it also waits, at most a few seconds and never past
// ctx, until the server has answered the standalone GET that opens the session's
// stream, so that the server can use that stream as soon as Write returns.
func (t *ClientTransport) Write(ctx context.Context, msg jsonrpc.Message) error {
	if t.isClosed() {
		return ErrClosed
	}
	body, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		return err
	}
	isInit := false
	if r, ok := msg.(*jsonrpc.Request); ok {
		switch r.Method {
		case "initialize":
			isInit = !r.IsNotification()
			t.mu.Lock()
			t.initParams = append(json.RawMessage(nil), r.Params...)
			t.mu.Unlock()
		}
	}
	sid := t.SessionID()
	err = t.exchange(ctx, msg, body, sid, isInit, t.deliver)
	var se *StatusError
	if errors.As(err, &se) && se.StatusCode == http.StatusNotFound && sid != "" && !isInit && !t.opts.DisableReinitialize {
		// The server forgot the session: start a new one as the client that
		// initialized it did, then send the message once more.
		if err := t.reinitialize(ctx, sid); err != nil {
			return err
		}
		err = t.exchange(ctx, msg, body, t.SessionID(), false, t.deliver)
	}
	if err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/initialized" {
		t.mu.Lock()
		t.initialized = true
		t.mu.Unlock()
		t.awaitGET(ctx, t.startGET())
	}
	return nil
}

func (t *ClientTransport) deliver(m jsonrpc.Message) {
	select {
	case t.in <- m:
	case <-t.done:
	}
}

// exchange POSTs one encoded message and reads the reply, passing every message
// received to sink.
func (t *ClientTransport) exchange(ctx context.Context, msg jsonrpc.Message, body []byte, sid string, isInit bool, sink func(jsonrpc.Message)) error {
	want := pendingIDs(msg)
	version := ""
	var w *replyWait
	t.mu.Lock()
	if !isInit {
		version = t.version
	}
	if len(want) > 0 && t.getRunning {
		// The response may travel on the standalone GET stream, even before the
		// POST is answered: await it from now on.
		w = t.startWaitLocked(want)
	}
	t.mu.Unlock()
	if w != nil {
		defer t.endWait(w)
	}
	req, err := t.newRequest(ctx, http.MethodPost, body, sid, version)
	if err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Request); ok {
		addModernHeaders(req.Header, r)
		for k, v := range r.Header {
			req.Header[k] = v
		}
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	if s := resp.Header.Get(hdrSessionID); s != "" && isInit {
		t.mu.Lock()
		t.sessionID = s
		t.mu.Unlock()
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted || (resp.StatusCode/100 == 2 && len(want) == 0):
		drain(resp)
		return nil
	case resp.StatusCode/100 == 2 && ct == "text/event-stream":
		if w == nil {
			w = t.startWait(want)
			defer t.endWait(w)
		}
		return t.readReplyStream(ctx, resp, w, isInit, sink)
	case resp.StatusCode/100 == 2:
		data, err := readAll(resp, t.maxMsg)
		if err != nil {
			return err
		}
		m, err := jsonrpc.Decode(data, &jsonrpc.Limits{MaxSize: t.maxMsg})
		if err != nil {
			return fmt.Errorf("streamable: malformed response body: %w", err)
		}
		t.noteResult(m, isInit)
		sink(m)
		return nil
	default:
		data, _ := readAll(resp, 64<<10)
		// A JSON-RPC error for this very request (2026-07-28 maps errors to 4xx) is
		// the answer: hand it to Read.
		if len(want) > 0 && strings.HasPrefix(ct, "application/json") {
			if m, err := jsonrpc.Decode(data, nil); err == nil {
				if r, ok := m.(*jsonrpc.Response); ok && r.Error != nil && r.ID == want[0] {
					sink(m)
					return nil
				}
			}
		}
		return &StatusError{StatusCode: resp.StatusCode, Body: trimBody(data)}
	}
}

// noteResult records the protocol version of an initialize result.
func (t *ClientTransport) noteResult(m jsonrpc.Message, isInit bool) {
	if !isInit {
		return
	}
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(r.Result, &res) == nil && res.ProtocolVersion != "" {
		t.mu.Lock()
		if t.opts.ProtocolVersion == "" || t.version == "" {
			t.version = res.ProtocolVersion
		}
		t.mu.Unlock()
	}
}

// readReplyStream reads the SSE reply to a POST until every response w awaits has
// been handed to sink, resuming the stream with GET and Last-Event-ID when it breaks
// first. A response may also arrive on the standalone GET stream (getLoop), which
// then stops the reading through w.
func (t *ClientTransport) readReplyStream(ctx context.Context, resp *http.Response, w *replyWait, isInit bool, sink func(jsonrpc.Message)) error {
	t.mu.Lock()
	w.body = resp.Body
	early := len(w.left) == 0 // every response already came on the GET stream
	t.mu.Unlock()
	// onMsg hands m on and reports whether nothing more is awaited.
	onMsg := func(m jsonrpc.Message) bool {
		awaited := false
		t.mu.Lock()
		switch r := m.(type) {
		case *jsonrpc.Response:
			awaited = t.takeLocked(w, r.ID)
		case jsonrpc.Batch:
			t.clearLocked(w) // a batch reply is the whole answer
		}
		done := len(w.left) == 0
		t.mu.Unlock()
		if awaited {
			t.noteResult(m, isInit)
		}
		sink(m)
		return done
	}
	// The POST's own stream is read to its end (shortly after the last response)
	// so that its connection can be reused.
	last, retry, err := t.readEvents(resp, onMsg, w, early)
	var rctx context.Context // the resumptions' context, cancelled by getLoop
	for attempt := 0; !t.waitOver(w); {
		if last == "" {
			if err == nil {
				err = errors.New("streamable: the reply stream ended without a response")
			}
			return err
		}
		if attempt >= t.opts.MaxReconnects {
			return fmt.Errorf("streamable: the reply stream could not be resumed: %w", err)
		}
		if rctx == nil {
			var cancel context.CancelFunc
			rctx, cancel = context.WithCancel(ctx)
			defer cancel()
			t.mu.Lock()
			w.cancel = cancel
			t.mu.Unlock()
			if t.waitOver(w) {
				break
			}
		}
		if werr := t.wait(rctx, retry, attempt); werr != nil {
			if t.waitOver(w) {
				break
			}
			return werr
		}
		attempt++
		r2, gerr := t.get(rctx, last)
		if gerr != nil {
			if t.waitOver(w) {
				break
			}
			err = gerr
			var se *StatusError
			if errors.As(gerr, &se) && se.StatusCode/100 == 4 {
				return gerr
			}
			continue
		}
		t.mu.Lock()
		w.body = r2.Body
		t.mu.Unlock()
		if t.waitOver(w) {
			r2.Body.Close()
			break
		}
		var l2 string
		var n int
		// A resumed stream may stay open after the response: stop right there.
		l2, retry, err = t.readEvents(r2, func(m jsonrpc.Message) bool { n++; return onMsg(m) }, nil, false)
		if l2 != "" {
			last = l2
		}
		if n > 0 {
			attempt = 0
		}
	}
	return nil
}

// wait sleeps before a reconnection: the server's retry if it sent one, otherwise an
// exponential backoff.
func (t *ClientTransport) wait(ctx context.Context, retryMS, attempt int) error {
	d := t.opts.ReconnectDelay << attempt
	if retryMS >= 0 {
		d = time.Duration(retryMS) * time.Millisecond
	}
	if d > 30*time.Second || d < 0 {
		d = 30 * time.Second
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.done:
		return ErrClosed
	}
}

// get opens an SSE stream with GET, resuming after lastID when it is non-empty.
func (t *ClientTransport) get(ctx context.Context, lastID string) (*http.Response, error) {
	t.mu.Lock()
	sid, version := t.sessionID, t.version
	t.mu.Unlock()
	req, err := t.newRequest(ctx, http.MethodGet, nil, sid, version)
	if err != nil {
		return nil, err
	}
	if lastID != "" {
		req.Header["Last-Event-Id"] = []string{lastID}
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		data, _ := readAll(resp, 4<<10)
		return nil, &StatusError{StatusCode: resp.StatusCode, Body: trimBody(data)}
	}
	return resp, nil
}

// readEvents reads an SSE body, decoding each event's data as a message for onMsg.
// It returns the last event id and retry value seen and the error that ended the
// stream (nil for a clean end). When onMsg reports that nothing more is awaited,
// reading stops at once if tail is nil; otherwise it goes on to the end of the
// stream for at most replyTailGrace (the server ends a reply stream right after its
// last response; reading that end lets the connection be reused). armNow starts
// that grace period at once.
func (t *ClientTransport) readEvents(resp *http.Response, onMsg func(jsonrpc.Message) bool, tail *replyWait, armNow bool) (string, int, error) {
	defer resp.Body.Close()
	r, _ := readerPool.Get().(*sse.Reader)
	if r == nil {
		r = sse.NewReader(resp.Body, 0)
	} else {
		r.Reset(resp.Body)
	}
	r.SetMax(t.maxMsg)
	defer func() {
		r.Reset(nil)
		readerPool.Put(r)
	}()
	lim := jsonrpc.Limits{MaxSize: t.maxMsg}
	armed := false
	if armNow {
		tail.arm(resp.Body, t.tailGrace)
		armed = true
	}
	for {
		ev, err := r.Next()
		if err != nil {
			if armed {
				tail.disarm()
				err = nil // the stream was only cut short after the last response
			}
			if err == io.EOF {
				err = nil
			}
			return r.LastEventID(), r.Retry(), err
		}
		if len(ev.Data) == 0 || ev.Name != "message" {
			continue // priming events and unknown event types carry no message
		}
		data := append([]byte(nil), ev.Data...) // Decode aliases its input
		m, err := jsonrpc.Decode(data, &lim)
		if err != nil {
			t.log.Warn("streamable: dropped a malformed event", "err", err)
			continue
		}
		if onMsg(m) && !armed {
			if tail == nil {
				return r.LastEventID(), r.Retry(), nil
			}
			tail.arm(resp.Body, t.tailGrace)
			armed = true
		}
	}
}

var readerPool sync.Pool // of *sse.Reader

// reinitialize opens a new session after the server forgot session old, replaying
// the initialize request and notifications/initialized this client sent before. The
// replayed initialize's response is not handed to Read.
func (t *ClientTransport) reinitialize(ctx context.Context, old string) error {
	t.reinitMu.Lock()
	defer t.reinitMu.Unlock()
	t.mu.Lock()
	if t.sessionID != old {
		t.mu.Unlock()
		return nil // another Write already did it
	}
	params, initialized := t.initParams, t.initialized
	t.sessionID = ""
	t.getRunning = false
	t.reinits++
	id := jsonrpc.StringID(fmt.Sprintf("wiremcp-reinitialize-%d", t.reinits))
	t.mu.Unlock()
	if params == nil {
		return ErrSessionExpired
	}
	init := &jsonrpc.Request{ID: id, Method: "initialize", Params: params}
	body, err := jsonrpc.Encode(nil, init)
	if err != nil {
		return err
	}
	var got *jsonrpc.Response
	swallow := func(m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID == id {
			got = r
			return
		}
		t.deliver(m)
	}
	if err := t.exchange(ctx, init, body, "", true, swallow); err != nil {
		return fmt.Errorf("%w: initialize: %w", ErrSessionExpired, err)
	}
	if got == nil || got.Error != nil {
		return fmt.Errorf("%w: initialize was refused", ErrSessionExpired)
	}
	if initialized {
		note := &jsonrpc.Request{Method: "notifications/initialized"}
		nb, _ := jsonrpc.Encode(nil, note)
		if err := t.exchange(ctx, note, nb, t.SessionID(), false, t.deliver); err != nil {
			return fmt.Errorf("%w: notifications/initialized: %w", ErrSessionExpired, err)
		}
		t.awaitGET(ctx, t.startGET())
	}
	t.log.Debug("streamable: new session after 404", "session", t.SessionID())
	return nil
}

// pendingIDs returns the ids of the requests in msg, whose responses the reply owes.
func pendingIDs(msg jsonrpc.Message) []jsonrpc.ID {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsNotification() {
			return []jsonrpc.ID{m.ID}
		}
	case jsonrpc.Batch:
		var ids []jsonrpc.ID
		for _, el := range m {
			if r, ok := el.(*jsonrpc.Request); ok && !r.IsNotification() {
				ids = append(ids, r.ID)
			}
		}
		return ids
	}
	return nil
}

// addModernHeaders sets the 2026-07-28 request headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) for a request whose _meta names a protocol version.
func addModernHeaders(h http.Header, r *jsonrpc.Request) {
	if !bytes.Contains(r.Params, []byte(metaProtocolVersion)) {
		return
	}
	info, err := scanParams(r.Params)
	if err != nil || !info.hasPV {
		return
	}
	h[hdrProtocol] = []string{info.pv}
	h[hdrMethod] = []string{r.Method}
	var name string
	var has bool
	switch r.Method {
	case "tools/call", "prompts/get":
		name, has = info.name, info.hasName
	case "resources/read":
		name, has = info.uri, info.hasURI
	case "tasks/get", "tasks/update", "tasks/cancel":
		name, has = info.taskID, info.hasTaskID
	}
	if has {
		h[hdrName] = []string{EncodeHeaderValue(name)}
	}
}

func readAll(resp *http.Response, max int) ([]byte, error) {
	defer resp.Body.Close()
	if resp.ContentLength > int64(max) {
		return nil, fmt.Errorf("streamable: response of %d bytes exceeds the limit", resp.ContentLength)
	}
	if resp.ContentLength >= 0 {
		buf := make([]byte, resp.ContentLength)
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err == nil && len(buf) > max {
		err = errors.New("streamable: response exceeds the size limit")
	}
	return buf, err
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

func trimBody(b []byte) string {
	const max = 512
	if len(b) > max {
		b = b[:max]
	}
	return strings.TrimSpace(string(b))
}
