package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// testClient is a jsonrpc.Conn over a ClientTransport that answers sampling
// requests and records the notifications it receives.
type testClient struct {
	tr    *ClientTransport
	conn  *jsonrpc.Conn
	notes chan string // "method params"
}

func newTestClient(tb testing.TB, url string, opts *ClientOptions) *testClient {
	tb.Helper()
	tr, err := NewClient(url, opts)
	if err != nil {
		tb.Fatal(err)
	}
	c := &testClient{tr: tr, notes: make(chan string, 64)}
	c.conn = jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(
		func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsNotification() {
				c.notes <- req.Method + " " + string(req.Params)
				return nil, nil
			}
			if req.Method == "sampling/createMessage" {
				return json.RawMessage(`{"text":"from client"}`), nil
			}
			return nil, jsonrpc.ErrMethodNotFound
		})})
	tb.Cleanup(func() {
		c.conn.Close()
	})
	return c
}

func (c *testClient) call(tb testing.TB, ctx context.Context, method, params string) string {
	tb.Helper()
	var out json.RawMessage
	var p any
	if params != "" {
		p = json.RawMessage(params)
	}
	if err := c.conn.Call(ctx, method, p, &out); err != nil {
		tb.Fatalf("%s: %v", method, err)
	}
	return string(out)
}

func (c *testClient) initialize(tb testing.TB, ctx context.Context) {
	tb.Helper()
	c.call(tb, ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	if err := c.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		tb.Fatal(err)
	}
}

func TestClientRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts HandlerOptions
	}{
		{"adaptive", HandlerOptions{}},
		{"sse", HandlerOptions{AlwaysSSE: true}},
		{"json", HandlerOptions{JSONResponse: true}},
		{"stateless", HandlerOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, &tc.opts)
			c := newTestClient(t, s.url, nil)
			ctx := t.Context()
			c.initialize(t, ctx)
			if got := c.tr.ProtocolVersion(); got != "2025-11-25" {
				t.Errorf("sniffed protocol version %q", got)
			}
			stateful := !tc.opts.Stateless
			if stateful {
				if c.tr.SessionID() == "" {
					t.Fatal("no session id")
				}
				if num := waitFor(t, s.attached, "the GET stream"); num != 0 {
					t.Fatalf("GET attached to stream %d", num)
				}
			} else if c.tr.SessionID() != "" {
				t.Fatalf("stateless server issued session %q", c.tr.SessionID())
			}
			if got := c.call(t, ctx, "echo", `{"a":"b"}`); got != `{"a":"b"}` {
				t.Errorf("echo = %s", got)
			}
			if got := c.call(t, ctx, "progress", `{"p":1}`); got != `{"p":1}` {
				t.Errorf("progress = %s", got)
			}
			if tc.name != "json" || stateful {
				if n := waitFor(t, c.notes, "progress notification"); !strings.HasPrefix(n, "notifications/progress") {
					t.Errorf("got %q", n)
				}
			}
			if stateful {
				c.call(t, ctx, "unrelated", "")
				if n := waitFor(t, c.notes, "unrelated notification"); !strings.HasPrefix(n, "notifications/unrelated") {
					t.Errorf("got %q", n)
				}
				if got := c.call(t, ctx, "sample", `{"q":1}`); got != `{"text":"from client"}` {
					t.Errorf("sample = %s", got)
				}
			}
			// Concurrent calls on one session.
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for i := 0; i < 16; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var out json.RawMessage
					if err := c.conn.Call(ctx, "echo", json.RawMessage(`{"i":1}`), &out); err != nil || string(out) != `{"i":1}` {
						errs <- errors.Join(err, errors.New(string(out)))
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			c.conn.Close()
			if stateful {
				s.mu.Lock()
				sc := s.conns[0]
				s.mu.Unlock()
				waitFor(t, sc.Done(), "the session to end after the client's DELETE")
			}
		})
	}
}

func TestClientResumesAfterServerClosesStream(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{RetryInterval: 20 * time.Millisecond})
	c := newTestClient(t, s.url, &ClientOptions{DisableGETStream: true})
	ctx := t.Context()
	c.initialize(t, ctx)
	if got := c.call(t, ctx, "close-stream", ""); got != `{"closed":true}` {
		t.Fatalf("close-stream = %s", got)
	}
	if !waitFor(t, s.closed, "CloseSSEStream") {
		t.Fatal("CloseSSEStream reported false")
	}
	if n := waitFor(t, c.notes, "progress after resumption"); n != `notifications/progress {"progress":2}` {
		t.Errorf("got %q", n)
	}
}

func TestCloseSSEStreamRefusedWithoutResumability(t *testing.T) {
	for _, opts := range []HandlerOptions{{JSONResponse: true}, {Stateless: true}, {DisableResumability: true}} {
		s := newTestServer(t, &opts)
		c := newTestClient(t, s.url, &ClientOptions{DisableGETStream: true})
		c.initialize(t, t.Context())
		c.call(t, t.Context(), "close-stream", "")
		if waitFor(t, s.closed, "CloseSSEStream") {
			t.Errorf("%+v: CloseSSEStream succeeded on a stream that cannot be resumed", opts)
		}
	}
}

// cutTransport breaks the first POST response whose request body contains match
// right after its first SSE event.
type cutTransport struct {
	base  http.RoundTripper
	match string
	once  sync.Once
	cut   chan struct{}
	gets  chan string // Last-Event-ID of every GET
}

func (c *cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		c.gets <- req.Header.Get("Last-Event-ID")
	}
	var body []byte
	if req.Body != nil && req.Method == http.MethodPost {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil || !bytes.Contains(body, []byte(c.match)) {
		return resp, err
	}
	c.once.Do(func() {
		resp.Body = &cutBody{rc: resp.Body, cut: c.cut}
	})
	return resp, nil
}

