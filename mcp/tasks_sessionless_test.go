package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// modernTaskCall builds a 2026-07-28 request whose capabilities declare elicitation
// and, when ext is set, the tasks extension.
func modernTaskCall(id int, method, params string, ext bool) string {
	caps := `{"elicitation":{}}`
	if ext {
		caps = `{"elicitation":{},"extensions":{"` + ExtensionTasks + `":{}}}`
	}
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s"_meta":{"%s":"2026-07-28","%s":%s}}}`,
		id, method, params, MetaProtocolVersion, MetaClientCapabilities, caps)
}

func taskGet(p *taskPeer, id int, taskID string) map[string]any {
	p.t.Helper()
	return result(p.t, p.call(id, modernTaskCall(id, "tasks/get", `"taskId":"`+taskID+`"`, true)))
}

// pollStatus polls tasks/get until the task has status want (ids from *next on).
func pollStatus(p *taskPeer, next *int, taskID, want string) map[string]any {
	p.t.Helper()
	for p.ctx.Err() == nil {
		*next++
		g := taskGet(p, *next, taskID)
		if g["status"] == want {
			return g
		}
		if s := TaskStatus(g["status"].(string)); s.Terminal() {
			p.t.Fatalf("task ended %s while waiting for %s: %v", s, want, g)
		}
	}
	p.t.Fatalf("task never reached %s", want)
	return nil
}

// checkAck checks the empty acknowledgement of tasks/update and tasks/cancel.
func checkAck(t *testing.T, reply map[string]any) {
	t.Helper()
	r := result(t, reply)
	diff(t, "complete", r["resultType"])
	for k := range r {
		if k != "resultType" && k != "_meta" {
			t.Errorf("ack carries %q: %v", k, r)
		}
	}
}

func textOf(t *testing.T, res map[string]any) string {
	t.Helper()
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		t.Fatalf("no content in %v", res)
	}
	return c[0].(map[string]any)["text"].(string)
}

func TestModernTaskLifecycle(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	cr := result(t, p.call(1, modernTaskCall(1, "tools/call", `"name":"slow"`, true)))
	diff(t, "task", cr["resultType"])
	diff(t, "working", cr["status"])
	diff(t, float64(time.Hour.Milliseconds()), cr["ttlMs"])
	diff(t, float64(1000), cr["pollIntervalMs"])
	for _, k := range []string{"ttl", "pollInterval", "task", "result", "error", "inputRequests", "requestState"} {
		if _, ok := cr[k]; ok {
			t.Errorf("CreateTaskResult carries %q", k)
		}
	}
	id := cr["taskId"].(string)
	// Creation is strongly consistent: tasks/get works at once.
	g := taskGet(p, 2, id)
	diff(t, "complete", g["resultType"])
	diff(t, "working", g["status"])
	diff(t, cr["ttlMs"], g["ttlMs"])
	diff(t, cr["createdAt"], g["createdAt"])
	close(fx.release)
	waitDone(t, s, id)
	g = taskGet(p, 3, id)
	diff(t, "completed", g["status"])
	res := g["result"].(map[string]any)
	diff(t, "done", textOf(t, res))
	diff(t, "complete", res["resultType"])
	if meta, _ := res["_meta"].(map[string]any); meta[MetaRelatedTask] != nil {
		t.Errorf("inlined result carries related-task _meta: %v", res)
	}
	if dir := mcpschema.Dir(); dir != "" {
		sch, err := mcpschema.Load(dir, Revision20260728)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate("CallToolResult", rawJSON(res)); err != nil {
			t.Errorf("inlined result: %v", err)
		}
	}
	if _, ok := g["error"]; ok {
		t.Errorf("completed task carries error: %v", g)
	}
	// Acks: cancel of a finished task, update with a key never issued.
	checkAck(t, p.call(4, modernTaskCall(4, "tasks/cancel", `"taskId":"`+id+`"`, true)))
	checkAck(t, p.call(5, modernTaskCall(5, "tasks/update", `"taskId":"`+id+`","inputResponses":{"unknown-key":{"ignored":true}}`, true)))
	diff(t, "completed", taskGet(p, 6, id)["status"])
	// Methods this revision removed, and unknown ids.
	diff(t, float64(-32601), errCode(t, p.call(7, modernTaskCall(7, "tasks/result", `"taskId":"`+id+`"`, true))))
	diff(t, float64(-32601), errCode(t, p.call(8, modernTaskCall(8, "tasks/list", ``, true))))
	for i, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		diff(t, float64(-32602), errCode(t, p.call(10+i, modernTaskCall(10+i, m, `"taskId":"tasks-conformance-nonexistent-12345"`, true))))
	}
}

func TestModernTaskDispatch(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	next := 0
	call := func(params string, ext bool) map[string]any {
		next++
		return p.call(next, modernTaskCall(next, "tools/call", params, ext))
	}
	// Without the extension an optional tool runs synchronously; with it, as a task.
	r := result(t, call(`"name":"instant"`, false))
	diff(t, "complete", r["resultType"])
	diff(t, "instant", textOf(t, r))
	r = result(t, call(`"name":"instant"`, true))
	diff(t, "task", r["resultType"])
	waitDone(t, s, r["taskId"].(string))
	// The legacy task param is ignored; a forbidden tool is never a task.
	r = result(t, call(`"name":"greet","arguments":{"name":"sep-2663"},"task":{"ttl":60000,"pollInterval":100}`, true))
	diff(t, "Hello, sep-2663!", textOf(t, r))
	// A required tool without the extension: -32021 naming it.
	missing := map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: map[string]any{}}}}
	e := call(`"name":"fail"`, false)
	diff(t, float64(-32021), errCode(t, e))
	diff(t, missing, e["error"].(map[string]any)["data"])
	// A tool error completes the task (isError inside); a protocol error fails it.
	id := result(t, call(`"name":"fail"`, true))["taskId"].(string)
	waitDone(t, s, id)
	next++
	g := taskGet(p, next, id)
	diff(t, "completed", g["status"])
	diff(t, true, g["result"].(map[string]any)["isError"])
	id = result(t, call(`"name":"proto"`, true))["taskId"].(string)
	waitDone(t, s, id)
	next++
	g = taskGet(p, next, id)
	diff(t, "failed", g["status"])
	diff(t, map[string]any{"code": float64(-32050), "message": "protocol failure", "data": map[string]any{"why": "test"}}, g["error"])
	if _, ok := g["result"]; ok {
		t.Errorf("failed task carries a result: %v", g)
	}
	// Requests that do not declare the extension may not use tasks/*.
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		next++
		e := p.call(next, modernTaskCall(next, m, `"taskId":"`+id+`"`, false))
		diff(t, float64(-32021), errCode(t, e))
		diff(t, missing, e["error"].(map[string]any)["data"])
	}
	// The two eras' tasks are separate.
	p.initialize(Revision20251125)
	next++
	legacy := taskIDOf(t, result(t, p.call(next, legacyCall(next, "tools/call", `"name":"instant","task":{}`))))
	next++
	diff(t, float64(-32602), errCode(t, p.call(next, modernTaskCall(next, "tasks/get", `"taskId":"`+legacy+`"`, true))))
	next++
	diff(t, float64(-32602), errCode(t, p.call(next, legacyCall(next, "tasks/get", `"taskId":"`+id+`"`))))
}

func TestModernTaskCancel(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	id := result(t, p.call(1, modernTaskCall(1, "tools/call", `"name":"slow"`, true)))["taskId"].(string)
	checkAck(t, p.call(2, modernTaskCall(2, "tasks/cancel", `"taskId":"`+id+`"`, true)))
	diff(t, "cancelled", taskGet(p, 3, id)["status"])
	diff(t, "slow", recv(t, fx.cancelled))
	g := taskGet(p, 4, id)
	diff(t, "cancelled", g["status"])
	for _, k := range []string{"result", "error", "inputRequests"} {
		if _, ok := g[k]; ok {
			t.Errorf("cancelled task carries %q", k)
		}
	}
}

func TestModernTaskInput(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	next := 1
	id := result(t, p.call(1, modernTaskCall(1, "tools/call", `"name":"confirm"`, true)))["taskId"].(string)
	g := pollStatus(p, &next, id, "input_required")
	reqs := g["inputRequests"].(map[string]any)
	if len(reqs) != 1 {
		t.Fatalf("inputRequests = %v", reqs)
	}
	var key string
	for k, v := range reqs {
		key = k
		diff(t, "elicitation/create", v.(map[string]any)["method"])
		diff(t, "Delete the file?", v.(map[string]any)["params"].(map[string]any)["message"])
	}
	update := func(answers string) {
		next++
		checkAck(t, p.call(next, modernTaskCall(next, "tasks/update", `"taskId":"`+id+`","inputResponses":`+answers, true)))
	}
	// An answer that does not fit the question leaves it outstanding.
	update(`{"` + key + `":{"action":"maybe"}}`)
	next++
	diff(t, reqs, taskGet(p, next, id)["inputRequests"])
	update(`{"` + key + `":{"action":"accept","content":{"confirm":true}}}`)
	waitDone(t, s, id)
	next++
	g = taskGet(p, next, id)
	diff(t, "completed", g["status"])
	diff(t, "deleted", textOf(t, g["result"].(map[string]any)))

	// Two questions: answering one leaves only the other, at once.
	next++
	id = result(t, p.call(next, modernTaskCall(next, "tools/call", `"name":"multi"`, true)))["taskId"].(string)
	g = pollStatus(p, &next, id, "input_required")
	diff(t, []string{"color", "name"}, keysOf(g["inputRequests"].(map[string]any)))
	update(`{"name":{"action":"accept","content":{"name":"Alice"}}}`)
	next++
	g = taskGet(p, next, id)
	diff(t, "input_required", g["status"])
	diff(t, []string{"color"}, keysOf(g["inputRequests"].(map[string]any)))
	update(`{"color":{"action":"accept","content":{"color":"blue"}}}`)
	waitDone(t, s, id)
	next++
	diff(t, "Alice likes blue", textOf(t, taskGet(p, next, id)["result"].(map[string]any)))
}

func TestModernMRTRThenTask(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	p := taskRawPeer(t, s)
	r1 := result(t, p.call(1, modernTaskCall(1, "tools/call", `"name":"mrtr_then_task"`, true)))
	diff(t, "input_required", r1["resultType"])
	if _, ok := r1["taskId"]; ok {
		t.Errorf("the input round carries a taskId: %v", r1)
	}
	diff(t, []string{"elicitation-1"}, keysOf(r1["inputRequests"].(map[string]any)))
	state := r1["requestState"].(string)
	r2 := result(t, p.call(2, modernTaskCall(2, "tools/call",
		`"name":"mrtr_then_task","inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+state+`"`, true)))
	diff(t, "task", r2["resultType"])
	diff(t, "working", r2["status"])
	id := r2["taskId"].(string)
	waitDone(t, s, id)
	g := taskGet(p, 3, id)
	diff(t, "completed", g["status"])
	diff(t, "Hello, Alice!", textOf(t, g["result"].(map[string]any)))
	// Without the extension a required tool refuses before asking anything.
	diff(t, float64(-32021), errCode(t, p.call(4, modernTaskCall(4, "tools/call", `"name":"mrtr_then_task"`, false))))
}

func TestModernTaskClient(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, &TaskOptions{PollInterval: time.Millisecond,
		Defer: func(ctx context.Context, req *CallToolRequest) bool { return req.Params.Name == "mrtr_then_task" }})
	cs, _ := taskClient(t, s, &ClientOptions{ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
		switch req.Params.Message {
		case "Delete the file?":
			return &ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		case "Your name?":
			return &ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
		}
		return &ElicitResult{Action: "decline"}, nil
	}})
	ctx := testCtx(t)
	if cs.DiscoverResult().Capabilities.Extensions[ExtensionTasks] == nil {
		t.Fatal("discover does not declare the tasks extension")
	}
	resultOf := func(name string) (*CallToolResult, error) {
		t.Helper()
		tk, res, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: name}, time.Minute)
		if err != nil {
			return nil, err
		}
		if tk == nil {
			return res, errors.New("not a task")
		}
		if tk.TTL != time.Hour || tk.PollInterval != time.Millisecond || tk.Status != TaskWorking {
			t.Errorf("%s: task %+v", name, tk)
		}
		return cs.TaskResult(ctx, tk.ID)
	}
	for name, want := range map[string]string{"confirm": "deleted", "instant": "instant", "mrtr_then_task": "Hello, Alice!"} {
		res, err := resultOf(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		diff(t, want, res.Content[0].(*TextContent).Text)
	}
	// A plain call does not declare the extension and is answered synchronously.
	res, err := cs.CallTool(ctx, &CallToolParams{Name: "instant"})
	if err != nil || res.Content[0].(*TextContent).Text != "instant" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	// ... and a required tool then needs it.
	var je *jsonrpc.Error
	if _, err := cs.CallTool(ctx, &CallToolParams{Name: "fail"}); !errors.As(err, &je) || je.Code != CodeMissingRequiredClientCapability {
		t.Errorf("CallTool(fail) = %v", err)
	}
	// The server may answer a task request synchronously.
	tk, res, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Bo"}`)}, 0)
	if err != nil || tk != nil || res.Content[0].(*TextContent).Text != "Hello, Bo!" {
		t.Fatalf("greet as task = %v, %v, %v", tk, res, err)
	}
	if _, err := resultOf("proto"); !errors.As(err, &je) || je.Code != -32050 {
		t.Errorf("proto: %v", err)
	}
	res, err = resultOf("fail")
	if err != nil || !res.IsError {
		t.Errorf("fail: %v, %v", res, err)
	}
	tk, _, err = cs.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := cs.CancelTask(ctx, tk.ID); c != nil || err != nil {
		t.Fatalf("CancelTask = %v, %v", c, err)
	}
	if _, err := cs.TaskResult(ctx, tk.ID); !errors.Is(err, ErrTaskCancelled) {
		t.Errorf("TaskResult of a cancelled task: %v", err)
	}
	if _, err := cs.ListTasks(ctx, ""); err == nil {
		t.Error("ListTasks works under 2026-07-28")
	}
	res, err = cs.CallTool(ctx, &CallToolParams{Name: "starter"})
	if err != nil || res.Content[0].(*TextContent).Text != "true" {
		t.Errorf("StartTask outside a task-capable call: %v, %v", res, err)
	}
}

