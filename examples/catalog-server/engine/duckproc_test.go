package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// openTestProc opens model m (testModel when nil) for queries in processes of
// their own, started from this test binary.
func openTestProc(t *testing.T, m *catalog.Model) *DuckProc {
	t.Helper()
	return openProc(t, m, DuckConfig{})
}

// openProc is openTestProc with cfg (its Worker testWorker when nil); the model
// is closed when the test ends (closing it again is harmless).
func openProc(t *testing.T, m *catalog.Model, cfg DuckConfig) *DuckProc {
	t.Helper()
	if m == nil {
		m = testModel(t)
	}
	if cfg.Worker == nil {
		cfg.Worker = testWorker
	}
	p, err := OpenDuckProc(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// killPID kills process pid from outside, as a crash or the system would.
func killPID(pid int) {
	if proc, err := os.FindProcess(pid); err == nil {
		proc.Kill()
	}
}

// openBoth opens one model in the server's process and for query processes.
func openBoth(t *testing.T) (*Duck, *DuckProc) {
	t.Helper()
	m := testModel(t)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, openTestProc(t, m)
}

// cell is the JSON of a result's value.
func cell(res *Result, i, j int) string {
	if res == nil || i >= len(res.Rows) || j >= len(res.Rows[i]) {
		return "<none>"
	}
	b, _ := json.Marshal(res.Rows[i][j])
	return string(b)
}

// pids returns the process ids of p's workers.
func (p *DuckProc) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for w := range p.all {
		out = append(out, w.cmd.Process.Pid)
	}
	return out
}

// alive reports whether process pid exists (and is not a zombie).
func alive(pid int) bool {
	f, ok := procStat(pid)
	return ok && (len(f) == 0 || f[0] != "Z") // the state: "Z" is a zombie
}

// procStat returns the fields of /proc/PID/stat after the command name (in
// parentheses, which may hold spaces): state, ppid, pgrp, session, tty, tpgid,
// flags, minflt, …; false when the process is gone.
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:]), true
}

