package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// TestDuckParserOneStatement: the process's parser counts statements of the
// caller's text alone — a text whose parentheses only close in the cap's
// subquery is not one statement.
func TestDuckParserOneStatement(t *testing.T) {
	p, err := processParser()
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"SELECT 1":                       true,
		"SELECT 1;":                      true,
		"-- a comment\nSELECT 1 -- more": true,
		"FROM items":                     true,
		"PRAGMA version":                 false, // never split here (mayHoldPragma): the gate judges it
		"SELECT * FROM pragma_version()": false, // the same, a false alarm
		"SELECT 1) t, (SELECT 1":         false,
		"SELECT 1; SELECT 2":             false,
		"SELECT 1; DROP VIEW items":      false,
		"   ":                            false,
		"SELECT * FROM items WHERE":      false,
		"SELECT '":                       false,
		"SELECT 1 /* open":               false,
	} {
		if got := p.oneStatement(context.Background(), text); got != want {
			t.Errorf("%q: one statement %v, want %v", text, got, want)
		}
	}
	// IMPORT DATABASE is split as PRAGMA import_database, which reads the
	// folder's schema.sql and load.sql and stands for their statements: one
	// here, had the parser's database read them. It may read no file.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "schema.sql"), []byte("SELECT 42;"), 0o644)
	os.WriteFile(filepath.Join(dir, "load.sql"), []byte(""), 0o644)
	if p.oneStatement(context.Background(), "IMPORT DATABASE '"+dir+"'") {
		t.Error("IMPORT DATABASE: the parser's database read the folder's files")
	}
	// Every connection busy: no wait, no answer — the gate judges. A caller
	// whose time is up gets no answer either.
	release := holdParser(t, p)
	done := make(chan bool)
	go func() { done <- p.oneStatement(context.Background(), "SELECT 1") }()
	select {
	case got := <-done:
		if got {
			t.Error("answered without a connection")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waited for a busy parser")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release()
	if p.oneStatement(ctx, "SELECT 1") {
		t.Error("answered after the caller's time was up")
	}
}

// holdParser takes every connection of p's pool, as many texts being split at
// once would. release (also run when the test ends) puts them back.
func holdParser(t *testing.T, p *duckParser) (release func()) {
	t.Helper()
	var taken []mapping.Connection
	for range duckParserConns {
		taken = append(taken, <-p.conns)
	}
	release = func() {
		for _, c := range taken {
			p.conns <- c
		}
		taken = nil
	}
	t.Cleanup(release)
	return release
}

// TestDuckParserRunsNoPragma: splitting a text evaluates the arguments of its
// PRAGMA statements, with no deadline and nothing to interrupt it (the
// process's parser splits, and so does preparing a text as sent); a text that
// could hold one goes to the gate, which only parses, so an argument that would
// take seconds to evaluate is never evaluated and the refusal comes at once.
func TestDuckParserRunsNoPragma(t *testing.T) {
	d := openTestDuck(t)
	// Quadratic work in little memory: seconds if evaluated.
	slow := "table_info(list_sum(list_transform(range(40000), x -> list_sum(range(40000))))::VARCHAR)"
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 300 * time.Millisecond}
	for _, text := range []string{
		"PRAGMA " + slow,
		"pRaGmA " + slow,
		"SELECT 1; PRAGMA " + slow,
		"PRAGMA " + slow + "; SELECT 1",
		"SELECT * FROM items; PRAGMA " + slow,
		// A SELECT json_serialize_sql cannot write out: the gate does not
		// count the statements, and the text is not prepared as sent.
		"SELECT CAST({'e': 'a'} AS STRUCT(e ENUM('a', 'b'))) AS s; PRAGMA " + slow,
	} {
		start := time.Now()
		_, err := d.Query(context.Background(), text, nil, lim)
		took := time.Since(start)
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("%.30q: %v, want a refusal", text, err)
		}
		if took > 2*time.Second {
			t.Errorf("%.30q: answered after %v (time limit %v): the PRAGMA's argument was evaluated", text, took, lim.Timeout)
		}
	}
}

