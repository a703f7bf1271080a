package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// ---- fixtures ----

// taskFixture lets a test drive the task tools.
type taskFixture struct {
	release   chan struct{} // "slow" and "progress" return once it is closed
	cancelled chan string   // tool names whose handler saw its context end
	progErr   chan error    // what the progress tool's second NotifyProgress returned
	elicited  chan Meta     // _meta of the elicitations the client was sent
}

func newTaskFixture() *taskFixture {
	return &taskFixture{release: make(chan struct{}), cancelled: make(chan string, 16),
		progErr: make(chan error, 4), elicited: make(chan Meta, 16)}
}

func elicitSchema(prop, typ string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"` + typ + `"}},"required":["` + prop + `"]}`)
}

// taskTestServer serves the task tools (the shapes of the official suite's fixtures)
// with tasks enabled by o (nil: defaults).
func taskTestServer(fx *taskFixture, o *TaskOptions) *Server {
	opts := TaskOptions{Defer: func(ctx context.Context, req *CallToolRequest) bool { return req.Params.Name == "mrtr_then_task" }}
	if o != nil {
		opts = *o
	}
	s := NewServer(Implementation{Name: "task-server", Version: "1.0.0"}, &ServerOptions{Tasks: &opts})
	optional := &ToolExecution{TaskSupport: TaskSupportOptional}
	required := &ToolExecution{TaskSupport: TaskSupportRequired}
	wait := func(ctx context.Context, name string) error {
		select {
		case <-fx.release:
			return nil
		case <-ctx.Done():
			fx.cancelled <- name
			return ctx.Err()
		}
	}
	type none struct{}
	AddTool(s, &Tool{Name: "slow", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		if err := wait(ctx, "slow"); err != nil {
			return nil, nil, err
		}
		return TextResult("done"), nil, nil
	})
	AddTool(s, &Tool{Name: "instant", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		return TextResult("instant"), nil, nil
	})
	AddTool(s, &Tool{Name: "greet"}, func(ctx context.Context, req *CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*CallToolResult, any, error) {
		return TextResult("Hello, " + in.Name + "!"), nil, nil
	})
	AddTool(s, &Tool{Name: "fail", Execution: required}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		return ErrorResult("boom"), nil, nil
	})
	AddTool(s, &Tool{Name: "proto", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		return nil, nil, jsonrpc.NewError(-32050, "protocol failure", map[string]string{"why": "test"})
	})
	AddTool(s, &Tool{Name: "panic", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		panic("kaboom")
	})
	AddTool(s, &Tool{Name: "confirm", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		e, err := req.Session.Elicit(ctx, &ElicitParams{Message: "Delete the file?", RequestedSchema: elicitSchema("confirm", "boolean")})
		if err != nil {
			return nil, nil, err
		}
		if e.Action == "accept" && e.Content["confirm"] == true {
			return TextResult("deleted"), nil, nil
		}
		return TextResult("kept"), nil, nil
	})
	AddTool(s, &Tool{Name: "multi", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		r, err := req.Session.Input(ctx, map[string]InputRequest{
			"name":  ElicitInput(&ElicitParams{Message: "name?", RequestedSchema: elicitSchema("name", "string")}),
			"color": ElicitInput(&ElicitParams{Message: "color?", RequestedSchema: elicitSchema("color", "string")}),
		})
		if err != nil {
			return nil, nil, err
		}
		a, _ := r.Elicit("name")
		b, _ := r.Elicit("color")
		return TextResult(fmt.Sprintf("%v likes %v", a.Content["name"], b.Content["color"])), nil, nil
	})
	AddTool(s, &Tool{Name: "mrtr_then_task", Execution: required}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		e, err := req.Session.Elicit(ctx, &ElicitParams{Message: "Your name?", RequestedSchema: elicitSchema("name", "string")})
		if err != nil {
			return nil, nil, err
		}
		if err := req.Session.StartTask(ctx); err != nil {
			return nil, nil, err
		}
		if _, ok := req.Session.TaskID(ctx); !ok {
			return nil, nil, errors.New("StartTask succeeded but TaskID knows no task")
		}
		return TextResult(fmt.Sprintf("Hello, %v!", e.Content["name"])), nil, nil
	})
	AddTool(s, &Tool{Name: "progress", Execution: optional}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		if err := req.Session.NotifyProgress(ctx, 1, nil, "started"); err != nil {
			return nil, nil, err
		}
		select {
		case <-fx.release:
		case <-ctx.Done():
		}
		fx.progErr <- req.Session.NotifyProgress(ctx, 2, nil, "later")
		return TextResult("progressed"), nil, nil
	})
	AddTool(s, &Tool{Name: "starter"}, func(ctx context.Context, req *CallToolRequest, in none) (*CallToolResult, any, error) {
		err := req.Session.StartTask(ctx)
		return TextResult(fmt.Sprint(errors.Is(err, ErrTaskUnavailable))), nil, nil
	})
	return s
}

// ---- harness for tasks ----

// taskBypass sits between a server and the schema checker of the test harness. The
// official schema does not define the 2026-07-28 tasks extension, so the harness
// would judge its flat CreateTaskResult as a CallToolResult; such a result is
// checked here (against Result, plus the extension's rules) and written past it.
type taskBypass struct {
	jsonrpc.Transport                   // the checked transport
	raw               jsonrpc.Transport // the same pipe, unchecked
	t                 *testing.T
}

func (b *taskBypass) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil && bytes.Contains(r.Result, []byte(`"resultType":"task"`)) {
		checkCreateTaskResultV2(b.t, r.Result)
		return b.raw.Write(ctx, m)
	}
	return b.Transport.Write(ctx, m)
}

// checkCreateTaskResultV2 applies the extension's rules to a flat CreateTaskResult.
func checkCreateTaskResultV2(t *testing.T, raw []byte) {
	t.Helper()
	if dir := mcpschema.Dir(); dir != "" {
		s, err := mcpschema.Load(dir, Revision20260728)
		if err != nil {
			t.Errorf("schema: %v", err)
		} else if err := s.Validate("Result", raw); err != nil {
			t.Errorf("CreateTaskResult is not a Result: %v", err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("CreateTaskResult: %v", err)
		return
	}
	allowed := []string{"resultType", "taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", "_meta"}
	for k := range m {
		if !slices.Contains(allowed, k) {
			t.Errorf("CreateTaskResult carries %q: %s", k, raw)
		}
	}
	for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("CreateTaskResult lacks %q: %s", k, raw)
		}
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if s, _ := m[k].(string); !isISOTime(s) {
			t.Errorf("%s = %v, not ISO 8601", k, m[k])
		}
	}
	if ttl, ok := m["ttlMs"].(float64); ok && (ttl != float64(int64(ttl)) || ttl <= 0) {
		t.Errorf("ttlMs = %v, want a positive integer", ttl)
	}
	if meta, ok := m["_meta"].(map[string]any); ok {
		if _, bad := meta[MetaRelatedTask]; bad {
			t.Errorf("2026-07-28 result carries the v1 related-task _meta: %s", raw)
		}
	}
}

func isISOTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// connectTasks connects a server session over the memory transport, with every
// server message checked (see taskBypass); it returns the client's end.
func connectTasks(t *testing.T, s *Server) *memory.Pipe {
	t.Helper()
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, err := s.Connect(ctx, &taskBypass{Transport: mcpschema.CheckServer(t, a), raw: a, t: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		ss.Close()
	})
	return b
}

// taskClient connects a client (pinned to 2025-11-25 or probing, as copts says) like
// pair does, with the checks of connectTasks; s.Close runs before the sessions end.
func taskClient(t *testing.T, s *Server, copts *ClientOptions) (*ClientSession, *ServerSession) {
	t.Helper()
	leaktest.Check(t)
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, err := s.Connect(ctx, &taskBypass{Transport: mcpschema.CheckServer(t, a), raw: a, t: t})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(Implementation{Name: "task-client", Version: "1"}, copts).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	t.Cleanup(func() { s.Close() })
	return cs, ss
}

func legacyClient(copts *ClientOptions) *ClientOptions {
	var o ClientOptions
	if copts != nil {
		o = *copts
	}
	o.ProtocolVersion = Revision20251125
	return &o
}

// awaitNote reads until a notification of method whose params satisfy ok arrives.
func (p *taskPeer) awaitNote(method string, ok func(map[string]any) bool) map[string]any {
	p.t.Helper()
	checked := 0
	for range 10000 {
		notes := p.notesOf(method)
		for ; checked < len(notes); checked++ {
			if ok(notes[checked]) {
				return notes[checked]
			}
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(p.recv()), &m); err != nil {
			p.t.Fatal(err)
		}
		if _, isNote := m["method"]; isNote {
			p.notes = append(p.notes, m)
		} else {
			got, _ := m["id"].(float64)
			p.pending[got] = m
		}
	}
	p.t.Fatalf("no %s notification arrived", method)
	return nil
}

// taskPeer is a raw JSON-RPC client for literal-JSON tests. Notifications are kept
// aside while it waits for a response.
type taskPeer struct {
	*wire
	notes   []map[string]any
	pending map[float64]map[string]any
}

// taskRawPeer connects a raw peer; closeServer runs s.Close before the session ends
// (tasks of 2026-07-28 outlive sessions).
func taskRawPeer(t *testing.T, s *Server) *taskPeer {
	t.Helper()
	leaktest.Check(t)
	p := connectTasks(t, s)
	t.Cleanup(func() { s.Close() })
	return &taskPeer{wire: &wire{t: t, pipe: p, ctx: testCtx(t)}, pending: map[float64]map[string]any{}}
}

// call sends a request line with the given id and returns its response.
func (p *taskPeer) call(id int, line string) map[string]any {
	p.t.Helper()
	p.send(line)
	return p.await(id)
}

func (p *taskPeer) await(id int) map[string]any {
	p.t.Helper()
	if r, ok := p.pending[float64(id)]; ok {
		delete(p.pending, float64(id))
		return r
	}
	for range 10000 {
		var m map[string]any
		if err := json.Unmarshal([]byte(p.recv()), &m); err != nil {
			p.t.Fatal(err)
		}
		if _, ok := m["method"]; ok {
			p.notes = append(p.notes, m)
			continue
		}
		got, _ := m["id"].(float64)
		if got == float64(id) {
			return m
		}
		p.pending[got] = m
	}
	p.t.Fatalf("no response to request %d", id)
	return nil
}

// notesOf returns the params of the notifications of method received so far.
func (p *taskPeer) notesOf(method string) []map[string]any {
	var out []map[string]any
	for _, n := range p.notes {
		if n["method"] == method {
			params, _ := n["params"].(map[string]any)
			out = append(out, params)
		}
	}
	return out
}

func legacyCall(id int, method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s}}`, id, method, params)
}

