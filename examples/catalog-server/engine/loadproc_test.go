package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// loadTestModel is a model with sources that load and sources that do not,
// named queries with and without problems, and a notebook's cells.
func loadTestModel(t *testing.T, extra string) *catalog.Model {
	t.Helper()
	return loadModel(t, map[string]string{
		"p/k/manifest.json":  `{}`,
		"p/k/data/items.csv": "id,name,price,added\n1,apple,0.5,2024-01-02\n2,pear,0.75,2024-02-03\n",
		"p/k/data/tags.json": `[{"id":1,"tag":"fruit"},{"id":3,"tag":"stone"}]`,
		"p/k/m.sql": `-- @source items
SELECT * FROM read_csv('data/items.csv');
-- @source tags
SELECT * FROM read_json('data/tags.json');
-- @source escapes
SELECT * FROM read_csv('../../../etc/passwd');
-- @source nofile
SELECT * FROM 'data/missing.csv';
-- @source typo
SELECT * FROM items WHERE nme = 'x';
-- @query cheap
-- @param max DOUBLE
SELECT name FROM items WHERE price < $max;
-- @query badtype
-- @param n NOSUCHTYPE
SELECT * FROM items LIMIT $n;
-- @query syntax
SELEC 1;
-- @query undeclared
SELECT * FROM items WHERE id = $id;
` + extra,
		"p/k/nb.md": "# NB\n\n```sql\nSELECT count(*) FROM items\n```\n\n```sql\nSELECT nope FROM tags\n```\n",
	}, "p/k/m")
}