// TestDuckProcMatchesDuck: a query in a process of its own answers what it
// answers in the server's process — the same columns and rows (as JSON), or the
// same error, of the same type, with the same message.
func TestDuckProcMatchesDuck(t *testing.T) {
	d, p := openBoth(t)
	if diff := fmt.Sprint(d.Columns()) + fmt.Sprint(d.Broken()); diff != fmt.Sprint(p.Columns())+fmt.Sprint(p.Broken()) {
		t.Errorf("columns or broken sources differ:\n%v %v\n%v %v", d.Columns(), d.Broken(), p.Columns(), p.Broken())
	}
	for _, tc := range []struct {
		sql    string
		params map[string]any
		lim    Limits
	}{
		{"SELECT * FROM items ORDER BY id", nil, testLimits},
		{"SELECT * FROM items ORDER BY id", nil, Limits{RowLimit: 2, ByteBudget: 1 << 20, Timeout: 10 * time.Second}},
		{"SELECT * FROM items ORDER BY id", nil, Limits{RowLimit: 100, ByteBudget: 40, Timeout: 10 * time.Second}},
		{"SELECT i.*, t.tag FROM items i LEFT JOIN tags t USING (id) ORDER BY id", nil, testLimits},
		{"SELECT 9007199254740993::HUGEINT AS big, 12.345::DECIMAL(10,3) AS dec, 'NaN'::DOUBLE AS nan, TIMESTAMP '2024-05-06 07:08:09.123456' AS ts, DATE '2024-01-02' AS d, INTERVAL 3 DAY AS iv", nil, testLimits},
		{`SELECT '{"n": 12345678901234567890, "f": 0.1}'::JSON AS j, [1, 2, 3] AS l, {'a': 1, 'b': [2.5]} AS s, MAP {'k': 1} AS m, '00000000-0000-0000-0000-000000000001'::UUID AS u, 'x'::BLOB AS b`, nil, testLimits},
		{"SELECT $i + 1 AS i, $f * 2 AS f, NOT $b AS b, upper($s) AS s, $f AS f1", map[string]any{"i": int64(41), "f": float64(3), "b": true, "s": "pear"}, testLimits},
		{"SELECT $d::DATE + 1 AS d", map[string]any{"d": "2024-02-28"}, testLimits},
		{"SELECT TIME '24:00:00' AS t, [TIME '24:00:00'] AS l, {'z': TIMETZ '24:00:00+02'} AS s, TIMETZ '24:00:00+02' AS tz, $t::TIME AS p", map[string]any{"t": "24:00:00"}, testLimits},
		{"SELECT INTERVAL '1 day 2 hours' AS i, [INTERVAL '-14 months 00:00:00.5'] AS l, MAP {'k': INTERVAL 3 DAY} AS m", nil, testLimits},
		{"SELECT $missing", nil, testLimits},
		{"SELECT 1", map[string]any{"extra": int64(1)}, testLimits},
		{"SELECT nme FROM items", nil, testLimits},
		{"SELECT name FROM items WHERE", nil, testLimits},
		{"SELECT 1; SELECT 2", nil, testLimits},
		{"DROP VIEW items", nil, testLimits},
		{"PRAGMA version", nil, testLimits},
		{"SELECT * FROM read_csv('/etc/passwd')", nil, testLimits},
		{"SELECT 1\x00; DROP VIEW items", nil, testLimits},
		{"SELECT repeat('x', 1000) FROM range(100000)", nil, Limits{RowLimit: 10000, ByteBudget: 1 << 20, Timeout: 10 * time.Second}},
		{"SELECT * FROM escapes", nil, testLimits},
		// The most values a byte budget holds (its answer's frame at its largest).
		{"SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, NULL AS e FROM range(100000)", nil, Limits{RowLimit: 100000, ByteBudget: 64 << 10, Timeout: 10 * time.Second}},
	} {
		t.Run(strings.ReplaceAll(tc.sql, "\x00", "NUL"), func(t *testing.T) {
			want, wantErr := d.Query(context.Background(), tc.sql, tc.params, tc.lim)
			got, gotErr := p.Query(context.Background(), tc.sql, tc.params, tc.lim)
			if wantErr != nil || gotErr != nil {
				if fmt.Sprintf("%T %v", wantErr, wantErr) != fmt.Sprintf("%T %v", gotErr, gotErr) {
					t.Errorf("errors differ:\nin process %T %v\nin its own %T %v", wantErr, wantErr, gotErr, gotErr)
				}
				return
			}
			want.ElapsedMs, got.ElapsedMs = 0, 0
			wb, _ := json.Marshal(want)
			gb, _ := json.Marshal(got)
			if string(wb) != string(gb) {
				t.Errorf("results differ:\nin process %s\nin its own %s", wb, gb)
			}
		})
	}
}

// TestDuckProcStopsComputation: a computation DuckDB cannot interrupt (constant
// folding, see TestDuckAnswersAtLimit) really stops at the query's limit: its
// process is ended, nothing computes on, and the model answers the next
// queries at once, however many such computations came before.
func TestDuckProcStopsComputation(t *testing.T) {
	p := openTestProc(t, nil)
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 300 * time.Millisecond}
	for i := range 3 {
		// A worker started first (each run's was ended by the run before), so
		// that the limit is the computation's: starting one may take longer
		// than 300 ms on a loaded machine.
		if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
			t.Fatal(err)
		}
		before := p.pids()
		start := time.Now()
		_, err := p.Query(context.Background(), longSQL(40000), nil, lim)
		answered := time.Since(start)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Running || !strings.Contains(err.Error(), "was stopped") {
			t.Fatalf("run %d: want a timeout that says the query was stopped, got %v", i, err)
		}
		if max := lim.Timeout + stopGrace + workerSlack + time.Second; answered > max {
			t.Errorf("run %d: answered after %v, more than %v", i, answered, max)
		}
		for _, pid := range before {
			if alive(pid) {
				t.Errorf("run %d: the worker %d still runs after its query was stopped", i, pid)
			}
		}
		if left := p.pids(); len(left) != 0 {
			t.Errorf("run %d: workers left: %v", i, left)
		}
		t.Logf("run %d: answered after %v", i, answered)
	}
	// The model answers at once: nothing holds its slots.
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after: %v %+v", err, res)
	}
	if n := p.slots.inUse(); n != 0 {
		t.Errorf("%d slots still taken", n)
	}
}

