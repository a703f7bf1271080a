package streamable

import (
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A full table makes room by ending the oldest session that has not completed
// initialization and has no request in progress; sessions that completed it, or
// are busy, are never ended for room.
func TestFullTableEvictsOldestUninitialized(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{MaxSessions: 3})
	done := s.initSession(t)
	s.initialized(t, done)
	busy := s.initSession(t) // uninitialised, but a call in progress
	gate := make(chan exchange, 1)
	go func() {
		gate <- do(t, "POST", s.url, postHeaders("Mcp-Session-Id", busy), `{"jsonrpc":"2.0","id":"g","method":"gate"}`)
	}()
	waitFor(t, s.started, "the gate call")
	idle := s.initSession(t) // uninitialised and idle: the one to go

	fourth := s.initSession(t)
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", idle), echoBody); ex.status != 404 {
		t.Fatalf("the evicted session answered %d, want 404", ex.status)
	}
	for _, sid := range []string{done, fourth} {
		if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 200 {
			t.Fatalf("session %s answered %d", sid, ex.status)
		}
	}
	s.initialized(t, fourth)
	// Now only the busy one is uninitialised, and it is busy: nothing to evict.
	if ex := do(t, "POST", s.url, postHeaders(), initBody); ex.status != 503 {
		t.Fatalf("full table without an evictable session: %d, want 503", ex.status)
	}
	s.open()
	if ex := waitFor(t, gate, "the gate call"); ex.status != 200 {
		t.Fatalf("the busy session's call: %d", ex.status)
	}
}

// A session whose client never sends notifications/initialized ends after
// SessionInitTimeout, long before SessionIdleTimeout; one that did stays. (The
// timeout is a second: the session that stays must complete initialization within
// it, two requests that take milliseconds, however loaded the machine.)
func TestSessionInitTimeout(t *testing.T) {
	const initTimeout = time.Second
	s := newTestServer(t, &HandlerOptions{SessionInitTimeout: initTimeout})
	ok := s.initSession(t)
	s.initialized(t, ok)
	s.initSession(t)
	s.mu.Lock()
	abandoned := s.trans[1]
	s.mu.Unlock()
	waitFor(t, abandoned.done, "the uninitialised session to end")
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", ok), echoBody); ex.status != 200 {
		t.Fatalf("the initialized session answered %d", ex.status)
	}
}

// fromAddress is an HTTP client whose connections come from the loopback address
// ip (any of 127.0.0.0/8 reaches a 127.0.0.1 listener on Linux): another client
// address for the per-address cap.
func fromAddress(t *testing.T, ip string) *http.Client {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs a second loopback address (127.0.0.0/8 is all loopback on Linux only)")
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// An address that has used up its share gets 429 while its sessions completed
// initialization; a session of its own that never did is ended to make room,
// oldest first; another address is not counted with it.
func TestMaxSessionsPerClient(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{MaxSessionsPerClient: 2})
	a := s.initSession(t)
	s.initialized(t, a)
	b := s.initSession(t)
	s.initialized(t, b)
	if ex := do(t, "POST", s.url, postHeaders(), initBody); ex.status != http.StatusTooManyRequests {
		t.Fatalf("third session from one address: %d, want 429", ex.status)
	}
	other := fromAddress(t, "127.0.0.2")
	if ex := doWith(t, other, "POST", s.url, postHeaders(), initBody); ex.status != 200 {
		t.Fatalf("a session from another address: %d, want 200", ex.status)
	}
	do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": b}, "")
	c := s.initSession(t) // never completes initialization
	d := s.initSession(t) // takes c's place
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", c), echoBody); ex.status != 404 {
		t.Fatalf("the address's uninitialised session answered %d after it was full, want 404 (ended for room)", ex.status)
	}
	s.initialized(t, d)
	for _, sid := range []string{a, d} {
		if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 200 {
			t.Fatalf("session %s answered %d", sid, ex.status)
		}
	}
	if ex := do(t, "POST", s.url, postHeaders(), initBody); ex.status != http.StatusTooManyRequests {
		t.Fatalf("full again with initialized sessions: %d, want 429", ex.status)
	}
}

