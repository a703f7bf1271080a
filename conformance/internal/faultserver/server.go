package faultserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Revisions the server speaks.
var (
	legacyRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
	allRevisions    = append(append([]string(nil), legacyRevisions...), modernRevision)
)

const (
	modernRevision = "2026-07-28"
	latestLegacy   = "2025-11-25"
	maxMessage     = 1 << 20
	maxDepth       = 64
)

// Options configure a Server.
type Options struct {
	// Faults switches faults on by check id (see Faults).
	Faults []string
	// Reports adds the Reports binding tools.
	Reports bool
	// Quirks switches on behaviours of correct servers by name (see Quirks).
	Quirks []string
}

// Server is a small MCP server written on raw JSON. Faults change one
// behaviour each.
type Server struct {
	faults  map[string]bool
	quirks  map[string]bool
	reports bool
	mu      sync.Mutex
	nextSeq int
	store   *reportStore
	http    *httpState
	notify  notifyState // change notifications (notify.go)
}

// New returns a server with the given faults. Unknown fault names panic
// (a programming error in a test).
func New(opts Options) *Server {
	s := &Server{faults: map[string]bool{}, quirks: map[string]bool{}, reports: opts.Reports, store: newReportStore()}
	for _, f := range opts.Faults {
		if _, ok := Faults[f]; !ok {
			panic("faultserver: unknown fault " + f)
		}
		s.faults[f] = true
	}
	for _, q := range opts.Quirks {
		if _, ok := Quirks[q]; !ok {
			panic("faultserver: unknown quirk " + q)
		}
		s.quirks[q] = true
	}
	s.http = newHTTPState()
	return s
}

func (s *Server) has(f string) bool { return s.faults[f] }

// session is the state of one initialize-era conversation.
type session struct {
	mu          sync.Mutex
	id          string
	revision    string
	initialized bool // initialize answered
	ready       bool // notifications/initialized received
	logLevel    int
	dead        bool

	outMu sync.Mutex
	out   func([]byte) bool // the transport's outlet for server-initiated messages
}

// setOutlet installs (or, with nil, removes) the transport's channel for
// messages the server sends outside any request: on stdio the output, on
// Streamable HTTP an open GET stream, on the legacy transport the event
// stream.
func (sess *session) setOutlet(f func([]byte) bool) {
	sess.outMu.Lock()
	sess.out = f
	sess.outMu.Unlock()
}

// chanOutlet is an outlet that queues messages on ch for a stream's writer,
// dropping them when the queue is full.
func chanOutlet(ch chan []byte) func([]byte) bool {
	return func(m []byte) bool {
		select {
		case ch <- m:
			return true
		default:
			return false
		}
	}
}

// send delivers a server-initiated message; it reports false when the
// session has no outlet (the message is dropped, as the spec allows when no
// stream is open).
func (sess *session) send(msg []byte) bool {
	sess.outMu.Lock()
	f := sess.out
	sess.outMu.Unlock()
	return f != nil && f(msg)
}

var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelIndex(l string) int {
	for i, x := range levels {
		if x == l {
			return i
		}
	}
	return -1
}

// reply is the server's reaction to one incoming message.
type reply struct {
	msgs   [][]byte // notifications, then the response (if any)
	status int      // HTTP status hint for 2026-07-28 errors
	crash  bool     // a fault makes the server die
	stream bool     // answer over SSE on HTTP
	// later, when set, finishes the request asynchronously: the transport
	// writes msgs, then runs later (off the reading loop) and writes what it
	// returns. It returns nil when the request ends without a response
	// (cancelled). On HTTP such a reply is always an SSE stream.
	later func() [][]byte
	// listen, when set, keeps the request open after msgs (see listenFunc).
	listen listenFunc
}

// reqCtx is what the HTTP layer knows about a request.
type reqCtx struct {
	http    bool
	headers map[string]string // canonical name → value, for 2026-07-28 checks
}

// incoming is one decoded message.
type incoming struct {
	id       json.RawMessage // nil: notification
	method   string
	params   map[string]json.RawMessage
	rawParam json.RawMessage
}

func errMsg(id json.RawMessage, code int, msg string, data any) []byte {
	idPart := ""
	if id != nil {
		idPart = `"id":` + string(id) + `,`
	} else {
		idPart = `"id":null,`
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	return []byte(`{"jsonrpc":"2.0",` + idPart + `"error":` + string(mustJSON(e)) + `}`)
}

func resultMsg(id json.RawMessage, result any) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(mustJSON(result)) + `}`)
}

