package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// workerFiles returns where the open files of process pid lead, by number.
func workerFiles(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the worker's files: %v", err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = l
		}
	}
	return out
}

// TestDuckProcWorkerEnvironment: a query process gets none of the server's
// environment but what DuckDB and Go read — not a PostgreSQL package's DSN.
func TestDuckProcWorkerEnvironment(t *testing.T) {
	t.Setenv("CATALOG_TEST_PG_DSN", "postgres://u:hunter2@db.example/prod")
	t.Setenv("TZ", "UTC")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("GOMAXPROCS", "2") // the server's: a query process runs with 1
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	if len(pids) != 1 {
		t.Fatalf("workers: %v", pids)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pids[0]))
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(string(b), "\x00")
	for _, kv := range env {
		if strings.Contains(kv, "hunter2") || strings.HasPrefix(kv, "CATALOG_TEST_PG_DSN=") {
			t.Errorf("the worker has the DSN: %q", kv)
		}
	}
	for _, want := range []string{"TZ=UTC", "LC_ALL=C.UTF-8", "GOMAXPROCS=1"} {
		if !strings.Contains("\x00"+string(b)+"\x00", "\x00"+want+"\x00") {
			t.Errorf("the worker lacks %s (its environment: %q)", want, env)
		}
	}
	if strings.Contains("\x00"+string(b), "\x00GOMAXPROCS=2") {
		t.Errorf("the worker has the server's GOMAXPROCS (its environment: %q)", env)
	}
}

// TestDuckProcWorkerInheritsNoFiles: files DuckDB opened in the server (the
// database of another model, not closed on exec) are not open in a query
// process: it holds its pipes and its own model's files only.
func TestDuckProcWorkerInheritsNoFiles(t *testing.T) {
	other := openTestDuck(t) // its database file is open in this process
	self := fmt.Sprintf("/proc/%d/fd", os.Getpid())
	held := false
	for fd, l := range workerFiles(t, os.Getpid()) {
		if strings.HasPrefix(l, other.tmp+string(filepath.Separator)) {
			info, _ := os.ReadFile(filepath.Join(self, "..", "fdinfo", fd))
			if flags, ok := fdFlags(string(info)); ok && flags&0o2000000 == 0 {
				held = true
			}
		}
	}
	if !held {
		t.Fatal("no file of the in-process model is open without close-on-exec here: this test would show nothing")
	}
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	for _, pid := range p.pids() {
		for fd, l := range workerFiles(t, pid) {
			if strings.HasPrefix(l, other.tmp+string(filepath.Separator)) {
				t.Errorf("the worker holds file %s, %s, of another model", fd, l)
			}
		}
	}
}

// TestDuckProcProtocolUnreachable: a query cannot read the worker's protocol
// pipes (its standard input, file descriptor 3) or what the process is made
// of: every such path is refused as outside the package folder, and the worker
// goes on answering.
func TestDuckProcProtocolUnreachable(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	before := p.pids()
	for _, sql := range []string{
		"SELECT * FROM read_text('/dev/fd/3')",
		"SELECT * FROM read_text('/proc/self/fd/3')",
		"SELECT * FROM read_blob('/dev/fd/0')",
		"SELECT * FROM read_text('/dev/stdin')",
		"SELECT * FROM read_csv('/dev/stdin')",
		"SELECT * FROM read_json('/proc/self/fd/0')",
		"SELECT * FROM read_text('/proc/self/environ')",
		"SELECT * FROM read_text('/proc/self/cmdline')",
		"SELECT * FROM read_blob('/proc/self/mem')",
		fmt.Sprintf("SELECT * FROM read_text('/proc/%d/environ')", os.Getpid()),
		"SELECT * FROM glob('/proc/self/fd/*')",
	} {
		_, err := p.Query(context.Background(), sql, nil, testLimits)
		var ref *RefusedError
		if !errors.As(err, &ref) || !strings.Contains(err.Error(), "Permission Error") {
			t.Errorf("%s: want a refusal, got %v", sql, err)
		}
	}
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after: %v %+v", err, res)
	}
	if after := p.pids(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("workers before %v, after %v: the refusals should cost no process", before, after)
	}
}