// TestModernTasksOutliveSessions: a 2026-07-28 task is not bound to the connection
// that created it; Server.Close ends it.
func TestModernTasksOutliveSessions(t *testing.T) {
	fx := newTaskFixture()
	s := taskTestServer(fx, nil)
	cs, ss := taskClient(t, s, nil)
	ctx := testCtx(t)
	tk, _, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0)
	if err != nil || tk == nil {
		t.Fatalf("CallToolAsTask = %v, %v", tk, err)
	}
	cs.Close()
	ss.Wait()
	other, _ := taskClient(t, s, nil)
	got, err := other.GetTask(ctx, tk.ID)
	if err != nil || got.Status != TaskWorking {
		t.Fatalf("GetTask from another connection = %+v, %v", got, err)
	}
	s.Close()
	diff(t, "slow", recv(t, fx.cancelled))
	got, err = other.GetTask(ctx, tk.ID)
	if err != nil || got.Status != TaskCancelled {
		t.Fatalf("after Close: %+v, %v", got, err)
	}
	if _, _, err := other.CallToolAsTask(ctx, &CallToolParams{Name: "slow"}, 0); err == nil {
		t.Error("a task was created after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestTaskTTL runs on a fake clock: tasks stay readable for their ttl, then the
// janitor deletes them (cancelling those still running), and a requested ttl is
// capped by MaxTTL.
func TestTaskTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := newTaskFixture()
		s := taskTestServer(fx, &TaskOptions{DefaultTTL: time.Second, MaxTTL: time.Minute})
		ctx := context.Background()
		a, b := memory.NewPair()
		ss, err := s.Connect(ctx, &taskBypass{Transport: mcpschema.CheckServer(t, a), raw: a, t: t})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolVersion: Revision20251125}).Connect(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		start := func(name string, ttl time.Duration) *Task {
			tk, _, err := cs.CallToolAsTask(ctx, &CallToolParams{Name: name}, ttl)
			if err != nil || tk == nil {
				t.Fatalf("CallToolAsTask(%s) = %v, %v", name, tk, err)
			}
			return tk
		}
		running := start("slow", 0)
		diff(t, time.Second, running.TTL)
		finished := start("instant", 0)
		if _, err := cs.TaskResult(ctx, finished.ID); err != nil {
			t.Fatal(err)
		}
		capped := start("slow", time.Hour)
		diff(t, time.Minute, capped.TTL)

		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		for _, id := range []string{running.ID, finished.ID} {
			if _, err := cs.GetTask(ctx, id); err != nil {
				t.Fatalf("task gone before its ttl: %v", err)
			}
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		var je *jsonrpc.Error
		for _, id := range []string{running.ID, finished.ID} {
			if _, err := cs.GetTask(ctx, id); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("GetTask after the ttl = %v, want -32602", err)
			}
		}
		diff(t, "slow", recv(t, fx.cancelled))
		if got, err := cs.GetTask(ctx, capped.ID); err != nil || got.Status != TaskWorking {
			t.Errorf("capped task = %+v, %v", got, err)
		}
		s.Close()
		diff(t, "slow", recv(t, fx.cancelled))
		cs.Close()
		ss.Close()
	})
}
