package hostcheck

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func request(local, host, origin string) *http.Request {
	r := httptest.NewRequest("POST", "http://"+host+"/mcp", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	addr, _ := net.ResolveTCPAddr("tcp", local)
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(addr)))
}

func TestCheck(t *testing.T) {
	def := New(nil, nil, false, false)
	listed := New([]string{"MCP.example.com"}, []string{"https://app.example.com"}, false, false)
	off := New(nil, nil, true, true)
	cases := []struct {
		name                string
		g                   *Checker
		local, host, origin string
		want                string
	}{
		{"loopback, localhost", def, "127.0.0.1:8080", "localhost:8080", "", ""},
		{"loopback, foreign host", def, "127.0.0.1:8080", "evil.example.com", "", "Forbidden: Host not allowed"},
		{"loopback, ipv6", def, "[::1]:8080", "[::1]:8080", "http://[::1]:8080", ""},
		{"public listener, any host", def, "10.1.2.3:80", "mcp.example.com", "", ""},
		{"origin equal to host", def, "10.1.2.3:80", "mcp.example.com", "https://mcp.example.com", ""},
		{"foreign origin", def, "127.0.0.1:8080", "localhost:8080", "http://evil.example.com", "Forbidden: Origin not allowed"},
		{"non-http origin", def, "127.0.0.1:8080", "localhost:8080", "file://x", "Forbidden: Origin not allowed"},
		{"loopback origin on loopback", def, "127.0.0.1:8080", "127.0.0.1:8080", "http://localhost:3000", ""},
		{"listed host, any case, with port", listed, "10.1.2.3:80", "mcp.example.com:443", "", ""},
		{"unlisted host", listed, "10.1.2.3:80", "other.example.com", "", "Forbidden: Host not allowed"},
		{"listed origin", listed, "10.1.2.3:80", "mcp.example.com", "https://app.example.com", ""},
		{"checks off", off, "127.0.0.1:8080", "evil.example.com", "http://evil.example.com", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.g.Check(request(c.local, c.host, c.origin)); got != c.want {
				t.Errorf("Check = %q, want %q", got, c.want)
			}
		})
	}
}
