package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// Tests of direct calls (direct.go): a POST's single call runs on the POST's own
// goroutine unless DisableDirectCalls is set. Every test runs in both modes; the
// echo handler records, for the methods "record", "gate" and "close-gate", whether
// the call ran on its POST's goroutine (testServer.ranDirect).

var directModes = []struct {
	name   string
	direct bool
}{
	{"direct", true},
	{"queued", false},
}

// watchedServer is a testServer whose httptest.Server reports hijacked connections
// and the end of the HTTP request context of every request carrying X-Test-Watch.
type watchedServer struct {
	*testServer
	client   *http.Client
	hijacked chan struct{} // a connection was hijacked
	left     chan struct{} // the context of a request with X-Test-Watch ended
	served   chan struct{} // ServeHTTP returned for a request with X-Test-Watch
}

// passHijack is the ResponseWriter of a middleware that wraps the one net/http
// gives it and passes Flush and Hijack through with http.ResponseController,
// whether the underlying writer supports them or not (over HTTP/2, Hijack fails).
type passHijack struct{ http.ResponseWriter }

func (w passHijack) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w passHijack) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// writers are the ResponseWriters a Handler may be given: net/http's own, or a
// middleware's that implements http.Hijacker whatever the protocol.
var writers = []struct {
	name string
	wrap bool
}{
	{"net/http", false},
	{"middleware", true},
}

// newWatchedServer starts a watchedServer, over TLS with HTTP/2 enabled when h2.
// With wrap, the Handler gets a passHijack around net/http's ResponseWriter.
func newWatchedServer(t *testing.T, opts *HandlerOptions, h2, wrap bool) *watchedServer {
	t.Helper()
	s := newUnstartedTestServer(t, opts)
	w := &watchedServer{testServer: s, hijacked: make(chan struct{}, 16), left: make(chan struct{}, 16), served: make(chan struct{}, 16)}
	s.srv.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		if cs == http.StateHijacked {
			w.hijacked <- struct{}{}
		}
	}
	s.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		watch := r.Header.Get("X-Test-Watch") != ""
		if watch {
			context.AfterFunc(r.Context(), func() { w.left <- struct{}{} })
		}
		if wrap {
			rw = passHijack{rw}
		}
		s.h.ServeHTTP(rw, r)
		if watch {
			w.served <- struct{}{}
		}
	})
	if h2 {
		s.srv.EnableHTTP2 = true
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	s.url = s.srv.URL
	w.client = s.srv.Client() // its idle connections are closed with the server
	return w
}

// hijacks returns how many connections have been hijacked since the last call.
func (w *watchedServer) hijacks() int {
	for n := 0; ; n++ {
		select {
		case <-w.hijacked:
		default:
			return n
		}
	}
}

// send makes a request through the server's client and returns the response with
// its headers read, the body not (closed at the end of the test).
func (w *watchedServer) send(t *testing.T, ctx context.Context, method string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, w.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, body, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// post sends a POST (see send).
func (w *watchedServer) post(t *testing.T, ctx context.Context, hdr map[string]string, body string) *http.Response {
	t.Helper()
	return w.send(t, ctx, "POST", hdr, body)
}

// do is the package's do through the server's client; it also returns the
// response's major protocol version.
func (w *watchedServer) do(t *testing.T, method string, hdr map[string]string, body string) (exchange, int) {
	t.Helper()
	resp := w.send(t, t.Context(), method, hdr, body)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body of %s %s: %v", method, body, err)
	}
	return exchange{resp.StatusCode, resp.Header, string(b)}, resp.ProtoMajor
}

// initSession opens a session through the server's client.
func (w *watchedServer) initSession(t *testing.T) string {
	t.Helper()
	ex, _ := w.do(t, "POST", postHeaders(), initBody)
	sid := ex.header.Get("Mcp-Session-Id")
	if ex.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %q (session %q)", ex.status, ex.body, sid)
	}
	return sid
}

