package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
)

func init() {
	register(
		&Check{ID: "resources/list-shape", Area: AreaResources, Severity: MUST,
			Requirement: "Every resource has string uri and name; mimeType is a string and size a number when present",
			Run: func(c *C) {
				c.NeedCap("resources")
				for i, r := range c.Resources() {
					for _, k := range []string{"uri", "name"} {
						if _, ok := r.Str(k); !ok {
							c.Failf("resource %d: %s is %s, not a string", i, k, orAbsent(r[k]))
						}
					}
					if v, ok := r["mimeType"]; ok && jsonKind(v) != "string" {
						c.Failf("resource %d: mimeType is not a string", i)
					}
					if v, ok := r["size"]; ok && jsonKind(v) != "number" {
						c.Failf("resource %d: size is not a number", i)
					}
				}
			}},
		&Check{ID: "resources/templates-shape", Area: AreaResources, Severity: MUST,
			Requirement: "Every resource template has string uriTemplate and name",
			Run: func(c *C) {
				c.NeedCap("resources")
				for i, t := range c.Templates() {
					for _, k := range []string{"uriTemplate", "name"} {
						if _, ok := t.Str(k); !ok {
							c.Failf("template %d: %s is %s, not a string", i, k, orAbsent(t[k]))
						}
					}
				}
			}},
		&Check{ID: "resources/read", Area: AreaResources, Severity: MUST,
			Requirement: "resources/read returns a contents array; each entry has a uri and exactly one of text or base64 blob",
			Run: func(c *C) {
				c.NeedCap("resources")
				rs := c.Resources()
				if len(rs) == 0 {
					c.NA("the server lists no resources")
				}
				s := c.Session()
				for _, res := range rs[:min(4, len(rs))] {
					uri, _ := res.Str("uri")
					r := c.Result(s, "resources/read", map[string]any{"uri": uri})
					items, ok := r.Arr("contents")
					if !ok {
						c.Failf("read %s: contents is not an array", uri)
						continue
					}
					for i, it := range items {
						o, ok := toObj(it)
						if !ok {
							c.Failf("read %s: contents[%d] is not an object", uri, i)
							continue
						}
						if p := checkResourceContents(o); p != "" {
							c.Failf("read %s: contents[%d]: %s", uri, i, p)
						}
					}
				}
			}},
		&Check{ID: "resources/read-unknown", Area: AreaResources, Severity: SHOULD,
			Requirement: "resources/read of an unknown URI is error -32002 (2026-07-28: -32602), never a result",
			Run: func(c *C) {
				c.NeedCap("resources")
				s := c.Session()
				code := int64(-32002)
				if c.Modern() {
					code = -32602
				}
				c.RequireError(s, "resources/read", map[string]any{"uri": "conformance-nowhere:///no/such/resource"}, code)
			}},
		&Check{ID: "resources/subscribe", Area: AreaResources, Severity: MUST, Until: Rev20251125,
			Requirement: "With resources.subscribe declared, resources/subscribe and resources/unsubscribe return empty results",
			Run: func(c *C) {
				c.NeedCap("resources")
				caps, _ := c.Caps().Obj("resources")
				if string(caps["subscribe"]) != "true" {
					c.NA("the server does not declare resources.subscribe")
				}
				rs := c.Resources()
				if len(rs) == 0 {
					c.NA("the server lists no resources")
				}
				uri, _ := rs[0].Str("uri")
				s := c.Session()
				c.checkEmptyResult("resources/subscribe", c.Result(s, "resources/subscribe", map[string]any{"uri": uri}))
				c.checkEmptyResult("resources/unsubscribe", c.Result(s, "resources/unsubscribe", map[string]any{"uri": uri}))
			}},
		&Check{ID: "prompts/list-shape", Area: AreaPrompts, Severity: MUST,
			Requirement: "Every prompt has a string name; each argument has a string name and a boolean required when present",
			Run: func(c *C) {
				c.NeedCap("prompts")
				for i, p := range c.Prompts() {
					name, ok := p.Str("name")
					if !ok {
						c.Failf("prompt %d: name is not a string", i)
					}
					args, present := p["arguments"]
					if !present {
						continue
					}
					list, ok := p.Arr("arguments")
					if !ok {
						c.Failf("prompt %q: arguments is %s, not an array", name, jsonKind(args))
						continue
					}
					for j, a := range list {
						o, ok := toObj(a)
						if _, isStr := o.Str("name"); !ok || !isStr {
							c.Failf("prompt %q: argument %d has no string name", name, j)
						}
						if v, ok := o["required"]; ok && jsonKind(v) != "boolean" {
							c.Failf("prompt %q: argument %d: required is %s, not a boolean", name, j, short(v))
						}
					}
				}
			}},
		&Check{ID: "prompts/get", Area: AreaPrompts, Severity: MUST,
			Requirement: "prompts/get returns messages, each with role user or assistant and one well-formed content block",
			Run: func(c *C) {
				c.NeedCap("prompts")
				ps := c.Prompts()
				if len(ps) == 0 {
					c.NA("the server lists no prompts")
				}
				s := c.Session()
				fetched := 0
				var refused []string
				for _, p := range ps {
					if fetched == 4 {
						break
					}
					name, _ := p.Str("name")
					args := map[string]string{}
					for _, a := range promptArgs(p) {
						if a.required {
							args[a.name] = promptArgValue(c, s, name, a.name, args)
						}
					}
					ex := c.Call(s, "prompts/get", map[string]any{"name": name, "arguments": args})
					if e := ex.Response.Error(); e != nil && len(args) > 0 {
						// Prompt arguments are untyped strings and the suite made
						// these up: a server may rightly refuse them (whatever the
						// code), so the suite tries another prompt.
						refused = append(refused, fmt.Sprintf("%q with %s: error %s %q", name, mustJSON(args), e.Code, e.Message))
						continue
					}
					r, err := resultOrErr(ex)
					if err != nil {
						c.Fatalf("prompts/get %q: %v", name, err)
					}
					fetched++
					msgs, ok := r.Arr("messages")
					if !ok {
						c.Failf("prompt %q: messages is not an array", name)
						continue
					}
					for i, m := range msgs {
						o, _ := toObj(m)
						if role, _ := o.Str("role"); role != "user" && role != "assistant" {
							c.Failf("prompt %q: messages[%d].role is %s", name, i, orAbsent(o["role"]))
						}
						if p := checkContentBlock(o["content"], c.Revision()); p != "" {
							c.Failf("prompt %q: messages[%d].content: %s", name, i, p)
						}
					}
				}
				for _, r := range refused {
					c.Logf("refused arguments the suite made up (not a failure): %s", r)
				}
				if fetched == 0 {
					c.NotTestablef("every prompt needs arguments and the server refused the values the suite made up for them (a refusal of invalid input is not a failure): %s", strings.Join(refused, "; "))
				}
			}},
		&Check{ID: "prompts/get-unknown", Area: AreaPrompts, Severity: SHOULD,
			Requirement: "prompts/get of an unknown prompt name is error -32602",
			Run: func(c *C) {
				c.NeedCap("prompts")
				s := c.Session()
				c.RequireError(s, "prompts/get", map[string]any{"name": "conformance-no-such-prompt"}, -32602)
			}},
		&Check{ID: "prompts/missing-argument", Area: AreaPrompts, Severity: SHOULD,
			Requirement: "prompts/get without a required argument is error -32602",
			Run: func(c *C) {
				c.NeedCap("prompts")
				for _, p := range c.Prompts() {
					for _, a := range promptArgs(p) {
						if !a.required {
							continue
						}
						name, _ := p.Str("name")
						s := c.Session()
						c.RequireError(s, "prompts/get", map[string]any{"name": name, "arguments": map[string]string{}}, -32602)
						return
					}
				}
				c.NA("no prompt has a required argument")
			}},
		&Check{ID: "completion/complete", Area: AreaCompletion, Severity: MUST, Since: Rev20250326,
			Requirement: "completion/complete returns completion.values (at most 100 strings), numeric total and boolean hasMore when present",
			Run: func(c *C) {
				c.NeedCap("completions")
				ref, arg := completionTarget(c)
				s := c.Session()
				r := c.Result(s, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}})
				comp, ok := r.Obj("completion")
				if !ok {
					c.Fatalf("completion is not an object: %s", orAbsent(r["completion"]))
				}
				vals, ok := comp.Arr("values")
				if !ok {
					c.Fatalf("completion.values is not an array")
				}
				if len(vals) > 100 {
					c.Failf("completion.values has %d entries, more than 100", len(vals))
				}
				for i, v := range vals {
					if jsonKind(v) != "string" {
						c.Failf("completion.values[%d] is %s, not a string", i, jsonKind(v))
					}
				}
				if v, ok := comp["total"]; ok && jsonKind(v) != "number" {
					c.Failf("completion.total is not a number")
				}
				if v, ok := comp["hasMore"]; ok && jsonKind(v) != "boolean" {
					c.Failf("completion.hasMore is not a boolean")
				}
			}},
		&Check{ID: "completion/unknown-prompt", Area: AreaCompletion, Severity: SHOULD, Since: Rev20250326,
			Requirement: "completion/complete for an unknown prompt is error -32602",
			Run: func(c *C) {
				c.NeedCap("completions")
				s := c.Session()
				c.RequireError(s, "completion/complete", map[string]any{
					"ref":      map[string]any{"type": "ref/prompt", "name": "conformance-no-such-prompt"},
					"argument": map[string]any{"name": "x", "value": ""}}, -32602)
			}},
		&Check{ID: "logging/set-level", Serial: true, Area: AreaLogging, Severity: MUST, Until: Rev20251125,
			Requirement: "logging/setLevel with a valid level returns an empty result",
			Run: func(c *C) {
				c.NeedCap("logging")
				s := c.Session()
				c.checkEmptyResult("logging/setLevel", c.Result(s, "logging/setLevel", map[string]any{"level": "info"}))
			}},
		&Check{ID: "logging/invalid-level", Serial: true, Area: AreaLogging, Severity: SHOULD, Until: Rev20251125,
			Requirement: "logging/setLevel with an unknown level is error -32602",
			Run: func(c *C) {
				c.NeedCap("logging")
				s := c.Session()
				c.RequireError(s, "logging/setLevel", map[string]any{"level": "verbose"}, -32602)
			}},
		&Check{ID: "logging/level-filter", Serial: true, Area: AreaLogging, Severity: SHOULD, Until: Rev20251125,
			Requirement: "After logging/setLevel(\"emergency\") no less severe notifications/message is sent",
			Run: func(c *C) {
				c.NeedCap("logging")
				tcs := c.callableTools()
				if len(tcs) == 0 {
					c.NA("no tool can be called to provoke log messages")
				}
				s := c.Session()
				c.Result(s, "logging/setLevel", map[string]any{"level": "emergency"})
				mark := s.Mark()
				for _, tc := range tcs[:min(3, len(tcs))] {
					c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args})
				}
				c.Ping(s, "tool calls")
				for _, m := range s.Since(mark) {
					if m.Method() != "notifications/message" {
						continue
					}
					if lvl, _ := m.Params().Str("level"); lvl != "emergency" {
						c.Failf("log message at level %q after setLevel(emergency): %s", lvl, short(m.Raw))
					}
				}
			}},
	)
}

