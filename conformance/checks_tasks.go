package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Checks of tasks: the experimental tasks of 2025-11-25 (capability
// tasks.requests.tools.call, params.task, tasks/get, tasks/result,
// tasks/cancel; digest-2025-11-25 §10) and the 2026-07-28 extension
// io.modelcontextprotocol/tasks (flat CreateTaskResult, tasks/get carrying
// the outcome, tasks/cancel as an empty ack; digest-2026-07-28 §16).

// AreaTasks groups the task checks (both the 2025-11-25 experimental tasks
// and the 2026-07-28 extension).
const AreaTasks Area = "tasks"

const (
	tasksExtension = "io.modelcontextprotocol/tasks"
	// taskCandidates bounds how many tools the checks try to run as a task.
	taskCandidates = 3
	// maxTaskPolls bounds the tasks/get calls of one wait.
	maxTaskPolls = 300
	// taskUnknownID is an id no server issued.
	taskUnknownID = "tasks-conformance-nonexistent-12345"
)

// taskStatuses are the valid task states; the terminal ones map to true.
var taskStatuses = map[string]bool{"working": false, "input_required": false, "completed": true, "failed": true, "cancelled": true}

// taskTransitionOK reports whether a task may go from one status to
// another: working and input_required may go anywhere (or stay), terminal
// states never change.
func taskTransitionOK(from, to string) bool {
	if taskStatuses[from] {
		return from == to
	}
	return true
}

// needTasks stops the check unless the server declares tasks for tools/call
// in the era of the run.
func needTasks(c *C) {
	if c.Modern() {
		ext, _ := c.Caps().Obj("extensions")
		if _, ok := ext[tasksExtension]; !ok {
			c.NA("server/discover declares no capabilities.extensions[%q]", tasksExtension)
		}
		return
	}
	t, _ := c.Caps().Obj("tasks")
	reqs, _ := t.Obj("requests")
	tools, _ := reqs.Obj("tools")
	if _, ok := tools["call"]; !ok {
		c.NA("the server does not declare capabilities.tasks.requests.tools.call")
	}
}

// taskCaps declares the tasks extension (2026-07-28).
func taskCaps() map[string]any {
	return map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}
}

// taskRequest sends tasks/get, tasks/result or tasks/cancel for id; under
// 2026-07-28 it declares the extension and names the task in Mcp-Name.
func taskRequest(c *C, s *Session, method, id string) *Exchange {
	params := map[string]any{"taskId": id}
	if s.modern {
		return callWithCaps(c, s, method, params, taskCaps(), http.Header{"Mcp-Name": {headerSafe(id)}})
	}
	return c.Call(s, method, params)
}

// taskSupport returns a tool's execution.taskSupport ("" when absent).
func taskSupport(t Obj) string {
	ex, _ := t.Obj("execution")
	v, _ := ex.Str("taskSupport")
	return v
}

// taskTools lists the tools worth running as a task: slow_compute (the
// official fixture) first, then tools that declare task support (2025-11-25)
// or whose names suggest a job (2026-07-28, where tools no longer say).
func taskTools(c *C) []toolCall {
	var out []toolCall
	seen := map[string]bool{}
	add := func(tc toolCall) {
		if !seen[tc.name] && len(out) < taskCandidates {
			seen[tc.name] = true
			out = append(out, tc)
		}
	}
	tcs := c.callableTools()
	capable := func(tc toolCall) bool {
		sup := taskSupport(tc.tool)
		return c.Modern() || sup == "optional" || sup == "required"
	}
	for _, tc := range tcs {
		if tc.name == "slow_compute" && capable(tc) {
			add(tc)
		}
	}
	hints := []string{"slow", "compute", "job", "task", "long"}
	for _, tc := range preferTools(tcs, hints...) {
		sup := taskSupport(tc.tool)
		hinted := false
		for _, h := range hints {
			hinted = hinted || strings.Contains(strings.ToLower(tc.name), h)
		}
		if (!c.Modern() && (sup == "optional" || sup == "required")) || (c.Modern() && hinted) {
			add(tc)
		}
	}
	return out
}

