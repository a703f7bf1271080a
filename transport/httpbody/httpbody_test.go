package httpbody

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestRead(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 20<<10) // 320 KiB: the buffer grows
	tests := []struct {
		name    string
		body    io.Reader
		length  int64 // -1: unknown (chunked)
		max     int64
		want    string
		status  int
		message string
	}{
		{name: "known length", body: strings.NewReader("hello"), length: 5, max: 5, want: "hello"},
		{name: "unknown length", body: strings.NewReader("hello"), length: -1, max: 5, want: "hello"},
		{name: "empty", body: strings.NewReader(""), length: 0, max: 5, want: ""},
		{name: "known length, grown", body: strings.NewReader(big), length: int64(len(big)), max: 1 << 20, want: big},
		{name: "unknown length, grown", body: strings.NewReader(big), length: -1, max: 1 << 20, want: big},
		{name: "unknown length, exactly max", body: strings.NewReader(big), length: -1, max: int64(len(big)), want: big},
		{name: "declared too large", body: strings.NewReader("hello!"), length: 6, max: 5,
			status: 413, message: "Request body too large: at most 5 bytes"},
		{name: "sent too large", body: strings.NewReader("hello!"), length: -1, max: 5,
			status: 413, message: "Request body too large: at most 5 bytes"},
		{name: "sent too large, grown", body: strings.NewReader(big + "!"), length: -1, max: int64(len(big)),
			status: 413, message: fmt.Sprintf("Request body too large: at most %d bytes", len(big))},
		{name: "shorter than declared", body: strings.NewReader("hel"), length: 5, max: 5,
			status: 400, message: "Cannot read the request body"},
		{name: "shorter than declared, grown", body: strings.NewReader(big), length: int64(len(big)) + 1, max: 1 << 20,
			status: 400, message: "Cannot read the request body"},
		{name: "read fails", body: failReader{}, length: -1, max: 5,
			status: 400, message: "Cannot read the request body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := New(Options{Max: tt.max, ReadTimeout: time.Second, Timeout: time.Minute,
				InFlight: 2 << 20, PerClient: 1 << 20})
			r := httptest.NewRequest("POST", "/", tt.body)
			r.ContentLength = tt.length
			got, status, msg := rd.Read(httptest.NewRecorder(), r)
			if status != tt.status || msg != tt.message {
				t.Fatalf("status %d %q, want %d %q", status, msg, tt.status, tt.message)
			}
			if status == 0 && string(got) != tt.want {
				t.Fatalf("body of %d bytes, want %d", len(got), len(tt.want))
			}
			if n := rd.InFlight(); n != 0 {
				t.Fatalf("%d bytes still counted in flight after Read returned", n)
			}
			if len(rd.byClient) != 0 {
				t.Fatalf("per-client accounting left behind: %v", rd.byClient)
			}
		})
	}
}

// deadlineWriter is a ResponseWriter that takes read deadlines, like net/http's.
type deadlineWriter struct{ *httptest.ResponseRecorder }

func (deadlineWriter) SetReadDeadline(time.Time) error { return nil }

// body is a request body that can be read again.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// A body of a few KB of known length is read into one buffer of its size: one
// allocation, no copy.
func TestReadSmallOneAllocation(t *testing.T) {
	rd := New(Options{Max: 4 << 20, ReadTimeout: 10 * time.Second, Timeout: 30 * time.Second,
		InFlight: 64 << 20, PerClient: 16 << 20})
	data := bytes.Repeat([]byte("x"), 3000)
	r := httptest.NewRequest("POST", "/", nil)
	w := deadlineWriter{httptest.NewRecorder()}
	var b body
	r.Body = &b
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset(data)
		r.ContentLength = int64(len(data))
		if got, status, msg := rd.Read(w, r); status != 0 || len(got) != len(data) {
			t.Fatal(status, msg)
		}
	})
	if allocs > 1 {
		t.Fatalf("%v allocations to read a 3000-byte body, want 1", allocs)
	}
}

// testServer serves rd.Read on 127.0.0.1 and reports each Read's status. The
// X-Client header, when present, stands for the client's address.
type testServer struct {
	rd      *Reader
	url     string
	addr    string
	results chan int
}

func newTestServer(t *testing.T, o Options) *testServer {
	s := &testServer{rd: New(o), results: make(chan int, 1000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := r.Header.Get("X-Client"); c != "" {
			r.RemoteAddr = c + ":1234"
		}
		_, status, msg := s.rd.Read(w, r)
		s.results <- status
		if status != 0 {
			http.Error(w, msg, status)
		}
	}))
	t.Cleanup(srv.Close)
	s.url, s.addr = srv.URL, strings.TrimPrefix(srv.URL, "http://")
	return s
}

// send opens a connection and sends a POST's headers (declaring length bytes) and
// the first part bytes of its body, then nothing more. The caller closes it.
func (s *testServer) send(t *testing.T, client string, length, part int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: %s\r\nContent-Length: %d\r\n\r\n", client, length)
	if _, err := c.Write(bytes.Repeat([]byte("x"), part)); err != nil {
		t.Fatal(err)
	}
	return c
}

