package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// testServer is a JSON-RPC echo server on a Handler: every logical connection is
// served by a jsonrpc.Conn running echoHandler (no MCP layer involved).
type testServer struct {
	tb      testing.TB
	h       *Handler
	srv     *httptest.Server
	url     string
	mu      sync.Mutex
	conns   []*jsonrpc.Conn
	trans   []*ServerTransport
	methods []string // every method received, in order

	started   chan string   // ids of "block" calls that started
	attached  chan int64    // stream numbers a GET attached to
	posted    chan struct{} // a POST was served (dropped when nobody listens)
	release   chan struct{} // closed to let "gate" calls answer
	relOnce   sync.Once
	cancelled chan string // ids of "block" calls whose context ended
	closed    chan bool   // results of CloseSSEStream in "close-stream"
	connected chan *ServerTransport
	inited    chan struct{} // a notifications/initialized was handled
	waiting   chan string   // ids of "wait" calls that started
	waited    chan string   // ids of "wait" calls that ended

	// For "notifications/hold", "record" and "close-gate" (direct_test.go).
	events      []string        // "note-start", "note-end", "call-start <id>", in order; under mu
	direct      map[string]bool // id → whether the call ran directly (not queued for the reader); under mu
	onPOST      map[string]bool // id → whether the call ran on its POST's own goroutine; under mu
	noteStarted chan struct{}   // a "notifications/hold" handler started
	noteEnded   chan struct{}   // a "notifications/hold" handler recorded "note-end"
	noteRelease chan struct{}   // closed to let "notifications/hold" handlers return
	noteOnce    sync.Once
}

func newTestServer(tb testing.TB, opts *HandlerOptions) *testServer {
	tb.Helper()
	s := newUnstartedTestServer(tb, opts)
	s.srv.Start()
	s.url = s.srv.URL
	return s
}

// newUnstartedTestServer is newTestServer with its httptest.Server not started yet:
// the caller may configure it (TLS, HTTP/2, a wrapping handler), then must start it
// and set s.url.
func newUnstartedTestServer(tb testing.TB, opts *HandlerOptions) *testServer {
	tb.Helper()
	leaktest.Check(tb)
	s := &testServer{
		tb:        tb,
		started:   make(chan string, 16),
		attached:  make(chan int64, 64),
		posted:    make(chan struct{}, 64),
		release:   make(chan struct{}),
		cancelled: make(chan string, 16),
		closed:    make(chan bool, 16),
		connected: make(chan *ServerTransport, 1024),
		inited:    make(chan struct{}, 1024),
		waiting:   make(chan string, 4096),
		waited:    make(chan string, 4096),

		direct:      make(map[string]bool),
		onPOST:      make(map[string]bool),
		noteStarted: make(chan struct{}, 16),
		noteEnded:   make(chan struct{}, 16),
		noteRelease: make(chan struct{}),
	}
	s.h = NewHandler(s.connect, opts)
	s.h.attachHook = func(_ string, num int64) { s.attached <- num }
	s.h.postHook = func() {
		select {
		case s.posted <- struct{}{}:
		default:
		}
	}
	s.srv = httptest.NewUnstartedServer(s.h)
	tb.Cleanup(s.close)
	return s
}

func (s *testServer) open() { s.relOnce.Do(func() { close(s.release) }) }

// openNotes lets "notifications/hold" handlers return.
func (s *testServer) openNotes() { s.noteOnce.Do(func() { close(s.noteRelease) }) }

// record appends an event to s.events.
func (s *testServer) record(ev string) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
}

// recorded returns the events recorded so far.
func (s *testServer) recorded() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

// ranDirect reports whether the call with id (its raw JSON) was run directly (passed
// to the connection's DirectFunc by its POST, not read by the connection's reader),
// and whether it ran at all.
func (s *testServer) ranDirect(id string) (direct, ran bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	direct, ran = s.direct[id]
	return direct, ran
}

