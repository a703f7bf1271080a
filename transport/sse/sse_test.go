package sse

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

type server struct {
	h     *Handler
	srv   *httptest.Server
	mu    sync.Mutex
	conns []*jsonrpc.Conn
}

func newServer(t *testing.T, opts *HandlerOptions, wrap ...func(http.Handler) http.Handler) *server {
	t.Helper()
	leaktest.Check(t)
	s := &server{}
	s.h = NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		var c *jsonrpc.Conn
		ready := make(chan struct{})
		c = jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Context: ctx, Handler: jsonrpc.HandlerFunc(
			func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				<-ready
				switch req.Method {
				case "echo":
					if req.Header == nil {
						return nil, jsonrpc.ErrInternal
					}
					return req.Params, nil
				case "sample":
					var out json.RawMessage
					err := c.Call(ctx, "sampling/createMessage", nil, &out)
					return out, err
				}
				return nil, nil
			})})
		close(ready)
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		return nil
	}, opts)
	var root http.Handler = s.h
	for _, w := range wrap {
		root = w(root)
	}
	s.srv = httptest.NewServer(root)
	t.Cleanup(func() {
		s.h.Shutdown(context.Background())
		s.srv.CloseClientConnections()
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				t.Error("server connection did not end")
			}
		}
	})
	return s
}

// openStream GETs the SSE endpoint and returns the endpoint event's data.
func openStream(t *testing.T, s *server, hdr map[string]string) (*http.Response, *bufio.Reader, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.srv.URL+"/sse", nil)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		return resp, nil, ""
	}
	br := bufio.NewReader(resp.Body)
	var ev, data string
	for ev == "" || data == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\n")
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			ev = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
		}
	}
	if ev != "endpoint" {
		t.Fatalf("first event %q, want endpoint", ev)
	}
	br.ReadString('\n') // blank line
	return resp, br, data
}

func post(t *testing.T, url, ct, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRawExchanges(t *testing.T) {
	s := newServer(t, &HandlerOptions{MaxBodyBytes: 256})
	resp, br, ep := openStream(t, s, nil)
	defer resp.Body.Close()
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Fatalf("Content-Type %q", got)
	}
	if !strings.HasPrefix(ep, "/sse?sessionId=") {
		t.Fatalf("endpoint %q", ep)
	}
	target := s.srv.URL + ep
	for _, tc := range []struct {
		name, url, ct, body string
		status              int
	}{
		{"accepted", target, "application/json", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`, 202},
		{"no session", s.srv.URL + "/sse", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 400},
		{"unknown session", s.srv.URL + "/sse?sessionId=zz", "application/json", `{}`, 404},
		{"wrong content type", target, "text/plain", `{}`, 415},
		{"missing content type", target, "", `{"jsonrpc":"2.0","method":"notifications/x"}`, 415},
		{"malformed", target, "application/json", `{"jsonrpc"`, 400},
		{"too large", target, "application/json", `{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("x", 300) + `"}}`, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, tc.url, tc.ct, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d (%s)", status, tc.status, body)
			}
			if status == 202 && body != "Accepted" {
				t.Errorf("body %q", body)
			}
			if status == 413 && !strings.Contains(body, "Request body too large: at most ") {
				t.Errorf("body %q: want the limit", body)
			}
		})
	}
	// The reply to the accepted request travels on the stream.
	var ev, data string
	for data == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\n")
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			ev = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
		}
	}
	if ev != "message" || data != `{"jsonrpc":"2.0","id":1,"result":{"a":1}}` {
		t.Fatalf("event %q data %q", ev, data)
	}
}

func TestOriginAndHost(t *testing.T) {
	s := newServer(t, nil)
	if resp, _, _ := openStream(t, s, map[string]string{"Origin": "http://evil.example.com"}); resp.StatusCode != 403 {
		t.Errorf("foreign origin: %d", resp.StatusCode)
	}
	if resp, _, _ := openStream(t, s, map[string]string{"Host": "evil.example.com"}); resp.StatusCode != 403 {
		t.Errorf("foreign host: %d", resp.StatusCode)
	}
	resp, _, ep := openStream(t, s, map[string]string{"Origin": s.srv.URL})
	defer resp.Body.Close()
	req, _ := http.NewRequest("POST", s.srv.URL+ep, strings.NewReader(`{"jsonrpc":"2.0","method":"x"}`))
	req.Header.Set("Origin", "http://evil.example.com")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 403 {
		t.Errorf("POST with foreign origin: %d", r2.StatusCode)
	}
}