// TestDuckProcSlowStart: a model whose processes take longer to start than its
// queries' limit still answers: the query that started one is answered at its
// limit with an error that says so, the process goes on starting, and the next
// query runs in it. No slot stays taken.
func TestDuckProcSlowStart(t *testing.T) {
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-slow")})
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: slowStart / 3}
	start := time.Now()
	_, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, lim)
	took := time.Since(start)
	var ee *EngineError
	if !errors.As(err, &ee) || !ee.Starting || !strings.Contains(err.Error(), "not ready within") {
		t.Fatalf("want an EngineError saying the process was still starting, got %T %v", err, err)
	}
	if took > lim.Timeout+time.Second {
		t.Errorf("answered after %v, with a %v limit", took, lim.Timeout)
	}
	nextQueryInStarted(t, p)
}

// nextQueryInStarted waits until the one process a query left starting is idle
// with no slot taken, and checks that the next query runs in it (a limit with
// room: a first query in a process may take long on a loaded machine; a new
// process would show as another pid).
func nextQueryInStarted(t *testing.T, p *DuckProc) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(p.pids()) != 1 || p.slots.inUse() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the started process never became idle (workers %v, slots taken %d)", p.pids(), p.slots.inUse())
		}
		time.Sleep(20 * time.Millisecond)
	}
	idle := p.pids()
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("the next query: %v %+v", err, res)
	}
	if after := p.pids(); !slices.Equal(after, idle) {
		t.Errorf("the next query did not run in the process the first one started: workers %v before it, %v after", idle, after)
	}
}

// TestDuckProcCloseAnswersWaiters: closing a model (a reload replaced it)
// answers the queries waiting for one of its slots at once with ErrClosed (the
// service runs them again on the new model), instead of after their limit.
func TestDuckProcCloseAnswersWaiters(t *testing.T) {
	p := openTestProc(t, nil)
	for range duckMaxConns { // every slot held, as by queries computing
		p.slots.acquire(context.Background(), "", nil)
	}
	defer func() {
		for range duckMaxConns {
			p.slots.release()
		}
	}()
	errc := make(chan error, 1)
	go func() {
		_, err := p.Query(context.Background(), "SELECT 1", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Second})
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond) // the query waits for a slot
	start := time.Now()
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("want ErrClosed, got %v", err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("answered %v after Close", took)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the waiting query was not answered within 3s of Close")
	}
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not return")
	}
}

// TestDuckProcDiscard: a discarded model (the server stopping without waiting)
// starts no process any more: its queries get ErrClosed.
func TestDuckProcDiscard(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	p.Discard()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("worker %d runs after Discard", pid)
		}
	}
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); !errors.Is(err, ErrClosed) {
		t.Errorf("after Discard: %v", err)
	}
	if left := p.pids(); len(left) > 0 {
		t.Errorf("workers after Discard: %v", left)
	}
}

// TestDuckProcIdleTotal: the idle processes of all models together are capped
// (duckIdleTotal): reading one model after another ends the longest idle, and
// every model still answers.
func TestDuckProcIdleTotal(t *testing.T) {
	setIdleTotal := func(n int) (old int) {
		idleAll.mu.Lock() // add reads it under this lock
		defer idleAll.mu.Unlock()
		old, duckIdleTotal = duckIdleTotal, n
		return old
	}
	defer setIdleTotal(setIdleTotal(3))
	const total = 3
	var ps []*DuckProc
	var all []int
	for range 5 {
		p := openTestProc(t, nil)
		ps = append(ps, p)
		if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
			t.Fatal(err)
		}
		all = append(all, p.pids()...)
	}
	idle := 0
	for _, p := range ps {
		idle += len(p.pids())
	}
	living := 0
	for _, pid := range all {
		if alive(pid) {
			living++
		}
	}
	if idle > total || living > total {
		t.Errorf("%d idle workers known, %d processes alive; want at most %d", idle, living, total)
	}
	if len(ps[0].pids()) != 0 || len(ps[4].pids()) != 1 {
		t.Errorf("the longest idle should have ended first: first model %v, last %v", ps[0].pids(), ps[4].pids())
	}
	for i, p := range ps {
		res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
		if err != nil || cell(res, 0, 0) != "3" {
			t.Errorf("model %d: %v %+v", i, err, res)
		}
	}
}

