package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
)

var elapsedJSON = regexp.MustCompile(`"elapsedMs":[0-9.e+-]+`)

// TestIsolatedMatchesInProcess: with -isolate (queries in processes of the
// built server, -engine-worker), every source of the sample catalog is described
// and read, and every named query and notebook cell runs, with the same answer,
// to the byte, as in the server's process.
func TestIsolatedMatchesInProcess(t *testing.T) {
	bin := buildServer(t)
	worker := builtWorker(bin)
	in := newTestService(t, sampleDir(t), Config{})
	iso := newTestService(t, sampleDir(t), Config{Duck: engine.DuckConfig{Worker: worker}})
	ctx := context.Background()
	compare := func(what string, a, b any, errA, errB error) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		sa := elapsedJSON.ReplaceAllString(fmt.Sprintf("%s %v", ja, errA), "")
		sb := elapsedJSON.ReplaceAllString(fmt.Sprintf("%s %v", jb, errB), "")
		if sa != sb {
			t.Errorf("%s:\nin process    %s\nin processes  %s", what, sa, sb)
		}
	}
	value := func(p catalog.Param) any {
		switch p.JSONType() {
		case "integer":
			return 2024
		case "number":
			return 1.5
		case "boolean":
			return true
		}
		if strings.EqualFold(p.Type, "DATE") {
			return "2024-03-01"
		}
		return "x"
	}
	n := 0
	for _, e := range in.Catalog().Entries() {
		switch e.Kind {
		case catalog.KindSource:
			da, errA := in.Describe(ctx, e.Path)
			db, errB := iso.Describe(ctx, e.Path)
			compare("describe "+e.Path, da, db, errA, errB)
			q := executeIn{Path: e.Path, RowLimit: 50}
			ra, errA := in.Execute(ctx, q)
			rb, errB := iso.Execute(ctx, q)
			compare("read "+e.Path, ra, rb, errA, errB)
			n++
		case catalog.KindQuery:
			params := map[string]any{}
			for _, p := range e.Query.Params {
				params[p.Name] = value(p)
			}
			// As the tool's arguments arrive: JSON numbers are float64.
			raw, _ := json.Marshal(params)
			var args map[string]any
			json.Unmarshal(raw, &args)
			q := executeIn{Path: e.Path, Parameters: args, RowLimit: 50}
			ra, errA := in.Execute(ctx, q)
			rb, errB := iso.Execute(ctx, q)
			compare("run "+e.Path, ra, rb, errA, errB)
			n++
		}
	}
	// Errors keep their kind and message.
	for _, sql := range []string{"SELECT nme FROM sales", "SELECT 1; SELECT 2", "DROP VIEW sales", "SELECT * FROM read_csv('/etc/passwd')"} {
		q := executeIn{Path: "retail/shop/sales", SQL: sql}
		_, errA := in.Execute(ctx, q)
		_, errB := iso.Execute(ctx, q)
		compare(sql, classify(errA), classify(errB), nil, nil)
		n++
	}
	if n < 10 {
		t.Errorf("only %d comparisons: the sample catalog changed", n)
	}
	t.Logf("%d sources, queries and errors compared", n)
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:]) // state, ppid, …
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			c, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, c)
		}
	}
	return out
}

// TestIsolatedBinary: the built server with -isolate stops computations DuckDB
// cannot interrupt at their limit (their processes end): four at once are all
// answered within the limit and a grace period, the model answers at once
// afterwards instead of being busy with them, and the server stops at once on
// SIGINT, its query processes with it.
func TestIsolatedBinary(t *testing.T) {
	// A 3 s limit: room to start three more query processes on a loaded
	// machine (about 60 ms each when idle); the calculation takes 3.4 s alone
	// here, and four share two processors.
	srv := startBinary(t, "-isolate", "-timeout", "3s", "-http", "127.0.0.1:0", "-catalog", sampleDir(t))
	cs := connectHTTP(t, srv.url, "")
	var res struct {
		Rows     [][]any
		RowCount int
	}
	call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_month", "parameters": map[string]any{"year": 2024}}, &res)
	if res.RowCount != 12 {
		t.Fatalf("revenue_by_month: %+v", res)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var te toolError
			r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"}, &te)
			if !r.IsError || te.Kind != "timeout" || !strings.Contains(te.Error, "was stopped") {
				t.Errorf("runaway: %+v", te)
			}
		})
	}
	wg.Wait()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("four runaway queries answered after %v, with a 3s limit", took)
	}
	start = time.Now()
	var after struct{ RowCount int }
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_month", "parameters": map[string]any{"year": 2024}}, &after)
	if took := time.Since(start); r.IsError || after.RowCount != 12 || took > 2500*time.Millisecond {
		t.Errorf("after the runaways: %s in %v", text(r), took)
	}
	kids := children(srv.cmd.Process.Pid)
	if len(kids) == 0 {
		t.Fatal("no query process found: the checks below would say nothing")
	}
	srv.stop(t, os.Interrupt, 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	for _, pid := range kids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), workerFlag) {
			t.Errorf("query process %d outlived the server", pid)
		}
	}
}

