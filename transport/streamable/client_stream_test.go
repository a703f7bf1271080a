package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

// mockServer is a hand-written Streamable HTTP server for client tests: it answers
// initialize with JSON, accepts notifications with 202 and hands every other request
// to the test's functions. Handlers that keep a stream open (hold) end when the
// client lets go of it or when stop is closed, before the server closes.
type mockServer struct {
	url  string
	stop chan struct{} // made by the test, closed by newMockServer's cleanup
	// post serves a POSTed request other than initialize (method and raw id given).
	post func(w http.ResponseWriter, r *http.Request, method, id string)
	// get serves a GET; last is its Last-Event-ID.
	get func(w http.ResponseWriter, r *http.Request, last string)
}

func newMockServer(t *testing.T, m *mockServer) *mockServer {
	t.Helper()
	leaktest.Check(t)
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	m.url = srv.URL
	t.Cleanup(func() {
		close(m.stop)
		srv.Close()
	})
	return m
}

func (m *mockServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Mcp-Session-Id", "s1")
	switch r.Method {
	case http.MethodGet:
		if m.get == nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m.get(w, r, r.Header.Get("Last-Event-ID"))
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		switch {
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mock","version":"1"}}}`, msg.ID)
		default:
			m.post(w, r, msg.Method, string(msg.ID))
		}
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	}
}

// hold keeps a response open until the client lets go of it or stop is closed. It
// reports whether the client let go.
func hold(r *http.Request, stop <-chan struct{}) bool {
	select {
	case <-r.Context().Done():
		return true
	case <-stop:
		return false
	}
}

func sseStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