// withDuration sets duration-like numeric arguments (seconds, duration,
// delay, …) to secs, within the schema's bounds.
func withDuration(tc toolCall, secs float64) toolCall {
	var sch map[string]any
	_ = json.Unmarshal(tc.tool["inputSchema"], &sch)
	props, _ := sch["properties"].(map[string]any)
	args := map[string]any{}
	for k, v := range tc.args {
		args[k] = v
	}
	for name, raw := range props {
		p, _ := raw.(map[string]any)
		typ := schemaType(p)
		if typ != "number" && typ != "integer" {
			continue
		}
		n := strings.ToLower(name)
		if !(strings.Contains(n, "second") || strings.Contains(n, "duration") || strings.Contains(n, "delay") || strings.Contains(n, "sleep") || strings.Contains(n, "wait")) {
			continue
		}
		v := secs
		if ma, ok := p["maximum"].(float64); ok && v > ma {
			v = ma
		}
		if mi, ok := p["minimum"].(float64); ok && v < mi {
			v = mi
		}
		if typ == "integer" {
			args[name] = int64(v)
		} else {
			args[name] = v
		}
	}
	tc.args = args
	return tc
}

// taskInfo is what the checks keep of a task.
type taskInfo struct {
	id     string
	status string
	poll   time.Duration
}

// checkTaskFields validates the Task fields of t for the era and returns
// them.
func checkTaskFields(c *C, what string, t Obj) taskInfo {
	var ti taskInfo
	var ok bool
	if ti.id, ok = t.Str("taskId"); !ok || ti.id == "" {
		c.Fatalf("%s: taskId is %s, want a non-empty string", what, orAbsent(t["taskId"]))
	}
	ti.status, _ = t.Str("status")
	if _, known := taskStatuses[ti.status]; !known {
		c.Failf("%s: status is %s, not a task status", what, orAbsent(t["status"]))
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		v, ok := t.Str(k)
		if _, err := time.Parse(time.RFC3339Nano, v); !ok || err != nil {
			c.Failf("%s: %s is %s, want an ISO 8601 date-time", what, k, orAbsent(t[k]))
		}
	}
	ttl, poll := "ttl", "pollInterval"
	if c.Modern() {
		ttl, poll = "ttlMs", "pollIntervalMs"
		for _, k := range []string{"ttl", "pollInterval"} {
			if _, ok := t[k]; ok {
				c.Failf("%s: carries the 2025-11-25 field %q (2026-07-28 uses %sMs)", what, k, k)
			}
		}
	}
	switch raw, ok := t[ttl]; {
	case !ok:
		c.Failf("%s: %s is missing (a number of milliseconds or null)", what, ttl)
	case jsonKind(raw) == "null":
	case c.Modern() && !isJSONInteger(raw), !c.Modern() && jsonKind(raw) != "number":
		c.Failf("%s: %s is %s, want a number of milliseconds or null", what, ttl, short(raw))
	}
	ti.poll = 100 * time.Millisecond
	if raw, ok := t[poll]; ok {
		var ms float64
		if jsonKind(raw) != "number" || json.Unmarshal(raw, &ms) != nil || c.Modern() && !isJSONInteger(raw) {
			c.Failf("%s: %s is %s, want a number of milliseconds", what, poll, short(raw))
		} else {
			ti.poll = time.Duration(ms * float64(time.Millisecond))
		}
	}
	ti.poll = min(max(ti.poll, 20*time.Millisecond), time.Second)
	return ti
}

// createTask calls the candidates until one becomes a task and returns it
// with the tool used; it stops the check as not applicable when none does.
func createTask(c *C, s *Session, secs float64) (taskInfo, toolCall) {
	return createTaskFrom(c, s, taskTools(c), secs)
}