// TestDuckParserJudgesAsGate is the differential test of the two ways a query is
// judged: the parser's statement count with the capped prepare (every query's
// way), and the gate's json_serialize_sql before anything (the way with no
// parser). For each text, both give the same rows or the same error.
func TestDuckParserJudgesAsGate(t *testing.T) {
	d := openTestDuck(t)
	if d.parser == nil {
		t.Fatal("no parser")
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "schema.sql"), []byte("CREATE TABLE leaked(x INT);"), 0o644)
	os.WriteFile(filepath.Join(outside, "load.sql"), []byte(""), 0o644)
	texts := []string{
		// queries
		"SELECT 1", "SELECT 1;", " SELECT 1 ; ", "SELECT 1 -- to the end", "-- first\nSELECT 2 AS x /* last */",
		"SELECT * FROM items", "FROM items", "FROM items SELECT name", "TABLE items", "VALUES (1, 'a'), (2, 'b')",
		"WITH x AS (SELECT 1 AS a) SELECT * FROM x", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r",
		"SELECT * FROM items UNION ALL SELECT * FROM items", "(SELECT 1) UNION (SELECT 2) ORDER BY 1", "((SELECT 1))",
		"SELECT name FROM items ORDER BY price DESC LIMIT 2", "SELECT 1 AS a, 2 AS a",
		"PIVOT items ON name USING sum(price)", "UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b",
		"DESCRIBE items", "SHOW items", "SUMMARIZE items", "SHOW TABLES", "SELECT * FROM (DESCRIBE items)",
		"SELECT CAST({'e': 'a'} AS STRUCT(e ENUM('a', 'b'))) AS s",
		"SELECT $n::INTEGER AS n", "SELECT 'it''s' AS s, E'a\\nb' AS e, $$dollar$$ AS d",
		// what the cap's parentheses could close
		"SELECT 1) t, (SELECT 1", "SELECT 1) UNION ALL (SELECT 2", "SELECT 1) t; DROP VIEW items; SELECT * FROM (SELECT 1",
		"SELECT 1)", "(SELECT 1", "SELECT 1) LIMIT 1 --",
		// statements
		"SELECT 1; SELECT 2", "COMMIT; DROP VIEW items", "DROP VIEW items", "EXPLAIN SELECT 1", "EXPLAIN ANALYZE SELECT 1",
		"PRAGMA version", "PRAGMA threads=64", "PRAGMA table_info('items')", "PRAGMA import_database('" + outside + "')",
		"SET threads = 64", "RESET threads", "CALL pragma_version()", "CHECKPOINT", "VACUUM", "ANALYZE",
		"ATTACH ':memory:' AS x", "DETACH model", "USE model", "INSTALL httpfs", "LOAD httpfs",
		"COPY items TO '" + filepath.Join(outside, "o.csv") + "'", "EXPORT DATABASE '" + outside + "'",
		"CREATE TABLE t AS SELECT 1", "CREATE MACRO m(x) AS x", "INSERT INTO items VALUES (9, 'x', 1, '2024-01-01')",
		"UPDATE items SET name = 'x'", "DELETE FROM items", "BEGIN", "PREPARE p AS SELECT 1", "EXECUTE p",
		"WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d",
		"SELECT * FROM (INSERT INTO items VALUES (9, 'x', 1, '2024-01-01') RETURNING *)",
		"SELECT * FROM items FOR UPDATE", "/* SELECT */ DROP VIEW items", "SELECT 1;;", ";SELECT 1", ";", "",
		// errors
		"SELECT name FROM items WHERE", "SELECT nme FROM items", "SELECT * FROM nowhere", "SELECT '", "SELECT 1 /* open",
		"SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM '/etc/passwd'", "SELECT 1/0::INTEGER",
		// the cap's edges: comments, quotes and semicolons around its parentheses
		"SELECT 1 --", "SELECT 1;--", "SELECT 1; /* c */", "SELECT 1 ; ;", "SELECT 1;\n;", "\n\nSELECT 1\n\n", "SELECT 1\n-- ;",
		"SELECT 1 -- ) ; DROP VIEW items", "SELECT 1 /* ) */", "SELECT 1 /* nested /* c */ ok */", "SELECT 1 /* nested /* c */",
		"SELECT 1 --c\r) t, (SELECT 2", "SELECT 1 /* ' */ AS x", "SELECT $tag$a ) ; b$tag$ AS s", "SELECT $$ ) $$ AS s) t, (SELECT 1",
		"SELECT E'\\'' AS s", "SELECT E'a\\' ) t, (SELECT 1", "SELECT 'a;b' AS s", "SELECT 1 AS \"a)\"", "SELECT U&'\\0041' AS u",
		"SELECT 1) t JOIN (SELECT 1", "SELECT ((1)", "SELECT (1))", "SELECT 1 FROM items WHERE id IN (SELECT id FROM items",
		"((SELECT 1) UNION (SELECT 2)) ORDER BY 1", "SELECT 1 AS x; DROP VIEW items", "(SELECT 1); DROP VIEW items", "FROM items; DROP VIEW items",
		// statements that read as queries, and ones that do not
		"SHOW ALL TABLES", "SHOW DATABASES", "SHOW threads", "SELECT * FROM (SHOW ALL TABLES)", "DESCRIBE SELECT 1", "DESCRIBE TABLE items",
		"SUMMARIZE (FROM items)", "PIVOT items ON name", "PIVOT_WIDER items ON name USING sum(price)",
		"PIVOT_LONGER (SELECT 1 AS a, 2 AS b) ON a, b", "UNPIVOT items ON COLUMNS(* EXCLUDE (id, name, added)) INTO NAME k VALUE v",
		"WITH x AS MATERIALIZED (SELECT 1 AS a) SELECT * FROM x", "WITH RECURSIVE r(n) USING KEY (n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r ORDER BY n",
		"WITH d AS (SELECT 1) DELETE FROM items", "SELECT 1 INTO x", "SELECT ? AS x", "SELECT $1 AS x", "SELECT $m AS x",
		"SELECT 'a'::UNION(a VARCHAR, b INT) AS u", "SELECT ['a']::ENUM('a')[] AS e", "SELECT {'a': 1}::MAP(ENUM('a'), INT) AS m",
		"SELECT * FROM items AT (VERSION => 1)", "VALUES (DEFAULT)", "SELECT * FROM query('SELECT 1')", "SELECT * FROM glob('/etc/*')",
		"IMPORT DATABASE '" + outside + "'", "CHECKPOINT model", "DROP SECRET s", "COPY FROM DATABASE model TO memory",
		"PRAGMA show_tables", "PRAGMA copy_database('model', 'memory')", "SELECT 1; PRAGMA version", "PRAGMA table_info(current_setting('temp_directory'))",
		// Unicode and size
		"SELECT 'é' AS \"ü\", '😀' AS e", "SELECT\u00a01 AS x", "SELECT 1\u3000AS x", "SELECT 1 AS x\u00a0FROM items", "SELECT 1 AS \"x\u00a0\"",
		"SELECT 1 AS x\u2028", "\u2028SELECT 1", "SELECT 1\u0085", "SELECT 1 AS x\u00a0; DROP VIEW items",
		"SELECT " + strings.Repeat("(", 900) + "1" + strings.Repeat(")", 900), "SELECT " + strings.Repeat("1 + ", 3000) + "1",
		"SELECT 1 WHERE 1 IN (" + strings.Repeat("7, ", 20000) + "1)",
	}
	run := func(text string) string {
		params := map[string]any(nil)
		switch text {
		case "SELECT $n::INTEGER AS n":
			params = map[string]any{"n": 7}
		case "SELECT $m AS x":
			params = map[string]any{"m": "é"}
		}
		res, err := d.Query(context.Background(), text, params, testLimits)
		if err != nil {
			return "error: " + err.Error()
		}
		// The rows as a sorted list: a query without ORDER BY (a UNION) may
		// answer in either order, whichever way it was judged.
		rows := make([]string, len(res.Rows))
		for i, r := range res.Rows {
			b, _ := json.Marshal(r)
			rows[i] = string(b)
		}
		slices.Sort(rows)
		b, _ := json.Marshal(map[string]any{"columns": res.Columns, "rows": rows, "truncated": res.Truncated})
		return string(b)
	}
	parser := d.parser
	accepted := 0
	for _, text := range texts {
		d.parser = parser
		fast := run(text)
		d.parser = nil
		slow := run(text)
		if fast != slow {
			t.Errorf("%q:\n parser and prepare: %s\n gate:               %s", text, fast, slow)
		}
		if fast[:6] != "error:" {
			accepted++
		}
	}
	// The one difference found: a Unicode space after the last semicolon.
	// DuckDB's parser, as the split and the prepare call it, reads it as a
	// space; json_serialize_sql's as a syntax error. The gate refused a text
	// that DuckDB reads as one SELECT; the parser and the prepare run it.
	const nbsp = "SELECT 1 AS x;\u00a0"
	d.parser = parser
	fast := run(nbsp)
	d.parser = nil
	slow := run(nbsp)
	if fast != `{"columns":[{"name":"x","type":"INTEGER"}],"rows":["[1]"],"truncated":false}` || !strings.Contains(slow, "Parser Error: syntax error") {
		t.Errorf("%q:\n parser and prepare: %s\n gate:               %s", nbsp, fast, slow)
	}
	d.parser = parser
	t.Logf("%d of %d texts ran", accepted, len(texts))
	if accepted < 20 {
		t.Errorf("only %d of %d texts ran: the comparison says little", accepted, len(texts))
	}
	if res, err := d.Query(context.Background(), "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'leaked'", nil, testLimits); err != nil || res.Rows[0][0] != int64(0) {
		t.Errorf("after: %v %+v", err, res)
	}
}

