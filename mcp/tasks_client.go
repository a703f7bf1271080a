package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The client side of tasks. The same methods work in both eras; where a method
// exists in one revision only, it says so and fails in the other.

// taskAcceptKey marks a context whose 2026-07-28 request declares the tasks extension
// (and so accepts a task for an answer).
type taskAcceptKey struct{}

func withTaskAcceptance(ctx context.Context) context.Context {
	return context.WithValue(ctx, taskAcceptKey{}, true)
}

func acceptsTask(ctx context.Context) bool { return ctx.Value(taskAcceptKey{}) != nil }

// requestMetaFor is requestMeta, declaring the tasks extension when ctx asks for it.
func (cs *ClientSession) requestMetaFor(ctx context.Context) map[string]any {
	m := cs.requestMeta()
	if acceptsTask(ctx) {
		caps := *m[MetaClientCapabilities].(*ClientCapabilities)
		ext := make(map[string]any, len(caps.Extensions)+1)
		maps.Copy(ext, caps.Extensions)
		ext[ExtensionTasks] = map[string]any{}
		caps.Extensions = ext
		m[MetaClientCapabilities] = &caps
	}
	return m
}

// metaJSONFor is metaJSON, declaring the tasks extension when ctx asks for it.
func (cs *ClientSession) metaJSONFor(ctx context.Context) []byte {
	if acceptsTask(ctx) {
		return rawJSON(cs.requestMetaFor(ctx))
	}
	return cs.metaJSON()
}

// taskWire is a task in any of the shapes servers send.
type taskWire struct {
	TaskID         string                     `json:"taskId"`
	Status         TaskStatus                 `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTL            json.RawMessage            `json:"ttl"`
	TTLMs          json.RawMessage            `json:"ttlMs"`
	PollInterval   *float64                   `json:"pollInterval"`
	PollIntervalMs *float64                   `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage            `json:"result"`
	Error          *jsonrpc.Error             `json:"error"`
}

func decodeTask(raw json.RawMessage) (*Task, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("mcp: decoding a task: %w", err)
	}
	if w.TaskID == "" || w.Status == "" {
		return nil, errors.New("mcp: decoding a task: taskId and status are required")
	}
	t := &Task{ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage, TTL: TTLUnlimited,
		InputRequests: w.InputRequests, Result: w.Result, Error: w.Error}
	t.CreatedAt, _ = time.Parse(time.RFC3339Nano, w.CreatedAt)
	t.LastUpdatedAt, _ = time.Parse(time.RFC3339Nano, w.LastUpdatedAt)
	ttl := w.TTL
	if ttl == nil {
		ttl = w.TTLMs
	}
	var ms float64
	if len(ttl) > 0 && json.Unmarshal(ttl, &ms) == nil && string(ttl) != "null" {
		t.TTL = time.Duration(ms * float64(time.Millisecond))
	}
	poll := w.PollInterval
	if poll == nil {
		poll = w.PollIntervalMs
	}
	if poll != nil && *poll > 0 {
		t.PollInterval = time.Duration(*poll * float64(time.Millisecond))
	}
	return t, nil
}

// mayAugment reports whether a 2025-11-25 tools/call of name may carry params.task:
// the server declared tasks.requests.tools.call and the tool, when it was listed,
// has taskSupport optional or required.
func (cs *ClientSession) mayAugment(name string) bool {
	var c struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	if json.Unmarshal(cs.init.Capabilities.Tasks, &c) != nil || len(c.Requests.Tools.Call) == 0 {
		return false
	}
	cs.mu.Lock()
	support, listed := cs.taskSupport[name]
	cs.mu.Unlock()
	return !listed || support == TaskSupportOptional || support == TaskSupportRequired
}

