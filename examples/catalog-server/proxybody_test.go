package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestClientHeaderBodyCap: behind a trusted proxy (-client-header) every
// connection has the proxy's address, so the transport's cap on request bodies
// still arriving from one address (16 MiB by default) is not applied: five
// clients each part-way through a 4 MB body are not refused as one client.
func TestClientHeaderBodyCap(t *testing.T) {
	for _, behindProxy := range []bool{false, true} {
		cfg := Config{}
		if behindProxy {
			cfg.ClientHeader = "X-Forwarded-For"
		}
		svc := newTestService(t, t.TempDir(), cfg)
		srv := httptest.NewServer(newHTTPHandler(context.Background(), svc, "test"))
		const declared, sent = 4_000_000, 3_900_000
		refused := 0
		var conns []net.Conn
		for i := 0; i < 5; i++ {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nX-Forwarded-For: 192.0.2.%d\r\nContent-Length: %d\r\n\r\n", srv.Listener.Addr(), i+1, declared)
			if _, err := c.Write([]byte(strings.Repeat(" ", sent))); err != nil {
				refused++ // the server answered and closed while it was sent
				continue
			}
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				if resp.StatusCode == http.StatusTooManyRequests {
					refused++
				} else {
					t.Errorf("proxy=%v: body %d answered %d before it was whole", behindProxy, i, resp.StatusCode)
				}
			}
		}
		for _, c := range conns {
			c.Close()
		}
		srv.Close()
		if behindProxy && refused != 0 {
			t.Errorf("behind a proxy: %d of 5 clients refused as one address", refused)
		}
		if !behindProxy && refused == 0 {
			t.Errorf("without -client-header: one address's 19.5 MB of bodies were not capped")
		}
	}
}
