package conformance

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

func init() {
	h := func(ch *Check) *Check {
		if ch.Area == "" {
			ch.Area = AreaHTTP
		}
		ch.Transports = HTTP
		return ch
	}
	register(
		h(&Check{ID: "http/notification-202", Severity: MUST,
			Requirement: "POSTing an accepted notification returns 202 Accepted with an empty body",
			Run: func(c *C) {
				s := c.Dial()
				if !s.modern {
					ctx, cancel := c.Ctx()
					defer cancel()
					if err := s.initialize(ctx, false); err != nil {
						c.NotTestablef("initialize: %v", err)
					}
				}
				method := "notifications/initialized"
				if s.modern {
					method = "notifications/cancelled"
				}
				ctx, cancel := c.Ctx()
				defer cancel()
				params := map[string]any(nil)
				if s.modern {
					params = map[string]any{"requestId": "conformance-never-sent"}
				}
				reply, err := s.Notify(ctx, method, params)
				if err != nil {
					c.Fatalf("POST %s: %v", method, err)
				}
				if reply.Status != 202 {
					c.Failf("POST %s: HTTP %d, want 202", method, reply.Status)
				}
				if len(reply.Body) > 0 || reply.Stream != nil {
					c.Failf("POST %s: response has a body (%s)", method, short(reply.Body))
				}
			}}),
		h(&Check{ID: "http/response-content-type", Severity: MUST,
			Requirement: "A POSTed request is answered with Content-Type application/json (one response with the request's id) or text/event-stream",
			Run: func(c *C) {
				s := c.Session()
				ex := c.Call(s, pingMethod(s), nil)
				switch mt := ex.HTTP.MediaType(); mt {
				case "application/json":
					m := parseMsg(ex.HTTP.Body, "POST")
					if !m.IsResponse() || m.IDRaw() != ex.ID {
						c.Failf("JSON body is not one response with id %s: %s", ex.ID, short(ex.HTTP.Body))
					}
				case "text/event-stream":
				default:
					c.Failf("Content-Type %q", ex.HTTP.Header.Get("Content-Type"))
				}
				if ex.HTTP.Status != 200 {
					c.Failf("HTTP status %d for a successful request", ex.HTTP.Status)
				}
			}}),
		h(&Check{ID: "http/accept-required", Severity: ADVICE,
			Requirement: "A POST whose Accept offers neither application/json nor text/event-stream is refused with a 4xx (406)",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				m := pingMethod(s)
				reply, _ := sendRawHTTP(c, s, s.request(id, m, nil), m, http.Header{"Accept": {"text/html"}})
				if reply.Status < 400 || reply.Status >= 500 {
					c.Fatalf("HTTP %d, want a 4xx (406)", reply.Status)
				}
				if reply.Status != 406 {
					c.Logf("refused with %d rather than 406", reply.Status)
				}
			}}),
		h(&Check{ID: "http/content-type-required", Severity: SHOULD,
			Requirement: "A POST whose Content-Type is not application/json is refused with a 4xx (415)",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				m := pingMethod(s)
				reply, _ := sendRawHTTP(c, s, s.request(id, m, nil), m, http.Header{"Content-Type": {"text/plain"}})
				if reply.Status < 400 || reply.Status >= 500 {
					c.Fatalf("HTTP %d, want a 4xx (415)", reply.Status)
				}
				if reply.Status != 415 {
					c.Logf("refused with %d rather than 415", reply.Status)
				}
			}}),
		h(&Check{ID: "http/body-limit", Severity: ADVICE,
			Requirement: "A 16 MiB request body is refused with 413 and the session keeps working",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				m := pingMethod(s)
				pad := strings.Repeat("x", 16<<20)
				body := s.request(id, m, map[string]any{"_meta": map[string]any{"com.example/padding": pad}})
				reply, _ := sendRawHTTP(c, s, body, m, nil)
				if reply.Status != 413 {
					c.Failf("HTTP %d for a 16 MiB body, want 413", reply.Status)
				}
				c.Ping(s, "an oversized body")
			}}),
		h(&Check{ID: "http/get-stream", Severity: MUST,
			Requirement: "GET on the endpoint (Accept: text/event-stream) opens an event stream or answers 405",
			Run: func(c *C) {
				s := c.Session()
				hdr := s.headers("", nil)
				hdr.Set("Accept", "text/event-stream")
				r := c.HTTPDo(s, http.MethodGet, nil, hdr)
				if r.Status == 405 {
					return
				}
				if r.Status != 200 || r.MediaType() != "text/event-stream" {
					c.Fatalf("GET: HTTP %d, Content-Type %q; want an event stream or 405", r.Status, r.Header.Get("Content-Type"))
				}
			}}),
		h(&Check{ID: "http/session-id-charset", Severity: MUST, Until: Rev20251125,
			Requirement: "A session id consists only of visible ASCII (0x21-0x7E)",
			Run: func(c *C) {
				id := needSession(c)
				for i := 0; i < len(id); i++ {
					if id[i] < 0x21 || id[i] > 0x7e {
						c.Fatalf("session id %q has byte 0x%02x at %d", id, id[i], i)
					}
				}
			}}),
		h(&Check{ID: "http/session-id-unpredictable", Area: AreaSecurity, Severity: SHOULD, Until: Rev20251125,
			Requirement: "Session ids are long and unrelated (two sessions do not share most of their id)",
			Run: func(c *C) {
				a := needSession(c)
				b := sessionID(c)
				if a == b {
					c.Fatalf("two sessions got the same id %q", a)
				}
				if len(a) < 16 {
					c.Failf("session id %q is shorter than 16 characters", a)
				}
				p := 0
				for p < len(a) && p < len(b) && a[p] == b[p] {
					p++
				}
				if p*2 >= min(len(a), len(b)) {
					c.Failf("session ids %q and %q share a %d-character prefix", a, b, p)
				}
			}}),
		h(&Check{ID: "http/session-required", Severity: SHOULD, Until: Rev20251125,
			Requirement: "A server that requires sessions answers a non-initialize POST without Mcp-Session-Id with 400",
			Run: func(c *C) {
				needSession(c)
				s := c.Session()
				id := s.newID()
				reply, _ := sendRawHTTP(c, s, s.request(id, "ping", nil), "ping", http.Header{"Mcp-Session-Id": {}})
				if reply.Status >= 200 && reply.Status <= 299 {
					// The rule is for servers that require a session id; one
					// that serves requests without it does not.
					c.NA("the server serves requests without a session id (HTTP %d): it does not require sessions", reply.Status)
				}
				if reply.Status != 400 {
					c.Fatalf("HTTP %d without a session id, want 400", reply.Status)
				}
			}}),
		h(&Check{ID: "http/session-unknown", Severity: MUST, Until: Rev20251125,
			Requirement: "A request carrying an unknown session id gets 404",
			Run: func(c *C) {
				needSession(c)
				s := c.Session()
				id := s.newID()
				reply, _ := sendRawHTTP(c, s, s.request(id, "ping", nil), "ping", http.Header{"Mcp-Session-Id": {"conformance-unknown-session-0000"}})
				if reply.Status != 404 {
					c.Fatalf("HTTP %d for an unknown session id, want 404", reply.Status)
				}
			}}),
		h(&Check{ID: "http/session-delete", Area: AreaSecurity, Severity: MUST, Until: Rev20251125,
			Requirement: "DELETE with the session id ends the session (later requests get 404) or is refused with 405",
			Run: func(c *C) {
				needSession(c)
				s := c.Session()
				r := c.HTTPDo(s, http.MethodDelete, nil, s.headers("", nil))
				if r.Status == 405 {
					return
				}
				if r.Status < 200 || r.Status > 299 {
					c.Fatalf("DELETE: HTTP %d, want 2xx or 405", r.Status)
				}
				id := s.newID()
				reply, _ := sendRawHTTP(c, s, s.request(id, "ping", nil), "ping", nil)
				switch {
				case reply.Status >= 200 && reply.Status <= 299:
					c.Fatalf("after DELETE (HTTP %d) the session id still works: a request with it got HTTP %d, want 404", r.Status, reply.Status)
				case reply.Status != 404:
					c.Fatalf("after DELETE (HTTP %d) a request with the ended session's id got HTTP %d, want 404", r.Status, reply.Status)
				}
			}}),
		h(&Check{ID: "http/protocol-version-invalid", Severity: MUST, Since: Rev20250618, Until: Rev20251125,
			Requirement: "A request with an unsupported MCP-Protocol-Version header gets 400",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				reply, _ := sendRawHTTP(c, s, s.request(id, "ping", nil), "ping", http.Header{"Mcp-Protocol-Version": {"1999-01-01"}})
				if reply.Status != 400 {
					c.Fatalf("HTTP %d for MCP-Protocol-Version 1999-01-01, want 400", reply.Status)
				}
			}}),
		h(&Check{ID: "http/protocol-version-absent", Severity: SHOULD, Since: Rev20250618, Until: Rev20251125,
			Requirement: "A request without MCP-Protocol-Version in an established session is still served",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				reply, m := sendRawHTTP(c, s, s.request(id, "ping", nil), "ping", http.Header{"Mcp-Protocol-Version": {}})
				if reply.Status != 200 || m.Error() != nil {
					c.Fatalf("HTTP %d without MCP-Protocol-Version: %s", reply.Status, short(m.Raw))
				}
			}}),
		h(&Check{ID: "http/origin", Area: AreaSecurity, Severity: MUST,
			Requirement: "A request with a foreign Origin header is refused (with 403 from 2025-11-25)",
			Run: func(c *C) {
				s := c.Session()
				id := s.newID()
				m := pingMethod(s)
				reply, _ := sendRawHTTP(c, s, s.request(id, m, nil), m, http.Header{"Origin": {"http://evil.example.com"}})
				originRefused(c, "Origin http://evil.example.com", reply.Status)
			}}),
		h(&Check{ID: "http/host", Area: AreaSecurity, Severity: ADVICE,
			Requirement: "A loopback server refuses a request whose Host names another machine (DNS rebinding)",
			Run: func(c *C) {
				u, err := url.Parse(c.Target().URL)
				if err != nil || !isLoopback(u.Hostname()) {
					c.NA("the server is not on a loopback address")
				}
				s := c.Session()
				id := s.newID()
				m := pingMethod(s)
				reply, _ := sendRawHTTP(c, s, s.request(id, m, nil), m, http.Header{"Host": {"evil.example.com"}})
				if reply.Status < 400 || reply.Status >= 500 {
					c.Fatalf("HTTP %d for Host evil.example.com, want a 4xx", reply.Status)
				}
			}}),
		h(&Check{ID: "http/sse-response", Severity: MUST,
			Requirement: "An event-stream reply carries well-formed events whose data are JSON-RPC messages, including the response, after which the stream ends",
			Run: func(c *C) {
				s, ex := sseExchange(c)
				st := ex.HTTP.Stream
				if !waitStream(st, c.timeout()) {
					c.Failf("the stream did not end after the response")
				}
				if st.Trailing() {
					c.Failf("the stream ended inside an unterminated event")
				}
				found := false
				for _, ev := range st.Events() {
					if ev.Data == "" {
						continue
					}
					m := parseMsg([]byte(ev.Data), "sse")
					if m.Err != nil || m.Members == nil {
						c.Failf("event data is not a JSON-RPC message: %s", short([]byte(ev.Data)))
					}
					found = found || (m.IsResponse() && m.IDRaw() == ex.ID)
				}
				if !found {
					c.Failf("no event carried the response with id %s", ex.ID)
				}
				_ = s
			}}),
		h(&Check{ID: "http/sse-priming", Severity: SHOULD, Since: Rev20251125, Until: Rev20251125,
			Requirement: "An event-stream reply from a server that puts ids on its events starts with a priming event that has an id and empty data",
			Run: func(c *C) {
				_, ex := sseExchange(c)
				evs := ex.HTTP.Stream.Events()
				// Event ids are optional (a server MAY attach them); the priming
				// event exists to give the client a Last-Event-ID to resume from,
				// so a stream with no ids at all offers no resumption to prime.
				ids := false
				for _, ev := range evs {
					ids = ids || ev.HasID
				}
				if len(evs) > 0 && !ids {
					c.NA("no event of the stream carries an id: the server does not offer resumption on it")
				}
				if len(evs) == 0 || !evs[0].HasID || evs[0].Data != "" {
					first := "none"
					if len(evs) > 0 {
						first = string(mustJSON(evs[0]))
					}
					c.Fatalf("first event is %s, want an id with empty data", first)
				}
			}}),
	)
}

