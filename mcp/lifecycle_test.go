package mcp

import (
	"testing"
)

func TestInitializeNegotiation(t *testing.T) {
	cases := []struct {
		name, requested, want string
	}{
		{"2024-11-05 echoed", "2024-11-05", "2024-11-05"},
		{"2025-03-26 echoed", "2025-03-26", "2025-03-26"},
		{"2025-06-18 echoed", "2025-06-18", "2025-06-18"},
		{"2025-11-25 echoed", "2025-11-25", "2025-11-25"},
		{"unknown gets latest", "1900-01-01", LatestInitializeRevision},
		{"stateless era via initialize gets latest", "2026-07-28", LatestInitializeRevision},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := rawPeer(t, newTestServer())
			r := w.initialize(c.requested)
			res := r["result"].(map[string]any)
			diff(t, c.want, res["protocolVersion"])
			info := res["serverInfo"].(map[string]any)
			diff(t, "test-server", info["name"])
			diff(t, "1.2.3", info["version"])
			_, hasTitle := info["title"]
			diff(t, c.want >= "2025-06-18", hasTitle)
			diff(t, "be nice", res["instructions"])
		})
	}
}

func TestRequestsBeforeInitialize(t *testing.T) {
	w := rawPeer(t, newTestServer())
	// ping is allowed before initialization and answered with {}.
	diff(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, func() string {
		w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		return w.recv()
	}())
	// Anything else is refused until initialize, and the session survives.
	r := w.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	diff(t, float64(-32600), errCode(t, r))
	res := w.initialize("2025-11-25")
	if res["result"] == nil {
		t.Fatalf("initialize after refusal failed: %v", res)
	}
	// A second initialize is refused.
	r = w.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	diff(t, float64(-32600), errCode(t, r))
	// initialize without a protocol version is invalid params.
	w2 := rawPeer(t, newTestServer())
	r = w2.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	diff(t, float64(-32602), errCode(t, r))
}

func TestUnknownMethodAndNotification(t *testing.T) {
	w := rawPeer(t, newTestServer())
	w.initialize("2025-11-25")
	// Unknown notifications get no reply: the next reply is the ping's.
	w.send(`{"jsonrpc":"2.0","method":"notifications/whatever"}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`)
	r := w.roundTrip(`{"jsonrpc":"2.0","id":"x","method":"nope/nope"}`)
	diff(t, float64(-32601), errCode(t, r))
	diff(t, "x", r["id"])
	diff(t, `{"jsonrpc":"2.0","id":9,"result":{}}`, func() string {
		w.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		return w.recv()
	}())
}

func TestCapabilitiesFromRegistrations(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{DisableLogging: true})
	w := rawPeer(t, s)
	r := w.initialize("2025-11-25")
	diff(t, map[string]any{}, r["result"].(map[string]any)["capabilities"])
	// Features not declared are refused with -32601.
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "logging/setLevel", "completion/complete"} {
		got := w.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"` + m + `","params":{}}`)
		if c := errCode(t, got); c != -32601 {
			t.Errorf("%s: code %v, want -32601", m, c)
		}
	}

	s2 := newTestServer()
	s2.AddPrompt(&Prompt{Name: "p"}, func(ctx2 ctxT, req *GetPromptRequest) (*GetPromptResult, error) { return nil, nil })
	s2.AddResource(&Resource{URI: "mem://a", Name: "a"}, func(ctx2 ctxT, req *ReadResourceRequest) (*ReadResourceResult, error) { return nil, nil })
	w2 := rawPeer(t, s2)
	caps := w2.initialize("2025-11-25")["result"].(map[string]any)["capabilities"]
	diff(t, map[string]any{
		"tools":     map[string]any{"listChanged": true},
		"prompts":   map[string]any{"listChanged": true},
		"resources": map[string]any{"listChanged": true, "subscribe": true},
		"logging":   map[string]any{},
	}, caps)
}

func TestBatchesOnlyIn20250326(t *testing.T) {
	for _, c := range []struct {
		rev   string
		batch bool
	}{{"2025-03-26", true}, {"2025-06-18", false}, {"2025-11-25", false}, {"2024-11-05", false}} {
		t.Run(c.rev, func(t *testing.T) {
			w := rawPeer(t, newTestServer())
			w.initialize(c.rev)
			w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
			got := w.recv()
			if c.batch {
				if got != `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]` &&
					got != `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]` {
					t.Errorf("batch reply = %s", got)
				}
				return
			}
			diff(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`, normalizeBatchRefusal(got))
		})
	}
}

// normalizeBatchRefusal keeps the code of a batch refusal and drops its message text.
func normalizeBatchRefusal(s string) string {
	var v struct {
		ID    any `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if jsonUnmarshal(s, &v) != nil || v.ID != nil || v.Error.Code != -32600 {
		return s
	}
	return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
}