// createTaskFrom is createTask over the given candidates.
func createTaskFrom(c *C, s *Session, cands []toolCall, secs float64) (taskInfo, toolCall) {
	if len(cands) == 0 {
		c.NA("no callable tool can run as a task (no slow_compute, no tool with taskSupport)")
	}
	for _, tc := range cands {
		tc = withDuration(tc, secs)
		what := "tools/call " + tc.name + " as a task"
		var ex *Exchange
		if c.Modern() {
			ex = callWithCaps(c, s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args}, taskCaps(), nil)
		} else {
			ex = c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args, "task": map[string]any{"ttl": 60000}})
		}
		r, err := resultOrErr(ex)
		if err != nil {
			c.Logf("%s: %v", what, err)
			continue
		}
		if c.Modern() {
			if rt, _ := r.Str("resultType"); rt != "task" {
				c.Logf("%s: the server answered synchronously (resultType %s)", what, orAbsent(r["resultType"]))
				continue
			}
			for _, k := range []string{"task", "result", "error", "inputRequests", "requestState"} {
				if _, ok := r[k]; ok {
					c.Failf("%s: CreateTaskResult carries %q (it is flat and holds no outcome)", what, k)
				}
			}
			return checkTaskFields(c, what, r), tc
		}
		t, ok := r.Obj("task")
		if !ok {
			c.Failf("%s: a task-augmented call to a tool with taskSupport %q got no CreateTaskResult: %s", what, taskSupport(tc.tool), short(ex.Response.Raw))
			continue
		}
		ti := checkTaskFields(c, what, t)
		if ti.status != "working" {
			c.Failf("%s: a new task has status %q, want \"working\"", what, ti.status)
		}
		return ti, tc
	}
	c.NA("none of %d candidate tools became a task", len(cands))
	return taskInfo{}, toolCall{}
}

// getTask polls once and returns the tasks/get result and the task.
func getTask(c *C, s *Session, id string) (Obj, taskInfo) {
	ex := taskRequest(c, s, "tasks/get", id)
	r, err := resultOrErr(ex)
	if err != nil {
		c.Fatalf("tasks/get %s: %v", id, err)
	}
	if c.Modern() {
		checkResultType(c, "tasks/get", r)
	}
	ti := checkTaskFields(c, "tasks/get", r)
	if ti.id != id {
		c.Failf("tasks/get %s answered for task %q", id, ti.id)
	}
	return r, ti
}

// pauseFor waits d (bounded by the run).
func pauseFor(c *C, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
		c.Fatalf("the run ended while waiting for a task")
	}
}

// waitTask polls tasks/get, honouring the poll interval, until the task is
// terminal or limit passes; it checks every transition and returns the last
// tasks/get result.
func waitTask(c *C, s *Session, ti taskInfo, limit time.Duration) (Obj, string) {
	deadline := time.Now().Add(limit)
	status := ti.status
	var last Obj
	for i := 0; i < maxTaskPolls && !taskStatuses[status]; i++ {
		if time.Now().After(deadline) {
			c.Fatalf("task %s still %q after %v", ti.id, status, limit)
		}
		pauseFor(c, ti.poll)
		r, got := getTask(c, s, ti.id)
		if !taskTransitionOK(status, got.status) {
			c.Failf("task %s went from %q to %q", ti.id, status, got.status)
		}
		if got.status == "input_required" {
			c.NA("task %s asks for input; the check needs a tool that runs unattended", ti.id)
		}
		status, last, ti.poll = got.status, r, got.poll
	}
	if !taskStatuses[status] {
		c.Fatalf("task %s still %q after %d polls", ti.id, status, maxTaskPolls)
	}
	if last == nil {
		last, _ = getTask(c, s, ti.id)
	}
	return last, status
}

