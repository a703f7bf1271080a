package faultserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
)

// httpState holds the sessions of the HTTP transports.
type httpState struct {
	mu         sync.Mutex
	seq        int
	streamable map[string]*session
	legacy     map[string]*sseSession
	// ended holds the ids of sessions ended by DELETE, kept only under the
	// delete-then-400 quirk (a test server: one entry per DELETE).
	ended map[string]bool
}

// sseSession is a legacy HTTP+SSE connection: its session and the channel
// its GET handler drains.
type sseSession struct {
	sess *session
	out  chan []byte
	done chan struct{}
}

func newHTTPState() *httpState {
	return &httpState{streamable: map[string]*session{}, legacy: map[string]*sseSession{}, ended: map[string]bool{}}
}

// Handler serves Streamable HTTP at /mcp and the legacy transport at /sse
// (event stream) and /messages (POST).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.guard(s.serveStreamable))
	mux.HandleFunc("/sse", s.guard(s.serveSSE))
	mux.HandleFunc("/messages", s.guard(s.serveMessages))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found", http.StatusNotFound)
	})
	return mux
}

// guard applies the Origin and Host checks.
func (s *Server) guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.has("http/host") && !loopbackHost(r.Host) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		originCheck := !s.has("http/origin")
		if r.URL.Path != "/mcp" {
			originCheck = !(s.has("sse/origin") && r.URL.Path == "/messages")
		}
		if o := r.Header.Get("Origin"); o != "" && originCheck && !localOrigin(o) {
			status := http.StatusForbidden
			if s.quirk("origin-400") {
				status = http.StatusBadRequest
			}
			http.Error(w, "forbidden origin", status)
			return
		}
		next(w, r)
	}
}

func loopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func localOrigin(o string) bool {
	for _, p := range []string{"http://127.0.0.1", "http://localhost", "http://[::1]"} {
		if o == p || strings.HasPrefix(o, p+":") {
			return true
		}
	}
	return false
}

func (s *Server) newSessionID() string {
	s.http.mu.Lock()
	s.http.seq++
	n := s.http.seq
	s.http.mu.Unlock()
	if s.has("http/session-id-unpredictable") {
		return fmt.Sprintf("session-%012d", n)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	if s.has("http/session-id-charset") {
		id = "sess " + id
	}
	return id
}

func (s *Server) bodyLimit() int64 {
	if s.has("http/body-limit") || s.has("jsonrpc/oversized-message") {
		return 64 << 20
	}
	return maxMessage
}

// readBody reads a POST body, answering 413 above the limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, s.bodyLimit()+1))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return nil, false
	}
	if int64(len(body)) > s.bodyLimit() {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	return body, true
}

