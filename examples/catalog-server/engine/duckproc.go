package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// Queries in processes of their own.
//
// DuckDB stops a query between pieces of work, not inside one function call and
// not while it prepares the query (its constant expressions): in the server's
// process such a computation goes on after its caller was answered, on one of
// the model's connections, for as long as it computes (Duck.Query). In a
// process of its own it can be stopped for real: the process is ended.
//
// DuckProc is a model whose queries run in worker processes (ServeDuckWorker,
// started by DuckConfig.Worker), each with the model's database file opened
// read-only and locked down as Duck opens it, one query at a time per process,
// at most duckMaxConns processes per model. A worker whose query ran past its
// limit without DuckDB stopping is killed, and so is one whose caller went
// away; one that died (a crash, the system's out-of-memory killer, which picks
// workers first) costs only its own query. A worker gets only the environment
// DuckDB and Go read (workerEnviron), closes the files it inherited, and spills
// to a folder of its own; its C library keeps the memory DuckDB frees between
// queries (WorkerMalloc). The price is a round trip between processes per query
// and the memory of a DuckDB per process (MemoryLimit applies to each).

// duckIdleWorkers is how many idle worker processes a model keeps for its next
// queries; more are ended when their query is answered, and an idle one is
// ended after duckIdleTime without a query.
const duckIdleWorkers = 2

var duckIdleTime = time.Minute // a variable for the tests

// duckIdleTotal caps the idle worker processes of all models together: a
// client reading one model after another (describe of every source of a large
// catalog) would otherwise leave duckIdleWorkers processes, each with a
// DuckDB, per model for duckIdleTime. Past it, the longest idle ends.
var duckIdleTotal = 8 // a variable for the tests, read under idleAll.mu

// idleAll lists the idle workers of every model, longest idle first.
var idleAll idleList

type idleList struct {
	mu   sync.Mutex
	list []idleEntry
}

type idleEntry struct {
	p *DuckProc
	w *duckWorker
}

// add notes that w became an idle worker of p, and ends the longest idle
// workers past duckIdleTotal. Called without p.mu held.
func (l *idleList) add(p *DuckProc, w *duckWorker) {
	l.mu.Lock()
	kept := l.list[:0]
	for _, e := range l.list {
		if e.w != w && e.w.idle.Load() { // the others were taken or ended
			kept = append(kept, e)
		}
	}
	clear(l.list[len(kept):])
	if w.idle.Load() { // not taken by a query meanwhile
		kept = append(kept, idleEntry{p, w})
	}
	var over []idleEntry
	if n := len(kept) - duckIdleTotal; n > 0 {
		over = slices.Clone(kept[:n])
		kept = slices.Delete(kept, 0, n)
	}
	l.list = kept
	l.mu.Unlock()
	for _, e := range over {
		e.p.retire(e.w)
	}
}

// workerSlack is how long past a query's limit (and stopGrace) the server waits
// for its worker's answer before it kills the worker: the worker answers at
// the limit itself; this covers the round trip and a worker that hangs.
const workerSlack = 500 * time.Millisecond

// EngineError says the process that runs a query could not be started or ended
// before it answered.
type EngineError struct {
	Detail string
	// Starting says the process was still starting when the query's time was
	// up: a time limit shorter than starting a process takes.
	Starting bool
	// Broken says the process could not be started or could not open the
	// model: the server's fault, which calling again does not mend.
	Broken bool
	// Gone (with Broken) says the model's database file, built when the model
	// loaded, is no longer in the server's temporary folder (a cleaner of
	// temporary files removed it): the model must be loaded again.
	Gone bool
}

func (e *EngineError) Error() string {
	if e.Gone {
		return "the model's DuckDB database, which the server built in its temporary folder when the model loaded, is gone (removed while the server ran, as by a cleaner of temporary files), so no query of this model can run until the server builds it again. This is a fault of the server, not of the query"
	}
	if e.Broken {
		return "the query's DuckDB process " + e.Detail + ". This is a fault of the server, not of the query: queries on this model fail until it is fixed; tell the server's operator"
	}
	if e.Starting {
		return "the query's DuckDB process " + e.Detail + ". Call again shortly (it is ready then); if this keeps happening, the server's query time limit is shorter than starting a query process takes on this machine"
	}
	return "the query's DuckDB process " + e.Detail + ". Call again (a new process starts); if it happens again, ask for less work: aggregate, filter with WHERE, select fewer or smaller columns"
}

// DuckProc is one model opened on DuckDB whose queries run in worker processes.
// Safe for concurrent use.
type DuckProc struct {
	file  *duckFile
	cfg   DuckConfig
	slots *fairSlots // one per query holding a worker, given round-robin by client

	// mu guards closed, idle and all. running counts the queries under way;
	// Close waits for them (each ends by its limit: its worker is killed).
	mu        sync.Mutex
	closed    bool
	closing   chan struct{} // closed with closed: queries waiting for a slot give up
	idle      []*duckWorker
	all       map[*duckWorker]struct{}
	running   sync.WaitGroup
	closeOnce sync.Once
	started   atomic.Int64 // workers started, naming their spill folders
}

// OpenDuckProc builds the database of model m, as OpenDuck does, for queries in
// processes started by cfg.Worker. No process starts until the first query.
func OpenDuckProc(ctx context.Context, m *catalog.Model, cfg DuckConfig) (*DuckProc, error) {
	if cfg.Worker == nil {
		return nil, errors.New("duckdb: no worker command for queries in processes of their own")
	}
	cfg = cfg.withDefaults()
	f, err := buildDuckFile(ctx, m, cfg)
	if err != nil {
		return nil, err
	}
	return &DuckProc{file: f, cfg: cfg, slots: newFairSlots(duckMaxConns), closing: make(chan struct{}), all: map[*duckWorker]struct{}{}}, nil
}

// Columns returns the columns of each source that opened, by source name.
func (p *DuckProc) Columns() map[string][]Column { return p.file.columns }

// Broken returns, by source name, why a source's view could not be made.
func (p *DuckProc) Broken() map[string]string { return p.file.broken }

