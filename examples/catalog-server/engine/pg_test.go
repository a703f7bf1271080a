package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/wiremcp/wiremcp/examples/catalog-server/internal/testkit"
)

// pgDSN returns the test server's connection string (CATALOG_TEST_PG_DSN, a role
// that owns its database and is not a superuser). Without it the test skips,
// except under CI=true, where .ci/catalog.sh starts a server and sets it.
func pgDSN(t testing.TB) string {
	dsn := os.Getenv("CATALOG_TEST_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CATALOG_TEST_PG_DSN is unset under CI: .ci/catalog.sh should have started PostgreSQL")
		}
		t.Skip("CATALOG_TEST_PG_DSN is unset: no PostgreSQL to test against (see .ci/catalog.sh)")
	}
	return dsn
}

// pgSetup creates the test schema through an ordinary connection, in a
// READ WRITE transaction (pgWrite).
func pgSetup(t testing.TB, dsn string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgWrite(ctx, conn,
		"DROP SCHEMA IF EXISTS shop CASCADE",
		"CREATE SCHEMA shop",
		"CREATE TABLE shop.stock (sku text PRIMARY KEY, qty int NOT NULL, price numeric(8,2), updated date)",
		"INSERT INTO shop.stock SELECT 'sku-' || i, i * 3, i * 1.25, DATE '2024-01-01' + i FROM generate_series(1, 50) i",
	); err != nil {
		t.Fatal(err)
	}
}

// pgWrite runs a test's fixture statements in one READ WRITE transaction
// (testkit.PGWrite): the test role's default is read-only.
var pgWrite = testkit.PGWrite

func openTestPG(t testing.TB) *Postgres { return openTestPGAt(t, pgDSN(t)) }

// openTestPGAt is openTestPG's model on the server dsn names (pgbouncer's).
func openTestPGAt(t testing.TB, dsn string) *Postgres {
	pgSetup(t, dsn)
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
		"p/wh/stock.sql": `-- Stock levels.
-- @source stock
SELECT sku, qty, price, updated FROM stock;
-- @source low
SELECT * FROM stock WHERE qty < 30;
-- @source missing
SELECT * FROM no_such_table;
-- @source noted
SELECT sku FROM stock WHERE qty > 100; -- a note after the statement
-- and a line of comment, as authors write them; 'quotes' and ; too
-- @query by_min
-- @param min INTEGER
SELECT sku FROM stock WHERE qty >= @min ORDER BY qty DESC;
`,
	}, "p/wh/stock")
	p, err := OpenPostgres(context.Background(), m, dsn, PGConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPostgresQuery(t *testing.T) {
	p := openTestPG(t)
	if d := cmp.Diff([]Column{{"sku", "text"}, {"qty", "int4"}, {"price", "numeric(8,2)"}, {"updated", "date"}}, p.Columns()["stock"]); d != "" {
		t.Errorf("columns: %s", d)
	}
	if !strings.Contains(p.Broken()["missing"], "no_such_table") || p.Broken()["noted"] != "" {
		t.Errorf("broken: %v", p.Broken())
	}
	// A source whose statement has a comment after its semicolon.
	if res, err := p.Query(context.Background(), "SELECT count(*) AS n FROM noted", nil, testLimits); err != nil || fmt.Sprint(res.Rows) != "[[17]]" {
		t.Errorf("a source with a comment after its semicolon: %v %+v", err, res)
	}
	res, err := p.Query(context.Background(), "SELECT count(*) AS n, sum(qty) AS q FROM low", nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]any{{int64(9), int64(135)}}, res.Rows); d != "" {
		t.Errorf("rows: %s", d)
	}
	res, err = p.Query(context.Background(), "SELECT sku, price, updated FROM stock WHERE sku = 'sku-2'", nil, testLimits)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("values: %v %#v", err, res)
	}
	if b, _ := json.Marshal(res.Rows[0]); string(b) != `["sku-2",2.50,"2024-01-03"]` {
		t.Errorf("values: %s", b)
	}
	res, err = p.Query(context.Background(), "SELECT sku FROM stock WHERE qty >= @min ORDER BY qty DESC", map[string]any{"min": int64(145)}, testLimits)
	if err != nil || len(res.Rows) != 2 || res.Rows[0][0] != "sku-50" {
		t.Errorf("params: %v %+v", err, res)
	}
	res, err = p.Query(context.Background(), "SELECT * FROM stock", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 10 * time.Second})
	if err != nil || res.RowCount != 10 || !res.Truncated || res.TruncatedBy != "rowLimit" {
		t.Errorf("row limit: %v %+v", err, res)
	}
	_, err = p.Query(context.Background(), "SELECT sku, qtty FROM stock", nil, testLimits)
	var se *SQLError
	if !errors.As(err, &se) || se.Position != 13 || !strings.Contains(se.Message, "qtty") || se.SQLState != "42703" || !strings.Contains(err.Error(), "at character 13 (SQLSTATE 42703): ") {
		t.Errorf("sql error: %#v", err)
	}
	start := time.Now()
	_, err = p.Query(context.Background(), "SELECT pg_sleep(30)", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: 300 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) || time.Since(start) > 5*time.Second {
		t.Errorf("timeout: %v after %v", err, time.Since(start))
	}
	// A query that cancels itself did not run out of time: an SQL error
	// saying whose cancel it was (before: "ran longer than the 10s limit").
	_, err = p.Query(context.Background(), "SELECT pg_cancel_backend(pg_backend_pid()), pg_sleep(1)", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: 10 * time.Second})
	if !errors.As(err, &se) || se.SQLState != "57014" || !strings.Contains(se.Message, "a cancel request the server did not send") || errors.As(err, &te) {
		t.Errorf("self-cancel: %#v", err)
	}
	// The connection serves the next query.
	if res, err := p.Query(context.Background(), "SELECT 1 AS x", nil, testLimits); err != nil || res.RowCount != 1 {
		t.Errorf("after the self-cancel: %v %+v", err, res)
	}
}