// TestDuckProcCallerGone: a caller that goes away while its query computes ends
// the query's process.
func TestDuckProcCallerGone(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	before := p.pids()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Query(ctx, longSQL(40000), nil, testLimits)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want the caller's cancellation, got %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("answered after %v", took)
	}
	for _, pid := range before {
		if alive(pid) {
			t.Errorf("the worker %d still runs after its caller went away", pid)
		}
	}
}

// TestDuckProcWorkerDies: a worker that dies while idle is replaced without a
// word; one that dies during a query fails that query only, with an error that
// says so, and the next query runs in a new process.
func TestDuckProcWorkerDies(t *testing.T) {
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	idle := slices.Clone(p.idle)
	p.mu.Unlock()
	if len(idle) == 0 {
		t.Fatal("no idle worker to kill")
	}
	for _, w := range idle {
		killPID(w.cmd.Process.Pid)
	}
	// Died while idle: ended, all its threads (a killed process's main thread
	// shows as a zombie while the others still hold its pipes, longer than
	// 100 ms on a loaded machine; a query written meanwhile reaches it and is
	// answered "ended before it answered … call again").
	for _, w := range idle {
		select {
		case <-w.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("the killed worker %d did not end", w.cmd.Process.Pid)
		}
	}
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after an idle worker died: %v %+v", err, res)
	}
	// Killed during a query.
	pids := p.pids()
	time.AfterFunc(300*time.Millisecond, func() {
		for _, pid := range pids {
			killPID(pid)
		}
	})
	_, err = p.Query(context.Background(), longSQL(40000), nil, testLimits)
	var ee *EngineError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "ended before it answered") {
		t.Fatalf("want an EngineError, got %v", err)
	}
	res, err = p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after a worker died in a query: %v %+v", err, res)
	}
}

// TestDuckProcConcurrency: many queries at once all answer, in at most
// duckMaxConns processes, and at most duckIdleWorkers stay afterwards.
func TestDuckProcConcurrency(t *testing.T) {
	p := openTestProc(t, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	most := 0
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			res, err := p.Query(context.Background(), fmt.Sprintf("SELECT count(*) + %d AS n, sum(range) FROM range(200000)", i), nil, testLimits)
			if err == nil && cell(res, 0, 0) != fmt.Sprint(200000+i) {
				err = fmt.Errorf("query %d: %v", i, res.Rows)
			}
			mu.Lock()
			most = max(most, len(p.pids()))
			mu.Unlock()
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if most > duckMaxConns {
		t.Errorf("%d workers at once, more than %d", most, duckMaxConns)
	}
	if n := len(p.pids()); n > duckIdleWorkers {
		t.Errorf("%d workers idle, more than %d", n, duckIdleWorkers)
	}
	t.Logf("at most %d workers", most)
}

// TestDuckProcClose: closing the model ends its processes, within the limit of a
// query still computing, and removes its files; queries after it are told so.
func TestDuckProcClose(t *testing.T) {
	p := openTestProc(t, nil)
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 300 * time.Millisecond}
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	go p.Query(context.Background(), longSQL(40000), nil, lim)
	time.Sleep(100 * time.Millisecond)
	pids := p.pids()
	start := time.Now()
	p.Close()
	if took := time.Since(start); took > lim.Timeout+stopGrace+workerSlack+time.Second {
		t.Errorf("Close took %v", took)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("worker %d runs after Close", pid)
		}
	}
	if _, err := os.Stat(p.file.tmp); !os.IsNotExist(err) {
		t.Errorf("the model's folder is still there: %v", err)
	}
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestDuckProcIdleWorkersEnd: a worker left idle for duckIdleTime ends; the next
// query starts another.
func TestDuckProcIdleWorkersEnd(t *testing.T) {
	defer func(d time.Duration) { duckIdleTime = d }(duckIdleTime)
	duckIdleTime = 300 * time.Millisecond
	p := openTestProc(t, nil)
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	if len(pids) != 1 {
		t.Fatalf("workers after one query: %v", pids)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(p.pids()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := p.pids(); len(left) > 0 || alive(pids[0]) {
		t.Fatalf("the idle worker %v did not end (left: %v)", pids, left)
	}
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after: %v %+v", err, res)
	}
}

// TestDuckProcStdoutApart: what a query process writes to its standard output
// (nothing of ours does; a library might) goes to the server's standard error,
// not into the answers.
func TestDuckProcStdoutApart(t *testing.T) {
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-noisy")})
	res, err := p.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestDuckProcServerCap: models sharing a ProcessLimit run at most that many
// query processes at once between them: a query of another model waits, and
// is told the server's query processes were busy if none frees up within its
// limit; all slots are free again afterwards.
func TestDuckProcServerCap(t *testing.T) {
	g := NewProcessLimit(2)
	a, b := openProc(t, nil, DuckConfig{Processes: g}), openProc(t, nil, DuckConfig{Processes: g})
	slow := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if _, err := a.Query(context.Background(), longSQL(20000), nil, slow); err != nil {
				t.Errorf("slow query: %v", err)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for g.slots.inUse() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, err := b.Query(context.Background(), "SELECT 1", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 200 * time.Millisecond})
	var be *BusyError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "all 2 query processes of the server were running other queries") {
		t.Errorf("with the server's query processes busy: %v", err)
	}
	wg.Wait()
	res, err := b.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("after: %v %+v", err, res)
	}
	if n := g.slots.inUse(); n != 0 {
		t.Errorf("%d of the server's slots still taken", n)
	}
}

