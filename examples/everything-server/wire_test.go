package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The tests in this file pin every fixture output byte for byte (as JSON values) over
// the in-process transport. The official suite's checks are more lenient (a non-empty
// text passes most of them); these are not. They run in a synctest bubble, so the
// fixtures' 50 ms pauses take no real time and any goroutine left behind fails the
// test.

const (
	allCaps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`
	pngB64  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavB64  = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func TestInitialize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, res := newWire(t, allCaps)
		var init struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name, Version string
			} `json:"serverInfo"`
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if err := json.Unmarshal(res, &init); err != nil {
			t.Fatal(err)
		}
		if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "wiremcp-everything-server" || init.ServerInfo.Version != "1.0.0" {
			t.Errorf("initialize result = %s", res)
		}
		for _, c := range []string{"tools", "resources", "prompts", "logging", "completions"} {
			if _, ok := init.Capabilities[c]; !ok {
				t.Errorf("capability %q not declared: %s", c, res)
			}
		}
		assertJSON(t, "resources capability", init.Capabilities["resources"], `{"subscribe":true,"listChanged":true}`)
		assertJSON(t, "ping", w.result("ping", ""), `{}`)
		assertJSON(t, "logging/setLevel", w.result("logging/setLevel", `{"level":"info"}`), `{}`)
	})
}

func TestToolsList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(w.result("tools/list", `{}`), &list); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
			if tl.Description == "" {
				t.Errorf("tool %s has no description", tl.Name)
			}
			if tl.Name == "json_schema_2020_12_tool" {
				// Listed verbatim: keyword order, $defs, $anchor, allOf/anyOf and
				// if/then/else all survive registration.
				var compact bytes.Buffer
				if err := json.Compact(&compact, tl.InputSchema); err != nil {
					t.Fatal(err)
				}
				if compact.String() != jsonSchema202012Want {
					t.Errorf("json_schema_2020_12_tool inputSchema =\n%s\nwant\n%s", compact.String(), jsonSchema202012Want)
				}
			}
		}
		// Registration order puts a no-argument tool first: the suite's header
		// validation scenarios call tools[0] with {} and expect it to succeed.
		if len(names) == 0 || names[0] != "test_simple_text" {
			t.Errorf("first listed tool = %v, want test_simple_text", names[:min(1, len(names))])
		}
		slices.Sort(names)
		want := []string{
			"confirm_delete", "failing_job", "greet", "json_schema_2020_12_tool", "multi_input", "protocol_error_job", "slow_compute", "test_audio_content", "test_elicitation",
			"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "test_embedded_resource",
			"test_error_handling", "test_header_params", "test_image_content",
			"test_input_required_result_capabilities", "test_input_required_result_elicitation",
			"test_input_required_result_list_roots", "test_input_required_result_multi_round",
			"test_input_required_result_multiple_inputs", "test_input_required_result_request_state",
			"test_input_required_result_sampling", "test_input_required_result_tampered_state",
			"test_logging_tool", "test_missing_capability", "test_multiple_content_types", "test_reconnection",
			"test_sampling", "test_simple_text", "test_streaming_elicitation", "test_tool_with_logging",
			"test_tool_with_progress", "test_tool_with_task", "test_trigger_prompt_change", "test_trigger_resource_list_change",
			"test_trigger_resource_update", "test_trigger_tool_change",
		}
		if !slices.Equal(names, want) {
			t.Errorf("tools = %v\nwant %v", names, want)
		}
		if list.NextCursor != "" {
			t.Errorf("nextCursor = %q, want one page", list.NextCursor)
		}
	})
}

const jsonSchema202012Want = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

func TestToolResults(t *testing.T) {
	tests := []struct {
		name, params, want string
	}{
		{"simple text without arguments", `{"name":"test_simple_text"}`,
			`{"content":[{"type":"text","text":"This is a simple text response for testing."}]}`},
		{"image", `{"name":"test_image_content","arguments":{}}`,
			`{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}]}`},
		{"audio", `{"name":"test_audio_content","arguments":{}}`,
			`{"content":[{"type":"audio","data":"` + wavB64 + `","mimeType":"audio/wav"}]}`},
		{"embedded resource", `{"name":"test_embedded_resource","arguments":{}}`,
			`{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]}`},
		{"mixed content", `{"name":"test_multiple_content_types","arguments":{}}`,
			`{"content":[{"type":"text","text":"Multiple content types test:"},` +
				`{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},` +
				`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}]}`},
		{"tool error is a result", `{"name":"test_error_handling","arguments":{}}`,
			`{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}`},
		{"reconnection without a resumable stream", `{"name":"test_reconnection","arguments":{}}`,
			`{"content":[{"type":"text","text":"Reconnection test completed (this transport has no resumable stream to close)"}]}`},
		{"2020-12 schema accepts a valid object", `{"name":"json_schema_2020_12_tool","arguments":{"name":"Ada","contactMethod":"email","email":"ada@example.com"}}`,
			`{"content":[{"type":"text","text":"Schema validated arguments: {\"name\":\"Ada\",\"contactMethod\":\"email\",\"email\":\"ada@example.com\"}"}]}`},
	}
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		for _, tc := range tests {
			assertJSON(t, tc.name, w.result("tools/call", tc.params), tc.want)
		}
	})
}

// The 2020-12 keywords are enforced, not just listed: anyOf (phone or email),
// if/then (phone when contactMethod is phone) and additionalProperties:false.
func TestJSONSchema202012Validation(t *testing.T) {
	bad := map[string]string{
		"neither phone nor email":     `{"name":"Ada"}`,
		"if/then requires phone":      `{"contactMethod":"phone","email":"ada@example.com"}`,
		"no additional properties":    `{"email":"ada@example.com","nickname":"ada"}`,
		"$ref'd address is validated": `{"email":"ada@example.com","address":{"street":7}}`,
	}
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		for name, args := range bad {
			ex := w.call("tools/call", `{"name":"json_schema_2020_12_tool","arguments":`+args+`}`, nil)
			var res struct {
				IsError bool `json:"isError"`
			}
			if ex.err == nil {
				if err := json.Unmarshal(ex.result, &res); err != nil {
					t.Fatal(err)
				}
			}
			if ex.err == nil && !res.IsError {
				t.Errorf("%s: arguments %s were accepted: %s", name, args, ex.result)
			}
		}
	})
}

func TestProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		for _, token := range []string{`"progress-test-1"`, `42`} {
			ex := w.call("tools/call", `{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":`+token+`}}`, nil)
			if ex.err != nil {
				t.Fatalf("call: %v", ex.err)
			}
			assertJSON(t, "progress result", ex.result, `{"content":[{"type":"text","text":"Progress test completed"}]}`)
			if len(ex.notes) != 3 {
				t.Fatalf("token %s: %d notifications before the result, want 3", token, len(ex.notes))
			}
			for i, n := range ex.notes {
				if n.Method != "notifications/progress" {
					t.Errorf("notification %d is %s", i, n.Method)
				}
				want := `{"progressToken":` + token + `,"progress":` + []string{"0", "50", "100"}[i] +
					`,"total":100,"message":"Completed step ` + []string{"1", "2", "3"}[i] + ` of 3"}`
				assertJSON(t, "progress notification", n.Params, want)
			}
		}
		// Without a token the tool runs silently.
		ex := w.call("tools/call", `{"name":"test_tool_with_progress","arguments":{}}`, nil)
		if ex.err != nil || len(ex.notes) != 0 {
			t.Errorf("without a progress token: err %v, %d notifications", ex.err, len(ex.notes))
		}
	})
}

