package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
)

// pingMethod is a cheap request that every server of the revision answers.
func pingMethod(s *Session) string {
	if s.modern {
		return "server/discover"
	}
	return "ping"
}

// paramsJSON renders `,"params":{…}` for a raw request built by a check
// (with the modern _meta when the session is modern), or "" when there are
// none.
func paramsJSON(s *Session, params map[string]any) string {
	p := s.withMeta(params)
	if p == nil {
		return ""
	}
	return `,"params":` + string(mustJSON(p))
}

// SendWait writes body and waits for the first message after it that
// satisfies pred. It returns the message (zero when none came before the
// timeout) and the HTTP reply.
func (c *C) SendWait(s *Session, body []byte, hdr http.Header, pred func(Msg) bool) (Msg, *HTTPReply, bool) {
	ctx, cancel := c.Ctx()
	defer cancel()
	mark := s.Mark()
	reply, err := s.Send(ctx, body, hdr)
	if err != nil {
		c.Fatalf("sending: %v", err)
	}
	if s.kind != HTTP {
		m, ok := s.waitOrProbe(ctx, mark, pred)
		return m, reply, ok
	}
	m, err := s.waitReply(ctx, mark, reply, pred)
	if err != nil {
		return Msg{}, reply, false
	}
	return m, reply, true
}

// answerGrace is how long, after the server has answered a probe sent
// behind a message, the suite still waits for the message's own answer.
const answerGrace = 500 * time.Millisecond

// waitOrProbe waits for a message at or after mark satisfying pred on a
// connection where nothing ties an answer to the message that caused it
// (stdio, legacy SSE). A ping-like probe goes right behind the message: once
// the probe is answered, the message's answer gets answerGrace more, so that
// a server that never answers (as some do with malformed input) costs the
// suite a round trip, not the whole exchange limit.
func (s *Session) waitOrProbe(ctx context.Context, mark int, pred func(Msg) bool) (Msg, bool) {
	id := `"probe-` + s.newID() + `"`
	method := pingMethod(s)
	isProbe := func(m Msg) bool { return m.IsResponse() && m.IDRaw() == id }
	if _, err := s.conn.send(ctx, s.request(id, method, nil), s.headers(method, nil)); err != nil {
		m, err := s.WaitFrom(ctx, mark, pred)
		return m, err == nil
	}
	m, err := s.WaitFrom(ctx, mark, func(m Msg) bool { return isProbe(m) || pred(m) })
	if err != nil {
		return Msg{}, false
	}
	if !isProbe(m) {
		return m, true
	}
	gctx, cancel := context.WithTimeout(ctx, answerGrace)
	defer cancel()
	m, err = s.WaitFrom(gctx, mark, func(m Msg) bool { return !isProbe(m) && pred(m) })
	return m, err == nil
}

// SendCollect writes body, then proves the session is alive with a ping
// and returns every message that arrived from the send until the ping's
// response (exclusive).
func (c *C) SendCollect(s *Session, body []byte, hdr http.Header) ([]Msg, *HTTPReply) {
	ctx, cancel := c.Ctx()
	defer cancel()
	mark := s.Mark()
	reply, err := s.Send(ctx, body, hdr)
	if err != nil {
		c.Fatalf("sending: %v", err)
	}
	id := s.newID()
	method := pingMethod(s)
	s.quiet = true
	ex, err := s.CallRaw(ctx, id, method, s.request(id, method, nil), s.headers(method, nil))
	s.quiet = false
	if err != nil {
		c.Fatalf("%s after the message: %v", method, err)
	}
	var out []Msg
	for _, m := range s.Since(mark) {
		if m.IsResponse() && m.IDRaw() == ex.ID {
			break
		}
		out = append(out, m)
	}
	return out, reply
}

// idNullOrAbsent reports whether a response carries no usable id.
func idNullOrAbsent(m Msg) bool { id := m.IDRaw(); return id == "" || id == "null" }

// isResponseTo matches a response with the raw id, or an id-less error.
func isResponseTo(id string) func(Msg) bool {
	return func(m Msg) bool { return m.IsResponse() && (m.IDRaw() == id || idNullOrAbsent(m)) }
}

// anyResponse matches any response (including elements of a batch reply).
func anyResponse(m Msg) bool { return m.IsResponse() || m.IsArray() }

// checkEmptyResult fails unless r is an empty result for the era: {} (only
// _meta allowed) in the initialize era, {"resultType":"complete"} plus _meta
// in 2026-07-28.
func (c *C) checkEmptyResult(what string, r Obj) {
	for k := range r {
		if k == "_meta" {
			continue
		}
		if c.Modern() && k == "resultType" {
			continue
		}
		c.Failf("%s: result has unexpected member %q (want an empty result)", what, k)
	}
	if c.Modern() {
		if v, _ := r.Str("resultType"); v != "complete" {
			c.Failf("%s: resultType is %s, want \"complete\"", what, short(r["resultType"]))
		}
	}
}