// noteDirect records whether the call req runs directly (the Conn's DirectFunc is
// on the calling goroutine's stack: on the POST's goroutine, or on the one it
// started for a resumable stream).
func (s *testServer) noteDirect(req *jsonrpc.Request) {
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	d := bytes.Contains(buf, []byte("jsonrpc.(*Conn).serveDirect("))
	p := bytes.Contains(buf, []byte("streamable.(*Handler).servePOST("))
	s.mu.Lock()
	s.direct[string(req.ID.Raw())] = d
	s.onPOST[string(req.ID.Raw())] = p
	s.mu.Unlock()
}

// ranOnPOST reports whether the call with id (its raw JSON) ran on its POST's own
// goroutine, and whether it ran at all.
func (s *testServer) ranOnPOST(id string) (onPOST, ran bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	onPOST, ran = s.onPOST[id]
	return onPOST, ran
}

func (s *testServer) close() {
	s.open()
	s.openNotes()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.h.Shutdown(ctx); err != nil {
		s.tb.Errorf("Shutdown: %v", err)
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.mu.Lock()
	conns := s.conns
	s.mu.Unlock()
	for _, c := range conns {
		select {
		case <-c.Done():
		case <-ctx.Done():
			s.tb.Errorf("a server connection did not end after Shutdown")
			return
		}
	}
}

func (s *testServer) connect(ctx context.Context, t jsonrpc.Transport) error {
	eh := &echoHandler{s: s, base: ctx, ready: make(chan struct{})}
	c := jsonrpc.NewConn(t, &jsonrpc.ConnOptions{Handler: eh, Context: ctx})
	eh.conn = c
	close(eh.ready)
	st := t.(*ServerTransport)
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.trans = append(s.trans, st)
	s.mu.Unlock()
	select {
	case s.connected <- st:
	default: // benchmarks open more connections than tests watch
	}
	return nil
}

func (s *testServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...)
}

type echoHandler struct {
	s     *testServer
	base  context.Context // no request in it: messages written with it are unrelated
	conn  *jsonrpc.Conn
	ready chan struct{}
}

func (e *echoHandler) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	<-e.ready
	e.s.mu.Lock()
	e.s.methods = append(e.s.methods, req.Method)
	e.s.mu.Unlock()
	if req.Method == "notifications/initialized" {
		select {
		case e.s.inited <- struct{}{}:
		default:
		}
	}
	params := req.Params
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	switch req.Method {
	case "echo", "initialize", "tools/call", "resources/read", "server/discover":
		if req.Header == nil {
			return nil, errors.New("request delivered without Header")
		}
		return params, nil
	case "progress":
		// Related to this request: travels on its POST stream.
		if err := e.conn.Notify(ctx, "notifications/progress", json.RawMessage(`{"progress":1}`)); err != nil {
			return nil, err
		}
		return params, nil
	case "unrelated":
		// Not related to any request: travels on the GET stream.
		if err := e.conn.Notify(e.base, "notifications/unrelated", json.RawMessage(`{"n":1}`)); err != nil {
			return nil, err
		}
		return params, nil
	case "sample":
		var out json.RawMessage
		if err := e.conn.Call(ctx, "sampling/createMessage", params, &out); err != nil {
			return nil, err
		}
		return out, nil
	case "close-stream":
		ok := CloseSSEStream(ctx)
		e.s.closed <- ok
		if err := e.conn.Notify(ctx, "notifications/progress", json.RawMessage(`{"progress":2}`)); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"closed":true}`), nil
	case "gate":
		e.s.noteDirect(req)
		e.s.started <- req.ID.Raw()
		select {
		case <-e.s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if err := e.conn.Notify(ctx, "notifications/progress", json.RawMessage(`{"progress":3}`)); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"gate":"open"}`), nil
	case "wait":
		// Like block, for many calls at once: runs until cancelled.
		e.s.waiting <- req.ID.Raw()
		<-ctx.Done()
		e.s.waited <- req.ID.Raw()
		return nil, ctx.Err()
	case "block":
		e.s.started <- req.ID.Raw()
		<-ctx.Done()
		e.s.cancelled <- req.ID.Raw()
		return nil, ctx.Err()
	case "notifications/hold":
		// A notification handler that blocks until the test lets it go.
		e.s.record("note-start")
		e.s.noteStarted <- struct{}{}
		select {
		case <-e.s.noteRelease:
		case <-e.base.Done():
		}
		e.s.record("note-end")
		e.s.noteEnded <- struct{}{}
		return nil, nil
	case "record":
		e.s.noteDirect(req)
		e.s.record("call-start " + string(req.ID.Raw()))
		return params, nil
	case "close-gate":
		// Progress (so the stream is SSE and has an event id), CloseSSEStream, then
		// wait for the gate: the POST's response must end while this still runs.
		e.s.noteDirect(req)
		if err := e.conn.Notify(ctx, "notifications/progress", json.RawMessage(`{"progress":1}`)); err != nil {
			return nil, err
		}
		e.s.closed <- CloseSSEStream(ctx)
		e.s.started <- req.ID.Raw()
		select {
		case <-e.s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return json.RawMessage(`{"gate":"open"}`), nil
	case "fail":
		var p struct {
			Code int64 `json:"code"`
		}
		json.Unmarshal(params, &p)
		return nil, &jsonrpc.Error{Code: p.Code, Message: "failed as asked"}
	case "notifications/cancelled":
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil {
			e.conn.Cancel(p.RequestID)
		}
		return nil, nil
	}
	if req.IsNotification() {
		return nil, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
}