func init() {
	tasks := func(ch *Check) *Check { ch.Area, ch.Since = AreaTasks, Rev20251125; return ch }
	register(
		tasks(&Check{ID: "tasks/lifecycle", Severity: MUST,
			Requirement: "A task-capable tool run as a task returns a well-formed CreateTaskResult; tasks/get moves only along legal transitions to a terminal status that never changes; the outcome is delivered (tasks/result in 2025-11-25, inlined in tasks/get in 2026-07-28)",
			Run: func(c *C) {
				needTasks(c)
				s := c.Session()
				ti, tc := createTask(c, s, 1)
				last, status := waitTask(c, s, ti, 2*time.Second+3*c.timeout())
				if _, again := getTask(c, s, ti.id); again.status != status {
					c.Failf("task %s was %q and then %q: terminal states never change", ti.id, status, again.status)
				}
				if c.Modern() {
					_, hasRes := last["result"]
					_, hasErr := last["error"]
					switch status {
					case "completed":
						if res, ok := last.Obj("result"); !ok {
							c.Failf("tasks/get of a completed task inlines no result object: %s", short(mustJSON(last)))
						} else {
							checkCallResult(c, tc.name, res)
						}
						if hasErr {
							c.Failf("tasks/get of a completed task carries an error")
						}
					case "failed":
						e, ok := last.Obj("error")
						if _, isInt := e["code"]; !ok || !isInt || !isJSONInteger(e["code"]) {
							c.Failf("tasks/get of a failed task has no error {code, message}: %s", short(mustJSON(last)))
						}
						if hasRes {
							c.Failf("tasks/get of a failed task carries a result")
						}
					}
					return
				}
				if status != "completed" {
					return
				}
				ex := taskRequest(c, s, "tasks/result", ti.id)
				r, err := resultOrErr(ex)
				if err != nil {
					c.Fatalf("tasks/result of completed task %s: %v", ti.id, err)
				}
				checkCallResult(c, tc.name, r)
				meta, _ := r.Obj("_meta")
				rel, _ := meta.Obj("io.modelcontextprotocol/related-task")
				if id, _ := rel.Str("taskId"); id != ti.id {
					c.Failf("tasks/result lacks _meta[\"io.modelcontextprotocol/related-task\"].taskId = %q: %s", ti.id, orAbsent(meta["io.modelcontextprotocol/related-task"]))
				}
			}}),
		tasks(&Check{ID: "tasks/get-unknown", Severity: MUST,
			Requirement: "tasks/get for a task id the server never issued is a JSON-RPC error -32602",
			Run: func(c *C) {
				needTasks(c)
				s := c.Session()
				ex := taskRequest(c, s, "tasks/get", taskUnknownID)
				c.expectError("tasks/get of an unknown id", ex.Response, -32602)
			}}),
		tasks(&Check{ID: "tasks/cancel", Severity: MUST,
			Requirement: "tasks/cancel of a running task is acknowledged (2025-11-25: the task, already cancelled; 2026-07-28: an empty result) and the task settles in a terminal status within seconds",
			Run: func(c *C) {
				needTasks(c)
				if !c.Modern() {
					t, _ := c.Caps().Obj("tasks")
					if _, ok := t["cancel"]; !ok {
						c.NA("the server does not declare capabilities.tasks.cancel")
					}
				}
				s := c.Session()
				cands := taskTools(c)
				if c.Modern() {
					// Whether a call becomes a task is the server's choice per
					// call: find the tool with a short run first, so that a long
					// one is never asked of a tool that would answer it
					// synchronously.
					_, tc := createTaskFrom(c, s, cands, 1)
					cands = []toolCall{tc}
				}
				ti, _ := createTaskFrom(c, s, cands, 60)
				if taskStatuses[ti.status] {
					c.NA("task %s was already %q when created; nothing to cancel", ti.id, ti.status)
				}
				ex := taskRequest(c, s, "tasks/cancel", ti.id)
				r, err := resultOrErr(ex)
				if err != nil {
					c.Fatalf("tasks/cancel of running task %s: %v", ti.id, err)
				}
				if c.Modern() {
					checkResultType(c, "tasks/cancel", r)
					for _, k := range []string{"taskId", "status", "result", "error", "inputRequests"} {
						if _, ok := r[k]; ok {
							c.Failf("tasks/cancel: the acknowledgement carries %q (want an empty result)", k)
						}
					}
					_, status := waitTask(c, s, ti, min(10*time.Second, 3*c.timeout()))
					if status != "cancelled" {
						c.Logf("task %s ended %q after tasks/cancel (cancellation is cooperative)", ti.id, status)
					}
					return
				}
				got := checkTaskFields(c, "tasks/cancel", r)
				if got.status != "cancelled" {
					c.Fatalf("tasks/cancel answered status %q; the task must be cancelled before the reply", got.status)
				}
				if _, now := getTask(c, s, ti.id); now.status != "cancelled" {
					c.Failf("tasks/get after tasks/cancel says %q, want \"cancelled\"", now.status)
				}
				ex = taskRequest(c, s, "tasks/cancel", ti.id)
				c.expectError(fmt.Sprintf("tasks/cancel of the already cancelled task %s", ti.id), ex.Response, -32602)
			}}),
	)
}