func TestLogging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		assertJSON(t, "setLevel debug", w.result("logging/setLevel", `{"level":"debug"}`), `{}`)
		ex := w.call("tools/call", `{"name":"test_tool_with_logging","arguments":{}}`, nil)
		if ex.err != nil {
			t.Fatalf("call: %v", ex.err)
		}
		assertJSON(t, "logging result", ex.result, `{"content":[{"type":"text","text":"Logging test completed"}]}`)
		want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
		if len(ex.notes) != len(want) {
			t.Fatalf("%d notifications before the result, want %d", len(ex.notes), len(want))
		}
		for i, n := range ex.notes {
			if n.Method != "notifications/message" {
				t.Errorf("notification %d is %s", i, n.Method)
			}
			assertJSON(t, "log message", n.Params, `{"level":"info","logger":"everything-server","data":`+quote(want[i])+`}`)
		}
		// Above the messages' level, nothing is sent.
		w.result("logging/setLevel", `{"level":"warning"}`)
		if ex := w.call("tools/call", `{"name":"test_tool_with_logging","arguments":{}}`, nil); len(ex.notes) != 0 {
			t.Errorf("level warning: %d info messages were sent", len(ex.notes))
		}
	})
}

func TestSampling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		ex := w.call("tools/call", `{"name":"test_sampling","arguments":{"prompt":"Test prompt for sampling"}}`,
			func(r *jsonrpc.Request) string {
				return `{"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"}`
			})
		if len(ex.requests) != 1 || ex.requests[0].Method != "sampling/createMessage" {
			t.Fatalf("server requests = %v, want one sampling/createMessage", ex.requests)
		}
		assertJSON(t, "sampling request", ex.requests[0].Params,
			`{"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],"maxTokens":100}`)
		assertJSON(t, "sampling tool result", ex.result,
			`{"content":[{"type":"text","text":"LLM response: This is a test response from the client"}]}`)
	})
}