// QueryChecks returns, by named query, what DuckDB found wrong with it when the
// model opened (checkQueries); under "" the queries left unchecked.
func (p *DuckProc) QueryChecks() map[string]QueryCheck { return p.file.checks }

// Query runs one read-only query in one of the model's worker processes, judged
// and run there as Duck.Query does it.
func (p *DuckProc) Query(ctx context.Context, sqlText string, params map[string]any, lim Limits) (*Result, error) {
	defer lim.done() // the query has stopped (its process ended) when Query returns
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.running.Add(1)
	p.mu.Unlock()
	defer p.running.Done()
	if err := checkText(sqlText); err != nil {
		return nil, err
	}
	wp, err := wireParams(params)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	deadline := start.Add(lim.Timeout)
	qctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// A worker slot, as a connection of an in-process model: running out of time
	// waiting for one means the model is busy. A model being closed (replaced
	// by a reload) answers ErrClosed at once, and its caller runs the query
	// again on the new one.
	// Then one of the server's, when the models share a cap (taken in this
	// order by every query, and given back together). Both are given
	// round-robin by client (fairSlots).
	if err := p.slots.acquireIn(qctx, lim.Group, lim.Client, p.closing); err != nil {
		if err == ErrClosed {
			return nil, ErrClosed
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &BusyError{Limit: lim.Timeout, Conns: duckMaxConns, What: "query processes of this model"}
	}
	// How long the model's own slots took, for a query that then runs out of
	// time: what it waited for is what most of its wait went to.
	modelWait := time.Since(start)
	if g := p.cfg.Processes; g != nil {
		if err := g.slots.acquireIn(qctx, lim.Group, lim.Client, p.closing); err != nil {
			p.slots.release()
			if err == ErrClosed {
				return nil, ErrClosed
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &BusyError{Limit: lim.Timeout, Conns: g.slots.size, What: "query processes of the server", Server: true}
		}
	}
	slotHeld := true // until handed to a process still starting
	defer func() {
		if slotHeld {
			p.freeSlot()
		}
	}()
	waited := time.Since(start)
	// busy marks a TimeoutError with what the query waited for.
	busy := func(te *TimeoutError) *TimeoutError {
		te.Slots = duckMaxConns
		if g := p.cfg.Processes; g != nil && waited-modelWait > modelWait {
			te.Slots, te.Server = g.slots.size, true
		}
		return te
	}
	var (
		w    *duckWorker
		left time.Duration
	)
	for {
		var handed bool
		var err error
		w, handed, err = p.worker(qctx)
		if handed {
			slotHeld = false
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if qctx.Err() != nil && handed {
				return nil, &EngineError{Detail: fmt.Sprintf("was not ready within the query's %s limit (it goes on starting, for the next query)", lim.Timeout), Starting: true}
			}
			if qctx.Err() != nil {
				return nil, busy(&TimeoutError{Limit: lim.Timeout, Waited: waited})
			}
			return nil, err
		}
		left = time.Until(deadline)
		if left <= 0 {
			p.release(w)
			return nil, busy(&TimeoutError{Limit: lim.Timeout, Waited: waited})
		}
		req := workerRequest{Query: &workerQuery{SQL: sqlText, Params: wp, RowLimit: lim.RowLimit, ByteBudget: lim.ByteBudget, Timeout: left}}
		err = w.send(req, deadline)
		if err == nil {
			break
		}
		p.kill(w)
		if !w.reused {
			return nil, &EngineError{Detail: "did not take the query (" + err.Error() + ")"}
		}
		// An idle process that ended (the system's out-of-memory killer, which
		// picks query processes first) before its end was noticed: the query
		// never reached it, and goes to another.
	}
	hard := time.NewTimer(left + stopGrace + workerSlack)
	defer hard.Stop()
	maxRSS := p.runningMaxRSS()
	watch, stopWatch := rssWatch(maxRSS)
	defer stopWatch()
	for {
		select {
		case <-watch:
			if rss := residentBytes(w.cmd.Process.Pid); rss > maxRSS {
				p.kill(w)
				return nil, &MemoryError{Limit: p.cfg.MemoryLimit,
					Detail: fmt.Sprintf("its process held %d MiB, past the %d MiB a query process may hold: DuckDB's limit does not count all it allocates, such as the lists and strings a function builds", rss>>20, maxRSS>>20)}
			}
			continue
		case rep, ok := <-w.replies:
			if !ok {
				if bad := w.badAnswer; bad != nil {
					// The process is alive but its stream cannot be trusted.
					p.kill(w)
					ae := answerError(bad)
					workerNotes.note(p.cfg.log(), "a query process's answer could not be read; the process was ended", "pid", w.cmd.Process.Pid, "error", bad.Error())
					return nil, ae
				}
				note := w.exitNote()
				p.kill(w)
				return nil, &EngineError{Detail: "ended before it answered" + note}
			}
			if rep.Error != nil {
				err := rep.Error.err()
				var te *TimeoutError
				if errors.As(err, &te) {
					// The process was given what was left of the limit (starting
					// it may have taken some); the caller was given the limit.
					te.Limit = lim.Timeout
					te.Waited += waited
					busy(te)
					if te.Running {
						// DuckDB did not stop: the process does, now.
						p.kill(w)
						te.Running = false
						return nil, te
					}
				}
				if duckFatal(err) {
					// Its DuckDB may be invalidated, failing every later
					// query: the next one gets a new process.
					p.kill(w)
					return nil, err
				}
				p.release(w)
				return nil, err
			}
			p.release(w)
			if rep.Result == nil {
				return nil, &EngineError{Detail: "answered without a result"}
			}
			return rep.Result.finish(start), nil
		case <-hard.C:
			p.kill(w)
			return nil, busy(&TimeoutError{Limit: lim.Timeout, Waited: waited})
		case <-ctx.Done():
			// The caller went away: the query stops with its process.
			p.kill(w)
			return nil, ctx.Err()
		}
	}
}

// rssWatchEvery is how often the server reads the resident memory of a query
// process that is computing.
const rssWatchEvery = 50 * time.Millisecond

// rssWatch returns a channel that ticks every rssWatchEvery, for reading a
// process's resident memory, and the function that stops it; with no bound
// (maxRSS 0), a channel that never ticks.
func rssWatch(maxRSS int64) (<-chan time.Time, func()) {
	if maxRSS <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(rssWatchEvery)
	return t.C, t.Stop
}

// duckRunMaxRSS, when above zero, is the most resident memory a computing query
// process may hold instead of runningMaxRSS's (for the tests).
var duckRunMaxRSS atomic.Int64

// runningMaxRSS is the most resident memory a query process may hold while it
// computes: twice the model's memory limit, and at least 256 MB more than it (an
// idle process holds 70–110 MB of its own), or 0 (no bound) for a limit it
// cannot read. DuckDB's memory_limit bounds what its buffer manager holds, not all it
// allocates: the lists and strings a function builds grew past 2 GB under a
// 512 MB limit. The server reads the process's size every rssWatchEvery and
// ends it past the bound (on Linux; elsewhere the size cannot be read).
func (p *DuckProc) runningMaxRSS() int64 { return runningMaxRSS(p.cfg.MemoryLimit) }

// runningMaxRSS is DuckProc.runningMaxRSS for a memory limit (a load
// process's bound too).
func runningMaxRSS(memoryLimit string) int64 {
	if n := duckRunMaxRSS.Load(); n > 0 {
		return n
	}
	b, ok := sizeBytes(memoryLimit)
	if !ok {
		return 0
	}
	return max(2*b, b+256<<20)
}

// sizeUnits are the units of a memory limit sizeBytes reads, in bytes: DuckDB's
// (KB to TB in powers of 1000, KiB to TiB in powers of 1024, no unit for bytes).
var sizeUnits = map[string]float64{"": 1, "b": 1, "byte": 1, "bytes": 1,
	"kb": 1e3, "kilobyte": 1e3, "kilobytes": 1e3, "mb": 1e6, "megabyte": 1e6, "megabytes": 1e6,
	"gb": 1e9, "gigabyte": 1e9, "gigabytes": 1e9, "tb": 1e12, "terabyte": 1e12, "terabytes": 1e12,
	"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}

// sizeBytes reads a size as DuckDB's settings take it ("512MB", "1.5 GiB",
// "100000 bytes"; KB, MB, GB and TB in powers of 1000, KiB … TiB of 1024), and
// false for anything else (a percentage of the machine's memory).
func sizeBytes(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || n < 0 {
		return 0, false
	}
	u, ok := sizeUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, false
	}
	return int64(n * u), true
}

// worker returns an idle worker of the model, or starts one. A process that is
// not ready by the query's deadline (qctx) goes on starting: the query's slot
// goes with it (handed), and it becomes an idle worker for the next query,
// so that a model whose processes take longer to start than its queries' limit
// still gets to answer them.
func (p *DuckProc) worker(qctx context.Context) (w *duckWorker, handed bool, err error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, false, ErrClosed
		}
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			break
		}
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		w.reused = true
		w.idle.Store(false)
		w.retire.Stop() // retire finds it gone from idle if it runs now
		released := w.released
		p.mu.Unlock()
		select {
		case <-w.exited: // it died while idle
			p.kill(w)
			continue
		default:
		}
		if w.sized.Load() != released && residentBytes(w.cmd.Process.Pid) > duckIdleMaxRSS.Load() {
			// Taken before its size was looked at (release): looked at now, so
			// that what its last query left does not count against this one's
			// bound (runningMaxRSS).
			p.kill(w)
			continue
		}
		return w, false, nil
	}
	type started struct {
		w   *duckWorker
		err error
	}
	got := make(chan started) // unbuffered: either the query takes it or abandon is closed
	abandon := make(chan struct{})
	go func() {
		sctx, cancel := context.WithTimeout(context.Background(), duckStartLimit)
		defer cancel()
		w, err := p.start(sctx)
		select {
		case got <- started{w, err}:
		case <-abandon:
			if err == nil {
				p.release(w)
			}
			p.freeSlot()
		}
	}()
	select {
	case r := <-got:
		return r.w, false, r.err
	case <-qctx.Done():
		close(abandon)
		return nil, true, qctx.Err()
	case <-p.closing:
		// The query runs again on the model that replaced this one; the
		// process, once started, is ended (release finds the model closed).
		close(abandon)
		return nil, true, ErrClosed
	}
}