// waitDone waits until task id is terminal (white-box: the store's done channel).
func waitDone(t *testing.T, s *Server, id string) {
	t.Helper()
	s.tasks.mu.Lock()
	tk := s.tasks.tasks[id]
	s.tasks.mu.Unlock()
	if tk == nil {
		t.Fatalf("no task %q", id)
	}
	select {
	case <-tk.done:
	case <-testCtx(t).Done():
		t.Fatalf("task %s did not end", id)
	}
}

func taskIDOf(t *testing.T, createResult map[string]any) string {
	t.Helper()
	task, ok := createResult["task"].(map[string]any)
	if !ok {
		t.Fatalf("not a 2025-11-25 CreateTaskResult: %v", createResult)
	}
	return task["taskId"].(string)
}

// recv receives from ch, failing the test if nothing comes in time.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-testCtx(t).Done():
		t.Fatal("timed out waiting on a channel")
		panic("unreachable")
	}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ---- 2025-11-25 ----

func TestTasksCapabilities(t *testing.T) {
	fx := newTaskFixture()
	p := taskRawPeer(t, taskTestServer(fx, nil))
	r := result(t, p.initialize(Revision20251125))
	caps := r["capabilities"].(map[string]any)
	diff(t, map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
		"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}, caps["tasks"])
	if _, ok := caps["extensions"]; ok {
		t.Errorf("2025-11-25 capabilities carry extensions: %v", caps)
	}
	tools := result(t, p.call(1, legacyCall(1, "tools/list", "")))["tools"].([]any)
	support := map[string]any{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		support[m["name"].(string)] = m["execution"]
	}
	diff(t, map[string]any{"taskSupport": "optional"}, support["slow"])
	diff(t, map[string]any{"taskSupport": "required"}, support["fail"])
	diff(t, nil, support["greet"])

	// Only 2025-11-25 has the tasks capability; 2026-07-28 has the extension.
	old := taskRawPeer(t, taskTestServer(fx, nil))
	if _, ok := result(t, old.initialize(Revision20250618))["capabilities"].(map[string]any)["tasks"]; ok {
		t.Error("2025-06-18 capabilities carry tasks")
	}
	d := result(t, p.call(2, modernTaskCall(2, "server/discover", "", true)))["capabilities"].(map[string]any)
	if _, ok := d["tasks"]; ok {
		t.Error("2026-07-28 capabilities carry the legacy tasks key")
	}
	diff(t, map[string]any{ExtensionTasks: map[string]any{}}, d["extensions"])
	// A server without TaskOptions declares neither.
	plain := rawPeer(t, newTestServer())
	if _, ok := result(t, plain.initialize(Revision20251125))["capabilities"].(map[string]any)["tasks"]; ok {
		t.Error("a server without TaskOptions declares tasks")
	}
}

func TestTasksSupportRules(t *testing.T) {
	fx := newTaskFixture()
	p := taskRawPeer(t, taskTestServer(fx, nil))
	p.initialize(Revision20251125)
	cases := []struct {
		name, params string
		code         float64 // 0: a normal result
	}{
		{"required without task", `"name":"fail"`, -32601},
		{"forbidden with task", `"name":"greet","arguments":{"name":"x"},"task":{}`, -32601},
		{"optional without task", `"name":"instant"`, 0},
		{"task methods, unknown id", ``, -32602},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "task methods, unknown id" {
				for j, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
					diff(t, float64(-32602), errCode(t, p.call(100+j, legacyCall(100+j, m, `"taskId":"nope"`))))
				}
				diff(t, float64(-32602), errCode(t, p.call(110, legacyCall(110, "tasks/get", ``))))
				return
			}
			r := p.call(i+1, legacyCall(i+1, "tools/call", c.params))
			if c.code != 0 {
				diff(t, c.code, errCode(t, r))
				return
			}
			diff(t, "instant", result(t, r)["content"].([]any)[0].(map[string]any)["text"])
		})
	}
	// A server that did not declare tasks ignores params.task.
	plain := rawPeer(t, newTestServer())
	plain.initialize(Revision20251125)
	r := result(t, plain.roundTrip(legacyCall(1, "tools/call", `"name":"echo","arguments":{"message":"hi"},"task":{"ttl":1000}`)))
	diff(t, "hi", r["content"].([]any)[0].(map[string]any)["text"])
	diff(t, float64(-32601), errCode(t, plain.roundTrip(legacyCall(2, "tasks/get", `"taskId":"x"`))))
	// Neither does an earlier revision: a required tool simply runs.
	old := taskRawPeer(t, taskTestServer(fx, nil))
	old.initialize(Revision20250618)
	r = result(t, old.call(1, legacyCall(1, "tools/call", `"name":"fail","task":{}`)))
	diff(t, true, r["isError"])
	diff(t, float64(-32601), errCode(t, old.call(2, legacyCall(2, "tasks/list", ""))))
}