type promptArg struct {
	name     string
	required bool
}

func promptArgs(p Obj) []promptArg {
	list, _ := p.Arr("arguments")
	var out []promptArg
	for _, a := range list {
		o, _ := toObj(a)
		n, _ := o.Str("name")
		out = append(out, promptArg{name: n, required: string(o["required"]) == "true"})
	}
	return out
}

// promptArgValue picks a value for a required argument of prompt: the
// first completion the server offers for it (with the arguments chosen so
// far as context, from 2025-06-18) when it declares completions, else
// samplePromptArg. The completion exchange is not schema-checked here: it
// belongs to the completion checks.
func promptArgValue(c *C, s *Session, prompt, arg string, chosen map[string]string) string {
	if c.HasCap("completions") {
		params := map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": prompt},
			"argument": map[string]any{"name": arg, "value": ""},
		}
		if len(chosen) > 0 && c.Revision() >= Rev20250618 {
			params["context"] = map[string]any{"arguments": chosen}
		}
		ctx, cancel := c.Ctx()
		validate := s.onMsg
		s.onMsg = nil
		ex, err := s.Call(ctx, "completion/complete", params)
		s.onMsg = validate
		cancel()
		if err == nil {
			if comp, ok := ex.Response.Result().Obj("completion"); ok {
				if vals, ok := comp.Arr("values"); ok && len(vals) > 0 {
					var v string
					if json.Unmarshal(vals[0], &v) == nil && v != "" {
						return v
					}
				}
			}
		}
	}
	return samplePromptArg(arg)
}

