package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Session is a conversation with the server under one revision: for the
// initialize era a handshake (and, on HTTP, a session id); for 2026-07-28
// just a connection on which every request carries the per-request _meta.
type Session struct {
	conn      wireConn
	kind      Transport
	revision  string
	modern    bool
	sessionID string
	ready     bool // handshake done (legacy) — MCP-Protocol-Version goes on HTTP
	initRes   Obj
	mu        sync.Mutex
	next      int64
	onMsg     func(method string, m Msg)
	// onCall, when set, learns the name of every tool the session calls.
	onCall func(name string)
	// trace, when set, records requests for failure reports; quiet turns
	// it off for liveness probes.
	trace *exchangeTrace
	quiet bool
	// toolSchema returns the input schema of a listed tool (nil when the
	// tools are not listed yet or the tool is unknown), for Mcp-Param-*.
	toolSchema func(name string) json.RawMessage
}

// Meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
)

// clientInfo is how the suite introduces itself.
var clientInfo = map[string]any{"name": "wiremcp-conformance", "version": "1"}

// newID returns a fresh integer request id (as raw JSON).
func (s *Session) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	return strconv.FormatInt(s.next, 10)
}

// modernMeta is the per-request _meta of 2026-07-28.
func (s *Session) modernMeta() map[string]any {
	return map[string]any{
		metaProtocolVersion: s.revision,
		metaClientCaps:      map[string]any{},
		metaClientInfo:      clientInfo,
	}
}

// withMeta returns params with the modern _meta merged in when the session
// is modern.
func (s *Session) withMeta(params map[string]any) map[string]any {
	if !s.modern {
		return params
	}
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	meta := s.modernMeta()
	if m, ok := out["_meta"].(map[string]any); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	out["_meta"] = meta
	return out
}

// request builds a request body with the given raw id.
func (s *Session) request(id, method string, params map[string]any) []byte {
	s.noteCall(method, params)
	p := s.withMeta(params)
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":` + string(mustJSON(method))
	if p != nil {
		body += `,"params":` + string(mustJSON(p))
	}
	return []byte(body + "}")
}

// headers returns the HTTP headers a well-behaved client sends for method.
func (s *Session) headers(method string, params map[string]any) http.Header {
	h := http.Header{}
	if s.kind != HTTP {
		return h
	}
	if s.sessionID != "" {
		h.Set("Mcp-Session-Id", s.sessionID)
	}
	if s.modern {
		h.Set("MCP-Protocol-Version", s.revision)
		if method != "" {
			h.Set("Mcp-Method", method)
		}
		if name := mcpName(method, params); name != "" {
			h.Set("Mcp-Name", name)
		}
		s.paramHeaders(h, method, params)
	} else if s.ready && (s.revision >= Rev20250618 || s.sessionID == "") {
		// From 2025-06-18 the header is required. Without a session (a stateless
		// server) it is also the only way an older client can say which revision it
		// speaks; servers accept it on any revision.
		h.Set("MCP-Protocol-Version", s.revision)
	}
	return h
}

// paramHeaders adds the Mcp-Param-{Name} headers of a tools/call whose tool
// marks arguments with x-mcp-header (2026-07-28), as a well-behaved client
// does; checks that want them wrong override them.
func (s *Session) paramHeaders(h http.Header, method string, params map[string]any) {
	if method != "tools/call" || s.toolSchema == nil {
		return
	}
	name, _ := params["name"].(string)
	args, _ := params["arguments"].(map[string]any)
	schema := s.toolSchema(name)
	if schema == nil || args == nil {
		return
	}
	for _, hp := range headerProps(schema) {
		var v any = args
		for _, k := range hp.path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		if v != nil {
			good, _ := headerValue(normNumber(v))
			h.Set("Mcp-Param-"+hp.header, good)
		}
	}
}

// mcpName is the Mcp-Name header value for method (2026-07-28).
func mcpName(method string, params map[string]any) string {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return ""
	}
	v, _ := params[key].(string)
	return headerSafe(v)
}