func notification(method string, params any) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + string(mustJSON(params)) + `}`)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// depth returns the maximum nesting depth of the JSON text.
func depth(b []byte) int {
	d, max, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			if d > max {
				max = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

// process handles one raw message for sess (nil in 2026-07-28-only
// contexts; created on demand for stdio).
func (s *Server) process(sess *session, raw []byte, rc reqCtx) reply {
	raw = bytes.TrimSpace(raw)
	if len(raw) > maxMessage {
		if s.has("jsonrpc/oversized-message") {
			return reply{crash: true}
		}
		return reply{msgs: [][]byte{errMsg(nil, -32600, "message too large", nil)}}
	}
	if depth(raw) > maxDepth {
		if s.has("jsonrpc/deep-nesting") {
			return reply{crash: true}
		}
		return reply{msgs: [][]byte{errMsg(nil, -32600, "message nested too deeply", nil)}}
	}
	if !json.Valid(raw) {
		if s.has("jsonrpc/parse-error") {
			return reply{msgs: [][]byte{errMsg(nil, -32600, "invalid", nil)}}
		}
		return reply{msgs: [][]byte{errMsg(nil, -32700, "parse error", nil)}}
	}
	if raw[0] == '[' {
		return s.batch(sess, raw, rc)
	}
	in, errReply := s.decode(raw)
	if errReply != nil {
		return reply{msgs: [][]byte{errReply}}
	}
	if in.method == "" {
		return reply{} // a response from the client: nothing to do
	}
	if isModern(in.params) || (rc.http && rc.headers["Mcp-Protocol-Version"] != "" && !isLegacy(rc.headers["Mcp-Protocol-Version"])) {
		return s.modern(in, rc)
	}
	return s.legacy(sess, in)
}

func (s *Server) batch(sess *session, raw []byte, rc reqCtx) reply {
	rev := ""
	if sess != nil {
		sess.mu.Lock()
		rev = sess.revision
		sess.mu.Unlock()
	}
	allowed := rev == "2025-03-26"
	if s.has("jsonrpc/batch-accepted") {
		allowed = false
	}
	if s.has("jsonrpc/batch-rejected") {
		allowed = true
	}
	if !allowed {
		return reply{msgs: [][]byte{errMsg(nil, -32600, "batches are not supported in this revision", nil)}}
	}
	var elems []json.RawMessage
	_ = json.Unmarshal(raw, &elems)
	if len(elems) == 0 {
		return reply{msgs: [][]byte{errMsg(nil, -32600, "empty batch", nil)}}
	}
	var parts [][]byte
	for _, e := range elems {
		r := s.process(sess, e, rc)
		parts = append(parts, r.msgs...)
	}
	if len(parts) == 0 {
		return reply{}
	}
	return reply{msgs: [][]byte{append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')}}
}

// decode reads the envelope strictly (unless a fault relaxes it).
func (s *Server) decode(raw []byte) (*incoming, []byte) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, _ := dec.Token()
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errMsg(nil, -32600, "not an object", nil)
	}
	members := map[string]json.RawMessage{}
	dup := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errMsg(nil, -32700, "parse error", nil)
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errMsg(nil, -32700, "parse error", nil)
		}
		if s.has("jsonrpc/member-case") {
			name = strings.ToLower(name)
		}
		if _, seen := members[name]; seen {
			dup = true
		}
		members[name] = v
	}
	id, hasID := members["id"]
	if hasID {
		k := kind(id)
		if k != "string" && k != "number" {
			return nil, errMsg(nil, -32600, "invalid id", nil)
		}
		if k == "number" && s.quirk("refuse-large-id") && beyondFloat(id) {
			return nil, errMsg(nil, -32700, "parse error: id beyond 2^53", nil)
		}
		id = s.mangleID(id)
	}
	idOrNil := func() json.RawMessage {
		if hasID {
			return id
		}
		return nil
	}
	if dup && !s.has("jsonrpc/duplicate-member") {
		return nil, errMsg(idOrNil(), -32600, "duplicate member", nil)
	}
	switch v, ok := members["jsonrpc"]; {
	case !ok && !s.has("jsonrpc/invalid-request-no-version"):
		return nil, errMsg(idOrNil(), -32600, "jsonrpc member missing", nil)
	case ok && string(v) != `"2.0"` && !s.has("jsonrpc/invalid-request-wrong-version"):
		return nil, errMsg(idOrNil(), -32600, "jsonrpc must be \"2.0\"", nil)
	}
	in := &incoming{id: idOrNil()}
	if m, ok := members["method"]; ok {
		if kind(m) != "string" {
			if s.has("jsonrpc/invalid-request-method-type") {
				return nil, errMsg(idOrNil(), -32601, "method not found", nil)
			}
			return nil, errMsg(idOrNil(), -32600, "method must be a string", nil)
		}
		_ = json.Unmarshal(m, &in.method)
	} else if _, isResp := members["result"]; !isResp {
		if _, isErr := members["error"]; !isErr {
			return nil, errMsg(idOrNil(), -32600, "no method", nil)
		}
	}
	if p, ok := members["params"]; ok {
		in.rawParam = p
		if kind(p) == "object" {
			_ = json.Unmarshal(p, &in.params)
		}
	}
	if in.params == nil {
		in.params = map[string]json.RawMessage{}
	}
	return in, nil
}

// mangleID applies the id faults.
func (s *Server) mangleID(id json.RawMessage) json.RawMessage {
	if s.has("jsonrpc/id-string") && kind(id) == "string" {
		var str string
		_ = json.Unmarshal(id, &str)
		if _, err := strconv.ParseInt(str, 10, 64); err == nil {
			return json.RawMessage(str)
		}
	}
	if s.has("jsonrpc/id-large-integer") && kind(id) == "number" {
		f, _ := strconv.ParseFloat(string(id), 64)
		return json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64))
	}
	return id
}

