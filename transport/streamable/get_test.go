package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// openGET opens a GET stream and returns the response with its headers read.
func openGET(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestGETStream(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	resp := openGET(t, s.url, hdr)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	waitFor(t, s.attached, "the GET stream")
	r := sse.NewReader(resp.Body, 0)
	ev, err := r.Next()
	if err != nil || len(ev.Data) != 0 || ev.ID != "0-0" {
		t.Fatalf("priming event %+v %v", ev, err)
	}
	if r.Retry() != 1000 {
		t.Errorf("retry %d", r.Retry())
	}

	// One GET stream per session.
	if second := openGET(t, s.url, hdr); second.StatusCode != 409 {
		t.Fatalf("second GET: %d, want 409", second.StatusCode)
	}

	// A message related to no request travels on the GET stream, never a response.
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"),
		`{"jsonrpc":"2.0","id":"u","method":"unrelated"}`)
	for _, m := range messages(t, ex) {
		if strings.Contains(m, "notifications/unrelated") {
			t.Errorf("unrelated notification on the POST stream")
		}
	}
	ev, err = r.Next()
	if err != nil || !strings.Contains(string(ev.Data), `"method":"notifications/unrelated"`) || ev.ID != "0-1" {
		t.Fatalf("GET event %q id %q: %v", ev.Data, ev.ID, err)
	}

	// Resuming the GET stream after 0-0 replays 0-1 and takes the stream over.
	resumed := openGET(t, s.url, map[string]string{"Mcp-Session-Id": sid, "Last-Event-ID": "0-0"})
	if resumed.StatusCode != 200 {
		t.Fatalf("resume: %d", resumed.StatusCode)
	}
	r2 := sse.NewReader(resumed.Body, 0)
	ev, err = r2.Next()
	if err != nil || ev.ID != "0-1" || !strings.Contains(string(ev.Data), "notifications/unrelated") {
		t.Fatalf("replayed %q id %q: %v", ev.Data, ev.ID, err)
	}
	if _, err := r.Next(); err == nil {
		t.Errorf("the superseded GET response did not end")
	}
}

// keepingStore is an EventStore without EventStreamDeleter: it keeps the events of
// streams that ended.
type keepingStore struct{ m *MemoryEventStore }

func (k keepingStore) Append(ctx context.Context, session string, stream, seq int64, data []byte) error {
	return k.m.Append(ctx, session, stream, seq, data)
}

func (k keepingStore) Replay(ctx context.Context, session string, stream, after int64, fn func(int64, []byte) error) error {
	return k.m.Replay(ctx, session, stream, after, fn)
}

func (k keepingStore) DeleteSession(session string) { k.m.DeleteSession(session) }

func TestResumeEndedPOSTStream(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{EventStore: keepingStore{NewMemoryEventStore(0, 0)}})
	sid := s.initSession(t)
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"),
		`{"jsonrpc":"2.0","id":3,"method":"progress"}`)
	evs := sseEvents(t, ex.body)
	if len(evs) != 3 || evs[0].ID != "2-0" || evs[1].ID != "2-1" || evs[2].ID != "2-2" {
		t.Fatalf("events %+v", evs)
	}
	// A client that lost everything after the priming event gets the rest again, on
	// that stream only, and the response ends it.
	again := do(t, "GET", s.url, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "2-0"}, "")
	got := sseEvents(t, again.body)
	if len(got) != 2 || got[0].ID != "2-1" || string(got[1].Data) != string(evs[2].Data) {
		t.Fatalf("replay %+v", got)
	}
	// Events of the initialize stream are not mixed in.
	for _, ev := range got {
		if strings.HasPrefix(ev.ID, "1-") {
			t.Errorf("replayed an event of another stream: %s", ev.ID)
		}
	}
}

// TestDeliveredStreamEventsReleased: once a request's SSE stream delivered its
// response to an attached client, the default store forgets its events, and a late
// resumption of it just ends.
func TestDeliveredStreamEventsReleased(t *testing.T) {
	store := NewMemoryEventStore(0, 0)
	s := newTestServer(t, &HandlerOptions{EventStore: store})
	sid := s.initSession(t)
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"),
		`{"jsonrpc":"2.0","id":3,"method":"progress"}`)
	if evs := sseEvents(t, ex.body); len(evs) != 3 || evs[2].ID != "2-2" {
		t.Fatalf("events %+v", evs)
	}
	store.mu.Lock()
	n, bytes := len(store.sessions[sid]), store.bytes
	store.mu.Unlock()
	if n != 0 || bytes != 0 {
		t.Errorf("store keeps %d streams, %d bytes of the session after delivery; want none", n, bytes)
	}
	again := do(t, "GET", s.url, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "2-0"}, "")
	if again.status != 200 || len(sseEvents(t, again.body)) != 0 {
		t.Errorf("late resumption: %d %q, want 200 and no events", again.status, again.body)
	}
}
