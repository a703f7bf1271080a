package conformance

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

func init() {
	register(
		&Check{ID: "sse/endpoint-event", Area: AreaSSE, Severity: MUST, Transports: SSE, Until: Rev20251125, Standalone: true,
			Requirement: "GET on the SSE URL returns text/event-stream whose first event is \"endpoint\" with a URI reference as data",
			Run: func(c *C) {
				h := newHTTPConn(c.Target().SSEURL, c.run.opts.Headers)
				defer h.close()
				ctx, cancel := c.Ctx()
				defer cancel()
				r, err := h.do(ctx, http.MethodGet, c.Target().SSEURL, nil, http.Header{"Accept": {"text/event-stream"}}, "GET")
				if err != nil {
					c.Fatalf("GET: %v", err)
				}
				if r.Stream == nil {
					c.Fatalf("GET: HTTP %d, Content-Type %q, not an event stream", r.Status, r.Header.Get("Content-Type"))
				}
				ev, ok := r.Stream.next(0, ctx.Done())
				if !ok {
					c.Fatalf("no event arrived")
				}
				if ev.Event != "endpoint" {
					c.Fatalf("first event is %q (data %q), want \"endpoint\"", ev.Event, ev.Data)
				}
				if _, err := url.Parse(ev.Data); err != nil || ev.Data == "" {
					c.Fatalf("endpoint data %q is not a URI reference", ev.Data)
				}
			}},
		&Check{ID: "sse/post-response-on-stream", Area: AreaSSE, Severity: MUST, Transports: SSE, Until: Rev20251125,
			Requirement: "A POST to the endpoint is accepted with 2xx and its response arrives as a \"message\" event on the SSE stream",
			Run: func(c *C) {
				s := c.Session()
				ex := c.Call(s, "ping", nil)
				if ex.HTTP.Status < 200 || ex.HTTP.Status > 299 {
					c.Failf("POST answered HTTP %d", ex.HTTP.Status)
				}
				if ex.Response.Source != "SSE-sse" {
					c.Fatalf("the response arrived in the %s, not on the event stream", ex.Response.Source)
				}
				sc := s.conn.(*sseConn)
				for _, ev := range sc.stream.Events() {
					m := parseMsg([]byte(ev.Data), "")
					if m.IsResponse() && m.IDRaw() == ex.ID && ev.Event != "message" {
						c.Failf("the response came in an event named %q, want \"message\"", ev.Event)
					}
				}
			}},
		&Check{ID: "sse/origin", Area: AreaSecurity, Severity: MUST, Transports: SSE, Until: Rev20251125,
			Requirement: "Both legacy endpoints refuse a foreign Origin (with 403 from 2025-11-25)",
			Run: func(c *C) {
				s := c.Session()
				sc := s.conn.(*sseConn)
				ctx, cancel := c.Ctx()
				defer cancel()
				evil := http.Header{"Origin": {"http://evil.example.com"}}
				r, err := sc.h.do(ctx, http.MethodGet, c.Target().SSEURL, nil, mergeHeaders(http.Header{"Accept": {"text/event-stream"}}, evil), "GET")
				if err != nil {
					c.Fatalf("GET: %v", err)
				}
				originRefused(c, "GET with a foreign Origin", r.Status)
				body := s.request(`"o-1"`, "ping", nil)
				r, err = sc.send(ctx, body, evil)
				if err != nil {
					c.Fatalf("POST: %v", err)
				}
				originRefused(c, "POST with a foreign Origin", r.Status)
			}},
		&Check{ID: "stdio/stdout-json-only", Area: AreaStdio, Severity: MUST, Transports: Stdio,
			Requirement: "Every line the server writes to stdout is one JSON-RPC message; nothing else appears there",
			Run: func(c *C) {
				s := c.Session()
				for _, m := range []string{pingMethod(s), "tools/list", "conformance/no-such-method"} {
					c.Call(s, m, map[string]any{})
				}
				c.Ping(s, "the scripted requests")
				for _, m := range s.Since(0) {
					if m.Err != nil || (m.Members == nil && !m.IsArray()) {
						c.Failf("stdout line is not a JSON-RPC message: %q", short(m.Raw))
					}
				}
			}},
		&Check{ID: "stdio/exit-on-eof", Area: AreaStdio, Severity: SHOULD, Transports: Stdio,
			Requirement: "The server exits promptly when its stdin is closed",
			Run: func(c *C) {
				s := c.Session()
				sc := s.conn.(*stdioConn)
				if err := sc.closeStdin(); err != nil {
					c.Fatalf("closing stdin: %v", err)
				}
				if !sc.waitExit(min(c.timeout(), 5*time.Second)) {
					c.Fatalf("the server was still running %v after stdin closed", min(c.timeout(), 5*time.Second))
				}
			}},
	)
	register(securityChecks()...)
}

var (
	hostile = []string{
		"../../../../../../etc/passwd",
		"<script>alert('mcp-conformance')</script>",
		"name\u0000with-nul",
		"%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		strings.Repeat("\u202e\u0301", 200),
	}
	passwdLine   = regexp.MustCompile(`root:[^:\n]*:0:0:`)
	scriptMarker = "<script>alert('mcp-conformance')"
)