// postAsync is do for goroutines other than the test's: it reports errors instead
// of failing the test.
func postAsync(url string, hdr map[string]string, body string) (exchange, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return exchange{}, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return exchange{resp.StatusCode, resp.Header, string(b)}, err
}

// readToEnd reads r to its end on another goroutine and fails the test if that takes
// more than waitFor's timeout (a response that does not end).
func readToEnd(t *testing.T, r io.Reader, what string) string {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		ch <- result{b, err}
	}()
	res := waitFor(t, ch, what)
	if res.err != nil {
		t.Fatalf("%s: %v (read %q)", what, res.err, res.b)
	}
	return string(res.b)
}

// TestDirectNotificationThenCall: a notification (or a batch of notifications) the
// client got its 202 for reaches the connection before a later call does, and the
// call is answered while the notification's handler still runs: calls run
// concurrently with notifications, as they always did. A call after a notification
// passed directly runs directly too; after a batch (always read by the reader) it
// may be queued until the reader has come back for more. Calls run directly again
// once the transport's count of messages waiting for the reader is back to zero —
// unless DisableDirectCalls is set.
func TestDirectNotificationThenCall(t *testing.T) {
	notes := []struct {
		name string
		pv   string // batches exist only in 2025-03-26
		body string
		n    int
	}{
		{"notification", "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/hold"}`, 1},
		{"batch", "2025-03-26", `[{"jsonrpc":"2.0","method":"notifications/hold"},{"jsonrpc":"2.0","method":"notifications/hold"}]`, 2},
	}
	for _, mode := range directModes {
		for _, nc := range notes {
			t.Run(mode.name+"/"+nc.name, func(t *testing.T) {
				s := newTestServer(t, &HandlerOptions{DisableDirectCalls: !mode.direct})
				sid := s.initSession(t)
				hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", nc.pv)
				// post sends call id and reports what is wrong with its answer, if anything.
				post := func(id int) string {
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"record","params":{"n":%d}}`, id, id)
					ex, err := postAsync(s.url, hdr, body)
					if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`, id, id); err != nil || ex.status != 200 || ex.body != want {
						return fmt.Sprintf("call %d: %d %q (%v), want 200 %s", id, ex.status, ex.body, err, want)
					}
					return ""
				}
				call := func(id int) {
					t.Helper()
					if bad := post(id); bad != "" {
						t.Fatal(bad)
					}
				}
				ranDirect := func(id int) bool {
					t.Helper()
					d, ran := s.ranDirect(fmt.Sprint(id))
					if !ran {
						t.Fatalf("call %d did not run", id)
					}
					return d
				}

				// Nothing waits: the call runs on its POST's goroutine (direct mode only).
				call(1)
				if got := ranDirect(1); got != mode.direct {
					t.Fatalf("with nothing waiting, call 1 ran directly: %v, want %v", got, mode.direct)
				}

				ex := do(t, "POST", s.url, hdr, nc.body)
				if ex.status != 202 || ex.body != "" {
					t.Fatalf("notification POST: %d %q, want 202 and no body", ex.status, ex.body)
				}
				waitFor(t, s.noteStarted, "the notification handler to start")

				// The handler still blocks: call 2 is answered all the same.
				answered := make(chan string, 1)
				go func() { answered <- post(2) }()
				if bad := waitFor(t, answered, "call 2 to be answered while the notification handler blocks"); bad != "" {
					t.Fatal(bad)
				}
				if got := ranDirect(2); nc.n == 1 && got != mode.direct {
					t.Errorf("call 2 after a notification passed directly ran directly: %v, want %v", got, mode.direct)
				}
				if diff := cmp.Diff([]string{"call-start 1", "note-start", "call-start 2"}, s.recorded()); diff != "" {
					t.Errorf("events while the notification blocks (-want +got):\n%s", diff)
				}

				s.openNotes()
				for i := 0; i < nc.n; i++ {
					waitFor(t, s.noteEnded, "a notification handler to end")
				}
				// After a batch the reader may not have come back to Read yet (nothing
				// outside the Conn can see that moment), so a call may still be queued
				// once; it must run directly again soon after.
				id := 3
				for ; mode.direct && id < 203; id++ {
					call(id)
					if ranDirect(id) {
						break
					}
				}
				if mode.direct && id == 203 {
					t.Fatalf("no call ran directly again after the notifications were handled (%d tries)", id-3)
				}
				if !mode.direct {
					call(id)
					if ranDirect(id) {
						t.Errorf("call %d ran directly with DisableDirectCalls", id)
					}
				}
				var ends int
				for _, ev := range s.recorded() {
					if ev == "note-end" {
						ends++
					}
				}
				if ends != nc.n {
					t.Errorf("%d notification handlers ended, want %d: %q", ends, nc.n, s.recorded())
				}
			})
		}
	}
}

// closeGateBody is the request of the CloseSSEStream tests, and gateResult its
// response once the gate opens.
const (
	closeGateBody = `{"jsonrpc":"2.0","id":4,"method":"close-gate"}`
	gateResult    = `{"jsonrpc":"2.0","id":4,"result":{"gate":"open"}}`
)

// closedBody is the whole POST response of a "close-gate" call in the
// CloseSSEStream tests (a 2025-11-25 session, its second stream): the priming event,
// the progress event, and the retry block CloseSSEStream sends before it ends the
// response.
const closedBody = "id: 2-0\nretry: 1000\ndata: \n\n" +
	"event: message\nid: 2-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
	"retry: 1000\n\n"

// checkClosedEarly checks a CloseSSEStream test once its POST response has ended:
// the gate is still closed (the call still runs), CloseSSEStream reported true, the
// call waits at the gate, the body is exactly closedBody, and the call ran on its
// POST's goroutine or not, as wanted.
func checkClosedEarly(t *testing.T, s *watchedServer, body string, wantDirect bool) {
	t.Helper()
	select {
	case <-s.release:
		t.Fatal("the gate is open: the call may have returned") // only resumeAfter opens it
	default:
	}
	if !waitFor(t, s.closed, "CloseSSEStream") {
		t.Fatal("CloseSSEStream reported false")
	}
	if id := waitFor(t, s.started, "the handler to wait for the gate"); id != "4" {
		t.Fatalf("the gate waits for call %s, want 4", id)
	}
	if body != closedBody {
		t.Errorf("POST body %q\nwant %q", body, closedBody)
	}
	if d, ran := s.ranDirect("4"); !ran || d != wantDirect {
		t.Errorf("call ran %v, on its POST's goroutine %v; want true, %v", ran, d, wantDirect)
	}
}

// resumeAfter opens the gate and resumes stream 2 after lastID with GET: the
// replayed (or then sent) messages must be the call's result only.
func resumeAfter(t *testing.T, s *watchedServer, sid, lastID string) {
	t.Helper()
	s.open()
	ex, _ := s.do(t, "GET", map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid,
		"Mcp-Protocol-Version": "2025-11-25", "Last-Event-ID": lastID}, "")
	if got := messages(t, ex); ex.status != 200 || len(got) != 1 || got[0] != gateResult {
		t.Fatalf("GET after %s: %d %q, want 200 and %s", lastID, ex.status, ex.body, gateResult)
	}
	evs := sseEvents(t, ex.body)
	if last := evs[len(evs)-1]; last.ID != "2-2" {
		t.Errorf("the result came as event %q, want 2-2", last.ID)
	}
}

// lastEventID returns the id of the last event of an SSE body.
func lastEventID(t *testing.T, body string) string {
	t.Helper()
	evs := sseEvents(t, body)
	if len(evs) == 0 {
		t.Fatalf("no event in %q", body)
	}
	return evs[len(evs)-1].ID
}

// TestDirectCloseSSEStreamHTTP11: over HTTP/1.1, CloseSSEStream from a call ends
// the POST's chunked response while the call still runs; the client resumes with
// GET and Last-Event-ID and gets the result. A resumable stream's call never runs
// on its POST's goroutine (directly, it runs on a goroutine of its own), so the
// POST's goroutine can end the response itself: no connection is ever hijacked,
// through net/http's ResponseWriter or a middleware's.
func TestDirectCloseSSEStreamHTTP11(t *testing.T) {
	for _, mode := range directModes {
		for _, wr := range writers {
			t.Run(mode.name+"/"+wr.name, func(t *testing.T) {
				s := newWatchedServer(t, &HandlerOptions{DisableDirectCalls: !mode.direct}, false, wr.wrap)
				sid := s.initSession(t)
				resp := s.post(t, t.Context(), postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"), closeGateBody)
				if resp.ProtoMajor != 1 || resp.ProtoMinor != 1 || resp.StatusCode != 200 ||
					resp.Header.Get("Content-Type") != "text/event-stream" || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
					t.Fatalf("POST: %s %d %q %q, want HTTP/1.1 200 text/event-stream, chunked",
						resp.Proto, resp.StatusCode, resp.Header.Get("Content-Type"), resp.TransferEncoding)
				}
				// The gate is closed until resumeAfter: the call is still running.
				body := readToEnd(t, resp.Body, "the POST's response to end while its call still runs")
				checkClosedEarly(t, s, body, mode.direct)
				if n := s.hijacks(); n != 0 {
					t.Errorf("%d connections hijacked", n)
				}
				resumeAfter(t, s, sid, lastEventID(t, body))
				if n := s.hijacks(); n != 0 {
					t.Errorf("%d more connections hijacked", n)
				}
			})
		}
	}
}

// TestDirectCloseSSEStreamHTTP10: the same over HTTP/1.0 (raw TCP): the body is not
// chunked and ends when the connection closes, which happens while the call still
// runs; nothing follows the retry field, and nothing is hijacked.
func TestDirectCloseSSEStreamHTTP10(t *testing.T) {
	for _, mode := range directModes {
		t.Run(mode.name, func(t *testing.T) {
			s := newWatchedServer(t, &HandlerOptions{DisableDirectCalls: !mode.direct}, false, false)
			sid := s.initSession(t)
			addr := s.srv.Listener.Addr().String()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			req := "POST / HTTP/1.0\r\n" +
				"Host: " + addr + "\r\n" +
				"Accept: application/json, text/event-stream\r\n" +
				"Content-Type: application/json\r\n" +
				"Mcp-Session-Id: " + sid + "\r\n" +
				"Mcp-Protocol-Version: 2025-11-25\r\n" +
				fmt.Sprintf("Content-Length: %d\r\n", len(closeGateBody)) +
				"\r\n" + closeGateBody
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			raw := readToEnd(t, conn, "the server to close the connection while the call still runs")
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
			if err != nil {
				t.Fatalf("response %q: %v", raw, err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(raw, "HTTP/1.0 200 OK\r\n") || resp.Header.Get("Content-Type") != "text/event-stream" ||
				len(resp.TransferEncoding) != 0 || resp.ContentLength != -1 {
				t.Fatalf("response head %q (transfer encoding %q, length %d), want HTTP/1.0 200 text/event-stream, body to EOF",
					raw[:strings.Index(raw, "\r\n\r\n")], resp.TransferEncoding, resp.ContentLength)
			}
			checkClosedEarly(t, s, string(body), mode.direct)
			if n := s.hijacks(); n != 0 {
				t.Errorf("%d connections hijacked", n)
			}
			resumeAfter(t, s, sid, lastEventID(t, string(body)))
		})
	}
}

// TestDirectCloseSSEStreamHTTP2: over HTTP/2 CloseSSEStream ends the POST's
// response early as over HTTP/1.x, and nothing is hijacked.
func TestDirectCloseSSEStreamHTTP2(t *testing.T) {
	for _, mode := range directModes {
		for _, wr := range writers {
			t.Run(mode.name+"/"+wr.name, func(t *testing.T) {
				s := newWatchedServer(t, &HandlerOptions{DisableDirectCalls: !mode.direct}, true, wr.wrap)
				sid := s.initSession(t)
				resp := s.post(t, t.Context(), postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"), closeGateBody)
				if resp.ProtoMajor != 2 || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
					t.Fatalf("POST: %s %d %q, want HTTP/2.0 200 text/event-stream", resp.Proto, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
				body := readToEnd(t, resp.Body, "the POST's response to end while its call still runs")
				checkClosedEarly(t, s, body, mode.direct)
				resumeAfter(t, s, sid, lastEventID(t, body))
				if n := s.hijacks(); n != 0 {
					t.Errorf("%d connections hijacked over HTTP/2", n)
				}
			})
		}
	}
}

// TestDirectOverHTTP2: over HTTP/2 calls run directly as over HTTP/1.x, on the
// POST's goroutine when the stream cannot be ended early (a JSON reply, or
// resumability off), else on a goroutine of their own.
func TestDirectOverHTTP2(t *testing.T) {
	for _, mode := range directModes {
		for _, oc := range []struct {
			name string
			opts HandlerOptions
		}{
			{"adaptive", HandlerOptions{}},
			{"sse", HandlerOptions{AlwaysSSE: true}},
			{"json", HandlerOptions{JSONResponse: true}},
			{"no resumability", HandlerOptions{DisableResumability: true}},
		} {
			t.Run(mode.name+"/"+oc.name, func(t *testing.T) {
				opts := oc.opts
				opts.DisableDirectCalls = !mode.direct
				s := newWatchedServer(t, &opts, true, false)
				sid := s.initSession(t)
				ex, proto := s.do(t, "POST", postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"),
					`{"jsonrpc":"2.0","id":5,"method":"record","params":{"r":5}}`)
				if got := messages(t, ex); proto != 2 || ex.status != 200 || len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":5,"result":{"r":5}}` {
					t.Fatalf("record: HTTP/%d %d %q", proto, ex.status, ex.body)
				}
				want := mode.direct
				if d, ran := s.ranDirect("5"); !ran || d != want {
					t.Errorf("call ran %v, on its POST's goroutine %v; want true, %v", ran, d, want)
				}
			})
		}
	}
}

