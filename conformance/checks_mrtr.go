package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Checks of the 2026-07-28 multi round-trip requests (input_required
// results, digest §9) and of the Mcp-Param-* headers of x-mcp-header tool
// arguments (digest §13.4).

// mrtrRounds bounds the retries of one multi round-trip request.
const mrtrRounds = 5

// mrtrFixtures are the official suite's input_required tools, in the order
// the checks try them (official-suite.md §3.1).
var mrtrFixtures = []string{
	"test_input_required_result_elicitation",
	"test_input_required_result_sampling",
	"test_input_required_result_list_roots",
	"test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs",
	"test_input_required_result_multi_round",
}

// mrtrProbeLimit bounds how many tools discovery calls when the server has
// none of the fixtures.
const mrtrProbeLimit = 6

// allInputCaps declares every kind of input a server may ask for.
func allInputCaps() map[string]any {
	return map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
}

// inputKindCap maps an input request method to the client capability it
// needs.
var inputKindCap = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// callWithCaps calls method with params, declaring caps as the request's
// clientCapabilities, plus extra HTTP headers (an empty value removes one).
func callWithCaps(c *C, s *Session, method string, params map[string]any, caps map[string]any, hdr http.Header) *Exchange {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = map[string]any{metaClientCaps: caps}
	ctx, cancel := c.Ctx()
	defer cancel()
	id := s.newID()
	h := s.headers(method, p)
	for k, v := range hdr {
		h[http.CanonicalHeaderKey(k)] = v
	}
	ex, err := s.CallRaw(ctx, id, method, s.request(id, method, p), h)
	if err != nil {
		c.Fatalf("%s: %v", method, err)
	}
	return ex
}

// asker is a tool that answered input_required to its first call.
type asker struct {
	tc    toolCall
	first Obj
}

// findAskers returns the tools that answer input_required when every input
// kind is declared: the official fixtures when the server lists them (up to
// limit), otherwise the first of up to mrtrProbeLimit callable tools, those
// whose names suggest input first. prefer names fixtures to try before the
// standard ones.
func findAskers(c *C, s *Session, limit int, prefer ...string) []asker {
	tcs := c.callableTools()
	byName := map[string]toolCall{}
	for _, tc := range tcs {
		byName[tc.name] = tc
	}
	var cands []toolCall
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), prefer...), mrtrFixtures...) {
		if tc, ok := byName[n]; ok && !seen[n] {
			seen[n] = true
			cands = append(cands, tc)
		}
	}
	fixtures := len(cands) > 0
	if !fixtures {
		cands = preferTools(tcs, "input", "elicit", "ask", "confirm", "sampl", "root", "user", "name")
		cands = cands[:min(mrtrProbeLimit, len(cands))]
	}
	var out []asker
	for _, tc := range cands {
		ex := callWithCaps(c, s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args}, allInputCaps(), nil)
		r := ex.Response.Result()
		if r == nil {
			continue
		}
		if rt, _ := r.Str("resultType"); rt != "input_required" {
			if fixtures {
				c.Logf("fixture %s answered without asking for input: %s", tc.name, short(ex.Response.Raw))
			}
			continue
		}
		out = append(out, asker{tc: tc, first: r})
		if len(out) == limit {
			break
		}
	}
	return out
}