// TestLoadProcMatchesInProcess: a model loaded in a load process has the same
// columns, broken sources and query checks as one loaded in this process.
func TestLoadProcMatchesInProcess(t *testing.T) {
	m := loadTestModel(t, "")
	start := time.Now()
	in, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	inTook, start := time.Since(start), time.Now()
	out, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	t.Logf("loaded in %s in this process, %s in a load process", inTook, time.Since(start))
	if d := cmp.Diff(in.Columns(), out.Columns()); d != "" {
		t.Errorf("columns (-in +out):\n%s", d)
	}
	if d := cmp.Diff(in.Broken(), out.Broken()); d != "" {
		t.Errorf("broken (-in +out):\n%s", d)
	}
	if d := cmp.Diff(in.QueryChecks(), out.QueryChecks()); d != "" {
		t.Errorf("checks (-in +out):\n%s", d)
	}
	if len(in.Broken()) != 3 || len(in.QueryChecks()) < 4 || len(in.Columns()["items"]) != 4 {
		t.Errorf("the model is not what the test means: broken %v, checks %v", in.Broken(), in.QueryChecks())
	}
	// The file it wrote serves queries, in this process and in query processes.
	res, err := out.Query(context.Background(), "SELECT count(*) AS n FROM items JOIN tags USING (id)", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "1" {
		t.Fatalf("query: %v %v", res, err)
	}
	p, err := OpenDuckProc(context.Background(), m, DuckConfig{Worker: testWorker, Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if res, err := p.Query(context.Background(), "SELECT count(*) AS n FROM items", nil, testLimits); err != nil || cell(res, 0, 0) != "2" {
		t.Fatalf("query process: %v %v", res, err)
	}
}

// deepJSON is a JSON document nested deeper than DuckDB's reader survives: it
// overflows its stack (SIGSEGV) when the file's columns are detected.
func deepJSON(n int) string {
	return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}"
}

// crashSQL crashes DuckDB (SIGSEGV) while it prepares it: json_structure of
// a constant nested a million deep, computed as the query is prepared.
const crashSQL = "SELECT json_structure(repeat('[', 1000000) || repeat(']', 1000000)) AS j"

// TestLoadProcCrashes: DuckDB crashing on a source's file, a named query or a
// notebook cell ends the load process, not this one: that source, query or
// cell is told so (naming the signal), and the rest of the model loads and is
// checked.
func TestLoadProcCrashes(t *testing.T) {
	m := loadModel(t, map[string]string{
		"p/k/manifest.json":  `{}`,
		"p/k/data/t.csv":     "x,y\n1,2\n3,4\n",
		"p/k/data/deep.json": deepJSON(50000),
		"p/k/m.sql": `-- @source deep
SELECT * FROM read_json('data/deep.json');
-- @source t
SELECT * FROM read_csv('data/t.csv');
-- @query boom
` + crashSQL + `;
-- @query after
SELEC x FROM t;
`,
		"p/k/nb.md": "# NB\n\n```sql\n" + crashSQL + "\n```\n\n```sql\nSELECT nope FROM t\n```\n",
	}, "p/k/m")
	start := time.Now()
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Logf("loaded in %s", time.Since(start))
	crashed := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "DuckDB crashed (SIGSEGV") || !strings.Contains(msg, what) || !strings.Contains(msg, "the server kept running") {
			t.Errorf("%s: %q", what, msg)
		}
	}
	crashed("building the view of source deep", d.Broken()["deep"])
	if len(d.Columns()["t"]) != 2 || d.Broken()["t"] != "" {
		t.Errorf("source t: %v, %q", d.Columns()["t"], d.Broken()["t"])
	}
	checks := d.QueryChecks()
	if p := checks["boom"].Problems; len(p) != 1 {
		t.Errorf("boom: %q", p)
	} else {
		crashed("checking the named query boom", p[0])
	}
	if p := checks["after"].Problems; len(p) != 1 || !strings.Contains(p[0], "Parser Error") {
		t.Errorf("the query after the crash is not checked: %q", p)
	}
	if p := checks["nb/cell-1"].Problems; len(p) != 1 {
		t.Errorf("cell-1: %q", p)
	} else {
		crashed("checking the notebook cell nb/cell-1", p[0])
	}
	if p := checks["nb/cell-2"].Problems; len(p) != 1 || !strings.Contains(p[0], "nope") {
		t.Errorf("the cell after the crash is not checked: %q (all: %v)", p, checks)
	}
	// The query and the cell that crashed are refused to calls; the others,
	// whose SQL is only wrong, are not.
	for _, k := range []string{"boom", "nb/cell-1"} {
		if r := checks[k].Refuse; !strings.HasPrefix(r, "checking it crashed DuckDB (SIGSEGV") {
			t.Errorf("%s: Refuse %q", k, r)
		}
	}
	for _, k := range []string{"after", "nb/cell-2"} {
		if r := checks[k].Refuse; r != "" {
			t.Errorf("%s: Refuse %q", k, r)
		}
	}
	res, err := d.Query(context.Background(), "SELECT sum(x) AS s FROM t", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "4" {
		t.Fatalf("query: %v %v", res, err)
	}
}

// TestLoadProcMemory: a named query whose check needs more memory than the
// load may hold (a constant string of hundreds of megabytes, which DuckDB's
// memory limit does not count) stops its load process near the bound, and is
// told so; the model opens.
func TestLoadProcMemory(t *testing.T) {
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": `-- @source s
SELECT 1 AS a;
-- @query big
SELECT length(repeat('x', 600000000) || 'y') AS n;
`,
	}, "p/k/m")
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker, MemoryLimit: "64MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := d.QueryChecks()["big"].Problems
	if len(p) != 1 || !strings.Contains(p[0], "more memory than a model's load may use while checking the named query big") || !strings.Contains(p[0], "past the 317 MiB") {
		t.Errorf("big: %q", p)
	}
	if r := d.QueryChecks()["big"].Refuse; !strings.HasPrefix(r, "checking it needed more memory than a model's load may use (its load process held") {
		t.Errorf("big: Refuse %q", r)
	}
	if len(d.Columns()["s"]) != 1 {
		t.Errorf("columns: %v", d.Columns())
	}
}

// TestLoadProcTimeLimit: a check DuckDB cannot interrupt (a levenshtein
// distance of two long constant strings, computed as it is prepared) is stopped
// at the model's load limit and told so; the model still opens, its views
// written.
func TestLoadProcTimeLimit(t *testing.T) {
	defer func(l time.Duration) { loadLimit = l }(loadLimit)
	loadLimit = 3 * time.Second
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": `-- @source s
SELECT 1 AS a;
-- @query slow
SELECT levenshtein(repeat('a', 150000), repeat('b', 150000)) AS d;
-- @query next
SELECT a FROM s;
`,
	}, "p/k/m")
	start := time.Now()
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if took > loadLimit+duckStartLimit {
		t.Errorf("the load took %s", took)
	}
	checks := d.QueryChecks()
	if p := checks["slow"].Problems; len(p) != 1 || !strings.Contains(p[0], "longer than its 3s limit: DuckDB was still checking the named query slow") {
		t.Errorf("slow: %q", p)
	}
	if r := checks["slow"].Refuse; r != "" {
		t.Errorf("slow is refused (a call has its own time limit): %q", r)
	}
	if p := checks[""].Problems; len(p) != 1 || !strings.Contains(p[0], "1 of the model's 2 named queries were not checked when it loaded (the load ran out of its 3s)") {
		t.Errorf("unchecked: %q", p)
	}
	res, err := d.Query(context.Background(), "SELECT a FROM s", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "1" {
		t.Fatalf("query: %v %v", res, err)
	}
}

// TestLoadProcCancelled: a load stopped by its caller (a reload or shutdown)
// ends its load process at once, and starts no other. Before, the step that
// closes the database started a new load process just for that.
func TestLoadProcCancelled(t *testing.T) {
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source s\nSELECT 1 AS a;\n-- @query slow\nSELECT levenshtein(repeat('a', 150000), repeat('b', 150000)) AS d;\n",
	}, "p/k/m")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	var started atomic.Int32
	_, err := OpenDuck(ctx, m, DuckConfig{Loader: func() *exec.Cmd { started.Add(1); return testWorker() }})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("after %s: %v", time.Since(start), err)
	}
	// Not one more process to close the database of a load given up.
	if n := started.Load(); n != 1 {
		t.Errorf("%d load processes started, want 1", n)
	}
}

// TestLoadProcCannotStart: a load process that cannot be started leaves the
// model unopened, said to be the server's fault.
func TestLoadProcCannotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	_, err := OpenDuck(context.Background(), loadTestModel(t, ""), DuckConfig{Loader: func() *exec.Cmd { return exec.Command(missing) }})
	if err == nil || !strings.Contains(err.Error(), "load process could not be started") || !strings.Contains(err.Error(), "fault of the server") {
		t.Errorf("got %v", err)
	}
}

// TestCrashDetail: a load process's end is named by the Go runtime's signal
// line, its fatal error or panic (crashLine), or its exit status.
func TestCrashDetail(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"SIGSEGV: segmentation violation\nPC=0x1 m=0 sigcode=1\nsignal arrived during cgo execution\n", "SIGSEGV: segmentation violation"},
		{"fatal error: runtime: out of memory\n\nruntime stack:\n", "fatal error: runtime: out of memory"},
		{"panic: boom\n\ngoroutine 1 [running]:\n", "panic: boom"},
		{"", "its process ended without answering"},
	} {
		if got := crashDetail(nil, tc.stderr); got != tc.want {
			t.Errorf("%q: %q", tc.stderr, got)
		}
	}
}

// TestLoadProcStdoutNoSignal: a line on a load process's standard output that
// reads as the Go runtime's signal line ("SIGFAKE: …") is not taken for how the
// process ended: its exit status is told. Before, its standard output was kept
// with its standard error, where crashDetail looks for the signal.
func TestLoadProcStdoutNoSignal(t *testing.T) {
	_, err := OpenDuck(context.Background(), loadTestModel(t, ""), DuckConfig{Loader: workerAs("-fakesig")})
	if err == nil || strings.Contains(err.Error(), "SIGFAKE") || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("got %v", err)
	}
}

// TestLoadProcGivesUp: a model whose load runs out of time while its views
// are built, or crashes DuckDB maxLoadCrashes times, does not open, its error
// saying which step or which sources.
func TestLoadProcGivesUp(t *testing.T) {
	files := map[string]string{"p/k/manifest.json": `{}`, "p/k/data/deep.json": deepJSON(50000)}
	var m strings.Builder
	for i := range maxLoadCrashes + 1 {
		fmt.Fprintf(&m, "-- @source d%d\nSELECT * FROM read_json('data/deep.json');\n", i)
	}
	files["p/k/m.sql"] = m.String()
	model := loadModel(t, files, "p/k/m")
	_, err := OpenDuck(context.Background(), model, DuckConfig{Loader: testWorker})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("DuckDB crashed %d times while loading the model (building the view of source d0; ", maxLoadCrashes)) {
		t.Errorf("crashes: %v", err)
	}

	defer func(l time.Duration) { loadLimit = l }(loadLimit)
	loadLimit = time.Millisecond
	_, err = OpenDuck(context.Background(), loadTestModel(t, ""), DuckConfig{Loader: testWorker})
	if err == nil || !strings.Contains(err.Error(), "loading the model took longer than its 1ms limit: DuckDB was still opening the model's database") {
		t.Errorf("time: %v", err)
	}
}

// TestLoadProcAnswerTooLarge: a source whose columns' names and types are more
// than the server reads of a load step's answer (a JSON file whose object has
// very many keys of mixed types: a STRUCT type of about 50 KB; the cap lowered
// here) is broken with a message saying so, naming the
// cap, not as a crash of DuckDB: more such sources than maxLoadCrashes do not
// stop the load, and the other sources are served. Read through a reader
// (read_json, frozen: its columns described) or by the file's name (the view
// made, then its columns read), both. Before, the reader stopped at the
// answer and the step was told as "DuckDB crashed (its process ended …)",
// counted toward maxLoadCrashes, and one view too wide among the model's
// made the whole model fail to open.
func TestLoadProcAnswerTooLarge(t *testing.T) {
	defer func(n int64) { loadAnswerHead = n }(loadAnswerHead)
	loadAnswerHead = 16 << 10
	var wide strings.Builder
	wide.WriteString(`[{"id":1,"s":{`)
	for i := range 1500 {
		if i > 0 {
			wide.WriteString(",")
		}
		// Mixed types: keys of one type would be read as a MAP.
		fmt.Fprintf(&wide, `"a_rather_long_key_number_%04d":%s`, i, []string{"1", `"s"`, "true", "[1]", `{"x":1}`, "1.5"}[i%6])
	}
	wide.WriteString("}}]")
	files := map[string]string{"p/k/manifest.json": `{}`, "p/k/data/wide.json": wide.String(), "p/k/data/t.csv": "x,y\n1,2\n3,4\n"}
	var m strings.Builder
	for i := range maxLoadCrashes + 1 {
		if i%2 == 0 {
			fmt.Fprintf(&m, "-- @source w%d\nSELECT * FROM read_json('data/wide.json');\n", i)
		} else {
			fmt.Fprintf(&m, "-- @source w%d\nSELECT * FROM 'data/wide.json';\n", i)
		}
	}
	m.WriteString("-- @source t\nSELECT * FROM read_csv('data/t.csv');\n-- @query q\nSELECT x FROM t;\n")
	files["p/k/m.sql"] = m.String()
	d, err := OpenDuck(context.Background(), loadModel(t, files, "p/k/m"), DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := range maxLoadCrashes + 1 {
		name := fmt.Sprintf("w%d", i)
		msg := d.Broken()[name]
		// w0, w2, …: the view's SQL, its reader frozen with the columns it
		// was described with (the load process described it); w1, w3, …:
		// the view's columns, read once it is made.
		// The view's SQL holds the package's absolute path: its size follows
		// the length of the test's folder, whose random part has 9 or 10 digits.
		step, size := "building the view of source ", `6068\d bytes, past 17`
		if i%2 == 1 {
			step, size = "reading the columns of the view of source ", "60554 bytes, past 20"
		}
		if !regexp.MustCompile(regexp.QuoteMeta("DuckDB's answer while "+step+name+" was larger than the server reads of one step of a load: ")+size).MatchString(msg) ||
			!strings.Contains(msg, "DuckDB did not crash") || strings.Contains(msg, "crashed") {
			t.Errorf("%s: %q", name, msg)
		}
		if d.Columns()[name] != nil {
			t.Errorf("%s has columns %d", name, len(d.Columns()[name]))
		}
	}
	if len(d.Columns()["t"]) != 2 || d.Broken()["t"] != "" || len(d.QueryChecks()["q"].Problems) != 0 {
		t.Errorf("source t: %v %q; checks %v", d.Columns()["t"], d.Broken()["t"], d.QueryChecks())
	}
	if res, err := d.Query(context.Background(), "SELECT sum(x) AS s FROM t", nil, testLimits); err != nil || cell(res, 0, 0) != "4" {
		t.Fatalf("query: %v %v", res, err)
	}
}

// TestLoadProcCrashLogged: what a crashing load process writes (the Go
// runtime's dump, about 8 KB a crash) goes neither to the server's standard
// error nor into the log: each crash is one line, rate-limited with the query
// processes' (workerNotes); the dump only with CrashDumps. Before, a model of
// crashing queries wrote every dump to the server's standard error at each
// load (49 KB for ten such queries).
func TestLoadProcCrashLogged(t *testing.T) {
	var src strings.Builder
	src.WriteString("-- @source t\nSELECT 1 AS x;\n")
	for i := range 4 {
		fmt.Fprintf(&src, "-- @query boom%d\n%s FROM t;\n", i, crashSQL)
	}
	m := loadModel(t, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": src.String()}, "p/k/m")
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer func(f *os.File) { os.Stderr = f }(os.Stderr)
	os.Stderr = stderr

	freshNotes(t, 2, 3*time.Second)
	log, buf := testLog()
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "were not logged one by one") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	out := buf.String()
	if n := strings.Count(out, `msg="a load process crashed`); n != 2 || !strings.Contains(out, "count=2") ||
		!strings.Contains(out, `detail="SIGSEGV: segmentation violation"`) || strings.Contains(out, "goroutine") || len(out) > 3000 {
		t.Errorf("want 2 crash lines and one counting 2 more, got %d:\n%.4000s", n, out)
	}
	if fi, err := stderr.Stat(); err != nil || fi.Size() != 0 {
		b, _ := os.ReadFile(stderr.Name())
		t.Errorf("the server's standard error got %d bytes: %.500s", len(b), b)
	}

	// With the dumps: in the log line, bounded.
	freshNotes(t, 1, time.Minute)
	log, buf = testLog()
	d, err = OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker, Log: log, CrashDumps: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if out := buf.String(); !strings.Contains(out, "goroutine") || len(out) > outputHead+outputKeep+2000 {
		t.Errorf("the dump (%d bytes): %.500s", len(out), out)
	}
}

// TestLoadProcCrashCapRefusesUnchecked: named queries and notebook cells left
// unchecked when the model's load process reached maxLoadCrashes crashes are
// refused (QueryCheck.Unchecked), as those that crashed are, and the model says
// why under ""; its sources are served. Before, they were left unrefused,
// "judged when they run": with queries in the server's process, calling one
// ran SQL no check had reached, which might crash the server.
func TestLoadProcCrashCapRefusesUnchecked(t *testing.T) {
	// Eight crashes, each a process started, may take past the check's 2 s
	// on a loaded machine: the queries then left are the budget's.
	defer func(b time.Duration) { queryCheckBudget = b }(queryCheckBudget)
	queryCheckBudget = time.Minute
	var src strings.Builder
	src.WriteString("-- @source t\nSELECT 1 AS x;\n")
	for i := range maxLoadCrashes {
		fmt.Fprintf(&src, "-- @query boom%d\n%s;\n", i, crashSQL)
	}
	src.WriteString("-- @query after\nSELECT x FROM t;\n")
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         src.String(),
		"p/k/nb.md":         "# NB\n\n```sql\nSELECT x FROM t\n```\n",
	}, "p/k/m")
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checks := d.QueryChecks()
	for i := range maxLoadCrashes {
		k := fmt.Sprintf("boom%d", i)
		if c := checks[k]; !strings.HasPrefix(c.Refuse, "checking it crashed DuckDB (SIGSEGV") || c.Unchecked {
			t.Errorf("%s: %+v", k, c)
		}
	}
	for _, k := range []string{"after", "nb/cell-1"} {
		c := checks[k]
		if !c.Unchecked || len(c.Problems) != 0 ||
			!strings.HasPrefix(c.Refuse, fmt.Sprintf("its check did not run: the model's load process had crashed %d times before it (checking the named query boom0; ", maxLoadCrashes)) {
			t.Errorf("%s: %+v", k, c)
		}
	}
	if p := checks[""].Problems; len(p) != 1 || !strings.Contains(p[0], "2 of the model's 9 named queries and 1 notebook cells (of the notebooks that run against it) were not checked when it loaded (DuckDB crashed 8 times), so calls of them are refused: fix or remove") {
		t.Errorf("the model's problem: %q", p)
	}
	if res, err := d.Query(context.Background(), "SELECT x FROM t", nil, testLimits); err != nil || cell(res, 0, 0) != "1" {
		t.Fatalf("query: %v %v", res, err)
	}
}

// TestLoadProcUnreadableAnswer: a load process's answer that does not read as
// one (a garbled frame; an answer without the SQL or parameters a step asks
// for) is told as that, on the step that got it — the source left out, the
// named query's problem — not as a crash of DuckDB: more of them than
// maxLoadCrashes do not stop the load, nothing is refused for it, each is
// logged (rate-limited), and the rest of the model loads and is served.
// Before, a garbled answer was told as "DuckDB crashed (its answer could not
// be read: …)" and counted toward maxLoadCrashes, so nine of them made the
// model fail to open; and rows of the wrong shape for a view's columns ended
// the server.
func TestLoadProcUnreadableAnswer(t *testing.T) {
	freshNotes(t, 100, time.Minute)
	log, buf := testLog()
	var src strings.Builder
	for i := range maxLoadCrashes + 1 {
		fmt.Fprintf(&src, "-- @source j%d\nSELECT 1 AS %s;\n", i, garbleJunk)
	}
	src.WriteString("-- @source shape\nSELECT 1 AS " + garbleShape + ";\n")
	src.WriteString("-- @source " + garbleRow + "\nSELECT 1 AS a, 2 AS b;\n")
	src.WriteString("-- @source t\nSELECT 1 AS x;\n")
	src.WriteString("-- @query qj\nSELECT x AS " + garbleJunk + " FROM t;\n")
	src.WriteString("-- @query qs\nSELECT x AS " + garbleShape + " FROM t;\n")
	src.WriteString("-- @query ok\nSELECT x FROM t;\n")
	m := loadModel(t, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": src.String()}, "p/k/m")
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: workerAs("-loadgarbled"), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	unreadable := func(name, msg, while, detail string) {
		t.Helper()
		if !strings.Contains(msg, "the model's load process sent what does not read as an answer while "+while+" ("+detail) ||
			!strings.Contains(msg, "DuckDB did not crash") || !strings.Contains(msg, "fault of the server") || strings.Contains(msg, "DuckDB crashed") {
			t.Errorf("%s: %q", name, msg)
		}
		// Only a garbled frame ends the process: an answer of the wrong
		// shape leaves it running, and does not say it was ended.
		if ended := strings.Contains(msg, "the load process was ended"); ended != (detail == "invalid character") {
			t.Errorf("%s: said ended %v: %q", name, ended, msg)
		}
	}
	for i := range maxLoadCrashes + 1 {
		name := fmt.Sprintf("j%d", i)
		unreadable(name, d.Broken()[name], "building the view of source "+name, "invalid character")
	}
	unreadable("shape", d.Broken()["shape"], "building the view of source shape", "an answer without the view's SQL")
	// Rows of another shape than asked: said so, not read past their end
	// (before, an index out of range: a panic that ended the server).
	unreadable(garbleRow, d.Broken()[garbleRow], "reading the columns of the view of source "+garbleRow, "a row of 1 values, not 2")
	if d.Columns()[garbleRow] != nil {
		t.Errorf("%s has columns %v", garbleRow, d.Columns()[garbleRow])
	}
	checks := d.QueryChecks()
	for _, tc := range []struct{ name, detail string }{{"qj", "invalid character"}, {"qs", "an answer without the prepared statement's parameters"}} {
		c := checks[tc.name]
		if len(c.Problems) != 1 || c.Refuse != "" {
			t.Errorf("%s: %+v", tc.name, c)
			continue
		}
		unreadable(tc.name, c.Problems[0], "checking the named query "+tc.name, tc.detail)
	}
	if c, ok := checks["ok"]; ok {
		t.Errorf("ok: %+v", c)
	}
	if c, ok := checks[""]; ok {
		t.Errorf("the model: %+v", c)
	}
	if res, err := d.Query(context.Background(), "SELECT x FROM t", nil, testLimits); err != nil || cell(res, 0, 0) != "1" {
		t.Fatalf("query: %v %v", res, err)
	}
	out := buf.String()
	if n := strings.Count(out, `msg="a load process's answer could not be read; the process was ended"`); n != maxLoadCrashes+2 || strings.Contains(out, "a load process crashed") {
		t.Errorf("%d lines, want %d:\n%.3000s", n, maxLoadCrashes+2, out)
	}
}

// TestLoadRowsShape: rows checks the width of every row once, for every
// caller: a load process's row of another width than asked (garbleRow) is an
// "unreadable" LoadError on the step, the process left running; in the load
// process, a query of another width than asked is an error, not a row a
// caller would index past its end. Before, only the caller reading a view's
// columns checked, and rowString took a row of any width.
func TestLoadRowsShape(t *testing.T) {
	ctx := context.Background()
	conn, err := openLoad(ctx, t.TempDir(), filepath.Join(t.TempDir(), "m.duckdb"), DuckConfig{Loader: workerAs("-loadgarbled")}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.abandon()
	conn.doing("reading the test's rows")
	rows, err := conn.rows(ctx, 3, "SELECT 1, 2, ?", garbleRow)
	var le *LoadError
	if !errors.As(err, &le) || le.Kind != "unreadable" || le.What != "reading the test's rows" || le.Detail != "a row of 1 values, not 3" || le.Ended || rows != nil {
		t.Errorf("a garbled row: %v %#v", rows, err)
	}
	if _, err := rowString(ctx, conn, "SELECT 1, ?", garbleRow+"x"); err == nil || !strings.Contains(err.Error(), "a query of 2 columns, not 1") {
		t.Errorf("a query of 2 columns for rowString: %v", err)
	}
	if rows, err := conn.rows(ctx, 2, "SELECT 1, 'b'"); err != nil || len(rows) != 1 || rows[0][1] != "b" {
		t.Errorf("after them, the process still answers: %v %v", rows, err)
	}
}
