package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryProblemsAtLoad: a DuckDB model's named queries are prepared by
// DuckDB when the model opens, and what is wrong with them — SQL that does not
// parse, a parameter type DuckDB does not know, a parameter used and not
// declared, one declared and never used — is logged once and listed in the
// problems of the package, the model and the query, with the file's line and
// column; the model's other queries still run.
func TestQueryProblemsAtLoad(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/o.csv":    "a,b\n1,2\n",
		"p/k/m.sql": "-- @source orders\nSELECT * FROM 'data/o.csv';\n\n" +
			"-- @query good\n-- @param a INTEGER\nSELECT * FROM orders WHERE a = $a;\n\n" +
			"-- @query oops\nSELEC oops;\n\n" +
			"-- @query typed\n-- @param x FOOTYPE\nSELECT * FROM orders WHERE a::VARCHAR = $x;\n\n" +
			"-- @query undeclared\n-- @param a INTEGER\nSELECT * FROM orders WHERE a = $a AND b = $b;\n\n" +
			"-- @query unused\n-- @param a INTEGER\n-- @param z INTEGER\nSELECT * FROM orders WHERE a = $a;\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	want := map[string]string{
		"oops":       "p/k/m.sql: query oops (line 9): the SQL does not prepare: line 9, column 1: Parser Error: syntax error at or near \"SELEC\"",
		"typed":      "p/k/m.sql: query typed (line 13): @param x FOOTYPE: DuckDB does not know the type FOOTYPE",
		"undeclared": "p/k/m.sql: query undeclared (line 17): the SQL uses the parameter $b (line 17, column 43), which no @param line declares",
		"unused":     "p/k/m.sql: query unused (line 22): @param z is declared but the SQL never uses $z",
	}
	ctx := context.Background()
	pkg, err := svc.Describe(ctx, "p/k")
	if err != nil {
		t.Fatal(err)
	}
	model, err := svc.Describe(ctx, "p/k/m")
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		q, err := svc.Describe(ctx, "p/k/m/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for what, probs := range map[string][]string{"package": pkg.Problems, "model": model.Problems, "query": q.Problems} {
			if !strings.Contains(strings.Join(probs, "\n"), w) {
				t.Errorf("%s problems lack %q:\n%s", what, w, strings.Join(probs, "\n"))
			}
		}
		if !strings.Contains(logs.String(), strings.ReplaceAll(w, `"`, `\"`)) {
			t.Errorf("the log lacks %q", w)
		}
	}
	if q, _ := svc.Describe(ctx, "p/k/m/good"); len(q.Problems) != 0 {
		t.Errorf("good query's problems: %q", q.Problems)
	}
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m/good", Parameters: map[string]any{"a": float64(1)}}); err != nil || res.RowCount != 1 {
		t.Errorf("the good query: %v %v", res, err)
	}
	// A reload that does not touch the package reuses its engine, and its
	// findings, without logging them again.
	before := strings.Count(logs.String(), "query oops")
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if q, _ := svc.Describe(ctx, "p/k/m/oops"); len(q.Problems) != 1 {
		t.Errorf("after a reload: %q", q.Problems)
	}
	if n := strings.Count(logs.String(), "query oops"); n != before {
		t.Errorf("logged again at a reload that did not reopen the model (%d, %d times)", before, n)
	}
}

// TestSourceErrorInAuthorsText: a source whose SQL fails is told with the
// position in the model's file (line and column) and an excerpt of the
// author's own line, not of the server's CREATE VIEW wrapper; also where the
// server rewrote a relative path before it.
func TestSourceErrorInAuthorsText(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/o.csv":    "a,b\n1,2\n",
		"p/k/m.sql": "-- @source orders\nSELECT * FROM 'data/o.csv';\n\n-- @source bad\nSELECT nope FROM orders;\n\n" +
			"-- @source bad2\nSELECT a FROM 'data/o.csv'\n  WHERE 'data/o.csv' <> '' AND nope = 1;\n",
	})
	svc := newTestService(t, dir, Config{})
	for path, want := range map[string][]string{
		"p/k/m/bad":  {"m.sql line 5, column 8: Binder Error: Referenced column \"nope\" not found", "LINE 5: SELECT nope FROM orders\n               ^"},
		"p/k/m/bad2": {"m.sql line 9, column 32: Binder Error", "LINE 9:   WHERE 'data/o.csv' <> '' AND nope = 1\n" + strings.Repeat(" ", len("LINE 9:   WHERE 'data/o.csv' <> '' AND ")) + "^"},
	} {
		d, err := svc.Describe(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(d.Error, w) {
				t.Errorf("%s: %q lacks %q", path, d.Error, w)
			}
		}
		if strings.Contains(d.Error, "CREATE VIEW") || strings.Contains(d.Error, "at character") || strings.Contains(d.Error, dir) {
			t.Errorf("%s: %q", path, d.Error)
		}
	}
}

