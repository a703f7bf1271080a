package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/benchdata"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// BenchmarkExecuteQuery runs an aggregate over a 1-million-row Parquet file through
// execute_query (our client, stateless Streamable HTTP on loopback, the server,
// DuckDB) and, interleaved in the same loop, the same query through duckdb-go
// directly with the same thread count, reading every row; also the engine layer
// alone, the HTTP floor, execute_query over stdio to the built server in a
// process of its own (as it runs by default: each query in a query process),
// execute_query in process over the memory transport (every message still
// encoded and decoded, no operating system in between): MCP's own part of the
// overhead, and execute_query over HTTP to a server whose queries run in query
// processes (-isolate, the built server's default; the other ways run them in
// the server's process). The seven ways run in a shuffled order in every iteration
// (benchdata.Interleave). It reports the median of each and MCP's overhead at the
// median.
func BenchmarkExecuteQuery(b *testing.B) {
	dir, file := writeBenchCatalog(b)
	bin := buildServer(b)
	svc := newTestService(b, dir, Config{})
	cs := connectHTTP(b, startHTTP(b, svc).URL, "")
	svcIso := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}})
	csIso := connectHTTP(b, startHTTP(b, svcIso).URL, "")
	// The built server over stdio, in a process of its own, as a desktop client runs it.
	tr, err := stdio.Command(exec.Command(bin, "-stdio", "-catalog", dir), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	csStdio, err := mcp.NewClient(mcp.Implementation{Name: "catalog-bench", Version: "1"}, nil).Connect(ctx, tr)
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	defer csStdio.Close()
	// The same server in process, over the memory transport.
	srvEnd, cliEnd := memory.NewPair()
	if _, err := newMCPServer(svc, "bench", false).Connect(context.Background(), srvEnd); err != nil {
		b.Fatal(err)
	}
	csMem, err := mcp.NewClient(mcp.Implementation{Name: "catalog-bench", Version: "1"}, nil).Connect(context.Background(), cliEnd)
	if err != nil {
		b.Fatal(err)
	}
	defer csMem.Close()
	direct := openDirect(b)
	floor := startFloor(b, direct)
	for _, bq := range benchdata.Queries {
		b.Run(bq.Name, func(b *testing.B) { benchOne(b, cs, csStdio, csMem, csIso, svc, direct, floor, bq.SQL, bq.Rows, file) })
	}
}

// writeBenchCatalog writes a catalog of one model, bench/big/events, over a
// 1,000,000-row Parquet file (benchdata.WriteParquet), and returns its folder and
// the file's path.
func writeBenchCatalog(b *testing.B) (dir, file string) {
	dir = b.TempDir()
	pkg := filepath.Join(dir, "bench", "big")
	os.MkdirAll(filepath.Join(pkg, "data"), 0o755)
	file = filepath.Join(pkg, "data", "events.parquet")
	if err := benchdata.WriteParquet(file); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(pkg, "manifest.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "events.sql"), []byte("-- @source events\nSELECT * FROM 'data/events.parquet'"), 0o644)
	return dir, file
}

// BenchmarkIsolatedQuery measures what -isolate costs a query: the benchmark's
// aggregates through the engine layer (Service.Execute) in the server's process
// and in a query process of the built server, interleaved (shuffled) with
// duckdb-go directly on the file.
func BenchmarkIsolatedQuery(b *testing.B) {
	dir, file := writeBenchCatalog(b)
	bin := buildServer(b)
	svc := newTestService(b, dir, Config{})
	iso := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}})
	direct := openDirect(b)
	for _, bq := range benchdata.Queries {
		b.Run(bq.Name, func(b *testing.B) {
			times := benchdata.Interleave(b.Loop, aggregateWays(b, direct, file, bq, svc, iso))
			b.StopTimer()
			pd := benchdata.Median(times[0])
			b.ReportMetric(float64(pd.Microseconds())/1000, "p50-direct-ms")
			b.ReportMetric(float64(benchdata.Median(times[1]).Microseconds())/1000, "p50-engine-ms")
			b.ReportMetric(float64(benchdata.Median(times[2]).Microseconds())/1000, "p50-isolated-ms")
			b.ReportMetric(100*float64(benchdata.MedianDiff(times[1], times[0]))/float64(pd), "paired-engine-overhead-%")
			b.ReportMetric(100*float64(benchdata.MedianDiff(times[2], times[0]))/float64(pd), "paired-isolated-overhead-%")
			b.ReportMetric(float64(benchdata.MedianDiff(times[2], times[1]).Microseconds())/1000, "paired-isolated-minus-engine-ms")
		})
	}
}