func TestPostgresBypasses(t *testing.T) {
	p := openTestPG(t)
	for _, tc := range []struct{ name, sql, want string }{
		{"multiple statements", "SELECT 1; SELECT 2", "more than one statement"},
		{"commit then drop", "COMMIT; DROP TABLE stock", "more than one statement"},
		{"drop", "DROP TABLE stock", "refused"},
		{"delete", "DELETE FROM stock", "refused"},
		{"copy to", "COPY stock TO '/tmp/stock.csv'", "refused"},
		{"copy program", "COPY stock TO PROGRAM 'id'", "refused"},
		{"writable CTE", "WITH d AS (DELETE FROM stock RETURNING *) SELECT * FROM d", "refused"},
		{"set", "SET default_transaction_read_only = off", "refused"},
		{"read server file", "SELECT pg_read_file('/etc/passwd')", "permission denied"},
		{"select into", "SELECT * INTO stolen FROM stock", "refused"},
		{"NUL then a statement", "SELECT 1\x00; DROP TABLE stock", "NUL character (\\u0000) at character 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.Query(context.Background(), tc.sql, nil, testLimits)
			if err == nil {
				t.Fatalf("%q ran", tc.sql)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: %q lacks %q", tc.sql, err, tc.want)
			}
		})
	}
	res, err := p.Query(context.Background(), "SELECT count(*) FROM stock", nil, testLimits)
	if err != nil || res.Rows[0][0] != int64(50) {
		t.Errorf("stock changed: %v %+v", err, res)
	}
}

// TestPostgresRowCap: a query is run capped at the rows its result can hold, so
// the server stops there (here each row past the third sleeps 0.2 s: the whole
// query would run into the 10 s time limit while the rows were drained).
func TestPostgresRowCap(t *testing.T) {
	p := openTestPG(t)
	lim := testLimits
	lim.RowLimit = 3
	start := time.Now()
	res, err := p.Query(context.Background(), "SELECT i, CASE WHEN i > 3 THEN pg_sleep(0.2) END AS s FROM generate_series(1, 1000) i ORDER BY i", nil, lim)
	if err != nil || res.RowCount != 3 || !res.Truncated || fmt.Sprint(res.Rows[2][0]) != "3" {
		t.Fatalf("capped: %v %+v", err, res)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the server computed rows past the cap: %v", el)
	}
}

