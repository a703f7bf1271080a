package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The 2026-07-28 fixtures, pinned over the in-process transport: raw requests that
// carry their revision and capabilities in _meta, with no initialize, and the exact
// results (requestState aside, which is opaque and checked for presence and change).

const (
	serverInfoMeta = `{"io.modelcontextprotocol/serverInfo":{"name":"wiremcp-everything-server","title":"wiremcp everything server","version":"1.0.0"}}`

	nameSchemaWant = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	okSchemaWant   = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`

	askName     = `{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":` + nameSchemaWant + `}}`
	askCapital  = `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}}`
	askRoots    = `{"method":"roots/list","params":{}}`
	askConfirm  = `{"method":"elicitation/create","params":{"message":"Please confirm to continue","requestedSchema":` + okSchemaWant + `}}`
	aliceAnswer = `{"action":"accept","content":{"name":"Alice"}}`
	parisAnswer = `{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},"model":"test-model","stopReason":"endTurn"}`
	rootsAnswer = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
	okAnswer    = `{"action":"accept","content":{"ok":true}}`
)

// modernParams returns the params of a 2026-07-28 request: _meta with the revision,
// caps and the client's identity (plus extraMeta members, if any), then rest.
func modernParams(caps, extraMeta, rest string) string {
	p := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"wire-test","version":"1.0.0"}`
	if extraMeta != "" {
		p += "," + extraMeta
	}
	p += "}"
	if rest != "" {
		p += "," + rest
	}
	return p + "}"
}

// completeText is the 2026-07-28 result of a tool that returned text.
func completeText(text string) string {
	return `{"resultType":"complete","_meta":` + serverInfoMeta + `,"content":[{"type":"text","text":` + quote(text) + `}]}`
}

// inputRequired is the 2026-07-28 input_required result asking for requests (a JSON
// object by key), without its requestState.
func inputRequired(requests string) string {
	return `{"resultType":"input_required","_meta":` + serverInfoMeta + `,"inputRequests":` + requests + `}`
}

// splitState takes requestState out of a result: the rest, and the state ("" when
// there is none; present, it must be a non-empty string).
func splitState(t *testing.T, res json.RawMessage) (json.RawMessage, string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(res, &m); err != nil {
		t.Fatalf("result %s: %v", res, err)
	}
	raw, ok := m["requestState"]
	if !ok {
		return res, ""
	}
	var state string
	if err := json.Unmarshal(raw, &state); err != nil || state == "" {
		t.Fatalf("requestState = %s, want a non-empty string", raw)
	}
	delete(m, "requestState")
	rest, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return rest, state
}

// step is one request of a multi round-trip exchange: the inputResponses it carries
// ("" for none) and the result it must get (without requestState). Each step carries
// the requestState of the step before it, if that result had one.
type step struct {
	responses string
	want      string
	wantState bool
}

// runSteps sends the steps of one exchange for method/name (params built by target)
// and checks each result; every requestState differs from the ones before it.
func runSteps(t *testing.T, w *wire, method, caps, target string, steps []step) {
	t.Helper()
	var state string
	var states []string
	for i, s := range steps {
		rest := target
		if s.responses != "" {
			rest += `,"inputResponses":` + s.responses
		}
		if state != "" {
			rest += `,"requestState":` + quote(state)
		}
		res := w.result(method, modernParams(caps, "", rest))
		body, st := splitState(t, res)
		what := fmt.Sprintf("%s %s step %d", method, target, i+1)
		assertJSON(t, what, body, s.want)
		if (st != "") != s.wantState {
			t.Errorf("%s: requestState present = %t, want %t", what, st != "", s.wantState)
		}
		if st != "" && slices.Contains(states, st) {
			t.Errorf("%s: requestState repeats an earlier one", what)
		}
		states = append(states, st)
		state = st
	}
}

func TestInputRequiredFixtures(t *testing.T) {
	tests := []struct {
		name, method, caps, target string
		steps                      []step
	}{
		{"elicitation", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{"", inputRequired(`{"user_name":` + askName + `}`), true},
			{`{"user_name":` + aliceAnswer + `}`, completeText("Hello, Alice!"), false},
		}},
		{"sampling", "tools/call", allCaps, `"name":"test_input_required_result_sampling","arguments":{}`, []step{
			{"", inputRequired(`{"capital_question":` + askCapital + `}`), true},
			{`{"capital_question":` + parisAnswer + `}`, completeText("The model answered: The capital of France is Paris."), false},
		}},
		{"roots", "tools/call", allCaps, `"name":"test_input_required_result_list_roots","arguments":{}`, []step{
			{"", inputRequired(`{"client_roots":` + askRoots + `}`), true},
			{`{"client_roots":` + rootsAnswer + `}`, completeText("Client roots: file:///test/root"), false},
		}},
		{"request state", "tools/call", allCaps, `"name":"test_input_required_result_request_state","arguments":{}`, []step{
			{"", inputRequired(`{"confirm":` + askConfirm + `}`), true},
			{`{"confirm":` + okAnswer + `}`, completeText("state-ok: confirmed=true"), false},
		}},
		{"multiple inputs", "tools/call", allCaps, `"name":"test_input_required_result_multiple_inputs","arguments":{}`, []step{
			{"", inputRequired(`{"user_name":` + askName + `,"client_roots":` + askRoots +
				`,"greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}}}`), true},
			{`{"user_name":` + aliceAnswer + `,"client_roots":` + rootsAnswer +
				`,"greeting":{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model"}}`,
				completeText("Hello, Alice! Greeting: Hello there! Roots: file:///test/root"), false},
		}},
		{"multi round", "tools/call", allCaps, `"name":"test_input_required_result_multi_round","arguments":{}`, []step{
			{"", inputRequired(`{"step1":{"method":"elicitation/create","params":{"message":"Step 1: What is your name?","requestedSchema":` + nameSchemaWant + `}}}`), true},
			{`{"step1":` + aliceAnswer + `}`, inputRequired(`{"step2":{"method":"elicitation/create","params":{"message":"Step 2: What is your favorite color?",` +
				`"requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}`), true},
			{`{"step2":{"action":"accept","content":{"color":"blue"}}}`, completeText("Alice likes blue"), false},
		}},
		{"only what the capabilities allow", "tools/call", `{"sampling":{}}`, `"name":"test_input_required_result_capabilities","arguments":{}`, []step{
			{"", inputRequired(`{"capital_question":` + askCapital + `}`), true},
			{`{"capital_question":` + parisAnswer + `}`, completeText("Answered: capital_question"), false},
		}},
		{"every capability", "tools/call", allCaps, `"name":"test_input_required_result_capabilities","arguments":{}`, []step{
			{"", inputRequired(`{"user_name":` + askName + `,"capital_question":` + askCapital + `,"client_roots":` + askRoots + `}`), true},
		}},
		{"prompt", "prompts/get", allCaps, `"name":"test_input_required_result_prompt"`, []step{
			{"", inputRequired(`{"user_context":{"method":"elicitation/create","params":{"message":"Please provide context for the prompt",` +
				`"requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}}`), true},
			{`{"user_context":{"action":"accept","content":{"context":"test context"}}}`,
				`{"resultType":"complete","_meta":` + serverInfoMeta + `,"messages":[{"role":"user","content":{"type":"text","text":"Context: test context"}}]}`, false},
		}},
		// Answers that cannot be used are asked for again; unknown keys are ignored;
		// a single-round tool needs no requestState.
		{"wrong key", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`{"wrong_key":{"action":"accept","content":{"data":"wrong"}}}`, inputRequired(`{"user_name":` + askName + `}`), true},
		}},
		{"answer not an object", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`{"user_name":12345}`, inputRequired(`{"user_name":` + askName + `}`), true},
		}},
		{"inputResponses null", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`null`, inputRequired(`{"user_name":` + askName + `}`), true},
		}},
		{"content against the schema", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`{"user_name":{"action":"accept","content":{"nickname":"Al"}}}`, inputRequired(`{"user_name":` + askName + `}`), true},
		}},
		{"extra keys without state", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`{"user_name":` + aliceAnswer + `,"unknown_extra_key":{"action":"accept"},"another_unexpected":{"x":1}}`, completeText("Hello, Alice!"), false},
		}},
		{"declined", "tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`, []step{
			{`{"user_name":{"action":"decline"}}`, completeText("The user did not give a name (decline)."), false},
		}},
		{"streaming elicitation", "tools/call", `{"elicitation":{}}`, `"name":"test_streaming_elicitation","arguments":{}`, []step{
			{"", inputRequired(`{"elicitation-1":` + askName + `}`), true},
			{`{"elicitation-1":{"action":"accept","content":{"name":"Bob"}}}`, completeText("Hello, Bob!"), false},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				runSteps(t, connectWire(t), tc.method, tc.caps, tc.target, tc.steps)
			})
		})
	}
}

