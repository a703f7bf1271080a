package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
)

// loadCrashSQL crashes DuckDB (SIGSEGV) while it prepares it: the check of a
// named query or a notebook cell at load.
const loadCrashSQL = "SELECT json_structure(repeat('[', 1000000) || repeat(']', 1000000)) AS j"

// TestLoadCrashServerKeepsRunning: catalog content that crashes DuckDB while a
// model loads — a named query, a data file read to learn a source's columns,
// and a notebook cell added while the server runs — crashes the model's load
// process, not the server (also with -isolate=false: loads are always in a
// process of their own). Each is reported where it is, and the rest of the
// model serves queries. Calling the query or the cell that crashed is refused
// before anything runs (with -isolate=false, running it crashed the server;
// with -isolate, its query process, every time), and runs again once the file
// changes it and the model loads again.
//
// The server runs in the test's process, set up as main sets it up for each
// -isolate (loads, and with -isolate queries, in processes of the server's
// program), with a check budget of a minute (engine.DuckConfig.CheckBudget;
// the server's is 2 s): on a loaded machine, the load's two crashes (the query
// boom, the source deep) before the notebook's cell outlasted 2 s, and the
// cell was reported unchecked instead of crashing DuckDB. A crash of the
// server would end the test's process.
func TestLoadCrashServerKeepsRunning(t *testing.T) {
	bin := buildServer(t)
	for _, isolate := range []bool{true, false} {
		args := []string(nil)
		if !isolate {
			args = []string{"-isolate=false"}
		}
		t.Run(strings.Join(append([]string{"isolate"}, args...), ","), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"p/a/manifest.json":  `{}`,
				"p/a/data/t.csv":     "x,y\n1,2\n3,4\n",
				"p/a/data/deep.json": `{"a":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + "}",
				"p/a/m.sql": "-- @source t\nSELECT * FROM read_csv('data/t.csv');\n" +
					"-- @source deep\nSELECT * FROM read_json('data/deep.json');\n" +
					"-- @query boom\n" + loadCrashSQL + ";\n" +
					"-- @query sum\nSELECT sum(x) AS s FROM t;\n",
			})
			duck := engine.DuckConfig{Loader: builtWorker(bin), CheckBudget: time.Minute}
			if isolate {
				duck.Worker, duck.Processes = builtWorker(bin), engine.NewProcessLimit(defaultQueryProcesses)
			}
			svc := newTestService(t, dir, Config{Duck: duck})
			ctx, cancel := context.WithCancel(context.Background())
			watched := make(chan struct{})
			go func() { defer close(watched); svc.Watch(ctx, 200*time.Millisecond) }()
			t.Cleanup(func() { cancel(); <-watched })
			cs := connectHTTP(t, startHTTP(t, svc).URL, "")
			var pkg, model Description
			call(t, cs, "describe", map[string]any{"path": "p/a"}, &pkg)
			problems := strings.Join(pkg.Problems, "\n")
			if !strings.Contains(problems, "p/a/m.sql: query boom (line 6): DuckDB crashed (SIGSEGV") || !strings.Contains(problems, "the server kept running") {
				t.Errorf("package problems: %s", problems)
			}
			call(t, cs, "describe", map[string]any{"path": "p/a/m"}, &model)
			for _, s := range model.Sources {
				if s.Name == "deep" && !strings.Contains(s.Error, "DuckDB crashed (SIGSEGV") {
					t.Errorf("source deep: %q", s.Error)
				}
			}
			var out struct{ Rows [][]any }
			if r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/sum"}, &out); r.IsError || len(out.Rows) != 1 {
				t.Fatalf("sum: %s", text(r))
			}
			wantRefusedAtLoad(t, cs, map[string]any{"path": "p/a/m/boom"}, "named query p/a/m/boom", "crashed DuckDB (SIGSEGV")
			wantRefusedAtLoad(t, cs, map[string]any{"path": "p/a/m", "queryName": "boom"}, "named query p/a/m/boom", "crashed DuckDB (SIGSEGV")
			if r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/sum"}, &out); r.IsError || len(out.Rows) != 1 {
				t.Fatalf("sum after boom: %s", text(r))
			}
			// A notebook cell that crashes DuckDB, added while the server runs:
			// the next load (at the poll) reports it.
			if err := os.WriteFile(filepath.Join(dir, "p/a/nb.md"), []byte("# NB\n\n```sql\n"+loadCrashSQL+"\n```\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				var nb Description
				call(t, cs, "describe", map[string]any{"path": "p/a"}, &nb)
				if p := strings.Join(nb.Problems, "\n"); strings.Contains(p, "nb.md: cell-1") {
					if !strings.Contains(p, "DuckDB crashed (SIGSEGV") || !strings.Contains(p, "checking the notebook cell nb/cell-1") {
						t.Errorf("cell's problem: %s", p)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the cell's crash is not reported: %s", strings.Join(nb.Problems, "\n"))
				}
				time.Sleep(200 * time.Millisecond)
			}
			wantRefusedAtLoad(t, cs, map[string]any{"path": "p/a/nb/cell-1"}, "notebook cell p/a/nb/cell-1", "crashed DuckDB (SIGSEGV")
			if r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m", "sql": "SELECT count(*) AS n FROM t"}, &out); r.IsError {
				t.Fatalf("after the reload: %s", text(r))
			}
			// The file changes the query and the cell: once the model has
			// loaded again, they run.
			writeFiles(t, dir, map[string]string{
				"p/a/m.sql": "-- @source t\nSELECT * FROM read_csv('data/t.csv');\n" +
					"-- @query boom\nSELECT 41 + 1 AS j;\n",
				"p/a/nb.md": "# NB\n\n```sql\nSELECT 7 AS j\n```\n",
			})
			deadline = time.Now().Add(30 * time.Second)
			for _, path := range []string{"p/a/m/boom", "p/a/nb/cell-1"} {
				for {
					r := call(t, cs, "execute_query", map[string]any{"path": path}, &out)
					if !r.IsError && len(out.Rows) == 1 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s after the fix: %s", path, text(r))
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
		})
	}
}

// TestLoadMemoryRefused: a named query whose check at load needs more memory
// than the load may hold (a constant string of hundreds of megabytes, which
// DuckDB's memory limit does not count) is refused when called, in both
// -isolate modes: with -isolate=false it would otherwise run in the server's
// process, far past -memory-limit.
func TestLoadMemoryRefused(t *testing.T) {
	for _, args := range [][]string{nil, {"-isolate=false"}} {
		t.Run(strings.Join(append([]string{"isolate"}, args...), ","), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"p/a/manifest.json": `{}`,
				"p/a/m.sql": "-- @source s\nSELECT 1 AS a;\n" +
					"-- @query big\nSELECT length(repeat('x', 600000000) || 'y') AS n;\n" +
					"-- @query small\nSELECT a FROM s;\n",
			})
			srv := startBinary(t, append([]string{"-http", "127.0.0.1:0", "-catalog", dir, "-memory-limit", "64MB"}, args...)...)
			cs := connectHTTP(t, srv.url, "")
			wantRefusedAtLoad(t, cs, map[string]any{"path": "p/a/m/big"}, "named query p/a/m/big", "needed more memory than a model's load may use (its load process held")
			var out struct{ Rows [][]any }
			if r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/small"}, &out); r.IsError || len(out.Rows) != 1 {
				t.Fatalf("small: %s", text(r))
			}
		})
	}
}

// wantRefusedAtLoad calls execute_query with args and wants the refusal of
// the query what (its kind and path: "named query p/a/m/boom"), whose check
// at load crashed DuckDB or ran out of memory (how: "crashed DuckDB (SIGSEGV"),
// as the catalog's fault.
func wantRefusedAtLoad(t *testing.T, cs *mcp.ClientSession, args map[string]any, what, how string) {
	t.Helper()
	var te toolError
	res := call(t, cs, "execute_query", args, &te)
	if !res.IsError {
		t.Fatalf("%v answered: %s", args, text(res))
	}
	want := what + " is not run: when its model loaded, checking it " + how
	if te.Kind != "unavailable" || !strings.Contains(te.Error, want) || !strings.Contains(te.Error, "send SQL of your own with sql against the model p/a/m") || !strings.Contains(te.Hint, "the catalog's file needs fixing") {
		t.Errorf("%v: kind %s, error %q, hint %q; want unavailable, %q and the catalog's file to fix", args, te.Kind, te.Error, te.Hint, want)
	}
}

// TestLoadCrashCapRefused: with -isolate=false, a named query its model's load
// never checked, the load process having crashed 8 times (its cap) before it,
// is refused when called, as the catalog's fault, saying why and what the
// catalog's author must do; the model's sources are served, and the package's
// problems say the queries left unchecked are refused. Before, it ran
// unchecked in the server's process: SQL that might crash the server.
//
// The server runs in the test's process as -isolate=false runs it (queries
// here, loads in load processes of the server's program), with a check budget
// of a minute (engine.DuckConfig.CheckBudget; the server's is 2 s), so that
// eight crashes on a loaded machine do not outlast it. (Before, the test ran
// the server's program and skipped when they did.)
func TestLoadCrashCapRefused(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("-- @source t\nSELECT * FROM read_csv('data/t.csv');\n")
	for i := range 8 {
		fmt.Fprintf(&src, "-- @query boom%d\n%s;\n", i, loadCrashSQL)
	}
	src.WriteString("-- @query after\nSELECT sum(x) AS s FROM t;\n")
	writeFiles(t, dir, map[string]string{
		"p/a/manifest.json": `{}`,
		"p/a/data/t.csv":    "x,y\n1,2\n3,4\n",
		"p/a/m.sql":         src.String(),
	})
	bin := buildServer(t)
	svc := newTestService(t, dir, Config{Duck: engine.DuckConfig{
		Loader:      func() *exec.Cmd { return exec.Command(bin, workerFlag) },
		CheckBudget: time.Minute,
	}})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var pkg Description
	call(t, cs, "describe", map[string]any{"path": "p/a"}, &pkg)
	if p := strings.Join(pkg.Problems, "\n"); !strings.Contains(p, "p/a/m.sql: 1 of the model's 9 named queries were not checked when it loaded (DuckDB crashed 8 times), so calls of them are refused") {
		t.Errorf("package problems: %s", p)
	}
	var te toolError
	res := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/after"}, &te)
	if !res.IsError {
		t.Fatalf("after answered: %s", text(res))
	}
	for _, want := range []string{
		"named query p/a/m/after is not run: when its model loaded, its check did not run: the model's load process had crashed 8 times before it (checking the named query boom0; ",
		"the catalog's files must fix or remove what crashed DuckDB (the problems of the package p/a list each one)",
		"send SQL of your own with sql against the model p/a/m",
	} {
		if !strings.Contains(te.Error, want) {
			t.Errorf("error %q lacks %q", te.Error, want)
		}
	}
	if te.Kind != "unavailable" || !strings.Contains(te.Hint, "the catalog's file needs fixing") {
		t.Errorf("kind %s, hint %q", te.Kind, te.Hint)
	}
	wantRefusedAtLoad(t, cs, map[string]any{"path": "p/a/m/boom7"}, "named query p/a/m/boom7", "crashed DuckDB (SIGSEGV")
	var out struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/t"}, &out); r.IsError || len(out.Rows) != 2 {
		t.Fatalf("source t: %s", text(r))
	}
}
