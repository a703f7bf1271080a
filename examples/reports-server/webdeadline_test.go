package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// webServer serves the inbox with a short exchange timeout on 127.0.0.1; served
// receives a value each time a request's handler returns.
func webServer(t *testing.T, timeout time.Duration) (addr string, served <-chan struct{}) {
	t.Helper()
	in, _ := newTestInbox(t)
	big := testReport("big", "Big", "ci", reports.StatusInfo, testTime)
	// 24 sections at the cap: a page of 6 MiB, more than the socket buffers of a
	// client that does not read hold.
	for range 24 {
		big.Sections = append(big.Sections, reports.Markdown(strings.Repeat("word ", maxMarkdownSection/5)))
	}
	in.Replace(loadedOf(big, testReport("small", "Small", "ci", reports.StatusFailing, testTime)), nil)
	h := newWebHandler(in, discard, true)
	h.timeout = timeout
	done := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), done
}

// A client that sends part of a status change's body and stops gets 400 once the
// exchange timeout passes, and the handler returns.
func TestWebStalledBody(t *testing.T) {
	addr, served := webServer(t, 200*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/reports/small/status HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"lifecycle", addr)
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still waits for the body 10 s after it stalled (exchange timeout 200 ms)")
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
}

// A client that asks for a large page and never reads it (a 4 KiB receive buffer)
// holds the handler only until the exchange timeout.
func TestWebStalledReader(t *testing.T) {
	addr, served := webServer(t, 200*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /reports/big HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still writes a page nobody reads 10 s later (exchange timeout 200 ms)")
	}
}