// With the default options, one address that floods the handler with initialize
// calls it never completes stays within its own share: a client at another address
// gets a session and uses it while the flood goes on, and one at the flood's own
// address after it (the address's oldest uninitialised session makes room).
func TestInitializeFloodPerClientDefault(t *testing.T) {
	const flood, parallel = 3000, 8
	s := newTestServer(t, &HandlerOptions{SessionInitTimeout: -1})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
	defer client.CloseIdleConnections()
	var refused atomic.Int64
	var wg sync.WaitGroup
	for w := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < flood; i += parallel {
				if ex := doWith(t, client, "POST", s.url, postHeaders(), initBody); ex.status != 200 {
					refused.Add(1)
				}
			}
		}()
	}
	legitimate := func(c *http.Client, who string) {
		ex := doWith(t, c, "POST", s.url, postHeaders(), initBody)
		if ex.status != 200 {
			t.Errorf("%s: initialize %d %s", who, ex.status, ex.body)
			return
		}
		sid := ex.header.Get("Mcp-Session-Id")
		if ex := doWith(t, c, "POST", s.url, postHeaders("Mcp-Session-Id", sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); ex.status != 202 {
			t.Errorf("%s: initialized %d", who, ex.status)
		}
		if ex := doWith(t, c, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 200 {
			t.Errorf("%s: call %d", who, ex.status)
		}
	}
	legitimate(fromAddress(t, "127.0.0.2"), "a client at another address during the flood")
	wg.Wait()
	n := s.h.nsessions.Load()
	t.Logf("%d initialize calls from one address, %d refused; sessions: %d", flood, refused.Load(), n)
	if refused.Load() != 0 {
		t.Errorf("%d of the flood's initialize calls refused: the address's own oldest should have made room", refused.Load())
	}
	// The flood's share, the legitimate session, and evicted sessions not yet closed.
	if n > int64(defaultPerClient)+1+parallel {
		t.Errorf("%d sessions after the flood, want at most the address's share of %d and the legitimate one", n, defaultPerClient)
	}
	legitimate(client, "a client at the flood's address after it")
}

// Issue 20: 10,000 initialize calls that never complete initialization filled the
// table and locked every other client out for the idle timeout. Now a legitimate
// client still gets a session, at once, and uses it.
func TestInitializeFloodDoesNotLockOut(t *testing.T) {
	const flood, parallel = 10000, 8
	// The default table of 10,000 sessions and no cap per address (the flood and the
	// client share one); no quick expiry, so that the flood is still there when the
	// legitimate client comes, however slow the machine.
	s := newTestServer(t, &HandlerOptions{SessionInitTimeout: -1, MaxSessionsPerClient: -1})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
	defer client.CloseIdleConnections()
	var refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < flood; i += parallel {
				ex := doWith(t, client, "POST", s.url, postHeaders(), initBody)
				if ex.status != 200 {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d initialize calls in %v, %d refused; sessions: %d", flood, time.Since(start), refused.Load(), s.h.nsessions.Load())
	if s.h.nsessions.Load() != flood {
		t.Fatalf("%d sessions after the flood, want a full table of %d", s.h.nsessions.Load(), flood)
	}
	sid := s.initSession(t)
	s.initialized(t, sid)
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 200 {
		t.Fatalf("the legitimate client's call: %d %s", ex.status, ex.body)
	}
}

// The addresses of one IPv6 /64 are one client for MaxSessionsPerClient (a host
// usually holds the whole /64); another /64 is another client, and an
// IPv4-mapped address is its IPv4 address. Before, each address was a client of
// its own, so one host had as many shares as it had addresses.
func TestMaxSessionsPerClientIPv6Network(t *testing.T) {
	s := newUnstartedTestServer(t, &HandlerOptions{MaxSessionsPerClient: 1})
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = r.Header.Get("X-Remote")
		s.h.ServeHTTP(w, r)
	})
	s.srv.Start()
	s.url = s.srv.URL
	open := func(remote string) int {
		ex := do(t, "POST", s.url, postHeaders("X-Remote", remote), initBody)
		if ex.status == 200 {
			s.initialized(t, ex.header.Get("Mcp-Session-Id"))
		}
		return ex.status
	}
	for _, c := range []struct {
		remote string
		want   int
	}{
		{"[2001:db8:1:2::1]:1000", 200},
		{"[2001:db8:1:2::2]:1001", http.StatusTooManyRequests}, // same /64
		{"[2001:db8:1:2:ffff::9]:1002", http.StatusTooManyRequests},
		{"[2001:db8:1:3::1]:1000", 200}, // another /64
		{"192.0.2.1:1000", 200},
		{"[::ffff:192.0.2.1]:1001", http.StatusTooManyRequests}, // the same IPv4 address
		{"192.0.2.2:1000", 200},
	} {
		if got := open(c.remote); got != c.want {
			t.Errorf("initialize from %s: %d, want %d", c.remote, got, c.want)
		}
	}
}
