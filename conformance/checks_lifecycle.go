package conformance

import (
	"net/http"
)

func init() {
	register(
		&Check{ID: "lifecycle/initialize-echo", Area: AreaLifecycle, Severity: MUST, Until: Rev20251125,
			Requirement: "initialize with a revision the server supports is answered with exactly that protocolVersion",
			Run: func(c *C) {
				s := c.Dial()
				asked := s.revision
				ctx, cancel := c.Ctx()
				defer cancel()
				if err := s.initialize(ctx, true); err != nil {
					c.Fatalf("initialize: %v", err)
				}
				if s.revision != asked {
					c.Fatalf("asked for protocolVersion %q, the server answered %q", asked, s.revision)
				}
			}},
		&Check{ID: "lifecycle/initialize-result", Area: AreaLifecycle, Severity: MUST, Until: Rev20251125,
			Requirement: "InitializeResult has protocolVersion, capabilities, serverInfo.name and serverInfo.version of the schema types; instructions is a string",
			Run: func(c *C) {
				s := c.Session()
				r := s.initRes
				if _, ok := r.Str("protocolVersion"); !ok {
					c.Failf("protocolVersion is not a string: %s", orAbsent(r["protocolVersion"]))
				}
				if _, ok := r.Obj("capabilities"); !ok {
					c.Failf("capabilities is not an object: %s", orAbsent(r["capabilities"]))
				}
				info, ok := r.Obj("serverInfo")
				if !ok {
					c.Fatalf("serverInfo is not an object: %s", orAbsent(r["serverInfo"]))
				}
				for _, k := range []string{"name", "version"} {
					if _, ok := info.Str(k); !ok {
						c.Failf("serverInfo.%s is not a string: %s", k, orAbsent(info[k]))
					}
				}
				for _, k := range []string{"title", "description", "websiteUrl"} {
					if _, present := info[k]; present {
						if _, ok := info.Str(k); !ok {
							c.Failf("serverInfo.%s is not a string", k)
						}
					}
				}
				if _, present := r["instructions"]; present {
					if _, ok := r.Str("instructions"); !ok {
						c.Failf("instructions is not a string: %s", short(r["instructions"]))
					}
				}
			}},
		&Check{ID: "lifecycle/unsupported-version", Area: AreaLifecycle, Severity: MUST, Until: Rev20251125,
			Requirement: "initialize with an unknown revision (1900-01-01) gets a revision the server supports, or an error — never the unknown string echoed",
			Run: func(c *C) {
				s := c.Dial()
				ex := c.Call(s, "initialize", map[string]any{"protocolVersion": "1900-01-01", "capabilities": map[string]any{}, "clientInfo": clientInfo})
				if ex.Response.Error() != nil {
					c.Logf("refused with an error")
					return
				}
				r := ex.Response.Result()
				v, _ := r.Str("protocolVersion")
				if v == "1900-01-01" || !knownRevision(v) {
					c.Fatalf("the server answered protocolVersion %s", orAbsent(r["protocolVersion"]))
				}
			}},
		&Check{ID: "lifecycle/ping-before-initialized", Area: AreaLifecycle, Severity: MUST, Until: Rev20251125,
			Requirement: "ping is answered with an empty result after initialize but before notifications/initialized",
			Run: func(c *C) {
				s := c.Dial()
				ctx, cancel := c.Ctx()
				defer cancel()
				if err := s.initialize(ctx, false); err != nil {
					c.NotTestablef("initialize: %v", err)
				}
				c.checkEmptyResult("ping", c.Result(s, "ping", nil))
			}},
		&Check{ID: "lifecycle/request-before-initialize", Area: AreaLifecycle, Severity: ADVICE, Until: Rev20251125,
			Requirement: "A feature request sent before initialize is refused (an error, or HTTP 400 without a session), not served",
			Run: func(c *C) {
				method := firstDeclaredList(c)
				if c.Transport() == HTTP && !issuesSessions(c) {
					c.NA("the server issues no session ids, so it serves requests statelessly")
				}
				s := c.Dial()
				id := `"early-1"`
				m, reply, ok := c.SendWait(s, s.request(id, method, map[string]any{}), nil, isResponseTo(id))
				if reply != nil && reply.Status >= 400 && reply.Status < 500 {
					return
				}
				if !ok {
					c.Fatalf("no answer to %s before initialize%s", method, statusNote(reply))
				}
				if m.Error() == nil {
					c.Fatalf("%s was served before initialize: %s", method, short(m.Raw))
				}
			}},
		&Check{ID: "lifecycle/capabilities-shape", Area: AreaLifecycle, Severity: MUST,
			Requirement: "Declared capabilities are objects; listChanged and subscribe flags are booleans",
			Run: func(c *C) {
				for k, v := range c.Caps() {
					if jsonKind(v) != "object" {
						c.Failf("capability %q is %s, not an object", k, jsonKind(v))
						continue
					}
					o, _ := toObj(v)
					for _, flag := range []string{"listChanged", "subscribe"} {
						if f, ok := o[flag]; ok && jsonKind(f) != "boolean" {
							c.Failf("capabilities.%s.%s is %s, not a boolean", k, flag, short(f))
						}
					}
				}
			}},
		&Check{ID: "lifecycle/undeclared-capability", Area: AreaLifecycle, Severity: ADVICE,
			Requirement: "A request for a feature the server did not declare (tools, prompts, resources) is answered with -32601",
			Run: func(c *C) {
				tested := 0
				for _, f := range []struct{ cap, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}} {
					if c.HasCap(f.cap) {
						continue
					}
					tested++
					s := c.Session()
					c.RequireError(s, f.method, map[string]any{}, -32601)
				}
				if tested == 0 {
					c.NA("the server declares tools, prompts and resources")
				}
			}},
		&Check{ID: "utilities/ping", Area: AreaUtilities, Severity: MUST, Until: Rev20251125,
			Requirement: "ping is answered promptly with an empty result {}",
			Run: func(c *C) {
				s := c.Session()
				c.checkEmptyResult("ping", c.Result(s, "ping", nil))
			}},
	)
}

// firstDeclaredList returns a list method of a declared feature.
func firstDeclaredList(c *C) string {
	for _, f := range []struct{ cap, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}} {
		if c.HasCap(f.cap) {
			return f.method
		}
	}
	c.NA("the server declares no tools, prompts or resources")
	return ""
}

// issuesSessions reports whether the HTTP server returns a session id on
// initialize.
func issuesSessions(c *C) bool { return sessionID(c) != "" }

// sessionID initializes a fresh session and returns its id ("" when none).
func sessionID(c *C) string {
	if c.Transport() != HTTP || c.Modern() {
		return ""
	}
	s := c.Session()
	return s.sessionID
}

// sessionHeaders are the headers of s with key set to val (or removed when
// val is "").
func sessionHeaders(s *Session, method string, key, val string) http.Header {
	h := s.headers(method, nil)
	if val == "" {
		h[http.CanonicalHeaderKey(key)] = []string{}
	} else {
		h.Set(key, val)
	}
	return h
}