// cutBody yields the stream up to the end of its first event, then fails.
type cutBody struct {
	rc   io.ReadCloser
	buf  []byte
	done bool
	cut  chan struct{}
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.ErrUnexpectedEOF
	}
	tmp := make([]byte, 1)
	for !bytes.HasSuffix(b.buf, []byte("\n\n")) {
		if _, err := b.rc.Read(tmp); err != nil {
			return 0, err
		}
		b.buf = append(b.buf, tmp[0])
	}
	b.done = true
	b.rc.Close()
	close(b.cut)
	return copy(p, b.buf), nil
}

func (b *cutBody) Close() error { return b.rc.Close() }

func TestClientResumesAfterDroppedStream(t *testing.T) {
	// An adaptive stream of a call that sends nothing gives the client no event id
	// to resume from: this needs the stream to start at once.
	s := newTestServer(t, &HandlerOptions{RetryInterval: 20 * time.Millisecond, AlwaysSSE: true})
	ct := &cutTransport{base: http.DefaultTransport.(*http.Transport).Clone(), match: `"gate"`,
		cut: make(chan struct{}), gets: make(chan string, 16)}
	defer ct.base.(*http.Transport).CloseIdleConnections()
	c := newTestClient(t, s.url, &ClientOptions{DisableGETStream: true, HTTPClient: &http.Client{Transport: ct}})
	ctx := t.Context()
	c.initialize(t, ctx)
	result := make(chan string, 1)
	go func() {
		var out json.RawMessage
		if err := c.conn.Call(ctx, "gate", nil, &out); err != nil {
			result <- "error: " + err.Error()
			return
		}
		result <- string(out)
	}()
	waitFor(t, s.started, "the gated call")
	waitFor(t, ct.cut, "the stream to be cut")
	last := waitFor(t, ct.gets, "the resuming GET")
	if !strings.HasSuffix(last, "-0") {
		t.Errorf("resumed with Last-Event-ID %q, want the priming event's id", last)
	}
	s.open()
	if got := waitFor(t, result, "the call result"); got != `{"gate":"open"}` {
		t.Fatalf("gate = %s", got)
	}
	if n := waitFor(t, c.notes, "progress"); n != `notifications/progress {"progress":3}` {
		t.Errorf("got %q", n)
	}
}

func TestClientReinitializesAfter404(t *testing.T) {
	s := newTestServer(t, nil)
	c := newTestClient(t, s.url, nil)
	ctx := t.Context()
	c.initialize(t, ctx)
	first := c.tr.SessionID()
	waitFor(t, s.attached, "the first GET stream")
	// The server forgets the session.
	old := waitFor(t, s.connected, "the session")
	old.Close()
	if got := c.call(t, ctx, "echo", `{"after":"404"}`); got != `{"after":"404"}` {
		t.Fatalf("echo after 404 = %s", got)
	}
	if c.tr.SessionID() == first || c.tr.SessionID() == "" {
		t.Fatalf("session id %q after re-initialization", c.tr.SessionID())
	}
	// Notifications are handled on the connection's own worker, possibly after the
	// call that followed returned: wait for both sessions' notifications/initialized.
	waitFor(t, s.inited, "the first notifications/initialized")
	waitFor(t, s.inited, "the second notifications/initialized")
	var inits, initialized int
	for _, m := range s.seen() {
		switch m {
		case "initialize":
			inits++
		case "notifications/initialized":
			initialized++
		}
	}
	if inits != 2 || initialized != 2 {
		t.Errorf("server saw %d initialize and %d initialized, want 2 and 2", inits, initialized)
	}
	waitFor(t, s.attached, "the new GET stream")
	// Nothing unexpected reached the client connection.
	select {
	case n := <-c.notes:
		t.Errorf("unexpected message %q", n)
	default:
	}
}

func TestClientReinitializeDisabled(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{DisableGET: true})
	c := newTestClient(t, s.url, &ClientOptions{DisableReinitialize: true})
	ctx := t.Context()
	c.initialize(t, ctx)
	waitFor(t, s.connected, "the session").Close()
	err := c.conn.Call(ctx, "echo", nil, nil)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 {
		t.Fatalf("err = %v, want a 404 StatusError", err)
	}
}

func TestClientModernRequests(t *testing.T) {
	s := newTestServer(t, nil)
	c := newTestClient(t, s.url, &ClientOptions{DisableGETStream: true})
	ctx := t.Context()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	got := c.call(t, ctx, "tools/call", `{`+meta+`,"name":"héllo tool"}`)
	if !strings.Contains(got, `"name":"héllo tool"`) {
		t.Fatalf("tools/call = %s", got)
	}
	err := c.conn.Call(ctx, "nope", json.RawMessage(`{`+meta+`}`), nil)
	if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Fatalf("unknown method: %v, want -32601 from the 404 body", err)
	}
	if c.tr.SessionID() != "" {
		t.Fatalf("modern requests opened session %q", c.tr.SessionID())
	}
}

func TestModernDisconnectCancels(t *testing.T) {
	s := newTestServer(t, nil)
	c := newTestClient(t, s.url, &ClientOptions{DisableGETStream: true})
	meta := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- c.conn.Call(ctx, "block", json.RawMessage(meta), nil) }()
	id := waitFor(t, s.started, "the blocking call")
	cancel()
	if got := waitFor(t, s.cancelled, "the server handler to be cancelled"); got != id {
		t.Errorf("cancelled %s, want %s", got, id)
	}
	if err := waitFor(t, errc, "the call to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("call error %v", err)
	}
}

func TestClientBadURL(t *testing.T) {
	if _, err := NewClient("ftp://x", nil); err == nil {
		t.Fatal("accepted a non-HTTP URL")
	}
}