// exchange is one raw HTTP exchange.
type exchange struct {
	status int
	header http.Header
	body   string
}

// do sends one raw request and reads the whole response.
func do(tb testing.TB, method, url string, hdr map[string]string, body string) exchange {
	tb.Helper()
	return doWith(tb, http.DefaultClient, method, url, hdr, body)
}

// doWith is do with a client of the caller's.
func doWith(tb testing.TB, client *http.Client, method, url string, hdr map[string]string, body string) exchange {
	tb.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("reading body: %v", err)
	}
	return exchange{resp.StatusCode, resp.Header, string(b)}
}

// postHeaders are the headers a conforming client sends on a POST.
func postHeaders(kv ...string) map[string]string {
	h := map[string]string{
		"Accept":       "application/json, text/event-stream",
		"Content-Type": "application/json",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(h, kv[i])
			continue
		}
		h[kv[i]] = kv[i+1]
	}
	return h
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// initSession opens a session with a raw initialize and returns its id.
func (s *testServer) initSession(tb testing.TB) string {
	tb.Helper()
	ex := do(tb, "POST", s.url, postHeaders(), initBody)
	if ex.status != 200 {
		tb.Fatalf("initialize: status %d: %s", ex.status, ex.body)
	}
	sid := ex.header.Get("Mcp-Session-Id")
	if sid == "" {
		tb.Fatalf("initialize: no Mcp-Session-Id")
	}
	return sid
}

// sseEvents parses an SSE body.
func sseEvents(tb testing.TB, body string) []sse.Event {
	tb.Helper()
	r := sse.NewReader(strings.NewReader(body), 0)
	var out []sse.Event
	for i := 0; i < 1000; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			tb.Fatalf("bad SSE body %q: %v", body, err)
		}
		ev.Data = append([]byte(nil), ev.Data...)
		out = append(out, ev)
	}
	tb.Fatalf("too many events")
	return nil
}

// messages returns the non-empty data of SSE events, or the body itself for JSON.
func messages(tb testing.TB, ex exchange) []string {
	tb.Helper()
	if strings.HasPrefix(ex.header.Get("Content-Type"), "text/event-stream") {
		var out []string
		for _, ev := range sseEvents(tb, ex.body) {
			if len(ev.Data) > 0 {
				out = append(out, string(ev.Data))
			}
		}
		return out
	}
	if ex.body == "" {
		return nil
	}
	return []string{ex.body}
}

// waitFor receives from ch or fails after a generous timeout.
func waitFor[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}
