package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestSourceFileFault: a query that fails while DuckDB scans a source's file
// (a CSV value past the rows its types were detected from, a JSON line that
// does not parse past the sample) blames the catalog, kind unavailable, naming
// the source and the file and what its author can change — not sql_error "Fix
// the SQL and call again", which no SQL of the caller's reading the source can.
// So for a Parquet file that is not one, among the files a source's pattern
// reads (the first, read when the model loaded, is whole).
// A cast of a column in the caller's SQL stays the caller's sql_error, and so
// does a file the caller's own SQL names. In the server's process and in a
// query process.
func TestSourceFileFault(t *testing.T) {
	dir := t.TempDir()
	var csv, js strings.Builder
	csv.WriteString("a,b\n")
	for i := range 60000 {
		fmt.Fprintf(&csv, "%d,x\n", i)
		fmt.Fprintf(&js, "{\"a\":%d}\n", i)
	}
	csv.WriteString("abc,y\n")
	js.WriteString("{\"a\": oops\n")
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json":  `{}`,
		"p/k/data/big.csv":   csv.String(),
		"p/k/data/big.jsonl": js.String(),
		"p/k/m.sql": "-- @source big\nSELECT * FROM read_csv('data/big.csv');\n\n" +
			"-- @source lines\nSELECT * FROM read_json('data/big.jsonl', format='newline_delimited');\n\n" +
			"-- @source pq\nSELECT * FROM read_parquet('data/p/*.parquet');\n\n" +
			"-- @source ok\nSELECT 1 AS v;\n\n" +
			"-- @query total\nSELECT sum(a) AS s FROM big;\n",
	})
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "p/k/data/p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("COPY (SELECT 1 AS a) TO '" + filepath.Join(dir, "p/k/data/p/a.parquet") + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(filepath.Join(dir, "p/k/data/p/b.parquet"), []byte("PAR1 not a Parquet file, text PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		cfg  Config
	}{
		{"in process", Config{}},
		{"query processes", Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			svc := newTestService(t, dir, mode.cfg)
			cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
			for _, tc := range []struct {
				args       map[string]any
				file, what string
			}{
				{map[string]any{"path": "p/k/m", "sql": "SELECT sum(a) FROM big"}, "data/big.csv", "the source big"},
				{map[string]any{"path": "p/k/m/total"}, "data/big.csv", "the source big"},
				{map[string]any{"path": "p/k/m", "sql": "SELECT max(a) FROM lines"}, "data/big.jsonl", "the source lines"},
				{map[string]any{"path": "p/k/m", "sql": "SELECT sum(a) FROM pq"}, "data/p/b.parquet", "the source pq"},
			} {
				var te toolError
				res := call(t, cs, "execute_query", tc.args, &te)
				want := "the file " + tc.file + " of " + tc.what + " (model p/k/m) could not be read as the catalog reads it; the fault is the catalog's file or its source's SQL, not this call's SQL"
				if !res.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, want) || !strings.Contains(te.Hint, "Nothing in this call's SQL can fix it") || !strings.Contains(te.Hint, "For the catalog's author") {
					t.Errorf("%v: kind %q, error %q, hint %q; want unavailable, %q", tc.args, te.Kind, te.Error, te.Hint, want)
				}
				if strings.Contains(te.Error, dir) {
					t.Errorf("%v: the error shows the server's folder: %q", tc.args, te.Error)
				}
				if strings.Contains(te.Error, "CSV Error") && !strings.Contains(te.Hint, "types={") {
					t.Errorf("%v: hint %q gives the author no CSV option", tc.args, te.Hint)
				}
			}
			// The caller's own cast of a column: the caller's SQL.
			var te toolError
			call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT CAST(b AS INTEGER) FROM big"}, &te)
			if te.Kind != "sql_error" {
				t.Errorf("a cast of the caller's: kind %q, error %q", te.Kind, te.Error)
			}
			// The model's other sources answer.
			if res := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT v FROM ok"}, nil); res.IsError {
				t.Errorf("another source: %s", text(res))
			}
		})
	}
}

// lateBadCSV is a CSV file whose integer column a holds, after 60,000 rows
// (past the rows DuckDB detects types from), one value that is not a number.
func lateBadCSV() string {
	var csv strings.Builder
	csv.WriteString("a,b\n")
	for i := range 60000 {
		fmt.Fprintf(&csv, "%d,x\n", i)
	}
	csv.WriteString("abc,y\n")
	return csv.String()
}