// checkHTTPStatus fails unless the reply (when there is one) has status
// want.
func (c *C) checkHTTPStatus(what string, reply *HTTPReply, want int) {
	if reply != nil && reply.Status != want {
		c.Failf("%s: HTTP status %d, want %d", what, reply.Status, want)
	}
}

// FixtureTools are the tools the suite calls under the default readonly
// policy even without readOnlyHint: true. Their names are those of the
// official MCP conformance suite's test-server fixtures (and the suite's own
// test_trigger_resource_update and test_trigger_resource_list_change); a
// server that lists one is a test server built to have it called.
var FixtureTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_error_handling", "test_tool_with_progress", "test_tool_with_logging",
	"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
	"test_reconnection", "json_schema_2020_12_tool", "test_missing_capability", "test_streaming_elicitation",
	"test_logging_tool", "test_trigger_tool_change", "test_trigger_prompt_change",
	"test_trigger_resource_update", "test_trigger_resource_list_change", "test_header_params",
	"test_input_required_result_elicitation", "test_input_required_result_sampling",
	"test_input_required_result_list_roots", "test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
	"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
	"slow_compute", "greet", "failing_job", "protocol_error_job", "test_tool_with_task",
}

func isFixtureTool(name string) bool {
	for _, f := range FixtureTools {
		if f == name {
			return true
		}
	}
	return false
}

// mayCall reports whether the tool policy lets the suite call tool t (a
// tools/list entry), and when not, why.
func (c *C) mayCall(t Obj) (bool, string) {
	name, _ := t.Str("name")
	ann, _ := t.Obj("annotations")
	switch c.run.opts.toolPolicy() {
	case CallNone:
		return false, "tool calls are off (-call-tools none)"
	case CallAll:
		if string(ann["destructiveHint"]) == "true" {
			return false, fmt.Sprintf("tool %q is annotated destructiveHint: true", name)
		}
		return true, ""
	}
	if string(ann["readOnlyHint"]) == "true" || isFixtureTool(name) {
		return true, ""
	}
	return false, fmt.Sprintf("tool %q is not annotated readOnlyHint: true (allow it with -call-tools all)", name)
}

// mayCallNamed is mayCall for a tool known by name only (fixtures, binding
// tools); it stops the check as not applicable when the policy forbids the
// call.
func (c *C) mayCallNamed(name string) {
	t := Obj{"name": mustJSON(name)}
	if c.HasCap("tools") && c.run.opts.toolPolicy() != CallNone {
		for _, x := range c.Tools() {
			if n, _ := x.Str("name"); n == name {
				t = x
			}
		}
	}
	if ok, why := c.mayCall(t); !ok {
		c.NA("%s", why)
	}
}

// callableTools returns tools the suite may call under the tool policy,
// with sample arguments, read-only ones first. Duration-like arguments are
// set to the shortest the schema allows (see shortDurations), so that a
// slow tool does not run for its default time.
func (c *C) callableTools() []toolCall {
	if c.run.opts.toolPolicy() == CallNone {
		c.NA("tool calls are off (-call-tools none)")
	}
	if !c.HasCap("tools") {
		c.NA("server does not declare the \"tools\" capability")
	}
	var ro, rest []toolCall
	skipped := 0
	for _, t := range c.Tools() {
		name, _ := t.Str("name")
		ann, _ := t.Obj("annotations")
		if name == "test_reconnection" {
			// The official fixture test_reconnection closes its stream before
			// answering by design: only the resumption check calls it.
			continue
		}
		if ok, _ := c.mayCall(t); !ok {
			skipped++
			continue
		}
		args, ok := sampleArgs(t["inputSchema"])
		if !ok {
			continue
		}
		tc := shortDurations(toolCall{name: name, args: args, tool: t})
		if string(ann["readOnlyHint"]) == "true" {
			ro = append(ro, tc)
		} else {
			rest = append(rest, tc)
		}
	}
	if len(ro)+len(rest) == 0 && skipped > 0 {
		c.NA("no tool the policy allows (%s): %d tools are not annotated readOnlyHint: true; allow them with -call-tools all", c.run.opts.toolPolicy(), skipped)
	}
	return append(ro, rest...)
}