// duckStartLimit is how long a worker process has to start and open its
// model's database before it is killed.
const duckStartLimit = 10 * time.Second

// start starts a worker process and has it open the model's database.
func (p *DuckProc) start(ctx context.Context) (*duckWorker, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	// A database file removed from the temporary folder: no process can open
	// it, so none is started (each call started one, in vain).
	if p.fileGone() {
		return nil, goneErr()
	}
	// The worker's output is kept, bounded (workerCapture), for the log line
	// of a process that crashes (noteEnd).
	w, err := launchWorker(p.cfg.Worker(), p.cfg.Threads, filepath.Join(p.file.tmp, fmt.Sprintf("spill-%d", p.started.Add(1))), workerOutput{p.cfg.log(), p.cfg.CrashDumps})
	if err != nil {
		return nil, p.startErr("could not be started (" + err.Error() + ")")
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.kill()
		return nil, ErrClosed
	}
	p.all[w] = struct{}{}
	p.mu.Unlock()
	deadline, _ := ctx.Deadline()
	open := workerRequest{Open: &workerOpen{Tmp: p.file.tmp, Path: p.file.path, PkgDir: p.file.pkgDir, Spill: w.spill, Threads: p.cfg.Threads, MemoryLimit: p.cfg.MemoryLimit, TempLimit: p.cfg.TempLimit}}
	if err := w.send(open, deadline); err != nil {
		p.kill(w)
		return nil, p.startErr("could not be started (" + err.Error() + ")")
	}
	select {
	case rep, ok := <-w.replies:
		switch {
		case !ok:
			note := w.exitNote()
			p.kill(w)
			return nil, p.startErr("could not open the model" + note)
		case rep.Error != nil:
			p.kill(w)
			return nil, p.startErr("could not open the model: " + rep.Error.err().Error())
		}
		return w, nil
	case <-ctx.Done():
		p.kill(w)
		return nil, p.startErr(fmt.Sprintf("did not open the model within %s", duckStartLimit))
	}
}