// TestSourceFileFaultCallers: an error the caller's SQL caused stays the
// caller's sql_error even when its text names a file a source reads — the
// caller's error() call, the caller's cast of a string that happens to be such
// a file's name (or of a column whose values are the package's file names),
// the caller's own read_csv of a pattern that takes in the file. Before, any
// quoted file name on the error's first line blamed the catalog ("the fault is
// the catalog's file"). A true fault of the same model stays the catalog's.
func TestSourceFileFaultCallers(t *testing.T) {
	dir := t.TempDir()
	csv := lateBadCSV()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json":  `{}`,
		"p/k/data/x.csv":     "a,b\n1,2\n3,4\n",
		"p/k/data/y.csv":     "a,b\n1,zz\n",
		"p/k/data/paths.csv": "p\ndata/x.csv\n",
		"p/k/late/big.csv":   csv,
		"p/k/m.sql": "-- @source big\nSELECT * FROM read_csv('data/x.csv');\n\n" +
			"-- @source g\nSELECT * FROM read_csv('data/*.csv', union_by_name=true);\n\n" +
			"-- @source paths\nSELECT * FROM read_csv('data/paths.csv');\n\n" +
			"-- @source late\nSELECT * FROM read_csv('late/*.csv');\n",
	})
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
	for _, tc := range []struct{ sql, kind string }{
		{`SELECT error('"data/x.' || 'csv"')`, "sql_error"},
		{`SELECT error('CSV Error on Line: 2' || chr(10) || '  file = data/x.csv')`, "sql_error"},
		{`SELECT "error"('Malformed JSON in file "data/x.' || 'csv"')`, "sql_error"},
		{`SELECT CAST('data/x.' || 'csv' AS INTEGER)`, "sql_error"},
		{`SELECT a FROM big WHERE a = CAST('data/x.'||'csv' AS INT)`, "sql_error"},
		{`SELECT CAST('Malformed JSON in file "data/x.' || 'csv"' AS INTEGER)`, "sql_error"},
		{`SELECT CAST(p AS INTEGER) FROM paths`, "sql_error"},
		// The caller's own reading of the package's files is refused (a
		// relative path), whatever the pattern.
		{`SELECT * FROM read_csv('data/*.csv', types={'b':'INTEGER'})`, "refused"},
		{`SELECT sum(a) FROM read_csv('late/**/*.csv')`, "refused"},
	} {
		var te toolError
		res := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": tc.sql}, &te)
		if !res.IsError || te.Kind != tc.kind || strings.Contains(te.Error, "fault is the catalog") {
			t.Errorf("%s: kind %q, error %q; want the caller's %s", tc.sql, te.Kind, te.Error, tc.kind)
		}
	}
	// The same model's true fault: a value past the sampled rows of the
	// source's own file.
	// The word error( in a literal or a comment is no call of error().
	for _, sql := range []string{
		"SELECT sum(a) FROM late",
		"SELECT sum(a) FROM late WHERE 'error (' IS NOT NULL",
		"SELECT sum(a) FROM late -- error(\n",
		"SELECT /* error( */ sum(a) FROM late",
		// Nor in a dollar-quoted string, an E'' string, or a nested comment
		// (CodeOnly; before, these cleared the catalog of its fault).
		"SELECT sum(a) FROM late WHERE $$error($$ IS NOT NULL",
		"SELECT sum(a) FROM late WHERE $t$ it's error( $t$ IS NOT NULL",
		"SELECT sum(a) FROM late WHERE E'\\' error(' IS NOT NULL",
		"SELECT /* a /* b */ error( */ sum(a) FROM late",
		// Nor the name error before "(" where it names no function: an
		// alias's columns, a CTE, a quoted alias (before, the fault was the
		// caller's sql_error).
		"SELECT sum(x) FROM late AS error(x)",
		"SELECT sum(x) FROM late AS \"error\"(x)",
		"WITH error(x) AS (SELECT a FROM late) SELECT sum(x) FROM error",
		"WITH error (x) AS MATERIALIZED (SELECT a FROM late) SELECT sum(x) FROM error",
		`SELECT sum(a) AS "error(" FROM late`,
		// A call of error() elsewhere in the SQL does not make a CSV's
		// Conversion Error the caller's: error() answers Invalid Input Error.
		"SELECT sum(a) FROM late WHERE CASE WHEN a IS NULL THEN error('never') END IS NULL",
	} {
		var te toolError
		call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": sql}, &te)
		if te.Kind != "unavailable" || !strings.Contains(te.Error, "the file late/big.csv of the source late (model p/k/m)") {
			t.Errorf("%s: kind %q, error %q; want unavailable naming late/big.csv", sql, te.Kind, te.Error)
		}
	}
}

