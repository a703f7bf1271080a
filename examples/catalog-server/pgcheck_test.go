package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestPostgresQueriesCheckedAtLoad: a PostgreSQL model's named queries and
// the notebook cells that run against it are prepared when it opens, as calls
// send them (parameters cast to their declared types), and what is wrong is
// told on the query or cell, its model and its package, with the file's line
// and column; nothing runs (CATALOG_TEST_PG_DSN; see engine's tests for when
// this skips).
func TestPostgresQueriesCheckedAtLoad(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgWrite(ctx, conn,
		"DROP SCHEMA IF EXISTS pgcheck CASCADE", "CREATE SCHEMA pgcheck",
		"CREATE TABLE pgcheck.people (name text, n int)",
		"INSERT INTO pgcheck.people SELECT 'p' || i, i FROM generate_series(1, 5) i",
		"CREATE SEQUENCE pgcheck.seq",
	); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CATALOG_PGCHECK_TEST_DSN", dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_PGCHECK_TEST_DSN", "schema": "pgcheck"}`,
		"p/k/m.sql": "-- @source folk\nSELECT name, n FROM people;\n\n" + // lines 1-2
			"-- @query good\n-- @param min INTEGER\nSELECT name\nFROM folk WHERE n >= @min;\n\n" + // 4-7
			"-- @query badcol\nSELECT name,\n  nope FROM folk;\n\n" + // 9-11
			"-- @query like\n-- @param n INTEGER\nSELECT * FROM folk WHERE name LIKE @n;\n\n" + // 13-15
			"-- @query del\nDELETE FROM people;\n\n" + // 17-18
			"-- @query wdel\nWITH d AS (DELETE FROM people RETURNING *) SELECT * FROM d;\n\n" + // 20-21
			"-- @query two\nSELECT 1; SELECT 2;\n\n" + // 23-24
			"-- @query undeclared\nSELECT name FROM folk WHERE n = @x;\n\n" + // 26-27
			"-- @query badtype\n-- @param x FOOTYPE\nSELECT @x AS x;\n\n" + // 29-31
			"-- @query seq\nSELECT nextval('seq') AS v, name FROM folk;\n", // 33-34
		"p/k/nb.md": "# NB\n\nCells.\n\n```sql\nSELECT name FROM folk\n```\n\n```sql\nSELECT name,\n  nope FROM folk\n```\n\n```sql\nDELETE FROM people\n```\n",
	})
	var logs syncBuffer
	svc, err := NewService(ctx, dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	want := map[string]string{
		"m/badcol":     "p/k/m.sql: query badcol (line 10): the SQL does not prepare: line 11, column 3: PostgreSQL: column \"nope\" does not exist",
		"m/like":       "p/k/m.sql: query like (line 15): the SQL does not prepare: line 15, column 31: PostgreSQL: operator does not exist: text ~~ integer",
		"m/del":        "p/k/m.sql: query del (line 18): the SQL is not a query, so every call is refused: this is a DELETE statement",
		"m/wdel":       "p/k/m.sql: query wdel (line 21): the SQL is not a query, so every call is refused: PostgreSQL's parser reads this as a data-modifying statement",
		"m/two":        "p/k/m.sql: query two (line 24): the SQL holds more than one statement; a named query is exactly one SELECT",
		"m/badtype":    "p/k/m.sql: query badtype (line 31): the SQL does not prepare: line 31, column 8: PostgreSQL: type \"footype\" does not exist (in the cast of @x to its declared type FOOTYPE",
		"nb/cell-2":    "p/k/nb.md: cell-2 (line 10): the SQL does not prepare: line 11, column 3: PostgreSQL: column \"nope\" does not exist",
		"nb/cell-3":    "p/k/nb.md: cell-3 (line 15): the SQL is not a query, so every call is refused: this is a DELETE statement",
		"m/undeclared": "p/k/m.sql: query undeclared (line 27): the SQL uses the parameter @x (line 27, column 33), which no @param line declares",
	}
	pkg, err := svc.Describe(ctx, "p/k")
	if err != nil {
		t.Fatal(err)
	}
	model, err := svc.Describe(ctx, "p/k/m")
	if err != nil {
		t.Fatal(err)
	}
	for path, w := range want {
		d, err := svc.Describe(ctx, "p/k/"+path)
		if err != nil {
			t.Fatal(err)
		}
		lists := map[string][]string{"package": pkg.Problems, "own": d.Problems}
		if strings.HasPrefix(path, "m/") {
			lists["model"] = model.Problems
		}
		for what, probs := range lists {
			if !strings.Contains(strings.Join(probs, "\n"), w) {
				t.Errorf("%s problems of %s lack %q:\n%s", what, path, w, strings.Join(probs, "\n"))
			}
		}
		if !strings.Contains(logs.String(), strings.ReplaceAll(w, `"`, `\"`)) {
			t.Errorf("the log lacks %q", w)
		}
	}
	// The excerpt is the author's line, the caret under the column.
	if d, _ := svc.Describe(ctx, "p/k/m/like"); !strings.Contains(strings.Join(d.Problems, "\n"), "LINE 15: SELECT * FROM folk WHERE name LIKE @n\n"+strings.Repeat(" ", len("LINE 15: SELECT * FROM folk WHERE name "))+"^") {
		t.Errorf("like's excerpt: %q", d.Problems)
	}
	// An undeclared placeholder is told once, by the catalog's own check.
	if d, _ := svc.Describe(ctx, "p/k/m/undeclared"); len(d.Problems) != 1 {
		t.Errorf("undeclared: %q", d.Problems)
	}
	for _, path := range []string{"m/good", "m/seq", "nb/cell-1"} {
		if d, _ := svc.Describe(ctx, "p/k/"+path); len(d.Problems) != 0 {
			t.Errorf("%s: %q", path, d.Problems)
		}
	}
	// Nothing ran: the rows are all there, the sequence never moved.
	var rows int
	var called bool
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM pgcheck.people), (SELECT is_called FROM pgcheck.seq)").Scan(&rows, &called); err != nil || rows != 5 || called {
		t.Errorf("after the check: %d rows, sequence called %v, %v", rows, called, err)
	}
	// The good query runs.
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m/good", Parameters: map[string]any{"min": float64(4)}}); err != nil || res.RowCount != 2 {
		t.Errorf("good: %+v %v", res, err)
	}
	// A reload that opens the model again (its package changed) checks again:
	// the database now has the column.
	if err := pgWrite(ctx, conn, "ALTER TABLE pgcheck.people ADD COLUMN nope int"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"p/k/m.sql": "-- @source folk\nSELECT name, n, nope FROM people;\n\n-- @query badcol\nSELECT name,\n  nope FROM folk;\n\n-- @query gone\nSELECT gone FROM folk;\n",
	})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if d, err := svc.Describe(ctx, "p/k/m/badcol"); err != nil || len(d.Problems) != 0 {
		t.Errorf("badcol after the reload: %q %v", d.Problems, err)
	}
	if d, err := svc.Describe(ctx, "p/k/m/gone"); err != nil || !strings.Contains(strings.Join(d.Problems, "\n"), "query gone (line 9): the SQL does not prepare: line 9, column 8: PostgreSQL: column \"gone\" does not exist") {
		t.Errorf("gone after the reload: %q %v", d.Problems, err)
	}
}

