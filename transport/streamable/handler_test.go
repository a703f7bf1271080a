package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// rawCase is one raw HTTP exchange against a fresh handler.
type rawCase struct {
	name    string
	opts    *HandlerOptions
	session bool // open a session first; "{sid}" in headers names it, "{host}" the server
	method  string
	hdr     map[string]string
	body    string

	status   int
	wantHdr  map[string]string // "" means absent, "*" means present, else exact
	wantBody []string          // substrings of the body
	noBody   bool
}

func modernBody(id, method, params string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = "{" + meta + "," + params + "}"
	}
	if id == "" {
		return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

func modernHeaders(method string, kv ...string) map[string]string {
	return postHeaders(append([]string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}, kv...)...)
}

const echoBody = `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"x":1}}`

func TestRawExchanges(t *testing.T) {
	cases := []rawCase{
		// POST header rules.
		{name: "accept lacks event-stream", method: "POST", hdr: postHeaders("Accept", "application/json"), body: initBody,
			status: 406, wantBody: []string{`"code":-32000`}},
		{name: "accept lacks json", method: "POST", hdr: postHeaders("Accept", "text/event-stream"), body: initBody, status: 406},
		{name: "accept wildcard", method: "POST", hdr: postHeaders("Accept", "*/*"), body: initBody, status: 200,
			wantHdr: map[string]string{"Mcp-Session-Id": "*"}},
		{name: "accept refuses json with q=0", method: "POST", hdr: postHeaders("Accept", "application/json;q=0, text/event-stream"),
			body: initBody, status: 406},
		{name: "accept refuses event-stream with q=0.0", method: "POST", hdr: postHeaders("Accept", "application/json, text/event-stream; q=0.0"),
			body: initBody, status: 406},
		{name: "accept with weights", method: "POST", hdr: postHeaders("Accept", "application/json;q=0.5, text/event-stream;q=1"),
			body: initBody, status: 200},
		{name: "empty protocol version on a session", session: true, method: "POST",
			hdr:  map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "Mcp-Session-Id": "{sid}", "Mcp-Protocol-Version": ""},
			body: echoBody, status: 400, wantBody: []string{"MCP-Protocol-Version"}},
		{name: "empty protocol version on initialize", method: "POST", hdr: map[string]string{"Accept": "application/json, text/event-stream",
			"Content-Type": "application/json", "Mcp-Protocol-Version": ""}, body: initBody, status: 400},
		{name: "empty protocol version on GET", session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}", "Mcp-Protocol-Version": ""}, status: 400},
		{name: "content type text", method: "POST", hdr: postHeaders("Content-Type", "text/plain"), body: initBody, status: 415},
		{name: "content type missing", method: "POST", hdr: postHeaders("Content-Type", ""), body: initBody, status: 415},
		{name: "content type with charset", method: "POST", hdr: postHeaders("Content-Type", "application/json; charset=utf-8"), body: initBody, status: 200},
		{name: "malformed json", method: "POST", hdr: postHeaders(), body: `{"jsonrpc":`, status: 400,
			wantBody: []string{`"code":-32700`}},
		{name: "invalid request keeps id", method: "POST", hdr: postHeaders(), body: `{"jsonrpc":"1.0","id":5,"method":"x"}`, status: 400,
			wantBody: []string{`"code":-32600`, `"id":5`}},
		{name: "body too large", opts: &HandlerOptions{MaxBodyBytes: 64}, method: "POST", hdr: postHeaders(), body: initBody, status: 413,
			wantBody: []string{"Request body too large: at most 64 bytes"}},
		{name: "missing session", method: "POST", hdr: postHeaders(), body: echoBody, status: 400, wantBody: []string{"Mcp-Session-Id"}},
		{name: "unknown session", method: "POST", hdr: postHeaders("Mcp-Session-Id", "nope"), body: echoBody, status: 404},
		{name: "unsupported legacy revision", opts: &HandlerOptions{ProtocolVersions: []string{"2025-11-25"}}, session: true,
			method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-06-18"), body: echoBody, status: 400},
		{name: "garbage revision", session: true, method: "POST",
			hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "1999-01-01"), body: echoBody, status: 400},
		{name: "no revision header is 2025-03-26", session: true, method: "POST",
			hdr: postHeaders("Mcp-Session-Id", "{sid}"), body: echoBody, status: 200, wantBody: []string{`"result":{"x":1}`}},
		{name: "notification", session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-11-25"),
			body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202, noBody: true},
		{name: "response", session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-11-25"),
			body: `{"jsonrpc":"2.0","id":"s1","result":{}}`, status: 202, noBody: true},
		{name: "initialize json mode", opts: &HandlerOptions{JSONResponse: true}, method: "POST", hdr: postHeaders(), body: initBody,
			status: 200, wantHdr: map[string]string{"Content-Type": "application/json", "Mcp-Session-Id": "*"},
			wantBody: []string{`"id":1`, `"result":`}},
		{name: "echo adaptive is json", session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-11-25"),
			body: echoBody, status: 200, wantHdr: map[string]string{"Content-Type": "application/json", "Mcp-Session-Id": "", "Cache-Control": ""},
			wantBody: []string{`{"jsonrpc":"2.0","id":7,"result":{"x":1}}`}},
		{name: "echo adaptive switches to sse", session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-11-25"),
			body: `{"jsonrpc":"2.0","id":7,"method":"progress","params":{"x":1}}`, status: 200,
			wantHdr:  map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
			wantBody: []string{"id: 2-0\nretry: 1000\ndata: \n\n", "id: 2-1\n", `"method":"notifications/progress"`, "id: 2-2\n", `"id":7,"result":{"x":1}`}},
		{name: "echo sse", opts: &HandlerOptions{AlwaysSSE: true}, session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-11-25"),
			body: echoBody, status: 200, wantHdr: map[string]string{"Content-Type": "text/event-stream", "Mcp-Session-Id": "",
				"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
			wantBody: []string{"id: 2-0\n", "retry: 1000\n", `data: {"jsonrpc":"2.0","id":7,"result":{"x":1}}`}},
		{name: "batch refused after 2025-03-26", session: true, method: "POST",
			hdr:  postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-06-18"),
			body: `[` + echoBody + `]`, status: 400, wantBody: []string{`"code":-32600`}},
		{name: "batch json", opts: &HandlerOptions{JSONResponse: true}, session: true, method: "POST",
			hdr:    postHeaders("Mcp-Session-Id", "{sid}", "Mcp-Protocol-Version", "2025-03-26"),
			body:   `[` + echoBody + `,{"jsonrpc":"2.0","id":8,"method":"echo"},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":9}]`,
			status: 200, wantHdr: map[string]string{"Content-Type": "application/json"},
			wantBody: []string{`[`, `"id":7,"result":{"x":1}`, `"id":8,"result":{}`, `"id":null,"error":{"code":-32600`}},
		{name: "batch of notifications", session: true, method: "POST", hdr: postHeaders("Mcp-Session-Id", "{sid}"),
			body: `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`, status: 202, noBody: true},
		{name: "other method", method: "PUT", hdr: postHeaders(), status: 405, wantHdr: map[string]string{"Allow": "GET, POST, DELETE"}},

		// Origin and Host (DNS rebinding).
		{name: "foreign origin", method: "POST", hdr: postHeaders("Origin", "http://evil.example.com"), body: initBody, status: 403},
		{name: "null origin", method: "POST", hdr: postHeaders("Origin", "null"), body: initBody, status: 403},
		{name: "same origin", method: "POST", hdr: postHeaders("Origin", "http://{host}"), body: initBody, status: 200},
		{name: "loopback origin", method: "POST", hdr: postHeaders("Origin", "http://localhost:5173"), body: initBody, status: 200},
		{name: "listed origin", opts: &HandlerOptions{AllowedOrigins: []string{"https://app.example.com"}}, method: "POST",
			hdr: postHeaders("Origin", "https://app.example.com"), body: initBody, status: 200},
		{name: "origin check off", opts: &HandlerOptions{DisableOriginCheck: true}, method: "POST",
			hdr: postHeaders("Origin", "http://evil.example.com"), body: initBody, status: 200},
		{name: "rebinding host", method: "POST", hdr: postHeaders("Host", "evil.example.com", "Origin", "http://evil.example.com"),
			body: initBody, status: 403},
		{name: "localhost host", method: "POST", hdr: postHeaders("Host", "localhost:1234", "Origin", "http://localhost:1234"),
			body: initBody, status: 200},
		{name: "listed host", opts: &HandlerOptions{AllowedHosts: []string{"mcp.example.com"}}, method: "POST",
			hdr: postHeaders("Host", "mcp.example.com"), body: initBody, status: 200},
		{name: "host check off", opts: &HandlerOptions{DisableHostCheck: true}, method: "POST",
			hdr: postHeaders("Host", "evil.example.com"), body: initBody, status: 200},
		{name: "origin checked on GET", session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}", "Origin": "http://evil.example.com"}, status: 403},

		// GET.
		{name: "GET without session", method: "GET", hdr: map[string]string{"Accept": "text/event-stream"}, status: 400},
		{name: "GET unknown session", method: "GET", hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "x"}, status: 404},
		{name: "GET wrong accept", session: true, method: "GET", hdr: map[string]string{"Accept": "application/json", "Mcp-Session-Id": "{sid}"}, status: 406},
		{name: "GET disabled", opts: &HandlerOptions{DisableGET: true}, session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}"}, status: 405, wantHdr: map[string]string{"Allow": "POST, DELETE"}},
		{name: "GET modern", session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}", "Mcp-Protocol-Version": "2026-07-28"}, status: 405},
		{name: "GET bad Last-Event-ID", session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}", "Last-Event-ID": "zz"}, status: 400},
		{name: "GET unknown stream", session: true, method: "GET",
			hdr: map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "{sid}", "Last-Event-ID": "99-1"}, status: 400},

		// DELETE.
		{name: "DELETE without session", method: "DELETE", status: 400},
		{name: "DELETE unknown session", method: "DELETE", hdr: map[string]string{"Mcp-Session-Id": "x"}, status: 404},
		{name: "DELETE disabled", opts: &HandlerOptions{DisableDelete: true}, session: true, method: "DELETE",
			hdr: map[string]string{"Mcp-Session-Id": "{sid}"}, status: 405},
		{name: "DELETE modern", session: true, method: "DELETE",
			hdr: map[string]string{"Mcp-Session-Id": "{sid}", "Mcp-Protocol-Version": "2026-07-28"}, status: 405},
		{name: "DELETE", session: true, method: "DELETE", hdr: map[string]string{"Mcp-Session-Id": "{sid}"}, status: 200},

		// Stateless mode.
		{name: "stateless initialize", opts: &HandlerOptions{Stateless: true}, method: "POST", hdr: postHeaders(), body: initBody,
			status: 200, wantHdr: map[string]string{"Mcp-Session-Id": ""}, wantBody: []string{`"id":1,"result"`}},
		{name: "stateless request", opts: &HandlerOptions{Stateless: true}, method: "POST", hdr: postHeaders(), body: echoBody,
			status: 200, wantBody: []string{`"result":{"x":1}`}},
		{name: "stateless adaptive is json", opts: &HandlerOptions{Stateless: true}, method: "POST",
			hdr: postHeaders("Mcp-Protocol-Version", "2025-11-25"), body: echoBody,
			status: 200, wantHdr: map[string]string{"Content-Type": "application/json"}},
		{name: "stateless sse has no ids", opts: &HandlerOptions{Stateless: true, AlwaysSSE: true}, method: "POST",
			hdr: postHeaders("Mcp-Protocol-Version", "2025-11-25"), body: echoBody,
			status: 200, wantHdr: map[string]string{"Content-Type": "text/event-stream"}},
		{name: "stateless json", opts: &HandlerOptions{Stateless: true, JSONResponse: true}, method: "POST", hdr: postHeaders(), body: echoBody,
			status: 200, wantHdr: map[string]string{"Content-Type": "application/json"}},
		{name: "stateless notification", opts: &HandlerOptions{Stateless: true}, method: "POST", hdr: postHeaders(),
			body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202, noBody: true},
		{name: "stateless GET", opts: &HandlerOptions{Stateless: true}, method: "GET", hdr: map[string]string{"Accept": "text/event-stream"},
			status: 405, wantHdr: map[string]string{"Allow": "POST"}},
		{name: "stateless DELETE", opts: &HandlerOptions{Stateless: true}, method: "DELETE", status: 405},

		// 2026-07-28 requests.
		{name: "modern discover", method: "POST", hdr: modernHeaders("server/discover"), body: modernBody("1", "server/discover", ""),
			status: 200, wantHdr: map[string]string{"Content-Type": "application/json", "Mcp-Session-Id": ""},
			wantBody: []string{`"id":1,"result":{"_meta"`}},
		{name: "modern with stale session header", method: "POST", hdr: modernHeaders("server/discover", "Mcp-Session-Id", "gone"),
			body: modernBody("1", "server/discover", ""), status: 200},
		{name: "modern detected by _meta, header missing", method: "POST", hdr: postHeaders("Mcp-Method", "server/discover"),
			body: modernBody("2", "server/discover", ""), status: 400, wantBody: []string{`"id":2`, `"code":-32020`}},
		{name: "modern header differs from _meta", method: "POST", hdr: modernHeaders("server/discover", "Mcp-Protocol-Version", "2026-07-29"),
			body: modernBody("3", "server/discover", ""), status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern unsupported version left to MCP layer", method: "POST",
			hdr:  modernHeaders("server/discover", "Mcp-Protocol-Version", "v999.0.0"),
			body: strings.ReplaceAll(modernBody("4", "server/discover", ""), "2026-07-28", "v999.0.0"), status: 200},
		{name: "modern without _meta reaches MCP layer", method: "POST", hdr: modernHeaders("echo"),
			body: echoBody, status: 200, wantBody: []string{`"result":{"x":1}`}},
		{name: "modern Mcp-Method missing", method: "POST", hdr: modernHeaders(""), body: modernBody("5", "tools/list", ""),
			status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern Mcp-Method case differs", method: "POST", hdr: modernHeaders("TOOLS/LIST"), body: modernBody("5", "tools/list", ""),
			status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern Mcp-Name", method: "POST", hdr: modernHeaders("tools/call", "Mcp-Name", "  my-tool  "),
			body: modernBody("6", "tools/call", `"name":"my-tool"`), status: 200},
		{name: "modern Mcp-Name base64", method: "POST", hdr: modernHeaders("tools/call", "Mcp-Name", "=?base64?aMOpbGxv?="),
			body: modernBody("6", "tools/call", `"name":"héllo"`), status: 200},
		{name: "modern Mcp-Name literal lookalike", method: "POST", hdr: modernHeaders("tools/call", "Mcp-Name", "=?base64?abc"),
			body: modernBody("6", "tools/call", `"name":"=?base64?abc"`), status: 200},
		{name: "modern Mcp-Name bad base64", method: "POST", hdr: modernHeaders("tools/call", "Mcp-Name", "=?base64?SGVsbG8?="),
			body: modernBody("6", "tools/call", `"name":"Hello"`), status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern Mcp-Name mismatch", method: "POST", hdr: modernHeaders("resources/read", "Mcp-Name", "file:///a"),
			body: modernBody("6", "resources/read", `"uri":"file:///b"`), status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern Mcp-Name missing", method: "POST", hdr: modernHeaders("tools/call"),
			body: modernBody("6", "tools/call", `"name":"x"`), status: 400, wantBody: []string{`"code":-32020`}},
		{name: "modern method not found is 404", method: "POST", hdr: modernHeaders("nope"), body: modernBody("7", "nope", ""),
			status: 404, wantBody: []string{`"code":-32601`, `"id":7`}},
		{name: "modern -32602 is 400", method: "POST", hdr: modernHeaders("fail"), body: modernBody("8", "fail", `"code":-32602`),
			status: 400, wantBody: []string{`"code":-32602`}},
		{name: "modern -32022 is 400", method: "POST", hdr: modernHeaders("fail"), body: modernBody("8", "fail", `"code":-32022`), status: 400},
		{name: "modern -32021 is 400", method: "POST", hdr: modernHeaders("fail"), body: modernBody("8", "fail", `"code":-32021`), status: 400},
		{name: "modern -32603 is 200", method: "POST", hdr: modernHeaders("fail"), body: modernBody("8", "fail", `"code":-32603`), status: 200},
		{name: "modern notification", method: "POST", hdr: modernHeaders("notifications/x"), body: modernBody("", "notifications/x", ""),
			status: 202, noBody: true},
		{name: "modern batch", method: "POST", hdr: modernHeaders("echo"), body: "[" + modernBody("1", "echo", "") + "]", status: 400},
		{name: "modern progress uses sse", method: "POST", hdr: modernHeaders("progress"), body: modernBody("9", "progress", ""),
			status: 200, wantHdr: map[string]string{"Content-Type": "text/event-stream", "Mcp-Session-Id": ""},
			wantBody: []string{`"method":"notifications/progress"`, `"id":9,"result"`}},
		{name: "modern served statelessly by a JSON handler", opts: &HandlerOptions{JSONResponse: true}, method: "POST",
			hdr: modernHeaders("server/discover"), body: modernBody("1", "server/discover", ""), status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, tc.opts)
			host := strings.TrimPrefix(s.url, "http://")
			sid := ""
			if tc.session {
				sid = s.initSession(t)
			}
			hdr := map[string]string{}
			for k, v := range tc.hdr {
				v = strings.ReplaceAll(v, "{sid}", sid)
				hdr[k] = strings.ReplaceAll(v, "{host}", host)
			}
			ex := do(t, tc.method, s.url, hdr, tc.body)
			if ex.status != tc.status {
				t.Fatalf("status %d, want %d; body %q", ex.status, tc.status, ex.body)
			}
			for k, want := range tc.wantHdr {
				got := ex.header.Get(k)
				switch {
				case want == "" && got != "":
					t.Errorf("header %s = %q, want none", k, got)
				case want == "*" && got == "":
					t.Errorf("header %s missing", k)
				case want != "" && want != "*" && got != want:
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			for _, sub := range tc.wantBody {
				if !strings.Contains(ex.body, sub) {
					t.Errorf("body %q lacks %q", ex.body, sub)
				}
			}
			if tc.noBody && ex.body != "" {
				t.Errorf("body %q, want none", ex.body)
			}
			if ex.status >= 400 && ex.body != "" {
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(ex.body), &m); err != nil || m["error"] == nil {
					t.Errorf("error body is not a JSON-RPC error: %q", ex.body)
				}
			}
		})
	}
}