// TestDuckParserConcurrent: many queries at once (more than the parser's and the
// model's connections) each get their own answer — rows, a refusal, a syntax
// error — and every parser connection is back in the pool afterwards.
func TestDuckParserConcurrent(t *testing.T) {
	// 2GB: DuckDB takes a block of about 30 MiB for each thread scanning a CSV
	// file, however small, and 8 connections × 2 threads of such scans at once
	// can fill the default 512MB (a 3-row query failed "could not allocate
	// block of size 30.5 MiB (458/488 MiB used)" once in about 45 runs) — a
	// limit of the in-process engine (README, Known limits), not what this
	// test is about.
	d, err := OpenDuck(context.Background(), testModel(t), DuckConfig{MemoryLimit: "2GB"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	p, err := processParser()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ text, want string }{
		{"SELECT count(*) AS n FROM items", `[[3]]`},
		{"SELECT name FROM items WHERE id = 2", `[["pear"]]`},
		{"SELECT 1; DROP VIEW items", "refused: the SQL holds more than one statement"},
		{"SELECT 1; SELECT 2", "refused: the SQL holds 2 statements"},
		{"/* /* */ SELECT */ DROP VIEW items", "refused: DuckDB's parser reads this as a DROP statement"},
		{"SELECT 1) t, (SELECT 1", "Parser Error: syntax error"},
		{"PRAGMA version", "refused: DuckDB's parser reads this as a PRAGMA statement"},
		{"FROM items SELECT max(price) AS m", `[[1.25]]`},
	}
	const n = 6 * duckParserConns * 2 // 48 queries, bounded
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		c := cases[i%len(cases)]
		wg.Go(func() {
			res, err := d.Query(context.Background(), c.text, nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: time.Minute})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				b, _ := json.Marshal(res.Rows)
				got = string(b)
			}
			if !strings.Contains(got, c.want) {
				errs <- fmt.Errorf("%q: %s, want %s", c.text, got, c.want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(p.conns); got != duckParserConns {
		t.Errorf("%d of %d parser connections in the pool after the queries", got, duckParserConns)
	}
}

// TestDuckParserBusy: with every parser connection taken, a query does not wait
// for one: the gate judges it on the model's connection, and it answers as it
// would have — rows, or the same refusal.
func TestDuckParserBusy(t *testing.T) {
	d := openTestDuck(t)
	holdParser(t, d.parser)
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Second}
	start := time.Now()
	res, err := d.Query(context.Background(), "SELECT count(*) FROM items", nil, lim)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("with the parser busy: %v %+v", err, res)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("answered after %v", took)
	}
	q := func(s string) (*Result, error) { return d.Query(context.Background(), s, nil, lim) }
	refused(t, q, "SELECT 1; DROP VIEW items", "more than one statement")
	if _, err := q("SELECT 1) t, (SELECT 1"); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("the cap's parentheses closed by the text: %v", err)
	}
}