// A requestState that was altered is refused with -32602 before the handler runs.
func TestTamperedState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		target := `"name":"test_input_required_result_tampered_state","arguments":{}`
		body, state := splitState(t, w.result("tools/call", modernParams(allCaps, "", target)))
		assertJSON(t, "round 1", body, inputRequired(`{"confirm":`+askConfirm+`}`))
		ex := w.call("tools/call", modernParams(allCaps, "", target+`,"inputResponses":{"confirm":`+okAnswer+`},"requestState":`+quote(state+"-TAMPERED")), nil)
		if ex.err == nil || ex.err.Code != -32602 {
			t.Fatalf("tampered state: result %s error %v, want -32602", ex.result, ex.err)
		}
		// The untouched state still works.
		assertJSON(t, "round 2", w.result("tools/call", modernParams(allCaps, "", target+`,"inputResponses":{"confirm":`+okAnswer+`},"requestState":`+quote(state))),
			completeText("state verified: confirmed=true"))
	})
}

// The same handlers serve an initialize-era session with server-to-client requests.
func TestInputFixturesInitializeEra(t *testing.T) {
	answers := map[string]string{
		"elicitation/create":     aliceAnswer,
		"sampling/createMessage": `{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model"}`,
		"roots/list":             rootsAnswer,
	}
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		ex := w.call("tools/call", `{"name":"test_input_required_result_multiple_inputs","arguments":{}}`,
			func(r *jsonrpc.Request) string { return answers[r.Method] })
		if ex.err != nil {
			t.Fatalf("error %v", ex.err)
		}
		var methods []string
		for _, r := range ex.requests {
			methods = append(methods, r.Method)
		}
		slices.Sort(methods)
		if want := []string{"elicitation/create", "roots/list", "sampling/createMessage"}; !slices.Equal(methods, want) {
			t.Errorf("server requests %v, want %v", methods, want)
		}
		assertJSON(t, "result", ex.result, `{"content":[{"type":"text","text":"Hello, Alice! Greeting: Hello there! Roots: file:///test/root"}]}`)
	})
}

