package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
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
	m, err := s.WaitFrom(ctx, mark, pred)
	if err != nil {
		return Msg{}, reply, false
	}
	return m, reply, true
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
	ex, err := s.CallRaw(ctx, id, method, s.request(id, method, nil), s.headers(method, nil))
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

// callableTools returns tools the suite may call, with sample arguments,
// read-only ones first and explicitly destructive ones left out.
func (c *C) callableTools() []toolCall {
	if c.run.opts.NoToolCalls {
		c.NA("tool calls are disabled (-no-tool-calls)")
	}
	if !c.HasCap("tools") {
		c.NA("server does not declare the \"tools\" capability")
	}
	var ro, rest []toolCall
	for _, t := range c.Tools() {
		name, _ := t.Str("name")
		ann, _ := t.Obj("annotations")
		if string(ann["destructiveHint"]) == "true" || name == "test_reconnection" {
			// The official fixture test_reconnection closes its stream before
			// answering by design: only the resumption check calls it.
			continue
		}
		args, ok := sampleArgs(t["inputSchema"])
		if !ok {
			continue
		}
		tc := toolCall{name: name, args: args, tool: t}
		if string(ann["readOnlyHint"]) == "true" {
			ro = append(ro, tc)
		} else {
			rest = append(rest, tc)
		}
	}
	return append(ro, rest...)
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
