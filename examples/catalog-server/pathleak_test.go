package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsHidePackageFolder: DuckDB names the files it reads by the absolute
// paths the model's views give them; an error met while reading one (a CSV
// value that does not convert, a JSON file that does not parse) names it by its
// path in the package, in execute_query and in describe: the server's folders
// are not in the answer, but for SQL that names them itself.
func TestErrorsHidePackageFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n" + strings.Repeat("3\n", 5000) + "abc\n",
		"p/k/data/j.json":   `[{"a":1},{"a":`,
		"p/k/data/b.csv":    "x\nabc\n1\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM read_csv('data/a.csv', columns={'x':'INTEGER'}, header=true);\n\n-- @source b\nSELECT * FROM read_csv('data/b.csv', columns={'x':'INTEGER'}, header=true);\n",
	})
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	real, _ := filepath.EvalSymlinks(dir)
	for _, c := range []struct {
		sql, want, kind string
	}{
		// The source's file: the catalog's (TestSourceFileFault).
		{"SELECT sum(x) FROM a", "data/a.csv", "unavailable"},
		{"SELECT * FROM read_json('" + filepath.Join(dir, "p/k/data/j.json") + "')", "data/j.json", "sql_error"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": c.sql}, &te)
		if !r.IsError || te.Kind != c.kind || !strings.Contains(te.Error, c.want) {
			t.Errorf("%s: %+v", c.sql, te)
		}
		// The caller's own SQL, quoted after the first line (LINE 1: …), may
		// hold the path the caller wrote, cut short by DuckDB.
		first, _, _ := strings.Cut(te.Error, "\n")
		if strings.Contains(first, dir) || strings.Contains(first, real) || !strings.Contains(c.sql, dir) && (strings.Contains(text(r), dir) || strings.Contains(text(r), real)) {
			t.Errorf("%s: the answer shows the server's folder: %s", c.sql, text(r))
		}
	}
	var d struct{ Error string }
	r := call(t, cs, "describe", map[string]any{"path": "p/k/m/b"}, &d)
	if r.IsError || !strings.Contains(d.Error, "data/b.csv") || strings.Contains(text(r), dir) || strings.Contains(text(r), real) {
		t.Errorf("describe: %s", text(r))
	}
}

// TestErrorExcerptQuotesCaller: DuckDB's excerpt of the caller's SQL (LINE 1: …)
// quotes it as sent, its caret under the character it marks, while the
// message's own text names the package's files by their path in the package.
// The excerpt had the caller's path cut down as well.
func TestErrorExcerptQuotesCaller(t *testing.T) {
	// A short folder, so that DuckDB's excerpt (about 80 characters) shows
	// the whole path.
	dir, err := os.MkdirTemp("", "c")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM read_csv('data/a.csv');\n",
	})
	svc := newTestService(t, dir, Config{})
	real, _ := filepath.EvalSymlinks(dir)
	for _, base := range []string{dir, real} {
		sql := "SELECT * FROM read_csv('" + filepath.Join(base, "p/k/data/nope.csv") + "')"
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/k/m", SQL: sql})
		te := classify(err)
		first, rest, _ := strings.Cut(te.Error, "\n")
		if !strings.Contains(first, "data/nope.csv") || strings.Contains(first, base) || !strings.Contains(rest, "LINE 1: "+sql) {
			t.Errorf("%s: %q", sql, te.Error)
		}
	}
}
