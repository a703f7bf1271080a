package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestStopDoesNotWaitForComputations: a server told to stop while DuckDB
// computes past a query's time limit (a calculation it cannot interrupt) waits
// for it at most -stop-wait, says so, closes every other model meanwhile, and
// leaves no model's files behind.
func TestStopDoesNotWaitForComputations(t *testing.T) {
	dir := sampleDir(t) // made once for the package's tests, in the usual TMPDIR
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the models' folders (catalog-duckdb-*) go here
	svc := newTestService(t, dir, Config{QueryTimeout: 200 * time.Millisecond})
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*")); len(dirs) == 0 {
		t.Fatal("no model folder in TMPDIR: the check below would say nothing")
	}
	start := time.Now()
	_, err := svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"})
	var te *engine.TimeoutError
	if !errors.As(err, &te) || !te.Running {
		t.Fatalf("want the computation still running in the background at the limit, got %v after %v", err, time.Since(start))
	}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	const wait = 300 * time.Millisecond
	stopStart := time.Now()
	closeWithin(svc, wait, log)
	took := time.Since(stopStart)
	if took > wait+time.Second {
		t.Errorf("stopping took %v, with -stop-wait %v", took, wait)
	}
	if !strings.Contains(logs.String(), "stopping without waiting any longer") {
		t.Errorf("the log does not say the server stopped without the computation: %q", logs.String())
	}
	// Every other model closed meanwhile; the computing one is still open.
	sn := svc.snap()
	closed := 0
	for m, e := range sn.engines {
		_, err := e.Query(context.Background(), "SELECT 1", nil, engine.Limits{RowLimit: 1, ByteBudget: 1 << 10, Timeout: time.Second})
		name := m.Package.Project.Name + "/" + m.Package.Name + "/" + m.Name
		switch {
		case name == "retail/shop/sales":
			if err != nil && !errors.Is(err, engine.ErrClosed) {
				t.Errorf("%s: %v", name, err)
			}
		case !errors.Is(err, engine.ErrClosed):
			t.Errorf("%s: not closed while another model computed: %v", name, err)
		default:
			closed++
		}
	}
	if closed == 0 {
		t.Error("no other model to check")
	}
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*")); len(dirs) > 0 {
		t.Errorf("left behind: %v", dirs)
	}
	t.Logf("stopped after %v, %d other models closed; the computation started %v ago", took, closed, time.Since(start))
}

// TestReloadBesideComputation: a reload replaces a model on which DuckDB still
// computes past a query's limit. The reload does not wait for it, a query
// holding the replaced model (resolved before the reload) is told so at once
// and runs again on the new one, and the new model answers.
func TestReloadBesideComputation(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the models' folders (catalog-duckdb-*) go here
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/a/manifest.json": "{}", "p/a/m.sql": "-- @source s\nSELECT * FROM read_csv('data/t.csv');\n", "p/a/data/t.csv": "x\n1\n"})
	svc := newTestService(t, dir, Config{QueryTimeout: 200 * time.Millisecond})
	ctx := context.Background()
	sn := svc.snap()
	old := sn.engines[sn.cat.Lookup("p/a/m").Model]
	_, err := svc.Execute(ctx, executeIn{Path: "p/a/m", SQL: "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"})
	var te *engine.TimeoutError
	if !errors.As(err, &te) || !te.Running {
		t.Fatalf("want the computation still running in the background at the limit, got %v", err)
	}
	time.Sleep(20 * time.Millisecond) // a later modification time than the first load's
	writeFiles(t, dir, map[string]string{"p/a/data/t.csv": "x\n1\n2\n"})
	start := time.Now()
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the reload took %v", took)
	}
	time.Sleep(50 * time.Millisecond) // the replaced model's Close is waiting for the computation
	start = time.Now()
	_, err = old.Query(ctx, "SELECT count(*) FROM s", nil, engine.Limits{RowLimit: 10, ByteBudget: 1 << 10, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, engine.ErrClosed) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("a query on the replaced model: want ErrClosed at once, got %v after %v", err, time.Since(start))
	}
	start = time.Now()
	res, err := svc.Execute(ctx, executeIn{Path: "p/a/m", SQL: "SELECT count(*) AS n FROM s"})
	if err != nil || res.Rows[0][0] != int64(2) {
		t.Fatalf("the new model: %v %+v", err, res)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the new model answered after %v", took)
	}
	// A process stopping now (without waiting) removes the files of the new
	// model and of the replaced one if it is still closing.
	dirs, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*"))
	if len(dirs) == 0 {
		t.Fatal("no model folder in TMPDIR: the check below would say nothing")
	}
	t.Logf("model folders before: %d (2 while the replaced model still closes)", len(dirs))
	svc.Discard()
	if dirs, _ = filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*")); len(dirs) > 0 {
		t.Errorf("left behind: %v", dirs)
	}
}