// durationUnit tells whether a numeric property reads as a duration, and
// in what unit: 1 for seconds, 1000 for milliseconds, 0 when it is not one.
func durationUnit(name string) float64 {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, "ms") || strings.Contains(n, "milli"):
		return 1000
	case strings.Contains(n, "second") || n == "secs" || strings.Contains(n, "duration") || strings.Contains(n, "delay") ||
		strings.Contains(n, "sleep") || strings.Contains(n, "wait"):
		return 1
	}
	return 0
}

// shortDuration is what the suite asks a tool with a duration argument and
// no minimum to take: long enough for a progress notification or two.
const shortDuration = 500 * time.Millisecond

// shortDurations sets every duration-like numeric argument of tc (required
// or not: a default such as 10 s would outlast the exchange limit) to
// shortDuration, or to the shortest the schema allows when its minimum is
// higher (rounded up to a whole unit for integers), within its maximum.
func shortDurations(tc toolCall) toolCall {
	var sch map[string]any
	_ = json.Unmarshal(tc.tool["inputSchema"], &sch)
	props, _ := sch["properties"].(map[string]any)
	var args map[string]any
	for name, raw := range props {
		p, _ := raw.(map[string]any)
		typ := schemaType(p)
		unit := durationUnit(name)
		if (typ != "number" && typ != "integer") || unit == 0 {
			continue
		}
		v := shortDuration.Seconds() * unit
		if mi, ok := p["minimum"].(float64); ok && mi > v {
			v = mi
		}
		if mi, ok := p["exclusiveMinimum"].(float64); ok && mi >= v {
			v = mi + 1/unit
		}
		if ma, ok := p["maximum"].(float64); ok && v > ma {
			v = ma
		}
		if args == nil {
			args = map[string]any{}
			for k, x := range tc.args {
				args[k] = x
			}
		}
		if typ == "integer" {
			args[name] = int64(math.Ceil(v))
		} else {
			args[name] = v
		}
	}
	if args != nil {
		tc.args = args
	}
	return tc
}

// toolCall is a tool with arguments the suite generated for it.
type toolCall struct {
	name string
	args map[string]any
	tool Obj
}

// preferTools moves tools whose name contains one of words to the front.
func preferTools(tcs []toolCall, words ...string) []toolCall {
	score := func(t toolCall) int {
		n := strings.ToLower(t.name)
		for i, w := range words {
			if strings.Contains(n, w) {
				return i
			}
		}
		return len(words)
	}
	out := append([]toolCall(nil), tcs...)
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) < score(out[j]) })
	return out
}

// jsonEqual compares two JSON texts semantically.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return bytes.Equal(mustJSON(x), mustJSON(y))
}

// checkContentBlock validates one content block and returns a problem or "".
func checkContentBlock(raw json.RawMessage, rev string) string {
	b, ok := toObj(raw)
	if !ok {
		return "content block is not an object"
	}
	typ, _ := b.Str("type")
	needStr := func(keys ...string) string {
		for _, k := range keys {
			if _, ok := b.Str(k); !ok {
				return fmt.Sprintf("%s block lacks string %q", typ, k)
			}
		}
		return ""
	}
	switch typ {
	case "text":
		return needStr("text")
	case "image", "audio":
		if p := needStr("data", "mimeType"); p != "" {
			return p
		}
		d, _ := b.Str("data")
		if !validBase64(d) {
			return typ + " block data is not valid base64"
		}
	case "resource_link":
		if rev < Rev20250618 {
			return "resource_link blocks do not exist before 2025-06-18"
		}
		return needStr("uri", "name")
	case "resource":
		r, ok := b.Obj("resource")
		if !ok {
			return "resource block lacks object \"resource\""
		}
		return checkResourceContents(r)
	default:
		return fmt.Sprintf("unknown content block type %s", short(b["type"]))
	}
	if a, ok := b.Obj("annotations"); ok {
		if p, ok := a["priority"]; ok {
			var f float64
			if json.Unmarshal(p, &f) != nil || f < 0 || f > 1 {
				return "annotations.priority is not a number in [0,1]"
			}
		}
	}
	return ""
}

// checkResourceContents validates a Text/BlobResourceContents object.
func checkResourceContents(r Obj) string {
	if _, ok := r.Str("uri"); !ok {
		return "resource contents lack string \"uri\""
	}
	_, hasText := r["text"]
	_, hasBlob := r["blob"]
	switch {
	case hasText && hasBlob:
		return "resource contents carry both text and blob"
	case hasText:
		if _, ok := r.Str("text"); !ok {
			return "resource contents text is not a string"
		}
	case hasBlob:
		s, ok := r.Str("blob")
		if !ok || !validBase64(s) {
			return "resource contents blob is not valid base64"
		}
	default:
		return "resource contents carry neither text nor blob"
	}
	return ""
}