func (s *Server) serveStreamable(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodGet:
		if s.has("http/get-stream") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		}
		sess, ok := s.lookup(w, r)
		if !ok {
			return
		}
		if last := r.Header.Get("Last-Event-ID"); last != "" && !s.has("http/resume") && s.resumeStream(w, r, sess, last) {
			return // resume.go
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, ": open\n\n")
		w.(http.Flusher).Flush()
		// While the stream is open it carries the session's server-initiated
		// messages.
		out := make(chan []byte, 64)
		sess.setOutlet(chanOutlet(out))
		defer sess.setOutlet(nil)
		for {
			select {
			case m := <-out:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodDelete:
		id := r.Header.Get("Mcp-Session-Id")
		if _, ok := s.lookup(w, r); !ok {
			return
		}
		if !s.has("http/session-delete") {
			s.http.mu.Lock()
			delete(s.http.streamable, id)
			if s.quirk("delete-then-400") {
				s.http.ended[id] = true
			}
			s.http.mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// lookup finds the session named by the request; it answers 400 or 404
// itself when there is none.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*session, bool) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		if r.Method == http.MethodGet {
			http.Error(w, "GET without a session", http.StatusMethodNotAllowed)
			return nil, false
		}
		status := http.StatusBadRequest
		if s.has("http/session-required") {
			status = http.StatusNotFound
		}
		http.Error(w, "Mcp-Session-Id required", status)
		return nil, false
	}
	s.http.mu.Lock()
	sess, ok := s.http.streamable[id]
	s.http.mu.Unlock()
	if !ok {
		status := http.StatusNotFound
		s.http.mu.Lock()
		ended := s.http.ended[id]
		s.http.mu.Unlock()
		if s.has("http/session-unknown") || (ended && s.quirk("delete-then-400")) {
			status = http.StatusBadRequest
		}
		http.Error(w, "unknown session", status)
		return nil, false
	}
	return sess, true
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" && !s.has("http/content-type-required") {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	acc := r.Header.Get("Accept")
	if !(strings.Contains(acc, "application/json") && strings.Contains(acc, "text/event-stream")) && !s.has("http/accept-required") {
		http.Error(w, "Accept must list application/json and text/event-stream", http.StatusNotAcceptable)
		return
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	hdrs := map[string]string{}
	for _, k := range []string{"Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
		if v, ok := r.Header[k]; ok && len(v) > 0 {
			hdrs[k] = v[0]
		}
	}
	for k, v := range r.Header {
		if strings.HasPrefix(k, "Mcp-Param-") && len(v) > 0 {
			hdrs[k] = v[0] // x-mcp-header arguments (mrtr.go)
		}
	}
	rc := reqCtx{http: true, headers: hdrs}
	probe := s.probe(body)
	modern := probe.modern || (hdrs["Mcp-Protocol-Version"] != "" && !isLegacy(hdrs["Mcp-Protocol-Version"]))
	var sess *session
	if id := r.Header.Get("Mcp-Session-Id"); id != "" && !probe.modern {
		s.http.mu.Lock()
		_, known := s.http.streamable[id]
		s.http.mu.Unlock()
		// A known session id selects the initialize era whatever else the
		// request says.
		modern = modern && !known
	}
	switch {
	case modern:
		if s.has("stateless/no-session") {
			w.Header().Set("Mcp-Session-Id", s.newSessionID())
		}
	case probe.method == "initialize":
		sess = &session{id: s.newSessionID()}
		s.http.mu.Lock()
		s.http.streamable[sess.id] = sess
		s.http.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sess.id)
	default:
		if r.Header.Get("Mcp-Session-Id") == "" && s.has("lifecycle/request-before-initialize") {
			sess = &session{revision: latestLegacy, ready: true}
			break
		}
		var ok bool
		if sess, ok = s.lookup(w, r); !ok {
			return
		}
		pv, present := hdrs["Mcp-Protocol-Version"]
		if present && !isLegacy(pv) && !s.has("http/protocol-version-invalid") {
			http.Error(w, "unsupported MCP-Protocol-Version", http.StatusBadRequest)
			return
		}
		sess.mu.Lock()
		rev := sess.revision
		sess.mu.Unlock()
		if !present && rev >= "2025-06-18" && s.has("http/protocol-version-absent") {
			http.Error(w, "MCP-Protocol-Version required", http.StatusBadRequest)
			return
		}
	}
	if !modern {
		// The era is decided: do not let the header re-route the body.
		delete(rc.headers, "Mcp-Protocol-Version")
	}
	rep := s.process(sess, body, rc)
	if rep.crash {
		if sess != nil {
			s.http.mu.Lock()
			delete(s.http.streamable, sess.id)
			s.http.mu.Unlock()
		}
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if rep.listen != nil {
		serveListen(w, r, rep.msgs, rep.listen)
		return
	}
	if len(rep.msgs) == 0 && rep.later == nil {
		if s.has("http/notification-202") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	status := http.StatusOK
	if rep.status != 0 {
		status = rep.status
	}
	if (rep.stream || rep.later != nil) && status == http.StatusOK {
		s.writeStream(w, r, sess, rep.msgs, rep.later)
		return
	}
	ct := "application/json"
	if s.has("http/response-content-type") && probe.method != "initialize" {
		ct = "text/plain"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	w.Write(rep.msgs[len(rep.msgs)-1])
}

// writeStream answers with an event stream: an optional priming event,
// then one event per message.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, sess *session, msgs [][]byte, later func() [][]byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rev := modernRevision
	if sess != nil {
		sess.mu.Lock()
		rev = sess.revision
		sess.mu.Unlock()
	}
	var b bytes.Buffer
	st := s.openStream(sess) // event ids and the replay log (resume.go)
	defer st.finish()
	if rev == "2025-11-25" && !s.has("http/sse-priming") {
		fmt.Fprintf(&b, "id: %s\ndata: \n\n", st.add(nil))
	}
	event := func(m []byte, last bool) {
		fmt.Fprintf(&b, "event: message\nid: %s\ndata: %s\n", st.add(m), m)
		if !(last && s.has("http/sse-response")) {
			b.WriteString("\n")
		}
	}
	for i, m := range msgs {
		event(m, later == nil && i == len(msgs)-1)
	}
	w.Write(b.Bytes())
	if later == nil {
		return
	}
	w.(http.Flusher).Flush()
	b.Reset()
	rest := later()
	for i, m := range rest {
		event(m, i == len(rest)-1)
	}
	w.Write(b.Bytes())
}

type probeInfo struct {
	modern bool
	method string
}

// probe peeks at a body to route it (era, initialize).
func (s *Server) probe(body []byte) probeInfo {
	var m struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return probeInfo{}
	}
	return probeInfo{modern: isModern(m.Params), method: m.Method}
}

// serveSSE is the legacy event-stream endpoint.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := s.newSessionID()
	ss := &sseSession{sess: &session{id: id}, out: make(chan []byte, 64), done: make(chan struct{})}
	ss.sess.setOutlet(chanOutlet(ss.out))
	s.http.mu.Lock()
	s.http.legacy[id] = ss
	s.http.mu.Unlock()
	defer func() {
		s.http.mu.Lock()
		delete(s.http.legacy, id)
		s.http.mu.Unlock()
		close(ss.done)
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	name := "endpoint"
	if s.has("sse/endpoint-event") {
		name = "message"
	}
	fmt.Fprintf(w, "event: %s\ndata: /messages?sessionId=%s\n\n", name, id)
	w.(http.Flusher).Flush()
	for {
		select {
		case m := <-ss.out:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// serveMessages is the legacy POST endpoint.
func (s *Server) serveMessages(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.http.mu.Lock()
	ss, ok := s.http.legacy[r.URL.Query().Get("sessionId")]
	s.http.mu.Unlock()
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	rep := s.process(ss.sess, body, reqCtx{})
	if rep.crash {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if s.has("sse/post-response-on-stream") && len(rep.msgs) > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.Write(rep.msgs[len(rep.msgs)-1])
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "Accepted")
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	for _, m := range rep.msgs {
		select {
		case ss.out <- m:
		case <-ss.done:
			return
		case <-ctx.Done():
			return
		}
	}
	if rep.later != nil {
		// The POST has been answered; the rest arrives on the event stream.
		go func() {
			for _, m := range rep.later() {
				select {
				case ss.out <- m:
				case <-ss.done:
					return
				}
			}
		}()
	}
}