// TestPostgresClosestNames: an unknown source or column comes with the closest
// names of the model's sources and their columns (PostgreSQL names none for a
// relation, and a column only when it is close to one in the query's scope).
func TestPostgresClosestNames(t *testing.T) {
	p := openTestPG(t)
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM stok", "closest sources of the model: stock"},
		{"SELECT * FROM warehouse", "the model's sources: low, noted, stock"},
		{"SELECT quantity FROM stock", "closest columns of the model's sources: qty"},
		{"SELECT s.quantity FROM stock s", "closest columns of the model's sources: qty"},
	} {
		_, err := p.Query(context.Background(), tc.sql, nil, testLimits)
		var se *SQLError
		if !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) {
			t.Errorf("%s: %v lacks %q", tc.sql, err, tc.want)
		}
	}
}

// TestPostgresBusy: a query that cannot get one of the model's connections within
// its time limit (all held by other queries) is told the server is busy, not that
// it ran too long; once one is free, queries run again.
func TestPostgresBusy(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	var held []*pgxpool.Conn
	for range pgMaxConns {
		c, err := p.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	_, err := p.Query(ctx, "SELECT count(*) FROM low", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 300 * time.Millisecond})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("with every connection held: %v", err)
	}
	held[0].Release()
	if res, err := p.Query(ctx, "SELECT count(*) FROM low", nil, testLimits); err != nil || len(res.Rows) != 1 {
		t.Fatalf("after one connection was freed: %v %+v", err, res)
	}
	for _, c := range held[1:] {
		c.Release()
	}
}