// openDirect opens the yardstick: duckdb-go with the server's default DuckDB
// limits (2 threads, 512 MB) and, as the server's models, the metadata of the
// Parquet files it reads kept between queries; closed when the benchmark ends.
func openDirect(b *testing.B) *sql.DB {
	direct, err := sql.Open("duckdb", "?threads=2&memory_limit=512MB")
	if err == nil {
		_, err = direct.Exec("SET GLOBAL parquet_metadata_cache = true")
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { direct.Close() })
	return direct
}

// aggregateWays returns the ways to run the aggregate bq that BenchmarkIsolatedQuery
// and BenchmarkWorkerMalloc interleave: duckdb-go directly on file, then the engine
// layer (Service.Execute) of each of svcs on the benchmark's model, each checking
// the rows. It runs each once first: query processes start here, not in the loop.
func aggregateWays(b *testing.B, direct *sql.DB, file string, bq benchdata.Query, svcs ...*Service) []func() {
	in := executeIn{Path: "bench/big/events", SQL: fmt.Sprintf(bq.SQL, "events")}
	directSQL := fmt.Sprintf(bq.SQL, benchdata.Quote(file))
	ways := []func(){func() {
		if n, err := benchdata.ScanAll(direct, directSQL); err != nil || n != bq.Rows {
			b.Fatalf("direct: %d %v", n, err)
		}
	}}
	for _, s := range svcs {
		ways = append(ways, func() {
			res, err := s.Execute(context.Background(), in)
			if err != nil || res.RowCount != bq.Rows {
				b.Fatalf("execute: %v %+v", err, res)
			}
		})
	}
	for _, w := range ways {
		w()
	}
	return ways
}

// BenchmarkWorkerMalloc measures what the query processes' allocator settings
// (engine.WorkerMalloc) give a query: the benchmark's aggregates in query
// processes with them (the server's default) and with the C library's own
// defaults (GLIBC_TUNABLES set empty in the server's environment),
// interleaved (shuffled) with duckdb-go directly, which runs with the
// settings (benchdata.WithMalloc). After the loops it reports what each
// idle query process holds in memory.
func BenchmarkWorkerMalloc(b *testing.B) {
	dir, file := writeBenchCatalog(b)
	bin := buildServer(b)
	// Each query process's GLIBC_TUNABLES is set here, whatever this process's
	// environment says: the settings, and empty (glibc's defaults).
	worker := func(tunables string) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd := exec.Command(bin, workerFlag)
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GLIBC_TUNABLES=") }), "GLIBC_TUNABLES="+tunables)
			return cmd
		}
	}
	tuned := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: worker(engine.WorkerMalloc(0))}})
	plain := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: worker("")}})
	direct := openDirect(b)
	for _, bq := range benchdata.Queries {
		b.Run(bq.Name, func(b *testing.B) {
			times := benchdata.Interleave(b.Loop, aggregateWays(b, direct, file, bq, tuned, plain))
			b.StopTimer()
			b.ReportMetric(float64(benchdata.Median(times[0]).Microseconds())/1000, "p50-direct-ms")
			b.ReportMetric(float64(benchdata.Median(times[1]).Microseconds())/1000, "p50-worker-malloc-ms")
			b.ReportMetric(float64(benchdata.Median(times[2]).Microseconds())/1000, "p50-glibc-defaults-ms")
			b.ReportMetric(float64(benchdata.MedianDiff(times[2], times[1]).Microseconds())/1000, "paired-defaults-minus-malloc-ms")
			if rss := workerRSS(bin); len(rss) > 0 {
				b.ReportMetric(rss[true], "idle-worker-malloc-MB")
				b.ReportMetric(rss[false], "idle-glibc-defaults-MB")
			}
		})
	}
}