// launchWorker starts cmd as a worker process (ServeDuckWorker): a query
// process, or a load process (loadproc.go). Answers come back on a pipe of
// their own (the worker's file descriptor 3, WorkerAnswers), not on its
// standard output, which anything in the process might write to: that goes to
// cmd.Stdout, or when unset where its standard error goes (cmd.Stderr; kept
// by the server, bounded, when unset: captureOutput). The process gets the
// environment workerEnviron keeps, for DuckDB's threads, and ends with the
// server (endWithParent); spill is its DuckDB's spill folder, removed when it
// ends.
func launchWorker(cmd *exec.Cmd, threads int, spill string, out workerOutput) (*duckWorker, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	capture := captureOutput(cmd)
	// Nothing of the server's environment but what DuckDB and Go read: the
	// worker needs no credential (a PostgreSQL package's DSN variable).
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = workerEnviron(cmd.Env, threads)
	cmd.Stdin, cmd.ExtraFiles = inR, []*os.File{outW}
	endWithParent(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	w := &duckWorker{cmd: cmd, in: inW, replies: make(chan workerAnswer, 1), exited: make(chan struct{}), spill: spill,
		capture: capture, log: out.log, dumps: out.dumps}
	w.maxHead.Store(maxAnswerHead)
	go w.read(outR)
	return w, nil
}

// workerOutput is where a worker notes that it ended by itself (noteEnd): the
// log (nil for a load process, which tells its load's caller), and whether its
// output goes into the log line (DuckConfig.CrashDumps).
type workerOutput struct {
	log   *slog.Logger
	dumps bool
}

// workerEnviron keeps of env the variables a worker process may need: the
// locale and time zone (DuckDB renders times in the process's zone, as in the
// server's), the folders for temporary files and the home directory, PATH,
// the Go runtime's settings but GOMAXPROCS, and the C library's
// (GLIBC_TUNABLES). Without GLIBC_TUNABLES in env it adds WorkerMalloc(threads);
// with it (empty included: the C library's own defaults) the server's value
// stays. It sets GOMAXPROCS to workerGoProcs, whatever env says.
func workerEnviron(env []string, threads int) []string {
	var out []string
	tunables := false
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains([]string{"PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE",
			"GODEBUG", "GOGC", "GOMEMLIMIT", "GOTRACEBACK", "GORACE"}, name),
			strings.HasPrefix(name, "LC_"):
			out = append(out, kv)
		case name == "GLIBC_TUNABLES":
			out, tunables = append(out, kv), true
		}
	}
	if !tunables {
		out = append(out, "GLIBC_TUNABLES="+WorkerMalloc(threads))
	}
	return append(out, "GOMAXPROCS="+strconv.Itoa(workerGoProcs))
}

// workerGoProcs is the GOMAXPROCS of every query process: the Go code of a
// process that runs one query at a time — reading the request, waiting for
// DuckDB, writing the answer — needs one processor, and DuckDB's threads are
// its own, not the Go runtime's. With one per processor (the Go runtime's
// default) the runtime's own threads woke again and again while DuckDB
// computed, on the processors DuckDB's threads were using: twice the voluntary
// context switches a query or more, and 0.5–2.6 ms more processor time
// (BenchmarkWorkerGoProcs). The server's own GOMAXPROCS is for the server's
// process and does not pass.
const workerGoProcs = 1

// WorkerMalloc is how a query process of a model run on threads threads (0:
// DefaultThreads) has its C library (glibc) keep the memory DuckDB frees, set in
// its environment as GLIBC_TUNABLES unless the server's environment has that
// variable: blocks under 32 MB come from the heap (glibc's default starts at
// 128 KB, then adapts), each heap keeps up to 64 MB of free memory at its top
// (default 128 KB) rather than returning it to the system, and the process has
// one heap a thread of DuckDB's (glibc's default is up to eight a processor),
// so that a query's memory is found again by the next whichever threads run
// it. DuckDB's aggregate states that grow value by value (a quantile's) are
// allocated there and freed with their query; with glibc's defaults every
// such query takes that memory from the system again, a page fault per page:
// a 90th percentile over a million rows took 1.7 times as long
// (BenchmarkWorkerMalloc, TestDuckProcWorkerMalloc). What a process keeps is
// bounded with the rest of its memory: one holding more than duckIdleMaxRSS
// after a query is ended.
func WorkerMalloc(threads int) string {
	if threads <= 0 {
		threads = DefaultThreads
	}
	return fmt.Sprintf("glibc.malloc.mmap_threshold=%d:glibc.malloc.trim_threshold=%d:glibc.malloc.arena_max=%d", 32<<20, 64<<20, threads)
}

// startErr is the error of a worker that could not be started or open the
// model: ErrClosed when the model was closed meanwhile (its workers killed),
// else the server's fault.
func (p *DuckProc) startErr(detail string) error {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if p.fileGone() {
		return goneErr()
	}
	// The server's temporary paths are not the caller's business.
	detail = strings.ReplaceAll(detail, p.file.path, "the model's database file")
	detail = strings.ReplaceAll(detail, p.file.tmp, "the server's temporary folder")
	return &EngineError{Detail: detail, Broken: true}
}

// goneErr is a query's error when the model's database file is gone.
func goneErr() error {
	return &EngineError{Detail: "could not open the model: its database file is gone", Broken: true, Gone: true}
}

// fileGone says the model's database file is no longer there.
func (p *DuckProc) fileGone() bool {
	_, err := os.Stat(p.file.path)
	return errors.Is(err, fs.ErrNotExist)
}