// TestPostgresTypes: every kind of PostgreSQL value comes back as faithful JSON
// with its type's name: numbers in json and jsonb keep their digits; intervals,
// times, bit strings, XML, ranges and multiranges are PostgreSQL's own text (pgx
// decodes them into structs JSON would show field by field, or into base64
// bytes); money, timetz, enums, composites and arrays of them are named as
// pg_type names them, not "oid 16388"; arrays of these are JSON arrays
// (TestPostgresTextArrays).
func TestPostgresTypes(t *testing.T) {
	p := openTestPG(t)
	execPG(t, "CREATE TYPE shop.mood AS ENUM ('sad', 'happy')", "CREATE TYPE shop.pair AS (a int, b text)")
	for _, tc := range []struct{ expr, typ, json string }{
		{"'12345678901234567890.123456789'::numeric", "numeric", `12345678901234567890.123456789`},
		{"9007199254740993::int8", "int8", `9007199254740993`},
		{`'{"big": 12345678901234567890, "f": 1.10}'::jsonb`, "jsonb", `{"big":12345678901234567890,"f":1.10}`},
		{`'{"big": 12345678901234567890, "a": [1, 2]}'::json`, "json", `{"a":[1,2],"big":12345678901234567890}`},
		{`ARRAY['{"a": 12345678901234567890}'::jsonb]`, "_jsonb", `[{"a":12345678901234567890}]`},
		{`'{"a": 1, "a": 2}'::json`, "json", `{"a":2}`},
		{"'1 year 2 mons 3 days 04:05:06.5'::interval", "interval", `"1 year 2 mons 3 days 04:05:06.5"`},
		{"ARRAY['1 day'::interval]", "_interval", `["1 day"]`},
		{"'13:14:15.25'::time", "time", `"13:14:15.25"`},
		{"'13:14:15+02'::timetz", "timetz", `"13:14:15+02"`},
		{"B'1010'", "bit", `"1010"`},
		{"B'101'::varbit", "varbit", `"101"`},
		{"'<a>1</a>'::xml", "xml", `"\u003ca\u003e1\u003c/a\u003e"`},
		{"'[1,5)'::int4range", "int4range", `"[1,5)"`},
		{"'empty'::int8range", "int8range", `"empty"`},
		{"'[2024-01-01,2024-02-01)'::daterange", "daterange", `"[2024-01-01,2024-02-01)"`},
		{"'{[1,3),[5,7)}'::int4multirange", "int4multirange", `"{[1,3),[5,7)}"`},
		{"'(1.5,2)'::point", "point", `"(1.5,2)"`},
		{"12.34::money", "money", ``},
		{"'happy'::mood", "mood", `"happy"`},
		{"ARRAY['sad', 'happy']::mood[]", "_mood", `["sad","happy"]`},
		{"ROW(1, 'x y')::pair", "pair", `"(1,\"x y\")"`},
		{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "uuid", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`},
		{"'192.168.1.5/24'::inet", "inet", `"192.168.1.5/24"`},
		{`'\xdeadbeef'::bytea`, "bytea", `"3q2+7w=="`},
		{"ARRAY[1, NULL]::int[]", "_int4", `[1,null]`},
		{"'infinity'::date", "date", `"infinity"`},
		{"'2024-03-01 12:00:00.25'::timestamp", "timestamp", `"2024-03-01T12:00:00.25"`},
		{"NULL::interval", "interval", `null`},
	} {
		v, ok := pgValue(t, p, tc.expr, tc.typ)
		if !ok {
			continue
		}
		got, _ := json.Marshal(v)
		if tc.typ == "money" { // written in the server's lc_monetary
			if s, ok := v.(string); !ok || !strings.Contains(s, "12.34") {
				t.Errorf("%s: %s", tc.expr, got)
			}
		} else if string(got) != tc.json {
			t.Errorf("%s: %s, want %s", tc.expr, got, tc.json)
		}
	}
}

// pgValue runs SELECT expr through p and returns the one value, after checking
// its column's type name is typ; ok is false (the test marked failed) otherwise.
func pgValue(t *testing.T, p *Postgres, expr, typ string) (any, bool) {
	t.Helper()
	res, err := p.Query(context.Background(), "SELECT "+expr+" AS v", nil, testLimits)
	if err != nil {
		t.Errorf("%s: %v", expr, err)
		return nil, false
	}
	if res.Columns[0].Type != typ {
		t.Errorf("%s: type %q, want %q", expr, res.Columns[0].Type, typ)
	}
	return res.Rows[0][0], true
}

// TestPostgresTextArrays: arrays of the types written as PostgreSQL's text
// (intervals, times, bit strings, XML, ranges, multiranges, geometric types,
// money, enums, composites) are JSON arrays of the elements' text — nested for
// more dimensions, NULL null — not one string of PostgreSQL's array text; an array
// type pgx does not know is one the first time it is met too (read from pg_type
// after the rows), within the byte budget.
func TestPostgresTextArrays(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	execPG(t, "CREATE TYPE shop.tone AS ENUM ('sad', 'happy', 'a b')", "CREATE TYPE shop.pair AS (a int, b text)", "CREATE TYPE shop.letter AS ENUM ('a', 'b')")
	for _, tc := range []struct{ expr, typ, json string }{
		{"ARRAY[['1 day', NULL], ['3 days', '4 days']]::interval[]", "_interval", `[["1 day",null],["3 days","4 days"]]`},
		{"'{}'::interval[]", "_interval", `[]`},
		{"ARRAY['13:14:15'::time, NULL]", "_time", `["13:14:15",null]`},
		{"ARRAY['13:14:15+02'::timetz]", "_timetz", `["13:14:15+02"]`},
		{"ARRAY[B'1010', B'01']::varbit[]", "_varbit", `["1010","01"]`},
		{"ARRAY['<a x=\"1\">1</a>'::xml]", "_xml", `["\u003ca x=\"1\"\u003e1\u003c/a\u003e"]`},
		{"ARRAY['[1,5)'::int4range, 'empty']", "_int4range", `["[1,5)","empty"]`},
		{"ARRAY['[2024-01-01,2024-02-01)'::daterange]", "_daterange", `["[2024-01-01,2024-02-01)"]`},
		{"ARRAY['{[1,3),[5,7)}'::int4multirange]", "_int4multirange", `["{[1,3),[5,7)}"]`},
		{"ARRAY['(1.5,2)'::point, NULL]", "_point", `["(1.5,2)",null]`},
		{"ARRAY['(1,1),(0,0)'::box, '(3,3),(2,2)']", "_box", `["(1,1),(0,0)","(3,3),(2,2)"]`},
		{"ARRAY['<(0,0),1>'::circle]", "_circle", `["\u003c(0,0),1\u003e"]`},
		// Types pgx does not know, first met here (read from pg_type after the
		// rows), then again (known from then on).
		{"ARRAY['sad', NULL, 'a b']::tone[]", "_tone", `["sad",null,"a b"]`},
		{"ARRAY['sad', NULL, 'a b']::tone[]", "_tone", `["sad",null,"a b"]`},
		{"ARRAY[['sad'], ['happy']]::tone[]", "_tone", `[["sad"],["happy"]]`},
		{"ARRAY[ROW(1, 'x y')::pair, ROW(2, NULL)::pair, NULL]", "_pair", `["(1,\"x y\")","(2,)",null]`},
		{"'happy'::tone", "tone", `"happy"`},
		{"'[0:1]={sad,happy}'::tone[]", "_tone", `["sad","happy"]`},
	} {
		v, ok := pgValue(t, p, tc.expr, tc.typ)
		if !ok {
			continue
		}
		if got, _ := json.Marshal(v); string(got) != tc.json {
			t.Errorf("%s: %s, want %s", tc.expr, got, tc.json)
		}
	}
	// money is written in the server's lc_monetary.
	res, err := p.Query(ctx, "SELECT ARRAY[12.34::money, NULL] AS v", nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := res.Rows[0][0].([]any); res.Columns[0].Type != "_money" || !ok || len(a) != 2 || a[1] != nil || !strings.Contains(fmt.Sprint(a[0]), "12.34") {
		t.Errorf("money[]: %s %#v", res.Columns[0].Type, res.Rows[0][0])
	}

	// The byte budget holds for the arrays, the first time their type is met
	// (the rows read as text would have fitted) and after: 10 rows of 20 letters,
	// 84 bytes of JSON each, under a budget of 500 bytes.
	for range 2 {
		lim := Limits{RowLimit: 100, ByteBudget: 500, Timeout: 10 * time.Second}
		res, err := p.Query(ctx, "SELECT array_fill('a'::letter, ARRAY[20]) AS v FROM generate_series(1, 10)", nil, lim)
		if err != nil {
			t.Fatal(err)
		}
		used := 0
		for _, row := range res.Rows {
			b, _ := json.Marshal(row)
			used += len(b) + 1
		}
		if len(res.Rows) != 5 || !res.Truncated || res.TruncatedBy != "byteBudget" || used > lim.ByteBudget {
			t.Errorf("budget: %d rows, %d bytes, truncated %v by %q", len(res.Rows), used, res.Truncated, res.TruncatedBy)
		}
		if a, ok := res.Rows[0][0].([]any); !ok || len(a) != 20 || a[0] != "a" {
			t.Errorf("letters: %#v", res.Rows[0][0])
		}
	}
}

// execPG runs statements on the test database as its owner, outside any
// model, in one READ WRITE transaction (pgWrite).
func execPG(t *testing.T, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgWrite(ctx, conn, stmts...); err != nil {
		t.Fatal(err)
	}
}

// TestPostgresClosed: a query that meets a PostgreSQL model closed by a reload
// — before it starts, or while it waits for Close to end another query — is
// answered ErrClosed (the server runs it again on the reloaded model), at once.
func TestPostgresClosed(t *testing.T) {
	p := openTestPG(t)
	running := make(chan error, 1)
	go func() {
		_, err := p.Query(context.Background(), "SELECT pg_sleep(30)", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: time.Second})
		running <- err
	}()
	time.Sleep(200 * time.Millisecond) // the query has its connection
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	time.Sleep(100 * time.Millisecond) // Close waits for the query's connection
	start := time.Now()
	_, err := p.Query(context.Background(), "SELECT 1", nil, testLimits)
	if !errors.Is(err, ErrClosed) || time.Since(start) > 500*time.Millisecond {
		t.Errorf("a query on a closing model: want ErrClosed at once, got %v after %v", err, time.Since(start))
	}
	var te *TimeoutError
	if err := <-running; !errors.As(err, &te) {
		t.Errorf("the running query: want a timeout, got %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := p.Query(context.Background(), "SELECT 1", nil, testLimits); !errors.Is(err, ErrClosed) {
		t.Errorf("a query on a closed model: want ErrClosed, got %v", err)
	}
}

// TestPostgresRowCapTrailingStatements: empty statements and comments after the
// statement's semicolon ("…;;", "…; -- all") are not part of what the row cap
// wraps: the query runs capped, as it does without them (they made the capped
// text a syntax error, and the query was refused as not a query). A semicolon or
// comment mark inside a string, a quoted name, a dollar-quoted string or a
// comment is not the statement's end.
func TestPostgresRowCapTrailingStatements(t *testing.T) {
	p := openTestPG(t)
	lim := testLimits
	lim.RowLimit = 3
	for _, tail := range []string{";", ";;", "; ;", "; -- c", "; /* c */", ";\n;\n-- c\n", "; -- it's\n; /* ; */", " -- c", "; /* a /* nested; */ b */ ;"} {
		text := "SELECT i FROM generate_series(1, 1000) i ORDER BY i" + tail
		res, err := p.Query(context.Background(), text, nil, lim)
		if err != nil || res.RowCount != 3 || !res.Truncated || fmt.Sprint(res.Rows[2][0]) != "3" {
			t.Errorf("%q: %v %+v", tail, err, res)
		}
	}
	for text, want := range map[string]string{
		"SELECT 1 AS a -- x; /*\n, 2 AS b, count(*) AS n FROM stock\n-- */\n; -- end": `[[1,2,50]]`,
		"SELECT 'a; --' AS x FROM stock LIMIT 1; -- c":                                `[["a; --"]]`,
		"SELECT 1 AS a /* ; -- */, 2 AS b; -- c":                                      `[[1,2]]`,
		`SELECT 1 AS "a;" ; -- c`:                                                     `[[1]]`,
		"SELECT $$;--$$ AS a, $x$ $$; $x$ AS b;;":                                     `[[";--"," $$; "]]`,
		`SELECT E'\';--' AS a; /* c */`:                                               `[["';--"]]`,
		"SELECT 'it''s;' AS a ;;":                                                     `[["it's;"]]`,
		"SELECT sku FROM stock WHERE qty >= @min ORDER BY qty DESC LIMIT 1;; -- top":  `[["sku-50"]]`,
	} {
		res, err := p.Query(context.Background(), text, map[string]any{"min": int64(1)}, lim)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if b, _ := json.Marshal(res.Rows); string(b) != want {
			t.Errorf("%q: %s, want %s", text, b, want)
		}
	}
	// The one-statement rule and the read-only transaction hold as before.
	for text, want := range map[string]string{
		"SELECT 1;; SELECT 2":               "more than one statement",
		"SELECT 1; -- c\nDELETE FROM stock": "more than one statement",
		"DELETE FROM stock;;":               "refused",
		"COMMIT; -- c":                      "refused",
		";; -- nothing":                     "no statement",
		"SELECT 'open; -- c":                "unterminated quoted string",
	} {
		if _, err := p.Query(context.Background(), text, nil, lim); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if res, err := p.Query(context.Background(), "SELECT count(*) FROM stock", nil, testLimits); err != nil || res.Rows[0][0] != int64(50) {
		t.Errorf("stock changed: %v %+v", err, res)
	}
}

// TestPostgresPositionAfterSpaces: an error's position is about the caller's
// text, also when it starts with spaces or empty lines (they were trimmed before
// the statement was parsed, and the position moved by as many characters).
func TestPostgresPositionAfterSpaces(t *testing.T) {
	p := openTestPG(t)
	for _, text := range []string{"  SELECT nosuch FROM stock", "\n\nSELECT sku,\n qty + FROM stock", "  SELECT sku, qty + FROM stock;; -- c", "\t-- c\nSELECT 'é', nosuch FROM stock"} {
		_, err := p.Query(context.Background(), text, nil, testLimits)
		at := strings.Index(text, "nosuch")
		if at < 0 {
			at = strings.Index(text, "FROM")
		}
		var se *SQLError
		if want := len([]rune(text[:at])) + 1; !errors.As(err, &se) || se.Position != want {
			t.Errorf("%q: %v, want position %d", text, err, want)
		}
	}
}

func TestPgStatementBody(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		std, ok  bool
	}{
		{"SELECT 1", "SELECT 1", true, true},
		{"SELECT 1;; -- c\n /* d */ ;", "SELECT 1", true, true},
		{"  SELECT 1 ;", "  SELECT 1", true, true},
		{"SELECT ';' ;", "SELECT ';'", true, true},
		{`SELECT 'a\';' ;`, `SELECT 'a\'`, true, false}, // standard strings: the string is 'a\', then ;' opens one
		{`SELECT 'a\';' ;`, `SELECT 'a\';'`, false, true},
		{`SELECT e'a\';' ;`, `SELECT e'a\';'`, true, true},
		{`SELECT "x;""y" ;`, `SELECT "x;""y"`, true, true},
		{"SELECT $t$ ; $$ $t$ ;", "SELECT $t$ ; $$ $t$", true, true},
		{"SELECT $1 ;", "SELECT $1", true, true},
		{"SELECT a$b$ ;", "SELECT a$b$", true, true},
		{"SELECT 1$$;$$ ;", "SELECT 1$$;$$", true, true},
		{"SELECT 1 /* /* ; */ ; */ ;", "SELECT 1", true, true},
		{"SELECT 1 /* open", "", true, false},
		{"SELECT $x$ open", "", true, false},
		{"SELECT 1 -- ;\n, 2;", "SELECT 1 -- ;\n, 2", true, true},
		{";;", "", true, true},
	} {
		got, ok := pgStatementBody(tc.in, tc.std)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("pgStatementBody(%q, %v) = %q, %v; want %q, %v", tc.in, tc.std, got, ok, tc.want, tc.ok)
		}
	}
}

