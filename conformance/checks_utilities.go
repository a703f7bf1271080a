package conformance

import (
	"encoding/json"
	"fmt"
)

// listKinds are the paginated lists: capability, method, array member and
// the member that identifies an item.
var listKinds = []struct{ cap, method, key, id string }{
	{"tools", "tools/list", "tools", "name"},
	{"prompts", "prompts/list", "prompts", "name"},
	{"resources", "resources/list", "resources", "uri"},
	{"resources", "resources/templates/list", "resourceTemplates", "uriTemplate"},
}

func init() {
	register(
		&Check{ID: "utilities/pagination", Area: AreaUtilities, Severity: MUST,
			Requirement: "Following nextCursor (a string, absent on the last page) reaches the end, with every item listed once",
			Run: func(c *C) {
				s := c.Session()
				n := 0
				for _, k := range listKinds {
					if !c.HasCap(k.cap) {
						continue
					}
					n++
					seen, cursors := map[string]int{}, map[string]bool{}
					params := map[string]any{}
					for page := 0; ; page++ {
						if page == maxPages {
							c.Fatalf("%s: more than %d pages", k.method, maxPages)
						}
						r := c.Result(s, k.method, params)
						arr, ok := r.Arr(k.key)
						if !ok {
							c.Fatalf("%s: page %d has no %q array", k.method, page, k.key)
						}
						items, err := objs(arr)
						if err != nil {
							c.Fatalf("%s: page %d: %v", k.method, page, err)
						}
						for _, it := range items {
							id, _ := it.Str(k.id)
							if p, dup := seen[id]; dup {
								c.Failf("%s: %s %q appears on page %d and again on page %d", k.method, k.id, id, p, page)
							}
							seen[id] = page
						}
						raw, more := r["nextCursor"]
						if !more {
							break
						}
						next, ok := r.Str("nextCursor")
						if !ok {
							c.Fatalf("%s: nextCursor is %s, not a string", k.method, jsonKind(raw))
						}
						if cursors[next] {
							c.Fatalf("%s: cursor %q came back twice (the pages loop)", k.method, next)
						}
						cursors[next] = true
						params = map[string]any{"cursor": next}
					}
				}
				if n == 0 {
					c.NA("the server declares no listable feature")
				}
			}},
		&Check{ID: "utilities/bad-cursor", Area: AreaUtilities, Severity: SHOULD,
			Requirement: "A list request with an invalid cursor is error -32602",
			Run: func(c *C) {
				for _, k := range listKinds {
					if c.HasCap(k.cap) {
						s := c.Session()
						c.RequireError(s, k.method, map[string]any{"cursor": "conformance:not-a-cursor!"}, -32602)
						return
					}
				}
				c.NA("the server declares no listable feature")
			}},
		&Check{ID: "utilities/progress-token", Area: AreaUtilities, Severity: MUST,
			Requirement: "Progress notifications carry the request's progressToken with its JSON type, and none arrives after the response",
			Run: func(c *C) {
				s, ex, token := progressCall(c)
				for _, m := range progressOf(ex.Before, "") {
					if got := string(m.Params()["progressToken"]); got != token {
						c.Failf("progressToken %s, want %s", got, token)
					}
				}
				c.Ping(s, "the call")
				for _, m := range s.Since(0) {
					if m.Method() == "notifications/progress" && !containsMsg(ex.Before, m) {
						c.Failf("progress notification after the response: %s", short(m.Raw))
					}
				}
			}},
		&Check{ID: "utilities/progress-increasing", Area: AreaUtilities, Severity: MUST,
			Requirement: "progress strictly increases across the notifications for one request",
			Run: func(c *C) {
				_, ex, token := progressCall(c)
				prev := -1.0
				for i, m := range progressOf(ex.Before, token) {
					var p float64
					if json.Unmarshal(m.Params()["progress"], &p) != nil {
						c.Failf("progress is not a number: %s", short(m.Raw))
						continue
					}
					if i > 0 && p <= prev {
						c.Failf("progress went from %v to %v", prev, p)
					}
					prev = p
				}
			}},
		&Check{ID: "utilities/cancel-unknown", Area: AreaUtilities, Severity: SHOULD, Until: Rev20251125,
			Requirement: "notifications/cancelled for an unknown request id is ignored: no reply, and the session keeps working",
			Run: func(c *C) {
				s := c.Session()
				body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"conformance-never-sent","reason":"test"}}`
				got, _ := c.SendCollect(s, []byte(body), nil)
				for _, m := range got {
					if m.IsResponse() {
						c.Failf("cancellation was answered: %s", short(m.Raw))
					}
				}
			}},
	)
}

// progressCall calls a tool (preferring ones that sound slow) with a string
// progressToken and returns the session, the exchange and the raw token. It
// stops the check as not applicable when no progress was sent.
func progressCall(c *C) (*Session, *Exchange, string) {
	tcs := preferTools(c.callableTools(), "progress", "long", "slow")
	if len(tcs) == 0 {
		c.NA("no tool can be called with generated arguments")
	}
	s := c.Session()
	for i, tc := range tcs[:min(3, len(tcs))] {
		token := fmt.Sprintf(`"%d"`, 7+i)
		var tok string
		_ = json.Unmarshal([]byte(token), &tok)
		ex := c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args, "_meta": map[string]any{"progressToken": tok}})
		if len(progressOf(ex.Before, "")) > 0 {
			return s, ex, token
		}
	}
	c.NA("the server sent no progress notifications for the tools tried")
	return nil, nil, ""
}

// progressOf returns the progress notifications in msgs (for token when
// token is not "").
func progressOf(msgs []Msg, token string) []Msg {
	var out []Msg
	for _, m := range msgs {
		if m.Method() != "notifications/progress" {
			continue
		}
		if token != "" && string(m.Params()["progressToken"]) != token {
			continue
		}
		out = append(out, m)
	}
	return out
}

func containsMsg(msgs []Msg, m Msg) bool {
	for _, x := range msgs {
		if string(x.Raw) == string(m.Raw) {
			return true
		}
	}
	return false
}