// checkInputRequired validates an input_required result against the
// capabilities the request declared and returns its input requests (key →
// object) and its requestState ("" and false when absent).
func checkInputRequired(c *C, what string, r Obj, declared map[string]any) (map[string]Obj, string, bool) {
	if rt, _ := r.Str("resultType"); rt != "input_required" {
		c.Failf("%s: resultType is %s, want \"input_required\"", what, orAbsent(r["resultType"]))
	}
	_, hasReqs := r["inputRequests"]
	rawState, hasState := r["requestState"]
	if !hasReqs && !hasState {
		c.Failf("%s: input_required result carries neither inputRequests nor requestState", what)
	}
	for _, k := range []string{"ttlMs", "cacheScope"} {
		if _, ok := r[k]; ok {
			c.Failf("%s: an input_required result is not cacheable but carries %q", what, k)
		}
	}
	state := ""
	if hasState {
		var ok bool
		if state, ok = r.Str("requestState"); !ok {
			c.Failf("%s: requestState is %s, not a string", what, jsonKind(rawState))
			hasState = false
		}
	}
	reqs := map[string]Obj{}
	if hasReqs {
		m, ok := r.Obj("inputRequests")
		if !ok {
			c.Failf("%s: inputRequests is %s, not an object", what, jsonKind(r["inputRequests"]))
		}
		for key, raw := range m {
			ir, ok := toObj(raw)
			if !ok {
				c.Failf("%s: inputRequests[%q] is not an object", what, key)
				continue
			}
			method, _ := ir.Str("method")
			capName, known := inputKindCap[method]
			if !known {
				c.Failf("%s: inputRequests[%q].method is %s, not elicitation/create, sampling/createMessage or roots/list", what, key, orAbsent(ir["method"]))
				continue
			}
			if _, ok := declared[capName]; !ok {
				c.Failf("%s: inputRequests[%q] is %s although the request did not declare %q", what, key, method, capName)
			}
			if p, ok := ir["params"]; ok && jsonKind(p) != "object" || !ok && method != "roots/list" {
				c.Failf("%s: inputRequests[%q].params is %s, want an object", what, key, orAbsent(ir["params"]))
				continue
			}
			for _, k := range []string{"jsonrpc", "id"} {
				if _, ok := ir[k]; ok {
					c.Failf("%s: inputRequests[%q] carries %q (input requests are descriptions, not messages)", what, key, k)
				}
			}
			reqs[key] = ir
		}
	}
	return reqs, state, hasState
}

// inputResponse answers one input request as a cooperative client would.
func inputResponse(ir Obj) any {
	p, _ := ir.Obj("params")
	switch m, _ := ir.Str("method"); m {
	case "elicitation/create":
		if mode, _ := p.Str("mode"); mode == "url" {
			return map[string]any{"action": "accept"}
		}
		content := map[string]any{}
		if raw, ok := p["requestedSchema"]; ok {
			if v, ok := sampleArgs(raw); ok {
				content = v
			}
		}
		return map[string]any{"action": "accept", "content": content}
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"},
			"model": "wiremcp-conformance", "stopReason": "endTurn"}
	default: // roots/list
		return map[string]any{"roots": []any{map[string]any{"uri": "file:///conformance/root", "name": "Conformance Root"}}}
	}
}

// answerAll builds inputResponses for every request.
func answerAll(reqs map[string]Obj) map[string]any {
	out := map[string]any{}
	for k, ir := range reqs {
		out[k] = inputResponse(ir)
	}
	return out
}

// retryParams are the original tools/call params plus the answers and the
// state (only when the server sent one).
func retryParams(tc toolCall, responses map[string]any, state string, hasState bool) map[string]any {
	p := map[string]any{"name": tc.name, "arguments": tc.args, "inputResponses": responses}
	if hasState {
		p["requestState"] = state
	}
	return p
}

// completeInputLoop answers every round of a until the call completes and
// fails the check when it does not within mrtrRounds retries.
func completeInputLoop(c *C, s *Session, a asker) {
	r := a.first
	prevIDs := map[string]bool{}
	for round := 1; round <= mrtrRounds; round++ {
		what := fmt.Sprintf("tools/call %s (round %d)", a.tc.name, round)
		reqs, state, hasState := checkInputRequired(c, what, r, allInputCaps())
		ex := callWithCaps(c, s, "tools/call", retryParams(a.tc, answerAll(reqs), state, hasState), allInputCaps(), nil)
		if prevIDs[ex.ID] {
			c.Fatalf("internal: retry reused request id %s", ex.ID)
		}
		prevIDs[ex.ID] = true
		if e := ex.Response.Error(); e != nil {
			c.Fatalf("tools/call %s: the retry with answers to %s was refused: %s %q", a.tc.name, keyList(reqs), e.Code, e.Message)
		}
		r = ex.Response.Result()
		if r == nil {
			c.Fatalf("tools/call %s: retry result is not an object: %s", a.tc.name, short(ex.Response.Raw))
		}
		switch rt, _ := r.Str("resultType"); rt {
		case "input_required":
			continue
		case "complete":
			checkCallResult(c, a.tc.name, r)
			return
		default:
			c.Fatalf("tools/call %s: retry resultType is %s, want \"complete\" or \"input_required\"", a.tc.name, orAbsent(r["resultType"]))
		}
	}
	c.Failf("tools/call %s: still input_required after %d rounds of complete answers (last: %s)", a.tc.name, mrtrRounds, short(mustJSON(r)))
}

func keyList(reqs map[string]Obj) string {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "[" + strings.Join(keys, ", ") + "]"
}