// TestDuckProcStress: many queries at once, with short limits (some shorter
// than starting a process), computations DuckDB cannot stop and callers that
// go away, while the model is closed under them: every query is answered, and
// afterwards no process of the model is alive, no slot is taken and no
// goroutine is left.
func TestDuckProcStress(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	p := openTestProc(t, nil)
	var seen sync.Map
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			ctx := context.Background()
			if i%7 == 3 {
				c, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
				defer cancel()
				ctx = c
			}
			sql := fmt.Sprintf("SELECT count(*) + %d FROM range(100000)", i)
			if i%5 == 0 {
				sql = longSQL(40000)
			}
			lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: time.Duration(20+(i%6)*80) * time.Millisecond}
			time.Sleep(time.Duration(i%10) * 30 * time.Millisecond)
			for _, pid := range p.pids() {
				seen.Store(pid, true)
			}
			_, err := p.Query(ctx, sql, nil, lim)
			var (
				te *TimeoutError
				ee *EngineError
				be *BusyError
			)
			if err != nil && !errors.As(err, &te) && !errors.As(err, &ee) && !errors.As(err, &be) &&
				!errors.Is(err, ErrClosed) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("query %d: %T %v", i, err, err)
			}
		})
	}
	time.Sleep(250 * time.Millisecond)
	p.Close()
	wg.Wait()
	for _, pid := range p.pids() {
		seen.Store(pid, true)
	}
	n := 0
	seen.Range(func(k, _ any) bool {
		n++
		if alive(k.(int)) {
			t.Errorf("worker %d alive after Close", k)
		}
		return true
	})
	if left := p.pids(); len(left) > 0 {
		t.Errorf("workers known after Close: %v", left)
	}
	// A process abandoned while starting (its query's time was up) gives its
	// slot back when its start ends — Close killed it, but that goroutine may
	// not have run yet on a loaded machine.
	deadline := time.Now().Add(5 * time.Second)
	for (p.slots.inUse() != 0 || runtime.NumGoroutine() > goroutines+2) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if p.slots.inUse() != 0 {
		t.Errorf("%d slots taken after Close", p.slots.inUse())
	}
	if g := runtime.NumGoroutine(); g > goroutines+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines, %d before:\n%s", g, goroutines, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%d worker processes seen", n)
}

// TestDuckProcTimeoutSaysTheLimit: a query whose process had to start first
// (part of its time went to that) is told the limit it was given, not what was
// left of it when its process got the query — in both ways DuckDB stops.
func TestDuckProcTimeoutSaysTheLimit(t *testing.T) {
	// Long enough for a process to start on a loaded machine, far shorter
	// than longSQL(80000) computes (about 14 s here).
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 2 * time.Second}
	for _, sql := range []string{
		longSQL(80000), // DuckDB cannot stop it: the process is killed
		"SELECT count(*) FROM range(1000000000000) a", // DuckDB stops it
	} {
		p := openTestProc(t, nil) // no process yet
		_, err := p.Query(context.Background(), sql, nil, lim)
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("%s: want a TimeoutError, got %T %v", sql, err, err)
		}
		if te.Limit != lim.Timeout || !strings.Contains(err.Error(), " 2s limit") {
			t.Errorf("%s: the limit given was %v, the error says %v: %v", sql, lim.Timeout, te.Limit, err)
		}
	}
}