// TestStaleModelFlagged: a model whose file broke after it loaded, served as
// its previous version, says so itself (and its sources and queries), with the
// file and why; not only its package.
func TestStaleModelFlagged(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source s\nSELECT 1 AS a;\n\n-- @query q\nSELECT * FROM s;\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	writeFiles(t, dir, map[string]string{"p/k/m.sql": "-- @source s\nSELECT 1 AS a;\n-- @query\nSELECT 2;\n"})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"p/k/m", "p/k/m/s", "p/k/m/q"} {
		d, err := svc.Describe(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(d.Problems, "\n")
		if !strings.Contains(got, "p/k/m.sql: line 3: want \"@query NAME\"") || !strings.Contains(got, "still serving its previous version") {
			t.Errorf("%s problems: %q", path, got)
		}
	}
}

// TestNotebookWithoutModels: a notebook cell in a package with no models is
// told so, not "its models: ." and that the model's other queries still run.
func TestNotebookWithoutModels(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/nb.md":         "# N\n\n<!-- model: gone -->\n```sql\nSELECT 1\n```\n",
		"p/k/broken.sql":    "SELECT 1;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/nb/cell-1"}, &te)
	if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, `names the model "gone" (<!-- model: … --> line), and the package has no models at all`) ||
		strings.Contains(te.Error, "its models: .") || strings.Contains(te.Hint, "other queries") || !strings.Contains(te.Hint, "needs a model") {
		t.Errorf("%+v", te)
	}
}

// TestDescribeSampleRowsBudget: sample rows that do not fit describe's budget
// are said to be left out, not dropped without a word.
func TestDescribeSampleRowsBudget(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source wide\nSELECT repeat('x', 40000) AS s FROM range(5);\n",
	})
	d, err := newTestService(t, dir, Config{}).Describe(context.Background(), "p/k/m/wide")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.SampleRows) != 1 || !strings.Contains(d.Error, "sample rows: 1 of the first 5 rows shown: they take more than describe's 64 KB") {
		t.Errorf("%d rows, error %q", len(d.SampleRows), d.Error)
	}
}

// TestListLeafAndSegments: listing a source, a query or a cell says it has no
// children; empty path segments do not count (acme//k is acme/k), and the
// catalog itself (an empty path) is described with what was skipped at its top.
func TestListLeafAndSegments(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source s\nSELECT 1 AS a;\n\n-- @query q\nSELECT * FROM s;\n",
		"p/k/nb.md":         "# N\n\n```sql\nSELECT 1\n```\n",
		"other/x/m.sql":     "-- @source s\nSELECT 1;\n",
	})
	if err := os.Symlink(filepath.Join(dir, "p"), filepath.Join(dir, "plink")); err != nil {
		t.Fatal(err)
	}
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for path, want := range map[string]string{
		"p/k/m/s":       "p/k/m/s is a source: it has no children; describe it",
		"p/k/m/q":       "p/k/m/q is a named query: it has no children",
		"p/k/nb/cell-1": "p/k/nb/cell-1 is a notebook cell: it has no children",
	} {
		var out listOut
		if r := call(t, cs, "list_catalog", map[string]any{"path": path}, &out); r.IsError || len(out.Items) != 0 || !strings.Contains(out.Note, want) {
			t.Errorf("%s: %+v", path, out)
		}
	}
	var out listOut
	if r := call(t, cs, "list_catalog", map[string]any{"path": "p//k"}, &out); r.IsError || len(out.Items) != 2 || out.Note != "" {
		t.Errorf("p//k: %s", text(r))
	}
	var d Description
	if r := call(t, cs, "describe", map[string]any{"path": ""}, &d); r.IsError || d.Kind != "catalog" || d.URI != "" || len(d.Contents) != 2 ||
		!strings.Contains(strings.Join(d.Problems, "\n"), "plink: skipped: a symbolic link to a folder (to p, inside the catalog)") {
		t.Errorf("describe the catalog: %s", text(r))
	}
	if r := call(t, cs, "describe", map[string]any{"path": "other"}, &d); r.IsError || !strings.Contains(strings.Join(d.Problems, "\n"), "other/x: not a package: it holds the model file m.sql but no manifest.json") {
		t.Errorf("describe other: %s", text(r))
	}
	var te toolError
	if r := call(t, cs, "describe", map[string]any{"path": "p/k/nope"}, &te); !r.IsError || len(te.Suggestions) != 0 {
		t.Errorf("far names as suggestions: %+v", te)
	}
}

// TestCapProblems: a description lists at most maxDescribedProblems problems,
// the last line counting the rest.
func TestCapProblems(t *testing.T) {
	ps := make([]string, maxDescribedProblems+10)
	got := capProblems(ps, "its models")
	if len(got) != maxDescribedProblems || got[len(got)-1] != "… and 11 more problems: describe its models to read each" {
		t.Errorf("%d, %q", len(got), got[len(got)-1])
	}
	if got := capProblems(ps[:3], "x"); len(got) != 3 {
		t.Errorf("%d", len(got))
	}
}

