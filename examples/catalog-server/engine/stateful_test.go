package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDuckStatefulFunctionsRefused: DuckDB functions a SELECT may call that change
// something beyond the query — logging and profiling (which write files in the
// package folder despite the configuration lock, and show one client's queries to
// another), checkpoints (checkpoint('system') invalidates the database), the
// random seed, rejects tables that hide the sources — or that run SQL held in a
// string are refused, however written; the package's files are unchanged, and the
// model answers afterwards. In the server's process and in a query process.
func TestDuckStatefulFunctionsRefused(t *testing.T) {
	m := testModel(t)
	pkg := m.Package.Dir
	manifest := filepath.Join(pkg, "manifest.json")
	items := filepath.Join(pkg, "data", "items.csv")
	before := map[string][]byte{}
	for _, f := range []string{manifest, items} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		before[f] = b
	}
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, DuckConfig{})
	q := func(s string) string { return strings.ReplaceAll(s, "PKG", pkg) }
	texts := []string{
		q("SELECT * FROM enable_profiling(save_location='PKG/manifest.json', format='json')"),
		q("SELECT * FROM enable_logging(storage='file', storage_path='PKG/data/items.csv', storage_normalize=false)"),
		q("SELECT * FROM enable_logging(storage='file', storage_path='PKG/logs')"),
		"SELECT * FROM enable_logging()",
		"SELECT * FROM ENABLE_LOGGING()",
		`SELECT * FROM "enable_logging"()`,
		"SELECT * FROM system.main.enable_logging()",
		"SELECT * FROM enable_logging(storage='file', storage_path='/nonexistent/x')",
		"SELECT * FROM disable_logging()", "SELECT * FROM truncate_duckdb_logs()",
		"SELECT write_log('pwned')", "SELECT name.write_log() FROM items", "SELECT length(write_log(repeat('x', 1000)))",
		"SELECT list_transform([1], v -> write_log('a')) AS l",
		"WITH x AS (SELECT write_log('a') AS w) SELECT * FROM x",
		"SELECT * FROM items WHERE id IN (SELECT 1 FROM enable_profiling())",
		"SELECT * FROM enable_profiling()", "SELECT * FROM disable_profiling()",
		"SELECT * FROM checkpoint('system')", "SELECT * FROM checkpoint()", "SELECT * FROM force_checkpoint()",
		"SELECT * FROM enable_peg_parser()", "SELECT * FROM disable_peg_parser()",
		"SELECT setseed(0.42)",
		"SELECT * FROM query('SELECT 1')", "SELECT * FROM query_table('items')",
		"SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
		"SELECT json_serialize_plan('SELECT write_log(''x'')')",
		q("SELECT count(*) FROM read_csv('PKG/data/items.csv', store_rejects=true, rejects_table='items', rejects_scan='tags')"),
		q("SELECT count(*) FROM read_csv('PKG/data/items.csv', REJECTS_TABLE='t')"),
		q("SELECT count(*) FROM read_csv('PKG/data/items.csv', rejects_table := 'items', columns := {'id': 'INTEGER', 'name': 'VARCHAR'})"),
		q("SELECT count(*) FROM read_csv('PKG/data/items.csv', store_rejects := true)"),
		// A SELECT json_serialize_sql cannot write out: its calls cannot be read.
		"SELECT CAST({'e': 'a'} AS STRUCT(e ENUM('a', 'b'))) AS s, write_log('x') AS w",
	}
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		for _, text := range texts {
			res, err := e.q.Query(context.Background(), text, nil, testLimits)
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Errorf("%s: %s: not refused: %v %+v", e.name, text, err, res)
			}
		}
		// Names that only look like them run.
		for _, text := range []string{"SELECT 1 AS query_id, 'checkpoint' AS s", "SELECT name AS setseed FROM items ORDER BY id LIMIT 1"} {
			if res, err := e.q.Query(context.Background(), text, nil, testLimits); err != nil || res.RowCount != 1 {
				t.Errorf("%s: %s: %v %+v", e.name, text, err, res)
			}
		}
		res, err := e.q.Query(context.Background(), "SELECT count(*) AS n FROM items", nil, testLimits)
		if err != nil || res.RowCount != 1 {
			t.Fatalf("%s: afterwards: %v %+v", e.name, err, res)
		}
	}
	for f, b := range before {
		if after, err := os.ReadFile(f); err != nil || string(after) != string(b) {
			t.Errorf("%s changed: %v %q", f, err, after)
		}
	}
	if _, err := os.Stat(filepath.Join(pkg, "logs")); !os.IsNotExist(err) {
		t.Errorf("a logs folder was made: %v", err)
	}
}