func TestElicitation(t *testing.T) {
	tests := []struct {
		name, tool, args, answer, wantParams, wantText string
	}{
		{
			name: "user info", tool: "test_elicitation", args: `{"message":"Please provide your information"}`,
			answer:     `{"action":"accept","content":{"username":"testuser","email":"test@example.com"}}`,
			wantParams: `{"message":"Please provide your information","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address","format":"email"}},"required":["username","email"]}}`,
			wantText:   `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`,
		},
		{
			name: "declined", tool: "test_elicitation", args: `{"message":"Who are you?"}`,
			answer:     `{"action":"decline"}`,
			wantParams: `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address","format":"email"}},"required":["username","email"]}}`,
			wantText:   `User response: action=decline, content=null`,
		},
		{
			name: "SEP-1034 defaults", tool: "test_elicitation_sep1034_defaults", args: `{}`,
			answer: `{"action":"accept","content":{"name":"Jane Smith","age":25,"score":88.0,"status":"inactive","verified":false}}`,
			wantParams: `{"message":"Please review and update the form fields with defaults","requestedSchema":{"type":"object","properties":{` +
				`"name":{"type":"string","description":"User name","default":"John Doe"},` +
				`"age":{"type":"integer","description":"User age","default":30},` +
				`"score":{"type":"number","description":"User score","default":95.5},` +
				`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
				`"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}}`,
			wantText: `User response: action=accept, content={"age":25,"name":"Jane Smith","score":88,"status":"inactive","verified":false}`,
		},
		{
			name: "SEP-1330 enums", tool: "test_elicitation_sep1330_enums", args: `{}`,
			answer: `{"action":"accept","content":{"untitledSingle":"option1","titledSingle":"value1","legacyEnum":"opt1","untitledMulti":["option1","option2"],"titledMulti":["value1","value2"]}}`,
			wantParams: `{"message":"Please select options from the enum fields","requestedSchema":{"type":"object","properties":{` +
				`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},` +
				`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
				`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
				`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},` +
				`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}}`,
			wantText: `User response: action=accept, content={"legacyEnum":"opt1","titledMulti":["value1","value2"],"titledSingle":"value1","untitledMulti":["option1","option2"],"untitledSingle":"option1"}`,
		},
	}
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		for _, tc := range tests {
			ex := w.call("tools/call", `{"name":"`+tc.tool+`","arguments":`+tc.args+`}`,
				func(*jsonrpc.Request) string { return tc.answer })
			if len(ex.requests) != 1 || ex.requests[0].Method != "elicitation/create" {
				t.Fatalf("%s: server requests = %v, want one elicitation/create", tc.name, ex.requests)
			}
			assertJSON(t, tc.name+": elicitation request", ex.requests[0].Params, tc.wantParams)
			assertJSON(t, tc.name+": tool result", ex.result, `{"content":[{"type":"text","text":`+quote(tc.wantText)+`}]}`)
		}
	})
}

// A client that declared neither sampling nor elicitation gets a tool error, and the
// server sends it no request.
func TestServerRequestsNeedCapabilities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, `{}`)
		for _, call := range []string{
			`{"name":"test_sampling","arguments":{"prompt":"hi"}}`,
			`{"name":"test_elicitation","arguments":{"message":"hi"}}`,
			`{"name":"test_elicitation_sep1034_defaults","arguments":{}}`,
		} {
			ex := w.call("tools/call", call, nil)
			var res struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if ex.err != nil {
				t.Errorf("%s: protocol error %v, want a tool error", call, ex.err)
				continue
			}
			if err := json.Unmarshal(ex.result, &res); err != nil {
				t.Fatal(err)
			}
			if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "capability") {
				t.Errorf("%s: result %s, want isError naming the missing capability", call, ex.result)
			}
		}
	})
}