// TestPostgresRowLocksAtLoad: a named query or notebook cell that locks rows
// (FOR UPDATE …, here in a WITH query and in a subquery) is listed in the
// problems when its model opens, and its call is refused with the same words,
// the catalog's fault (before, the check said nothing and the call told the
// caller to remove the clause). Ad-hoc SQL with a locking clause is the
// caller's to fix: refused, saying the endpoint is read-only. The words in a
// string or comment are not a lock.
func TestPostgresRowLocksAtLoad(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgWrite(ctx, conn,
		"DROP SCHEMA IF EXISTS pglocks CASCADE", "CREATE SCHEMA pglocks",
		"CREATE TABLE pglocks.people (name text, n int)",
		"INSERT INTO pglocks.people SELECT 'p' || i, i FROM generate_series(1, 5) i",
	); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CATALOG_PGLOCKS_TEST_DSN", dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_PGLOCKS_TEST_DSN", "schema": "pglocks"}`,
		"p/k/m.sql": "-- @source folk\nSELECT name, n FROM people;\n\n" + // lines 1-2
			"-- @query lock\n-- @param min INTEGER\nWITH c AS (SELECT * FROM people WHERE n >= @min FOR NO KEY UPDATE)\nSELECT name FROM c;\n\n" + // 4-7
			"-- @query words\nSELECT name AS \"for update\" FROM folk WHERE name <> 'FOR SHARE' -- FOR UPDATE\n;\n", // 9-11
		"p/k/nb.md": "# NB\n\n```sql\nSELECT name FROM (SELECT * FROM people FOR SHARE) s\n```\n",
	})
	svc, err := NewService(ctx, dir, Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	for path, want := range map[string]string{
		"p/k/m/lock":    "p/k/m.sql: query lock (line 6): " + engine.RowLocksProblem,
		"p/k/nb/cell-1": "p/k/nb.md: cell-1 (line 4): " + engine.RowLocksProblem,
	} {
		if d, err := svc.Describe(ctx, path); err != nil || len(d.Problems) != 1 || d.Problems[0] != want {
			t.Errorf("%s: %q %v, want %q", path, d.Problems, err, want)
		}
	}
	if d, err := svc.Describe(ctx, "p/k/m/words"); err != nil || len(d.Problems) != 0 {
		t.Errorf("words: %q %v", d.Problems, err)
	}
	// A call: the same words, the catalog's to fix.
	for path, what := range map[string]string{"p/k/m/lock": "named query p/k/m/lock", "p/k/nb/cell-1": "notebook cell p/k/nb/cell-1"} {
		_, te := runNamed(t, svc, path, `{"min": 2}`)
		if path != "p/k/m/lock" {
			_, te = runNamed(t, svc, path, `{}`)
		}
		if te == nil || te.Kind != "unavailable" || !strings.HasPrefix(te.Error, what+": "+engine.RowLocksProblem+". To run it now, run its SQL without the locking clause with sql against the model p/k/m") || !strings.Contains(te.Hint, "the catalog's file needs fixing") {
			t.Errorf("%s: %+v", path, te)
		}
	}
	if out, te := runNamed(t, svc, "p/k/m/words", `{}`); te != nil || !strings.Contains(out, `"for update"`) {
		t.Errorf("words: %s %+v", out, te)
	}
	// Ad-hoc SQL: the caller's to fix.
	_, err = svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT * FROM people FOR UPDATE"})
	if te := classify(err); te.Kind != "refused" || !strings.Contains(te.Error, "row locks are not allowed: drop FOR UPDATE") || !strings.Contains(te.Error, "This endpoint is read-only: queries take no row locks; remove the locking clause and call again.") {
		t.Errorf("ad-hoc: %+v", te)
	}
}

// TestDuckRowLocksNamed: on DuckDB too, a named query that locks rows (which
// DuckDB's grammar refuses) is told so when the model loads (before: "the SQL
// does not prepare: Parser Error: SELECT locking clause is not supported!")
// and its call is the catalog's fault, in the same words as on PostgreSQL;
// ad-hoc SQL with one is the caller's.
func TestDuckRowLocksNamed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS u;\n\n-- @query lock\nSELECT u FROM one FOR SHARE;\n",
	})
	svc := newTestService(t, dir, Config{})
	d, err := svc.Describe(context.Background(), "p/k/m/lock")
	if want := "p/k/m.sql: query lock (line 5): " + engine.RowLocksProblem; err != nil || len(d.Problems) != 1 || d.Problems[0] != want {
		t.Errorf("load: %q %v, want %q", d.Problems, err, want)
	}
	_, te := runNamed(t, svc, "p/k/m/lock", `{}`)
	if te == nil || te.Kind != "unavailable" || !strings.HasPrefix(te.Error, "named query p/k/m/lock: "+engine.RowLocksProblem) {
		t.Errorf("named: %+v", te)
	}
	_, err = svc.Execute(context.Background(), executeIn{Path: "p/k/m", SQL: "SELECT u FROM one FOR UPDATE"})
	if te := classify(err); te.Kind != "refused" || !strings.Contains(te.Error, "row locks are not allowed") || !strings.Contains(te.Error, "This endpoint is read-only") {
		t.Errorf("ad-hoc: %+v", te)
	}
}