// TestDuckRowCapTrailingStatements: empty statements and comments after the
// statement's semicolon do not take it out from under the row cap (DuckDB's
// parser does not count them, and the capped text used to fail to prepare and
// run as sent, every row computed and held).
func TestDuckRowCapTrailingStatements(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{})
	lim := testLimits
	lim.RowLimit = 3
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		for _, tail := range []string{";;", "; ;", "; -- c", "; /* c */", ";\n;\n-- c\n", "; -- it's\n; /* ; */"} {
			text := "SELECT CASE WHEN i < 100000 THEN i ELSE error('computed past the row cap') END AS v FROM range(1000000) t(i)" + tail
			res, err := e.q.Query(context.Background(), text, nil, lim)
			if err != nil || res.RowCount != 3 || !res.Truncated {
				t.Errorf("%s: %q: %v %+v", e.name, tail, err, res)
			}
		}
		// A semicolon inside a comment, a string or a quoted name is not the
		// statement's end: the whole statement runs, under the cap.
		for text, cols := range map[string]int{
			"SELECT 1 AS a -- x; /*\n, 2 AS b, count(*) AS n FROM items\n-- */\n; -- end": 3,
			"SELECT 'a; --' AS x FROM items; -- c":                                        1,
			"SELECT 1 AS a /* ; -- */, 2 AS b; -- c":                                      2,
			`SELECT 1 AS "a;" ; -- c`:                                                     1,
		} {
			res, err := e.q.Query(context.Background(), text, nil, lim)
			if err != nil || len(res.Columns) != cols {
				t.Errorf("%s: %q: %v %+v", e.name, text, err, res)
			}
		}
	}
}

// TestDuckProcRunningMemory: a query process that grows past its bound while it
// computes (memory DuckDB's memory_limit does not count: the strings of a list a
// function builds) is ended, and the query answered out of memory; the next query
// runs in a new process. (Linux: elsewhere the size cannot be read.)
func TestDuckProcRunningMemory(t *testing.T) {
	if residentBytes(os.Getpid()) < 0 {
		t.Skip("the resident memory of a process cannot be read here")
	}
	duckRunMaxRSS.Store(400 << 20)
	defer duckRunMaxRSS.Store(0)
	p := openProc(t, nil, DuckConfig{MemoryLimit: "256MB"})
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 20 * time.Second}
	start := time.Now()
	_, err := p.Query(context.Background(), "SELECT sum(len(x)) AS n FROM (SELECT list_transform(range(2000000), i -> repeat('z', 500)) AS x)", nil, lim)
	var me *MemoryError
	if !errors.As(err, &me) || me.Limit != "256MB" || !strings.Contains(err.Error(), "past the 400 MiB a query process may hold") {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
	if res, err := p.Query(context.Background(), "SELECT count(*) AS n FROM items", nil, testLimits); err != nil || res.RowCount != 1 {
		t.Fatalf("afterwards: %v %+v", err, res)
	}
}