// BenchmarkWorkerGoProcs measures what running query processes with
// GOMAXPROCS=1 (workerGoProcs) gives a query: the benchmark's aggregates, and a
// 1,000-row answer, in query processes as the server starts them and in query
// processes with the Go runtime's default GOMAXPROCS (started through env(1)
// without the variable), interleaved (shuffled) with duckdb-go directly in
// this process as it runs, and with GOMAXPROCS=1 — this process switches to one
// processor before each such call and back after it, outside the time
// measured: the same setting for duckdb-go in a program of its own. It
// reports, for the query processes, the voluntary context switches of their
// threads and their processor time per query (Linux).
func BenchmarkWorkerGoProcs(b *testing.B) {
	dir, file := writeBenchCatalog(b)
	bin := buildServer(b)
	if runtime.NumCPU() == 1 {
		b.Skip("one processor: GOMAXPROCS=1 is the Go runtime's default")
	}
	one := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}})
	dflt := newTestService(b, dir, Config{Duck: engine.DuckConfig{Worker: func() *exec.Cmd {
		return exec.Command("env", "-u", "GOMAXPROCS", bin, workerFlag)
	}}})
	direct, direct1 := openDirect(b), openDirect(b)
	queries := append(slices.Clone(benchdata.Queries), benchdata.Query{Name: "rows-1000",
		SQL: "SELECT * FROM %s WHERE amount > 10 ORDER BY ts LIMIT 1000", Rows: 1000})
	for _, bq := range queries {
		b.Run(bq.Name, func(b *testing.B) {
			ways := aggregateWays(b, direct, file, bq, one, dflt)
			runDirect1 := directCall(b, direct1, fmt.Sprintf(bq.SQL, benchdata.Quote(file)))
			if n := runDirect1(); n != bq.Rows {
				b.Fatalf("direct: %d rows", n)
			}
			before := workerPIDs(bin, "GOMAXPROCS")
			sw1, cpu1 := workerSched(before["1"])
			swD, cpuD := workerSched(before[""])
			times := benchdata.InterleaveTimed(b.Loop, []func() time.Duration{
				benchdata.Timed(ways[0]), benchdata.Timed(ways[1]), benchdata.Timed(ways[2]),
				func() time.Duration {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
					return benchdata.Timed(func() { runDirect1() })()
				},
			})
			b.StopTimer()
			n := len(times[0])
			after := workerPIDs(bin, "GOMAXPROCS")
			b.ReportMetric(float64(benchdata.Median(times[0]).Microseconds())/1000, "p50-direct-ms")
			b.ReportMetric(float64(benchdata.Median(times[3]).Microseconds())/1000, "p50-direct-procs1-ms")
			b.ReportMetric(float64(benchdata.Median(times[1]).Microseconds())/1000, "p50-worker-procs1-ms")
			b.ReportMetric(float64(benchdata.Median(times[2]).Microseconds())/1000, "p50-worker-default-ms")
			b.ReportMetric(float64(benchdata.MedianDiff(times[2], times[1]).Microseconds())/1000, "paired-worker-default-minus-procs1-ms")
			b.ReportMetric(float64(benchdata.MedianDiff(times[0], times[3]).Microseconds())/1000, "paired-direct-default-minus-procs1-ms")
			// Query processes are kept between the loops (duckIdleWorkers a model):
			// the counts are of the same processes, unless one was ended.
			if !slices.Equal(before["1"], after["1"]) || !slices.Equal(before[""], after[""]) || n == 0 {
				b.Logf("query processes changed during the loop (%v to %v): no counts", before, after)
				return
			}
			s1, c1 := workerSched(after["1"])
			sD, cD := workerSched(after[""])
			b.ReportMetric(float64(s1-sw1)/float64(n), "worker-procs1-switches/query")
			b.ReportMetric(float64(sD-swD)/float64(n), "worker-default-switches/query")
			b.ReportMetric(float64((c1-cpu1).Microseconds())/1000/float64(n), "worker-procs1-cpu-ms/query")
			b.ReportMetric(float64((cD-cpuD).Microseconds())/1000/float64(n), "worker-default-cpu-ms/query")
		})
	}
}

// workerRSS returns the largest resident memory (MB) of the running query
// processes of the server binary bin, by whether their GLIBC_TUNABLES is set
// to anything (Linux's /proc; none elsewhere). glibc rewrites the variable as
// it reads it: its value is not compared.
func workerRSS(bin string) map[bool]float64 {
	out := map[bool]float64{}
	for value, pids := range workerPIDs(bin, "GLIBC_TUNABLES") {
		for _, pid := range pids {
			statm, _ := os.ReadFile(filepath.Join("/proc", pid, "statm"))
			if f := strings.Fields(string(statm)); len(f) > 1 {
				pages, _ := strconv.ParseFloat(f[1], 64)
				out[value != ""] = max(out[value != ""], pages*float64(os.Getpagesize())/(1<<20))
			}
		}
	}
	return out
}

