package auth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// bodyServer serves RequireBearer (MethodScopes set, so that it reads POST
// bodies) with o's body bounds in front of a handler that reports the bodies it
// gets. The X-Client header, when present, stands for the client's address.
type bodyServer struct {
	h       *bearerHandler
	url     string
	addr    string
	reached chan string
}

func newBodyServer(t *testing.T, o ResourceServerOptions) *bodyServer {
	t.Helper()
	s := &bodyServer{reached: make(chan string, 100)}
	o.Verifier = stubVerifier{}
	if o.ToolScopesFor == nil {
		o.MethodScopes = map[string][]string{"resources/read": {"files:read"}}
	}
	s.h = RequireBearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.reached <- string(b)
		w.WriteHeader(http.StatusNoContent)
	}), &o).(*bearerHandler)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := r.Header.Get("X-Client"); c != "" {
			r.RemoteAddr = c + ":1234"
		}
		s.h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url, s.addr = srv.URL, strings.TrimPrefix(srv.URL, "http://")
	return s
}

// send opens a connection and sends a POST with a valid token declaring length
// bytes of body, and the first part bytes of it. The caller closes it.
func (s *bodyServer) send(t *testing.T, client string, length int, part string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: %s\r\nAuthorization: Bearer tok-mcp\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", client, length, part)
	return c
}

// answers reads the answer on each of conns (for up to 10 s) and sends it, or
// nil, on the channel returned.
func answers(conns []net.Conn) <-chan *http.Response {
	ch := make(chan *http.Response, len(conns))
	for _, c := range conns {
		go func() {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				ch <- nil
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body = io.NopCloser(strings.NewReader(string(b)))
			ch <- resp
		}()
	}
	return ch
}

const rpcCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`

// post sends rpcCall whole from client and returns its status.
func (s *bodyServer) post(t *testing.T, client string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(rpcCall))
	req.Header.Set("Authorization", "Bearer tok-mcp")
	req.Header.Set("X-Client", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		if got := <-s.reached; got != rpcCall {
			t.Fatalf("next got %q, want the whole body", got)
		}
	}
	return resp.StatusCode
}

// waitReleased waits until no body is counted in flight by RequireBearer.
func (s *bodyServer) waitReleased(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.h.body.InFlight() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still counted in flight", s.h.body.InFlight())
		}
	}
}

// refused sends 10 unfinished bodies of 1000 bytes (10 sent) from the clients
// client(i) and checks that 6 are answered at once with status and a message
// holding words, and Retry-After: 1 (4 fit in a cap of 4000 bytes); it returns
// the connections, still open.
func (s *bodyServer) refused(t *testing.T, client func(int) string, status int, words ...string) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for i := 0; i < 10; i++ {
		conns = append(conns, s.send(t, client(i), 1000, rpcCall[:10]))
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	ch := answers(conns)
	for n := 0; n < 6; n++ {
		resp := <-ch
		if resp == nil {
			t.Fatalf("only %d of 10 unfinished bodies refused (4 fit)", n)
		}
		msg, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != status || resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("an unfinished body got %d %v %q, want %d with Retry-After: 1", resp.StatusCode, resp.Header, msg, status)
		}
		for _, w := range words {
			if !strings.Contains(string(msg), w) {
				t.Fatalf("answer %q does not say %q", msg, w)
			}
		}
	}
	select {
	case resp := <-ch:
		t.Fatalf("a 7th unfinished body was answered (%v); 4 fit in the cap", resp)
	case <-time.After(200 * time.Millisecond):
	}
	if n := s.h.body.InFlight(); n > 4000 {
		t.Fatalf("%d bytes held by unfinished bodies, cap 4000", n)
	}
	return conns
}

// TestRequireBearerBodyPerClientCap: many unfinished bodies from one client,
// holding a valid token, hold at most MaxBodyBytesInFlightPerClient in
// RequireBearer; the rest get 429 at once. Another client is served meanwhile,
// and the bytes are released when the bodies end. Before, RequireBearer's reads
// were counted in no cap: every one of them held its buffer and goroutine.
func TestRequireBearerBodyPerClientCap(t *testing.T) {
	s := newBodyServer(t, ResourceServerOptions{MaxBodyBytes: 1000, MaxBodyBytesInFlightPerClient: 4000,
		BodyReadTimeout: time.Minute, BodyTimeout: time.Minute})
	conns := s.refused(t, func(int) string { return "10.0.0.1" }, http.StatusTooManyRequests,
		"Too Many Requests", "4000 bytes", "retry after 1 s")
	if st := s.post(t, "10.0.0.2"); st != http.StatusNoContent {
		t.Fatalf("another client's POST got %d while the first held its share", st)
	}
	for _, c := range conns {
		c.Close()
	}
	s.waitReleased(t)
	if st := s.post(t, "10.0.0.1"); st != http.StatusNoContent {
		t.Fatalf("a POST after the unfinished bodies ended got %d", st)
	}
}

// TestRequireBearerToolScopesForCapped: with the tool scopes given per request
// (ToolScopesFor) and no other reason to read bodies, the one handler reads them
// and counts them: unfinished bodies from one client past
// MaxBodyBytesInFlightPerClient get 429 at once. The scopes returned apply: a
// token without the tool's scope gets 403, and a request for which no tools are
// returned is not read at all. This is the case that once built a handler per
// request, which counted nothing.
func TestRequireBearerToolScopesForCapped(t *testing.T) {
	s := newBodyServer(t, ResourceServerOptions{MaxBodyBytes: 1000, MaxBodyBytesInFlightPerClient: 4000,
		BodyReadTimeout: time.Minute, BodyTimeout: time.Minute,
		ToolScopesFor: func(r *http.Request) map[string][]string {
			if r.Body == nil {
				panic("no body")
			}
			if r.URL.Path == "/mcp" {
				return map[string][]string{"x": {"mcp"}}
			}
			return nil
		}})
	conns := s.refused(t, func(int) string { return "10.0.5.1" }, http.StatusTooManyRequests,
		"Too Many Requests", "4000 bytes", "retry after 1 s")
	for _, c := range conns {
		c.Close()
	}
	s.waitReleased(t)
	if st := s.post(t, "10.0.5.1"); st != http.StatusNoContent {
		t.Fatalf("a POST with the tool's scope got %d", st)
	}
	for path, want := range map[string]int{"/mcp": http.StatusForbidden, "/other": http.StatusNoContent} {
		req, _ := http.NewRequest("POST", s.url+path, strings.NewReader(rpcCall))
		req.Header.Set("Authorization", "Bearer tok-read")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("POST %s without the tool's scope: %d, want %d", path, resp.StatusCode, want)
		}
		if want == http.StatusNoContent {
			<-s.reached
		}
	}
}

// TestRequireBearerToolScopesForPostOnly: ToolScopesFor is asked only for a
// POST, the one request whose body names tools; a GET (the stream) or a DELETE
// (the session's end) passes on its token and Scopes without the call.
func TestRequireBearerToolScopesForPostOnly(t *testing.T) {
	var calls []string
	var mu sync.Mutex
	s := newBodyServer(t, ResourceServerOptions{ToolScopesFor: func(r *http.Request) map[string][]string {
		mu.Lock()
		calls = append(calls, r.Method)
		mu.Unlock()
		return map[string][]string{"x": {"mcp"}}
	}})
	for _, method := range []string{"GET", "DELETE", "POST"} {
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(rpcCall)
		}
		req, _ := http.NewRequest(method, s.url+"/mcp", body)
		req.Header.Set("Authorization", "Bearer tok-mcp")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("%s: %d", method, resp.StatusCode)
		}
		<-s.reached
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(calls, []string{"POST"}) {
		t.Errorf("ToolScopesFor called for %v, want only the POST", calls)
	}
}

// TestRequireBearerBodyInFlightCap: unfinished bodies from many clients hold at
// most MaxBodyBytesInFlight in RequireBearer; the rest get 503 at once.
func TestRequireBearerBodyInFlightCap(t *testing.T) {
	s := newBodyServer(t, ResourceServerOptions{MaxBodyBytes: 1000, MaxBodyBytesInFlight: 4000,
		MaxBodyBytesInFlightPerClient: -1, BodyReadTimeout: time.Minute, BodyTimeout: time.Minute})
	conns := s.refused(t, func(i int) string { return "10.0.1." + strconv.Itoa(i) }, http.StatusServiceUnavailable,
		"Service Unavailable", "4000 bytes", "retry after 1 s")
	for _, c := range conns {
		c.Close()
	}
	s.waitReleased(t)
	if st := s.post(t, "10.0.1.1"); st != http.StatusNoContent {
		t.Fatalf("a POST after the unfinished bodies ended got %d", st)
	}
}

// TestRequireBearerBodyTrickledCounted: a trickled body holds its client's share
// while it arrives (another body of the client's gets 429), is cut at
// BodyTimeout (408), and its share is then released.
func TestRequireBearerBodyTrickledCounted(t *testing.T) {
	s := newBodyServer(t, ResourceServerOptions{MaxBodyBytes: 1000, MaxBodyBytesInFlightPerClient: 1, // raised to one body
		BodyTimeout: 300 * time.Millisecond})
	c := s.send(t, "10.0.2.1", 1000, rpcCall[:1])
	defer c.Close()
	start := time.Now()
	ch := answers([]net.Conn{c})
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 50 ms: each read is quick, the whole body is not
		for i := 1; i < len(rpcCall); i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := c.Write([]byte{rpcCall[i]}); err != nil {
					return
				}
			}
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); s.h.body.InFlight() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the trickled body is not counted in flight")
		}
	}
	if st := s.post(t, "10.0.2.1"); st != http.StatusTooManyRequests {
		t.Fatalf("a second body while the first trickles got %d, want 429", st)
	}
	resp := <-ch
	if resp == nil {
		t.Fatal("no answer to a trickled body")
	}
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(msg), "300ms") {
		t.Fatalf("trickled body: %d %q, want 408 naming the bound", resp.StatusCode, msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("answered after %v, want about 300ms", d)
	}
	s.waitReleased(t)
	if st := s.post(t, "10.0.2.1"); st != http.StatusNoContent {
		t.Fatalf("a POST after the trickled body was cut got %d", st)
	}
	select {
	case b := <-s.reached:
		t.Fatalf("next ran for a refused body: %q", b)
	default:
	}
}

// TestRequireBearerBodyReadTimeout: a client that stops sending its body gets 400
// after BodyReadTimeout, long before BodyTimeout, as from the transports. Before,
// only the whole-body bound applied.
func TestRequireBearerBodyReadTimeout(t *testing.T) {
	s := newBodyServer(t, ResourceServerOptions{BodyReadTimeout: 200 * time.Millisecond, BodyTimeout: time.Minute})
	c := s.send(t, "10.0.3.1", len(rpcCall), rpcCall[:10])
	defer c.Close()
	start := time.Now()
	resp := <-answers([]net.Conn{c})
	if resp == nil {
		t.Fatal("no answer to a stalled body")
	}
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "Cannot read the request body") {
		t.Fatalf("stalled body: %d %q, want 400", resp.StatusCode, msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("answered after %v, want about 200ms", d)
	}
	s.waitReleased(t)
}

// TestRequireBearerBodyReachesTransport: behind RequireBearer, which reads the
// body for its tool scopes with the default bounds, the Streamable HTTP transport
// still gets the whole body, here one larger than the first buffer of either
// reader (64 KiB), and the call succeeds.
func TestRequireBearerBodyReachesTransport(t *testing.T) {
	leaktest.Check(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "size", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "size", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			return mcp.TextResult(strconv.Itoa(len(args.Text))), nil
		})
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, tr)
		return err
	}, nil)
	rb := RequireBearer(h, &ResourceServerOptions{Verifier: stubVerifier{}, ToolScopes: map[string][]string{"size": {"mcp"}}})
	ts := httptest.NewServer(rb)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.CloseClientConnections()
		ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr, err := streamable.NewClient(ts.URL, &streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer tok-mcp"}}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	defer cs.Close()
	text := strings.Repeat("x", 300<<10)
	args, _ := json.Marshal(map[string]string{"text": text})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "size", Arguments: args})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("call: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != strconv.Itoa(len(text)) {
		t.Fatalf("the tool got %s bytes of text, want %d", got, len(text))
	}
	if n := rb.(*bearerHandler).body.InFlight(); n != 0 {
		t.Fatalf("%d bytes still counted in flight after the call", n)
	}
}