// TestDirectCallsDisabledSameExchange: DisableDirectCalls changes how calls run, not
// what the client sees: the same exchange gets the same statuses, content types and
// bodies in both modes.
func TestDirectCallsDisabledSameExchange(t *testing.T) {
	type step struct {
		method, pv, body string
		lastEventID      string // GET only
	}
	steps := []step{
		{"POST", "", initBody, ""},
		// Right after initialize nothing waits: in direct mode "r" runs directly.
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":"r","method":"record","params":{"r":1}}`, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"POST", "2025-11-25", echoBody, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":"p","method":"progress","params":{"p":1}}`, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":8,"method":"fail","params":{"code":-32001}}`, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":9,"method":"nope"}`, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":"s1","result":{}}`, ""},
		{"POST", "2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":2,"method":"echo"}]`, ""},
		{"POST", "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"close-stream"}`, ""},
		{"GET", "2025-11-25", "", "8-0"},
		{"DELETE", "2025-11-25", "", ""},
		{"POST", "2025-11-25", echoBody, ""},
	}
	want := []struct {
		status int
		ct     string
	}{
		{200, "application/json"}, {200, "application/json"}, {202, ""}, {200, "application/json"},
		{200, "text/event-stream"}, {200, "application/json"}, {200, "application/json"}, {202, ""},
		{200, "application/json"}, {200, "text/event-stream"}, {200, "text/event-stream"}, {200, ""}, {404, "application/json"},
	}
	run := func(t *testing.T, direct bool) []string {
		s := newTestServer(t, &HandlerOptions{DisableDirectCalls: !direct})
		var out []string
		sid := ""
		for i, st := range steps {
			hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", st.pv)
			if st.method != "POST" {
				hdr = map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": st.lastEventID}
			}
			ex := do(t, st.method, s.url, hdr, st.body)
			if i == 0 {
				sid = ex.header.Get("Mcp-Session-Id")
			}
			if ex.status != want[i].status || ex.header.Get("Content-Type") != want[i].ct {
				t.Errorf("step %d (%s %s): %d %q, want %d %q (body %q)", i, st.method, st.body,
					ex.status, ex.header.Get("Content-Type"), want[i].status, want[i].ct, ex.body)
			}
			body := ex.body
			if st.method == "GET" {
				// Whether the handler had finished when the GET came decides only
				// whether a priming event precedes the replay.
				body = strings.Join(messages(t, ex), "\n")
			}
			if strings.HasPrefix(st.body, "[") {
				// The calls of a batch run concurrently: their responses come in
				// either order.
				var els []json.RawMessage
				if err := json.Unmarshal([]byte(ex.body), &els); err != nil {
					t.Fatalf("batch reply %q: %v", ex.body, err)
				}
				sorted := make([]string, len(els))
				for i, el := range els {
					sorted[i] = string(el)
				}
				slices.Sort(sorted)
				body = "[" + strings.Join(sorted, ",") + "]"
			}
			out = append(out, fmt.Sprintf("%d %s %s", ex.status, ex.header.Get("Content-Type"), body))
		}
		if d, ran := s.ranDirect(`"r"`); !ran || d != direct {
			t.Errorf("call \"r\" ran %v, on its POST's goroutine %v; want true, %v", ran, d, direct)
		}
		return out
	}
	var got [2][]string
	for i, mode := range directModes {
		t.Run(mode.name, func(t *testing.T) { got[i] = run(t, mode.direct) })
	}
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("exchange (-direct +queued):\n%s", diff)
	}
	// Spot checks of what both saw.
	for _, w := range []struct {
		step int
		sub  string
	}{
		{1, `{"jsonrpc":"2.0","id":"r","result":{"r":1}}`},
		{3, `{"jsonrpc":"2.0","id":7,"result":{"x":1}}`},
		{4, "id: 4-0\nretry: 1000\ndata: \n\n"},
		{4, `"method":"notifications/progress"`},
		{4, `data: {"jsonrpc":"2.0","id":"p","result":{"p":1}}`},
		{5, `"id":8,"error":{"code":-32001`},
		{6, `"id":9,"error":{"code":-32601`},
		{8, `"id":1,"result":{"a":1}`},
		{8, `"id":2,"result":{}`},
		{9, "retry: 1000\n\n"},
		{10, `"id":2,"result":{"closed":true}`},
	} {
		if len(got[0]) > w.step && !strings.Contains(got[0][w.step], w.sub) {
			t.Errorf("step %d: %q lacks %q", w.step, got[0][w.step], w.sub)
		}
	}
}