func TestTaskLifecycle(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, &TaskOptions{PollInterval: 250 * time.Millisecond})
	p := taskRawPeer(t, s)
	p.initialize(Revision20251125)
	cr := result(t, p.call(1, legacyCall(1, "tools/call", `"name":"slow","task":{"ttl":60000}`)))
	task := cr["task"].(map[string]any)
	id := task["taskId"].(string)
	diff(t, []string{"createdAt", "lastUpdatedAt", "pollInterval", "status", "taskId", "ttl"}, keysOf(task))
	diff(t, "working", task["status"])
	diff(t, float64(60000), task["ttl"])
	diff(t, float64(250), task["pollInterval"])
	if len(id) < 32 || !isISOTime(task["createdAt"].(string)) || !isISOTime(task["lastUpdatedAt"].(string)) {
		t.Errorf("task id %q (want 128 random bits) or timestamps malformed: %v", id, task)
	}
	got := result(t, p.call(2, legacyCall(2, "tasks/get", `"taskId":"`+id+`"`)))
	diff(t, "working", got["status"])
	diff(t, float64(60000), got["ttl"])
	diff(t, task["createdAt"], got["createdAt"])

	// tasks/result blocks while the task works: a later request is answered first.
	p.send(legacyCall(3, "tasks/result", `"taskId":"`+id+`"`))
	diff(t, "working", result(t, p.call(4, legacyCall(4, "tasks/get", `"taskId":"`+id+`"`)))["status"])
	if _, early := p.pending[3]; early {
		t.Fatal("tasks/result answered while the task was working")
	}
	close(fx.release)
	r := result(t, p.await(3))
	diff(t, map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "done"}},
		"_meta":   map[string]any{MetaRelatedTask: map[string]any{"taskId": id}},
	}, r)
	diff(t, "completed", result(t, p.call(5, legacyCall(5, "tasks/get", `"taskId":"`+id+`"`)))["status"])
	// A terminal task cannot be cancelled, and stays as it was.
	diff(t, float64(-32602), errCode(t, p.call(6, legacyCall(6, "tasks/cancel", `"taskId":"`+id+`"`))))
	diff(t, "completed", result(t, p.call(7, legacyCall(7, "tasks/get", `"taskId":"`+id+`"`)))["status"])
	// tasks/result on a finished task answers at once, the same way.
	diff(t, r, result(t, p.call(8, legacyCall(8, "tasks/result", `"taskId":"`+id+`","_meta":{"`+MetaRelatedTask+`":{"taskId":"other"}}`))))
	// A status notification says completed, without related-task _meta.
	p.awaitNote("notifications/tasks/status", func(n map[string]any) bool { return n["status"] == "completed" && n["taskId"] == id })
	for _, n := range p.notesOf("notifications/tasks/status") {
		if _, ok := n["_meta"]; ok {
			t.Errorf("status notification carries _meta: %v", n)
		}
	}
}