// headerSafe encodes v with the =?base64?…?= sentinel when it cannot travel
// as a plain header value.
func headerSafe(v string) string {
	plain := true
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if len(v) > 0 && (v[0] == ' ' || v[len(v)-1] == ' ') {
		plain = false
	}
	if plain {
		return v
	}
	return "=?base64?" + b64(v) + "?="
}

// Exchange is one request and what came back.
type Exchange struct {
	ID       string
	Response Msg
	// Before holds the messages that arrived between sending the request
	// and its response (notifications, server requests).
	Before []Msg
	HTTP   *HTTPReply
}

// Call sends a request and waits for the response with its id.
func (s *Session) Call(ctx context.Context, method string, params map[string]any) (*Exchange, error) {
	id := s.newID()
	return s.CallRaw(ctx, id, method, s.request(id, method, params), s.headers(method, params))
}

// CallRaw sends body (which must carry id) and waits for the response whose
// id equals id.
func (s *Session) CallRaw(ctx context.Context, id, method string, body []byte, hdr http.Header) (*Exchange, error) {
	start := s.conn.box().len()
	s.trace.sent(s, body, start)
	reply, err := s.conn.send(ctx, body, hdr)
	s.trace.replied(s, reply)
	if err != nil {
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	ex := &Exchange{ID: id, HTTP: reply}
	wctx := ctx
	if s.kind == HTTP && reply != nil && reply.Stream == nil {
		// A plain reply is complete: its JSON body, if any, is in the
		// inbox already.
		wctx = doneCtx
	} else if reply != nil && reply.Stream != nil {
		// The response to a POST comes on the POST's own stream: once that
		// stream has ended without it, it will not come.
		var stop context.CancelFunc
		wctx, stop = context.WithCancel(ctx)
		defer stop()
		go func() {
			select {
			case <-reply.Stream.Done():
				stop()
			case <-wctx.Done():
			}
		}()
	}
	resp, idx, err := s.conn.box().wait(wctx, start, func(m Msg) bool { return m.IsResponse() && m.IDRaw() == id })
	if err != nil && ctx.Err() == nil && reply != nil && reply.Stream != nil {
		// The stream ended (the inbox may still have got the response in
		// the meantime).
		resp, idx, err = s.conn.box().wait(doneCtx, start, func(m Msg) bool { return m.IsResponse() && m.IDRaw() == id })
		if err != nil {
			return ex, streamEndedError(method, id, reply.Stream)
		}
	}
	if err != nil {
		if reply != nil && reply.Stream == nil && reply.MediaType() != "application/json" && (s.kind == HTTP || reply.Status >= 400) {
			return ex, errNoJSONRPC{method: method, reply: reply}
		}
		if wctx == doneCtx {
			return ex, fmt.Errorf("%s: the reply (HTTP %d) carried no response with id %s (body %s)", method, reply.Status, id, short(reply.Body))
		}
		return ex, fmt.Errorf("%s: waiting for response id %s: %w", method, id, err)
	}
	all := s.conn.box().all()
	ex.Before = append([]Msg(nil), all[start:idx]...)
	ex.Response = resp
	if s.onMsg != nil {
		s.onMsg(method, resp)
		for _, m := range ex.Before {
			if m.IsNotification() {
				s.onMsg(m.Method(), m)
			}
		}
	}
	return ex, nil
}

// doneCtx is an ended context: waiting on it only looks at what is there.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// streamEndedError explains a POST's event stream that ended without the
// response to request id.
func streamEndedError(method, id string, st *SSEStream) error {
	withIDs := false
	for _, ev := range st.Events() {
		withIDs = withIDs || ev.HasID
	}
	why := "its event stream ended without the response"
	switch {
	case st.Trailing():
		why += " (the stream ended inside an unterminated event)"
	case withIDs:
		// SPEC NOTE: from 2025-11-25 a server may close a stream that has
		// event ids before the response, for the client to resume it with
		// GET and Last-Event-ID; only http/resume does that.
		return fmt.Errorf("%s: %w", method, errClosedForResumption)
	}
	return fmt.Errorf("%s (request id %s): %s", method, id, why)
}

// errClosedForResumption is a stream the server closed before the response,
// leaving the client to resume it.
var errClosedForResumption = errors.New("the server closed the event stream before the response, for the client to resume it (only http/resume resumes streams)")

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params map[string]any) (*HTTPReply, error) {
	body := `{"jsonrpc":"2.0","method":` + string(mustJSON(method))
	if p := s.withMeta(params); p != nil {
		body += `,"params":` + string(mustJSON(p))
	}
	return s.conn.send(ctx, []byte(body+"}"), s.headers("", nil))
}

