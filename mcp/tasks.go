package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Tasks: a tools/call that runs in the background while the client polls for it.
// Two incompatible wire forms exist and one server serves both:
//
//   - 2025-11-25 (experimental, core): the client asks with params.task; the server
//     declares capabilities.tasks and offers tasks/get, tasks/result, tasks/list and
//     tasks/cancel, plus notifications/tasks/status.
//   - 2026-07-28 (extension io.modelcontextprotocol/tasks): a request that declares
//     the extension may be answered with a task, at the server's choice; tasks/get
//     (carrying the outcome), tasks/update (answers to input requests) and
//     tasks/cancel.
//
// The store is per Server. A task of the 2025-11-25 form created on a session is
// bound to that session (only it can see, list or cancel the task, and the task is
// cancelled when the session ends). Tasks of the 2026-07-28 form, and those created
// over stateless connections, are bound to nothing: there is no authorization
// context in this package, so their ids (128 random bits) are bearer handles.

// TaskStatus is the state of a task. A task starts "working"; completed, failed and
// cancelled are terminal and never change.
type TaskStatus string

// Task states.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is completed, failed or cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Values of ToolExecution.TaskSupport.
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// ExtensionTasks identifies the 2026-07-28 tasks extension in capabilities.extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// MetaRelatedTask is the _meta key that ties a 2025-11-25 message to a task.
const MetaRelatedTask = "io.modelcontextprotocol/related-task"

// TTLUnlimited is Task.TTL for a task kept until deleted (a null ttl on the wire).
const TTLUnlimited time.Duration = -1

// ErrTaskUnavailable is returned by StartTask when the request being handled cannot
// become a task: it is not a tools/call, the server has no TaskOptions, the tool's
// taskSupport is forbidden, the request did not declare the tasks extension, or the
// handler already returned.
var ErrTaskUnavailable = errors.New("mcp: this request cannot run as a task")

// ErrTaskCancelled is returned by ClientSession.TaskResult for a cancelled task.
var ErrTaskCancelled = errors.New("mcp: task cancelled")

// TaskOptions turns tasks on for a Server (ServerOptions.Tasks). The zero value is
// usable.
type TaskOptions struct {
	// MaxConcurrent bounds the tasks that are not yet terminal, over all sessions; a
	// call that would create one more fails with -32603. Zero means 64.
	MaxConcurrent int
	// DefaultTTL is how long a task is kept, counted from its creation, when the
	// client asked for nothing (always, under 2026-07-28). Zero means one hour.
	DefaultTTL time.Duration
	// MaxTTL caps the TTL a 2025-11-25 client may ask for. Zero means 24 hours.
	// Every task has a finite TTL: when it elapses the task is deleted (and, if
	// still running, cancelled and failed first).
	MaxTTL time.Duration
	// PollInterval is the interval suggested to clients. Zero means one second.
	PollInterval time.Duration
	// Defer, if set, is asked before the handler of a 2026-07-28 call that could
	// become a task runs. Returning true leaves the decision to the handler: the call
	// stays an ordinary request (it may run multi round-trip input rounds) until the
	// handler calls ServerSession.StartTask, and completes normally if it never does.
	// Nil, or false, makes the call a task before its handler runs.
	Defer func(ctx context.Context, req *CallToolRequest) bool
}

