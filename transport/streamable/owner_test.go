package streamable

import (
	"net/http"
	"testing"
)

// TestSessionOwner: a session opened by one owner is not found (404) by requests of
// another owner, on POST, GET and DELETE, and keeps working for its owner.
func TestSessionOwner(t *testing.T) {
	owner := func(r *http.Request) string { return r.Header.Get("X-Test-Owner") }
	s := newTestServer(t, &HandlerOptions{SessionOwner: owner})
	h := postHeaders("X-Test-Owner", "alice")
	ex := do(t, "POST", s.url, h, initBody)
	sid := ex.header.Get("Mcp-Session-Id")
	if ex.status != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", ex.status, sid)
	}
	for _, who := range []string{"mallory", ""} {
		if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "X-Test-Owner", who), echoBody); ex.status != 404 {
			t.Errorf("POST as %q: %d, want 404", who, ex.status)
		}
		if ex := do(t, "GET", s.url, map[string]string{"Mcp-Session-Id": sid, "Accept": "text/event-stream", "X-Test-Owner": who}, ""); ex.status != 404 {
			t.Errorf("GET as %q: %d, want 404", who, ex.status)
		}
		if ex := do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": sid, "X-Test-Owner": who}, ""); ex.status != 404 {
			t.Errorf("DELETE as %q: %d, want 404", who, ex.status)
		}
	}
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "X-Test-Owner", "alice"), echoBody); ex.status != 200 {
		t.Errorf("POST as the owner: %d, want 200 (body %q)", ex.status, ex.body)
	}
	if ex := do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": sid, "X-Test-Owner": "alice"}, ""); ex.status != 200 {
		t.Errorf("DELETE as the owner: %d, want 200", ex.status)
	}
}