// tamper alters a requestState while keeping its alphabet: one character
// in the middle changes and a suffix is appended.
func tamper(state string) string {
	if state == "" {
		return "-TAMPERED"
	}
	b := []byte(state)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b) + "-TAMPERED"
}

// headerProp is an x-mcp-header property of a tool's input schema.
type headerProp struct {
	path   []string
	header string
	typ    string
}

// headerProps finds the x-mcp-header properties reachable from the root
// through "properties" only (the only place the annotation counts), of the
// types it may annotate.
func headerProps(schema json.RawMessage) []headerProp {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []headerProp
	var walk func(node map[string]any, path []string, depth int)
	walk = func(node map[string]any, path []string, depth int) {
		props, _ := node["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p, _ := props[n].(map[string]any)
			if p == nil {
				continue
			}
			sub := append(append([]string(nil), path...), n)
			if h, ok := p["x-mcp-header"].(string); ok && h != "" {
				if t := schemaType(p); t == "string" || t == "integer" || t == "boolean" {
					out = append(out, headerProp{path: sub, header: h, typ: t})
				}
			}
			if depth < genDepth {
				walk(p, sub, depth+1)
			}
		}
	}
	walk(root, nil, 0)
	return out
}

// setPath stores v at path inside args, creating objects on the way.
func setPath(args map[string]any, path []string, v any) {
	cur := args
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = v
}

// headerValue renders an argument as its Mcp-Param-* value, and a
// different value of the same type.
func headerValue(v any) (string, string) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), strconv.FormatBool(!x)
	case int64:
		return strconv.FormatInt(x, 10), strconv.FormatInt(x+1, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(x+1, 'f', -1, 64)
	case string:
		return headerSafe(x), headerSafe(x + "-other")
	}
	s := string(mustJSON(v))
	return s, s + "-other"
}