// duckIdleMaxRSS is the most resident memory a worker process may hold to be
// kept idle: one that grew past it (a result of wide rows, which duckdb-go
// materialises whole, leaves its process holding hundreds of megabytes) is
// ended, and its memory returns to the system. An idle one holds about 65 MB.
var duckIdleMaxRSS atomic.Int64 // 256 MB; a variable for the tests

func init() { duckIdleMaxRSS.Store(256 << 20) }

// fdFlags reads the "flags:" line (octal) of a /proc/PID/fdinfo file (Linux).
func fdFlags(info string) (int64, bool) {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// freeSlot gives back a query's slot of the model and of the server.
func (p *DuckProc) freeSlot() {
	if g := p.cfg.Processes; g != nil {
		g.slots.release()
	}
	p.slots.release()
}

// release keeps w for the model's next query, or ends it. Its size is looked
// at after its caller is answered (reading it takes about 12 µs): past
// duckIdleMaxRSS it is ended. A query that takes it before then looks at its
// size itself (worker), so a process is never reused unlooked at.
func (p *DuckProc) release(w *duckWorker) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < duckIdleWorkers {
		w.released++
		released := w.released
		p.idle = append(p.idle, w)
		w.idle.Store(true)
		w.retire = time.AfterFunc(duckIdleTime, func() { p.retire(w) })
		p.mu.Unlock()
		idleAll.add(p, w)
		go func() {
			if residentBytes(w.cmd.Process.Pid) > duckIdleMaxRSS.Load() {
				p.retire(w) // unless a query took it meanwhile (which looks again)
				return
			}
			w.sized.Store(released)
		}()
		return
	}
	p.mu.Unlock()
	p.kill(w)
}

// retire ends w if it is still idle.
func (p *DuckProc) retire(w *duckWorker) {
	p.mu.Lock()
	i := slices.Index(p.idle, w)
	if i >= 0 {
		p.idle = slices.Delete(p.idle, i, i+1)
		w.idle.Store(false)
	}
	p.mu.Unlock()
	if i >= 0 {
		p.kill(w)
	}
}

// kill ends w's process and forgets it.
func (p *DuckProc) kill(w *duckWorker) {
	w.kill()
	p.mu.Lock()
	delete(p.all, w)
	p.mu.Unlock()
}

// Close ends the model's worker processes, idle ones at once and the others
// when their queries are answered (by their limits at the latest), and removes
// the model's files. Queries that start meanwhile get ErrClosed.
func (p *DuckProc) Close() error {
	idle := p.shut()
	for _, w := range idle {
		w.retire.Stop()
		p.kill(w)
	}
	p.closeOnce.Do(func() {
		p.running.Wait()
		p.killAll()
		os.RemoveAll(p.file.tmp)
	})
	return nil
}

// Discard kills every worker process of the model and removes its files, for
// a process about to exit.
func (p *DuckProc) Discard() {
	p.shut()
	p.killAll()
	os.RemoveAll(p.file.tmp)
}

// shut marks the model closed, so that no query or worker process starts on it
// any more, and returns its idle workers, no longer idle.
func (p *DuckProc) shut() []*duckWorker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.closing)
	}
	idle := p.idle
	p.idle = nil
	for _, w := range idle {
		w.idle.Store(false)
	}
	return idle
}

func (p *DuckProc) killAll() {
	p.mu.Lock()
	ws := make([]*duckWorker, 0, len(p.all))
	for w := range p.all {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		p.kill(w)
	}
}

// duckWorker is one worker process: requests go to its standard input, one JSON
// document per line; its answers come back the same way on its file descriptor
// 3 (WorkerAnswers).
type duckWorker struct {
	cmd      *exec.Cmd
	in       *os.File
	replies  chan workerAnswer // closed when its output ends
	exited   chan struct{}     // closed once the process has ended
	retire   *time.Timer       // while idle: ends it after duckIdleTime
	spill    string            // its DuckDB's spill folder, removed when it ends
	reused   bool              // taken from the idle ones (set under the model's mu, before its query)
	idle     atomic.Bool       // in its model's idle list (set under the model's mu)
	released uint64            // times it became idle (release, under the model's mu)
	sized    atomic.Uint64     // the last of those after which its size was under duckIdleMaxRSS
	killOnce sync.Once
	waitErr  error // how the process ended, once exited is closed

	// badAnswer is why the reader stopped at an answer it could not read (a
	// frame past its limits, or one that does not parse) while the process may
	// still run; nil when its output ended. Set before replies is closed.
	badAnswer error
	killing   atomic.Bool    // the server is ending it (kill): its end is no crash
	capture   *workerCapture // what it writes, bounded (its crash's line and dump)
	log       *slog.Logger   // where a crash is noted (noteEnd)
	dumps     bool           // DuckConfig.CrashDumps

	// The most bytes the answer to the request sent last may take (readAnswer):
	// set before the request is written, read by the reader goroutine.
	maxHead, maxBody atomic.Int64
}

// send writes one request to the worker, by deadline (zero: none).
func (w *duckWorker) send(req workerRequest, deadline time.Time) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if q := req.Query; q != nil {
		// The head holds the columns and errors, whose text may come from
		// the SQL (JSON escapes a byte in at most 6); the body holds at most
		// ByteBudget bytes of values, and fewer of lengths: a value's length
		// takes no more bytes than the value, a row's count of values fewer
		// than its brackets.
		w.maxHead.Store(maxAnswerHead + 6*int64(len(q.SQL)))
		w.maxBody.Store(2*int64(q.ByteBudget) + 1<<16)
	}
	w.in.SetWriteDeadline(deadline) // zero: none (a past one is cleared)
	_, err = w.in.Write(append(b, '\n'))
	return err
}

// read decodes the worker's answers until its output ends (or is not an
// answer), then waits for the process.
//
// An answer past its limits or that does not parse is not the process ending:
// the reader stops there (badAnswer), as nothing after it can be trusted, and
// its caller ends the process and says what happened.
func (w *duckWorker) read(out *os.File) {
	br := bufio.NewReader(out)
	for {
		rep, err := readAnswer(br, w.limits)
		if err != nil {
			// The output ended between answers (EOF) or inside one (the
			// process died while writing it): the process ended. Anything
			// else was read, and is not an answer.
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) {
				w.badAnswer = err
			}
			break
		}
		w.replies <- rep
	}
	close(w.replies)
	out.Close()
	w.waitErr = w.cmd.Wait()
	w.noteEnd()
	close(w.exited)
}