// noteCall tells onCall about a tools/call.
func (s *Session) noteCall(method string, params map[string]any) {
	if method != "tools/call" || s.onCall == nil {
		return
	}
	if name, ok := params["name"].(string); ok {
		s.onCall(name)
	}
}

// Send writes raw bytes (which may be anything) with the session's headers
// plus hdr.
func (s *Session) Send(ctx context.Context, body []byte, hdr http.Header) (*HTTPReply, error) {
	method, params := peekRequest(body)
	s.noteCall(method, params)
	h := s.headers(method, params)
	for k, v := range hdr {
		h[http.CanonicalHeaderKey(k)] = v
	}
	s.trace.sent(s, body, s.conn.box().len())
	reply, err := s.conn.send(ctx, body, h)
	s.trace.replied(s, reply)
	return reply, err
}

// Mark returns the current inbox position; WaitFrom searches from there.
func (s *Session) Mark() int { return s.conn.box().len() }

// WaitFrom waits for a message at or after mark satisfying pred.
func (s *Session) WaitFrom(ctx context.Context, mark int, pred func(Msg) bool) (Msg, error) {
	m, _, err := s.conn.box().wait(ctx, mark, pred)
	return m, err
}

// waitReply waits for a message at or after mark satisfying pred, where the
// message answers a POST that got reply. On Streamable HTTP the answer to
// a POST comes in its reply: once a plain reply is in (its JSON body is
// already in the inbox) or the reply's event stream has ended, nothing
// more will come, and the wait ends without waiting out ctx. On the legacy
// transport a POST refused with an HTTP error has no answer to come on the
// event stream either.
func (s *Session) waitReply(ctx context.Context, mark int, reply *HTTPReply, pred func(Msg) bool) (Msg, error) {
	if s.kind == SSE && reply != nil && reply.Status >= 400 {
		return s.WaitFrom(doneCtx, mark, pred)
	}
	if s.kind != HTTP || reply == nil {
		return s.WaitFrom(ctx, mark, pred)
	}
	if reply.Stream == nil {
		return s.WaitFrom(doneCtx, mark, pred)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-reply.Stream.Done():
			stop()
		case <-wctx.Done():
		}
	}()
	m, err := s.WaitFrom(wctx, mark, pred)
	if err != nil && ctx.Err() == nil {
		return s.WaitFrom(doneCtx, mark, pred)
	}
	return m, err
}

// Since returns the messages received at or after mark.
func (s *Session) Since(mark int) []Msg {
	all := s.conn.box().all()
	if mark > len(all) {
		return nil
	}
	return all[mark:]
}

// Ping proves the session still works: ping in the initialize era,
// server/discover in 2026-07-28.
func (s *Session) Ping(ctx context.Context) error {
	method := "ping"
	if s.modern {
		method = "server/discover"
	}
	ex, err := s.Call(ctx, method, nil)
	if err != nil {
		return err
	}
	if e := ex.Response.Error(); e != nil {
		return fmt.Errorf("%s answered error %s %q", method, e.Code, e.Message)
	}
	return nil
}

// initialize performs the initialize-era handshake.
func (s *Session) initialize(ctx context.Context, sendInitialized bool) error {
	params := map[string]any{
		"protocolVersion": s.revision,
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	}
	ex, err := s.Call(ctx, "initialize", params)
	if err != nil {
		return err
	}
	if e := ex.Response.Error(); e != nil {
		return fmt.Errorf("initialize answered error %s %q", e.Code, e.Message)
	}
	res := ex.Response.Result()
	if res == nil {
		return errors.New("initialize: result is not an object")
	}
	s.initRes = res
	if v, ok := res.Str("protocolVersion"); ok {
		s.revision = v
	}
	if ex.HTTP != nil {
		s.sessionID = ex.HTTP.Header.Get("Mcp-Session-Id")
	}
	s.ready = true
	if sendInitialized {
		if _, err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
			return fmt.Errorf("notifications/initialized: %w", err)
		}
	}
	return nil
}