// startIsolated runs the built server with -isolate and args on a free port.
func startIsolated(t *testing.T, args ...string) *binaryServer {
	t.Helper()
	return startBinary(t, append([]string{"-isolate", "-http", "127.0.0.1:0", "-catalog", sampleDir(t)}, args...)...)
}

// queryProcesses returns the query processes (-engine-worker) whose parent is
// pid.
func queryProcesses(pid int) []int {
	var out []int
	for _, k := range children(pid) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", k)); err == nil && strings.Contains(string(b), workerFlag) {
			out = append(out, k)
		}
	}
	return out
}

// TestIsolatedServerKilled: a server ended while a query process computes —
// killed (SIGKILL: on Linux the system ends its query processes), or told to
// stop (SIGTERM: the request's cancellation kills the process, the server does
// not wait for its 60s limit or -stop-wait) — takes its query processes with it:
// the calculation does not go on for nobody.
func TestIsolatedServerKilled(t *testing.T) {
	for _, how := range []string{"SIGKILL", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			srv := startIsolated(t, "-timeout", "60s", "-stop-wait", "60s")
			cmd, exited := srv.cmd, srv.exited
			cs := connectHTTP(t, srv.url, "")
			go func() {
				args, _ := json.Marshal(map[string]any{"path": "retail/shop/sales", "sql": "SELECT list_sum(list_transform(range(100000), x -> list_sum(range(100000)))) AS n"})
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_query", Arguments: args}) // fails: the server ends
			}()
			var kids []int
			deadline := time.Now().Add(10 * time.Second)
			for len(kids) == 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				kids = queryProcesses(cmd.Process.Pid)
			}
			if len(kids) == 0 {
				t.Fatal("no query process started")
			}
			time.Sleep(300 * time.Millisecond) // computing
			if how == "SIGKILL" {
				cmd.Process.Kill()
			} else {
				cmd.Process.Signal(syscall.SIGTERM)
			}
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatal("the server did not end")
			}
			deadline = time.Now().Add(3 * time.Second)
			for {
				var left []int
				for _, pid := range kids {
					if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), workerFlag) {
						left = append(left, pid)
					}
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					for _, pid := range left {
						if p, err := os.FindProcess(pid); err == nil {
							p.Kill()
						}
					}
					t.Fatalf("query processes %v outlived the server", left)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// TestIsolatedReloadUnderLoad: with queries running and waiting on a model
