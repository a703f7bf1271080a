package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// TestAdaptiveCloseSSEStream: a request whose handler closes its stream before
// anything else was sent switches to SSE (priming event, retry), the response ends
// without the result, and a GET with Last-Event-ID delivers what followed.
func TestAdaptiveCloseSSEStream(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"),
		`{"jsonrpc":"2.0","id":2,"method":"close-stream"}`)
	if !waitFor(t, s.closed, "CloseSSEStream") {
		t.Fatal("CloseSSEStream reported false on an adaptive stream")
	}
	if ct := ex.header.Get("Content-Type"); ex.status != 200 || ct != "text/event-stream" {
		t.Fatalf("POST: %d %q", ex.status, ct)
	}
	evs := sseEvents(t, ex.body)
	if len(evs) != 1 || evs[0].ID != "2-0" || len(evs[0].Data) != 0 || !strings.Contains(ex.body, "retry: 1000\n") {
		t.Fatalf("closed stream %q, want only the priming event and a retry field", ex.body)
	}
	// The handler went on (a progress notification, then the result): both are kept
	// and delivered on resumption, whether the handler finished already or not.
	again := do(t, "GET", s.url, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "2-0"}, "")
	got := messages(t, again)
	if again.status != 200 || len(got) != 2 || !strings.Contains(got[0], "notifications/progress") ||
		!strings.Contains(got[1], `"id":2,"result":{"closed":true}`) {
		t.Fatalf("resumed %d %q, want the notification and the response", again.status, got)
	}
}

// TestAdaptiveServerRequestOnPOSTStream: a server-to-client request made from the
// handler switches its POST to SSE; the client answers with a POST and the result
// follows on the same stream.
func TestAdaptiveServerRequestOnPOSTStream(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	req, _ := http.NewRequestWithContext(t.Context(), "POST", s.url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"sample","params":{"q":1}}`))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("POST: %d %q", resp.StatusCode, ct)
	}
	r := sse.NewReader(resp.Body, 0)
	prime, err := r.Next()
	if err != nil || prime.ID != "2-0" || len(prime.Data) != 0 {
		t.Fatalf("first event %+v %v, want the priming event", prime, err)
	}
	ev, err := r.Next()
	if err != nil || ev.ID != "2-1" || !strings.Contains(string(ev.Data), `"method":"sampling/createMessage"`) {
		t.Fatalf("second event %q id %q: %v", ev.Data, ev.ID, err)
	}
	// The server's request id is the number after "id":.
	data := string(ev.Data)
	i := strings.Index(data, `"id":`)
	j := strings.IndexAny(data[i+5:], ",}")
	id := data[i+5 : i+5+j]
	ans := do(t, "POST", s.url, hdr, `{"jsonrpc":"2.0","id":`+id+`,"result":{"text":"from client"}}`)
	if ans.status != 202 {
		t.Fatalf("answer: %d %q", ans.status, ans.body)
	}
	ev, err = r.Next()
	if err != nil || ev.ID != "2-2" || string(ev.Data) != `{"jsonrpc":"2.0","id":5,"result":{"text":"from client"}}` {
		t.Fatalf("result event %q id %q: %v", ev.Data, ev.ID, err)
	}
	if _, err := r.Next(); err == nil {
		t.Error("the stream did not end after the response")
	}
}

// TestAdaptiveBatch: a 2025-03-26 batch is one JSON array when every response comes
// first, and an SSE stream carrying every response when one of its requests sends a
// notification (responses collected before the switch are not lost).
func TestAdaptiveBatch(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-03-26")
	ex := do(t, "POST", s.url, hdr, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}},{"jsonrpc":"2.0","id":2,"method":"echo","params":{"b":2}},{"jsonrpc":"2.0","id":3}]`)
	if ct := ex.header.Get("Content-Type"); ex.status != 200 || ct != "application/json" || !strings.HasPrefix(ex.body, "[") ||
		!strings.Contains(ex.body, `"id":1,"result":{"a":1}`) || !strings.Contains(ex.body, `"id":2,"result":{"b":2}`) ||
		!strings.Contains(ex.body, `"id":null,"error":{"code":-32600`) {
		t.Fatalf("JSON batch: %d %q %q", ex.status, ct, ex.body)
	}
	for i := 0; i < 20; i++ {
		ex = do(t, "POST", s.url, hdr, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}},{"jsonrpc":"2.0","id":2,"method":"progress","params":{"b":2}},{"jsonrpc":"2.0","id":3}]`)
		if ct := ex.header.Get("Content-Type"); ex.status != 200 || ct != "text/event-stream" {
			t.Fatalf("switched batch: %d %q %q", ex.status, ct, ex.body)
		}
		all := strings.Join(messages(t, ex), "\n")
		for _, want := range []string{`"id":1,"result":{"a":1}`, `"id":2,"result":{"b":2}`, `"method":"notifications/progress"`, `"id":null,"error":{"code":-32600`} {
			if strings.Count(all, want) != 1 {
				t.Fatalf("switched batch carries %q %d times, want once: %q", want, strings.Count(all, want), ex.body)
			}
		}
	}
}

// TestAdaptiveClientGoneBeforeAnything: a client that leaves while its adaptive
// stream has sent nothing cannot resume it (it holds no event id): the stream is
// forgotten, and the late response is dropped. The POST lets go at once whether its
// call was queued for the reader or run directly (on a goroutine of its own, as for
// every resumable stream).
func TestAdaptiveClientGoneBeforeAnything(t *testing.T) {
	for _, direct := range []bool{false, true} {
		name := "queued"
		if direct {
			name = "direct"
		}
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t, &HandlerOptions{DisableDirectCalls: !direct})
			sid := s.initSession(t)
			st := waitFor(t, s.connected, "the session")
			ctx, cancel := context.WithCancel(t.Context())
			req, _ := http.NewRequestWithContext(ctx, "POST", s.url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"gate"}`))
			for k, v := range postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25") {
				req.Header.Set(k, v)
			}
			errc := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				errc <- err
			}()
			waitFor(t, s.started, "the gated call")
			cancel()
			if err := waitFor(t, errc, "the POST to fail"); err == nil {
				t.Fatal("the cancelled POST succeeded")
			}
			hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
			reuse := `{"jsonrpc":"2.0","id":9,"method":"echo","params":{"x":2}}`
			// Once the abandoned POST has been served, its stream is no longer
			// registered. (Every POST so far reports once: initialize, the gate.)
			for i := 0; ; i++ {
				st.mu.Lock()
				n := len(st.byID) + len(st.byNum)
				st.mu.Unlock()
				if n == 0 && st.busy.Load() == 0 {
					break
				}
				if i == 3 {
					t.Fatalf("%d stream registrations remain after the client left", n)
				}
				waitFor(t, s.posted, "a POST to be served")
			}
			// The stream is forgotten but the call still runs in the connection: a
			// request reusing its id is refused there, and the refusal (id null)
			// reaches the POST that carried it.
			ex := do(t, "POST", s.url, hdr, reuse)
			if ex.status != 200 || !strings.Contains(ex.body, `"id":null,"error":{"code":-32600`) {
				t.Fatalf("id 9 reused while its call runs: %d %q", ex.status, ex.body)
			}
			s.open()
			// The session still works, and the late "gate" response went nowhere.
			ex = do(t, "POST", s.url, hdr, echoBody)
			if ex.status != 200 || ex.body != `{"jsonrpc":"2.0","id":7,"result":{"x":1}}` {
				t.Fatalf("echo after: %d %q", ex.status, ex.body)
			}
		})
	}
}
