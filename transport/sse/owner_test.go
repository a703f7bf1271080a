package sse

import (
	"net/http"
	"strings"
	"testing"
)

// TestSessionOwner: a session opened by one owner is not found (404) by POSTs of
// another owner, nothing reaches its connection, and it keeps working for its owner.
func TestSessionOwner(t *testing.T) {
	owner := func(r *http.Request) string { return r.Header.Get("X-Test-Owner") }
	s := newServer(t, &HandlerOptions{SessionOwner: owner})
	resp, br, ep := openStream(t, s, map[string]string{"X-Test-Owner": "alice"})
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	defer resp.Body.Close()
	postAs := func(who, body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", s.srv.URL+ep, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if who != "" {
			req.Header.Set("X-Test-Owner", who)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	for _, who := range []string{"mallory", ""} {
		if st := postAs(who, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"from":"`+who+`"}}`); st != 404 {
			t.Errorf("POST as %q: %d, want 404", who, st)
		}
	}
	if st := postAs("alice", `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"from":"alice"}}`); st != 202 {
		t.Fatalf("POST as the owner: %d, want 202", st)
	}
	// The first message on the stream is the owner's reply: the others never ran.
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			if data != `{"jsonrpc":"2.0","id":2,"result":{"from":"alice"}}` {
				t.Fatalf("first message %s, want the owner's reply", data)
			}
			break
		}
	}
}