func TestMissingCapabilityFixture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		ex := w.call("tools/call", modernParams(`{}`, "", `"name":"test_missing_capability","arguments":{}`), nil)
		if ex.err == nil || ex.err.Code != -32021 {
			t.Fatalf("without sampling: result %s error %v, want -32021", ex.result, ex.err)
		}
		assertJSON(t, "error data", ex.err.Data, `{"requiredCapabilities":{"sampling":{}}}`)
		assertJSON(t, "with sampling", w.result("tools/call", modernParams(`{"sampling":{}}`, "", `"name":"test_missing_capability","arguments":{}`)),
			completeText("The client declared sampling"))
	})
}

// Under 2026-07-28 a request gets log messages only when its _meta asks for a level.
func TestLoggingFixturePerRequestLevel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		assertJSON(t, "without logLevel", w.result("tools/call", modernParams(`{}`, "", `"name":"test_logging_tool","arguments":{}`)),
			completeText("Logging test completed"))
		ex := w.call("tools/call", modernParams(`{}`, `"io.modelcontextprotocol/logLevel":"info"`, `"name":"test_logging_tool","arguments":{}`), nil)
		if ex.err != nil {
			t.Fatal(ex.err)
		}
		var got []string
		for _, n := range ex.notes {
			var p struct {
				Level string `json:"level"`
				Data  string `json:"data"`
			}
			if n.Method != "notifications/message" || json.Unmarshal(n.Params, &p) != nil {
				t.Fatalf("unexpected notification %s %s", n.Method, n.Params)
			}
			got = append(got, p.Level+" "+p.Data)
		}
		want := []string{"info Tool execution started", "info Tool processing data", "info Tool execution completed"}
		if !slices.Equal(got, want) {
			t.Errorf("log messages %q, want %q", got, want)
		}
		ex = w.call("tools/call", modernParams(`{}`, `"io.modelcontextprotocol/logLevel":"error"`, `"name":"test_logging_tool","arguments":{}`), nil)
		if ex.err != nil || len(ex.notes) != 0 {
			t.Errorf("logLevel error: error %v, %d notifications, want none", ex.err, len(ex.notes))
		}
	})
}