// (some computing past their limit), reloads that replace it leave no query
// process of the replaced models behind; every query is answered, with a result
// or an error a client can act on; closing the service ends the rest.
func TestIsolatedReloadUnderLoad(t *testing.T) {
	bin := buildServer(t)
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("k,v\n")
	for i := range 5000 {
		fmt.Fprintf(&csv, "%d,%d\n", i%17, i)
	}
	writeFiles(t, dir, map[string]string{"p/a/manifest.json": "{}", "p/a/m.sql": "-- @source s\nSELECT * FROM read_csv('data/t.csv');\n", "p/a/data/t.csv": csv.String()})
	svc, err := NewService(context.Background(), dir, Config{QueryTimeout: 400 * time.Millisecond, Duck: engine.DuckConfig{Worker: builtWorker(bin)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			svc.Close()
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	kinds := map[string]int{}
	// The queries run while the model is replaced (1.5 s), then on until one
	// of them was answered: on a loaded machine (CI) a query process may take
	// longer than the 400 ms limit to start, so that no query beside the
	// reloads gets a ready one. The processes go on starting for the next
	// queries, which are then answered (at most 60 s).
	var answered atomic.Bool
	stop := time.Now().Add(1500 * time.Millisecond)
	giveUp := time.Now().Add(60 * time.Second)
	for i := range 12 {
		wg.Go(func() {
			for n := 0; time.Now().Before(stop) || (!answered.Load() && time.Now().Before(giveUp)); n++ {
				sql := fmt.Sprintf("SELECT k, sum(v) + %d AS total FROM s GROUP BY k ORDER BY k", n)
				if (i+n)%6 == 0 {
					sql = "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"
				}
				_, err := svc.Execute(context.Background(), executeIn{Path: "p/a/m", SQL: sql})
				k := "ok"
				if err != nil {
					k = classify(err).Kind
				} else {
					answered.Store(true)
				}
				mu.Lock()
				kinds[k]++
				mu.Unlock()
				if k == "unavailable" {
					t.Logf("query %d/%d: %v", i, n, err)
				}
				if k != "ok" && k != "timeout" && k != "unavailable" {
					t.Errorf("query %d/%d: %v", i, n, err)
				}
			}
		})
	}
	for n := range 5 {
		time.Sleep(250 * time.Millisecond)
		writeFiles(t, dir, map[string]string{"p/a/data/t.csv": csv.String() + fmt.Sprintf("%d,%d\n", n, n)})
		if err := svc.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	svc.old.Wait() // the replaced models closed
	t.Logf("answers by kind: %v", kinds)
	if kinds["ok"] == 0 {
		t.Error("no query answered")
	}
	if left := queryProcesses(os.Getpid()); len(left) > 2 {
		t.Errorf("%d query processes after the reloads (%v): the current model keeps at most 2 idle", len(left), left)
	}
	svc.Close()
	closed = true
	deadline := time.Now().Add(2 * time.Second)
	for len(queryProcesses(os.Getpid())) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := queryProcesses(os.Getpid()); len(left) > 0 {
		t.Errorf("query processes after Close: %v", left)
	}
}

// TestIsolatedBinaryReplaced: the server starts its query processes from the
// program it runs, not from the file it was started from: that file replaced
// by another program (an upgrade in place, speaking another protocol), queries
// still run.
func TestIsolatedBinaryReplaced(t *testing.T) {
	b, err := os.ReadFile(buildServer(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "catalog-server")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	u := startProgram(t, bin, "-isolate", "-http", "127.0.0.1:0", "-catalog", sampleDir(t)).url
	// Another program where the server's was (removed first: the running
	// program's file cannot be written).
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := connectHTTP(t, u, "")
	var res struct{ RowCount int }
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_month", "parameters": map[string]any{"year": 2024}}, &res)
	if r.IsError || res.RowCount != 12 {
		t.Fatalf("after the program's file was replaced: %s", text(r))
	}
}

// TestIsolatedCannotStartSaysSo: when a model's query processes cannot start,
// the call says the server is at fault (calling again will not help) and the
// server's log says why.
func TestIsolatedCannotStartSaysSo(t *testing.T) {
	var logBuf strings.Builder
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logBuf}, nil))
	missing := filepath.Join(t.TempDir(), "no-such-program")
	svc, err := NewService(context.Background(), sampleDir(t), Config{Duck: engine.DuckConfig{Worker: func() *exec.Cmd { return exec.Command(missing, workerFlag) }}}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	_, err = svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT 1"})
	te := classify(err)
	if te.Kind != "unavailable" || !strings.Contains(te.Hint, "will not help") || !strings.Contains(te.Error, "fault of the server") {
		t.Errorf("want the server's fault, got %+v", te)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logBuf.String(), "no-such-program") {
		t.Errorf("the log does not say why: %q", logBuf.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestIsolatedToolSaysStopped: execute_query's description tells a client what
// becomes of a query at its limit: with -isolate it is stopped, never left to
// finish in the background.
func TestIsolatedToolSaysStopped(t *testing.T) {
	describe := func(cfg Config) string {
		t.Helper()
		cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), cfg)).URL+"/mcp", "")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "execute_query" {
				return tool.Description
			}
		}
		t.Fatal("no execute_query tool")
		return ""
	}
	in := describe(Config{})
	iso := describe(Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}})
	if !strings.Contains(in, "left to finish in the background") {
		t.Errorf("in process: %q", in)
	}
	if strings.Contains(iso, "background") || !strings.Contains(iso, "(stopped there).") {
		t.Errorf("with -isolate: %q", iso)
	}
}

// TestIsolatedByDefault: the server runs its DuckDB queries in query processes
// unless told -isolate=false, and its execute_query description says which.
func TestIsolatedByDefault(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		isolated bool
	}{{nil, true}, {[]string{"-isolate=false"}, false}} {
		srv := startBinary(t, append([]string{"-http", "127.0.0.1:0", "-catalog", sampleDir(t)}, tc.args...)...)
		cs := connectHTTP(t, srv.url, "")
		var out struct{ RowCount int }
		call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT count(*) AS n FROM orders"}, &out)
		if out.RowCount != 1 {
			t.Fatalf("%v: rowCount %d", tc.args, out.RowCount)
		}
		procs := queryProcesses(srv.cmd.Process.Pid)
		if got := len(procs) > 0; got != tc.isolated {
			t.Errorf("%v: query processes %v after a query, want some: %v", tc.args, procs, tc.isolated)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "execute_query" && strings.Contains(tool.Description, "background") == tc.isolated {
				t.Errorf("%v: execute_query says %q", tc.args, tool.Description)
			}
		}
		srv.stop(t, os.Interrupt, 10*time.Second)
	}
}