// Close ends the session (DELETE on HTTP when a session id was issued).
func (s *Session) Close() error {
	if s.kind == HTTP && s.sessionID != "" {
		if hc, ok := s.conn.(*httpConn); ok {
			ctx, cancel := context.WithTimeout(context.Background(), timeoutClose)
			_, _ = hc.do(ctx, http.MethodDelete, hc.url, nil, http.Header{"Mcp-Session-Id": {s.sessionID}}, "DELETE")
			cancel()
		}
	}
	return s.conn.close()
}

// resultOrErr returns the result object of ex or an error describing why
// there is none.
func resultOrErr(ex *Exchange) (Obj, error) {
	if e := ex.Response.Error(); e != nil {
		return nil, fmt.Errorf("error %s %q", e.Code, e.Message)
	}
	r := ex.Response.Result()
	if r == nil {
		return nil, fmt.Errorf("result is not an object: %s", short(ex.Response.Raw))
	}
	return r, nil
}

// peekRequest returns the method and params of a raw request body, when it
// has them, so that raw requests get the headers a client would send.
func peekRequest(body []byte) (string, map[string]any) {
	var m struct {
		Method any            `json:"method"`
		Params map[string]any `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "", nil
	}
	method, _ := m.Method.(string)
	return method, m.Params
}

// exchangeTrace remembers the last request a check sent (liveness probes
// aside) and where the inbox stood, so that a failure can show the
// exchange behind it.
type exchangeTrace struct {
	mu      sync.Mutex
	sess    *Session
	request []byte
	mark    int
	reply   string // HTTP status line of the reply, when there was one
}

// sent records body as the last request of s.
func (t *exchangeTrace) sent(s *Session, body []byte, mark int) {
	t.sentHTTP(s, "", body, nil, mark)
}

// sentHTTP records a raw HTTP request of s: its method (when not a plain
// POST), the headers the check chose (hdr) and the body.
func (t *exchangeTrace) sentHTTP(s *Session, method string, body []byte, hdr http.Header, mark int) {
	if t == nil || s.quiet {
		return
	}
	var parts []string
	if method != "" && method != http.MethodPost {
		parts = append(parts, method)
	}
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(hdr[k]) == 0 {
			parts = append(parts, "(no "+k+")") // a header the check removed
			continue
		}
		parts = append(parts, k+": "+strings.Join(hdr[k], ", "))
	}
	if len(body) > 0 {
		parts = append(parts, short(body))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sess, t.request, t.mark, t.reply = s, []byte(strings.Join(parts, " | ")), mark, ""
}

// replied records the HTTP reply to the last request of s.
func (t *exchangeTrace) replied(s *Session, r *HTTPReply) {
	if t == nil || s.quiet || r == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess == s {
		t.reply = fmt.Sprintf("HTTP %d %s", r.Status, r.Header.Get("Content-Type"))
		if r.MediaType() != "application/json" && len(r.Body) > 0 {
			t.reply += " " + short(r.Body)
		}
	}
}

// maxExchangeMsgs bounds how many server messages an exchange shows.
const maxExchangeMsgs = 4

// render returns the last exchange: "> request", "< HTTP status" and
// "< message" lines, each shortened; "" when nothing was sent.
func (t *exchangeTrace) render() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	sess, req, mark, reply := t.sess, t.request, t.mark, t.reply
	t.mu.Unlock()
	if sess == nil {
		return ""
	}
	var b []string
	b = append(b, "> "+string(req))
	if reply != "" {
		b = append(b, "< "+reply)
	}
	for i, m := range sess.Since(mark) {
		if i == maxExchangeMsgs {
			b = append(b, "< …")
			break
		}
		b = append(b, "< "+short(m.Raw))
	}
	return strings.Join(b, "\n")
}
