package streamable

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// stalledClient is an HTTP client whose connections have a 4 KiB receive buffer:
// a response it never reads fills it, and the server's writes then block.
func stalledClient(t *testing.T) *http.Client {
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// A client that opens its GET stream and never reads it must not hold the writers
// of its session: a write that cannot finish within WriteTimeout breaks the response
// off (the events stay in the store for a resumption), and later writes return at
// once. The session still serves its POSTs.
func TestStalledGETStreamWriteDeadline(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{WriteTimeout: 200 * time.Millisecond, KeepAlive: -1})
	sid := s.initSession(t)
	tr := waitFor(t, s.connected, "the session's transport")

	req, _ := http.NewRequestWithContext(t.Context(), "GET", s.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := stalledClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read
	waitFor(t, s.attached, "the GET stream")

	// 256 KiB notifications on the GET stream, until the stream lets go of the
	// response (at most 256 of them: 64 MiB, far beyond any socket buffers).
	big := jsonrpc.Request{Method: "notifications/big", Params: []byte(`{"x":"` + strings.Repeat("x", 256<<10) + `"}`)}
	detached := make(chan int, 1)
	go func() {
		for i := 1; i <= 256; i++ {
			if err := tr.Write(t.Context(), &big); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
			tr.get.mu.Lock()
			gone := tr.get.att == nil
			tr.get.mu.Unlock()
			if gone {
				detached <- i
				return
			}
		}
		detached <- 0
	}()
	select {
	case n := <-detached:
		if n == 0 {
			t.Fatal("256 writes of 256 KiB to a client that reads nothing, and the stream still holds its response")
		}
		t.Logf("the stalled response was let go after %d writes", n)
	case <-time.After(10 * time.Second):
		resp.Body.Close() // lets the blocked write fail, so the test can end
		<-detached
		t.Fatal("a write to a client that stopped reading blocked for 10 s")
	}

	// Later messages for the stream go to the event store without waiting.
	start := time.Now()
	for i := 0; i < 10; i++ {
		if err := tr.Write(t.Context(), &big); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("10 writes after the response was let go took %v", d)
	}
	// The session serves a POST as before.
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody)
	if ex.status != 200 || !strings.Contains(ex.body, `"result":{"x":1}`) {
		t.Fatalf("POST after the stall: %d %s", ex.status, ex.body)
	}
}

// A client that stops sending its POST body is answered (400) once a read of the
// body has waited BodyReadTimeout, instead of holding the request forever.
func TestStalledBodyReadDeadline(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{BodyReadTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(initBody), initBody[:10])
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}

// A client that trickles its POST body, each byte well within BodyReadTimeout, is
// answered 408 once BodyTimeout has passed: the whole body has a deadline too.
func TestTrickledBodyTimeout(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{BodyReadTimeout: time.Second, BodyTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", 4<<20)
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 50 ms
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("answered after %v, want about 300ms", d)
	}
}

// Many unfinished bodies from one client address hold at most
// MaxBodyBytesInFlightPerClient of buffers (the rest get 429), not what their
// Content-Length declares, and another client is served meanwhile.
func TestUnfinishedBodiesCapped(t *testing.T) {
	const perClient = 4<<20 + 1 // one body of the default MaxBodyBytes (4 MiB), of unknown length
	s := newUnstartedTestServer(t, &HandlerOptions{MaxBodyBytesInFlightPerClient: perClient})
	statuses := make(chan int, 20) // the answers to the first client (which may not read them)
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.Header.Get("X-Client") // stands for the client's address
		r.RemoteAddr = c + ":1234"
		if c != "10.0.0.1" {
			s.h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		s.h.ServeHTTP(sw, r)
		statuses <- sw.status
	})
	s.srv.Start()
	s.url = s.srv.URL
	// 20 POSTs declaring 4 MiB, each stopped after 300 KiB: 80 MiB declared, a
	// buffer of 512 KiB each once its bytes are in, so at most 8 fit.
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 20; i++ {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: 10.0.0.1\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\n\r\n%s", 4<<20, strings.Repeat(" ", 300<<10))
	}
	for refused := 0; refused < 12; refused++ {
		select {
		case st := <-statuses:
			if st != http.StatusTooManyRequests {
				t.Fatalf("an unfinished body got %d, want 429", st)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 20 unfinished bodies refused; %d bytes held", refused, s.h.body.InFlight())
		}
	}
	if n := s.h.body.InFlight(); n > perClient {
		t.Fatalf("%d bytes held for one client's unfinished bodies (80 MiB declared), cap %d", n, perClient)
	} else {
		t.Logf("%d bytes held for 20 unfinished bodies declaring 80 MiB", n)
	}
	// Another client initializes and calls while the first holds its share.
	ex := do(t, "POST", s.url, postHeaders("X-Client", "10.0.0.2"), initBody)
	if ex.status != 200 {
		t.Fatalf("another client's initialize: %d %s", ex.status, ex.body)
	}
	for _, c := range conns {
		c.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); s.h.body.InFlight() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held after the clients left", s.h.body.InFlight())
		}
	}
}

// statusWriter records the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
