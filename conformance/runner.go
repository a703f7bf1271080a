package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// timeoutClose bounds the polite DELETE sent when a session ends.
const timeoutClose = 2 * time.Second

// maxPages bounds how many pages the suite follows in one list.
const maxPages = 1000

// revRun is one pass of the suite under one revision.
type revRun struct {
	target   Target
	opts     *Options
	mode     string // RevisionNegotiate, RevisionAll or "pin"
	asked    string // revision requested ("" when negotiating)
	revision string // revision in effect
	caps     Obj
	// unsupported, when set, explains why the server does not speak the
	// requested revision; checks become not applicable.
	unsupported string
	// broken, when set, means the run could not start; checks are not
	// testable.
	broken string
	schema *schemaSet
	// list cache
	lmu   sync.Mutex
	lists map[string][]Obj
	lerr  map[string]string
	// called collects the names of the tools the run called.
	cmu    sync.Mutex
	called map[string]bool
	// closing counts sessions being closed in the background (a stdio
	// server may take a moment to exit); wait ends with them.
	closing sync.WaitGroup
	// startErr is the error that made the run broken, when there was one.
	startErr error
}

// noteCall records that the suite called tool name.
func (r *revRun) noteCall(name string) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	if r.called == nil {
		r.called = map[string]bool{}
	}
	r.called[name] = true
}

