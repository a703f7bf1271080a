package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// ---- messages a task sends ----

// taskOf returns the task the request of ctx runs as.
func taskOf(ctx context.Context) *task {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.task.Load()
	}
	return nil
}

// call sends a server-to-client request on behalf of a 2025-11-25 task: it carries
// the related-task _meta, the task is input_required while it is outstanding, and it
// travels on the stream of a tasks/result call waiting on the task when there is one.
func (t *task) call(ctx context.Context, ss *ServerSession, method string, params, result any) error {
	params = addMeta(params, MetaRelatedTask, map[string]string{"taskId": t.id})
	asks := method != "ping"
	if asks {
		t.st.mu.Lock()
		t.asking++
		changed := t.st.setStatusLocked(t, TaskInputRequired)
		t.st.mu.Unlock()
		if changed {
			t.st.changed(t)
		}
		defer func() {
			t.st.mu.Lock()
			t.asking--
			changed := t.asking == 0 && t.st.setStatusLocked(t, TaskWorking)
			t.st.mu.Unlock()
			if changed {
				t.st.changed(t)
			}
		}()
	}
	return callCancellable(t.route(ctx, ss), ss.conn, method, params, result)
}

// route returns ctx, carrying as "the request being handled" the newest tasks/result
// call on ss waiting for the task, so that Streamable HTTP sends the message on its
// stream (otherwise on the session's GET stream).
func (t *task) route(ctx context.Context, ss *ServerSession) context.Context {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	for i := len(t.waiters) - 1; i >= 0; i-- {
		if t.waiters[i].ss == ss {
			return jsonrpc.WithRequest(ctx, t.waiters[i].req)
		}
	}
	return ctx
}

// notifyFor sends a notification about the request of ctx: as it is, or, for a
// 2025-11-25 task, with the related-task _meta and routed like task.call. Tasks of
// 2026-07-28 send no notifications (progress and logging are not supported there).
func (ss *ServerSession) notifyFor(ctx context.Context, method string, params any) error {
	if t := taskOf(ctx); t != nil {
		if t.modern {
			return nil
		}
		params = addMeta(params, MetaRelatedTask, map[string]string{"taskId": t.id})
		ctx = t.route(ctx, ss)
	}
	return ss.conn.Notify(ctx, method, params)
}

// addMeta returns params (a JSON object) with _meta[key] = value added.
func addMeta(params any, key string, value any) json.RawMessage {
	m := map[string]json.RawMessage{}
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[key] = rawJSON(value)
	m["_meta"] = rawJSON(meta)
	return rawJSON(m)
}

// awaitInput is Input inside a 2026-07-28 task: the requests become the task's
// outstanding inputRequests (status input_required) and Input blocks until
// tasks/update has answered all of them, or the task ends.
func (t *task) awaitInput(ctx context.Context, keys []string, reqs map[string]InputRequest, prepared map[string]any) (*InputResults, error) {
	st := t.st
	w := &inputWait{remaining: len(keys), answers: map[string]json.RawMessage{}, done: make(chan struct{})}
	if len(keys) == 0 {
		return &InputResults{raw: w.answers}, nil
	}
	wire := make([]string, 0, len(keys))
	st.mu.Lock()
	if t.status.Terminal() {
		st.mu.Unlock()
		return nil, context.Canceled
	}
	for _, k := range keys {
		// Keys are never reused over a task's life: a repeated one gets a suffix.
		wk := k
		for n := 2; t.used[wk]; n++ {
			wk = fmt.Sprintf("%s-%d", k, n)
		}
		t.used[wk] = true
		t.inputs[wk] = &taskInput{key: k, req: reqs[k], prepared: prepared[k], wait: w}
		wire = append(wire, wk)
	}
	st.setStatusLocked(t, TaskInputRequired)
	st.mu.Unlock()
	select {
	case <-w.done:
		return &InputResults{raw: w.answers}, nil
	case <-ctx.Done():
		st.mu.Lock()
		for _, wk := range wire {
			delete(t.inputs, wk)
		}
		if len(t.inputs) == 0 {
			st.setStatusLocked(t, TaskWorking)
		}
		st.mu.Unlock()
		return nil, ctx.Err()
	}
}

// answer applies a tasks/update: answers to outstanding keys are checked and handed
// to the waiting Input calls; unknown, already answered and malformed ones are
// ignored (a malformed answer leaves its request outstanding).
func (t *task) answer(responses map[string]json.RawMessage) {
	st := t.st
	st.mu.Lock()
	defer st.mu.Unlock()
	for wk, raw := range responses {
		in := t.inputs[wk]
		if in == nil || checkInputAnswer(in.req, in.prepared, raw) != nil {
			continue
		}
		delete(t.inputs, wk)
		in.wait.answers[in.key] = raw
		if in.wait.remaining--; in.wait.remaining == 0 {
			close(in.wait.done)
		}
	}
	if len(t.inputs) == 0 && t.status == TaskInputRequired {
		st.setStatusLocked(t, TaskWorking)
	}
}