// TestDuckProcCloseWhileStarting: a model closed while a process it abandoned
// (its query's time was up) is still starting leaves no process behind.
func TestDuckProcCloseWhileStarting(t *testing.T) {
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-slow")})
	_, err := p.Query(context.Background(), "SELECT 1", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 100 * time.Millisecond})
	if ee := (*EngineError)(nil); !errors.As(err, &ee) || !ee.Starting {
		t.Fatalf("want the process still starting, got %v", err)
	}
	starting := p.pids()
	if len(starting) != 1 {
		t.Fatalf("starting processes: %v", starting)
	}
	p.Close()
	deadline := time.Now().Add(slowStart + 2*time.Second)
	for (alive(starting[0]) || p.slots.inUse() > 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(starting[0]) || len(p.pids()) > 0 || p.slots.inUse() > 0 {
		t.Errorf("after Close: process %d alive %v, workers %v, slots taken %d", starting[0], alive(starting[0]), p.pids(), p.slots.inUse())
	}
}

// TestDuckProcOOMScore: the system's out-of-memory killer picks a query process
// before the server (its score raised to the most).
func TestDuckProcOOMScore(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	for _, pid := range p.pids() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", pid))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != "1000" {
			t.Errorf("worker %d: oom_score_adj %s, want 1000", pid, got)
		}
	}
	if b, _ := os.ReadFile("/proc/self/oom_score_adj"); strings.TrimSpace(string(b)) == "1000" {
		t.Log("this process's score is 1000 already (the workers' would be without raising it)")
	}
}

// TestNotUTF8Refused: SQL that is not UTF-8 text (a catalog file in Latin-1) is
// refused, saying where, the same way in the server's process and in a query
// process — not failed without a message in one and run with the bytes
// replaced (U+FFFD, as JSON carries them) in the other.
func TestNotUTF8Refused(t *testing.T) {
	d, p := openBoth(t)
	for _, sql := range []string{"SELECT 'caf\xe9' AS x", "SELECT name FROM items WHERE name = 'caf\xe9'", "SELECT nme\xff FROM items"} {
		_, errIn := d.Query(context.Background(), sql, nil, testLimits)
		_, errIso := p.Query(context.Background(), sql, nil, testLimits)
		var ref *RefusedError
		if !errors.As(errIn, &ref) || !strings.Contains(errIn.Error(), "not UTF-8") || !strings.Contains(errIn.Error(), "at character") {
			t.Errorf("%q in process: want a refusal saying where, got %T %v", sql, errIn, errIn)
		}
		if fmt.Sprint(errIn) != fmt.Sprint(errIso) {
			t.Errorf("%q: in process %v, in a query process %v", sql, errIn, errIso)
		}
	}
}

// TestDuckProcCannotStart: a model whose query processes cannot start (the
// program is missing, or ends at once) fails each query at once, saying it is
// the server's fault, and holds no slot or process afterwards.
func TestDuckProcCannotStart(t *testing.T) {
	for name, worker := range map[string]func() *exec.Cmd{
		"missing":      func() *exec.Cmd { return exec.Command(filepath.Join(t.TempDir(), "no-such-program")) },
		"ends at once": func() *exec.Cmd { return exec.Command("/bin/sh", "-c", "exit 7") },
	} {
		t.Run(name, func(t *testing.T) {
			p := openProc(t, nil, DuckConfig{Worker: worker})
			for range 3 {
				start := time.Now()
				_, err := p.Query(context.Background(), "SELECT 1", nil, testLimits)
				var ee *EngineError
				if !errors.As(err, &ee) || !ee.Broken || !strings.Contains(err.Error(), "fault of the server") {
					t.Fatalf("want an EngineError saying the server is at fault, got %T %v", err, err)
				}
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("answered after %v", took)
				}
			}
			if p.slots.inUse() != 0 || len(p.pids()) != 0 {
				t.Errorf("slots taken %d, workers %v", p.slots.inUse(), p.pids())
			}
		})
	}
}