func TestTaskCancel(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	p.initialize(Revision20251125)
	id := taskIDOf(t, result(t, p.call(1, legacyCall(1, "tools/call", `"name":"slow","task":{}`))))
	p.send(legacyCall(2, "tasks/result", `"taskId":"`+id+`"`))
	c := result(t, p.call(3, legacyCall(3, "tasks/cancel", `"taskId":"`+id+`"`)))
	diff(t, "cancelled", c["status"])
	diff(t, id, c["taskId"])
	// The handler is told, and the task stays cancelled after it returns.
	diff(t, "slow", recv(t, fx.cancelled))
	diff(t, "cancelled", result(t, p.call(4, legacyCall(4, "tasks/get", `"taskId":"`+id+`"`)))["status"])
	e := p.await(2)["error"].(map[string]any)
	diff(t, float64(-32603), e["code"])
	diff(t, map[string]any{"_meta": map[string]any{MetaRelatedTask: map[string]any{"taskId": id}}}, e["data"])
	diff(t, float64(-32602), errCode(t, p.call(5, legacyCall(5, "tasks/cancel", `"taskId":"`+id+`"`))))
}

func TestTaskFailures(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	p.initialize(Revision20251125)
	related := func(id string) map[string]any { return map[string]any{MetaRelatedTask: map[string]any{"taskId": id}} }

	// A tool error (isError) fails the task; tasks/result is that result.
	id := taskIDOf(t, result(t, p.call(1, legacyCall(1, "tools/call", `"name":"fail","task":{}`))))
	r := result(t, p.call(2, legacyCall(2, "tasks/result", `"taskId":"`+id+`"`)))
	diff(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "boom"}}, "isError": true, "_meta": related(id)}, r)
	diff(t, "failed", result(t, p.call(3, legacyCall(3, "tasks/get", `"taskId":"`+id+`"`)))["status"])

	// A protocol error fails it too; tasks/result is that error, data kept.
	id = taskIDOf(t, result(t, p.call(4, legacyCall(4, "tools/call", `"name":"proto","task":{}`))))
	e := p.call(5, legacyCall(5, "tasks/result", `"taskId":"`+id+`"`))["error"].(map[string]any)
	diff(t, float64(-32050), e["code"])
	diff(t, "protocol failure", e["message"])
	diff(t, map[string]any{"why": "test", "_meta": related(id)}, e["data"])

	// A panic is an internal error, and the server goes on.
	id = taskIDOf(t, result(t, p.call(6, legacyCall(6, "tools/call", `"name":"panic","task":{}`))))
	e = p.call(7, legacyCall(7, "tasks/result", `"taskId":"`+id+`"`))["error"].(map[string]any)
	diff(t, float64(-32603), e["code"])
	diff(t, "instant", result(t, p.call(8, legacyCall(8, "tools/call", `"name":"instant"`)))["content"].([]any)[0].(map[string]any)["text"])
}

