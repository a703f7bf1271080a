// Package clientaddr tells the HTTP transports which client a request comes from,
// for their per-client caps (MaxSessionsPerClient, MaxBodyBytesInFlightPerClient).
package clientaddr

import (
	"net"
	"net/netip"
	"strings"
)

// Key returns the client that a remote address (HOST:PORT, [IPv6]:PORT or a bare
// host, as in http.Request.RemoteAddr) counts as: an IPv4 address as itself; an
// IPv6 address as its /64 network ("2001:db8:1:2::/64"), since one host usually
// holds a whole /64 and can send from any of its addresses; an IPv4-mapped IPv6
// address (::ffff:192.0.2.1) as its IPv4 address. A zone (fe80::1%eth0) is
// dropped. A host that is not an IP address is returned as it is, and an address
// that has no port as given ([IPv6] without its brackets, as a header may hold it).
func Key(addr string) string {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	} else {
		host = strings.Trim(addr, "[]")
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if ip.Is4() {
		return host // ParseAddr takes only the dotted form: host is already canonical
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(64)
	return p.String()
}
