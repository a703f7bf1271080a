package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The wire side of tasks: how a tools/call becomes a task, and the tasks/* methods
// of both revisions.

// taskWireV1 is a Task as 2025-11-25 writes it.
type taskWireV1 struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	TTL           *int64     `json:"ttl"` // null: unlimited (never sent by this server)
	PollInterval  *int64     `json:"pollInterval,omitempty"`
}

// taskWireV2 is a Task, CreateTaskResult or DetailedTask as 2026-07-28 writes it.
type taskWireV2 struct {
	ResultType     string                      `json:"resultType,omitempty"`
	TaskID         string                      `json:"taskId"`
	Status         TaskStatus                  `json:"status"`
	StatusMessage  string                      `json:"statusMessage,omitempty"`
	CreatedAt      string                      `json:"createdAt"`
	LastUpdatedAt  string                      `json:"lastUpdatedAt"`
	TTLMs          *int64                      `json:"ttlMs"`
	PollIntervalMs *int64                      `json:"pollIntervalMs,omitempty"`
	InputRequests  map[string]inputRequestWire `json:"inputRequests,omitempty"`
	Result         json.RawMessage             `json:"result,omitempty"`
	Error          *jsonrpc.Error              `json:"error,omitempty"`
}

// isoTime formats a timestamp as ISO 8601 (UTC, milliseconds).
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func millis(d time.Duration) *int64 {
	ms := d.Milliseconds()
	return &ms
}

func (t *task) wireV1Locked() *taskWireV1 {
	return &taskWireV1{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: isoTime(t.created),
		LastUpdatedAt: isoTime(t.updated), TTL: millis(t.ttl), PollInterval: millis(t.st.opts.PollInterval)}
}

// wireV2Locked returns the 2026-07-28 shape; detailed adds the status's outcome part.
func (t *task) wireV2Locked(detailed bool) *taskWireV2 {
	w := &taskWireV2{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: isoTime(t.created),
		LastUpdatedAt: isoTime(t.updated), TTLMs: millis(t.ttl), PollIntervalMs: millis(t.st.opts.PollInterval)}
	if !detailed {
		return w
	}
	switch t.status {
	case TaskInputRequired:
		w.InputRequests = make(map[string]inputRequestWire, len(t.inputs))
		for k, in := range t.inputs {
			w.InputRequests[k] = inputRequestWire{Method: in.req.Method, Params: in.prepared}
		}
	case TaskCompleted:
		w.Result = t.result
	case TaskFailed:
		w.Error = t.err
		if w.Error == nil {
			w.Error = jsonrpc.Errorf(jsonrpc.CodeInternalError, "task failed")
		}
	}
	return w
}

// createResult is the answer to the request that created t.
func (t *task) createResult() any {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	if t.modern {
		// 2026-07-28: flat, resultType "task".
		w := t.wireV2Locked(false)
		w.ResultType = "task"
		return w
	}
	return map[string]any{"task": t.wireV1Locked()}
}

func taskSupportOf(t *Tool) string {
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return TaskSupportForbidden
	}
	return t.Execution.TaskSupport
}

// declaresTasks reports whether a request's capabilities declare the 2026-07-28
// tasks extension.
func declaresTasks(c *ClientCapabilities) bool {
	return c != nil && c.Extensions != nil && c.Extensions[ExtensionTasks] != nil
}

// tasksExtensionCapability is what -32021 names as missing.
func tasksExtensionCapability() *ClientCapabilities {
	return &ClientCapabilities{Extensions: map[string]any{ExtensionTasks: map[string]any{}}}
}

// callTool is tools/call on a server with tasks. The rules:
//
//   - 2025-11-25: the client decides. A call with params.task to a tool whose
//     taskSupport is optional or required becomes a task; params.task on a forbidden
//     tool, or its absence on a required one, is -32601. Earlier revisions have no
//     tasks (params.task is ignored).
//   - 2026-07-28: the server decides. A call to an optional or required tool whose
//     request declares the tasks extension becomes a task (before its handler runs,
//     or when the handler calls StartTask if TaskOptions.Defer says so); without the
//     declaration an optional tool runs normally and a required one is -32021. The
//     legacy params.task is ignored.
func (st *taskStore) callTool(ctx context.Context, ss *ServerSession, ri *requestInfo, stool *serverTool, p *CallToolParams) (any, error) {
	support := taskSupportOf(stool.tool)
	capable := support == TaskSupportOptional || support == TaskSupportRequired
	run := func(ctx context.Context) (any, error) { return runTool(ctx, ss, ri.rev, stool, p) }
	if !ri.rev.stateless {
		if !ri.rev.tasks {
			return run(ctx)
		}
		switch {
		case p.Task == nil && support == TaskSupportRequired:
			return nil, methodNotFound("tool %q must be called as a task (taskSupport %q): add params.task", p.Name, support)
		case p.Task != nil && !capable:
			return nil, methodNotFound("tool %q cannot be called as a task (taskSupport %q)", p.Name, support)
		case p.Task == nil:
			return run(ctx)
		}
		// The task outlives the request: its context keeps the session's values, and
		// its messages travel on the GET stream or a waiting tasks/result stream.
		return st.createAndLaunch(ss.ctx, ss, ri, p.Task.TTL, run)
	}
	// A legacy params.task is neither an opt-in nor an error under 2026-07-28.
	p.Task = nil
	if !capable {
		return run(ctx)
	}
	if !declaresTasks(ri.clientCaps) {
		if support == TaskSupportRequired {
			return nil, MissingClientCapabilityError(tasksExtensionCapability())
		}
		return run(ctx)
	}
	if d := st.opts.Defer; d != nil && d(ctx, &CallToolRequest{Session: ss, Params: p}) {
		return st.runDeferred(ctx, ss, ri, run)
	}
	return st.createAndLaunch(context.WithoutCancel(ctx), ss, ri, nil, run)
}

func (st *taskStore) createAndLaunch(base context.Context, ss *ServerSession, ri *requestInfo, ttlMs *int64, run func(context.Context) (any, error)) (any, error) {
	t, err := st.create(ss, ri.rev, ttlMs)
	if err != nil {
		return nil, err
	}
	// The answer is taken before the handler starts, so it always says "working".
	res := t.createResult()
	if err := st.launch(t, base, ss, ri, run); err != nil {
		st.discard(t)
		return nil, err
	}
	return res, nil
}

// ---- 2025-11-25 methods ----

type taskIDParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitempty"`
}

func serverTasks(ss *ServerSession) (*taskStore, error) {
	if ss.server.tasks == nil {
		return nil, methodNotFound("tasks are not supported by this server")
	}
	return ss.server.tasks, nil
}

// taskFromParams finds the task named by params.taskId. A related-task _meta in the
// params is ignored in favour of taskId, as the specification requires.
func taskFromParams(ss *ServerSession, ri *requestInfo) (*taskStore, *task, error) {
	st, err := serverTasks(ss)
	if err != nil {
		return nil, nil, err
	}
	var p taskIDParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, nil, err
	}
	if p.TaskID == "" {
		return nil, nil, invalidParams("%s: taskId is required", ri.req.Method)
	}
	t, err := st.lookup(ss, ri.rev.stateless, p.TaskID)
	return st, t, err
}

func handleTaskGet(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, t, err := taskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return t.wireV1Locked(), nil
}

// handleTaskResult blocks until the task is terminal and answers with its outcome:
// the tool's result, or the JSON-RPC error, tagged with the related-task _meta.
func handleTaskResult(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, t, err := taskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	w := taskWaiter{ss: ss, req: ri.req}
	st.mu.Lock()
	t.waiters = append(t.waiters, w)
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		if i := slices.Index(t.waiters, w); i >= 0 {
			t.waiters = slices.Delete(t.waiters, i, i+1)
		}
		st.mu.Unlock()
	}()
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st.mu.Lock()
	raw, terr := t.result, t.err
	st.mu.Unlock()
	related := map[string]string{"taskId": t.id}
	switch {
	case raw != nil:
		return addMeta(raw, MetaRelatedTask, related), nil
	case terr != nil:
		return nil, errorWithMeta(terr, related)
	}
	// SPEC NOTE: the specification gives no outcome for a cancelled task; we answer
	// -32603 naming the cancellation.
	return nil, errorWithMeta(jsonrpc.Errorf(jsonrpc.CodeInternalError, "task %s was cancelled", t.id), related)
}

// errorWithMeta copies e with data._meta[related-task] added. JSON-RPC errors have no
// _meta of their own, so it goes into data (when data is absent or an object).
func errorWithMeta(e *jsonrpc.Error, related map[string]string) *jsonrpc.Error {
	c := *e
	if len(c.Data) == 0 || c.Data[0] == '{' {
		var base any = map[string]any{}
		if len(c.Data) > 0 {
			base = c.Data
		}
		c.Data = addMeta(base, MetaRelatedTask, related)
	}
	return &c
}

type listTasksWire struct {
	Tasks      []*taskWireV1 `json:"tasks"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// handleTaskList lists the tasks of this session (nothing on a stateless connection,
// which has no identity to bind tasks to), oldest first.
func handleTaskList(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, err := serverTasks(ss)
	if err != nil {
		return nil, err
	}
	var p PaginatedParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	key := func(t *task) string { return fmt.Sprintf("%020d.%s", t.created.UnixNano(), t.id) }
	st.mu.Lock()
	var mine []*task
	for _, t := range st.tasks {
		if t.owner == ss && !t.modern {
			mine = append(mine, t)
		}
	}
	st.mu.Unlock()
	slices.SortFunc(mine, func(a, b *task) int { return cmpString(key(a), key(b)) })
	page, next, err := paginate("tasks/list", mine, key, p.Cursor, ss.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &listTasksWire{Tasks: make([]*taskWireV1, len(page)), NextCursor: next}
	st.mu.Lock()
	for i, t := range page {
		res.Tasks[i] = t.wireV1Locked()
	}
	st.mu.Unlock()
	return res, nil
}

// handleTaskCancel cancels a live task (its status is cancelled before the reply) and
// answers with it; a terminal task is -32602.
func handleTaskCancel(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, t, err := taskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	if !st.cancelTask(t) {
		st.mu.Lock()
		status := t.status
		st.mu.Unlock()
		return nil, invalidParams("task %s is already %s and cannot be cancelled", t.id, status)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return t.wireV1Locked(), nil
}

// ---- 2026-07-28 methods (extension io.modelcontextprotocol/tasks) ----

// modernTaskFromParams checks the request's declaration of the extension (-32021
// without it) and finds the task.
func modernTaskFromParams(ss *ServerSession, ri *requestInfo) (*taskStore, *task, error) {
	if !declaresTasks(ri.clientCaps) {
		return nil, nil, MissingClientCapabilityError(tasksExtensionCapability())
	}
	return taskFromParams(ss, ri)
}

func handleModernTaskGet(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, t, err := modernTaskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return t.wireV2Locked(true), nil // resultType "complete" is added on the way out
}

// handleModernTaskUpdate hands inputResponses to the task's outstanding input
// requests and acknowledges with an empty result.
func handleModernTaskUpdate(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	_, t, err := modernTaskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	t.answer(p.InputResponses)
	return emptyResult{}, nil
}

// handleModernTaskCancel cancels the task if it is still live and acknowledges with
// an empty result either way.
func handleModernTaskCancel(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	st, t, err := modernTaskFromParams(ss, ri)
	if err != nil {
		return nil, err
	}
	st.cancelTask(t)
	return emptyResult{}, nil
}
