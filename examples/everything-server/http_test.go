package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// httpServer serves a fresh everything server over Streamable HTTP on 127.0.0.1 and
// stops it when the test ends, then checks that no goroutine of the library stayed
// behind.
func httpServer(t *testing.T, stateless bool) string {
	t.Helper()
	checkNoLeaks(t)
	srv := newServer(nil)
	h := newHandler(srv, stateless, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
		srv.Close()
	})
	return ts.URL + "/mcp"
}

// checkNoLeaks fails the test if, once every other cleanup has run, goroutines running
// wiremcp code remain. Goroutines end asynchronously after connections close, so it
// polls (bounded) instead of looking once.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		var stacks string
		deadline := time.After(5 * time.Second)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			buf := make([]byte, 1<<20)
			stacks = string(buf[:runtime.Stack(buf, true)])
			leaked := false
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "wiremcp/wiremcp/") && !strings.Contains(g, "checkNoLeaks") && !strings.Contains(g, "testing.tRunner") {
					leaked = true
				}
			}
			if !leaked {
				return
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Errorf("goroutines left running:\n%s", stacks)
				return
			}
		}
	})
}

// session is a raw Streamable HTTP client: it posts literal JSON-RPC and reads the
// answers, JSON or SSE, exactly as they come.
type session struct {
	t   *testing.T
	ctx context.Context
	url string
	id  string
}

// openSession initializes a session declaring sampling and elicitation.
func openSession(t *testing.T, url string) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: ctx, url: url}
	resp := s.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+initParams(allCaps)+`}`, "")
	s.id = resp.Header.Get("Mcp-Session-Id")
	if s.id == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	for range newEvents(resp).all(t) {
	}
	if r := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "2025-11-25"); r.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", r.StatusCode)
	}
	return s
}

// post sends one JSON-RPC frame and returns the response, whose body the caller owns.
func (s *session) post(frame, version string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.url, strings.NewReader(frame))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("POST %s: %v", frame, err)
	}
	s.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the JSON-RPC messages of one HTTP response: the single message of a
// JSON body, or the data of each SSE event (priming events carry none).
type events struct {
	resp *http.Response
	sse  *bufio.Reader
	done bool
}

func newEvents(resp *http.Response) *events {
	e := &events{resp: resp}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		e.sse = bufio.NewReader(resp.Body)
	}
	return e
}