// TestDuckProcWaitedForWhich: a query that waited most of its limit and then ran
// out of time is told what it waited for: the server's query processes (shared
// by all models, -max-query-processes) or its own model's.
//
// On a loaded machine (other tests' runs), what the test controls is when the
// slots it holds are given back, counted from when the query is seen waiting
// for one (not from when the goroutine giving them back started), and the
// query's process started before the wait; the query's limit leaves a second
// after that for it to be given its slot and run out of time. Before, with a
// 1.5 s limit and the slots given back 1 s after the goroutine started, a
// query process starting in the half second left failed the query for that
// ("was not ready within the query's 1.5s limit"), and a query that began
// late had waited less than half its limit (not "busy").
func TestDuckProcWaitedForWhich(t *testing.T) {
	heavy := "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 3 * time.Second}
	const hold = 2 * time.Second // from the query's wait on: more than half its limit
	warm := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: time.Minute}
	// giveBack releases n slots of s held by the test, hold after a query is
	// seen waiting for one.
	giveBack := func(s *fairSlots, n int) {
		go func() {
			deadline := time.Now().Add(time.Minute)
			for {
				if _, waiting := s.taken(); waiting > 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(hold)
			for range n {
				s.release()
			}
		}()
	}

	g := NewProcessLimit(1)
	p := openProc(t, nil, DuckConfig{Processes: g})
	// A query process started before the wait, as below.
	if _, err := p.Query(context.Background(), "SELECT 1", nil, warm); err != nil {
		t.Fatal(err)
	}
	g.slots.acquire(context.Background(), "", nil) // another model's query holds the server's one process
	giveBack(g.slots, 1)
	_, err := p.Query(context.Background(), heavy, nil, lim)
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Busy() || !te.Server || !strings.Contains(err.Error(), "waiting for a query process: the only one the server runs at a time, over all its models, was running another query") {
		t.Errorf("waited for the server's process: %v (%+v)", err, te)
	}

	q := openProc(t, nil, DuckConfig{Processes: NewProcessLimit(16)})
	// A query process started before the wait: on a loaded machine, starting
	// one in the time left after it failed the query for that instead.
	if _, err := q.Query(context.Background(), "SELECT 1", nil, warm); err != nil {
		t.Fatal(err)
	}
	for range duckMaxConns {
		q.slots.acquire(context.Background(), "", nil)
	}
	giveBack(q.slots, duckMaxConns)
	_, err = q.Query(context.Background(), heavy, nil, lim)
	if !errors.As(err, &te) || !te.Busy() || te.Server || !strings.Contains(err.Error(), "waiting its turn: this model runs 8 queries at once") {
		t.Errorf("waited for the model's processes: %v (%+v)", err, te)
	}
}