// noteEnd logs, in one line, a process that ended by itself otherwise than as
// ServeDuckWorker ends (0 when its input ends, 1 when it cannot open the model,
// which its query reports, 3 after a query DuckDB did not stop): a crash in
// DuckDB, the out-of-memory killer. The line has how it ended and the first
// line of its standard error that says why (workerCapture.first); its whole output (the
// Go runtime's crash dump: about 10 KB) only with DuckConfig.CrashDumps. The
// lines are rate-limited (workerNotes): a client can crash one process a call.
func (w *duckWorker) noteEnd() {
	// A load process (no log) tells its load's caller how it ended (LoadError).
	if w.log == nil || w.killing.Load() || w.waitErr == nil {
		return
	}
	var ee *exec.ExitError
	if errors.As(w.waitErr, &ee) && ee.Exited() && slices.Contains([]int{0, 1, 3}, ee.ExitCode()) {
		return
	}
	args := []any{"pid", w.cmd.Process.Pid, "exit", w.waitErr.Error(), "first", w.capture.first()}
	if out := w.capture.dump(); w.dumps && out != "" {
		args = append(args, "output", out)
	}
	workerNotes.note(w.log, "a query process crashed; its query was answered unavailable", args...)
}

// kill ends the process (at once: its database is read-only) and waits for it.
func (w *duckWorker) kill() {
	w.killOnce.Do(func() {
		w.killing.Store(true)
		w.cmd.Process.Kill()
		w.in.Close()
		// The reader sees the output end; drain what it may still hand over.
		go func() {
			for range w.replies {
			}
		}()
		<-w.exited
		os.RemoveAll(w.spill) // what it spilled, left by a process killed
	})
}

// exitNote says how the worker ended, when it has.
func (w *duckWorker) exitNote() string {
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		return ""
	}
	if w.waitErr != nil {
		return " (" + w.waitErr.Error() + ")"
	}
	return ""
}

// The worker protocol: requests are one JSON document per line; each answer is
// one frame (appendAnswer). The first request opens the model's database;
// each later one is a query, answered by a result or an error.
// A load process (loadproc.go) is asked Load first, then steps.
type workerRequest struct {
	Open  *workerOpen  `json:"open,omitempty"`
	Query *workerQuery `json:"query,omitempty"`
	Load  *workerLoad  `json:"load,omitempty"`
	Step  *loadStep    `json:"step,omitempty"`
}

type workerOpen struct {
	Tmp         string `json:"tmp"`
	Path        string `json:"path"`
	PkgDir      string `json:"pkgDir"`
	Spill       string `json:"spill"`
	Threads     int    `json:"threads"`
	MemoryLimit string `json:"memoryLimit"`
	TempLimit   string `json:"tempLimit"`
}

type workerQuery struct {
	SQL        string               `json:"sql"`
	Params     map[string]wireValue `json:"params,omitempty"`
	RowLimit   int                  `json:"rowLimit"`
	ByteBudget int                  `json:"byteBudget"`
	Timeout    time.Duration        `json:"timeout"`
}

// workerAnswer is an answer as the worker writes it (appendAnswer) and as the
// server reads it (readAnswer): read, a result's values are *json.RawMessage,
// the JSON the worker wrote for them, which goes to the client byte for byte (a
// value decoded and encoded again could change, as the order of an object's
// members).
type workerAnswer struct {
	OK     bool       `json:"ok,omitempty"`
	Result *Result    `json:"result,omitempty"`
	Error  *wireError `json:"error,omitempty"`
	// Strings is a load step's answer: the rows of a query, or the names of a
	// prepared statement's parameters (one row).
	Strings [][]string `json:"strings,omitempty"`
}

// An answer's frame: the lengths of its head and of its body (4 bytes each,
// big-endian), the head — the workerAnswer as JSON, its result without rows —
// and the body, a result's rows (empty without one): their count, the length
// of the lengths, then for each row its count of values and each value's
// length, all uvarints, and the values' JSON one after another. The server
// slices each value out of the body: nothing is decoded or scanned but the
// head and the lengths.
const frameLens = 8

// maxAnswerHead is the most bytes an answer's head may take beyond 6 per byte
// of the query's SQL (duckWorker.send): the columns' names and types (a
// source's, or the SQL's) and an error's text (cut to maxEngineMessage before
// it is sent). More is an answer too large (AnswerError): the worker is ended.
const maxAnswerHead = 16 << 20

// appendAnswer appends ans's frame to dst.
func appendAnswer(dst []byte, ans workerAnswer) ([]byte, error) {
	var res *Result
	if ans.Result != nil {
		res = ans.Result
		head := *res
		head.Rows, head.wire = nil, nil
		ans.Result = &head
	}
	start := len(dst)
	dst = append(dst, make([]byte, frameLens)...)
	var err error
	if dst, err = appendJSON(dst, ans); err != nil {
		return dst[:start], err
	}
	headLen := len(dst) - start - frameLens
	if res != nil {
		w := res.wire
		if w == nil || w.rows != len(res.Rows) {
			// Rows that did not come through a rowAppender with keep.
			if w, err = encodeRows(res.Rows); err != nil {
				return dst[:start], err
			}
		}
		dst = binary.AppendUvarint(dst, uint64(len(res.Rows)))
		dst = binary.AppendUvarint(dst, uint64(len(w.lens)))
		dst = append(dst, w.lens...)
		dst = append(dst, w.cells...)
	}
	bodyLen := len(dst) - start - frameLens - headLen
	if uint64(headLen) > math.MaxUint32 || uint64(bodyLen) > math.MaxUint32 {
		return dst[:start], errors.New("worker: the answer is too large to send")
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(headLen))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(bodyLen))
	return dst, nil
}

// appendJSON appends v as json.Marshal writes it.
func appendJSON(dst []byte, v any) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	out := b.Bytes()
	return out[:len(out)-1], nil // Encode ends with a newline
}