// Task is a client's view of a task (both wire forms).
type Task struct {
	ID            string
	Status        TaskStatus
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is how long the server keeps the task from creation (TTLUnlimited: no
	// limit).
	TTL time.Duration
	// PollInterval is the server's suggested polling interval (zero: none given).
	PollInterval time.Duration
	// The outcome parts of a 2026-07-28 tasks/get: the outstanding input requests
	// (input_required), the tool's result (completed) or the error (failed).
	InputRequests map[string]json.RawMessage
	Result        json.RawMessage
	Error         *jsonrpc.Error
}

// taskStore holds a server's tasks. All task state is guarded by mu.
//
// Goroutines: every tool handler running as a task (or waiting to be allowed to
// become one) runs in a goroutine the store starts and tracks in wg; Close cancels
// them and waits. The TTL janitor is a time.AfterFunc timer, so no goroutine lives
// while nothing is due; Close stops it.
type taskStore struct {
	s    *Server
	opts TaskOptions
	now  func() time.Time // time.Now; tests replace it

	mu      sync.Mutex
	tasks   map[string]*task
	running int // tasks not yet terminal
	closed  bool
	timer   *time.Timer // janitor, created on first use
	timerAt time.Time   // when it is due (zero: not armed)
	jobs    map[*taskJob]struct{}
	wg      sync.WaitGroup
}

// taskJob is one handler goroutine the store owns.
type taskJob struct{ cancel context.CancelFunc }

type task struct {
	id      string
	st      *taskStore
	owner   *ServerSession // nil: unbound
	modern  bool           // 2026-07-28 wire form
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc // the handler's context
	done    chan struct{}      // closed when terminal

	// guarded by st.mu
	status  TaskStatus
	message string
	updated time.Time
	result  json.RawMessage // the outcome in the task's wire form
	err     *jsonrpc.Error
	inputs  map[string]*taskInput // outstanding input requests (2026-07-28), by wire key
	used    map[string]bool       // every input key ever issued (2026-07-28)
	asking  int                   // server-to-client requests in flight (2025-11-25)
	waiters []taskWaiter          // tasks/result calls blocked on the task (2025-11-25)

	sendMu   sync.Mutex // serialises status notifications
	lastSent string     // status+time of the last one; guarded by sendMu
}

type taskWaiter struct {
	ss  *ServerSession
	req *jsonrpc.Request
}

// taskInput is one outstanding input request of a 2026-07-28 task.
type taskInput struct {
	key      string // the handler's key
	req      InputRequest
	prepared any
	wait     *inputWait
}

// inputWait is one Input call waiting inside a task.
type inputWait struct {
	remaining int
	answers   map[string]json.RawMessage // by the handler's key
	done      chan struct{}
}

func newTaskStore(s *Server, o TaskOptions) *taskStore {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 64
	}
	if o.DefaultTTL <= 0 {
		o.DefaultTTL = time.Hour
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = 24 * time.Hour
	}
	if o.DefaultTTL > o.MaxTTL {
		o.DefaultTTL = o.MaxTTL
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	return &taskStore{s: s, opts: o, now: time.Now, tasks: map[string]*task{}, jobs: map[*taskJob]struct{}{}}
}

func newTaskID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("mcp: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// create registers a new working task. ttlMs is what a 2025-11-25 client asked for.
func (st *taskStore) create(ss *ServerSession, rev *revision, ttlMs *int64) (*task, error) {
	ttl := st.opts.DefaultTTL
	if ttlMs != nil && *ttlMs > 0 {
		ttl = min(time.Duration(*ttlMs)*time.Millisecond, st.opts.MaxTTL)
	}
	now := st.now()
	t := &task{id: newTaskID(), st: st, modern: rev.stateless, created: now, ttl: ttl,
		done: make(chan struct{}), status: TaskWorking, updated: now}
	if !rev.stateless && !ss.stateless {
		t.owner = ss
	}
	if t.modern {
		t.inputs, t.used = map[string]*taskInput{}, map[string]bool{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the server is shutting down: no new tasks")
	}
	if st.running >= st.opts.MaxConcurrent {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "too many tasks running (limit %d); try again later", st.opts.MaxConcurrent)
	}
	st.tasks[t.id] = t
	st.running++
	st.scheduleLocked(now.Add(ttl))
	return t, nil
}

// discard removes a task that was never announced to the client.
func (st *taskStore) discard(t *task) {
	st.mu.Lock()
	if _, ok := st.tasks[t.id]; ok && !t.status.Terminal() {
		st.running--
		t.status = TaskCancelled
		close(t.done)
	}
	delete(st.tasks, t.id)
	st.mu.Unlock()
}

// startJob runs f in a goroutine the store owns; cancel must make f return.
func (st *taskStore) startJob(cancel context.CancelFunc, f func()) error {
	j := &taskJob{cancel: cancel}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "the server is shutting down: no new tasks")
	}
	st.jobs[j] = struct{}{}
	st.wg.Add(1)
	st.mu.Unlock()
	go func() {
		defer func() {
			st.mu.Lock()
			delete(st.jobs, j)
			st.mu.Unlock()
			st.wg.Done()
		}()
		f()
	}()
	return nil
}