func TestSessionIDs(t *testing.T) {
	s := newTestServer(t, nil)
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		sid := s.initSession(t)
		if len(sid) < 22 { // 128 bits need at least 22 base64 or 26 base32 characters
			t.Fatalf("session id %q too short", sid)
		}
		for _, c := range []byte(sid) {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("session id %q has byte %#x outside 0x21-0x7E", sid, c)
			}
		}
		if seen[sid] {
			t.Fatalf("session id %q repeated", sid)
		}
		seen[sid] = true
	}
}

func TestPrimingOnlyFor20251125(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{AlwaysSSE: true})
	for _, tc := range []struct {
		version string
		priming bool
	}{{"2025-11-25", true}, {"2025-06-18", false}, {"2025-03-26", false}} {
		body := strings.Replace(initBody, "2025-11-25", tc.version, 1)
		ex := do(t, "POST", s.url, postHeaders(), body)
		evs := sseEvents(t, ex.body)
		if len(evs) == 0 {
			t.Fatalf("%s: no events in %q", tc.version, ex.body)
		}
		gotPriming := len(evs[0].Data) == 0 && evs[0].ID != ""
		if gotPriming != tc.priming {
			t.Errorf("%s: priming = %v, want %v (body %q)", tc.version, gotPriming, tc.priming, ex.body)
		}
		last := evs[len(evs)-1]
		if last.ID == "" {
			t.Errorf("%s: events carry no id", tc.version)
		}
		var resp struct {
			ID int `json:"id"`
		}
		if json.Unmarshal(last.Data, &resp) != nil || resp.ID != 1 {
			t.Errorf("%s: last event %q is not the response", tc.version, last.Data)
		}
	}
}