// encodeRows is what a rowAppender with keep keeps of rows.
func encodeRows(rows [][]any) (*wireCells, error) {
	a := rowAppender{lim: Limits{RowLimit: len(rows), ByteBudget: math.MaxInt}, res: &Result{}, keep: true}
	for _, row := range rows {
		if _, err := a.add(row); err != nil {
			return nil, err
		}
	}
	if a.res.wire == nil {
		return &wireCells{}, nil
	}
	return a.res.wire, nil
}

// limits returns the most bytes the head and the body of the answer to the
// request sent last may take.
func (w *duckWorker) limits() (maxHead, maxBody int64) {
	return w.maxHead.Load(), w.maxBody.Load()
}

// readAnswer reads one answer's frame from r. A head or body longer than
// limits allows (asked once the frame's lengths are read: its request was
// sent), or a frame that does not parse, is an error.
func readAnswer(r io.Reader, limits func() (maxHead, maxBody int64)) (workerAnswer, error) {
	var lens [frameLens]byte
	if _, err := io.ReadFull(r, lens[:]); err != nil {
		return workerAnswer{}, err
	}
	maxHead, maxBody := limits()
	headLen, bodyLen := int64(binary.BigEndian.Uint32(lens[:])), int64(binary.BigEndian.Uint32(lens[4:]))
	if headLen > maxHead || bodyLen > maxBody {
		return workerAnswer{}, &frameTooLarge{head: headLen, body: bodyLen, maxHead: maxHead, maxBody: maxBody}
	}
	buf := make([]byte, headLen+bodyLen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return workerAnswer{}, err
	}
	var rep workerAnswer
	if err := json.Unmarshal(buf[:headLen], &rep); err != nil {
		return workerAnswer{}, err
	}
	body := buf[headLen:]
	if rep.Result == nil {
		if len(body) > 0 {
			return workerAnswer{}, errors.New("worker: rows without a result")
		}
		return rep, nil
	}
	rows, err := decodeRows(body)
	if err != nil {
		return workerAnswer{}, err
	}
	rep.Result.Rows = rows
	return rep, nil
}

// decodeRows returns the rows of an answer's body, each value a
// *json.RawMessage of the body's bytes.
func decodeRows(body []byte) ([][]any, error) {
	bad := errors.New("worker: an answer's rows do not parse")
	uvarint := func(b []byte) (uint64, []byte, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, b, false
		}
		return v, b[n:], true
	}
	nRows, rest, ok := uvarint(body)
	if !ok {
		return nil, bad
	}
	nLens, rest, ok := uvarint(rest)
	if !ok || nLens > uint64(len(rest)) || nRows > nLens {
		return nil, bad // every row takes at least a byte of lengths
	}
	lens, cells := rest[:nLens], rest[nLens:]
	// First the counts, all checked, then the values, in one array.
	nVals, total := uint64(0), uint64(0)
	for b, i := lens, uint64(0); i < nRows; i++ {
		var n uint64
		if n, b, ok = uvarint(b); !ok || n > uint64(len(b)) {
			return nil, bad
		}
		for range n {
			var l uint64
			if l, b, ok = uvarint(b); !ok || l > uint64(len(cells))-total {
				return nil, bad
			}
			total += l
		}
		nVals += n
		if i == nRows-1 && len(b) != 0 {
			return nil, bad
		}
	}
	if total != uint64(len(cells)) || (nRows == 0 && len(lens) != 0) {
		return nil, bad
	}
	// A value is a pointer into raws: a json.RawMessage itself in an any
	// would take an allocation of its own.
	raws := make([]json.RawMessage, nVals)
	vals := make([]any, nVals)
	rows := make([][]any, nRows)
	b, v, off := lens, 0, uint64(0)
	for i := range rows {
		n, k := binary.Uvarint(b) // checked above
		b = b[k:]
		row := vals[v : v+int(n) : v+int(n)]
		for j := range row {
			l, k := binary.Uvarint(b)
			b = b[k:]
			raws[v+j] = cells[off : off+l : off+l]
			row[j] = &raws[v+j]
			off += l
		}
		rows[i] = row
		v += int(n)
	}
	return rows, nil
}

// wireValue is a query parameter with its Go type kept: the named queries'
// parameters are int64, float64, bool or string (checkParams), and a float64
// must not come back as an integer.
type wireValue struct {
	Int    *int64   `json:"int,omitempty"`
	Float  *float64 `json:"float,omitempty"`
	Bool   *bool    `json:"bool,omitempty"`
	String *string  `json:"string,omitempty"`
}

func wireParams(params map[string]any) (map[string]wireValue, error) {
	if len(params) == 0 {
		return nil, nil
	}
	out := make(map[string]wireValue, len(params))
	for k, v := range params {
		switch x := v.(type) {
		case int64:
			out[k] = wireValue{Int: &x}
		case float64:
			out[k] = wireValue{Float: &x}
		case bool:
			out[k] = wireValue{Bool: &x}
		case string:
			out[k] = wireValue{String: &x}
		default:
			return nil, fmt.Errorf("parameter %q: a %T cannot be passed to the query's process", k, v)
		}
	}
	return out, nil
}

func (v wireValue) value() any {
	switch {
	case v.Int != nil:
		return *v.Int
	case v.Float != nil:
		return *v.Float
	case v.Bool != nil:
		return *v.Bool
	case v.String != nil:
		return *v.String
	}
	return nil
}

// wireError carries the engine's errors between processes with their types.
type wireError struct {
	Type     string        `json:"type"`
	Reason   string        `json:"reason,omitempty"`
	Rule     string        `json:"rule,omitempty"`
	AtRun    bool          `json:"atRun,omitempty"` // a RefusedError's
	Engine   string        `json:"engine,omitempty"`
	Message  string        `json:"message,omitempty"`
	Position int           `json:"position,omitempty"`
	SQLState string        `json:"sqlState,omitempty"`
	Name     string        `json:"name,omitempty"`
	Limit    time.Duration `json:"limit,omitempty"`
	Waited   time.Duration `json:"waited,omitempty"`
	Running  bool          `json:"running,omitempty"`
	Memory   string        `json:"memory,omitempty"`
	Temp     string        `json:"temp,omitempty"` // a MemoryError's TempLimit, when Spilled
	Detail   string        `json:"detail,omitempty"`
	Conns    int           `json:"conns,omitempty"`
	What     string        `json:"what,omitempty"`
}