// close cancels every task and handler goroutine, stops the janitor and waits for
// the goroutines to end.
func (st *taskStore) close() {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		st.wg.Wait()
		return
	}
	st.closed = true
	if st.timer != nil {
		st.timer.Stop()
	}
	var changed []*task
	for _, t := range st.tasks {
		if st.terminateLocked(t, TaskCancelled, "the server shut down", nil, nil) {
			changed = append(changed, t)
		}
	}
	var cancels []context.CancelFunc
	for j := range st.jobs {
		cancels = append(cancels, j.cancel)
	}
	st.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	for _, t := range changed {
		t.cancelHandler()
	}
	st.wg.Wait()
}

// setCancel records the cancel function of the task's handler; a task cancelled
// before its handler started has it called at once.
func (t *task) setCancel(c context.CancelFunc) {
	t.st.mu.Lock()
	t.cancel = c
	term := t.status.Terminal()
	t.st.mu.Unlock()
	if term {
		c()
	}
}

func (t *task) cancelHandler() {
	t.st.mu.Lock()
	c := t.cancel
	t.st.mu.Unlock()
	if c != nil {
		c()
	}
}

// terminateLocked moves t to a terminal status; false when it already was. st.mu is
// held.
func (st *taskStore) terminateLocked(t *task, status TaskStatus, msg string, result json.RawMessage, err *jsonrpc.Error) bool {
	if t.status.Terminal() {
		return false
	}
	t.status, t.message, t.result, t.err = status, msg, result, err
	t.updated = st.now()
	st.running--
	for k := range t.inputs {
		delete(t.inputs, k)
	}
	close(t.done)
	return true
}

// setStatusLocked changes a live task's status; false when nothing changed.
func (st *taskStore) setStatusLocked(t *task, s TaskStatus) bool {
	if t.status.Terminal() || t.status == s {
		return false
	}
	t.status, t.message, t.updated = s, "", st.now()
	return true
}

// finish records the outcome of a task's handler (ignored when the task was
// cancelled meanwhile).
func (st *taskStore) finish(t *task, res any, err error) {
	var raw json.RawMessage
	var je *jsonrpc.Error
	status := TaskCompleted
	if err != nil {
		je = jsonrpc.AsError(err)
		status = TaskFailed
	} else {
		var v any = res
		if t.modern {
			// The inlined result is what the request would have returned: a
			// complete 2026-07-28 result.
			m, cerr := st.s.completeResult("tools/call", res)
			if cerr != nil {
				je, status = jsonrpc.AsError(cerr), TaskFailed
			}
			v = m
		} else if r, ok := res.(*CallToolResult); ok && r.IsError {
			status = TaskFailed // 2025-11-25: a tool error fails the task
		}
		if je == nil {
			b, merr := json.Marshal(v)
			if merr != nil {
				je, status = jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the result: %v", merr), TaskFailed
			}
			raw = b
		}
	}
	if je != nil {
		raw = nil
	}
	st.mu.Lock()
	changed := st.terminateLocked(t, status, "", raw, je)
	st.mu.Unlock()
	if changed {
		st.changed(t)
	}
}

// cancelTask cancels a live task; false when it was already terminal.
func (st *taskStore) cancelTask(t *task) bool {
	st.mu.Lock()
	ok := st.terminateLocked(t, TaskCancelled, "cancelled by the client", nil, nil)
	st.mu.Unlock()
	if ok {
		t.cancelHandler()
		st.changed(t)
	}
	return ok
}