// TestSourceFileGone: a source's file removed is the catalog's fault, told
// as such (before: the caller's sql_error, "fix the SQL"), whether DuckDB
// finds no file or cannot open what is there.
func TestSourceFileGone(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`, "p/k/data/gone.csv": "a,b\n1,2\n", "p/k/data/dir.csv": "a,b\n1,2\n",
		"p/k/m.sql": "-- @source gone\nSELECT * FROM read_csv('data/gone.csv');\n\n-- @source dir\nSELECT * FROM read_csv('data/dir.csv');\n",
	})
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
	if err := os.Remove(filepath.Join(dir, "p/k/data/gone.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "p/k/data/dir.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "p/k/data/dir.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"gone", "dir"} {
		var te toolError
		call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM " + src}, &te)
		if te.Kind != "unavailable" || !strings.Contains(te.Error, "the file data/"+src+".csv of the source "+src) {
			t.Errorf("%s: kind %q, error %q; want unavailable naming data/%s.csv", src, te.Kind, te.Error, src)
		}
	}
}

// TestSourceFileFaultLinkedRoot: a catalog folder reached through a symbolic
// link: the source's file fault names the file in the package, not the
// server's folder (either the link or where it points).
func TestSourceFileFaultLinkedRoot(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "real")
	csv := lateBadCSV()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/big.csv":  csv,
		"p/k/m.sql":         "-- @source big\nSELECT * FROM read_csv('data/big.csv');\n",
	})
	link := filepath.Join(root, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	svc := newTestService(t, link, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
	var te toolError
	call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT sum(a) FROM big"}, &te)
	if te.Kind != "unavailable" || !strings.Contains(te.Error, "the file data/big.csv of the source big") || strings.Contains(te.Error, root) {
		t.Errorf("kind %q, error %q; want unavailable naming data/big.csv, not the folder %s", te.Kind, te.Error, root)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, rel string
		want     bool
	}{
		{"data/*.csv", "data/x.csv", true},
		{"data/*.csv", "data/sub/x.csv", false},
		{"data/**/*.csv", "data/x.csv", true},
		{"data/**/*.csv", "data/a/b/x.csv", true},
		{"data/**", "data/a/x.csv", true},
		{"data/?.csv", "data/x.csv", true},
		{"data/[xy].csv", "data/y.csv", true},
		{"data/[!xy].csv", "data/y.csv", false},
		{"data/x.csv", "data/x.csv", true},
		{"data/*.json", "data/x.csv", false},
		{"d+ta/*.csv", "dddta/x.csv", false},
	} {
		if got := globMatch(tc.pat, tc.rel); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pat, tc.rel, got, tc.want)
		}
	}
}

// TestSourceFileFaultShape: the hint's advice to the catalog's author follows
// the form of DuckDB's error, not the words in the file's name: a Parquet file
// named json_export.parquet gets the Parquet advice (before: the JSON one), a
// CSV named parquet_dump.csv the CSV one. And a source reading a pattern with
// ** (deep/**/*.csv) owns a bad file two folders down: the catalog's
// unavailable (before: the caller's sql_error, as ** was read as *).
func TestSourceFileFaultShape(t *testing.T) {
	dir := t.TempDir()
	var js strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&js, "{\"a\":%d}\n", i)
	}
	js.WriteString("{\"a\": oops\n")
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json":          `{}`,
		"p/k/data/parquet_dump.csv":  lateBadCSV(),
		"p/k/data/csv_parquet.jsonl": js.String(),
		"p/k/deep/a/b/bad.csv":       lateBadCSV(),
		"p/k/m.sql": "-- @source dump\nSELECT * FROM read_csv('data/parquet_dump.csv');\n\n" +
			"-- @source lines\nSELECT * FROM read_json('data/csv_parquet.jsonl', format='newline_delimited');\n\n" +
			"-- @source pq\nSELECT * FROM read_parquet('data/pq/*.parquet');\n\n" +
			"-- @source deep\nSELECT * FROM read_csv('deep/**/*.csv');\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "p/k/data/pq"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("COPY (SELECT 1 AS a) TO '" + filepath.Join(dir, "p/k/data/pq/a.parquet") + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(filepath.Join(dir, "p/k/data/pq/json_export.parquet"), []byte("PAR1 not a Parquet file, text PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
	for _, tc := range []struct{ src, file, advice, notAdvice string }{
		{"pq", "data/pq/json_export.parquet", "replace the file with a whole Parquet file", "read_json"},
		{"dump", "data/parquet_dump.csv", "types={'col': 'VARCHAR'}", "Parquet"},
		{"lines", "data/csv_parquet.jsonl", "ignore_errors=true in the source's read_json", "Parquet"},
		{"deep", "deep/a/b/bad.csv", "types={'col': 'VARCHAR'}", "Parquet"},
	} {
		var te toolError
		call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT count(*) FROM (SELECT DISTINCT * FROM " + tc.src + ")"}, &te)
		if te.Kind != "unavailable" || !strings.Contains(te.Error, "the file "+tc.file+" of the source "+tc.src+" (model p/k/m)") {
			t.Errorf("%s: kind %q, error %q; want unavailable naming %s", tc.src, te.Kind, te.Error, tc.file)
			continue
		}
		if !strings.Contains(te.Hint, tc.advice) || strings.Contains(te.Hint, tc.notAdvice) {
			t.Errorf("%s: hint %q; want %q and no %q", tc.src, te.Hint, tc.advice, tc.notAdvice)
		}
	}
}