// answer reads the response on c.
func answer(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	return resp
}

// waitInFlight waits until the Reader's accounting satisfies ok.
func (s *testServer) waitInFlight(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n := s.rd.InFlight()
		if ok(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d bytes in flight", what, n)
		}
	}
}

// post sends a whole POST of n bytes from client and returns its status.
func (s *testServer) post(t *testing.T, client string, n int) int {
	t.Helper()
	req, _ := http.NewRequest("POST", s.url, bytes.NewReader(bytes.Repeat([]byte("y"), n)))
	req.Header.Set("X-Client", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReadDeadline: a client that stops sending is cut off after the read timeout,
// however much time the whole body would be allowed otherwise.
func TestReadDeadline(t *testing.T) {
	s := newTestServer(t, Options{Max: 1 << 20, ReadTimeout: 100 * time.Millisecond, Timeout: time.Minute})
	c := s.send(t, "a", 10, 5) // half the body, then nothing
	defer c.Close()
	if resp := answer(t, c); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}

// TestBodyTimeout: a body trickled a byte at a time, each byte well within the
// per-read deadline, is cut at the whole-body deadline (408), and its bytes are
// released.
func TestBodyTimeout(t *testing.T) {
	const whole = 300 * time.Millisecond
	s := newTestServer(t, Options{Max: 4 << 20, ReadTimeout: time.Second, Timeout: whole,
		InFlight: 64 << 20, PerClient: 16 << 20})
	c := s.send(t, "a", 4<<20, 1)
	defer c.Close()
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 50 ms
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	resp := answer(t, c)
	d := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	if d < whole-50*time.Millisecond || d > 5*time.Second {
		t.Fatalf("cut after %v, want about %v", d, whole)
	}
	s.waitInFlight(t, "after the cut", func(n int64) bool { return n == 0 })
}

// TestDeclaredLengthNotAllocated: a POST that declares 4 MiB and sends 10 bytes
// holds a small buffer, not 4 MiB, while it waits for the rest.
func TestDeclaredLengthNotAllocated(t *testing.T) {
	s := newTestServer(t, Options{Max: 4 << 20, ReadTimeout: 10 * time.Second, Timeout: time.Minute,
		InFlight: 64 << 20, PerClient: 16 << 20})
	c := s.send(t, "a", 4<<20, 10)
	s.waitInFlight(t, "the body being read", func(n int64) bool { return n > 0 })
	if n := s.rd.InFlight(); n > initialCap {
		t.Fatalf("%d bytes held for a 4 MiB body of which 10 bytes arrived", n)
	}
	c.Close()
	s.waitInFlight(t, "after the client left", func(n int64) bool { return n == 0 })

	// The same, counted by the runtime: the bytes allocated to read (and refuse,
	// 400) a body that declares 4 MiB and ends after 10 bytes.
	rd := New(Options{Max: 4 << 20})
	r := httptest.NewRequest("POST", "/", nil)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	for i := 0; i < 10; i++ {
		r.Body = io.NopCloser(strings.NewReader("0123456789"))
		r.ContentLength = 4 << 20
		if _, status, _ := rd.Read(httptest.NewRecorder(), r); status != 400 {
			t.Fatalf("status %d, want 400", status)
		}
	}
	runtime.ReadMemStats(&ms)
	if per := (ms.TotalAlloc - before) / 10; per > 2*initialCap {
		t.Fatalf("%d bytes allocated per short body that declared 4 MiB", per)
	}
}

// TestPerClientCap: many unfinished bodies from one address hold at most
// PerClient (the rest get 429), and another address's POSTs go through meanwhile.
func TestPerClientCap(t *testing.T) {
	const perClient = 2 << 20
	s := newTestServer(t, Options{Max: 1 << 20, ReadTimeout: 10 * time.Second, Timeout: time.Minute,
		InFlight: 64 << 20, PerClient: perClient})
	// 20 bodies of 1 MiB, each stopped after 300 KiB: a buffer of 512 KiB each
	// once its bytes are in, so at most 4 fit.
	var conns []net.Conn
	for i := 0; i < 20; i++ {
		conns = append(conns, s.send(t, "10.0.0.1", 1<<20, 300<<10))
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	refused := 0
	for refused < 16 {
		select {
		case st := <-s.results:
			if st != http.StatusTooManyRequests {
				t.Fatalf("an unfinished body got %d, want 429", st)
			}
			refused++
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 20 unfinished bodies refused", refused)
		}
	}
	if n := s.rd.InFlight(); n > perClient {
		t.Fatalf("%d bytes held by one client's unfinished bodies, cap %d", n, perClient)
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "1" {
				t.Fatalf("429 without Retry-After: 1: %v", resp.Header)
			}
		}
	}
	// Another client is served while the first holds its share.
	for i := 0; i < 5; i++ {
		if st := s.post(t, "10.0.0.2", 500<<10); st != 200 {
			t.Fatalf("another client's POST got %d while the first held its share", st)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	s.waitInFlight(t, "after the clients left", func(n int64) bool { return n == 0 })
}

// TestInFlightCap: unfinished bodies from many addresses hold at most InFlight
// (the rest get 503 with Retry-After), and everything is released when they end.
func TestInFlightCap(t *testing.T) {
	const inFlight = 2 << 20
	s := newTestServer(t, Options{Max: 1 << 20, ReadTimeout: 10 * time.Second, Timeout: time.Minute,
		InFlight: inFlight, PerClient: -1})
	var conns []net.Conn
	for i := 0; i < 10; i++ {
		conns = append(conns, s.send(t, fmt.Sprintf("10.0.1.%d", i), 1<<20, 300<<10))
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for refused := 0; refused < 6; {
		select {
		case st := <-s.results:
			if st != http.StatusServiceUnavailable {
				t.Fatalf("an unfinished body got %d, want 503", st)
			}
			refused++
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 10 unfinished bodies refused", refused)
		}
	}
	if n := s.rd.InFlight(); n > inFlight {
		t.Fatalf("%d bytes held by unfinished bodies, cap %d", n, inFlight)
	}
	saw := false
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
				t.Fatalf("answer %d %v, want 503 with Retry-After: 1", resp.StatusCode, resp.Header)
			}
			saw = true
		}
	}
	if !saw {
		t.Fatal("no 503 reached a client")
	}
	for _, c := range conns {
		c.Close()
	}
	s.waitInFlight(t, "after the clients left", func(n int64) bool { return n == 0 })
	if st := s.post(t, "10.0.1.1", 900<<10); st != 200 {
		t.Fatalf("a POST after the unfinished bodies ended got %d", st)
	}
}

// TestPerClientIPv6Network: the addresses of one IPv6 /64 share one PerClient
// (a host usually holds the whole /64); another /64 has its own. Before, each
// address had its own share, so one host could hold InFlight alone.
func TestPerClientIPv6Network(t *testing.T) {
	const max = 64 << 10
	rd := New(Options{Max: max, InFlight: 64 << 20, PerClient: 1}) // raised to one body
	post := func(remote string, body io.Reader) int {
		r := httptest.NewRequest("POST", "/", body)
		r.ContentLength = max
		r.RemoteAddr = remote
		_, status, _ := rd.Read(httptest.NewRecorder(), r)
		return status
	}
	// A body that stops arriving holds the client's share.
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- post("[2001:db8:1:2::1]:1000", pr) }()
	for rd.InFlight() == 0 {
		time.Sleep(time.Millisecond)
	}
	full := strings.Repeat("x", max)
	for _, c := range []struct {
		remote string
		want   int
	}{
		{"[2001:db8:1:2::2]:1001", http.StatusTooManyRequests}, // the same /64
		{"[2001:db8:1:2:ffff::9%eth0]:1002", http.StatusTooManyRequests},
		{"[2001:db8:1:3::1]:1000", 0}, // another /64
		{"192.0.2.1:1000", 0},
	} {
		if got := post(c.remote, strings.NewReader(full)); got != c.want {
			t.Errorf("a body from %s while [2001:db8:1:2::1] holds its share: %d, want %d", c.remote, got, c.want)
		}
	}
	pw.CloseWithError(errors.New("gone"))
	<-done
	if n := rd.InFlight(); n != 0 {
		t.Errorf("%d bytes still held", n)
	}
}

// TestTransportDefaults: zero takes the transports' defaults, negative (none)
// and set values are kept.
func TestTransportDefaults(t *testing.T) {
	got := TransportDefaults(Options{Max: 10})
	if got != (Options{Max: 10, ReadTimeout: 10 * time.Second, Timeout: 30 * time.Second, InFlight: 64 << 20, PerClient: 16 << 20}) {
		t.Errorf("zero: %+v", got)
	}
	set := Options{Max: 10, ReadTimeout: -1, Timeout: -1, InFlight: 5, PerClient: -1}
	if got := TransportDefaults(set); got != set {
		t.Errorf("set: %+v", got)
	}
}

// TestRefusedSmallBodyAnswered: a small body refused for a full cap, or for its
// declared size, while its client still owes most of it is answered at once.
// Before, net/http's Close of the body waited for the rest (up to 256 KiB), so
// the 429 or 413 never came.
func TestRefusedSmallBodyAnswered(t *testing.T) {
	s := newTestServer(t, Options{Max: 1000, ReadTimeout: time.Minute, Timeout: time.Minute,
		InFlight: 64 << 20, PerClient: 1}) // raised to one body
	held := s.send(t, "10.0.0.1", 1000, 10) // holds the client's share
	defer held.Close()
	s.waitInFlight(t, "the first body", func(n int64) bool { return n > 0 })
	c := s.send(t, "10.0.0.1", 1000, 10)
	defer c.Close()
	start := time.Now()
	resp := answer(t, c)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("answer %d %v, want 429 with Retry-After: 1", resp.StatusCode, resp.Header)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("answered after %v", d)
	}
	big := s.send(t, "10.0.0.2", 2000, 10)
	defer big.Close()
	if resp := answer(t, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body declaring 2000 bytes of 1000: %d, want 413", resp.StatusCode)
	}
}
