package conformance

import (
	"fmt"
	"strings"
)

func init() {
	register(
		&Check{ID: "jsonrpc/parse-error", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: "Unparsable JSON is answered with error -32700 without a usable id, and the connection stays usable",
			Run: func(c *C) {
				s := c.Session()
				m, reply, ok := c.SendWait(s, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"`), nil, func(m Msg) bool { return m.IsResponse() && idNullOrAbsent(m) })
				if !ok {
					c.Fatalf("no error response to unparsable JSON%s", statusNote(reply))
				}
				c.expectError("unparsable JSON", m, -32700)
				c.Ping(s, "a parse error")
			}},
		&Check{ID: "jsonrpc/invalid-request-no-version", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: `A request without the "jsonrpc" member is answered with error -32600, not executed`,
			Run: func(c *C) {
				s := c.Session()
				invalidRequest(c, s, `{"id":"nv-1","method":"`+pingMethod(s)+`"`+paramsJSON(s, nil)+`}`, `"nv-1"`)
			}},
		&Check{ID: "jsonrpc/invalid-request-wrong-version", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: `A request whose "jsonrpc" is not exactly "2.0" is answered with error -32600, not executed`,
			Run: func(c *C) {
				s := c.Session()
				invalidRequest(c, s, `{"jsonrpc":"1.0","id":"wv-1","method":"`+pingMethod(s)+`"`+paramsJSON(s, nil)+`}`, `"wv-1"`)
			}},
		&Check{ID: "jsonrpc/invalid-request-method-type", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: `A request whose "method" is not a string is answered with error -32600`,
			Run: func(c *C) {
				s := c.Session()
				invalidRequest(c, s, `{"jsonrpc":"2.0","id":"mt-1","method":42`+paramsJSON(s, nil)+`}`, `"mt-1"`)
			}},
		&Check{ID: "jsonrpc/member-case", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: `Member names are case-sensitive: a request spelling "Method" has no method and gets error -32600`,
			Run: func(c *C) {
				s := c.Session()
				invalidRequest(c, s, `{"jsonrpc":"2.0","id":"mc-1","Method":"`+pingMethod(s)+`"`+paramsJSON(s, nil)+`}`, `"mc-1"`)
			}},
		&Check{ID: "jsonrpc/duplicate-member", Area: AreaJSONRPC, Severity: ADVICE,
			Requirement: "A request with a duplicated member name is refused with error -32600 rather than executed with one of the values",
			Run: func(c *C) {
				s := c.Session()
				second := "tools/list"
				if pingMethod(s) == second {
					second = "prompts/list"
				}
				invalidRequest(c, s, `{"jsonrpc":"2.0","id":"dm-1","method":"`+pingMethod(s)+`","method":"`+second+`"`+paramsJSON(s, nil)+`}`, `"dm-1"`)
			}},
		&Check{ID: "jsonrpc/unknown-method", Area: AreaJSONRPC, Severity: SHOULD,
			Requirement: "A request for an unknown method is answered with error -32601",
			Run: func(c *C) {
				s := c.Session()
				c.RequireError(s, "conformance/no-such-method", map[string]any{}, -32601)
			}},
		&Check{ID: "jsonrpc/id-string", Area: AreaJSONRPC, Severity: MUST,
			Requirement: `A string id is echoed as the same string (id "42" is not answered as 42)`,
			Run:         func(c *C) { idRoundTrip(c, `"42"`) }},
		&Check{ID: "jsonrpc/id-large-integer", Area: AreaJSONRPC, Severity: MUST,
			Requirement: "An integer id beyond 2^53 is echoed with exactly the same digits, never as another number (a server whose parser cannot hold it may refuse the request)",
			Run:         runIDLargeInteger},
		&Check{ID: "jsonrpc/notification-unanswered", Area: AreaJSONRPC, Severity: MUST,
			Requirement: "Notifications are never answered, not even unknown ones (a malformed one may get an id-null error)",
			Run: func(c *C) {
				s := c.Session()
				bodies := []string{`{"jsonrpc":"2.0","method":"notifications/conformance-unknown"` + paramsJSON(s, map[string]any{}) + `}`}
				if c.Transport() != HTTP {
					// On Streamable HTTP a malformed notification may be refused
					// with an id-less error body, so only stdio and SSE get it.
					bodies = append(bodies, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":"malformed"}`)
				}
				for i, b := range bodies {
					got, reply := c.SendCollect(s, []byte(b), nil)
					for _, m := range got {
						if i == 1 && m.Error() != nil && idNullOrAbsent(m) {
							// String params make it an invalid Request, not a
							// notification: JSON-RPC 2.0 answers those with an
							// error whose id is null (its own example).
							c.Logf("the malformed notification got an id-null error: %s", short(m.Raw))
							continue
						}
						if c.Transport() == SSE && m.Source == "POST" && reply != nil && reply.Status >= 400 {
							// Legacy SSE: the POST itself was refused at the HTTP
							// level (as Streamable HTTP may); answers travel on the
							// event stream, and nothing came there.
							c.Logf("POST refused with HTTP %d: %s", reply.Status, short(m.Raw))
							continue
						}
						if m.IsResponse() || m.IsArray() {
							c.Failf("notification %s was answered: %s", b, short(m.Raw))
						}
					}
					if reply != nil && reply.Status != 202 {
						c.Logf("HTTP status %d for a notification", reply.Status)
					}
				}
			}},
		&Check{ID: "jsonrpc/batch-accepted", Area: AreaJSONRPC, Severity: MUST, Since: Rev20250326, Until: Rev20250326,
			Requirement: "Under 2025-03-26 a JSON-RPC batch is accepted and every request in it is answered",
			Run: func(c *C) {
				s := c.Session()
				body := `[{"jsonrpc":"2.0","id":"b-1","method":"ping"},{"jsonrpc":"2.0","id":"b-2","method":"ping"}]`
				seen := map[string]bool{}
				var refusal Msg
				_, reply, ok := c.SendWait(s, []byte(body), nil, func(m Msg) bool {
					for _, e := range batchElems(m) {
						if e.IsResponse() && e.Error() == nil {
							seen[e.IDRaw()] = true
						}
						if e.IsResponse() && e.Error() != nil && e.IDRaw() == "null" {
							refusal = e // the batch as a whole was refused: stop waiting
						}
					}
					return seen[`"b-1"`] && seen[`"b-2"`] || refusal.Raw != nil
				})
				if refusal.Raw != nil {
					c.Fatalf("the batch was refused: %s%s", short(refusal.Raw), statusNote(reply))
				}
				if !ok {
					c.Fatalf("batch of two pings not fully answered (answered: %v)%s", keys(seen), statusNote(reply))
				}
			}},
		&Check{ID: "jsonrpc/batch-rejected", Area: AreaJSONRPC, Severity: ADVICE, Since: Rev20250618,
			Requirement: "From 2025-06-18 on a JSON-RPC batch is refused (error -32600 or HTTP 4xx) and none of its requests is executed",
			Run: func(c *C) {
				s := c.Session()
				pm := pingMethod(s)
				body := `[{"jsonrpc":"2.0","id":"b-1","method":"` + pm + `"` + paramsJSON(s, nil) + `},{"jsonrpc":"2.0","id":"b-2","method":"` + pm + `"` + paramsJSON(s, nil) + `}]`
				got, reply := c.SendCollect(s, []byte(body), nil)
				refused := reply != nil && reply.Status >= 400 && reply.Status < 500
				for _, m := range got {
					for _, e := range batchElems(m) {
						if !e.IsResponse() {
							continue
						}
						if e.Error() == nil && (e.IDRaw() == `"b-1"` || e.IDRaw() == `"b-2"`) {
							c.Failf("a request inside the batch was executed: %s", short(e.Raw))
						}
						if e.Error() != nil {
							refused = true
						}
					}
				}
				if !refused {
					c.Failf("the batch was neither refused with an error nor with an HTTP 4xx%s", statusNote(reply))
				}
			}},
		&Check{ID: "jsonrpc/oversized-message", Area: AreaJSONRPC, Severity: MUST,
			Requirement: "A 4 MiB message is answered or refused cleanly, and the connection keeps working afterwards",
			Run: func(c *C) {
				s := c.Session()
				pad := strings.Repeat("x", 4<<20)
				body := `{"jsonrpc":"2.0","id":"big-1","method":"` + pingMethod(s) + `"` + paramsJSON(s, map[string]any{"_meta": map[string]any{"com.example/padding": pad}}) + `}`
				cleanOrAnswered(c, s, body, `"big-1"`)
				c.Ping(s, "an oversized message")
			}},
		&Check{ID: "jsonrpc/deep-nesting", Area: AreaJSONRPC, Severity: MUST,
			Requirement: "A message nested 100000 levels deep is answered or refused cleanly, and the connection keeps working afterwards",
			Run: func(c *C) {
				s := c.Session()
				const depth = 100000
				deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
				params := strings.Replace(paramsJSON(s, map[string]any{"_meta": map[string]any{"com.example/deep": "DEEP"}}), `"DEEP"`, deep, 1)
				body := `{"jsonrpc":"2.0","id":"deep-1","method":"` + pingMethod(s) + `"` + params + `}`
				cleanOrAnswered(c, s, body, `"deep-1"`)
				c.Ping(s, "a deeply nested message")
			}},
		&Check{ID: "jsonrpc/envelope", Area: AreaJSONRPC, Severity: MUST,
			Requirement: `Every message from the server has "jsonrpc":"2.0", no duplicate members; responses have exactly one of result (an object) or error (integer code, string message)`,
			Run: func(c *C) {
				s := c.Session()
				mark := 0
				for _, m := range []string{pingMethod(s), "tools/list", "prompts/list", "resources/list", "conformance/no-such-method"} {
					// Transport-level refusals are other checks' business;
					// this one judges only the messages that did arrive.
					ctx, cancel := c.Ctx()
					if _, err := s.Call(ctx, m, map[string]any{}); err != nil {
						c.Logf("%s: %v", m, err)
					}
					cancel()
				}
				for _, m := range s.Since(mark) {
					for _, p := range envelopeProblems(m) {
						c.Failf("%s: %s", p, short(m.Raw))
					}
				}
			}},
	)
}

// invalidRequest sends body and requires error -32600 (with the request's
// id or none) and no execution.
func invalidRequest(c *C, s *Session, body, id string) {
	m, reply, ok := c.SendWait(s, []byte(body), nil, isResponseTo(id))
	if !ok {
		c.Fatalf("no response to %s%s", body, statusNote(reply))
	}
	if m.Error() == nil {
		c.Fatalf("the invalid request was executed: %s", short(m.Raw))
	}
	c.expectError(body, m, -32600)
	c.Ping(s, "an invalid request")
}

// idRoundTrip sends a ping with the raw id and requires the same raw id
// back.
func idRoundTrip(c *C, id string) {
	s := c.Session()
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + pingMethod(s) + `"` + paramsJSON(s, nil) + `}`
	m, reply, ok := c.SendWait(s, []byte(body), nil, func(m Msg) bool { return m.IsResponse() })
	if !ok {
		c.Fatalf("no response to a request with id %s%s", id, statusNote(reply))
	}
	if got := m.IDRaw(); got != id {
		if e := m.Error(); e != nil {
			if got == "" {
				got = "absent"
			}
			c.Fatalf("the request with id %s was refused: error %s %q with id %s, want its result with the same id", id, e.Code, e.Message, got)
		}
		c.Fatalf("request id %s came back as %s", id, got)
	}
	if e := m.Error(); e != nil {
		c.Fatalf("request with id %s failed: %s %q", id, e.Code, e.Message)
	}
}

// runIDLargeInteger sends ping with an integer id beyond 2^53. JSON-RPC 2.0
// §5: the response id MUST be the same as the request's, so an id that comes
// back as another number (rounded through a float64) fails. RFC 8259 §9 lets
// a parser limit the range of the numbers it takes (§6 calls numbers beyond
// 2^53 non-interoperable), so a server that refuses the request with an
// error whose id is null — JSON-RPC's answer when the id cannot be read —
// passes, and one that drops it unanswered (a JavaScript server over stdio)
// is not judged here: a message left unanswered is what jsonrpc/parse-error
// and the invalid-request checks judge.
func runIDLargeInteger(c *C) {
	const id = `9007199254740993`
	s := c.Session()
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + pingMethod(s) + `"` + paramsJSON(s, nil) + `}`
	m, reply, ok := c.SendWait(s, []byte(body), nil, func(m Msg) bool { return m.IsResponse() })
	if !ok {
		c.NA("the server left the request with id %s unanswered%s: its parser does not take integers beyond 2^53 (RFC 8259 §9 allows that); unanswered messages are judged by jsonrpc/parse-error", id, statusNote(reply))
	}
	got := m.IDRaw()
	if e := m.Error(); e != nil && idNullOrAbsent(m) {
		c.Logf("refused with error %s %q and a null id: the server's parser does not take integers beyond 2^53 (RFC 8259 §9 allows that)", e.Code, e.Message)
		return
	}
	if got != id {
		c.Fatalf("request id %s came back as %s: JSON-RPC 2.0 §5 wants the same value (refusing the request with a null-id error would be correct)", id, got)
	}
	if e := m.Error(); e != nil {
		c.Fatalf("request with id %s failed: %s %q", id, e.Code, e.Message)
	}
}

// cleanOrAnswered requires that body is answered (any response with id, or
// an id-less error) or refused with an HTTP 4xx.
func cleanOrAnswered(c *C, s *Session, body, id string) {
	m, reply, ok := c.SendWait(s, []byte(body), nil, isResponseTo(id))
	if reply != nil && reply.Status >= 400 && reply.Status < 500 {
		c.Logf("refused with HTTP %d", reply.Status)
		return
	}
	if !ok {
		c.Fatalf("neither answered nor refused%s", statusNote(reply))
	}
	if e := m.Error(); e != nil {
		c.Logf("refused with error %s %q", e.Code, e.Message)
	}
}

// batchElems returns the elements of an array message, or the message
// itself.
func batchElems(m Msg) []Msg {
	if m.IsArray() {
		return m.Elements()
	}
	return []Msg{m}
}

// envelopeProblems lists JSON-RPC envelope violations in m.
func envelopeProblems(m Msg) []string {
	if m.Err != nil {
		return []string{"not valid JSON"}
	}
	if m.IsArray() {
		var out []string
		for _, e := range m.Elements() {
			out = append(out, envelopeProblems(e)...)
		}
		return out
	}
	if m.Members == nil {
		return []string{"message is not an object"}
	}
	var out []string
	for _, d := range m.Dup {
		out = append(out, fmt.Sprintf("duplicate member %q", d))
	}
	if string(m.Members["jsonrpc"]) != `"2.0"` {
		out = append(out, fmt.Sprintf(`"jsonrpc" is %s, want "2.0"`, orAbsent(m.Members["jsonrpc"])))
	}
	switch {
	case m.Has("method"):
		if _, ok := toObj(m.Members["params"]); m.Has("params") && !ok {
			out = append(out, "params is not an object")
		}
	case m.Has("result") && m.Has("error"):
		out = append(out, "response has both result and error")
	case m.Has("result"):
		if jsonKind(m.Members["result"]) != "object" {
			out = append(out, "result is not an object")
		}
	case m.Has("error"):
		e, ok := toObj(m.Members["error"])
		if !ok {
			out = append(out, "error is not an object")
			break
		}
		if !isJSONInteger(e["code"]) {
			out = append(out, "error.code is not an integer")
		}
		if _, ok := e.Str("message"); !ok {
			out = append(out, "error.message is not a string")
		}
	default:
		out = append(out, "neither request, notification nor response")
	}
	if m.Has("id") {
		if k := jsonKind(m.Members["id"]); k != "string" && k != "number" && !(k == "null" && m.Has("error")) {
			out = append(out, "id is "+k)
		}
	}
	return out
}

func orAbsent(raw []byte) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}

func statusNote(r *HTTPReply) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf(" (HTTP %d, Content-Type %q, body %s)", r.Status, r.Header.Get("Content-Type"), short(r.Body))
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