func TestDeleteEndsSession(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	tr := waitFor(t, s.connected, "connection")
	if tr.SessionID() != sid || tr.Stateless() {
		t.Fatalf("transport SessionID %q Stateless %v, want %q false", tr.SessionID(), tr.Stateless(), sid)
	}
	if ex := do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": sid}, ""); ex.status != 200 {
		t.Fatalf("DELETE: %d", ex.status)
	}
	s.mu.Lock()
	c := s.conns[0]
	s.mu.Unlock()
	waitFor(t, c.Done(), "the connection to end after DELETE")
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody)
	if ex.status != 404 {
		t.Fatalf("POST after DELETE: %d, want 404", ex.status)
	}
}

func TestStatelessTransport(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{Stateless: true})
	do(t, "POST", s.url, postHeaders(), echoBody)
	tr := waitFor(t, s.connected, "connection")
	if tr.SessionID() != "" || !tr.Stateless() {
		t.Fatalf("SessionID %q Stateless %v", tr.SessionID(), tr.Stateless())
	}
	s.mu.Lock()
	c := s.conns[0]
	s.mu.Unlock()
	waitFor(t, c.Done(), "the stateless connection to end after its response")
}

func TestModernUsesOwnConnection(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	waitFor(t, s.connected, "session")
	ex := do(t, "POST", s.url, modernHeaders("server/discover", "Mcp-Session-Id", sid), modernBody("1", "server/discover", ""))
	if ex.status != 200 {
		t.Fatalf("status %d", ex.status)
	}
	tr := waitFor(t, s.connected, "modern connection")
	if !tr.Stateless() || tr.SessionID() != "" {
		t.Fatalf("modern request served on a session: %q", tr.SessionID())
	}
}

