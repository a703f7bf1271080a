package faultserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The 2026-07-28 multi round-trip requests (input_required results) and the
// Mcp-Param-* headers of x-mcp-header tool arguments.
//
// ask_user asks for what the request's clientCapabilities allow: a name
// (elicitation, key user_name), a summary (sampling, key summary) and the
// client's roots (key client_roots), in one round, under an HMAC-protected
// requestState. A retry with every answer and the state completes; missing
// answers are asked for again; a state that fails verification is refused
// with -32602. Without any of the three capabilities it simply completes.
//
// lookup_region mirrors its region argument into the Mcp-Param-Region
// header (x-mcp-header); over HTTP the header must be present and equal.

const (
	toolAskUser      = "ask_user"
	toolLookupRegion = "lookup_region"
)

// stateKey signs the requestState values of this process.
var stateKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

func init() {
	Faults["stateless/input-required"] = "ignores inputResponses and asks again forever"
	Faults["stateless/input-required-tampered"] = "accepts a tampered requestState"
	Faults["stateless/input-required-capabilities"] = "asks for elicitation whatever the client declared"
	Faults["stateless/header-param"] = "ignores Mcp-Param-* headers"

	registerTool(toolAskUser, extraTool{
		def: func(_ *Server, rev string) map[string]any {
			if rev != modernRevision {
				return nil
			}
			return map[string]any{"name": toolAskUser,
				"description": "Asks the user (and the client) for input through input_required results.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"topic": map[string]any{"type": "string", "description": "What the summary is about"}}}}
		},
		call: (*Server).askUser,
	})
	registerTool(toolLookupRegion, extraTool{
		def: func(_ *Server, rev string) map[string]any {
			if rev != modernRevision {
				return nil
			}
			return map[string]any{"name": toolLookupRegion,
				"description": "Looks a query up in a region; the region travels in the Mcp-Param-Region header too.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
					"query":  map[string]any{"type": "string"}}, "required": []string{"region"}}}
		},
		call: func(s *Server, c *call, args map[string]json.RawMessage) reply {
			region, _ := str(args, "region")
			query, _ := str(args, "query")
			return s.toolResult(c, "region="+strconv.Quote(region)+" query="+strconv.Quote(query), nil, false)
		},
	})
}

// clientCaps returns the clientCapabilities of a 2026-07-28 request.
func clientCaps(c *call) map[string]json.RawMessage {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(meta(c.in.params)["io.modelcontextprotocol/clientCapabilities"], &caps)
	return caps
}