// sendRawHTTP POSTs body with the session's headers for method plus hdr and
// returns the reply and the JSON-RPC message in it (if any).
func sendRawHTTP(c *C, s *Session, body []byte, method string, hdr http.Header) (*HTTPReply, Msg) {
	h := s.headers(method, nil)
	for k, v := range hdr {
		h[http.CanonicalHeaderKey(k)] = v
	}
	ctx, cancel := c.Ctx()
	defer cancel()
	mark := s.Mark()
	c.trace.sentHTTP(s, http.MethodPost, body, h, mark)
	reply, err := s.conn.send(ctx, body, h)
	c.trace.replied(s, reply)
	if err != nil {
		c.Fatalf("POST: %v", err)
	}
	var m Msg
	if reply.Stream != nil {
		m, _ = s.WaitFrom(ctx, mark, anyResponse)
	} else if len(reply.Body) > 0 {
		m = parseMsg(reply.Body, "POST")
	}
	return reply, m
}

// needSession returns a fresh session id or stops the check as not
// applicable.
func needSession(c *C) string {
	id := sessionID(c)
	if id == "" {
		c.NA("the server issues no session ids")
	}
	return id
}

// sseExchange finds a request the server answers with an event stream:
// tools/call with a progress token first, then the ping method.
func sseExchange(c *C) (*Session, *Exchange) {
	s := c.Session()
	if c.run.opts.toolPolicy() != CallNone && c.HasCap("tools") {
		// A server may answer with JSON when it has nothing to send before
		// the response, so tools that report progress come first: with the
		// progress token they are the likeliest to open a stream.
		tcs := preferTools(c.callableTools(), "progress", "long", "slow")
		for _, tc := range tcs[:min(2, len(tcs))] {
			ex := c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args, "_meta": map[string]any{"progressToken": "sse-1"}})
			if ex.HTTP.Stream != nil {
				return s, ex
			}
		}
	}
	ex := c.Call(s, pingMethod(s), nil)
	if ex.HTTP.Stream != nil {
		return s, ex
	}
	c.NA("the server answered every request tried with JSON, not an event stream")
	return nil, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originRefused judges the reply to a request with a foreign Origin.
// Servers MUST validate Origin in every revision; 2025-11-25 names the
// status of the refusal, 403, so earlier revisions accept any 4xx.
func originRefused(c *C, what string, status int) {
	if c.Revision() < Rev20251125 && status >= 400 && status < 500 {
		c.Logf("%s: refused with HTTP %d (403 is required from 2025-11-25)", what, status)
		return
	}
	if status != 403 {
		c.Failf("%s: HTTP %d, want 403", what, status)
	}
}