// next returns the next message, or nil at the end of the response.
func (e *events) next(t *testing.T) jsonrpc.Message {
	t.Helper()
	if e.done {
		return nil
	}
	if e.sse == nil {
		e.done = true
		body, err := io.ReadAll(e.resp.Body)
		if err != nil || len(bytes.TrimSpace(body)) == 0 {
			return nil
		}
		m, err := jsonrpc.Decode(body, nil)
		if err != nil {
			t.Fatalf("JSON body %q: %v", body, err)
		}
		return m
	}
	var data []string
	for range 10000 {
		line, err := e.sse.ReadString('\n')
		if err != nil {
			e.done = true
			return nil
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && len(data) > 0:
			joined := strings.Join(data, "\n")
			if strings.TrimSpace(joined) == "" {
				data = nil // a priming event
				continue
			}
			m, err := jsonrpc.Decode([]byte(joined), nil)
			if err != nil {
				t.Fatalf("SSE data %q: %v", joined, err)
			}
			return m
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	t.Fatal("SSE stream: too many lines")
	return nil
}

// all iterates over the remaining messages.
func (e *events) all(t *testing.T) func(func(jsonrpc.Message) bool) {
	return func(yield func(jsonrpc.Message) bool) {
		for range 1000 {
			m := e.next(t)
			if m == nil || !yield(m) {
				return
			}
		}
	}
}

// TestServerRequestsTravelOnTheirCallsStream starts an elicitation tool and a sampling
// tool at the same time on one session, and checks that each server-to-client request
// arrives on the SSE response of the tools/call that caused it, and that each call's
// result then arrives on that same stream once the client has answered.
func TestServerRequestsTravelOnTheirCallsStream(t *testing.T) {
	s := openSession(t, httpServer(t, false))
	calls := []struct {
		tool, args, method, answer, wantParams, wantText string
	}{
		{
			tool: "test_elicitation", args: `{"message":"Please provide your information"}`,
			method:     "elicitation/create",
			answer:     `{"action":"accept","content":{"username":"testuser","email":"test@example.com"}}`,
			wantParams: `{"message":"Please provide your information","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address","format":"email"}},"required":["username","email"]}}`,
			wantText:   `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`,
		},
		{
			tool: "test_sampling", args: `{"prompt":"Test prompt for sampling"}`,
			method:     "sampling/createMessage",
			answer:     `{"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"}`,
			wantParams: `{"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],"maxTokens":100}`,
			wantText:   "LLM response: This is a test response from the client",
		},
	}
	// Both calls are in flight before either is answered.
	streams := make([]*events, len(calls))
	for i, c := range calls {
		resp := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, 10+i, c.tool, c.args), "2025-11-25")
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("%s: status %d, Content-Type %q; want an SSE stream", c.tool, resp.StatusCode, ct)
		}
		streams[i] = newEvents(resp)
	}
	serverReqs := make([]*jsonrpc.Request, len(calls))
	for i, c := range calls {
		m := streams[i].next(t)
		r, ok := m.(*jsonrpc.Request)
		if !ok || r.IsNotification() || r.Method != c.method {
			t.Fatalf("first message on the %s stream = %#v, want a %s request", c.tool, m, c.method)
		}
		assertJSON(t, c.tool+": "+c.method, r.Params, c.wantParams)
		serverReqs[i] = r
	}
	// Answer in reverse order; each answer is a POST of its own, accepted with 202.
	for i := len(calls) - 1; i >= 0; i-- {
		resp := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, serverReqs[i].ID.Raw(), calls[i].answer), "2025-11-25")
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("answer to %s: status %d", calls[i].method, resp.StatusCode)
		}
		m := streams[i].next(t)
		r, ok := m.(*jsonrpc.Response)
		if !ok || r.ID != jsonrpc.Int64ID(int64(10+i)) || r.Error != nil {
			t.Fatalf("after the answer, the %s stream carried %#v, want the tools/call result", calls[i].tool, m)
		}
		assertJSON(t, calls[i].tool+" result", r.Result, `{"content":[{"type":"text","text":`+quote(calls[i].wantText)+`}]}`)
		if m := streams[i].next(t); m != nil {
			t.Errorf("%s stream: unexpected message after the result: %#v", calls[i].tool, m)
		}
	}
}

// Progress and log notifications of a call travel on its own SSE stream, before the
// result.
func TestNotificationsTravelOnTheirCallsStream(t *testing.T) {
	s := openSession(t, httpServer(t, false))
	if r := s.post(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, "2025-11-25"); r.StatusCode != http.StatusOK {
		t.Fatalf("setLevel: status %d", r.StatusCode)
	}
	for _, c := range []struct{ tool, method string }{
		{"test_tool_with_progress", "notifications/progress"},
		{"test_tool_with_logging", "notifications/message"},
	} {
		resp := s.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+c.tool+`","arguments":{},"_meta":{"progressToken":"progress-test-1"}}}`, "2025-11-25")
		var notes int
		var result bool
		for m := range newEvents(resp).all(t) {
			switch m := m.(type) {
			case *jsonrpc.Request:
				if m.Method != c.method || result {
					t.Errorf("%s: unexpected %s (after result: %v)", c.tool, m.Method, result)
				}
				notes++
			case *jsonrpc.Response:
				result = true
			}
		}
		if notes != 3 || !result {
			t.Errorf("%s: %d %s then result %v; want 3 then the result", c.tool, notes, c.method, result)
		}
	}
}

// In stateless mode every POST stands alone: fixtures that need no session work, with
// no Mcp-Session-Id issued.
func TestStateless(t *testing.T) {
	url := httpServer(t, true)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s := &session{t: t, ctx: ctx, url: url}
	resp := s.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text"}}`, "2025-11-25")
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("stateless server issued session %q", id)
	}
	m := newEvents(resp).next(t)
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		t.Fatalf("stateless tools/call = %#v", m)
	}
	assertJSON(t, "stateless result", r.Result, `{"content":[{"type":"text","text":"This is a simple text response for testing."}]}`)
}
