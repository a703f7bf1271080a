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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// benchRows is the size of the Parquet file of BenchmarkExecuteQuery.
const benchRows = 1_000_000

// benchQueries are the aggregates of BenchmarkExecuteQuery; %s is the source (a
// view for the server, the file for duckdb-go), rows the number of rows each returns.
// sum-by-key is about the cheapest aggregate over every row (integer columns, 100
// groups); monthly-by-category is what a dashboard asks (a time bucket and a text
// dimension, a filter, sums and distinct counts); p90-by-key is a heavy statistic.
var benchQueries = []struct {
	name, sql string
	rows      int
}{
	{"sum-by-key", "SELECT k, count(*) AS n, sum(v) AS total, avg(v) AS mean FROM %s GROUP BY k ORDER BY k", 100},
	{"monthly-by-category", "SELECT date_trunc('month', ts) AS month, category, count(*) AS orders, sum(amount) AS revenue, avg(amount) AS avg_order FROM %s WHERE status <> 'cancelled' GROUP BY ALL ORDER BY month, category", 144},
	{"p90-by-key", "SELECT k, quantile_cont(v, 0.9) AS p90, stddev_pop(v) AS sd FROM %s GROUP BY k ORDER BY k", 100},
}

// writeBenchParquet writes a deterministic Parquet file of benchRows rows.
func writeBenchParquet(b *testing.B, path string) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// Orders over 2025: a timestamp, 12 categories, 50,000 customers, an amount and a
	// status (one in 20 cancelled), all derived from the row number.
	q := fmt.Sprintf(`COPY (SELECT range AS id, range %% 100 AS k, (range * 7919) %% 1000 AS v, 'row ' || range AS label,
		TIMESTAMP '2025-01-01' + to_seconds((range * 31) %% 31536000) AS ts,
		'category ' || ((range * 13) %% 12) AS category,
		(range * 104729) %% 50000 AS customer,
		((range * 7919) %% 100000) / 100.0 AS amount,
		CASE WHEN range %% 20 = 0 THEN 'cancelled' ELSE 'complete' END AS status
		FROM range(%d)) TO %s (FORMAT parquet)`, benchRows, quoteLit(path))
	if _, err := db.Exec(q); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkExecuteQuery runs an aggregate over a 1-million-row Parquet file through
// execute_query (our client, stateless Streamable HTTP on loopback, the server,
// DuckDB) and, interleaved in the same loop, the same query through duckdb-go
// directly with the same thread count, reading every row; also the engine layer
// alone, the HTTP floor, and execute_query over stdio to the built server in a
// process of its own. It reports the median of each and MCP's overhead at the
// median.
func BenchmarkExecuteQuery(b *testing.B) {
	dir := b.TempDir()
	pkg := filepath.Join(dir, "bench", "big")
	os.MkdirAll(filepath.Join(pkg, "data"), 0o755)
	file := filepath.Join(pkg, "data", "events.parquet")
	writeBenchParquet(b, file)
	os.WriteFile(filepath.Join(pkg, "manifest.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "events.sql"), []byte("-- @source events\nSELECT * FROM 'data/events.parquet'"), 0o644)

	svc := newTestService(b, dir, Config{})
	cs := connectHTTP(b, startHTTP(b, svc).URL, "")
	// The built server over stdio, in a process of its own, as a desktop client runs it.
	tr, err := stdio.Command(exec.Command(buildServer(b), "-stdio", "-catalog", dir), nil)
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
	direct, err := sql.Open("duckdb", "?threads=2&memory_limit=512MB")
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	floor := startFloor(b, direct)
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) { benchOne(b, cs, csStdio, svc, direct, floor, bq.sql, bq.rows, file) })
	}
}

// startFloor serves the floor of any HTTP endpoint for BenchmarkExecuteQuery: a
// bare net/http handler on loopback that runs the SQL it is POSTed through
// duckdb-go, reads every row and answers with the row count — no MCP, no JSON-RPC,
// no result encoding. What it adds to duckdb-go alone is what the HTTP round trip
// costs on this machine when the process has waited for the query.
func startFloor(b *testing.B, db *sql.DB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, _ := io.ReadAll(r.Body)
		n, err := scanAll(db, string(q))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"rows":%d}`, n)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// scanAll runs query on db and reads every row into Go values.
func scanAll(db *sql.DB, query string) (int, error) {
	rows, err := db.Query(query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func benchOne(b *testing.B, cs, csStdio *mcp.ClientSession, svc *Service, direct *sql.DB, floor, query string, want int, file string) {
	args, _ := json.Marshal(map[string]any{"path": "bench/big/events", "sql": fmt.Sprintf(query, "events")})
	directSQL := fmt.Sprintf(query, quoteLit(file))
	callOn := func(cs *mcp.ClientSession) func() int {
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
	runMCP, runStdio := callOn(cs), callOn(csStdio)
	runDirect := func() int {
		n, err := scanAll(direct, directSQL)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
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
	if a, d, e, f, o := runMCP(), runDirect(), runEngine(), runFloor(), runStdio(); a != want || d != want || e != want || f != want || o != want {
		b.Fatalf("rows: mcp %d direct %d engine %d http floor %d stdio %d", a, d, e, f, o)
	}
	runs := []func() int{runDirect, runMCP, runEngine, runFloor, runStdio}
	times := make([][]time.Duration, len(runs))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Rotate which goes first, so none always meets a warm cache.
		for j := range runs {
			k := (i + j) % len(runs)
			s := time.Now()
			runs[k]()
			times[k] = append(times[k], time.Since(s))
		}
	}
	b.StopTimer()
	pd, pm, pe, pf := median(times[0]), median(times[1]), median(times[2]), median(times[3])
	b.ReportMetric(float64(pm.Microseconds())/1000, "p50-mcp-ms")
	b.ReportMetric(float64(pe.Microseconds())/1000, "p50-engine-ms")
	b.ReportMetric(float64(pd.Microseconds())/1000, "p50-direct-ms")
	b.ReportMetric(float64(pf.Microseconds())/1000, "p50-http-floor-ms")
	b.ReportMetric(100*(float64(pm)-float64(pd))/float64(pd), "overhead-%")
	b.ReportMetric(100*(float64(pf)-float64(pd))/float64(pd), "http-floor-%")
	// The same, paired: the median of each iteration's difference from duckdb-go,
	// run moments apart, so that drifts of the machine between iterations cancel.
	b.ReportMetric(100*float64(medianDiff(times[1], times[0]))/float64(pd), "paired-overhead-%")
	b.ReportMetric(100*float64(medianDiff(times[3], times[0]))/float64(pd), "paired-floor-%")
	// The same call over stdio to the built server in its own process.
	ps := median(times[4])
	b.ReportMetric(float64(ps.Microseconds())/1000, "p50-mcp-stdio-ms")
	b.ReportMetric(100*(float64(ps)-float64(pd))/float64(pd), "stdio-overhead-%")
	b.ReportMetric(100*float64(medianDiff(times[4], times[0]))/float64(pd), "paired-stdio-overhead-%")
}

// medianDiff returns the median of a[i]-b[i].
func medianDiff(a, b []time.Duration) time.Duration {
	d := make([]time.Duration, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return median(d)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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