// CallToolAsTask calls a tool asking for it to run as a task. It returns the task
// when the server created one, or — when the server answered at once, as it may —
// nil and the result.
//
// Under 2025-11-25 the call carries params.task (with ttl, when positive, as the
// requested time to keep the task), unless the server did not declare task support
// for tools/call or the tool was listed as not supporting tasks: the call is then an
// ordinary one. Under 2026-07-28 the request declares the tasks extension and the
// server decides; ttl is not used (the server picks it).
func (cs *ClientSession) CallToolAsTask(ctx context.Context, p *CallToolParams, ttl time.Duration) (*Task, *CallToolResult, error) {
	if err := cs.need("tools", cs.init.Capabilities.Tools != nil); err != nil {
		return nil, nil, err
	}
	q := *p
	q.Task = nil
	var raw json.RawMessage
	if cs.modern != nil {
		if err := cs.call(withTaskAcceptance(ctx), "tools/call", &q, &raw); err != nil {
			return nil, nil, err
		}
	} else {
		if cs.mayAugment(p.Name) {
			q.Task = &TaskParams{}
			if ttl > 0 {
				ms := ttl.Milliseconds()
				q.Task.TTL = &ms
			}
		}
		if err := cs.call(ctx, "tools/call", &q, &raw); err != nil {
			return nil, nil, err
		}
	}
	var head struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, fmt.Errorf("mcp: tools/call: %w", err)
	}
	switch {
	case head.ResultType == "task":
		t, err := decodeTask(raw)
		return t, nil, err
	case cs.modern == nil && q.Task != nil && len(head.Task) > 0 && string(head.Task) != "null":
		t, err := decodeTask(head.Task)
		return t, nil, err
	}
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, fmt.Errorf("mcp: tools/call: decoding the result: %w", err)
	}
	return nil, &res, cs.checkStructured(p.Name, &res)
}

// taskCall makes one of the tasks/* requests about task id.
func (cs *ClientSession) taskCall(ctx context.Context, method string, params, result any) error {
	if cs.modern != nil {
		if err := cs.need("the tasks extension", cs.init.Capabilities.Extensions[ExtensionTasks] != nil); err != nil {
			return err
		}
		return cs.call(withTaskAcceptance(ctx), method, params, result)
	}
	if err := cs.need("tasks", len(cs.init.Capabilities.Tasks) > 0); err != nil {
		return err
	}
	return cs.call(ctx, method, params, result)
}

// GetTask returns the current state of a task (tasks/get). Under 2026-07-28 it also
// carries the outstanding input requests, the result or the error.
func (cs *ClientSession) GetTask(ctx context.Context, id string) (*Task, error) {
	var raw json.RawMessage
	if err := cs.taskCall(ctx, "tasks/get", &taskIDParams{TaskID: id}, &raw); err != nil {
		return nil, err
	}
	return decodeTask(raw)
}

// TaskResult returns the outcome of a tools/call task, waiting for it to end: the
// tool's result (IsError set for a tool failure), or the protocol error the call
// ended with (a *jsonrpc.Error). Under 2025-11-25 it is tasks/result, which blocks
// on the server; under 2026-07-28 it polls like WaitTask, and a cancelled task gives
// ErrTaskCancelled.
func (cs *ClientSession) TaskResult(ctx context.Context, id string) (*CallToolResult, error) {
	var raw json.RawMessage
	if cs.modern == nil {
		if err := cs.taskCall(ctx, "tasks/result", &taskIDParams{TaskID: id}, &raw); err != nil {
			return nil, err
		}
	} else {
		t, err := cs.WaitTask(ctx, id)
		if err != nil {
			return nil, err
		}
		switch {
		case t.Status == TaskCancelled:
			return nil, fmt.Errorf("%w: %s", ErrTaskCancelled, id)
		case t.Error != nil:
			return nil, t.Error
		case t.Result == nil:
			return nil, fmt.Errorf("mcp: task %s ended %s without a result", id, t.Status)
		}
		raw = t.Result
	}
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: task %s: decoding the result: %w", id, err)
	}
	return &res, nil
}

