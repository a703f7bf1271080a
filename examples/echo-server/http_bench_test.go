package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// httpEchoServer serves the echo server the way main does (default handler options)
// on 127.0.0.1 and returns its /mcp URL.
func httpEchoServer(tb testing.TB) string {
	tb.Helper()
	s := newServer()
	h := streamable.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := s.Connect(ctx, t)
		return err
	}, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		h.Shutdown(context.Background())
		srv.Close()
		s.Close()
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// rawHTTPClient speaks Streamable HTTP as the benchmark driver does: plain POSTs with
// the session headers, the reply (JSON or SSE) read to its end.
type rawHTTPClient struct {
	url, sid string
	hc       *http.Client
}

func newRawHTTPClient(url string, conns int) *rawHTTPClient {
	rt := &http.Transport{MaxIdleConns: 2*conns + 2, MaxIdleConnsPerHost: 2*conns + 2, DisableCompression: true}
	return &rawHTTPClient{url: url, hc: &http.Client{Transport: rt}}
}

func (c *rawHTTPClient) post(body string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

func (c *rawHTTPClient) open(tb testing.TB) {
	tb.Helper()
	st, hdr, b, err := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if err != nil || st != http.StatusOK {
		tb.Fatalf("initialize: %d %s %v", st, b, err)
	}
	c.sid = hdr.Get("Mcp-Session-Id")
	if st, _, b, err := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || st != http.StatusAccepted {
		tb.Fatalf("initialized: %d %s %v", st, b, err)
	}
}

func (c *rawHTTPClient) close() {
	req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", c.sid)
	if resp, err := c.hc.Do(req); err == nil {
		resp.Body.Close()
	}
	c.hc.CloseIdleConnections()
}

// BenchmarkHTTPEcho drives the Streamable HTTP echo server the way the load driver's
// http-c1 and http-c8 cases do: one session, tools/call of echo with a 16-byte
// message, from 1 or 8 goroutines.
func BenchmarkHTTPEcho(b *testing.B) {
	for _, par := range []int{1, 8} {
		b.Run("c"+strconv.Itoa(par), func(b *testing.B) {
			c := newRawHTTPClient(httpEchoServer(b), par)
			c.open(b)
			defer c.close()
			var id atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(par) // GOMAXPROCS*par goroutines; close enough for a profile
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := id.Add(1)
					st, _, body, err := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"0123456789abcdef"}}}`, n))
					if err != nil || st != http.StatusOK || !bytes.Contains(body, []byte("0123456789abcdef")) {
						b.Errorf("call: %d %s %v", st, body, err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkHTTPSessions measures session setup as the driver's http-sessions case
// does: a new connection, initialize, initialized, 5 echo calls, DELETE.
func BenchmarkHTTPSessions(b *testing.B) {
	url := httpEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		c := newRawHTTPClient(url, 1)
		c.open(b)
		for i := 1; i <= 5; i++ {
			st, _, body, err := c.post(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"0123456789abcdef"}}}`)
			if err != nil || st != http.StatusOK || !bytes.Contains(body, []byte("0123456789abcdef")) {
				b.Fatalf("call: %d %s %v", st, body, err)
			}
		}
		c.close()
	}
}

// discardWriter is the least a ResponseWriter can be: headers in a map, the body
// dropped (kept short for checks).
type discardWriter struct {
	h      http.Header
	status int
	body   []byte
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, b...)
	return len(b), nil
}
func (w *discardWriter) Flush() {}

// Hijack is never called here; having it lets resumable streams run calls directly.
func (w *discardWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}

// handlerBench calls ServeHTTP of the Handler main uses (with opts) directly: a
// ready *http.Request in, a ResponseWriter that keeps nothing out, no network.
type handlerBench struct {
	tb  testing.TB
	h   *streamable.Handler
	hdr http.Header
}

func newHandlerBench(tb testing.TB, opts *streamable.HandlerOptions) *handlerBench {
	s := newServer()
	h := streamable.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := s.Connect(ctx, t)
		return err
	}, opts)
	tb.Cleanup(func() {
		h.Shutdown(context.Background())
		s.Close()
	})
	return &handlerBench{tb: tb, h: h, hdr: http.Header{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}}
}

// serve sends one request with the session's headers, as net/http would hand it over.
func (hb *handlerBench) serve(method, body string) *discardWriter {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := (&http.Request{Method: method, Header: hb.hdr, Host: "127.0.0.1",
		RemoteAddr: "127.0.0.1:1", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		ContentLength: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}).WithContext(ctx)
	w := &discardWriter{h: http.Header{}}
	hb.h.ServeHTTP(w, r)
	return w
}

// open initializes a session, as the load driver does.
func (hb *handlerBench) open() {
	hb.hdr = http.Header{"Content-Type": hb.hdr["Content-Type"], "Accept": hb.hdr["Accept"]}
	w := hb.serve(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if w.status != http.StatusOK || len(w.h["Mcp-Session-Id"]) != 1 {
		hb.tb.Fatalf("initialize: %d %s", w.status, w.body)
	}
	hb.hdr["Mcp-Session-Id"] = w.h["Mcp-Session-Id"]
	hb.hdr["Mcp-Protocol-Version"] = []string{"2025-06-18"}
	if w := hb.serve(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.status != http.StatusAccepted {
		hb.tb.Fatalf("initialized: %d %s", w.status, w.body)
	}
}

// sessionCalls is how many echo calls a session of the benchmark makes (the
// driver's -session-calls).
const sessionCalls = 5

var echoCalls = func() []string {
	bodies := make([]string, 64)
	for i := range bodies {
		bodies[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"0123456789abcdef"}}}`
	}
	return bodies
}()

func (hb *handlerBench) call(i int) {
	w := hb.serve(http.MethodPost, echoCalls[i%len(echoCalls)])
	if w.status != http.StatusOK || !bytes.Contains(w.body, []byte("0123456789abcdef")) {
		hb.tb.Fatalf("call: %d %s", w.status, w.body)
	}
}

// BenchmarkHTTPHandler measures the server's own work, without a network:
// tools/call of echo on one session, sequentially, with calls run directly (the
// default) and queued for the reader (DisableDirectCalls); and whole sessions as
// the driver's http-sessions case makes them (initialize, initialized, 5 calls,
// DELETE).
func BenchmarkHTTPHandler(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts *streamable.HandlerOptions
	}{
		{"direct", nil},
		{"queued", &streamable.HandlerOptions{DisableDirectCalls: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			hb := newHandlerBench(b, mode.opts)
			hb.open()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				hb.call(i)
				i++
			}
		})
	}
	b.Run("session", func(b *testing.B) {
		hb := newHandlerBench(b, nil)
		b.ReportAllocs()
		for b.Loop() {
			hb.open()
			for i := range sessionCalls {
				hb.call(i)
			}
			if w := hb.serve(http.MethodDelete, ""); w.status != http.StatusOK {
				b.Fatalf("DELETE: %d %s", w.status, w.body)
			}
		}
	})
}