// TestPostgresByteBudgetCountsColumns: TestByteBudgetCountsColumns on
// PostgreSQL (whose names have at most 63 bytes: more columns), also for a
// result whose column types are named after its rows were read (an enum, of a
// long name, where the rows were counted with "oid n").
func TestPostgresByteBudgetCountsColumns(t *testing.T) {
	p := openTestPG(t)
	long := "mood_" + strings.Repeat("z", 58)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgWrite(ctx, conn, "CREATE TYPE shop."+long+" AS ENUM ('a', 'b')"); err != nil {
		t.Fatal(err)
	}
	const budget = 32 << 10
	lim := Limits{RowLimit: 1000, ByteBudget: budget, Timeout: testLimits.Timeout}
	res, err := p.Query(ctx, budgetSQL(200, 63, "repeat('v', 10)", "generate_series(1, 100)"), nil, lim)
	checkBudget(t, "postgres", res, err, budget)
	res, err = p.Query(ctx, budgetSQL(200, 63, "'a'::"+long, "generate_series(1, 100)"), nil, lim)
	if err == nil && (res.Columns[0].Type != long) {
		t.Errorf("enum column: %+v", res.Columns[0])
	}
	checkBudget(t, "postgres, enum", res, err, budget)
}

// TestPostgresNotAQuery: a statement PostgreSQL parses alone but that is not a
// query is refused saying what it is, without calling it a syntax error.
func TestPostgresNotAQuery(t *testing.T) {
	p := openTestPG(t)
	for sql, want := range map[string]string{
		"DELETE FROM stock":                             "this is a DELETE statement; only one SELECT",
		"  /* c */ -- d\nupdate stock SET qty = 0":      "this is an UPDATE statement; only one SELECT",
		"DROP TABLE stock":                              "this is a DROP statement",
		"COPY stock TO '/tmp/stock.csv'":                "this is a COPY statement",
		"WITH d AS (SELECT 1) DELETE FROM stock":        "this is a WITH statement whose main statement is not a SELECT",
		"SET default_transaction_read_only = off":       "this is a SET statement",
		"DELETE FROM no_such_table WHERE sku = 'sku-1'": "this is a DELETE statement",
	} {
		_, err := p.Query(context.Background(), sql, nil, testLimits)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "syntax error") {
			t.Errorf("%q: %v, want a refusal saying %q", sql, err, want)
		}
	}
}