func TestSizeBytes(t *testing.T) {
	for in, want := range map[string]int64{"512MB": 512e6, "1.5 GiB": 3 << 29, "100000 bytes": 100000, "2gb": 2e9, " 64 MiB ": 64 << 20, "7": 7, "4g": 4e9, "512m": 512e6} {
		if got, ok := sizeBytes(in); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"80%", "", "MB", "-1MB", "12 parsecs"} {
		if got, ok := sizeBytes(in); ok {
			t.Errorf("%q: %d, want none", in, got)
		}
	}
}

func TestRunningMaxRSS(t *testing.T) {
	for limit, want := range map[string]int64{"": 1024e6, "512MB": 1024e6, "40MB": 40e6 + 256<<20, "2GiB": 4 << 30, "80%": 0} {
		if got := (&DuckProc{cfg: DuckConfig{MemoryLimit: limit}.withDefaults()}).runningMaxRSS(); got != want {
			t.Errorf("%q: %d, want %d", limit, got, want)
		}
	}
}

// TestDuckConfigDefaults: a DuckConfig without threads or a memory limit gets
// DefaultThreads and DefaultMemoryLimit; what it gives is kept.
func TestDuckConfigDefaults(t *testing.T) {
	for _, tt := range []struct{ in, want DuckConfig }{
		{DuckConfig{}, DuckConfig{Threads: DefaultThreads, MemoryLimit: DefaultMemoryLimit}},
		{DuckConfig{Threads: -1}, DuckConfig{Threads: DefaultThreads, MemoryLimit: DefaultMemoryLimit}},
		{DuckConfig{Threads: 3, MemoryLimit: "1GB"}, DuckConfig{Threads: 3, MemoryLimit: "1GB"}},
	} {
		if got := tt.in.withDefaults(); got.Threads != tt.want.Threads || got.MemoryLimit != tt.want.MemoryLimit {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestDuckColumnsWithinBudget: a result whose column names and types alone take
// more than the byte budget is refused, so that the budget bounds the answer.
func TestDuckColumnsWithinBudget(t *testing.T) {
	d := openTestDuck(t)
	lim := Limits{RowLimit: 10, ByteBudget: 4096, Timeout: testLimits.Timeout}
	long := strings.Repeat("n", 3000)
	for _, text := range []string{
		`SELECT 1 AS "` + long + `", 2 AS "` + long + `x"`,
		"SELECT {'" + long + "': {'" + long + "': 1}} AS s",
	} {
		_, err := d.Query(context.Background(), text, nil, lim)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "more than the byte budget of 4096") {
			t.Errorf("%.60s…: %v", text, err)
		}
	}
	if res, err := d.Query(context.Background(), `SELECT 1 AS "`+strings.Repeat("n", 1000)+`"`, nil, lim); err != nil || res.RowCount != 1 {
		t.Errorf("a long name within the budget: %v", err)
	}
}

// TestDuckWatchFunctionsRefused: the functions that show what other queries of
// the database did — in the server's process other clients' queries, in a
// reused query process earlier ones — are refused, saying why: the external
// file cache listed the files and byte ranges earlier queries read
// (['…/sales.sql', 8, 1113, true], Parquet footers).
func TestDuckWatchFunctionsRefused(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{})
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		if _, err := e.q.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{
			"SELECT * FROM duckdb_external_file_cache()",
			"SELECT path FROM DUCKDB_EXTERNAL_FILE_CACHE() WHERE path LIKE '%items%'",
			"SELECT * FROM items WHERE EXISTS (SELECT 1 FROM system.main.duckdb_external_file_cache())",
			"SELECT * FROM duckdb_temporary_files()",
			"SELECT * FROM duckdb_memory()",
			"SELECT * FROM pragma_database_size()",
			"SELECT * FROM duckdb_connection_count()",
		} {
			res, err := e.q.Query(context.Background(), text, nil, testLimits)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "shows what other queries of the model did") {
				t.Errorf("%s: %s: not refused so: %v %+v", e.name, text, err, res)
			}
		}
	}
}