// workerPIDs returns the process ids of the running query processes of the
// server binary bin, by the value of the variable name in their environment
// (Linux's /proc; none elsewhere).
func workerPIDs(bin, name string) map[string][]string {
	out := map[string][]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(cmdline), bin+"\x00"+workerFlag) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		value := ""
		for kv := range strings.SplitSeq(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				value = v
			}
		}
		out[value] = append(out[value], e.Name())
	}
	return out
}

// workerSched returns what the query processes with the given pids have done so
// far (Linux's /proc): the times their threads gave up the processor to wait
// (voluntary context switches, summed over the threads alive now: the Go
// runtime's and DuckDB's stay for the process's life), and their processor
// time (user and system, in the kernel's ticks of 10 ms, which include threads
// that ended).
func workerSched(pids []string) (switches int, cpu time.Duration) {
	for _, pid := range pids {
		tasks, _ := os.ReadDir(filepath.Join("/proc", pid, "task"))
		for _, task := range tasks {
			status, _ := os.ReadFile(filepath.Join("/proc", pid, "task", task.Name(), "status"))
			for line := range strings.SplitSeq(string(status), "\n") {
				if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(v))
					switches += n
				}
			}
		}
		// Fields 14 and 15 of stat, counted after the command's closing parenthesis.
		stat, _ := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 12 {
				utime, _ := strconv.ParseInt(f[11], 10, 64)
				stime, _ := strconv.ParseInt(f[12], 10, 64)
				cpu += time.Duration(utime+stime) * 10 * time.Millisecond
			}
		}
	}
	return switches, cpu
}

