package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func init() {
	register(
		&Check{ID: "tools/list-shape", Area: AreaTools, Severity: MUST,
			Requirement: "Every tool has a unique string name and an inputSchema object with type \"object\"; outputSchema (before 2026-07-28) also has type \"object\"; annotation hints are booleans",
			Run: func(c *C) {
				c.NeedCap("tools")
				seen := map[string]bool{}
				for i, t := range c.Tools() {
					name, ok := t.Str("name")
					if !ok || name == "" {
						c.Failf("tool %d has no string name", i)
						continue
					}
					if seen[name] {
						c.Failf("tool name %q is listed twice", name)
					}
					seen[name] = true
					in, ok := t.Obj("inputSchema")
					if !ok {
						c.Failf("tool %q: inputSchema is not an object", name)
					} else if typ, _ := in.Str("type"); typ != "object" {
						c.Failf("tool %q: inputSchema.type is %s, want \"object\"", name, orAbsent(in["type"]))
					}
					if raw, present := t["outputSchema"]; present && !c.Modern() {
						out, ok := toObj(raw)
						if typ, _ := out.Str("type"); !ok || typ != "object" {
							c.Failf("tool %q: outputSchema.type is %s, want \"object\"", name, orAbsent(out["type"]))
						}
					}
					if ann, ok := t.Obj("annotations"); ok {
						for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
							if v, ok := ann[h]; ok && jsonKind(v) != "boolean" {
								c.Failf("tool %q: annotations.%s is %s, not a boolean", name, h, short(v))
							}
						}
					}
				}
			}},
		&Check{ID: "tools/name-format", Area: AreaTools, Severity: SHOULD, Since: Rev20251125,
			Requirement: "Tool names are 1-128 characters of A-Z a-z 0-9 _ - .",
			Run: func(c *C) {
				c.NeedCap("tools")
				for _, t := range c.Tools() {
					if name, _ := t.Str("name"); !toolNamePattern.MatchString(name) {
						c.Failf("tool name %q breaks the naming rule", name)
					}
				}
			}},
		&Check{ID: "tools/schema-valid", Area: AreaTools, Severity: MUST,
			Requirement: "inputSchema and outputSchema are valid JSON Schema (2020-12 unless $schema names another dialect)",
			Run: func(c *C) {
				c.NeedCap("tools")
				for _, t := range c.Tools() {
					name, _ := t.Str("name")
					for _, k := range []string{"inputSchema", "outputSchema"} {
						raw, ok := t[k]
						if !ok {
							continue
						}
						if _, err := compileToolSchema(raw); err != nil {
							if errors.Is(err, errLoad) {
								c.Logf("tool %q %s: %v", name, k, err)
								continue
							}
							c.Failf("tool %q: %s does not compile: %s", name, k, firstLines(err.Error(), 3))
						}
					}
				}
			}},
		&Check{ID: "tools/call-unknown", Area: AreaTools, Severity: SHOULD,
			Requirement: "tools/call naming an unknown tool is a JSON-RPC error -32602, not a tool result",
			Run: func(c *C) {
				c.NeedCap("tools")
				s := c.Session()
				c.RequireError(s, "tools/call", map[string]any{"name": "conformance-no-such-tool", "arguments": map[string]any{}}, -32602)
			}},
		&Check{ID: "tools/invalid-arguments", Area: AreaTools, Severity: SHOULD, Since: Rev20251125,
			Requirement: "tools/call with arguments that violate the inputSchema returns a result with isError: true, not a JSON-RPC error",
			Run: func(c *C) {
				if c.run.opts.toolPolicy() == CallNone {
					c.NA("tool calls are off (-call-tools none)")
				}
				c.NeedCap("tools")
				s := c.Session()
				for _, t := range c.Tools() {
					name, _ := t.Str("name")
					if ok, _ := c.mayCall(t); !ok {
						continue
					}
					args, how, ok := badArgs(t["inputSchema"])
					if !ok {
						continue
					}
					ex := c.Call(s, "tools/call", map[string]any{"name": name, "arguments": args})
					if e := ex.Response.Error(); e != nil {
						c.Fatalf("tool %q with bad arguments (%s): JSON-RPC error %s %q instead of an isError result", name, how, e.Code, e.Message)
					}
					r := ex.Response.Result()
					if string(r["isError"]) != "true" {
						c.Fatalf("tool %q accepted bad arguments (%s): %s", name, how, short(ex.Response.Raw))
					}
					return
				}
				c.NA("no tool has an argument constraint the suite can break")
			}},
		&Check{ID: "tools/call-result", Area: AreaTools, Severity: MUST,
			Requirement: "A tools/call result has a content array of well-formed content blocks; isError is a boolean",
			Run: func(c *C) {
				tcs := c.callableTools()
				if len(tcs) == 0 {
					c.NA("no tool can be called with generated arguments")
				}
				s := c.Session()
				called := 0
				var refused []string
				for _, tc := range tcs {
					if called == 3 {
						break
					}
					r, why := callGenerated(c, s, tc)
					if why != "" {
						refused = append(refused, why)
						continue
					}
					called++
					checkCallResult(c, tc.name, r)
				}
				for _, r := range refused {
					c.Logf("refused arguments the suite made up (not a failure): %s", r)
				}
				if called == 0 {
					c.NotTestablef("the server refused the arguments the suite made up for every tool (a refusal of invalid input is not a failure): %s", strings.Join(refused, "; "))
				}
			}},
		&Check{ID: "tools/structured-output", Area: AreaTools, Severity: MUST, Since: Rev20250618,
			Requirement: "A tool that declares outputSchema returns structuredContent that validates against it",
			Run: func(c *C) {
				structuredCalls(c, func(tc toolCall, r Obj) {
					raw, ok := r["structuredContent"]
					if !ok {
						c.Failf("tool %q declares outputSchema but returned no structuredContent", tc.name)
						return
					}
					sch, err := compileToolSchema(tc.tool["outputSchema"])
					if err != nil {
						c.Logf("tool %q: outputSchema does not compile: %v", tc.name, err)
						return
					}
					if err := validateInstance(sch, raw); err != nil {
						c.Failf("tool %q: structuredContent does not match outputSchema: %s", tc.name, firstLines(err.Error(), 3))
					}
				})
			}},
		&Check{ID: "tools/structured-text", Area: AreaTools, Severity: SHOULD, Since: Rev20250618,
			Requirement: "A result with structuredContent also carries the same JSON serialized in a text block",
			Run: func(c *C) {
				structuredCalls(c, func(tc toolCall, r Obj) {
					raw, ok := r["structuredContent"]
					if !ok {
						return
					}
					blocks, _ := r.Arr("content")
					for _, b := range blocks {
						o, _ := toObj(b)
						if txt, ok := o.Str("text"); ok && jsonEqual([]byte(txt), raw) {
							return
						}
					}
					c.Failf("tool %q: no text block carries the structuredContent JSON", tc.name)
				})
			}},
	)
}