// TestDuckProcSpillApart: queries of one model spilling to disk at once, each
// in its own process, get the answer the query has alone: each process spills
// to a folder of its own (DuckDB names its spill files after their order, so two
// processes sharing a folder overwrote each other's: "Could not read enough
// bytes from file …/duckdb_temp_storage_DEFAULT-0.tmp", or a wrong answer), and
// a process's spill folder goes with it.
func TestDuckProcSpillApart(t *testing.T) {
	p := openProc(t, nil, DuckConfig{MemoryLimit: "40MB", Threads: 1})
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 60 * time.Second}
	// A sort of a million rows of 55 bytes and more: past 40MB, it spills.
	const q = "SELECT sum(rn * (h % 1000)) AS s, count(*) AS n FROM (SELECT h, row_number() OVER (ORDER BY h, pad) rn FROM (SELECT hash(x) AS h, repeat('y', 50) || x AS pad FROM range(1000000) t(x)))"
	res, err := p.Query(context.Background(), q, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	want := cell(res, 0, 0)
	for round := range 1 {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				res, err := p.Query(context.Background(), q, nil, lim)
				if err != nil || cell(res, 0, 0) != want {
					t.Errorf("round %d, query %d: %v %s, want %s", round, i, err, cell(res, 0, 0), want)
				}
			})
		}
		wg.Wait()
	}
	ents, err := os.ReadDir(p.file.tmp)
	if err != nil {
		t.Fatal(err)
	}
	spills := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "spill") {
			spills++
		}
	}
	// At most duckIdleWorkers processes stay; the others' folders went with them.
	if spills > duckIdleWorkers {
		t.Errorf("%d spill folders for %d processes: %v", spills, len(p.pids()), ents)
	}
}

// TestDuckProcIdleWorkerGone: an idle process that cannot take a query any more
// (it ended, and the server has not noticed yet) costs the query nothing: it
// goes to a new process.
func TestDuckProcIdleWorkerGone(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	if len(p.idle) != 1 {
		p.mu.Unlock()
		t.Fatalf("idle workers: %d", len(p.idle))
	}
	gone := p.idle[0]
	p.mu.Unlock()
	gone.in.Close() // its input, as a pipe whose reader is gone: the query cannot be sent
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("%v %+v", err, res)
	}
	if alive(gone.cmd.Process.Pid) {
		t.Error("the process that could not take the query still runs")
	}
}

// TestDuckProcBigIdleEnds: a process holding more than duckIdleMaxRSS after its
// query is ended rather than kept idle; one under it is kept.
func TestDuckProcBigIdleEnds(t *testing.T) {
	defer duckIdleMaxRSS.Store(duckIdleMaxRSS.Load())
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // its size looked at
	pids := p.pids()
	if len(pids) != 1 {
		t.Fatalf("under the limit, the process is kept: %v", pids)
	}
	duckIdleMaxRSS.Store(residentBytes(pids[0]) + 50<<20)
	// Wide rows, materialised whole in the process: about 200 MB.
	res, err := p.Query(context.Background(), "SELECT repeat('x', 100000) AS w FROM range(2000)", nil, Limits{RowLimit: 2000, ByteBudget: 1 << 20, Timeout: 30 * time.Second})
	if err != nil || !res.Truncated {
		t.Fatalf("%v %+v", err, res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(p.pids()) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := p.pids(); len(left) != 0 {
		t.Errorf("the process that grew past %d MB is kept idle: %v", duckIdleMaxRSS.Load()>>20, left)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs", pid)
		}
	}
	res, err = p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after: %v %+v", err, res)
	}
}