func init() {
	modern := func(ch *Check) *Check { ch.Area, ch.Since = AreaModern, Rev20260728; return ch }
	register(
		modern(&Check{ID: "stateless/input-required", Severity: MUST,
			Requirement: "An input_required result is well formed (inputRequests of elicitation/create, sampling/createMessage or roots/list with object params; requestState a string) and a retry with every answer and the exact requestState under a new id completes",
			Run: func(c *C) {
				s := c.Session()
				askers := findAskers(c, s, len(mrtrFixtures))
				if len(askers) == 0 {
					c.NA("no tool answered input_required with elicitation, sampling and roots declared")
				}
				for _, a := range askers {
					completeInputLoop(c, s, a)
				}
			}}),
		modern(&Check{ID: "stateless/input-required-tampered", Severity: MUST,
			Requirement: "A retry whose requestState was altered gets a JSON-RPC error, never a complete result nor a new input_required",
			Run: func(c *C) {
				s := c.Session()
				var found *asker
				for _, a := range findAskers(c, s, 3, "test_input_required_result_tampered_state", "test_input_required_result_request_state") {
					if _, ok := a.first["requestState"]; ok {
						found = &a
						break
					}
				}
				if found == nil {
					c.NA("no tool that asks for input sends a requestState")
				}
				reqs, state, _ := checkInputRequired(c, "tools/call "+found.tc.name, found.first, allInputCaps())
				ex := callWithCaps(c, s, "tools/call", retryParams(found.tc, answerAll(reqs), tamper(state), true), allInputCaps(), nil)
				if e := ex.Response.Error(); e != nil {
					return
				}
				r := ex.Response.Result()
				c.Failf("tools/call %s with a tampered requestState was not refused: resultType %s (%s)", found.tc.name, orAbsent(r["resultType"]), short(ex.Response.Raw))
			}}),
		modern(&Check{ID: "stateless/input-required-capabilities", Severity: MUST,
			Requirement: "A tool asks only for the input kinds the request declared: with no client capabilities no inputRequests entries (-32021 or a result is fine), with only sampling no elicitation or roots",
			Run: func(c *C) {
				s := c.Session()
				askers := findAskers(c, s, 3, "test_input_required_result_capabilities")
				if len(askers) == 0 {
					c.NA("no tool answered input_required with elicitation, sampling and roots declared")
				}
				for _, a := range askers {
					for _, caps := range []map[string]any{{}, {"sampling": map[string]any{}}} {
						ex := callWithCaps(c, s, "tools/call", map[string]any{"name": a.tc.name, "arguments": a.tc.args}, caps, nil)
						r := ex.Response.Result()
						if r == nil {
							continue // an error (such as -32021) asks for nothing
						}
						if rt, _ := r.Str("resultType"); rt == "input_required" {
							checkInputRequired(c, fmt.Sprintf("tools/call %s declaring %s", a.tc.name, mustJSON(caps)), r, caps)
						}
					}
				}
			}}),
		modern(&Check{ID: "stateless/header-param", Severity: MUST, Transports: HTTP,
			Requirement: "A tools/call whose x-mcp-header argument travels in a matching Mcp-Param-{Name} header (plain or =?base64?…?=) is served; a missing or mismatched header gets -32020 (HTTP 400)",
			Run: func(c *C) {
				var tc *toolCall
				var hp headerProp
				for _, t := range preferTools(c.callableTools(), "test_header_params") {
					if ps := headerProps(t.tool["inputSchema"]); len(ps) > 0 {
						tc, hp = &t, ps[0]
						break
					}
				}
				if tc == nil {
					c.NA("no callable tool has an x-mcp-header property")
				}
				args := map[string]any{}
				for k, v := range tc.args {
					args[k] = v
				}
				var val any
				switch hp.typ {
				case "string":
					val = "conformance-eu"
				case "integer":
					val = int64(42)
				default:
					val = true
				}
				var sch map[string]any
				_ = json.Unmarshal(tc.tool["inputSchema"], &sch)
				if ps := propSchema(sch, hp.path); ps != nil && (ps["enum"] != nil || ps["const"] != nil || ps["pattern"] != nil || ps["format"] != nil) {
					if v, ok := sampleValue(ps, sch, 0); ok {
						val = normNumber(v)
					}
				}
				setPath(args, hp.path, val)
				good, bad := headerValue(val)
				name := "Mcp-Param-" + hp.header
				params := map[string]any{"name": tc.name, "arguments": args}
				s := c.Session()
				ex := callWithCaps(c, s, "tools/call", params, map[string]any{}, http.Header{name: {good}})
				if e := ex.Response.Error(); e != nil {
					c.Fatalf("tools/call %s with %s: %s was refused: %s %q", tc.name, name, good, e.Code, e.Message)
				}
				c.checkHTTPStatus("tools/call with a matching "+name, ex.HTTP, 200)
				if hp.typ == "string" {
					enc := "=?base64?" + b64(val.(string)) + "?="
					ex = callWithCaps(c, s, "tools/call", params, map[string]any{}, http.Header{name: {enc}})
					if e := ex.Response.Error(); e != nil {
						c.Failf("tools/call %s with %s: %s (base64 of the argument) was refused: %s %q", tc.name, name, enc, e.Code, e.Message)
					}
				}
				ex = callWithCaps(c, s, "tools/call", params, map[string]any{}, http.Header{name: {bad}})
				expectModernError(c, name+" differing from the argument", ex.Response, ex.HTTP, -32020, 400)
				ex = callWithCaps(c, s, "tools/call", params, map[string]any{}, http.Header{name: {}})
				expectModernError(c, name+" missing while the argument is present", ex.Response, ex.HTTP, -32020, 400)
			}}),
	)
}

// propSchema returns the schema of the property at path.
func propSchema(root map[string]any, path []string) map[string]any {
	cur := root
	for _, k := range path {
		props, _ := cur["properties"].(map[string]any)
		next, _ := props[k].(map[string]any)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// normNumber turns whole float64 values (from JSON) into int64.
func normNumber(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}

// resultDefFor adjusts the schema definition a result is validated against
// when its shape depends on what the server chose: an input_required result
// (2026-07-28), a task created in place of the result (2025-11-25
// CreateTaskResult; the 2026-07-28 extension's shapes are not in the core
// schema and are checked by the task checks), and the 2025-11-25 task
// methods.
func resultDefFor(method, def string, result json.RawMessage) string {
	r, _ := toObj(result)
	switch rt, _ := r.Str("resultType"); rt {
	case "input_required":
		return "InputRequiredResult"
	case "task":
		return ""
	}
	switch method {
	case "tools/call":
		if _, ok := r.Obj("task"); ok {
			if _, hasContent := r["content"]; !hasContent {
				return "CreateTaskResult"
			}
		}
	case "tasks/get":
		return "GetTaskResult"
	case "tasks/cancel":
		return "CancelTaskResult"
	}
	return def
}
