package faultserver

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// Tasks in both forms: the experimental tasks of 2025-11-25 (capability
// tasks.requests.tools.call, params.task, tasks/get|result|cancel) and the
// 2026-07-28 extension io.modelcontextprotocol/tasks (a request declaring it
// may get a flat CreateTaskResult; tasks/get inlines the outcome;
// tasks/cancel is an empty ack). The tool task_job computes for up to
// maxTaskSeconds; its timer is the only thing a running task holds (no
// goroutine).

const (
	toolTaskJob    = "task_job"
	tasksExtension = "io.modelcontextprotocol/tasks"
	maxTaskSeconds = 3
	taskTTLMs      = 60000
	taskPollMs     = 100
)

// ftask is one task. Its fields are guarded by the store's mutex.
type ftask struct {
	id               string
	status           string
	created, updated time.Time
	result           map[string]any
	timer            *time.Timer
	done             chan struct{} // closed when the status becomes terminal
	reported         bool          // a terminal status was reported (fault tasks/lifecycle)
}

type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*ftask
}

var (
	storesMu sync.Mutex
	stores   = map[*Server]*taskStore{}
)

// taskStore returns the server's task store.
func (s *Server) taskStore() *taskStore {
	storesMu.Lock()
	defer storesMu.Unlock()
	ts := stores[s]
	if ts == nil {
		ts = &taskStore{tasks: map[string]*ftask{}}
		stores[s] = ts
	}
	return ts
}

