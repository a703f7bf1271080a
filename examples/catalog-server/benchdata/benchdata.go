// Package benchdata holds what the catalog server's query benchmarks share: the
// 1,000,000-row Parquet file they query, the aggregates they run over it, and
// duckdb-go called directly, the yardstick they are measured against. It is used by
// BenchmarkExecuteQuery and by the comparison with other MCP libraries (compare/).
package benchdata

import (
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver
)

// Rows is the number of rows of the file WriteParquet writes.
const Rows = 1_000_000

// Query is one aggregate: SQL with %s where the source goes (a view, or a quoted
// file path), and the number of rows it returns.
type Query struct {
	Name, SQL string
	Rows      int
}

// Queries are the aggregates the benchmarks run. sum-by-key is about the cheapest
// aggregate over every row (integer columns, 100 groups); monthly-by-category is what
// a dashboard asks (a time bucket and a text dimension, a filter, sums and distinct
// counts); p90-by-key is a heavy statistic.
var Queries = []Query{
	{"sum-by-key", "SELECT k, count(*) AS n, sum(v) AS total, avg(v) AS mean FROM %s GROUP BY k ORDER BY k", 100},
	{"monthly-by-category", "SELECT date_trunc('month', ts) AS month, category, count(*) AS orders, sum(amount) AS revenue, avg(amount) AS avg_order FROM %s WHERE status <> 'cancelled' GROUP BY ALL ORDER BY month, category", 144},
	{"p90-by-key", "SELECT k, quantile_cont(v, 0.9) AS p90, stddev_pop(v) AS sd FROM %s GROUP BY k ORDER BY k", 100},
}

// Quote quotes a file path as an SQL string literal.
func Quote(path string) string { return "'" + strings.ReplaceAll(path, "'", "''") + "'" }

// WriteParquet writes a deterministic Parquet file of Rows orders over 2025 to path:
// an id, a key (100 values), a value, a label, a timestamp, 12 categories, 50,000
// customers, an amount and a status (one in 20 cancelled), all derived from the row
// number.
func WriteParquet(path string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf(`COPY (SELECT range AS id, range %% 100 AS k, (range * 7919) %% 1000 AS v, 'row ' || range AS label,
		TIMESTAMP '2025-01-01' + to_seconds((range * 31) %% 31536000) AS ts,
		'category ' || ((range * 13) %% 12) AS category,
		(range * 104729) %% 50000 AS customer,
		((range * 7919) %% 100000) / 100.0 AS amount,
		CASE WHEN range %% 20 = 0 THEN 'cancelled' ELSE 'complete' END AS status
		FROM range(%d)) TO %s (FORMAT parquet)`, Rows, Quote(path)))
	return err
}

// ScanAll runs query on db and reads every row into Go values: duckdb-go called
// directly, as a program without MCP would. It returns the number of rows.
func ScanAll(db *sql.DB, query string) (int, error) {
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

// Interleave runs each of ways once per iteration for as long as loop reports true
// (pass b.Loop), and returns the times of each way, by iteration.
//
// Every iteration runs the ways in an order of its own, shuffled from a fixed seed
// (every run uses the same sequence of orders). What a way meets in the CPU caches
// and in the engine depends on what ran just before it, and a cyclic order — one
// that only rotates which way starts — gives every way the same predecessor in
// every iteration: a way that always follows the heaviest neighbour (another
// process, another database) is always measured cold, the one after it always
// warm. Shuffled, each way follows each other way about equally often.
func Interleave(loop func() bool, ways []func()) [][]time.Duration {
	timed := make([]func() time.Duration, len(ways))
	for i, w := range ways {
		timed[i] = Timed(w)
	}
	return InterleaveTimed(loop, timed)
}

// Timed returns f as a way of InterleaveTimed: it reports how long f took.
func Timed(f func()) func() time.Duration {
	return func() time.Duration {
		s := time.Now()
		f()
		return time.Since(s)
	}
}

// InterleaveTimed is Interleave for ways that time themselves: each returns how
// long its measured part took, so that what it must set up and undo around it
// (a setting of the process) is not counted.
func InterleaveTimed(loop func() bool, ways []func() time.Duration) [][]time.Duration {
	rng := rand.New(rand.NewPCG(2026, 26))
	times := make([][]time.Duration, len(ways))
	order := make([]int, len(ways))
	for i := range order {
		order[i] = i
	}
	for loop() {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			times[k] = append(times[k], ways[k]())
		}
	}
	return times
}

// Median returns the median of ds (0 for none).
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// MedianDiff returns the median of a[i]-b[i]: the paired difference of two ways run
// moments apart in each iteration, in which drifts of the machine cancel.
func MedianDiff(a, b []time.Duration) time.Duration {
	d := make([]time.Duration, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return Median(d)
}

// WithMalloc runs this test binary again with GLIBC_TUNABLES=tunables in its
// environment when it runs benchmarks (-test.bench) on Linux without that
// variable, and returns the exit code and true; else it returns false and the
// caller goes on. The catalog server's query processes run with their own
// allocator settings (engine.WorkerMalloc): duckdb-go called directly, the
// yardstick, must run with the same, or what the settings gain a query would
// count as MCP's overhead below zero. Call it from TestMain after flag.Parse.
func WithMalloc(tunables string) (int, bool) {
	f := flag.Lookup("test.bench")
	if runtime.GOOS != "linux" || f == nil || f.Value.String() == "" {
		return 0, false
	}
	if _, set := os.LookupEnv("GLIBC_TUNABLES"); set {
		return 0, false
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), "GLIBC_TUNABLES="+tunables)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), true
		}
		fmt.Fprintln(os.Stderr, "benchdata: running the benchmarks with GLIBC_TUNABLES:", err)
		return 1, true
	}
	return 0, true
}