func toWire(err error) *wireError {
	var (
		ref *RefusedError
		se  *SQLError
		ub  *UnboundParamError
		te  *TimeoutError
		me  *MemoryError
		be  *BusyError
	)
	switch {
	case errors.As(err, &ref):
		return &wireError{Type: "refused", Reason: ref.Reason, Rule: ref.Rule, AtRun: ref.AtRun}
	case errors.As(err, &se):
		return &wireError{Type: "sql", Engine: se.Engine, Message: se.Message, Position: se.Position, SQLState: se.SQLState}
	case errors.As(err, &ub):
		return &wireError{Type: "unbound", Name: ub.Name}
	case errors.As(err, &te):
		return &wireError{Type: "timeout", Limit: te.Limit, Waited: te.Waited, Running: te.Running}
	case errors.As(err, &me):
		return &wireError{Type: "memory", Memory: me.Limit, Detail: me.Detail, Temp: me.TempLimit}
	case errors.As(err, &be):
		return &wireError{Type: "busy", Limit: be.Limit, Conns: be.Conns, What: be.What}
	}
	return &wireError{Type: "error", Message: cutMessage(err.Error())}
}

func (e *wireError) err() error {
	switch e.Type {
	case "refused":
		return &RefusedError{Reason: e.Reason, Rule: e.Rule, AtRun: e.AtRun}
	case "sql":
		return &SQLError{Engine: e.Engine, Message: e.Message, Position: e.Position, SQLState: e.SQLState}
	case "unbound":
		return &UnboundParamError{Name: e.Name}
	case "timeout":
		return &TimeoutError{Limit: e.Limit, Waited: e.Waited, Running: e.Running}
	case "memory":
		return &MemoryError{Limit: e.Memory, Detail: e.Detail, Spilled: e.Temp != "", TempLimit: e.Temp}
	case "busy":
		return &BusyError{Limit: e.Limit, Conns: e.Conns, What: e.What}
	}
	return errors.New(e.Message)
}

// workerQueryHook, when set, is called by ServeDuckWorker with each query
// before the query runs; an error it returns is the query's answer. It is the
// one way to give a query process a FATAL error on demand (the gate refuses
// what would cause one in a query), for TestDuckProcFatalEndsProcess.
//
// Only test code of this package sets it: TestMain, in the test binary started
// as a worker of the "-fatal" kind. It is unexported, and nothing else in the
// package assigns it — no input, flag, environment variable or request field
// reaches it — so in the server's program it is always nil.
var workerQueryHook func(d *Duck, sqlText string) error

// WorkerAnswers is the file a worker process writes its answers to: the file
// descriptor 3 its server gives it.
func WorkerAnswers() *os.File { return os.NewFile(3, "answers") }

// ServeDuckWorker serves one model's queries, one at a time, to the process
// that started this one (DuckProc): requests on in (its standard input),
// answers on out (WorkerAnswers); or, asked to load a model first, the steps
// of its load (serveLoad). It returns
// the exit code for the process: 0 when in ends, 1 when the model cannot be
// opened, 3 after a query DuckDB did not stop at its limit (the process must
// end for it to stop).
func ServeDuckWorker(in io.Reader, out io.Writer) int {
	closeInherited()
	preferOOMKill()
	dec := json.NewDecoder(bufio.NewReader(in))
	var frame []byte // reused: each answer is written whole, in one call
	reply := func(rep workerAnswer) bool {
		var err error
		frame, err = appendAnswer(frame[:0], rep)
		if err != nil {
			frame, _ = appendAnswer(frame[:0], workerAnswer{Error: toWire(err)})
		}
		_, err = out.Write(frame)
		if cap(frame) > 1<<20 {
			frame = nil // a large answer's memory is not kept for the next
		}
		return err == nil
	}
	var req workerRequest
	if err := dec.Decode(&req); err != nil || req.Open == nil && req.Load == nil {
		return 1
	}
	if req.Load != nil {
		return serveLoad(dec, reply, req.Load)
	}
	o := req.Open
	d, err := openDuckFile(context.Background(), &duckFile{tmp: o.Tmp, path: o.Path, pkgDir: o.PkgDir, spill: o.Spill},
		DuckConfig{Threads: o.Threads, MemoryLimit: o.MemoryLimit, TempLimit: o.TempLimit}.withDefaults())
	if err != nil {
		reply(workerAnswer{Error: toWire(err)})
		return 1
	}
	d.tmp = ""        // the model's files are the server's to remove
	d.keepWire = true // results keep their values' JSON, for the answers
	if !reply(workerAnswer{OK: true}) {
		return 0
	}
	for {
		var req workerRequest
		if err := dec.Decode(&req); err != nil {
			return 0
		}
		q := req.Query
		if q == nil {
			reply(workerAnswer{Error: &wireError{Type: "error", Message: "worker: a request without a query"}})
			continue
		}
		params := make(map[string]any, len(q.Params))
		for k, v := range q.Params {
			params[k] = v.value()
		}
		var (
			res *Result
			err error
		)
		if workerQueryHook != nil {
			err = workerQueryHook(d, q.SQL)
		}
		if err == nil {
			res, err = d.Query(context.Background(), q.SQL, params, Limits{RowLimit: q.RowLimit, ByteBudget: q.ByteBudget, Timeout: q.Timeout})
		}
		if err != nil {
			ok := reply(workerAnswer{Error: toWire(err)})
			var te *TimeoutError
			if errors.As(err, &te) && te.Running {
				return 3
			}
			if !ok {
				return 0
			}
			continue
		}
		if !reply(workerAnswer{Result: res}) {
			return 0
		}
	}
}