// lookup finds a task visible to a request of the given era on ss.
func (st *taskStore) lookup(ss *ServerSession, modern bool, id string) (*task, error) {
	st.mu.Lock()
	t := st.tasks[id]
	st.mu.Unlock()
	if t == nil || t.modern != modern || (t.owner != nil && t.owner != ss) {
		// Tasks of other sessions are reported exactly like unknown ones.
		return nil, invalidParams("unknown or expired task %q", id)
	}
	return t, nil
}

// sessionEnded drops the tasks bound to ss: nobody else can reach them.
func (st *taskStore) sessionEnded(ss *ServerSession) {
	st.mu.Lock()
	var ended []*task
	for id, t := range st.tasks {
		if t.owner == ss {
			st.terminateLocked(t, TaskCancelled, "the session ended", nil, nil)
			delete(st.tasks, id)
			ended = append(ended, t)
		}
	}
	st.mu.Unlock()
	for _, t := range ended {
		t.cancelHandler()
	}
}

// scheduleLocked arms the janitor for at, unless it is due earlier.
func (st *taskStore) scheduleLocked(at time.Time) {
	if st.closed || (!st.timerAt.IsZero() && !at.Before(st.timerAt)) {
		return
	}
	st.timerAt = at
	d := at.Sub(st.now())
	if st.timer == nil {
		st.timer = time.AfterFunc(d, st.sweep)
	} else {
		st.timer.Reset(d)
	}
}

// sweep deletes the tasks whose TTL has elapsed (failing those still running) and
// re-arms the janitor for the next one.
func (st *taskStore) sweep() {
	now := st.now()
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return
	}
	st.timerAt = time.Time{}
	var expired []*task
	var next time.Time
	for id, t := range st.tasks {
		exp := t.created.Add(t.ttl)
		if now.Before(exp) {
			if next.IsZero() || exp.Before(next) {
				next = exp
			}
			continue
		}
		if st.terminateLocked(t, TaskFailed, "the task's ttl elapsed", nil,
			jsonrpc.Errorf(jsonrpc.CodeInternalError, "task %s expired before it finished", t.id)) {
			expired = append(expired, t)
		}
		delete(st.tasks, id)
	}
	if !next.IsZero() {
		st.scheduleLocked(next)
	}
	st.mu.Unlock()
	for _, t := range expired {
		t.cancelHandler()
		st.changed(t)
	}
}

// changed sends notifications/tasks/status to the session that owns a 2025-11-25
// task. Notifications of one task go out one at a time, newest state last.
func (st *taskStore) changed(t *task) {
	if t.modern || t.owner == nil {
		return
	}
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	st.mu.Lock()
	w := t.wireV1Locked()
	st.mu.Unlock()
	key := string(w.Status) + w.LastUpdatedAt
	if key == t.lastSent {
		return
	}
	t.lastSent = key
	// SPEC NOTE: status notifications carry no related-task _meta (the spec says they
	// SHOULD NOT: the taskId is in the params).
	if err := t.owner.notify(t.owner.ctx, "notifications/tasks/status", w); err != nil {
		st.s.log.Debug("task status notification failed", "task", t.id, "err", err)
	}
}

func (t *task) terminal() bool {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.status.Terminal()
}

// ---- running handlers as tasks ----

// launch runs a tool handler as task t. base gives the values of the handler's
// context; ri is the request the task was created from.
func (st *taskStore) launch(t *task, base context.Context, ss *ServerSession, ri *requestInfo, run func(ctx context.Context) (any, error)) error {
	tri := &requestInfo{ss: ss, req: ri.req, rev: ri.rev, clientCaps: ri.clientCaps, modernLogging: ri.rev.stateless}
	if !t.modern {
		// 2025-11-25: progress keeps the original token until the task ends.
		tri.progressToken, tri.logLevel = ri.progressToken, ri.logLevel
	}
	tri.task.Store(t)
	ctx, cancel := context.WithCancel(context.WithValue(base, requestInfoKey{}, tri))
	t.setCancel(cancel)
	return st.startJob(cancel, func() {
		defer cancel()
		res, err := st.guard(ss, func() (any, error) { return run(ctx) })
		st.finish(t, res, err)
		tri.done.Store(true)
	})
}