// startFloor serves the floor of any HTTP endpoint for BenchmarkExecuteQuery: a
// bare net/http handler on loopback that runs the SQL it is POSTed through
// duckdb-go, reads every row and answers with the row count — no MCP, no JSON-RPC,
// no result encoding. What it adds to duckdb-go alone is what the HTTP round trip
// costs on this machine when the process has waited for the query.
func startFloor(b *testing.B, db *sql.DB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, _ := io.ReadAll(r.Body)
		n, err := benchdata.ScanAll(db, string(q))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"rows":%d}`, n)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func benchOne(b *testing.B, cs, csStdio, csMem, csIso *mcp.ClientSession, svc *Service, direct *sql.DB, floor, query string, want int, file string) {
	args, _ := json.Marshal(map[string]any{"path": "bench/big/events", "sql": fmt.Sprintf(query, "events")})
	directSQL := fmt.Sprintf(query, benchdata.Quote(file))
	runMCP, runStdio, runMem, runIso := executeCall(b, cs, args), executeCall(b, csStdio, args), executeCall(b, csMem, args), executeCall(b, csIso, args)
	runDirect := directCall(b, direct, directSQL)
	runFloor := func() int {
		resp, err := http.Post(floor, "text/plain", strings.NewReader(directSQL))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Rows int }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("floor: %d %v", resp.StatusCode, err)
		}
		return out.Rows
	}
	// The engine layer alone (gate, prepare, run, convert), without MCP: it splits
	// the overhead between the query path and the protocol.
	in := executeIn{Path: "bench/big/events", SQL: fmt.Sprintf(query, "events")}
	runEngine := func() int {
		res, err := svc.Execute(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		return res.RowCount
	}
	if a, d, e, f, o, m, i := runMCP(), runDirect(), runEngine(), runFloor(), runStdio(), runMem(), runIso(); a != want || d != want || e != want || f != want || o != want || m != want || i != want {
		b.Fatalf("rows: mcp %d direct %d engine %d http floor %d stdio %d memory %d isolated %d", a, d, e, f, o, m, i)
	}
	runs := []func(){func() { runDirect() }, func() { runMCP() }, func() { runEngine() }, func() { runFloor() }, func() { runStdio() }, func() { runMem() }, func() { runIso() }}
	times := benchdata.Interleave(b.Loop, runs)
	b.StopTimer()
	pd, pm, pe, pf := benchdata.Median(times[0]), benchdata.Median(times[1]), benchdata.Median(times[2]), benchdata.Median(times[3])
	b.ReportMetric(float64(pm.Microseconds())/1000, "p50-mcp-ms")
	b.ReportMetric(float64(pe.Microseconds())/1000, "p50-engine-ms")
	b.ReportMetric(float64(pd.Microseconds())/1000, "p50-direct-ms")
	b.ReportMetric(float64(pf.Microseconds())/1000, "p50-http-floor-ms")
	b.ReportMetric(100*(float64(pm)-float64(pd))/float64(pd), "overhead-%")
	b.ReportMetric(100*(float64(pf)-float64(pd))/float64(pd), "http-floor-%")
	// The same, paired: the median of each iteration's difference from duckdb-go,
	// run moments apart, so that drifts of the machine between iterations cancel.
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[1], times[0]))/float64(pd), "paired-overhead-%")
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[3], times[0]))/float64(pd), "paired-floor-%")
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[2], times[0]))/float64(pd), "paired-engine-overhead-%")
	// The same call over stdio to the built server in its own process.
	ps := benchdata.Median(times[4])
	b.ReportMetric(float64(ps.Microseconds())/1000, "p50-mcp-stdio-ms")
	b.ReportMetric(100*(float64(ps)-float64(pd))/float64(pd), "stdio-overhead-%")
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[4], times[0]))/float64(pd), "paired-stdio-overhead-%")
	// The same call in process: the protocol, the server and the engine layer
	// without a transport between processes.
	pmem := benchdata.Median(times[5])
	b.ReportMetric(float64(pmem.Microseconds())/1000, "p50-mcp-memory-ms")
	b.ReportMetric(100*(float64(pmem)-float64(pd))/float64(pd), "memory-overhead-%")
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[5], times[0]))/float64(pd), "paired-memory-overhead-%")
	// Over HTTP again, each query in a query process (the built server's default).
	piso := benchdata.Median(times[6])
	b.ReportMetric(float64(piso.Microseconds())/1000, "p50-mcp-isolated-ms")
	b.ReportMetric(100*float64(benchdata.MedianDiff(times[6], times[0]))/float64(pd), "paired-isolated-overhead-%")
}

// executeCall returns a call of execute_query with args through cs, which
// returns the result's rowCount (the caller reads the structured content, as a
// program would).
func executeCall(b *testing.B, cs *mcp.ClientSession, args json.RawMessage) func() int {
	return func() int {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_query", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("execute_query: %v %s", err, text(res))
		}
		var out struct{ RowCount int }
		json.Unmarshal(res.StructuredContent.(json.RawMessage), &out)
		return out.RowCount
	}
}

// directCall returns a run of query through duckdb-go directly on direct, every
// row read (benchdata.ScanAll), which returns the number of rows.
func directCall(b *testing.B, direct *sql.DB, query string) func() int {
	return func() int {
		n, err := benchdata.ScanAll(direct, query)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
}

// BenchmarkHeadToHead is the comparison as a user would make it, two ways and
// nothing else in the loop: execute_query from our client over stateless
// Streamable HTTP on loopback to the built server in a process of its own, as
// it runs by default (each query in a query process) and with -isolate=false,
// against the same aggregate through duckdb-go directly on the file in this
// process, interleaved (shuffled). Each way has a DuckDB of its own and
// follows only the other; in BenchmarkExecuteQuery, which splits the cost into
// its parts, every way runs among six others and four DuckDB instances.
func BenchmarkHeadToHead(b *testing.B) {
	dir, file := writeBenchCatalog(b)
	bin := buildServer(b)
	direct := openDirect(b)
	for _, mode := range []struct {
		name string
		args []string
	}{{"default", nil}, {"in-process", []string{"-isolate=false"}}} {
		srv := startProgram(b, bin, append([]string{"-http", "127.0.0.1:0", "-catalog", dir}, mode.args...)...)
		cs := connectHTTP(b, srv.url, "")
		for _, bq := range benchdata.Queries {
			b.Run(mode.name+"/"+bq.Name, func(b *testing.B) {
				args, _ := json.Marshal(map[string]any{"path": "bench/big/events", "sql": fmt.Sprintf(bq.SQL, "events")})
				directSQL := fmt.Sprintf(bq.SQL, benchdata.Quote(file))
				call := executeCall(b, cs, args)
				runDirect := directCall(b, direct, directSQL)
				if m, d := call(), runDirect(); m != bq.Rows || d != bq.Rows {
					b.Fatalf("rows: mcp %d direct %d, want %d", m, d, bq.Rows)
				}
				times := benchdata.Interleave(b.Loop, []func(){func() { runDirect() }, func() { call() }})
				b.StopTimer()
				pd, pm := benchdata.Median(times[0]), benchdata.Median(times[1])
				b.ReportMetric(float64(pd.Microseconds())/1000, "p50-direct-ms")
				b.ReportMetric(float64(pm.Microseconds())/1000, "p50-mcp-ms")
				b.ReportMetric(100*(float64(pm)-float64(pd))/float64(pd), "overhead-%")
				b.ReportMetric(100*float64(benchdata.MedianDiff(times[1], times[0]))/float64(pd), "paired-overhead-%")
			})
		}
	}
}

// writeBigCatalog writes a catalog of 10,000 sources: 10 projects × 10 packages ×
// 1 model of 100 sources, with descriptions to search.
func writeBigCatalog(b *testing.B) string {
	dir := b.TempDir()
	words := []string{"orders", "customers", "revenue", "stock", "shipments", "returns", "visits", "payments", "refunds", "reviews"}
	for p := range 10 {
		for k := range 10 {
			pkg := filepath.Join(dir, fmt.Sprintf("project%02d", p), fmt.Sprintf("package%02d", k))
			os.MkdirAll(pkg, 0o755)
			os.WriteFile(filepath.Join(pkg, "manifest.json"), []byte(`{"description": "synthetic package"}`), 0o644)
			var sb strings.Builder
			for s := range 100 {
				fmt.Fprintf(&sb, "-- %s of region %d, day %d.\n-- @source %s_%03d\nSELECT 1 AS x;\n", words[s%10], s%7, s, words[s%10], s)
			}
			os.WriteFile(filepath.Join(pkg, "model.sql"), []byte(sb.String()), 0o644)
		}
	}
	return dir
}

// BenchmarkCatalog10k measures one page of list_catalog, of resources/list and one
// search_catalog call over a catalog of 10,000 sources (8 columns each in the
// search index), each through our client over stateless Streamable HTTP on
// loopback.
func BenchmarkCatalog10k(b *testing.B) {
	dir := writeBigCatalog(b)
	svc := newTestService(b, dir, Config{SkipEngines: true})
	n := 0
	for _, e := range svc.Catalog().Entries() {
		if e.Kind == "source" {
			n++
		}
	}
	if n != 10000 {
		b.Fatalf("%d sources", n)
	}
	// Without engines the column index is empty: give every source the columns
	// of a typical table, as Reload would from its engine before the catalog is
	// served, so that searching reads them.
	for _, e := range svc.Catalog().Entries() {
		if e.Kind == "source" {
			e.Columns = []string{"id", "customer_id", "ordered_at", "amount", "currency", "region", "status", "updated_at"}
		}
	}
	cs := connectHTTP(b, startHTTP(b, svc).URL, "")
	ctx := context.Background()
	tool := func(name string, args map[string]any) func(b *testing.B) {
		raw, _ := json.Marshal(args)
		return func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
				if err != nil || res.IsError {
					b.Fatal(err, text(res))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
		}
	}
	b.Run("list_catalog/model-page", tool("list_catalog", map[string]any{"path": "project05/package05/model"}))
	b.Run("search_catalog/word", tool("search_catalog", map[string]any{"query": "revenue"}))
	b.Run("search_catalog/two-words", tool("search_catalog", map[string]any{"query": "refunds region 3"}))
	// A column every source has: 10,000 hits ranked, the first 20 returned.
	b.Run("search_catalog/column", tool("search_catalog", map[string]any{"query": "customer_id"}))
	b.Run("resources/list/page-50", func(b *testing.B) {
		// The cursor of page 50 of the listing (of about 10,200 resources).
		cursor := ""
		for range 50 {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				b.Fatal(err)
			}
			cursor = r.NextCursor
		}
		for b.Loop() {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil || len(r.Resources) != 100 {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
	})
}

// BenchmarkLargeResult measures execute_query returning 1,000 rows of the sample
// catalog's orders (every column: ids, timestamps, decimals, text; about 110 KB of
// JSON as structured content and again as text) over stateless HTTP with our client.
func BenchmarkLargeResult(b *testing.B) {
	svc := newTestService(b, sampleDir(b), Config{})
	cs := connectHTTP(b, startHTTP(b, svc).URL, "")
	args, _ := json.Marshal(map[string]any{"path": "retail/shop/sales", "sql": "SELECT * FROM orders ORDER BY order_id LIMIT 1000"})
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_query", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("execute_query: %v %s", err, text(res))
		}
	}
}