func TestDuplicateInFlightID(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{JSONResponse: true})
	sid := s.initSession(t)
	block := `{"jsonrpc":"2.0","id":"b","method":"block"}`
	first := make(chan exchange, 1)
	go func() { first <- do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), block) }()
	waitFor(t, s.started, "the first call to start")
	ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), block)
	if ex.status != 400 || !strings.Contains(ex.body, `"id":"b"`) {
		t.Fatalf("duplicate id: %d %q", ex.status, ex.body)
	}
	do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": sid}, "")
	<-first
}

// initialized sends notifications/initialized on session sid.
func (s *testServer) initialized(tb testing.TB, sid string) {
	tb.Helper()
	if ex := do(tb, "POST", s.url, postHeaders("Mcp-Session-Id", sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); ex.status != 202 {
		tb.Fatalf("notifications/initialized: %d %s", ex.status, ex.body)
	}
}

func TestMaxSessions(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{MaxSessions: 2})
	s.initialized(t, s.initSession(t))
	sid := s.initSession(t)
	s.initialized(t, sid)
	if ex := do(t, "POST", s.url, postHeaders(), initBody); ex.status != 503 {
		t.Fatalf("third session: %d, want 503", ex.status)
	}
	do(t, "DELETE", s.url, map[string]string{"Mcp-Session-Id": sid}, "")
	s.initSession(t)
}