// hostileURIs builds resource URIs from the hostile strings: raw, as
// file URIs, and through each template with one variable.
func hostileURIs(c *C) []string {
	uris := []string{"file:///../../../../../../etc/passwd", "file:///etc/passwd"}
	for _, h := range hostile {
		uris = append(uris, h)
	}
	if c.HasCap("resources") {
		for _, t := range c.Templates() {
			ut, _ := t.Str("uriTemplate")
			for _, h := range hostile[:2] {
				if u, ok := expandOne(ut, h); ok {
					uris = append(uris, u)
				}
			}
		}
	}
	return uris
}

// expandOne fills every {var} of a template with v (unencoded, as an
// attacker would send it).
func expandOne(tmpl, v string) (string, bool) {
	if !strings.Contains(tmpl, "{") {
		return "", false
	}
	re := regexp.MustCompile(`\{[^}]*\}`)
	return re.ReplaceAllLiteralString(tmpl, v), true
}

func securityChecks() []*Check {
	return []*Check{
		{ID: "security/hostile-input", Area: AreaSecurity, Severity: MUST,
			Requirement: "Path-traversal, script, NUL and bidi strings in tool names, prompt names, resource URIs and arguments are answered (result or error) and the server keeps working",
			Run: func(c *C) {
				s := c.Session()
				var calls []struct {
					method string
					params map[string]any
				}
				add := func(m string, p map[string]any) {
					calls = append(calls, struct {
						method string
						params map[string]any
					}{m, p})
				}
				for _, h := range hostile {
					if c.HasCap("tools") {
						add("tools/call", map[string]any{"name": h, "arguments": map[string]any{}})
					}
					if c.HasCap("prompts") {
						add("prompts/get", map[string]any{"name": h})
					}
				}
				if c.HasCap("resources") {
					for _, u := range hostileURIs(c) {
						add("resources/read", map[string]any{"uri": u})
					}
				}
				if c.HasCap("tools") && c.run.opts.toolPolicy() != CallNone {
					for _, tc := range c.callableTools()[:min(2, len(c.callableTools()))] {
						for _, h := range hostile[:2] {
							args := map[string]any{}
							for k, v := range tc.args {
								if _, isStr := v.(string); isStr {
									v = h
								}
								args[k] = v
							}
							add("tools/call", map[string]any{"name": tc.name, "arguments": args})
						}
					}
				}
				if len(calls) == 0 {
					c.NA("the server declares no tools, prompts or resources")
				}
				for _, call := range calls {
					c.Call(s, call.method, call.params)
				}
				c.Ping(s, "hostile input")
			}},
		{ID: "security/path-traversal", Area: AreaSecurity, Severity: MUST,
			Requirement: "resources/read of traversal URIs (../ and encoded forms, through templates too) never returns files outside the server's domain such as /etc/passwd",
			Run: func(c *C) {
				c.NeedCap("resources")
				s := c.Session()
				for _, u := range hostileURIs(c) {
					ex := c.Call(s, "resources/read", map[string]any{"uri": u})
					if passwdLine.Match(ex.Response.Raw) {
						c.Failf("resources/read %q returned password-file content: %s", u, short(ex.Response.Raw))
					}
				}
			}},
		{ID: "security/no-html-echo", Area: AreaSecurity, Severity: MUST,
			Requirement: "Script strings sent by a client never come back unescaped inside HTML (text/html resource contents or HTTP pages)",
			Run: func(c *C) {
				s := c.Session()
				checked := 0
				if c.HasCap("resources") {
					for _, u := range hostileURIs(c) {
						ex := c.Call(s, "resources/read", map[string]any{"uri": u})
						checked++
						contents, _ := ex.Response.Result().Arr("contents")
						for _, it := range contents {
							o, _ := toObj(it)
							mt, _ := o.Str("mimeType")
							txt, _ := o.Str("text")
							if strings.Contains(mt, "html") && strings.Contains(txt, scriptMarker) {
								c.Failf("resources/read %q echoed the script into %s: %s", u, mt, short([]byte(txt)))
							}
						}
					}
				}
				if c.Transport() != Stdio {
					base := c.Target().URL
					if base == "" {
						base = c.Target().SSEURL
					}
					for _, u := range []string{base + "/" + url.PathEscape(hostile[1]), base + "?q=" + url.QueryEscape(hostile[1])} {
						r := c.HTTPDoURL(s, http.MethodGet, u)
						checked++
						if strings.Contains(r.Header.Get("Content-Type"), "html") && strings.Contains(string(r.Body), scriptMarker) {
							c.Failf("GET %s echoed the script into HTML: %s", u, short(r.Body))
						}
					}
				}
				if checked == 0 {
					c.NA("nothing to probe: no resources and no HTTP")
				}
			}},
	}
}

// HTTPDoURL performs a GET-like request on an arbitrary URL of the target's
// host, without reading event streams to the end.
func (c *C) HTTPDoURL(s *Session, method, u string) *HTTPReply {
	var h *httpConn
	switch conn := s.conn.(type) {
	case *httpConn:
		h = conn
	case *sseConn:
		h = conn.h
	default:
		c.NotTestablef("not an HTTP connection")
	}
	ctx, cancel := c.Ctx()
	defer cancel()
	r, err := h.do(ctx, method, u, nil, http.Header{"Accept": {"text/html, */*"}}, method)
	if err != nil {
		c.Fatalf("%s %s: %v", method, u, err)
	}
	return r
}