func TestTaskListIsPerSession(t *testing.T) {
	fx := newTaskFixture()
	defer close(fx.release)
	s := taskTestServer(fx, nil)
	s.opts.PageSize = 2
	a := taskRawPeer(t, s)
	b := taskRawPeer(t, s)
	a.initialize(Revision20251125)
	b.initialize(Revision20251125)
	var mine []string
	for i := range 3 {
		mine = append(mine, taskIDOf(t, result(t, a.call(i+1, legacyCall(i+1, "tools/call", `"name":"slow","task":{}`)))))
	}
	theirs := taskIDOf(t, result(t, b.call(1, legacyCall(1, "tools/call", `"name":"slow","task":{}`))))
	var listed []string
	cursor := ""
	for page := 0; page < 5; page++ {
		params := ""
		if cursor != "" {
			params = `"cursor":"` + cursor + `"`
		}
		r := result(t, a.call(10+page, legacyCall(10+page, "tasks/list", params)))
		for _, tk := range r["tasks"].([]any) {
			listed = append(listed, tk.(map[string]any)["taskId"].(string))
		}
		if page == 0 && r["nextCursor"] == nil {
			t.Error("3 tasks with page size 2: no nextCursor on the first page")
		}
		next, _ := r["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	diff(t, mine, listed)
	diff(t, float64(-32602), errCode(t, a.call(20, legacyCall(20, "tasks/list", `"cursor":"garbage!"`))))
	// Another session's task is unknown here.
	for i, m := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		diff(t, float64(-32602), errCode(t, a.call(30+i, legacyCall(30+i, m, `"taskId":"`+theirs+`"`))))
	}
}

func TestTaskElicitationAndStatus(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	statuses := make(chan TaskStatus, 16)
	var cs *ClientSession
	seen := make(chan TaskStatus, 1)
	copts := &ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			fx.elicited <- req.Params.Meta
			// While the question is open, the task is input_required.
			rel, _ := req.Params.Meta[MetaRelatedTask].(map[string]any)
			id, _ := rel["taskId"].(string)
			got, err := cs.GetTask(ctx, id)
			if err != nil {
				return nil, err
			}
			seen <- got.Status
			return &ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
		TaskStatusHandler: func(ctx context.Context, _ *ClientSession, t *Task) { statuses <- t.Status },
	}
	cs, _ = taskClient(t, s, legacyClient(copts))
	ctx := testCtx(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tk, res, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "confirm"}, time.Minute)
	if err != nil || res != nil || tk == nil {
		t.Fatalf("CallToolAsTask = %v, %v, %v", tk, res, err)
	}
	taskID := tk.ID
	diff(t, TaskWorking, tk.Status)
	diff(t, time.Minute, tk.TTL)
	if tk.CreatedAt.IsZero() {
		t.Error("CreatedAt not decoded")
	}
	final, err := cs.WaitTask(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, TaskCompleted, final.Status)
	diff(t, Meta{MetaRelatedTask: map[string]any{"taskId": tk.ID}}, recv(t, fx.elicited))
	diff(t, TaskInputRequired, recv(t, seen))
	r, err := cs.TaskResult(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "deleted", r.Content[0].(*TextContent).Text)
	// Notifications: input_required, working again, completed (the handlers may run
	// concurrently, so in any order).
	var got []TaskStatus
	for len(got) < 3 {
		got = append(got, recv(t, statuses))
	}
	slices.Sort(got)
	diff(t, []TaskStatus{TaskCompleted, TaskInputRequired, TaskWorking}, got)
	// A listed tool that forbids tasks is called normally.
	tk, res, err = cs.CallToolAsTask(ctx, &CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ann"}`)}, 0)
	if err != nil || tk != nil {
		t.Fatalf("greet as task = %v, %v", tk, err)
	}
	diff(t, "Hello, Ann!", res.Content[0].(*TextContent).Text)
	page, err := cs.ListTasks(ctx, "")
	if err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != taskID {
		t.Fatalf("ListTasks = %+v, %v", page, err)
	}
	if err := cs.UpdateTask(ctx, taskID, nil); err == nil {
		t.Error("UpdateTask works under 2025-11-25")
	}
}

