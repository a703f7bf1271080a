package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// modernPost sends one 2026-07-28 request to url as the suite does (no session;
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, plus extra) and returns the
// HTTP status and the response to the request, skipping notifications.
func modernPost(t *testing.T, url string, id int, method, name, params string, extra map[string]string) (int, *jsonrpc.Response) {
	t.Helper()
	s := &session{t: t, ctx: t.Context(), url: url}
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, url, strings.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", frame, err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("%s: a 2026-07-28 request was given session %q", method, sid)
	}
	for m := range newEvents(resp).all(t) {
		if r, ok := m.(*jsonrpc.Response); ok {
			return resp.StatusCode, r
		}
		if r := m.(*jsonrpc.Request); !r.IsNotification() {
			t.Fatalf("%s: the server sent a request (%s) on a 2026-07-28 stream", method, r.Method)
		}
	}
	t.Fatalf("%s: no response (status %d)", method, resp.StatusCode)
	return 0, nil
}

// One endpoint serves both eras at once: an initialize-era session whose elicitation
// tool is waiting for the client's answer on its SSE stream, and 2026-07-28 requests
// of the same tool, answered with input_required and completed by a retry.
func TestDualEraOneEndpoint(t *testing.T) {
	url := httpServer(t, false)
	legacy := openSession(t, url)
	resp := legacy.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_input_required_result_elicitation","arguments":{}}}`, "2025-11-25")
	stream := newEvents(resp)
	m := stream.next(t)
	ask, ok := m.(*jsonrpc.Request)
	if !ok || ask.Method != "elicitation/create" {
		t.Fatalf("initialize era: first message = %#v, want elicitation/create", m)
	}
	assertJSON(t, "elicitation/create params", ask.Params, `{"message":"What is your name?","requestedSchema":`+nameSchemaWant+`}`)

	// While that call waits, a 2026-07-28 client uses the same tool on the same URL.
	target := `"name":"test_input_required_result_elicitation","arguments":{}`
	status, r := modernPost(t, url, 1, "tools/call", "test_input_required_result_elicitation", modernParams(allCaps, "", target), nil)
	if status != http.StatusOK || r.Error != nil {
		t.Fatalf("2026-07-28 round 1: status %d error %v", status, r.Error)
	}
	body, state := splitState(t, r.Result)
	assertJSON(t, "2026-07-28 round 1", body, inputRequired(`{"user_name":`+askName+`}`))
	status, r = modernPost(t, url, 2, "tools/call", "test_input_required_result_elicitation",
		modernParams(allCaps, "", target+`,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bob"}}},"requestState":`+quote(state)), nil)
	if status != http.StatusOK || r.Error != nil {
		t.Fatalf("2026-07-28 round 2: status %d error %v", status, r.Error)
	}
	assertJSON(t, "2026-07-28 round 2", r.Result, completeText("Hello, Bob!"))

	// The initialize-era call completes once its client answers.
	if a := legacy.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, ask.ID.Raw(), aliceAnswer), "2025-11-25"); a.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: status %d", a.StatusCode)
	}
	m = stream.next(t)
	res, ok := m.(*jsonrpc.Response)
	if !ok || res.Error != nil {
		t.Fatalf("initialize era: after the answer got %#v, want the result", m)
	}
	assertJSON(t, "initialize-era result", res.Result, `{"content":[{"type":"text","text":"Hello, Alice!"}]}`)
}

// The Mcp-Param-Region header of test_header_params must mirror the region argument:
// plain or =?base64?…?=; a mismatch, bad base64, or no header at all is -32020 with
// HTTP 400.
func TestHeaderParamsTool(t *testing.T) {
	url := httpServer(t, false)
	call := func(region string) string {
		return modernParams(`{}`, "", `"name":"test_header_params","arguments":{"region":`+quote(region)+`,"query":"SELECT 1"}`)
	}
	accepted := []struct{ region, header, text string }{
		{"us-west1", "us-west1", `region="us-west1" query="SELECT 1"`},
		{"Hello", "=?base64?SGVsbG8=?=", `region="Hello" query="SELECT 1"`},
		{"SGVsbG8=", "SGVsbG8=", `region="SGVsbG8=" query="SELECT 1"`},
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", `region="=?base64?SGVsbG8=" query="SELECT 1"`},
	}
	for i, c := range accepted {
		status, r := modernPost(t, url, 10+i, "tools/call", "test_header_params", call(c.region), map[string]string{"Mcp-Param-Region": c.header})
		if status != http.StatusOK || r.Error != nil {
			t.Errorf("region %q with header %q: status %d error %v, want accepted", c.region, c.header, status, r.Error)
			continue
		}
		assertJSON(t, "result", r.Result, completeText(c.text))
	}
	rejected := []struct{ what, region, header string }{
		{"mismatch", "us-west1", "eu-west1"},
		{"bad padding", "Hello", "=?base64?SGVsbG8?="}, // "Hello" without its padding
		{"bad characters", "Hello", "=?base64?SGVs!!!bG8=?="},
		{"no header", "test-value", ""},
	}
	for i, c := range rejected {
		extra := map[string]string{}
		if c.header != "" {
			extra["Mcp-Param-Region"] = c.header
		}
		status, r := modernPost(t, url, 20+i, "tools/call", "test_header_params", call(c.region), extra)
		if status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("%s: status %d error %v result %s, want 400 and -32020", c.what, status, r.Error, r.Result)
		}
	}
}

// Over HTTP, a missing client capability is HTTP 400 with -32021, and the progress
// of a 2026-07-28 call travels on its SSE response before the result.
func TestModernHTTPStatusAndProgress(t *testing.T) {
	url := httpServer(t, false)
	status, r := modernPost(t, url, 1, "tools/call", "test_missing_capability", modernParams(`{}`, "", `"name":"test_missing_capability","arguments":{}`), nil)
	if status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 {
		t.Errorf("test_missing_capability: status %d error %v, want 400 and -32021", status, r.Error)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s := &session{t: t, ctx: ctx, url: url}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+
		modernParams(`{}`, `"progressToken":"progress-test-1"`, `"name":"test_tool_with_progress","arguments":{}`)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "test_tool_with_progress")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s.t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("progress call: Content-Type %q, want an SSE stream", ct)
	}
	var progress []string
	var result bool
	for m := range newEvents(resp).all(t) {
		switch m := m.(type) {
		case *jsonrpc.Request:
			if m.Method != "notifications/progress" || result {
				t.Errorf("unexpected %s (after the result: %t)", m.Method, result)
			}
			progress = append(progress, string(m.Params))
		case *jsonrpc.Response:
			result = true
			assertJSON(t, "progress result", m.Result, completeText("Progress test completed"))
		}
	}
	if len(progress) != 3 || !result {
		t.Fatalf("%d progress notifications then result %t; want 3 then the result", len(progress), result)
	}
	assertJSON(t, "first progress", []byte(progress[0]), `{"progressToken":"progress-test-1","progress":0,"total":100,"message":"Completed step 1 of 3"}`)
}