// samplePromptArg is the value the suite gives a required prompt argument.
// Prompt arguments are untyped strings; an argument named as a URI or URL
// gets an absolute URI, since a server may fairly echo it into a field the
// schema types as one (an embedded resource's uri), and anything else
// "test".
func samplePromptArg(name string) string {
	n := strings.ToLower(name)
	if strings.HasSuffix(n, "uri") || strings.HasSuffix(n, "url") {
		return "test://conformance/resource"
	}
	return "test"
}

// completionTarget picks a prompt argument or a template variable to
// complete.
func completionTarget(c *C) (map[string]any, string) {
	if c.HasCap("prompts") {
		for _, p := range c.Prompts() {
			if args := promptArgs(p); len(args) > 0 {
				name, _ := p.Str("name")
				return map[string]any{"type": "ref/prompt", "name": name}, args[0].name
			}
		}
	}
	if c.HasCap("resources") {
		for _, t := range c.Templates() {
			ut, _ := t.Str("uriTemplate")
			if i := strings.Index(ut, "{"); i >= 0 {
				if j := strings.Index(ut[i:], "}"); j > 0 {
					v := strings.TrimLeft(ut[i+1:i+j], "+#./;?&")
					v = strings.SplitN(v, ",", 2)[0]
					v = strings.TrimRight(v, "*")
					return map[string]any{"type": "ref/resource", "uri": ut}, v
				}
			}
		}
	}
	c.NA("no prompt argument or template variable to complete")
	return nil, ""
}