// The trigger tools change the lists, and each subscriptions/listen stream gets the
// notification it asked for, tagged with its id, and no other.
func TestListChangedTriggers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		for _, l := range []struct{ id, filter string }{{`"tools-listener"`, `"toolsListChanged":true`}, {`"prompts-listener"`, `"promptsListChanged":true`}} {
			w.send(`{"jsonrpc":"2.0","id":` + l.id + `,"method":"subscriptions/listen","params":` + modernParams(`{}`, "", `"notifications":{`+l.filter+`}`) + `}`)
			msg, err := w.pipe.Read(w.ctx)
			if err != nil {
				t.Fatal(err)
			}
			ack, ok := msg.(*jsonrpc.Request)
			if !ok || ack.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first message of listen %s = %#v, want the acknowledgement", l.id, msg)
			}
			assertJSON(t, "ack", ack.Params, `{"notifications":{`+l.filter+`},"_meta":{"io.modelcontextprotocol/subscriptionId":`+l.id+`}}`)
		}
		for _, c := range []struct{ trigger, method, listener string }{
			{"test_trigger_tool_change", "notifications/tools/list_changed", `"tools-listener"`},
			{"test_trigger_prompt_change", "notifications/prompts/list_changed", `"prompts-listener"`},
		} {
			ex := w.call("tools/call", modernParams(`{}`, "", `"name":"`+c.trigger+`","arguments":{}`), nil)
			if ex.err != nil {
				t.Fatalf("%s: %v", c.trigger, ex.err)
			}
			notes := ex.notes
			if len(notes) == 0 { // the change notification may follow the result
				msg, err := w.pipe.Read(w.ctx)
				if err != nil {
					t.Fatal(err)
				}
				n, ok := msg.(*jsonrpc.Request)
				if !ok {
					t.Fatalf("%s: got %#v, want a notification", c.trigger, msg)
				}
				notes = append(notes, n)
			}
			if len(notes) != 1 || notes[0].Method != c.method {
				t.Fatalf("%s: notifications %v, want one %s", c.trigger, notes, c.method)
			}
			assertJSON(t, c.method, notes[0].Params, `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+c.listener+`}}`)
		}
	})
}

// tools/list under 2026-07-28: resultType and the caching hints, and the
// x-mcp-header annotation listed as registered.
func TestModernToolsList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		var list struct {
			ResultType string `json:"resultType"`
			TTL        *int64 `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
			Tools      []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(w.result("tools/list", modernParams(`{}`, "", "")), &list); err != nil {
			t.Fatal(err)
		}
		if list.ResultType != "complete" || list.TTL == nil || *list.TTL < 0 || (list.CacheScope != "public" && list.CacheScope != "private") {
			t.Errorf("tools/list: resultType %q ttlMs %v cacheScope %q", list.ResultType, list.TTL, list.CacheScope)
		}
		var found bool
		for _, tl := range list.Tools {
			if tl.Name == "test_header_params" {
				found = true
				assertJSON(t, "test_header_params inputSchema", tl.InputSchema, `{"type":"object","properties":{`+
					`"region":{"type":"string","description":"Region to query; travels in the Mcp-Param-Region header too","x-mcp-header":"Region"},`+
					`"query":{"type":"string","description":"Free text, body only"}},"required":["region"]}`)
			}
		}
		if !found {
			t.Error("test_header_params is not listed")
		}
	})
}