// TestQueryCheckAsCallsRun: the check when a model opens prepares a named query
// as every call runs it, its parameters cast to their declared types, so it
// finds what every call would hit (an INTEGER in LIKE), at the author's
// position; a parameter bound uncast (a type of another form, ENUM('a','b')) or
// cast to a type of its own (SERIAL4 is INTEGER) is no problem; and a declared
// type is never put into SQL text unless it is a type's name: one that would
// run an expression is not checked, and not run.
func TestQueryCheckAsCallsRun(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/o.csv":    "name,n\nann,1\n",
		"p/k/m.sql": "-- @source people\nSELECT * FROM 'data/o.csv';\n\n" +
			"-- @query like\n-- @param n INTEGER\nSELECT * FROM people WHERE name LIKE $n;\n\n" +
			"-- @query enum\n-- @param e ENUM('a','b')\nSELECT $e AS e;\n\n" +
			"-- @query serial\n-- @param s SERIAL4\nSELECT $s + 1 AS s;\n\n" +
			"-- @query inject\n-- @param x X((1),ERROR(CHR(88)),(1))\nSELECT $x AS x;\n",
	})
	svc, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&syncBuffer{}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx := context.Background()
	q, err := svc.Describe(ctx, "p/k/m/like")
	if err != nil {
		t.Fatal(err)
	}
	// $n is at line 6, column 38 of the file.
	if got := strings.Join(q.Problems, "\n"); !strings.Contains(got, "query like (line 6): the SQL does not prepare: line 6, column") || !strings.Contains(got, "No function matches") {
		t.Errorf("like: %q", q.Problems)
	}
	for _, name := range []string{"enum", "serial", "inject"} {
		q, err := svc.Describe(ctx, "p/k/m/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Problems) != 0 {
			t.Errorf("%s: %q", name, q.Problems)
		}
	}
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m/serial", Parameters: map[string]any{"s": float64(4)}}); err != nil || res.Columns[0].Type != "INTEGER" {
		t.Errorf("serial: %+v %v", res, err)
	}
	// The odd type is bound uncast: the value comes back as given, nothing else ran.
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m/inject", Parameters: map[string]any{"x": "v"}}); err != nil || res.RowCount != 1 || res.Columns[0].Type != "VARCHAR" {
		t.Errorf("inject: %+v %v", res, err)
	}
}

// TestNotebookCellsCheckedAtLoad: a notebook's cells are prepared against the
// model they run against when it opens, and what is wrong is told on the cell,
// the notebook and the package, with the notebook file's line and column.
func TestNotebookCellsCheckedAtLoad(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/a.sql":         "-- @source s\nSELECT 1 AS v;\n",
		"p/k/b.sql":         "-- @source t\nSELECT 2 AS w;\n",
		// Cells of a runs against a (the first model); nb2 names b.
		"p/k/nb.md":  "# NB\n\nCells.\n\n```sql\nSELECT v FROM s\n```\n\n```sql\nSELECT v,\n  nope FROM s\n```\n\n```sql\nSELEC 1\n```\n\n```sql\nCREATE TABLE x (i INTEGER)\n```\n\n```sql\nSELECT v FROM s WHERE v = ?\n```\n",
		"p/k/nb2.md": "# NB2\n\n<!-- model: b -->\n\n```sql\nSELECT w FROM t\n```\n\n```sql\nSELECT v FROM s\n```\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx := context.Background()
	want := map[string]string{
		"nb/cell-2":  "p/k/nb.md: cell-2 (line 10): the SQL does not prepare: line 11, column 3: Binder Error: Referenced column \"nope\" not found",
		"nb/cell-3":  "p/k/nb.md: cell-3 (line 15): the SQL does not prepare: line 15, column 1: Parser Error: syntax error at or near \"SELEC\"",
		"nb/cell-4":  "p/k/nb.md: cell-4 (line 19): the SQL does not prepare: DuckDB prepares it as a CREATE statement, not a query; a notebook cell is one SELECT",
		"nb/cell-5":  "p/k/nb.md: cell-5 (line 23): the SQL uses a placeholder without a name (? or $1), but a notebook cell takes no parameters",
		"nb2/cell-2": "p/k/nb2.md: cell-2 (line 10): the SQL does not prepare: line 10, column 15: Catalog Error: Table with name s does not exist",
	}
	pkg, err := svc.Describe(ctx, "p/k")
	if err != nil {
		t.Fatal(err)
	}
	for path, w := range want {
		nb, _, _ := strings.Cut(path, "/")
		nbd, err := svc.Describe(ctx, "p/k/"+nb)
		if err != nil {
			t.Fatal(err)
		}
		cell, err := svc.Describe(ctx, "p/k/"+path)
		if err != nil {
			t.Fatal(err)
		}
		for what, probs := range map[string][]string{"package": pkg.Problems, "notebook": nbd.Problems, "cell": cell.Problems} {
			if !strings.Contains(strings.Join(probs, "\n"), w) {
				t.Errorf("%s problems lack %q:\n%s", what, w, strings.Join(probs, "\n"))
			}
		}
		if !strings.Contains(logs.String(), strings.ReplaceAll(w, `"`, `\"`)) {
			t.Errorf("the log lacks %q", w)
		}
	}
	for _, path := range []string{"nb/cell-1", "nb2/cell-1"} {
		if d, _ := svc.Describe(ctx, "p/k/"+path); len(d.Problems) != 0 {
			t.Errorf("%s: %q", path, d.Problems)
		}
	}
}