func kind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func isLegacy(rev string) bool {
	for _, r := range legacyRevisions {
		if r == rev {
			return true
		}
	}
	return false
}

// meta returns params._meta.
func meta(params map[string]json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(params["_meta"], &m)
	return m
}

// isModern reports whether a request carries the 2026-07-28 _meta.
func isModern(params map[string]json.RawMessage) bool {
	m := meta(params)
	if m == nil {
		return false
	}
	for k := range m {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") && k != "io.modelcontextprotocol/related-task" {
			return true
		}
	}
	return false
}

func str(params map[string]json.RawMessage, k string) (string, bool) {
	var v string
	if kind(params[k]) != "string" || json.Unmarshal(params[k], &v) != nil {
		return "", false
	}
	return v, true
}

// legacy serves an initialize-era message.
func (s *Server) legacy(sess *session, in *incoming) reply {
	if sess == nil {
		sess = &session{}
	}
	if in.id == nil {
		return s.legacyNotification(sess, in)
	}
	sess.mu.Lock()
	initialized, ready, rev := sess.initialized, sess.ready, sess.revision
	sess.mu.Unlock()
	switch in.method {
	case "initialize":
		return s.initialize(sess, in)
	case "ping":
		if s.has("lifecycle/ping-before-initialized") && !ready {
			return reply{msgs: [][]byte{errMsg(in.id, -32600, "not initialized", nil)}}
		}
		res := map[string]any{}
		if s.has("utilities/ping") {
			res["pong"] = true
		}
		if s.has("jsonrpc/envelope") {
			return reply{msgs: [][]byte{[]byte(`{"id":` + string(in.id) + `,"result":{}}`)}}
		}
		return reply{msgs: [][]byte{resultMsg(in.id, res)}}
	}
	if !initialized && !s.has("lifecycle/request-before-initialize") {
		return reply{msgs: [][]byte{errMsg(in.id, -32600, "server not initialized", nil)}}
	}
	if rev == "" {
		rev = latestLegacy
	}
	return s.feature(&call{in: in, rev: rev, sess: sess})
}

func (s *Server) legacyNotification(sess *session, in *incoming) reply {
	switch in.method {
	case "notifications/initialized":
		sess.mu.Lock()
		sess.ready = true
		sess.mu.Unlock()
	case "notifications/cancelled":
		if s.has("utilities/cancel-unknown") && in.params["requestId"] != nil {
			return reply{msgs: [][]byte{errMsg(in.params["requestId"], -32602, "unknown request", nil)}}
		}
	default:
		if _, known := extraNotifications[in.method]; !known && s.has("jsonrpc/notification-unanswered") {
			return reply{msgs: [][]byte{errMsg(nil, -32601, "unknown notification", nil)}}
		}
	}
	if h, ok := extraNotifications[in.method]; ok {
		return h(s, sess, in)
	}
	return reply{}
}

func (s *Server) initialize(sess *session, in *incoming) reply {
	asked, _ := str(in.params, "protocolVersion")
	rev := latestLegacy
	if isLegacy(asked) {
		rev = asked
	}
	if s.has("lifecycle/unsupported-version") && asked != "" {
		rev = asked
	}
	if s.has("lifecycle/initialize-echo") {
		rev = "2024-11-05"
	}
	sess.mu.Lock()
	sess.revision, sess.initialized = rev, true
	sess.mu.Unlock()
	info := map[string]any{"name": "faultserver", "version": "1.0.0"}
	if s.has("lifecycle/initialize-result") {
		delete(info, "version")
	}
	return reply{msgs: [][]byte{resultMsg(in.id, map[string]any{
		"protocolVersion": rev,
		"capabilities":    s.capabilities(rev),
		"serverInfo":      info,
		"instructions":    "A deliberately breakable server for testing the conformance suite.",
	})}}
}

func (s *Server) capabilities(rev string) map[string]any {
	caps := map[string]any{
		"tools":     map[string]any{"listChanged": true},
		"prompts":   map[string]any{"listChanged": true},
		"resources": map[string]any{"subscribe": true, "listChanged": true},
		"logging":   map[string]any{},
	}
	if rev >= "2025-03-26" {
		caps["completions"] = map[string]any{}
	}
	if s.has("lifecycle/capabilities-shape") {
		caps["tools"] = map[string]any{"listChanged": "yes"}
	}
	if s.has("lifecycle/undeclared-capability") {
		delete(caps, "prompts")
	}
	for _, f := range extraCaps {
		f(s, rev, caps)
	}
	return caps
}

// call is one request being served by a feature.
type call struct {
	in     *incoming
	rev    string
	sess   *session // nil in 2026-07-28
	modern bool
	logMin int // 2026-07-28: minimum level from _meta, -1 for none
	notes  [][]byte
}

func (c *call) id() json.RawMessage { return c.in.id }

func (c *call) errorf(code int, format string, args ...any) reply {
	return reply{msgs: append(c.notes, errMsg(c.in.id, code, fmt.Sprintf(format, args...), nil))}
}