func TestIdleExpiry(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{SessionIdleTimeout: 50e6})
	sid := s.initSession(t)
	s.mu.Lock()
	c := s.conns[0]
	s.mu.Unlock()
	waitFor(t, c.Done(), "the idle session to expire")
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 404 {
		t.Fatalf("after expiry: %d, want 404", ex.status)
	}
}

func TestShutdownRefusesNewWork(t *testing.T) {
	s := newTestServer(t, nil)
	sid := s.initSession(t)
	if err := s.h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ex := do(t, "POST", s.url, postHeaders(), initBody); ex.status != 503 {
		t.Fatalf("initialize after Shutdown: %d", ex.status)
	}
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid), echoBody); ex.status != 404 && ex.status != 503 {
		t.Fatalf("request after Shutdown: %d", ex.status)
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"plain", "plain", true},
		{"  padded\t", "padded", true},
		{"=?base64?SGVsbG8=?=", "Hello", true},
		{"=?base64?SGVsbG8?=", "", false},
		{"=?base64?!!!!?=", "", false},
		{"=?base64?", "=?base64?", true},
		{"caf\xc3\xa9", "", false},
	} {
		got, ok := DecodeHeaderValue(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, s := range []string{"tool", " lead", "héllo", "=?base64?x?=", "a\nb"} {
		got, ok := DecodeHeaderValue(EncodeHeaderValue(s))
		if !ok || got != s {
			t.Errorf("round trip of %q: %q, %v", s, got, ok)
		}
	}
}

func TestScanParamsExactNames(t *testing.T) {
	info, err := scanParams(json.RawMessage(`{"Name":"a","name":"b","_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`))
	if err != nil || info.name != "b" || info.pv != "x" {
		t.Fatalf("got %+v, %v", info, err)
	}
	if _, err := scanParams(json.RawMessage(`{"name":"a","name":"b"}`)); err == nil {
		t.Fatal("duplicate name accepted")
	}
}

// The 0.1.16 server-sse-polling scenario names 2025-03-26 in MCP-Protocol-Version on
// a session that negotiated 2025-11-25: the negotiated revision decides priming.
func TestPrimingFollowsNegotiatedRevision(t *testing.T) {
	for _, tc := range []struct {
		negotiated, header string
		priming            bool
	}{
		{"2025-11-25", "2025-03-26", true},
		{"2025-11-25", "", true},
		{"2025-11-25", "2025-11-25", true},
		{"2025-06-18", "2025-06-18", false},
		{"2025-03-26", "", false},
		{"2025-06-18", "2025-11-25", true}, // the newer of the two
	} {
		name := tc.negotiated + "/" + tc.header
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t, &HandlerOptions{RetryInterval: 1500 * time.Millisecond})
			ex := do(t, "POST", s.url, postHeaders(), strings.Replace(initBody, "2025-11-25", tc.negotiated, 1))
			sid := ex.header.Get("Mcp-Session-Id")
			if ex.status != 200 || sid == "" {
				t.Fatalf("initialize: %d %q", ex.status, ex.body)
			}

			// A request whose handler closes its stream early.
			ex = do(t, "POST", s.url, postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", tc.header),
				`{"jsonrpc":"2.0","id":2,"method":"close-stream"}`)
			if ex.status != 200 {
				t.Fatalf("close-stream: %d %q", ex.status, ex.body)
			}
			closed := waitFor(t, s.closed, "CloseSSEStream")
			evs := sseEvents(t, ex.body)
			gotPriming := len(evs) > 0 && len(evs[0].Data) == 0 && evs[0].ID != ""
			hasRetry := strings.HasPrefix(ex.body, "id: ") && strings.Contains(ex.body, "\nretry: 1500\n")
			if gotPriming != tc.priming || hasRetry != tc.priming || closed != tc.priming {
				t.Errorf("priming event %v, retry field %v, CloseSSEStream %v; want %v (body %q)",
					gotPriming, hasRetry, closed, tc.priming, ex.body)
			}
			if tc.priming && len(messages(t, ex)) != 0 {
				t.Errorf("the early-closed stream carried messages: %q", ex.body)
			}

			// The standalone GET stream starts with a priming event on the same terms.
			hdr := map[string]string{"Mcp-Session-Id": sid}
			if tc.header != "" {
				hdr["Mcp-Protocol-Version"] = tc.header
			}
			// Bounded, so that a missing priming event fails instead of hanging.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", s.url, nil)
			req.Header.Set("Accept", "text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET: status %d", resp.StatusCode)
			}
			waitFor(t, s.attached, "the GET stream")
			if tc.priming {
				r := sse.NewReader(resp.Body, 0)
				ev, err := r.Next()
				if err != nil || len(ev.Data) != 0 || ev.ID != "0-0" || r.Retry() != 1500 {
					t.Errorf("first GET event %+v (retry %d, err %v), want the priming event", ev, r.Retry(), err)
				}
			}
		})
	}
}