func TestMaxSessions(t *testing.T) {
	s := newServer(t, &HandlerOptions{MaxSessions: 1})
	resp, _, _ := openStream(t, s, nil)
	defer resp.Body.Close()
	if r2, _, _ := openStream(t, s, nil); r2.StatusCode != 503 {
		t.Fatalf("second stream: %d, want 503", r2.StatusCode)
	}
}

// One client address holds at most MaxSessionsPerClient streams (429 beyond them);
// another address is not counted with it, and a closed stream frees its place.
func TestMaxSessionsPerClient(t *testing.T) {
	s := newServer(t, &HandlerOptions{MaxSessionsPerClient: 2})
	first, _, _ := openStream(t, s, nil)
	defer first.Body.Close()
	second, _, _ := openStream(t, s, nil)
	defer second.Body.Close()
	if r, _, _ := openStream(t, s, nil); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third stream from one address: %d, want 429", r.StatusCode)
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs a second loopback address (127.0.0.0/8 is all loopback on Linux only)")
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	other := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	defer other.CloseIdleConnections()
	req, _ := http.NewRequest("GET", s.srv.URL+"/sse", nil)
	resp, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("a stream from another address: %d, want 200", resp.StatusCode)
	}
	first.Body.Close()
	// The handler notices the closed stream when its next write (a keep-alive, or
	// nothing) fails or its request's context ends; wait for the place to free.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, _, _ := openStream(t, s, nil)
		r.Body.Close()
		if r.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after a stream closed, a new one still gets %d", r.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestClientRoundTrip(t *testing.T) {
	s := newServer(t, &HandlerOptions{MessagePath: "/messages"}, func(h http.Handler) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("/sse", h)
		mux.Handle("/messages", h)
		return mux
	})
	ctx := t.Context()
	tr, err := NewClient(ctx, s.srv.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tr.Endpoint(), s.srv.URL+"/messages?sessionId=") {
		t.Fatalf("endpoint %q", tr.Endpoint())
	}
	c := jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(
		func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return json.RawMessage(`{"from":"client"}`), nil
		})})
	defer c.Close()
	var out json.RawMessage
	if err := c.Call(ctx, "echo", json.RawMessage(`{"x":[1,2]}`), &out); err != nil || string(out) != `{"x":[1,2]}` {
		t.Fatalf("echo: %s %v", out, err)
	}
	if err := c.Call(ctx, "sample", nil, &out); err != nil || string(out) != `{"from":"client"}` {
		t.Fatalf("sample: %s %v", out, err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var o json.RawMessage
			if err := c.Call(ctx, "echo", json.RawMessage(`{}`), &o); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	c.Close()
	s.mu.Lock()
	sc := s.conns[0]
	s.mu.Unlock()
	select {
	case <-sc.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server connection did not end after the client closed")
	}
}

func TestClientRejectsForeignEndpoint(t *testing.T) {
	leaktest.Check(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: http://evil.example.com/post\n\n")
	}))
	defer srv.Close()
	if _, err := NewClient(t.Context(), srv.URL, nil); err == nil {
		t.Fatal("accepted an endpoint on another origin")
	}
}

func TestClientNotSSE(t *testing.T) {
	leaktest.Check(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(405)
	}))
	defer srv.Close()
	if _, err := NewClient(t.Context(), srv.URL, nil); err == nil {
		t.Fatal("accepted a 405")
	}
}

// The addresses of one IPv6 /64 are one client for MaxSessionsPerClient; another
// /64 is another client. Before, each address was a client of its own.
func TestMaxSessionsPerClientIPv6Network(t *testing.T) {
	s := newServer(t, &HandlerOptions{MaxSessionsPerClient: 1}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.RemoteAddr = r.Header.Get("X-Remote")
			h.ServeHTTP(w, r)
		})
	})
	for _, c := range []struct {
		remote string
		want   int
	}{
		{"[2001:db8:1:2::1]:1000", 200},
		{"[2001:db8:1:2::2]:1001", http.StatusTooManyRequests}, // the same /64
		{"[2001:db8:1:3::1]:1000", 200},                        // another /64
	} {
		r, _, _ := openStream(t, s, map[string]string{"X-Remote": c.remote})
		if r.StatusCode == 200 {
			defer r.Body.Close()
		}
		if r.StatusCode != c.want {
			t.Errorf("a stream from %s: %d, want %d", c.remote, r.StatusCode, c.want)
		}
	}
}
