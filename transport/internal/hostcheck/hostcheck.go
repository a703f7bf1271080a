// Package hostcheck holds the DNS-rebinding defences shared by the HTTP transports: the
// Host check on loopback listeners and the Origin check on every request.
package hostcheck

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// Checker decides whether a request's Host and Origin are acceptable. Build it with
// New; it is read-only afterwards and safe for concurrent use.
type Checker struct {
	hosts         map[string]bool // lower-case host or host:port
	origins       map[string]bool // exact Origin values
	noHostCheck   bool
	noOriginCheck bool
}

// New returns a Checker. allowedHosts are compared case-insensitively, with or without
// their port; allowedOrigins exactly.
func New(allowedHosts, allowedOrigins []string, disableHostCheck, disableOriginCheck bool) *Checker {
	g := &Checker{
		hosts:         make(map[string]bool, len(allowedHosts)),
		origins:       make(map[string]bool, len(allowedOrigins)),
		noHostCheck:   disableHostCheck,
		noOriginCheck: disableOriginCheck,
	}
	for _, h := range allowedHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range allowedOrigins {
		g.origins[o] = true
	}
	return g
}

// Check returns "" when r may proceed, or the reason to answer 403:
//   - Host: with an allow-list, the Host must be on it (loopback names are also
//     accepted on a loopback listener); without one, a request to a loopback listener
//     must name a loopback host, so a rebound DNS name cannot reach a local server;
//   - Origin: when present it must be allowed, equal to the Host, or a loopback name
//     on a loopback listener.
func (g *Checker) Check(r *http.Request) string {
	loopback := -1 // whether the listener is loopback, decided on first need
	isLoop := func() bool {
		if loopback < 0 {
			loopback = 0
			if isLoopbackListener(r) {
				loopback = 1
			}
		}
		return loopback == 1
	}
	if !g.noHostCheck {
		ok := true
		if len(g.hosts) > 0 {
			host := strings.ToLower(r.Host)
			ok = g.hosts[host] || g.hosts[hostOnly(host)] || (isLoop() && isLoopbackName(hostOnly(host)))
		} else if isLoop() {
			ok = isLoopbackName(hostOnly(r.Host))
		}
		if !ok {
			return "Forbidden: Host not allowed"
		}
	}
	if !g.noOriginCheck {
		if o := r.Header["Origin"]; len(o) > 0 && !g.originAllowed(o[0], r, isLoop) {
			return "Forbidden: Origin not allowed"
		}
	}
	return ""
}

func (g *Checker) originAllowed(origin string, r *http.Request, isLoop func() bool) bool {
	if g.origins[origin] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return isLoop() && isLoopbackName(u.Hostname())
}

// isLoopbackListener reports whether the request arrived on a loopback address.
func isLoopbackListener(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return false
	}
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().IsLoopback()
}

// hostOnly strips the port and IPv6 brackets from a Host value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

func isLoopbackName(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}