// CancelTask asks the server to cancel a task. Under 2025-11-25 the answer is the
// task, now cancelled (cancelling a finished task is an error); under 2026-07-28 it
// is a bare acknowledgement (nil task) and the cancellation takes effect eventually.
func (cs *ClientSession) CancelTask(ctx context.Context, id string) (*Task, error) {
	var raw json.RawMessage
	if err := cs.taskCall(ctx, "tasks/cancel", &taskIDParams{TaskID: id}, &raw); err != nil {
		return nil, err
	}
	if cs.modern != nil {
		return nil, nil
	}
	return decodeTask(raw)
}

// ListTasksResult is one page of tasks/list.
type ListTasksResult struct {
	Tasks      []*Task
	NextCursor string
}

// ListTasks returns one page of this session's tasks (tasks/list, 2025-11-25 only).
func (cs *ClientSession) ListTasks(ctx context.Context, cursor string) (*ListTasksResult, error) {
	if cs.modern != nil {
		return nil, fmt.Errorf("mcp: tasks/list does not exist in %s", cs.rev.name)
	}
	var w struct {
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := cs.taskCall(ctx, "tasks/list", &PaginatedParams{Cursor: cursor}, &w); err != nil {
		return nil, err
	}
	res := &ListTasksResult{NextCursor: w.NextCursor, Tasks: make([]*Task, 0, len(w.Tasks))}
	for _, raw := range w.Tasks {
		t, err := decodeTask(raw)
		if err != nil {
			return nil, err
		}
		res.Tasks = append(res.Tasks, t)
	}
	return res, nil
}

// UpdateTask answers input requests of a task (tasks/update, 2026-07-28 only):
// responses maps the keys of Task.InputRequests to the answers (an ElicitResult,
// CreateMessageResult or ListRootsResult as JSON).
func (cs *ClientSession) UpdateTask(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	if cs.modern == nil {
		return fmt.Errorf("mcp: tasks/update does not exist in %s", cs.rev.name)
	}
	params := &struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}{id, responses}
	var raw json.RawMessage
	return cs.taskCall(ctx, "tasks/update", params, &raw)
}

// defaultPollInterval is used when the server suggests none.
const defaultPollInterval = 500 * time.Millisecond

// WaitTask polls a task until it is terminal, honouring the server's poll interval,
// and returns its final state; it gives up when ctx ends. While the task needs
// input it is answered through the client's handlers (ElicitationHandler,
// SamplingHandler, Roots): under 2026-07-28 WaitTask answers the listed input
// requests with tasks/update (each key once); under 2025-11-25 it calls tasks/result,
// on whose stream the server sends its requests.
func (cs *ClientSession) WaitTask(ctx context.Context, id string) (*Task, error) {
	answered := map[string]bool{}
	for {
		t, err := cs.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Status.Terminal() {
			return t, nil
		}
		if t.Status == TaskInputRequired {
			if cs.modern != nil {
				responses := map[string]json.RawMessage{}
				for key, ir := range t.InputRequests {
					if answered[key] {
						continue
					}
					ans, err := cs.answerInput(ctx, ir)
					if err != nil {
						return t, fmt.Errorf("mcp: task %s: input %q: %w", id, key, err)
					}
					responses[key], answered[key] = ans, true
				}
				if len(responses) > 0 {
					if err := cs.UpdateTask(ctx, id, responses); err != nil {
						return t, err
					}
					continue
				}
			} else {
				var raw json.RawMessage
				err := cs.taskCall(ctx, "tasks/result", &taskIDParams{TaskID: id}, &raw)
				var je *jsonrpc.Error
				if err != nil && !errors.As(err, &je) {
					return t, err // an error outcome is the task's, read below
				}
				continue
			}
		}
		wait := t.PollInterval
		if wait <= 0 {
			wait = defaultPollInterval
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return t, ctx.Err()
		case <-timer.C:
		}
	}
}