func TestNotAQueryWords(t *testing.T) {
	for body, want := range map[string]string{
		"INSERT INTO t VALUES (1)\n) AS q LIMIT 2": "this is an INSERT statement; only one SELECT (or WITH … SELECT, VALUES, TABLE) runs here",
		"/* a /* nested */ one */ merge INTO t":    "this is a MERGE statement; only one SELECT (or WITH … SELECT, VALUES, TABLE) runs here",
		"-- only a comment":                        `PostgreSQL's parser does not read this as a query (syntax error at or near ")"); only one SELECT (or WITH … SELECT, VALUES, TABLE) runs here`,
	} {
		if got := notAQuery(body, `syntax error at or near ")"`); got != want {
			t.Errorf("notAQuery(%q) = %q, want %q", body, got, want)
		}
	}
}

// TestPostgresTypeModifiers: a column's type is shown with its modifier, as
// PostgreSQL writes it (numeric(10,2), varchar(20), timestamp(3) …), in the
// query's columns and so in a source's.
func TestPostgresTypeModifiers(t *testing.T) {
	p := openTestPG(t)
	if d := cmp.Diff(Column{"price", "numeric(8,2)"}, p.Columns()["stock"][2]); d != "" {
		t.Errorf("source column: %s", d)
	}
	res, err := p.Query(context.Background(), `SELECT 1.5::numeric(10,2) AS a, 'x'::varchar(20) AS b, 'x'::char(3) AS c,
		now()::timestamp(3) AS d, now()::timestamptz(0) AS e, '1:00'::time(2) AS f, '1:00+02'::timetz(1) AS g,
		'1 day'::interval(4) AS h, B'101'::bit(3) AS i, B'1'::varbit(8) AS j, 1.5::numeric(5,-2) AS k,
		1.5::numeric AS l, 'x'::varchar AS m, price * 2 AS n FROM stock LIMIT 1`, nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Columns {
		got = append(got, c.Type)
	}
	want := []string{"numeric(10,2)", "varchar(20)", "bpchar(3)", "timestamp(3)", "timestamptz(0)", "time(2)", "timetz(1)", "interval(4)", "bit(3)", "varbit(8)", "numeric(5,-2)", "numeric", "varchar", "numeric"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("types: %s", d)
	}
}

// TestPgSearchPath: a manifest's schema is read as PostgreSQL's search_path
// reads it, and written for SET LOCAL with each name quoted.
func TestPgSearchPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"shop":             `"shop"`,
		"Shop, public":     `"shop", "public"`,
		` "Sales" ,"a""b"`: `"Sales", "a""b"`,
		`"$user", public`:  `"$user", "public"`,
		`"a,b"`:            `"a,b"`,
		"hr,\tpublic ":     `"hr", "public"`,
		`"shop`:            "!",
		"shop,":            "!",
		"shop public":      "!",
		`""`:               "!",
		`shop"x"`:          "!",
		", shop":           "!",
		// PostgreSQL folds A-Z only (a UTF-8 database): the Kelvin sign
		// and Ä stay.
		"\u212Axy": "\"\u212Axy\"",
		"ÄRGER":    `"Ärger"`,
		"a\vb":     "\"a\vb\"",
	} {
		got, err := pgSearchPath(in)
		if want == "!" {
			if err == nil || !strings.Contains(err.Error(), "is not a list of schema names") {
				t.Errorf("%q: %q %v, want an error", in, got, err)
			}
		} else if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

// TestPostgresSchemaByQuery: the schema is set by each query's transaction
// (SET LOCAL search_path), so that a pooler that drops or refuses startup
// parameters keeps it, and a schema that is no list of names is the
// catalog's fault, told as such. Before, it was a startup parameter, and
// `"shop` looked like a failure to connect (SQLSTATE 22023).
func TestPostgresSchemaByQuery(t *testing.T) {
	dsn := pgDSN(t)
	pgSetup(t, dsn)
	open := func(schema string) (*Postgres, error) {
		m := loadModel(t, map[string]string{
			"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": ` + strings.ReplaceAll(strconvQuote(schema), `\x`, `\u00`) + `}`,
			"p/wh/stock.sql":     "-- @source stock\nSELECT sku FROM stock;\n",
		}, "p/wh/stock")
		return OpenPostgres(context.Background(), m, dsn, PGConfig{})
	}
	_, err := open(`"shop`)
	var se *SQLError
	var srcs *SourcesError
	if !errors.As(err, &srcs) || !errors.As(err, &se) || !strings.Contains(se.Message, "wh's manifest.json: the schema") || strings.Contains(err.Error(), "connect") {
		t.Errorf(`schema "shop: %v`, err)
	}
	p, err := open("Shop, public")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Query(context.Background(), "SELECT current_setting('search_path') AS sp, count(*) AS n FROM stock", nil, testLimits)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "shop, public" {
		t.Fatalf("search_path: %v %+v", err, res)
	}
	// Outside the queries' transactions the connections keep the server's.
	c, err := p.pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if sp := c.Conn().PgConn().ParameterStatus("search_path"); strings.Contains(sp, "shop") {
		t.Errorf("the connection's search_path is %q", sp)
	}
}

func strconvQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}
