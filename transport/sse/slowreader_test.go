package sse

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// A client that stops reading its event stream must not hold the server's writers:
// a write that cannot finish within WriteTimeout fails and closes the connection.
func TestStalledStreamWriteDeadline(t *testing.T) {
	s := newServer(t, &HandlerOptions{WriteTimeout: 200 * time.Millisecond, KeepAlive: -1})
	d := &net.Dialer{}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10) // a small window, never read
		}
		return c, err
	}}}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", s.srv.URL+"/sse", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReaderSize(resp.Body, 16)
	var id string
	for id == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if ep, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			u, _ := url.Parse(ep)
			id = u.Query().Get("sessionId")
		}
	}
	v, ok := s.h.sessions.Load(id)
	if !ok {
		t.Fatal("no session")
	}
	tr := v.(*ServerTransport)

	big := &jsonrpc.Request{Method: "notifications/big", Params: []byte(`{"x":"` + strings.Repeat("x", 256<<10) + `"}`)}
	failed := make(chan int, 1)
	go func() {
		for i := 1; i <= 256; i++ { // 64 MiB at most, far beyond any socket buffers
			if tr.Write(t.Context(), big) != nil {
				failed <- i
				return
			}
		}
		failed <- 0
	}()
	select {
	case n := <-failed:
		if n == 0 {
			t.Fatal("256 writes of 256 KiB to a client that reads nothing all succeeded")
		}
		t.Logf("write %d failed", n)
	case <-time.After(10 * time.Second):
		resp.Body.Close()
		<-failed
		t.Fatal("a write to a client that stopped reading blocked for 10 s")
	}
	select {
	case <-tr.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end after its stream was broken off")
	}
	if err := tr.Write(t.Context(), big); err == nil {
		t.Error("Write after the stream was broken off succeeded")
	}
}

// A client that stops sending its POST body gets 400 once a read of the body has
// waited BodyReadTimeout.
func TestStalledBodyReadDeadline(t *testing.T) {
	s := newServer(t, &HandlerOptions{BodyReadTimeout: 200 * time.Millisecond})
	resp, _, ep := openStream(t, s, nil)
	defer resp.Body.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", ep)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != 400 {
		t.Fatalf("status %d, want 400", r.StatusCode)
	}
}

// A client that trickles its POST body, each byte within BodyReadTimeout, gets 408
// once BodyTimeout has passed.
func TestTrickledBodyTimeout(t *testing.T) {
	s := newServer(t, &HandlerOptions{BodyReadTimeout: time.Second, BodyTimeout: 300 * time.Millisecond})
	resp, _, ep := openStream(t, s, nil)
	defer resp.Body.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", ep, 4<<20)
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
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", r.StatusCode)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("answered after %v, want about 300ms", d)
	}
	if n := s.h.body.InFlight(); n != 0 {
		t.Fatalf("%d bytes still counted after the body was cut", n)
	}
}
