package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/internal/ssetest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// stalledSubscriber opens a session over raw HTTP, subscribes to uri and opens its
// GET stream on a connection with a 4 KiB receive buffer, which it never reads.
func stalledSubscriber(t *testing.T, url string, uris ...string) *http.Response {
	t.Helper()
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	post := func(sid, body string) string {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s: status %d", body, resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	sid := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stalled","version":"1"}}}`)
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, uri := range uris {
		post(sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+2, uri))
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := hc.Do(req) // returns once the stream is attached (headers sent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// stalledWriteTimeout is the write timeout of the servers with a stalled
// subscriber: far longer than a test runs, so that a caller that waited on the
// stalled subscriber's write would still be waiting when the test gives up, however
// slow or loaded the machine (a bound near the time the work itself takes would
// fail for a slow machine instead of for a caller that waits).
const stalledWriteTimeout = time.Hour

// One subscriber that stops reading and 50 that read: 1,000 resource updates reach
// every reading subscriber, each once, and the code announcing them never waits for
// the stalled one (whose connection is first filled with 16 MiB of updates of its
// own). 1,000 is within the default MaxQueuedNotifications (1,024) once nothing else
// waits in a session's queue, so no reading subscriber may lose one, however far the
// announcing runs ahead of the writing: the warm-up's updates are all delivered
// before the burst starts.
func TestFanOutStalledSubscriber(t *testing.T) {
	leaktest.Check(t)
	const healthy, changes = 50, 1000
	const writeTimeout = stalledWriteTimeout
	s := resourceServer()
	url := serveHTTPWith(t, s, &streamable.HandlerOptions{WriteTimeout: writeTimeout})
	ctx := testCtx(t)
	stalledSubscriber(t, url, "test://r", "test://big")

	type counter struct {
		mu   sync.Mutex
		seen map[string]bool
		next int // distinct changes received
		bad  string
		warm bool
		all  chan struct{}
		saw  chan struct{}
		sync chan struct{}
	}
	counters := make([]*counter, healthy)
	clients := make([]*ClientSession, healthy)
	for i := range counters {
		c := &counter{seen: map[string]bool{}, all: make(chan struct{}), saw: make(chan struct{}, 1), sync: make(chan struct{})}
		counters[i] = c
		tr, err := streamable.NewClient(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := NewClient(Implementation{Name: fmt.Sprint("healthy", i), Version: "1"}, &ClientOptions{ProtocolVersion: Revision20251125,
			ResourceUpdatedHandler: func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams) {
				c.mu.Lock()
				defer c.mu.Unlock()
				if p.URI == "test://r/warm" {
					if !c.warm {
						c.warm = true
						c.saw <- struct{}{}
					}
					return
				}
				if p.URI == "test://r/sync" {
					select {
					case <-c.sync:
					default:
						close(c.sync)
					}
					return
				}
				// (The client runs these handlers concurrently: no order to check.)
				if c.seen[p.URI] && c.bad == "" {
					c.bad = "got " + p.URI + " twice"
				}
				c.seen[p.URI] = true
				c.next++
				if c.next == changes {
					close(c.all)
				}
			}}).Connect(ctx, tr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		clients[i] = cs
		if err := cs.Subscribe(ctx, &SubscribeParams{URI: "test://r"}); err != nil {
			t.Fatal(err)
		}
	}
	// Until every healthy client's GET stream carries updates.
	for i, c := range counters {
		for round := 0; ; round++ {
			s.ResourceUpdated(ctx, "test://r/warm")
			select {
			case <-c.saw:
			case <-time.After(50 * time.Millisecond):
				if round < 200 {
					continue
				}
				t.Fatalf("healthy client %d never got an update", i)
			}
			break
		}
	}
	// Until the warm-up's updates have all been delivered: each session's queue, and
	// each client's, takes them in order, so once a client has the update sent after
	// them, none of them waits in either queue.
	s.ResourceUpdated(ctx, "test://r/sync")
	for i, c := range counters {
		select {
		case <-c.sync:
		case <-ctx.Done():
			t.Fatalf("healthy client %d never got the update sent after the warm-up", i)
		}
	}

	done := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		// First 16 updates of 1 MiB for the stalled subscriber alone: more than its
		// connection's buffers hold, so its stream is stuck from here on.
		pad := strings.Repeat("p", 1<<20)
		for n := range 16 {
			s.ResourceUpdated(ctx, fmt.Sprintf("test://big/%d/%s", n, pad))
		}
		for n := range changes {
			s.ResourceUpdated(ctx, fmt.Sprintf("test://r/%d", n))
		}
		done <- time.Since(start)
	}()
	// The stalled subscriber's write ends only by its write timeout (an hour): the
	// announcing finishes long before unless it waits on that write.
	select {
	case d := <-done:
		t.Logf("%d changes announced to %d sessions in %v", changes, healthy+1, d)
	case <-time.After(60 * time.Second):
		t.Fatalf("announcing %d changes blocked for 60 s: the caller waits on the stalled subscriber (write timeout %v)", changes, writeTimeout)
	}
	// Where an update was lost, if one was: the server's queue of a session (which
	// would also have ended its GET stream) or the client's.
	dropped := func() string {
		var b strings.Builder
		for _, ss := range s.Sessions() {
			if ci := ss.ClientInfo(); ci != nil && ci.Name != "stalled" && ss.DroppedNotifications() > 0 {
				fmt.Fprintf(&b, "; the server dropped %d for %s", ss.DroppedNotifications(), ci.Name)
			}
		}
		for i, cs := range clients {
			if n := cs.conn.DroppedNotifications(); n > 0 {
				fmt.Fprintf(&b, "; healthy client %d dropped %d", i, n)
			}
		}
		return b.String()
	}
	for i, c := range counters {
		select {
		case <-c.all:
		case <-time.After(20 * time.Second):
			c.mu.Lock()
			t.Fatalf("healthy client %d got %d of %d updates%s", i, c.next, changes, dropped())
		}
		c.mu.Lock()
		if c.bad != "" {
			t.Errorf("healthy client %d: %s", i, c.bad)
		}
		c.mu.Unlock()
	}
	if d := dropped(); d != "" {
		t.Errorf("every update arrived, but%s", strings.TrimPrefix(d, ";"))
	}
	for _, ss := range s.Sessions() {
		if n := ss.DroppedNotifications(); n > 0 {
			t.Logf("session %s dropped %d", ss.ID(), n)
		}
	}
}

// A client keeps every notification its server sent, however many arrive before its
// handlers get to run: 3,000 resource updates at once, three times what the client
// queues for its handlers, sent by a server whose MaxQueuedNotifications holds them
// all, reach a client whose handler returns at once, each once. (The client stops
// reading until its handlers catch up; it used to drop what did not fit.)
func TestClientKeepsABurstOfNotifications(t *testing.T) {
	leaktest.Check(t)
	const n = 3 * jsonrpc.DefaultMaxQueuedNotifications
	s := NewServer(Implementation{Name: "burst", Version: "1"}, &ServerOptions{MaxQueuedNotifications: 2 * n})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	url := serveHTTPWith(t, s, nil)
	ctx := testCtx(t)
	var mu sync.Mutex
	seen := map[string]int{}
	all := make(chan struct{})
	warm := make(chan struct{}, 1)
	tr, err := streamable.NewClient(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolVersion: Revision20251125,
		ResourceUpdatedHandler: func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams) {
			if p.URI == "test://r/warm" {
				select {
				case warm <- struct{}{}:
				default:
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			seen[p.URI]++
			if len(seen) == n {
				close(all)
			}
		}}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := cs.Subscribe(ctx, &SubscribeParams{URI: "test://r"}); err != nil {
		t.Fatal(err)
	}
	// Until the client's GET stream carries updates.
	for round := 0; ; round++ {
		s.ResourceUpdated(ctx, "test://r/warm")
		select {
		case <-warm:
		case <-time.After(50 * time.Millisecond):
			if round < 200 {
				continue
			}
			t.Fatal("the client never got an update")
		}
		break
	}
	for i := range n {
		s.ResourceUpdated(ctx, fmt.Sprintf("test://r/%d", i))
	}
	select {
	case <-all:
	case <-time.After(20 * time.Second):
	}
	var serverDropped int64
	for _, ss := range s.Sessions() {
		serverDropped += ss.DroppedNotifications()
	}
	if serverDropped > 0 {
		t.Fatalf("the server dropped %d: the burst did not reach the client whole", serverDropped)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Errorf("the client got %d of %d updates (it dropped %d)", len(seen), n, cs.conn.DroppedNotifications())
	}
	for uri, k := range seen {
		if k != 1 {
			t.Errorf("%s arrived %d times", uri, k)
		}
	}
}

// A session whose queue is full loses further notifications (counted), and the
// caller still does not wait.
func TestOutboxOverflowDropsForSlowSessionOnly(t *testing.T) {
	leaktest.Check(t)
	s := NewServer(Implementation{Name: "o", Version: "1"}, &ServerOptions{MaxQueuedNotifications: 8})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	url := serveHTTPWith(t, s, &streamable.HandlerOptions{WriteTimeout: stalledWriteTimeout})
	ctx := testCtx(t)
	stalledSubscriber(t, url, "test://r")
	var stalled *ServerSession
	for _, ss := range s.Sessions() {
		if ci := ss.ClientInfo(); ci != nil && ci.Name == "stalled" {
			stalled = ss
		}
	}
	if stalled == nil {
		t.Fatal("no stalled session")
	}
	// The stalled worker's write ends only by its write timeout (an hour): the
	// announcing finishes long before unless it waits on that write.
	done := make(chan struct{})
	go func() {
		defer close(done)
		pad := strings.Repeat("p", 1<<20)
		for n := range 16 { // more than the connection holds: the worker is stuck writing
			s.ResourceUpdated(ctx, fmt.Sprintf("test://r/%d/%s", n, pad))
		}
		for n := range 100 {
			s.ResourceUpdated(ctx, fmt.Sprintf("test://r/%d", n))
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("announcing blocked for 60 s: the caller waits on the stalled session (write timeout %v)", stalledWriteTimeout)
	}
	// 116 were sent: at most 8 wait, one is being written and the 16 big ones may
	// have been written (into the socket buffers) before the worker got stuck.
	if got := stalled.DroppedNotifications(); got < 116-8-1-16 {
		t.Errorf("the stalled session dropped %d notifications, want at least %d", got, 116-8-1-16)
	} else {
		t.Logf("the stalled session dropped %d of 116", got)
	}
}

// TestOutboxOverflowEndsTheStream: a session that reads its GET stream, but too
// slowly for what is announced, has notifications dropped; it is told by the end of
// its stream (the response ends while the session lives on), and the announcing
// caller never waits for it.
func TestOutboxOverflowEndsTheStream(t *testing.T) {
	leaktest.Check(t)
	s := NewServer(Implementation{Name: "o", Version: "1"}, &ServerOptions{MaxQueuedNotifications: 4})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	url := serveHTTPWith(t, s, &streamable.HandlerOptions{WriteTimeout: stalledWriteTimeout})
	ctx := testCtx(t)
	resp := stalledSubscriber(t, url, "test://r")
	// The client reads, slowly (16 KiB at most every 5 ms, through a 4 KiB receive
	// buffer), until its stream ends.
	ended := readSlowly(resp.Body)
	announceBurst(t, ctx, s)

	var slow *ServerSession
	for _, ss := range s.Sessions() {
		if ci := ss.ClientInfo(); ci != nil && ci.Name == "stalled" {
			slow = ss
		}
	}
	if slow == nil || slow.DroppedNotifications() == 0 {
		t.Fatalf("no notification was dropped for the slow session (%v): the test overflowed nothing", slow)
	}
	select {
	case n := <-ended:
		t.Logf("the stream ended after %d bytes; %d notifications dropped", n, slow.DroppedNotifications())
		if n >= 64*64<<10 {
			t.Errorf("the stream ended only after every notification (%d bytes)", n)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the slow session's stream did not end after its notifications were dropped")
	}
	// The session lives on: it is still listed.
	found := false
	for _, ss := range s.Sessions() {
		found = found || ss == slow
	}
	if !found {
		t.Error("the slow session ended with its stream")
	}
}

// TestOutboxOverflowEndsTheSSEStream: over HTTP+SSE (2024-11-05), where one stream
// carries everything, a session too slow for what is announced is told the same
// way: its stream ends (and the connection with it), while the caller never waits.
func TestOutboxOverflowEndsTheSSEStream(t *testing.T) {
	leaktest.Check(t)
	s := NewServer(Implementation{Name: "o", Version: "1"}, &ServerOptions{MaxQueuedNotifications: 4})
	s.AddResource(&Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	h := sse.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, &sse.HandlerOptions{WriteTimeout: stalledWriteTimeout})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		h.Shutdown(context.Background())
		srv.Close()
	})
	ctx := testCtx(t)
	// The stream is read through a 4 KiB receive buffer, 16 KiB at most every 5 ms.
	d := &net.Dialer{}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}}
	// Not ctx: the stream must end because the server ends it, not by a deadline.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	stream, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	br := bufio.NewReader(stream.Body)
	endpoint := ssetest.Endpoint(t, br)
	post := func(body string) {
		resp, err := http.Post(srv.URL+endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %d", body, resp.StatusCode)
		}
	}
	// The answer to call id, read from the stream. A POST is accepted before its call
	// runs, and calls run concurrently: the subscription is sent only once initialize
	// has been answered (before, the server may refuse it: not initialized).
	answer := func(id int) {
		want := fmt.Sprintf(`"id":%d,`, id)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the answer to call %d: %v", id, err)
			}
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && strings.Contains(data, want) {
				if !strings.Contains(data, `"result":`) {
					t.Fatalf("call %d: %s", id, data)
				}
				return
			}
		}
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}`)
	answer(1)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://r"}}`)
	answer(2)
	ended := readSlowly(br)
	announceBurst(t, ctx, s)
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the slow session's stream did not end after its notifications were dropped")
	}
}

// readSlowly reads r, 16 KiB at most every 5 ms, until it fails (the stream ended),
// and then sends the bytes it read.
func readSlowly(r io.Reader) <-chan int64 {
	ended := make(chan int64, 1)
	go func() {
		buf := make([]byte, 16<<10)
		var n int64
		for {
			k, err := r.Read(buf)
			n += int64(k)
			if err != nil {
				ended <- n
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ended
}

// announceBurst announces 64 updates of 64 KiB to the subscribers of test://r/… —
// 4 MiB at once, far more than a slow reader takes in the time — and fails the test
// if announcing takes 60 s (the caller waited on a slow session).
func announceBurst(t *testing.T, ctx context.Context, s *Server) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pad := strings.Repeat("p", 64<<10)
		for n := range 64 {
			s.ResourceUpdated(ctx, fmt.Sprintf("test://r/%d/%s", n, pad))
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("announcing blocked for 60 s: the caller waits on the slow session")
	}
}