func sseWrite(w http.ResponseWriter, s string) {
	io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func mockClient(t *testing.T, url string, opts *ClientOptions) *jsonrpc.Conn {
	t.Helper()
	tr, err := NewClient(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(tr, nil)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// callResult runs a call with a generous bound and returns its result or error text.
func callResult(conn *jsonrpc.Conn, method string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out json.RawMessage
	if err := conn.Call(ctx, method, map[string]string{"name": "t"}, &out); err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

// The sse-retry client scenario: the reply stream ends after its priming event, the
// client resumes with GET and Last-Event-ID, and the server sends the response on
// that GET and keeps it open. Call returns with the response and the client lets go
// of the resumed stream.
func TestClientResumedStreamStaysOpen(t *testing.T) {
	released := make(chan bool, 1)
	lastIDs := make(chan string, 4)
	var pending atomic.Value // the raw id of the tools/call
	stop := make(chan struct{})
	m := newMockServer(t, &mockServer{stop: stop,
		post: func(w http.ResponseWriter, r *http.Request, method, id string) {
			pending.Store(id)
			sseStart(w)
			sseWrite(w, "id: e1\nretry: 1\ndata: \n\n") // priming, then the stream ends
		},
		get: func(w http.ResponseWriter, r *http.Request, last string) {
			lastIDs <- last
			sseStart(w)
			sseWrite(w, "id: e2\nretry: 1\ndata: \n\n")
			sseWrite(w, `event: message`+"\nid: e3\n"+`data: {"jsonrpc":"2.0","id":`+pending.Load().(string)+`,"result":{"ok":true}}`+"\n\n")
			released <- hold(r, stop)
		},
	})
	conn := mockClient(t, m.url, &ClientOptions{ProtocolVersion: "2025-11-25", DisableGETStream: true})
	if got := callResult(conn, "tools/call"); got != `{"ok":true}` {
		t.Fatalf("Call = %s, want the response sent on the resumed stream", got)
	}
	if last := waitFor(t, lastIDs, "the resuming GET"); last != "e1" {
		t.Errorf("resumed with Last-Event-ID %q, want e1", last)
	}
	if !waitFor(t, released, "the resumed stream to be released") {
		t.Error("the client kept reading the resumed stream after its response")
	}
}

// initializeMock runs the handshake against a mockServer.
func initializeMock(t *testing.T, conn *jsonrpc.Conn) {
	t.Helper()
	if got := callResult(conn, "initialize"); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize = %s", got)
	}
	if err := conn.Notify(t.Context(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
}

// The response travels on the standalone GET stream while the client waits to
// resume its reply stream (the server asked for a one-minute retry): Call returns at
// once and the client never resumes.
func TestClientResponseOnStandaloneGET(t *testing.T) {
	stop := make(chan struct{})
	pending := make(chan string, 1)
	resumed := make(chan string, 4)
	m := newMockServer(t, &mockServer{stop: stop,
		post: func(w http.ResponseWriter, r *http.Request, method, id string) {
			sseStart(w)
			sseWrite(w, "id: p1\nretry: 60000\ndata: \n\n")
			pending <- id
		},
		get: func(w http.ResponseWriter, r *http.Request, last string) {
			if last != "" {
				resumed <- last
				w.WriteHeader(http.StatusNotFound)
				return
			}
			sseStart(w)
			sseWrite(w, ": open\n\n")
			select {
			case id := <-pending:
				sseWrite(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":`+id+`,"result":{"via":"get"}}`+"\n\n")
			case <-stop:
				return
			case <-r.Context().Done():
				return
			}
			hold(r, stop)
		},
	})
	conn := mockClient(t, m.url, nil)
	initializeMock(t, conn)
	if got := callResult(conn, "tools/call"); got != `{"via":"get"}` {
		t.Fatalf("Call = %s, want the response sent on the GET stream", got)
	}
	select {
	case last := <-resumed:
		t.Errorf("the client resumed its reply stream (Last-Event-ID %q) after the response had arrived", last)
	default:
	}
}

// A server that keeps its POST stream open after the response does not hold the
// call: the client lets go of the stream shortly after the response.
func TestClientReplyStreamStaysOpen(t *testing.T) {
	stop := make(chan struct{})
	released := make(chan bool, 1)
	m := newMockServer(t, &mockServer{stop: stop,
		post: func(w http.ResponseWriter, r *http.Request, method, id string) {
			sseStart(w)
			sseWrite(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":`+id+`,"result":{"open":true}}`+"\n\n")
			released <- hold(r, stop)
		},
	})
	conn := mockClient(t, m.url, &ClientOptions{DisableGETStream: true})
	if got := callResult(conn, "tools/call"); got != `{"open":true}` {
		t.Fatalf("Call = %s", got)
	}
	if !waitFor(t, released, "the POST stream to be released") {
		t.Error("the client kept reading the reply stream after its response")
	}
}

// After the last response the client reads its reply stream to the end the server
// gives it, so the connection goes back to the pool: the next POST reuses it.
func TestClientReadsReplyStreamToItsEnd(t *testing.T) {
	stop := make(chan struct{})
	end := make(chan struct{}, 1) // lets the current POST stream end
	addrs := make(chan string, 2)
	m := newMockServer(t, &mockServer{stop: stop,
		post: func(w http.ResponseWriter, r *http.Request, method, id string) {
			addrs <- r.RemoteAddr
			sseStart(w)
			sseWrite(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`+"\n\n")
			select {
			case <-end:
			case <-r.Context().Done():
			case <-stop:
			}
		},
	})
	tr, err := NewClient(m.url, &ClientOptions{DisableGETStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	tr.tailGrace = time.Minute // the stream's end comes when the test says so
	for i := range 2 {
		written := make(chan error, 1)
		go func() {
			written <- tr.Write(t.Context(), &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i + 1)), Method: "echo"})
		}()
		msg, err := tr.Read(t.Context())
		if r, ok := msg.(*jsonrpc.Response); err != nil || !ok || r.ID != jsonrpc.Int64ID(int64(i+1)) {
			t.Fatalf("Read = %v, %v; want response %d", msg, err, i+1)
		}
		end <- struct{}{} // only now does the server end the stream
		if err := waitFor(t, written, "Write to return"); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := <-addrs, <-addrs; a != b {
		t.Errorf("the second POST came from %s, the first from %s: the connection was not reused", b, a)
	}
}

// The elicitation-sep1034-client-defaults scenario: the server sends its request on
// the GET stream as soon as the next POST arrives. Write(notifications/initialized)
// returns only once the GET stream has been answered.
func TestInitializedWaitsForGETStream(t *testing.T) {
	stop := make(chan struct{})
	getArrived := make(chan struct{}, 1)
	answer := make(chan struct{})
	m := newMockServer(t, &mockServer{stop: stop,
		get: func(w http.ResponseWriter, r *http.Request, last string) {
			getArrived <- struct{}{}
			select {
			case <-answer:
			case <-stop:
				return
			}
			sseStart(w)
			sseWrite(w, ": open\n\n")
			hold(r, stop)
		},
	})
	conn := mockClient(t, m.url, nil)
	if got := callResult(conn, "initialize"); !strings.Contains(got, "2025-11-25") {
		t.Fatalf("initialize = %s", got)
	}
	notified := make(chan error, 1)
	go func() { notified <- conn.Notify(t.Context(), "notifications/initialized", nil) }()
	waitFor(t, getArrived, "the GET")
	select {
	case err := <-notified:
		t.Fatalf("Notify(notifications/initialized) returned (%v) before the GET stream was answered", err)
	default:
	}
	close(answer)
	if err := waitFor(t, notified, "Notify to return"); err != nil {
		t.Fatal(err)
	}
}

// The wait for the GET stream never outlasts the caller's context.
func TestInitializedWaitEndsWithContext(t *testing.T) {
	stop := make(chan struct{})
	getArrived := make(chan struct{}, 1)
	m := newMockServer(t, &mockServer{stop: stop,
		get: func(w http.ResponseWriter, r *http.Request, last string) {
			getArrived <- struct{}{}
			hold(r, stop) // never answered
		},
	})
	conn := mockClient(t, m.url, nil)
	callResult(conn, "initialize")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	notified := make(chan error, 1)
	go func() { notified <- conn.Notify(ctx, "notifications/initialized", nil) }()
	waitFor(t, getArrived, "the GET")
	cancel()
	// Not the three-second bound: waitFor's own limit is far above it, so this
	// asserts only that Notify returns; the context ends it at once.
	start := time.Now()
	if err := waitFor(t, notified, "Notify to return"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= getReadyWait {
		t.Errorf("Notify returned after %v, not when its context ended", d)
	}
}

// Over a jsonrpc.Conn, a notification the server sends on the reply stream before
// the response has been handled when Call returns.
func TestClientNotificationBeforeResponse(t *testing.T) {
	stop := make(chan struct{})
	m := newMockServer(t, &mockServer{stop: stop,
		post: func(w http.ResponseWriter, r *http.Request, method, id string) {
			sseStart(w)
			sseWrite(w, "event: message\ndata: "+`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`+"\n\n")
			sseWrite(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`+"\n\n")
		},
	})
	tr, err := NewClient(m.url, &ClientOptions{DisableGETStream: true})
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	conn := jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		handled.Add(1)
		return nil, nil
	})})
	defer conn.Close()
	for i := range 20 {
		if got := callResult(conn, "echo"); got != `{}` {
			t.Fatalf("call %d = %s", i, got)
		}
		if n := handled.Load(); n != int32(i+1) {
			t.Fatalf("after call %d, %d notifications handled, want %d", i, n, i+1)
		}
	}
}