// inputKinds lists the input requests ask_user makes for the declared
// capabilities, by key.
func (s *Server) inputKinds(c *call) map[string]map[string]any {
	caps := clientCaps(c)
	out := map[string]map[string]any{}
	if caps["elicitation"] != nil || s.has("stateless/input-required-capabilities") {
		out["user_name"] = map[string]any{"method": "elicitation/create", "params": map[string]any{
			"message": "What is your name?",
			"requestedSchema": map[string]any{"type": "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}
	}
	if caps["sampling"] != nil {
		out["summary"] = map[string]any{"method": "sampling/createMessage", "params": map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Summarise the topic in one word."}}},
			"maxTokens": 20}}
	}
	if caps["roots"] != nil {
		out["client_roots"] = map[string]any{"method": "roots/list", "params": map[string]any{}}
	}
	return out
}

// signState returns a requestState bound to the tool and the keys asked.
func signState(keys []string) string {
	payload := base64.RawURLEncoding.EncodeToString(mustJSON(map[string]any{"tool": toolAskUser, "keys": keys}))
	mac := hmac.New(sha256.New, stateKey)
	mac.Write([]byte(payload))
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// verifyState reports whether state was issued by signState.
func verifyState(state string) bool {
	payload, sig, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, stateKey)
	mac.Write([]byte(payload))
	return hmac.Equal(got, mac.Sum(nil))
}

// answered reports whether resp is a usable answer to an input request of
// the given method, and the name an accepted elicitation gave.
func answered(method string, resp json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if kind(resp) != "object" || json.Unmarshal(resp, &m) != nil {
		return "", false
	}
	switch method {
	case "elicitation/create":
		action, _ := str(m, "action")
		if action != "accept" {
			return "", action == "decline" || action == "cancel"
		}
		var content map[string]json.RawMessage
		_ = json.Unmarshal(m["content"], &content)
		name, ok := str(content, "name")
		return name, ok
	case "sampling/createMessage":
		_, ok := str(m, "role")
		return "", ok && kind(m["content"]) != ""
	case "roots/list":
		return "", kind(m["roots"]) == "array"
	}
	return "", false
}

// askUser serves tools/call of ask_user.
func (s *Server) askUser(c *call, _ map[string]json.RawMessage) reply {
	if !c.modern {
		return c.errorf(-32602, "unknown tool %q", toolAskUser)
	}
	kinds := s.inputKinds(c)
	if len(kinds) == 0 {
		return s.toolResult(c, "Nothing to ask: the request declared no elicitation, sampling or roots.", nil, false)
	}
	if _, sent := c.in.params["requestState"]; sent && !s.has("stateless/input-required-tampered") {
		st, ok := str(c.in.params, "requestState")
		if !ok || !verifyState(st) {
			return c.errorf(-32602, "requestState integrity check failed")
		}
	}
	var responses map[string]json.RawMessage
	_ = json.Unmarshal(c.in.params["inputResponses"], &responses)
	missing := map[string]any{}
	name := ""
	for key, req := range kinds {
		n, ok := answered(req["method"].(string), responses[key])
		if !ok || s.has("stateless/input-required") {
			missing[key] = req
		}
		if n != "" {
			name = n
		}
	}
	if len(missing) == 0 {
		if name == "" {
			name = "stranger"
		}
		return s.toolResult(c, "Hello, "+name+"!", nil, false)
	}
	keys := make([]string, 0, len(missing))
	for k := range missing {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	r := s.result(c, map[string]any{"resultType": "input_required", "inputRequests": missing, "requestState": signState(keys)})
	return r
}

// checkParamHeaders validates the Mcp-Param-* headers of a 2026-07-28
// tools/call over HTTP: every x-mcp-header argument (top-level properties)
// that is present and not null needs its header with an equal value.
func (s *Server) checkParamHeaders(in *incoming, rc reqCtx) (reply, bool) {
	if in.method != "tools/call" || s.has("stateless/header-param") {
		return reply{}, false
	}
	name, _ := str(in.params, "name")
	t, ok := extraTools[name]
	if !ok {
		return reply{}, false
	}
	def := t.def(s, modernRevision)
	if def == nil {
		return reply{}, false
	}
	schema, _ := def["inputSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	var args map[string]json.RawMessage
	_ = json.Unmarshal(in.params["arguments"], &args)
	for prop, v := range props {
		p, _ := v.(map[string]any)
		h, _ := p["x-mcp-header"].(string)
		val, present := args[prop]
		if h == "" || !present || kind(val) == "null" {
			continue
		}
		got, sent := rc.headers[http.CanonicalHeaderKey("Mcp-Param-"+h)]
		if !sent {
			return modernErr(in.id, -32020, "Mcp-Param-"+h+" header missing", nil), true
		}
		got = strings.TrimSpace(got)
		if strings.HasPrefix(got, "=?base64?") && strings.HasSuffix(got, "?=") && len(got) >= len("=?base64??=") {
			dec, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(got, "=?base64?"), "?="))
			if err != nil {
				return modernErr(in.id, -32020, "Mcp-Param-"+h+" is not valid base64", nil), true
			}
			got = string(dec)
		}
		want := string(val)
		if kind(val) == "string" {
			_ = json.Unmarshal(val, &want)
		}
		if got != want {
			return modernErr(in.id, -32020, "Mcp-Param-"+h+" header does not match the argument", nil), true
		}
	}
	return reply{}, false
}
