package conformance

import (
	"encoding/json"
	"net/http"
)

// modernRaw sends a request built from params exactly as given (no _meta is
// added) with the standard 2026-07-28 headers plus hdr, and waits for the
// answer.
func modernRaw(c *C, s *Session, id, method string, params map[string]any, hdr http.Header) (Msg, *HTTPReply) {
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != nil {
		body += `,"params":` + string(mustJSON(params))
	}
	h := s.headers(method, nil)
	for k, v := range hdr {
		h[http.CanonicalHeaderKey(k)] = v
	}
	m, reply, ok := c.SendWait(s, []byte(body+"}"), h, isResponseTo(id))
	if !ok {
		c.Fatalf("no JSON-RPC answer to %s%s", method, statusNote(reply))
	}
	return m, reply
}

// metaWithout returns the standard request _meta minus key.
func metaWithout(s *Session, key string) map[string]any {
	m := s.modernMeta()
	delete(m, key)
	return m
}

// expectModernError requires error code with the HTTP status the revision
// prescribes.
func expectModernError(c *C, what string, m Msg, reply *HTTPReply, code int64, status int) *RPCError {
	e := c.expectError(what, m, code)
	c.checkHTTPStatus(what, reply, status)
	return e
}

func init() {
	modern := func(ch *Check) *Check { ch.Area, ch.Since = AreaModern, Rev20260728; return ch }
	register(
		modern(&Check{ID: "stateless/discover", Severity: MUST,
			Requirement: "server/discover returns supportedVersions (with 2026-07-28), capabilities, integer ttlMs >= 0, cacheScope and resultType \"complete\"",
			Run: func(c *C) {
				s := c.Session()
				r := c.Result(s, "server/discover", map[string]any{})
				vs, ok := r.Arr("supportedVersions")
				if !ok {
					c.Failf("supportedVersions is not an array")
				}
				has := false
				for _, v := range vs {
					has = has || string(v) == `"`+Rev20260728+`"`
				}
				if !has {
					c.Failf("supportedVersions %s lacks %s", short(r["supportedVersions"]), Rev20260728)
				}
				if _, ok := r.Obj("capabilities"); !ok {
					c.Failf("capabilities is not an object")
				}
				checkCacheFields(c, "server/discover", r)
				checkResultType(c, "server/discover", r)
			}}),
		modern(&Check{ID: "stateless/result-type", Severity: MUST,
			Requirement: "Every result carries resultType; ordinary results use \"complete\"",
			Run: func(c *C) {
				s := c.Session()
				for _, f := range []struct{ cap, method string }{{"", "server/discover"}, {"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}} {
					if f.cap != "" && !c.HasCap(f.cap) {
						continue
					}
					checkResultType(c, f.method, c.Result(s, f.method, map[string]any{}))
				}
			}}),
		modern(&Check{ID: "stateless/meta-missing", Severity: MUST, Transports: HTTP,
			Requirement: "A POST marked 2026-07-28 by its MCP-Protocol-Version header but without params._meta is refused with -32602 (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"mm-1"`, "server/discover", map[string]any{}, nil)
				expectModernError(c, "request without _meta", m, reply, -32602, 400)
			}}),
		modern(&Check{ID: "stateless/meta-no-version", Severity: MUST, Transports: HTTP,
			Requirement: "A POST marked 2026-07-28 by its header whose _meta lacks io.modelcontextprotocol/protocolVersion is refused with -32602 (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"mv-1"`, "server/discover", map[string]any{"_meta": metaWithout(s, metaProtocolVersion)}, nil)
				expectModernError(c, "request without protocolVersion", m, reply, -32602, 400)
			}}),
		modern(&Check{ID: "stateless/meta-no-capabilities", Severity: MUST,
			Requirement: "A request whose _meta lacks io.modelcontextprotocol/clientCapabilities is refused with -32602 (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"mc-1"`, "server/discover", map[string]any{"_meta": metaWithout(s, metaClientCaps)}, nil)
				expectModernError(c, "request without clientCapabilities", m, reply, -32602, 400)
			}}),
		modern(&Check{ID: "stateless/client-info-optional", Severity: MUST,
			Requirement: "A request whose _meta lacks io.modelcontextprotocol/clientInfo is served normally",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"ci-1"`, "server/discover", map[string]any{"_meta": metaWithout(s, metaClientInfo)}, nil)
				if e := m.Error(); e != nil {
					c.Fatalf("refused: %s %q", e.Code, e.Message)
				}
				c.checkHTTPStatus("server/discover without clientInfo", reply, 200)
			}}),
		modern(&Check{ID: "stateless/unsupported-version", Severity: MUST,
			Requirement: "An unsupported revision (v999.0.0 in header and body) gets -32022 with data.supported (a subset of supportedVersions) and data.requested (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				disc := c.Result(s, "server/discover", map[string]any{})
				supported := map[string]bool{}
				vs, _ := disc.Arr("supportedVersions")
				for _, v := range vs {
					supported[string(v)] = true
				}
				meta := s.modernMeta()
				meta[metaProtocolVersion] = "v999.0.0"
				m, reply := modernRaw(c, s, `"uv-1"`, "server/discover", map[string]any{"_meta": meta}, http.Header{"Mcp-Protocol-Version": {"v999.0.0"}})
				e := expectModernError(c, "unsupported version", m, reply, -32022, 400)
				data, ok := toObj(e.Data)
				if !ok {
					c.Fatalf("error data is not an object: %s", orAbsent(e.Data))
				}
				if req, _ := data.Str("requested"); req != "v999.0.0" {
					c.Failf("data.requested is %s, want \"v999.0.0\"", orAbsent(data["requested"]))
				}
				list, ok := data.Arr("supported")
				if !ok || len(list) == 0 {
					c.Fatalf("data.supported is not a non-empty array: %s", orAbsent(data["supported"]))
				}
				for _, v := range list {
					if !supported[string(v)] {
						c.Failf("data.supported lists %s, which server/discover does not", v)
					}
				}
			}}),
		modern(&Check{ID: "stateless/removed-methods", Severity: MUST,
			Requirement: "initialize, ping, logging/setLevel and resources/subscribe sent with the 2026-07-28 _meta get -32601 (HTTP 404)",
			Run: func(c *C) {
				s := c.Session()
				for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe"} {
					params := map[string]any{}
					switch method {
					case "initialize":
						params = map[string]any{"protocolVersion": latestLegacy, "capabilities": map[string]any{}, "clientInfo": clientInfo}
					case "logging/setLevel":
						params = map[string]any{"level": "info"}
					case "resources/subscribe":
						params = map[string]any{"uri": "conformance://x"}
					}
					ex := c.Call(s, method, params)
					e := ex.Response.Error()
					if e == nil {
						c.Failf("%s was served: %s", method, short(ex.Response.Raw))
						continue
					}
					if code, _ := e.CodeInt(); code != -32601 {
						c.Failf("%s: error %s, want -32601", method, e.Code)
					}
					c.checkHTTPStatus(method, ex.HTTP, 404)
				}
			}}),
		modern(&Check{ID: "stateless/server-info", Severity: SHOULD,
			Requirement: "Results carry _meta[\"io.modelcontextprotocol/serverInfo\"] with name and version",
			Run: func(c *C) {
				s := c.Session()
				r := c.Result(s, "server/discover", map[string]any{})
				meta, _ := r.Obj("_meta")
				info, ok := meta.Obj(metaServerInfo)
				if !ok {
					c.Fatalf("server/discover result lacks _meta[%q]", metaServerInfo)
				}
				for _, k := range []string{"name", "version"} {
					if _, ok := info.Str(k); !ok {
						c.Failf("serverInfo.%s is not a string", k)
					}
				}
			}}),
		modern(&Check{ID: "stateless/cache-fields", Severity: MUST,
			Requirement: "tools/list, prompts/list, resources/list, resources/templates/list and resources/read results carry integer ttlMs >= 0 and cacheScope public|private",
			Run: func(c *C) {
				s := c.Session()
				n := 0
				for _, f := range []struct{ cap, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}} {
					if !c.HasCap(f.cap) {
						continue
					}
					n++
					checkCacheFields(c, f.method, c.Result(s, f.method, map[string]any{}))
				}
				if c.HasCap("resources") {
					if rs := c.Resources(); len(rs) > 0 {
						uri, _ := rs[0].Str("uri")
						checkCacheFields(c, "resources/read", c.Result(s, "resources/read", map[string]any{"uri": uri}))
					}
				}
				if n == 0 {
					c.NA("the server declares no listable feature")
				}
			}}),
		modern(&Check{ID: "stateless/no-session", Severity: MUST, Transports: HTTP,
			Requirement: "A 2026-07-28 request never gets an Mcp-Session-Id and a stray one is ignored",
			Run: func(c *C) {
				s := c.Session()
				ex := c.Call(s, "server/discover", map[string]any{})
				if v := ex.HTTP.Header.Get("Mcp-Session-Id"); v != "" {
					c.Failf("server minted Mcp-Session-Id %q", v)
				}
				s.sessionID = "conformance-stray-session"
				if _, err := resultOrErr(c.Call(s, "server/discover", map[string]any{})); err != nil {
					c.Failf("a request with a stray Mcp-Session-Id was refused: %v", err)
				}
			}}),
		modern(&Check{ID: "stateless/header-protocol-version", Severity: MUST, Transports: HTTP,
			Requirement: "A POST without MCP-Protocol-Version, or with one that differs from _meta, gets -32020 (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"hp-1"`, "server/discover", map[string]any{"_meta": s.modernMeta()}, http.Header{"Mcp-Protocol-Version": {}})
				expectModernError(c, "missing MCP-Protocol-Version", m, reply, -32020, 400)
				m, reply = modernRaw(c, s, `"hp-2"`, "server/discover", map[string]any{"_meta": s.modernMeta()}, http.Header{"Mcp-Protocol-Version": {latestLegacy}})
				expectModernError(c, "MCP-Protocol-Version differing from _meta", m, reply, -32020, 400)
			}}),
		modern(&Check{ID: "stateless/header-method", Severity: MUST, Transports: HTTP,
			Requirement: "A POST whose Mcp-Method is missing or differs from the body (values are case-sensitive) gets -32020 (HTTP 400)",
			Run: func(c *C) {
				s := c.Session()
				m, reply := modernRaw(c, s, `"hm-1"`, "server/discover", map[string]any{"_meta": s.modernMeta()}, http.Header{"Mcp-Method": {}})
				expectModernError(c, "missing Mcp-Method", m, reply, -32020, 400)
				m, reply = modernRaw(c, s, `"hm-2"`, "server/discover", map[string]any{"_meta": s.modernMeta()}, http.Header{"Mcp-Method": {"SERVER/DISCOVER"}})
				expectModernError(c, "Mcp-Method in the wrong case", m, reply, -32020, 400)
			}}),
		modern(&Check{ID: "stateless/header-name", Severity: MUST, Transports: HTTP,
			Requirement: "A tools/call whose Mcp-Name differs from params.name gets -32020 (HTTP 400)",
			Run: func(c *C) {
				c.NeedCap("tools")
				// A server that ignores the header runs the tool: only one the
				// tool policy allows is named.
				name := ""
				for _, t := range c.Tools() {
					if ok, _ := c.mayCall(t); ok && name == "" {
						name, _ = t.Str("name")
					}
				}
				if name == "" {
					c.NA("the server lists no tool the tool policy (%s) allows calling", c.run.opts.toolPolicy())
				}
				s := c.Session()
				params := map[string]any{"name": name, "arguments": map[string]any{}, "_meta": s.modernMeta()}
				m, reply := modernRaw(c, s, `"hn-1"`, "tools/call", params, http.Header{"Mcp-Name": {name + "-other"}})
				expectModernError(c, "Mcp-Name differing from params.name", m, reply, -32020, 400)
			}}),
		modern(&Check{ID: "stateless/log-level", Serial: true, Severity: MUST,
			Requirement: "Without _meta logLevel the server sends no notifications/message for a request",
			Run: func(c *C) {
				tcs := c.callableTools()
				if len(tcs) == 0 {
					c.NA("no tool can be called with generated arguments")
				}
				s := c.Session()
				for _, tc := range tcs[:min(3, len(tcs))] {
					ex := c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args})
					for _, m := range ex.Before {
						if m.Method() == "notifications/message" {
							c.Failf("tools/call %s without logLevel produced %s", tc.name, short(m.Raw))
						}
					}
				}
			}}),
	)
}

// checkResultType requires resultType "complete".
func checkResultType(c *C, method string, r Obj) {
	if v, _ := r.Str("resultType"); v != "complete" {
		c.Failf("%s: resultType is %s, want \"complete\"", method, orAbsent(r["resultType"]))
	}
}

// checkCacheFields requires ttlMs (integer >= 0) and cacheScope.
func checkCacheFields(c *C, method string, r Obj) {
	ttl := r["ttlMs"]
	var n json.Number
	if !isJSONInteger(ttl) || json.Unmarshal(ttl, &n) != nil || len(n.String()) > 0 && n.String()[0] == '-' {
		c.Failf("%s: ttlMs is %s, want an integer >= 0", method, orAbsent(ttl))
	}
	if sc, _ := r.Str("cacheScope"); sc != "public" && sc != "private" {
		c.Failf("%s: cacheScope is %s, want \"public\" or \"private\"", method, orAbsent(r["cacheScope"]))
	}
}