// TestDirectClientGoneKeepsEvents: a client that leaves an SSE stream (AlwaysSSE,
// resumable, priming event received) while its call blocks: what the call sends
// afterwards goes to the event store, not to the dead connection, and a GET with
// the priming event's id replays it. The call keeps running on its POST's goroutine
// (direct mode), which cannot see the client leave: the write itself checks.
func TestDirectClientGoneKeepsEvents(t *testing.T) {
	for _, mode := range directModes {
		t.Run(mode.name, func(t *testing.T) {
			s := newWatchedServer(t, &HandlerOptions{AlwaysSSE: true, DisableDirectCalls: !mode.direct}, false, false)
			sid := s.initSession(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25", "X-Test-Watch", "1")
			resp := s.post(t, ctx, hdr, `{"jsonrpc":"2.0","id":9,"method":"gate"}`)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("POST: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			prime, err := sse.NewReader(resp.Body, 0).Next()
			if err != nil || prime.ID != "2-0" || len(prime.Data) != 0 {
				t.Fatalf("first event %+v %v, want the priming event 2-0", prime, err)
			}
			waitFor(t, s.started, "the gated call")
			cancel()
			resp.Body.Close()
			waitFor(t, s.left, "the server to see the client leave")

			s.open() // the call sends a progress notification, then its result
			if mode.direct {
				// The POST's goroutine returns once the call has been answered.
				waitFor(t, s.served, "the gated POST to end with its call")
			}
			if d, ran := s.ranDirect("9"); !ran || d != mode.direct {
				t.Errorf("call ran %v, on its POST's goroutine %v; want true, %v", ran, d, mode.direct)
			}
			ex := do(t, "GET", s.url, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid,
				"Mcp-Protocol-Version": "2025-11-25", "Last-Event-ID": prime.ID}, "")
			var got []string
			for _, ev := range sseEvents(t, ex.body) {
				if len(ev.Data) > 0 {
					got = append(got, ev.ID+" "+string(ev.Data))
				}
			}
			want := []string{
				`2-1 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3}}`,
				`2-2 {"jsonrpc":"2.0","id":9,"result":{"gate":"open"}}`,
			}
			if diff := cmp.Diff(want, got); ex.status != 200 || diff != "" {
				t.Errorf("GET after %s: %d, events (-want +got):\n%s", prime.ID, ex.status, diff)
			}
		})
	}
}

// TestDirectGoroutineByRevision: a call runs on its POST's own goroutine unless
// CloseSSEStream may end its stream, which it may only for a resumable stream of a
// 2025-11-25 or later client: then the call runs on a goroutine of its own (still
// directly). Before 2025-11-25, CloseSSEStream reports false even once an event with
// an id was sent (the client is owed the response on the stream).
func TestDirectGoroutineByRevision(t *testing.T) {
	for _, tc := range []struct {
		rev        string
		resumable  bool
		wantOnPOST bool
	}{
		{"2025-11-25", true, false},
		{"2025-06-18", true, true},
		{"2025-03-26", true, true},
		{"2024-11-05", true, true},
		{"2025-11-25", false, true},
	} {
		t.Run(fmt.Sprintf("%s/resumable=%v", tc.rev, tc.resumable), func(t *testing.T) {
			s := newTestServer(t, &HandlerOptions{DisableResumability: !tc.resumable})
			ex := do(t, "POST", s.url, postHeaders(), strings.Replace(initBody, "2025-11-25", tc.rev, 1))
			sid := ex.header.Get("Mcp-Session-Id")
			if ex.status != 200 || sid == "" {
				t.Fatalf("initialize: %d %q", ex.status, ex.body)
			}
			hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", tc.rev)
			ex = do(t, "POST", s.url, hdr, `{"jsonrpc":"2.0","id":7,"method":"record","params":{"n":7}}`)
			if want := `{"jsonrpc":"2.0","id":7,"result":{"n":7}}`; ex.status != 200 || ex.body != want {
				t.Fatalf("record: %d %q, want 200 %s", ex.status, ex.body, want)
			}
			if d, ran := s.ranDirect("7"); !ran || !d {
				t.Fatalf("call ran %v, directly %v; want true, true", ran, d)
			}
			if p, _ := s.ranOnPOST("7"); p != tc.wantOnPOST {
				t.Errorf("call ran on its POST's goroutine: %v, want %v", p, tc.wantOnPOST)
			}
			if tc.rev == "2025-11-25" {
				return // the early end of a 2025-11-25 stream: TestDirectCloseSSEStream*
			}
			// A progress event (with an id when resumable), then CloseSSEStream: refused;
			// the response still arrives on the POST's stream.
			type answer struct {
				ex  exchange
				err error
			}
			done := make(chan answer, 1)
			go func() {
				ex, err := postAsync(s.url, hdr, closeGateBody)
				done <- answer{ex, err}
			}()
			if waitFor(t, s.closed, "CloseSSEStream") {
				t.Error("CloseSSEStream ended the stream of a client before 2025-11-25")
			}
			if id := waitFor(t, s.started, "the handler to wait for the gate"); id != "4" {
				t.Fatalf("the gate waits for call %s, want 4", id)
			}
			s.open()
			a := <-done
			if a.err != nil {
				t.Fatal(a.err)
			}
			if got := messages(t, a.ex); a.ex.status != 200 || len(got) != 2 || got[1] != gateResult {
				t.Errorf("close-gate POST: %d %q, want the progress notification and %s", a.ex.status, a.ex.body, gateResult)
			}
		})
	}
}
