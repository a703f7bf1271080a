package faultserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// result wraps a feature result for the era of c.
func (s *Server) result(c *call, res map[string]any) reply {
	var msg []byte
	if c.modern {
		msg = s.modernResult(c.id(), res)
	} else {
		msg = resultMsg(c.id(), res)
	}
	return reply{msgs: append(c.notes, msg)}
}

// cacheable adds ttlMs and cacheScope in 2026-07-28.
func (s *Server) cacheable(c *call, res map[string]any) map[string]any {
	if c.modern {
		res["ttlMs"] = 60000
		res["cacheScope"] = "public"
		if s.has("stateless/cache-fields") {
			res["cacheScope"] = "everyone"
		}
	}
	return res
}

func (s *Server) feature(c *call) reply {
	switch c.in.method {
	case "tools/list":
		return s.listPage(c, "tools", s.toolList(c.rev))
	case "tools/call":
		return s.callTool(c)
	case "resources/list":
		return s.listPage(c, "resources", s.resourceList())
	case "resources/templates/list":
		t := map[string]any{"uriTemplate": "mem://notes/{name}", "name": "note", "mimeType": "text/plain"}
		if s.has("resources/templates-shape") {
			delete(t, "uriTemplate")
		}
		return s.listPage(c, "resourceTemplates", []map[string]any{t})
	case "resources/read":
		return s.readResource(c)
	case "resources/subscribe", "resources/unsubscribe":
		if s.has("resources/subscribe") {
			return c.errorf(-32603, "subscriptions are broken")
		}
		s.noteSubscription(c)
		return s.result(c, map[string]any{})
	case "prompts/list":
		return s.listPage(c, "prompts", s.promptList())
	case "prompts/get":
		return s.getPrompt(c)
	case "completion/complete":
		return s.complete(c)
	case "logging/setLevel":
		if s.has("logging/set-level") {
			return c.errorf(-32603, "logging is broken")
		}
		l, _ := str(c.in.params, "level")
		i := levelIndex(l)
		if i < 0 && !s.has("logging/invalid-level") {
			return c.errorf(-32602, "unknown level %q", l)
		}
		c.sess.mu.Lock()
		c.sess.logLevel = max(i, 0)
		c.sess.mu.Unlock()
		return s.result(c, map[string]any{})
	}
	if h, ok := extraMethods[c.in.method]; ok {
		return h(s, c)
	}
	if s.has("jsonrpc/unknown-method") {
		return c.errorf(-32600, "unknown")
	}
	return c.errorf(-32601, "method not found: %s", c.in.method)
}

// listPage serves one page of items (two per page) with opaque cursors.
func (s *Server) listPage(c *call, key string, items []map[string]any) reply {
	const size = 2
	start := 0
	if raw, ok := c.in.params["cursor"]; ok {
		var cur string
		_ = json.Unmarshal(raw, &cur)
		n, ok := decodeCursor(cur)
		if !ok || n > len(items) {
			if !s.has("utilities/bad-cursor") {
				return c.errorf(-32602, "invalid cursor")
			}
			n = 0
		}
		start = n
	}
	end := min(start+size, len(items))
	page := append([]map[string]any(nil), items[start:end]...)
	if s.has("utilities/pagination") && start > 0 && len(items) > 0 {
		page = append(page, items[0])
	}
	res := map[string]any{key: page}
	if end < len(items) {
		res["nextCursor"] = base64.StdEncoding.EncodeToString([]byte("page:" + strconv.Itoa(end)))
	}
	if !(s.has("stateless/result-type") && key == "tools") {
		return s.result(c, s.cacheable(c, res))
	}
	s.cacheable(c, res)
	return reply{msgs: [][]byte{resultMsg(c.id(), res)}}
}