func TestTaskProgress(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	p.initialize(Revision20251125)
	id := taskIDOf(t, result(t, p.call(1, legacyCall(1, "tools/call", `"name":"progress","task":{},"_meta":{"progressToken":"tok-1"}`))))
	// Progress comes after the CreateTaskResult, with the request's token.
	p.awaitNote("notifications/progress", func(map[string]any) bool { return true })
	// Cancel, then let the handler try to report more: refused, nothing sent.
	result(t, p.call(2, legacyCall(2, "tasks/cancel", `"taskId":"`+id+`"`)))
	if err := recv(t, fx.progErr); err == nil {
		t.Error("progress after the task ended was accepted")
	}
	p.call(3, legacyCall(3, "tasks/get", `"taskId":"`+id+`"`))
	prog := p.notesOf("notifications/progress")
	if len(prog) != 1 {
		t.Fatalf("progress notifications = %v, want exactly one", prog)
	}
	diff(t, "tok-1", prog[0]["progressToken"])
	diff(t, map[string]any{MetaRelatedTask: map[string]any{"taskId": id}}, prog[0]["_meta"])
}

func TestTaskConcurrencyBound(t *testing.T) {
	fx := newTaskFixture()
	defer close(fx.release)
	s := taskTestServer(fx, &TaskOptions{MaxConcurrent: 2})
	cs, _ := taskClient(t, s, legacyClient(nil))
	ctx := testCtx(t)
	var ids []string
	for range 2 {
		tk, _, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.ID)
	}
	_, _, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "too many tasks") {
		t.Fatalf("third task: %v", err)
	}
	c, err := cs.CancelTask(ctx, ids[0])
	if err != nil || c.Status != TaskCancelled {
		t.Fatalf("CancelTask = %+v, %v", c, err)
	}
	if _, _, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0); err != nil {
		t.Fatalf("after a cancel there is room again: %v", err)
	}
}

func TestTaskSessionEndCancels(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	cs, ss := taskClient(t, s, legacyClient(nil))
	tk, _, err := cs.CallToolAsTask(testCtx(t), &CallToolParams{Name: "slow"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ss.Wait()
	diff(t, "slow", recv(t, fx.cancelled))
	s.tasks.mu.Lock()
	_, kept := s.tasks.tasks[tk.ID]
	running := s.tasks.running
	s.tasks.mu.Unlock()
	if kept || running != 0 {
		t.Errorf("after the session ended: task kept %v, running %d", kept, running)
	}
}