// guard runs f, turning a panic into an internal error.
func (st *taskStore) guard(ss *ServerSession, f func() (any, error)) (res any, err error) {
	defer func() {
		if v := recover(); v != nil {
			st.s.log.Error("mcp: tool handler panic in a task", "panic", v, "stack", string(debug.Stack()))
			res, err = nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
		}
	}()
	return f()
}

// deferredStart lets a 2026-07-28 handler turn its call into a task (StartTask).
type deferredStart struct {
	st       *taskStore
	ss       *ServerSession
	ri       *requestInfo
	cancel   context.CancelFunc // the handler's context
	detach   func() bool        // stops the request's cancellation reaching the handler
	started  chan any           // receives the CreateTaskResult once created (buffered)
	mu       sync.Mutex
	task     *task
	finished bool // the handler returned before starting a task
}

type callOutcome struct {
	res any
	err error
}

// runDeferred runs a handler that may call StartTask: the request waits for either
// its outcome or the task it started.
func (st *taskStore) runDeferred(ctx context.Context, ss *ServerSession, ri *requestInfo, run func(ctx context.Context) (any, error)) (any, error) {
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ds := &deferredStart{st: st, ss: ss, ri: ri, cancel: cancel, started: make(chan any, 1)}
	ds.detach = context.AfterFunc(ctx, cancel)
	ri.starter = ds
	out := make(chan callOutcome, 1)
	err := st.startJob(cancel, func() {
		defer cancel()
		res, err := st.guard(ss, func() (any, error) { return run(hctx) })
		ds.mu.Lock()
		t := ds.task
		ds.finished = true
		ds.mu.Unlock()
		if t != nil {
			st.finish(t, res, err)
			return
		}
		out <- callOutcome{res, err}
	})
	if err != nil {
		ds.detach()
		cancel()
		return nil, err
	}
	select {
	case o := <-out:
		ds.detach()
		return o.res, o.err
	case res := <-ds.started:
		return res, nil
	}
}

func (ds *deferredStart) start() error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.task != nil {
		return nil
	}
	if ds.finished {
		return ErrTaskUnavailable
	}
	t, err := ds.st.create(ds.ss, ds.ri.rev, nil)
	if err != nil {
		return err
	}
	if !ds.detach() {
		// The request ended (the client went away) before the task could be
		// announced.
		ds.st.discard(t)
		return context.Canceled
	}
	t.setCancel(ds.cancel)
	if ds.ri.mrtr != nil {
		ds.ri.mrtr.pending = nil // input asked for before the task does not hold the reply back
	}
	ds.ri.task.Store(t)
	ds.task = t
	ds.started <- t.createResult() // taken now: the handler runs on at once
	return nil
}

// StartTask turns the tools/call being handled into a task: the client is answered
// at once with the task, and the handler goes on running in the background, its
// return value becoming the task's outcome. It is how a handler run under
// TaskOptions.Defer (2026-07-28) goes asynchronous, typically after it has gathered
// its input through multi round-trip rounds; from then on Input, Elicit and friends
// wait for the client's tasks/update instead. Call it from the handler's goroutine,
// with the handler's ctx.
//
// It returns nil when the call is (now, or already) a task, an error wrapping
// ErrTaskUnavailable when it cannot become one (the handler may then finish
// synchronously), and a *jsonrpc.Error when the server's task limit is reached.
func (ss *ServerSession) StartTask(ctx context.Context) error {
	ri := requestInfoFrom(ctx)
	if ri == nil {
		return ErrTaskUnavailable
	}
	if ri.task.Load() != nil {
		return nil
	}
	if ri.starter == nil {
		return fmt.Errorf("%w (not a task-capable tools/call, or the client did not declare %s)", ErrTaskUnavailable, ExtensionTasks)
	}
	return ri.starter.start()
}

// TaskID returns the id of the task the handler of ctx runs as, if it does.
func (ss *ServerSession) TaskID(ctx context.Context) (string, bool) {
	if ri := requestInfoFrom(ctx); ri != nil {
		if t := ri.task.Load(); t != nil {
			return t.id, true
		}
	}
	return "", false
}