func decodeCursor(cur string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(cur)
	if err != nil || !strings.HasPrefix(string(b), "page:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "page:"))
	return n, err == nil && n >= 0
}

func (s *Server) toolList(rev string) []map[string]any {
	echoIn := map[string]any{"type": "object", "properties": map[string]any{
		"message": map[string]any{"type": "string", "maxLength": 200}}, "required": []string{"message"}}
	if s.has("tools/list-shape") {
		delete(echoIn, "type")
	}
	echo := map[string]any{"name": "echo", "description": "Echo a message.", "inputSchema": echoIn,
		"annotations": map[string]any{"readOnlyHint": true}}
	addIn := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}}, "required": []string{"a", "b"}}
	if s.has("tools/schema-valid") {
		addIn["properties"] = map[string]any{"a": map[string]any{"type": "strin"}}
	}
	add := map[string]any{"name": "add", "description": "Add two integers.", "inputSchema": addIn}
	if rev >= "2025-06-18" {
		echo["outputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"echo": map[string]any{"type": "string"}}, "required": []string{"echo"}}
		add["outputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "integer"}}, "required": []string{"sum"}}
	}
	tools := []map[string]any{echo, add}
	if s.has("tools/name-format") {
		tools = append(tools, map[string]any{"name": "bad name!", "inputSchema": map[string]any{"type": "object"}})
	}
	tools = append(tools, s.extraToolDefs(rev)...)
	if s.reports {
		tools = append(tools, s.reportTools()...)
	}
	return tools
}

func (s *Server) callTool(c *call) reply {
	name, _ := str(c.in.params, "name")
	var args map[string]json.RawMessage
	_ = json.Unmarshal(c.in.params["arguments"], &args)
	bad := func(msg string) reply {
		if s.has("tools/invalid-arguments") {
			return c.errorf(-32602, "%s", msg)
		}
		return s.toolResult(c, msg, nil, true)
	}
	var structured map[string]any
	var text string
	if s.quirk("strict-tool-args") {
		switch name {
		case "echo":
			return c.errorf(-32603, "message %s names no note of this server", args["message"])
		case "add":
			return s.toolResult(c, "a and b must be account numbers this server knows", nil, true)
		}
	}
	switch name {
	case "echo":
		msg, ok := str(args, "message")
		if !ok {
			return bad("message must be a string")
		}
		if len(msg) > 200 {
			return bad("message is longer than 200 characters")
		}
		s.progress(c)
		s.log(c, "info", "echo called")
		structured, text = map[string]any{"echo": msg}, msg
	case "add":
		a, errA := strconv.ParseInt(string(args["a"]), 10, 64)
		b, errB := strconv.ParseInt(string(args["b"]), 10, 64)
		if errA != nil || errB != nil {
			return bad("a and b must be integers")
		}
		s.log(c, "debug", "add called")
		structured, text = map[string]any{"sum": a + b}, strconv.FormatInt(a+b, 10)
	default:
		if t, ok := extraTools[name]; ok && t.def(s, c.rev) != nil {
			return t.call(s, c, args)
		}
		if s.reports && strings.HasPrefix(name, "REPORTS_") {
			return s.reportCall(c, name, args)
		}
		if s.has("tools/call-unknown") {
			return s.toolResult(c, "no such tool", nil, true)
		}
		return c.errorf(-32602, "unknown tool %q", name)
	}
	if c.rev < "2025-06-18" {
		structured = nil
	}
	if s.has("tools/structured-output") && structured != nil {
		structured = map[string]any{"echo": 5, "sum": "five"}
	}
	return s.toolResult(c, text, structured, false)
}

// toolResult builds a CallToolResult; structured content is mirrored as
// JSON text.
func (s *Server) toolResult(c *call, text string, structured map[string]any, isErr bool) reply {
	typ := "text"
	if s.has("tools/call-result") {
		typ = "txt"
	}
	content := []map[string]any{{"type": typ, "text": text}}
	res := map[string]any{"content": content}
	if structured != nil {
		res["structuredContent"] = structured
		if !s.has("tools/structured-text") {
			content[0]["text"] = string(mustJSON(structured))
		}
	}
	if isErr {
		res["isError"] = true
	}
	r := s.result(c, res)
	r.stream = true
	return r
}

// progress sends two progress notifications when the request asked for
// them.
func (s *Server) progress(c *call) {
	tok, ok := meta(c.in.params)["progressToken"]
	if !ok {
		return
	}
	if s.has("utilities/progress-token") && kind(tok) == "string" {
		var t string
		_ = json.Unmarshal(tok, &t)
		if _, err := strconv.Atoi(t); err == nil {
			tok = json.RawMessage(t)
		}
	}
	second := 1.0
	if s.has("utilities/progress-increasing") {
		second = 0.5
	}
	for _, p := range []float64{0.5, second} {
		c.notes = append(c.notes, notification("notifications/progress", map[string]any{"progressToken": tok, "progress": p, "total": 1}))
	}
}

// log emits a log message if the level passes the filter.
func (s *Server) log(c *call, level, text string) {
	li := levelIndex(level)
	if c.modern {
		if (c.logMin < 0 || li < c.logMin) && !s.has("stateless/log-level") {
			return
		}
	} else {
		c.sess.mu.Lock()
		min := c.sess.logLevel
		c.sess.mu.Unlock()
		if li < min && !s.has("logging/level-filter") {
			return
		}
	}
	c.notes = append(c.notes, notification("notifications/message", map[string]any{"level": level, "logger": "faultserver", "data": text}))
}

var notes = map[string]string{"alpha": "The first note.", "beta": "The second note."}

func (s *Server) resourceList() []map[string]any {
	beta := map[string]any{"uri": "mem://notes/beta", "name": "beta", "mimeType": "text/plain"}
	if s.has("resources/list-shape") {
		delete(beta, "name")
	}
	return []map[string]any{
		{"uri": "mem://notes/alpha", "name": "alpha", "mimeType": "text/plain"},
		beta,
		{"uri": "mem://bin/one", "name": "one", "mimeType": "application/octet-stream"},
	}
}

func (s *Server) readResource(c *call) reply {
	uri, _ := str(c.in.params, "uri")
	if s.has("security/hostile-input") && strings.Contains(uri, "../") {
		return reply{crash: true}
	}
	if s.has("security/path-traversal") && (strings.Contains(uri, "..") || strings.Contains(uri, "passwd")) {
		return s.result(c, s.cacheable(c, map[string]any{"contents": []map[string]any{{"uri": uri, "mimeType": "text/plain", "text": "root:x:0:0:root:/root:/bin/bash\n"}}}))
	}
	var contents []map[string]any
	switch {
	case uri == "mem://bin/one":
		blob := base64.StdEncoding.EncodeToString([]byte{0, 1, 2})
		if s.has("resources/read") {
			blob = "not base64!"
		}
		contents = []map[string]any{{"uri": uri, "mimeType": "application/octet-stream", "blob": blob}}
	case strings.HasPrefix(uri, "mem://notes/"):
		name := strings.TrimPrefix(uri, "mem://notes/")
		if txt, ok := notes[name]; ok {
			contents = []map[string]any{{"uri": uri, "mimeType": "text/plain", "text": txt}}
		} else if s.has("security/no-html-echo") {
			contents = []map[string]any{{"uri": uri, "mimeType": "text/html", "text": "<p>No note named " + name + "</p>"}}
		}
	}
	if contents == nil {
		if s.has("resources/read-unknown") {
			return s.result(c, s.cacheable(c, map[string]any{"contents": []any{}}))
		}
		code := -32002
		if c.modern {
			code = -32602
		}
		return reply{msgs: append(c.notes, errMsg(c.id(), code, "resource not found", map[string]any{"uri": uri}))}
	}
	return s.result(c, s.cacheable(c, map[string]any{"contents": contents}))
}

func (s *Server) promptList() []map[string]any {
	req := any(true)
	if s.has("prompts/list-shape") {
		req = "yes"
	}
	return []map[string]any{
		{"name": "greet", "description": "Greet someone.", "arguments": []map[string]any{{"name": "name", "required": req}}},
		{"name": "plain", "description": "A prompt without arguments."},
	}
}

func (s *Server) getPrompt(c *call) reply {
	name, _ := str(c.in.params, "name")
	var args map[string]string
	_ = json.Unmarshal(c.in.params["arguments"], &args)
	role := "user"
	if s.has("prompts/get") {
		role = "system"
	}
	msg := func(text string) reply {
		return s.result(c, map[string]any{"messages": []map[string]any{{"role": role, "content": map[string]any{"type": "text", "text": text}}}})
	}
	if s.quirk("stall-prompts-get") {
		t := time.NewTimer(stallFor)
		<-t.C
	}
	if s.quirk("strict-prompt-args") && name == "greet" {
		return c.errorf(-32603, "Invalid name: %q is not someone this server knows", args["name"])
	}
	switch name {
	case "greet":
		who, ok := args["name"]
		if !ok && !s.has("prompts/missing-argument") {
			return c.errorf(-32602, "argument name is required")
		}
		return msg("Hello " + who)
	case "plain":
		return msg("Say something.")
	}
	if s.has("prompts/get-unknown") {
		return s.result(c, map[string]any{"messages": []any{}})
	}
	return c.errorf(-32602, "unknown prompt %q", name)
}

func (s *Server) complete(c *call) reply {
	var ref struct{ Type, Name, URI string }
	_ = json.Unmarshal(c.in.params["ref"], &ref)
	var arg struct{ Name, Value string }
	_ = json.Unmarshal(c.in.params["argument"], &arg)
	var pool []string
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "greet":
		pool = []string{"alice", "bob", "carol"}
	case ref.Type == "ref/resource" && ref.URI == "mem://notes/{name}":
		pool = []string{"alpha", "beta"}
	case s.has("completion/unknown-prompt"):
	default:
		return c.errorf(-32602, "nothing to complete for %s %s%s", ref.Type, ref.Name, ref.URI)
	}
	vals := []string{}
	for _, p := range pool {
		if strings.HasPrefix(p, arg.Value) {
			vals = append(vals, p)
		}
	}
	if s.has("completion/complete") {
		for i := 0; i < 101; i++ {
			vals = append(vals, fmt.Sprintf("v%d", i))
		}
	}
	return s.result(c, map[string]any{"completion": map[string]any{"values": vals, "total": len(vals), "hasMore": false}})
}