// toolsCalled returns the server's tools the run called, sorted: names
// the server did not list (the unknown-tool probes, fixture triggers the
// server lacks) are left out.
func (r *revRun) toolsCalled() []string {
	listed := map[string]bool{}
	r.lmu.Lock()
	for _, t := range r.lists["tools/list"] {
		n, _ := t.Str("name")
		listed[n] = true
	}
	r.lmu.Unlock()
	r.cmu.Lock()
	defer r.cmu.Unlock()
	out := make([]string, 0, len(r.called))
	for n := range r.called {
		if listed[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// closeLater closes s in the background; wait waits for it.
func (r *revRun) closeLater(s *Session) {
	r.closing.Add(1)
	go func() {
		defer r.closing.Done()
		_ = s.Close()
	}()
}

// wait waits for the sessions still being closed.
func (r *revRun) wait() { r.closing.Wait() }

// dial opens a raw connection for the run's revision.
func (r *revRun) dial(ctx context.Context) (*Session, error) {
	s := &Session{kind: r.target.Kind(), revision: r.revision, modern: isModern(r.revision)}
	switch r.target.Kind() {
	case HTTP:
		s.conn = newHTTPConn(r.target.URL, r.opts.Headers)
	case SSE:
		cctx, cancel := context.WithTimeout(ctx, r.opts.timeout())
		defer cancel()
		c, err := dialSSE(cctx, r.target.SSEURL, r.opts.Headers)
		if err != nil {
			return nil, err
		}
		s.conn = c
	case Stdio:
		c, err := dialStdio(r.target)
		if err != nil {
			return nil, err
		}
		s.conn = c
	default:
		return nil, errors.New("no target")
	}
	return s, nil
}

// start probes the server: server/discover for 2026-07-28 (and when
// negotiating), initialize otherwise. It records capabilities.
func (r *revRun) start(ctx context.Context) {
	if r.opts.SchemaDir != "" {
		s, err := loadSchema(r.opts.SchemaDir, r.revision)
		if err != nil {
			r.broken = err.Error()
			return
		}
		r.schema = s
	}
	tr := r.target.Kind()
	if tr == SSE && isModern(r.revision) {
		r.unsupported = "the legacy HTTP+SSE transport does not carry 2026-07-28"
		return
	}
	tryModern := isModern(r.revision) || (r.mode == RevisionNegotiate && tr != SSE)
	if tryModern {
		caps, err := r.discover(ctx)
		if err == nil {
			r.revision, r.caps = Rev20260728, caps
			return
		}
		if isModern(r.revision) && r.mode != RevisionNegotiate {
			r.unsupported = fmt.Sprintf("server does not implement %s: %v", Rev20260728, err)
			return
		}
		r.revision = latestLegacy
	}
	s, err := r.dial(ctx)
	if err != nil {
		r.broken, r.startErr = fmt.Sprintf("connecting: %v", err), err
		return
	}
	defer r.closeLater(s)
	cctx, cancel := context.WithTimeout(ctx, r.opts.timeout())
	defer cancel()
	asked := s.revision
	if err := s.initialize(cctx, true); err != nil {
		r.broken, r.startErr = err.Error(), err
		if !strings.HasPrefix(r.broken, "initialize") {
			r.broken = "initialize: " + r.broken
		}
		if isTimeout(err) {
			r.broken = fmt.Sprintf("initialize: timed out after %s (try -timeout)", fmtDuration(r.opts.timeout()))
		}
		return
	}
	caps, _ := s.initRes.Obj("capabilities")
	r.caps = caps
	if s.revision != asked {
		if r.mode == RevisionNegotiate && knownRevision(s.revision) && !isModern(s.revision) {
			r.revision = s.revision
			return
		}
		r.unsupported = fmt.Sprintf("asked for %s, the server answered %q", asked, s.revision)
	}
}

// discover calls server/discover with the 2026-07-28 metadata.
func (r *revRun) discover(ctx context.Context) (Obj, error) {
	save := r.revision
	r.revision = Rev20260728
	s, err := r.dial(ctx)
	r.revision = save
	if err != nil {
		return nil, err
	}
	defer r.closeLater(s)
	cctx, cancel := context.WithTimeout(ctx, r.opts.timeout())
	defer cancel()
	ex, err := s.Call(cctx, "server/discover", map[string]any{})
	if err != nil {
		return nil, err
	}
	res, err := resultOrErr(ex)
	if err != nil {
		return nil, err
	}
	vs, _ := res.Arr("supportedVersions")
	found := false
	for _, v := range vs {
		if strings.Trim(string(v), `"`) == Rev20260728 {
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("supportedVersions %s lacks %s", short(res["supportedVersions"]), Rev20260728)
	}
	caps, ok := res.Obj("capabilities")
	if !ok {
		caps = Obj{}
	}
	return caps, nil
}

// list returns all items of a paginated list, fetched once per run.
func (r *revRun) list(c *C, method, key string) []Obj {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	if r.lists == nil {
		r.lists, r.lerr = map[string][]Obj{}, map[string]string{}
	}
	if e, ok := r.lerr[method]; ok {
		c.NotTestablef("%s", e)
	}
	if l, ok := r.lists[method]; ok {
		return l
	}
	items, err := r.fetchAll(c.ctx, method, key)
	if err != nil {
		r.lerr[method] = fmt.Sprintf("listing with %s: %v", method, err)
		c.NotTestablef("%s", r.lerr[method])
	}
	r.lists[method] = items
	return items
}

// listedToolSchema returns the inputSchema of tool name when the tools have
// been listed in this run (it never lists them itself).
func (r *revRun) listedToolSchema(name string) json.RawMessage {
	r.lmu.Lock() // a list being fetched holds it; its own requests never get here
	defer r.lmu.Unlock()
	for _, t := range r.lists["tools/list"] {
		if n, _ := t.Str("name"); n == name {
			return t["inputSchema"]
		}
	}
	return nil
}

func (r *revRun) fetchAll(ctx context.Context, method, key string) ([]Obj, error) {
	s, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	s.onCall = r.noteCall
	defer r.closeLater(s)
	cctx, cancel := context.WithTimeout(ctx, r.opts.timeout()*4)
	defer cancel()
	if !s.modern {
		if err := s.initialize(cctx, true); err != nil {
			return nil, err
		}
	}
	var out []Obj
	cursor := ""
	for page := 0; page < maxPages; page++ {
		params := map[string]any{}
		if page > 0 {
			params["cursor"] = cursor
		}
		ex, err := s.Call(cctx, method, params)
		if err != nil {
			return nil, err
		}
		res, err := resultOrErr(ex)
		if err != nil {
			return nil, err
		}
		arr, ok := res.Arr(key)
		if !ok {
			return nil, fmt.Errorf("result has no %q array", key)
		}
		items, err := objs(arr)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		next, ok := res.Str("nextCursor")
		if !ok {
			return out, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("more than %d pages", maxPages)
}

// exec runs one check and returns its result.
func (r *revRun) exec(ctx context.Context, ch *Check) CheckResult {
	res := CheckResult{ID: ch.ID, Requirement: ch.Requirement, Area: string(ch.Area), Severity: string(ch.Severity),
		Revision: r.revision, Transport: r.target.Kind().String()}
	if r.opts.Run != nil && !r.opts.Run.MatchString(ch.ID) {
		res.Outcome, res.Detail = Skipped, "not selected by -run"
		return res
	}
	if r.broken != "" && !ch.Standalone {
		res.Outcome, res.Detail = NotTestable, r.broken
		return res
	}
	if r.unsupported != "" && !(r.mode == "pin" && ch.ID == "lifecycle/initialize-echo") {
		res.Outcome, res.Detail = NotApplicable, r.unsupported
		return res
	}
	if !ch.AppliesTo(r.revision, r.target.Kind()) {
		res.Outcome = NotApplicable
		res.Detail = fmt.Sprintf("applies to %s over %s", revRange(ch.Since, ch.Until), transportsOf(ch))
		return res
	}
	if r.opts.Started != nil {
		r.opts.Started(r.revision, ch.ID)
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 6*r.opts.timeout()+30*time.Second)
	defer cancel()
	c := &C{ctx: cctx, run: r, check: ch}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.closeAll()
		ch.Run(c)
	}()
	<-done
	res.DurationMs = time.Since(start).Milliseconds()
	res.Evidence = append(c.failures, c.notes...)
	res.Exchange = c.exchange
	switch {
	case len(c.failures) > 0:
		res.Outcome, res.Detail = Fail, c.failures[0]
	case c.stop != "":
		res.Outcome, res.Detail = c.stop, c.reason
	default:
		res.Outcome = Pass
		if len(c.notes) > 0 {
			res.Detail = c.notes[0]
		}
	}
	return res
}

func revRange(since, until string) string {
	switch {
	case since == "" && until == "":
		return "every revision"
	case until == "":
		return since + " and later"
	case since == "":
		return "up to " + until
	case since == until:
		return since
	}
	return since + " to " + until
}

func transportsOf(ch *Check) string {
	if ch.Transports == 0 {
		return AllTransports.String()
	}
	return ch.Transports.String()
}

// plan returns the revision runs and the checks selected by opts.
func plan(target Target, opts *Options) ([]*revRun, []*Check, error) {
	if err := target.validate(); err != nil {
		return nil, nil, err
	}
	var checks []*Check
	for _, ch := range Checks() {
		if ch.Binding == "" {
			checks = append(checks, ch)
		}
	}
	for _, name := range opts.Bindings {
		b, ok := lookupBinding(name)
		if !ok {
			return nil, nil, fmt.Errorf("conformance: unknown binding %q (known: %s)", name, strings.Join(BindingNames(), ", "))
		}
		checks = append(checks, b.Checks()...)
	}
	sortChecks(checks)
	var runs []*revRun
	switch rev := opts.Revision; {
	case rev == "" || rev == RevisionNegotiate:
		runs = append(runs, &revRun{target: target, opts: opts, mode: RevisionNegotiate, revision: latestLegacy})
	case rev == RevisionAll:
		for _, v := range Revisions {
			runs = append(runs, &revRun{target: target, opts: opts, mode: RevisionAll, asked: v, revision: v})
		}
	case knownRevision(rev):
		runs = append(runs, &revRun{target: target, opts: opts, mode: "pin", asked: rev, revision: rev})
	default:
		return nil, nil, fmt.Errorf("conformance: unknown revision %q (want %s, %s or one of %s)", rev, RevisionNegotiate, RevisionAll, strings.Join(Revisions, ", "))
	}
	return runs, checks, nil
}

// execAll runs checks under r, up to opts.Parallel at a time and the Serial
// ones alone afterwards, and hands each result to done (from the goroutine
// that ran the check) with the check's index. It returns when all have
// finished, or as soon as ctx ends (checks not started are left out).
func (r *revRun) execAll(ctx context.Context, checks []*Check, done func(i int, cr CheckResult)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.opts.parallel())
	for i, ch := range checks {
		if ch.Serial {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			done(i, r.exec(ctx, ch))
		}()
	}
	wg.Wait()
	for i, ch := range checks {
		if !ch.Serial {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		done(i, r.exec(ctx, ch))
	}
}

// ErrUnreachable is returned (wrapped, with a Result) by CheckServer when
// the suite could not reach an MCP server at the target at all: a refused
// connection, a command that does not start, a process that exits before it
// answers, an HTTP reply without JSON-RPC in it (a wrong path), or no
// answer to initialize within Options.Timeout.
var ErrUnreachable = errors.New("conformance: target unreachable")

// unreachable reports whether a run failed to start because no MCP server
// could be reached at all (rather than one answering wrongly): a refused
// connection, a command that does not start or exits, an HTTP reply with no
// JSON-RPC in it (a wrong path), or nothing at all within the exchange limit.
func (r *revRun) unreachable() bool {
	if r.startErr == nil {
		return false
	}
	var ne *net.OpError
	var ee *exec.Error
	var pe *fs.PathError
	var ended errEnded
	var nj errNoJSONRPC
	return errors.As(r.startErr, &ne) || errors.As(r.startErr, &ee) || errors.As(r.startErr, &pe) || errors.As(r.startErr, &ended) ||
		errors.As(r.startErr, &nj) || isTimeout(r.startErr)
}

// CheckServer runs the suite against target and returns a structured result. The
// error is non-nil when the run could not be set up (bad target or
// options: no Result), when the target could not be reached (an error
// wrapping ErrUnreachable, with the Result) or when ctx ended (ctx.Err(),
// with the Result so far); failing checks are reported in the Result.
func CheckServer(ctx context.Context, target Target, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	runs, checks, err := plan(target, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: target.String(), Transport: target.Kind().String(), Started: time.Now().UTC(),
		ToolPolicy: string(opts.toolPolicy())}
	total := len(runs) * len(checks)
	var pmu sync.Mutex
	done := 0
	called := map[string]bool{}
	for n, r := range runs {
		r.start(ctx)
		if n == 0 && r.unreachable() {
			r.wait()
			res.Finished = time.Now().UTC()
			return res, fmt.Errorf("%w: %s: %s", ErrUnreachable, target, r.broken)
		}
		rr := RevisionRun{Requested: r.asked, Revision: r.revision, Note: r.unsupported + r.broken}
		res.Runs = append(res.Runs, rr)
		out := make([]CheckResult, len(checks))
		ran := make([]bool, len(checks))
		r.execAll(ctx, checks, func(i int, cr CheckResult) {
			pmu.Lock()
			defer pmu.Unlock()
			out[i], ran[i] = cr, true
			done++
			if opts.Progress != nil {
				opts.Progress(done, total, cr)
			}
		})
		r.wait()
		for i := range out {
			if ran[i] {
				res.Checks = append(res.Checks, out[i])
			}
		}
		for _, t := range r.toolsCalled() {
			called[t] = true
		}
		res.ToolsCalled = sortedKeys(called)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	res.Finished = time.Now().UTC()
	return res, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Run runs the suite against target as subtests of t: one subtest per
// revision, one per check inside it. A failing or not-testable check fails
// its subtest; not-applicable and unselected checks are skipped with the
// reason.
func Run(t *testing.T, target Target, opts *Options) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	runs, checks, err := plan(target, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		name := r.asked
		if name == "" {
			name = "negotiated"
		}
		t.Run(name, func(t *testing.T) {
			r.start(context.Background())
			defer r.wait()
			for _, ch := range checks {
				t.Run(ch.ID, func(t *testing.T) {
					cr := r.exec(context.Background(), ch)
					switch cr.Outcome {
					case Fail, NotTestable:
						// Run is for servers under the caller's control: ADVICE
						// failures fail the subtest too (strict).
						t.Errorf("[%s %s] %s\n%s: %s", ch.Severity, ch.ID, ch.Requirement, cr.Outcome, strings.Join(cr.Evidence, "\n"))
						if len(cr.Evidence) == 0 {
							t.Errorf("%s", cr.Detail)
						}
					case NotApplicable, Skipped:
						t.Skipf("%s: %s", cr.Outcome, cr.Detail)
					}
				})
			}
		})
	}
}