// TestDuckProcMemoryErrorMatches: a query past the model's memory limit is told
// so the same way in a query process as in the server's process (the limit as
// configured, DuckDB's message), and the process goes on serving.
func TestDuckProcMemoryErrorMatches(t *testing.T) {
	m := testModel(t)
	cfg := DuckConfig{MemoryLimit: "20MB", Threads: 1}
	d, err := OpenDuck(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, cfg)
	const q = "SELECT list(x ORDER BY x) FROM range(20000000) t(x)"
	_, errIn := d.Query(context.Background(), q, nil, testLimits)
	_, errIso := p.Query(context.Background(), q, nil, testLimits)
	var me *MemoryError
	if !errors.As(errIn, &me) || me.Limit != "20MB" {
		t.Fatalf("in process: want a MemoryError at 20MB, got %T %v", errIn, errIn)
	}
	if fmt.Sprintf("%T %v", errIn, errIn) != fmt.Sprintf("%T %v", errIso, errIso) {
		t.Errorf("in process %T %v\nin a query process %T %v", errIn, errIn, errIso, errIso)
	}
	res, err := p.Query(context.Background(), "SELECT 41 + 1", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "42" {
		t.Errorf("after: %v %+v", err, res)
	}
}

// TestDuckProcCallerGoneWhileStarting: a caller that goes away while its
// query's process starts is answered at once; the process still becomes an
// idle one for the next query, and no slot stays taken.
func TestDuckProcCallerGoneWhileStarting(t *testing.T) {
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-slow")})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Query(ctx, "SELECT 1", nil, testLimits)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want the caller's cancellation, got %v", err)
	}
	if took := time.Since(start); took > slowStart/2 {
		t.Errorf("answered after %v, the process taking %v to start", took, slowStart)
	}
	nextQueryInStarted(t, p)
}

// TestDuckProcCloseWhileWaitingForStart: a query waiting for its process to
// start when the model is closed is answered ErrClosed at once (the service
// runs it again on the new model), and Close does not wait for the start.
func TestDuckProcCloseWhileWaitingForStart(t *testing.T) {
	// A process that does not start: a Close that waited for it would take
	// duckStartLimit (it is killed then); killing it takes far less, even on
	// a loaded machine.
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-stuck")})
	errc := make(chan error, 1)
	go func() {
		_, err := p.Query(context.Background(), "SELECT 1", nil, testLimits)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond) // the process is starting
	start := time.Now()
	p.Close()
	if took := time.Since(start); took > duckStartLimit/2 {
		t.Errorf("Close took %v, the process not starting within %v", took, duckStartLimit)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("want ErrClosed, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the query was not answered")
	}
	deadline := time.Now().Add(5 * time.Second)
	for (len(p.pids()) > 0 || p.slots.inUse() > 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(p.pids()) > 0 || p.slots.inUse() > 0 {
		t.Errorf("after Close: workers %v, slots taken %d", p.pids(), p.slots.inUse())
	}
}

// TestDuckProcIdleSizedBeforeReuse: a process whose size after its query has
// not been looked at yet is not given to the next query unlooked at: one past
// duckIdleMaxRSS is ended, even when the next query comes at once (its size was
// looked at after it became idle, and a query taking it first ran with its
// leftover memory counted against its own bound). One under it is kept.
func TestDuckProcIdleSizedBeforeReuse(t *testing.T) {
	defer duckIdleMaxRSS.Store(duckIdleMaxRSS.Load())
	p := openTestProc(t, nil)
	// Each process spills to a folder of its own: the query names its process.
	const which = "SELECT current_setting('temp_directory')"
	spill := func() string {
		res, err := p.Query(context.Background(), which, nil, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		return cell(res, 0, 0)
	}
	first := spill()
	if again := spill(); again != first {
		t.Fatalf("under the limit the process is kept: %s, then %s", first, again)
	}
	duckIdleMaxRSS.Store(1) // every process is past it
	seen := map[string]bool{}
	for range 20 {
		s := spill()
		if seen[s] {
			t.Fatalf("a process past duckIdleMaxRSS answered again: %s", s)
		}
		seen[s] = true
	}
}