func init() {
	Faults["tasks/lifecycle"] = "reports a finished task as working again on the next tasks/get"
	Faults["tasks/get-unknown"] = "answers tasks/get for unknown ids with -32603"
	Faults["tasks/cancel"] = "acknowledges tasks/cancel but lets the task run to completion"

	extraCaps = append(extraCaps, func(_ *Server, rev string, caps map[string]any) {
		switch rev {
		case modernRevision:
			ext, _ := caps["extensions"].(map[string]any)
			if ext == nil {
				ext = map[string]any{}
			}
			ext[tasksExtension] = map[string]any{}
			caps["extensions"] = ext
		case "2025-11-25":
			caps["tasks"] = map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		}
	})
	registerTool(toolTaskJob, extraTool{
		def: func(_ *Server, rev string) map[string]any {
			if rev < "2025-11-25" {
				return nil
			}
			t := map[string]any{"name": toolTaskJob, "description": "Computes for a few seconds; may run as a task.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"seconds": map[string]any{"type": "number", "minimum": 0, "maximum": maxTaskSeconds, "default": 0, "description": "How long to compute"}}}}
			if rev == "2025-11-25" {
				t["execution"] = map[string]any{"taskSupport": "optional"}
			}
			return t
		},
		call: (*Server).taskJob,
	})
	extraMethods["tasks/get"] = (*Server).taskGet
	extraMethods["tasks/result"] = (*Server).taskResult
	extraMethods["tasks/cancel"] = (*Server).taskCancel
}

// wantsTask reports whether a tools/call asks to run as a task.
func wantsTask(c *call) bool {
	if c.modern {
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(clientCaps(c)["extensions"], &ext)
		_, ok := ext[tasksExtension]
		return ok
	}
	return c.rev == "2025-11-25" && kind(c.in.params["task"]) == "object"
}

func jobResult(d time.Duration) map[string]any {
	return map[string]any{"content": []map[string]any{{"type": "text", "text": "Computed for " + d.String()}}}
}

// taskJob serves tools/call of task_job.
func (s *Server) taskJob(c *call, args map[string]json.RawMessage) reply {
	secs, err := strconv.ParseFloat(string(args["seconds"]), 64)
	if err != nil || secs < 0 {
		secs = 0
	}
	d := time.Duration(min(secs, maxTaskSeconds) * float64(time.Second))
	if !wantsTask(c) {
		if d == 0 {
			return s.toolResult(c, "Computed for 0s", nil, false)
		}
		res := s.result(c, jobResult(d))
		return reply{later: func() [][]byte {
			t := time.NewTimer(d)
			defer t.Stop()
			<-t.C
			return res.msgs
		}}
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	now := time.Now().UTC()
	t := &ftask{id: hex.EncodeToString(b), status: "working", created: now, updated: now, done: make(chan struct{})}
	ts := s.taskStore()
	ts.mu.Lock()
	ts.tasks[t.id] = t
	t.timer = time.AfterFunc(d, func() {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		if t.status == "working" {
			t.status, t.updated, t.result = "completed", time.Now().UTC(), jobResult(d)
			close(t.done)
		}
	})
	fields := taskFields(t, c.modern)
	ts.mu.Unlock()
	if c.modern {
		fields["resultType"] = "task"
		return s.result(c, fields)
	}
	return s.result(c, map[string]any{"task": fields})
}

// taskFields renders the Task fields of t for the era (caller holds the
// store's lock).
func taskFields(t *ftask, modern bool) map[string]any {
	f := map[string]any{"taskId": t.id, "status": t.status,
		"createdAt": t.created.Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.Format(time.RFC3339Nano)}
	if modern {
		f["ttlMs"], f["pollIntervalMs"] = taskTTLMs, taskPollMs
	} else {
		f["ttl"], f["pollInterval"] = taskTTLMs, taskPollMs
	}
	return f
}

// lookupTask applies the common rules of tasks/*: the 2026-07-28 extension
// must be declared, and the id must be known.
func (s *Server) lookupTask(c *call) (*ftask, *reply) {
	if c.modern && !wantsTask(c) {
		r := reply{msgs: [][]byte{errMsg(c.id(), -32021, "the tasks extension was not declared",
			map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}})}}
		return nil, &r
	}
	if !c.modern && c.rev != "2025-11-25" {
		r := c.errorf(-32601, "method not found: %s", c.in.method)
		return nil, &r
	}
	id, _ := str(c.in.params, "taskId")
	ts := s.taskStore()
	ts.mu.Lock()
	t := ts.tasks[id]
	ts.mu.Unlock()
	if t == nil {
		code := -32602
		if s.has("tasks/get-unknown") && c.in.method == "tasks/get" {
			code = -32603
		}
		r := c.errorf(code, "unknown task %q", id)
		return nil, &r
	}
	return t, nil
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func (s *Server) taskGet(c *call) reply {
	t, bad := s.lookupTask(c)
	if bad != nil {
		return *bad
	}
	ts := s.taskStore()
	ts.mu.Lock()
	f := taskFields(t, c.modern)
	if terminal(t.status) {
		if t.reported && s.has("tasks/lifecycle") {
			f["status"] = "working"
		}
		t.reported = true
	}
	if c.modern && t.status == "completed" && f["status"] == "completed" {
		f["result"] = t.result
	}
	ts.mu.Unlock()
	return s.result(c, f)
}

// taskResult serves the 2025-11-25 tasks/result: the outcome, once the task
// is terminal.
func (s *Server) taskResult(c *call) reply {
	if c.modern {
		return c.errorf(-32601, "method not found: tasks/result")
	}
	t, bad := s.lookupTask(c)
	if bad != nil {
		return *bad
	}
	ts := s.taskStore()
	outcome := func() [][]byte {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		if t.status != "completed" {
			return [][]byte{errMsg(c.id(), -32603, "task "+t.status, nil)}
		}
		res := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": t.id}}}
		for k, v := range t.result {
			res[k] = v
		}
		return [][]byte{resultMsg(c.id(), res)}
	}
	select {
	case <-t.done:
		return reply{msgs: outcome()}
	default:
	}
	return reply{later: func() [][]byte {
		limit := time.NewTimer(2 * maxTaskSeconds * time.Second)
		defer limit.Stop()
		select {
		case <-t.done:
		case <-limit.C:
		}
		return outcome()
	}}
}

func (s *Server) taskCancel(c *call) reply {
	t, bad := s.lookupTask(c)
	if bad != nil {
		return *bad
	}
	ts := s.taskStore()
	ts.mu.Lock()
	wasTerminal := terminal(t.status)
	if !wasTerminal && !s.has("tasks/cancel") {
		t.timer.Stop()
		t.status, t.updated = "cancelled", time.Now().UTC()
		close(t.done)
	}
	f := taskFields(t, false)
	ts.mu.Unlock()
	if c.modern {
		return s.result(c, map[string]any{})
	}
	if wasTerminal {
		return c.errorf(-32602, "task %s is already %s", t.id, t.status)
	}
	return s.result(c, f)
}