// structuredCalls calls (up to three) tools that declare outputSchema and
// hands each successful result to f.
func structuredCalls(c *C, f func(toolCall, Obj)) {
	var with []toolCall
	for _, tc := range c.callableTools() {
		if _, ok := tc.tool["outputSchema"]; ok {
			with = append(with, tc)
		}
	}
	if len(with) == 0 {
		c.NA("no callable tool declares an outputSchema")
	}
	s := c.Session()
	ok := 0
	var refused []string
	for _, tc := range with {
		if ok == 3 {
			break
		}
		r, why := callGenerated(c, s, tc)
		if why == "" && string(r["isError"]) == "true" {
			why = fmt.Sprintf("%q with %s: isError result %s", tc.name, mustJSON(tc.args), short(r["content"]))
		}
		if why != "" {
			refused = append(refused, why)
			continue
		}
		ok++
		f(tc, r)
	}
	for _, r := range refused {
		c.Logf("refused arguments the suite made up (not a failure): %s", r)
	}
	if ok == 0 {
		c.NotTestablef("every tool with an outputSchema refused the arguments the suite made up (a refusal of invalid input is not a failure): %s", strings.Join(refused, "; "))
	}
}

// callGenerated calls tc with the arguments the suite generated. A
// JSON-RPC error is the server refusing input the suite made up, not a
// failure: it returns why instead of a result.
func callGenerated(c *C, s *Session, tc toolCall) (Obj, string) {
	ex := c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args})
	if e := ex.Response.Error(); e != nil {
		return nil, fmt.Sprintf("%q with %s: error %s %q", tc.name, mustJSON(tc.args), e.Code, e.Message)
	}
	r, err := resultOrErr(ex)
	if err != nil {
		c.Fatalf("tools/call %q: %v", tc.name, err)
	}
	return r, ""
}

// checkCallResult validates a CallToolResult.
func checkCallResult(c *C, name string, r Obj) {
	blocks, ok := r.Arr("content")
	if !ok {
		c.Failf("tool %q: content is not an array: %s", name, orAbsent(r["content"]))
	}
	for i, b := range blocks {
		if p := checkContentBlock(b, c.Revision()); p != "" {
			c.Failf("tool %q: content[%d]: %s", name, i, p)
		}
	}
	if v, ok := r["isError"]; ok && jsonKind(v) != "boolean" {
		c.Failf("tool %q: isError is %s, not a boolean", name, short(v))
	}
	if v, ok := r["structuredContent"]; ok && !c.Modern() && jsonKind(v) != "object" {
		c.Failf("tool %q: structuredContent is %s, not an object", name, jsonKind(v))
	}

}
