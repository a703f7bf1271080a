package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// slowModel is a model with a source and queries that take far longer than a
// test's time limit: a filter over 10^11 generated rows.
const slowModel = `-- @source slow
SELECT x FROM range(100000000000) t(x) WHERE x % 1000000007 = 3;

-- @source quick
SELECT 1 AS one;

-- @query above
-- @param lo BIGINT the smallest value
SELECT count(*) AS n FROM slow WHERE x > $lo;

-- @query everything
SELECT count(*) AS n FROM slow;
`

// TestNamedQueryTimeoutAdvice: a named query that runs out of time is told to
// narrow its parameter values (naming them and the values given) or to run its
// SQL ad hoc with a filter, not to "aggregate or filter" SQL the caller did not
// write; one without parameters is told calling again will not help; a source
// read whole is told to read part of it with SQL against its model. Ad-hoc SQL
// keeps the plain advice.
func TestNamedQueryTimeoutAdvice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": slowModel})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{QueryTimeout: 300 * time.Millisecond})).URL, "")
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string // in the error or the hint
		not  []string
	}{
		{"named query by path", map[string]any{"path": "p/k/m/above", "parameters": map[string]any{"lo": 5}},
			[]string{"the named query p/k/m/above ran longer than the 300ms limit", "parameter values that select less", `this call's {"lo":5}`, "lo BIGINT (the smallest value)", "as sql against the model p/k/m", "describe p/k/m/above"},
			[]string{"Aggregate or filter to read less data"}},
		{"named query by queryName", map[string]any{"path": "p/k/m", "queryName": "above", "parameters": map[string]any{"lo": 5}},
			[]string{"the named query p/k/m/above ran longer", "describe p/k/m/above"}, nil},
		{"no parameters", map[string]any{"path": "p/k/m/everything"},
			[]string{"the named query p/k/m/everything ran longer", "takes no parameters, so calling it again runs out of time again", "as sql against the model p/k/m"},
			[]string{"parameter values"}},
		{"source read whole", map[string]any{"path": "p/k/m/slow"},
			[]string{"reading the source p/k/m/slow ran longer than the 300ms limit", `SELECT … FROM "slow" WHERE`, "sql against the model p/k/m"}, nil},
		{"ad-hoc SQL", map[string]any{"path": "p/k/m", "sql": "SELECT x FROM slow"},
			[]string{"the query ran longer than the 300ms limit", "Aggregate or filter"}, []string{"named query"}},
		{"ad-hoc aggregate", map[string]any{"path": "p/k/m", "sql": "SELECT count(*) FROM slow"},
			[]string{"the query ran longer than the 300ms limit", "The query already aggregates", "Narrow the rows it reads with WHERE"}, []string{"named query", "Aggregate or filter", "instead of reading raw rows"}},
		{"ad-hoc huge range", map[string]any{"path": "p/k/m", "sql": "SELECT count(*) FROM range(100000000000)"},
			[]string{"the query ran longer than the 300ms limit", "range(100000000000) alone makes more than 100000000 rows", "use a smaller range"}, []string{"instead of reading raw rows"}},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		all := te.Error + "\n" + te.Hint
		if !r.IsError || te.Kind != "timeout" {
			t.Errorf("%s: not a timeout: %s", tc.name, text(r))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: %q missing from %q", tc.name, w, all)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(all, w) {
				t.Errorf("%s: %q in %q", tc.name, w, all)
			}
		}
		if !strings.Contains(text(r), te.Hint) {
			t.Errorf("%s: the text lacks the hint: %q", tc.name, text(r))
		}
	}
}

// TestDescribeBusyAdvice: a query of describe's that did not start says how
// long it had: what was left of describe's limit, not "the whole 38ms limit"
// as if that were the server's query limit.
func TestDescribeBusyAdvice(t *testing.T) {
	got := describeBusyProblem(&engine.BusyError{Limit: 37692081 * time.Nanosecond, Conns: 8}, 10*time.Second)
	if got != "not read: the server is busy: all 8 connections of this model were running other queries for the 38ms left of describe's 10s limit; describe it again shortly" {
		t.Errorf("with what the count left: %q", got)
	}
	got = describeBusyProblem(&engine.BusyError{Limit: 10 * time.Second, Conns: 4, What: "query processes of the server"}, 10*time.Second)
	if got != "not read: the server is busy: all 4 query processes of the server were running other queries for describe's 10s limit; describe it again shortly" {
		t.Errorf("with the whole limit: %q", got)
	}
}

// TestDescribeTimeoutAdvice: describe of a source too slow to count says what
// still works: with describe's limit shorter than execute_query's, the count
// through execute_query; with the same limit, not that (it would run out of
// time again) but its columns and a part of it read or aggregated.
func TestDescribeTimeoutAdvice(t *testing.T) {
	got := describeTimeoutProblem(&engine.TimeoutError{Limit: 10 * time.Second}, "big", `SELECT count(*) FROM "big"`, 10*time.Second, 30*time.Second)
	if !strings.Contains(got, `run SELECT count(*) FROM "big" with execute_query, which may take up to 30s`) {
		t.Errorf("longer execute_query limit: %q", got)
	}
	got = describeTimeoutProblem(&engine.TimeoutError{Limit: time.Second}, "big", `SELECT count(*) FROM "big"`, time.Second, time.Second)
	if strings.Contains(got, "run SELECT count(*)") || !strings.Contains(got, "which execute_query has too") || !strings.Contains(got, `SELECT … FROM "big" WHERE`) {
		t.Errorf("same limit: %q", got)
	}
	// describe's limit longer than execute_query's: not "has too".
	got = describeTimeoutProblem(&engine.TimeoutError{Limit: 10 * time.Second}, "big", `SELECT count(*) FROM "big"`, 10*time.Second, 5*time.Second)
	if strings.Contains(got, "has too") || !strings.Contains(got, "execute_query's limit is shorter (5s)") || strings.Contains(got, "run SELECT count(*)") {
		t.Errorf("shorter execute_query limit: %q", got)
	}
	// The sample query after a count that used 9.5 s of 10 s had 0.5 s: with
	// execute_query's 10 s it may well finish.
	got = describeTimeoutProblem(&engine.TimeoutError{Limit: 500 * time.Millisecond}, "big", `SELECT * FROM "big" LIMIT 5`, 10*time.Second, 10*time.Second)
	if !strings.Contains(got, `in the 500ms left of describe's 10s limit; run SELECT * FROM "big" LIMIT 5 with execute_query, which may take up to 10s`) || strings.Contains(got, "will not finish") {
		t.Errorf("a query with what the count left: %q", got)
	}
	got = describeTimeoutProblem(&engine.TimeoutError{Limit: time.Second, Waited: 900 * time.Millisecond}, "big", `SELECT count(*) FROM "big"`, time.Second, time.Second)
	if !strings.Contains(got, "busy") {
		t.Errorf("busy model: %q", got)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": slowModel})
	svc := newTestService(t, dir, Config{QueryTimeout: 300 * time.Millisecond})
	d, err := svc.Describe(context.Background(), "p/k/m/slow")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Columns) != 1 || !strings.Contains(d.Error, "Its columns above are complete") || !strings.Contains(d.Error, `LIMIT 5 with execute_query may still answer`) {
		t.Errorf("describe of a slow source: columns %v, error %q", d.Columns, d.Error)
	}
}

// TestTypedParamValues: DATE, TIMESTAMP, TIME, UUID, DECIMAL(p,s) and JSON
// parameters are checked before the query runs, as INTEGER and BOOLEAN ones are:
// a value of the wrong form or out of range is refused naming the parameter, its
// type and an example of a valid value — also where the SQL never casts it (it
// would be bound as text and returned as given).
func TestTypedParamValues(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "v"}}}
	for _, tc := range []struct {
		typ  string
		v    any
		want string // "" means accepted
	}{
		{"DATE", "2024-07-14", ""},
		{"DATE", "2024-2-29", ""},
		{"DATE", "infinity", ""},
		{"DATE", "2025-13-45", `parameter "v" must be a DATE written YYYY-MM-DD (e.g. "2024-07-14"), got "2025-13-45": there is no month 13`},
		{"DATE", "2023-02-29", "2023-02 has days 1 to 28"},
		{"DATE", "yesterday", `must be a DATE written YYYY-MM-DD (e.g. "2024-07-14"), got "yesterday"`},
		{"DATE", "14/07/2024", "must be a DATE"},
		{"TIMESTAMP", "2024-07-14 09:30:00", ""},
		{"TIMESTAMP", "2024-07-14T09:30:00.123456", ""},
		{"TIMESTAMP", "2024-07-14", ""},
		{"TIMESTAMP", "now", `must be a TIMESTAMP written YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset (Z, +02:00) or UTC right after the seconds if any (e.g. "2024-07-14 09:30:00")`},
		{"TIMESTAMP", "2024-07-14 25:00", "there is no hour 25"},
		{"TIMESTAMP", "2024-07-14T09:30:00Z", ""},
		{"TIMESTAMP", "2024-07-14T09:30:00 Europe/Paris", "must be a TIMESTAMP"},
		{"TIMESTAMPTZ", "2024-07-14T09:30:00Z", ""},
		{"TIMESTAMPTZ", "2024-07-14 09:30:00+02:00", ""},
		{"TIMESTAMPTZ", "2024-07-14 09:30:00 Europe/Paris", ""},
		{"TIMESTAMPTZ", "2024-07-14 09:30 UTC", "an offset or time zone needs the seconds before it"},
		{"TIMESTAMPTZ", "2024-07-14 09:30:00 +02:00", "an offset goes right after the seconds, with no space"},
		{"TIMESTAMP", "2024-07-14 09:30:00 Europe/Paris", "a TIMESTAMP takes no time zone but UTC"},
		{"timestamp with time zone", "2024-07-14 09:30:00 Europe/Paris", ""},
		{"TIMESTAMPTZ", "2024-07-14 09:61", "there is no minute 61"},
		{"TIME", "09:30", ""},
		{"TIME", "9:30:15.5", ""},
		{"TIME", "noon", `must be a TIME written HH:MM[:SS[.fraction]] (e.g. "09:30:00")`},
		{"UUID", "123e4567-e89b-12d3-a456-426614174000", ""},
		{"UUID", "{123E4567-E89B-12D3-A456-426614174000}", ""},
		{"UUID", "123e4567e89b12d3a456426614174000", ""},
		{"UUID", "abc", `must be a UUID written 8-4-4-4-12 hexadecimal digits (e.g. "123e4567-e89b-12d3-a456-426614174000"), got "abc"`},
		{"DECIMAL(5,2)", 999.99, ""},
		{"DECIMAL(5,2)", -12.5, ""},
		{"DECIMAL(5,2)", 12345.5, `parameter "v" must be a number with at most 3 digits before the decimal point once rounded to 2 decimals (DECIMAL(5,2)), got 12345.5; the largest it holds is 999.99`},
		{"DECIMAL(3,2)", 9.999, "once rounded to 2 decimals"},
		{"NUMERIC(4)", 12345.0, "at most 4 digits before the decimal point once rounded to 0 decimals (NUMERIC(4)), got 12345; the largest it holds is 9999"},
		{"DECIMAL(38,2)", 1e37, "(DECIMAL(38,2)), got 1e+37; it holds numbers below 1e36"},
		{"DECIMAL(2,2)", 1.5, "; the largest it holds is 0.99"},
		{"DECIMAL", 123456789012345.5, ""},
		{"DECIMAL", 1e30, "at most 15 digits before the decimal point once rounded to 3 decimals (DECIMAL, DuckDB's DECIMAL(18,3))"},
		{"DATE", "2024/07/14", ""},
		{"TIME", "2024-07-14 09:30:00", ""},
		{"TIME", "09:61", "there is no minute 61"},
		{"TIMETZ", "09:30:00 UTC", "after the time DuckDB reads only an offset"},
		{"TIMESTAMPTZ", "2024-07-14 09:30:00 Z", `there is no time zone "Z"`},
		{"JSON", `[1, 2,]`, ""},
		{"JSON", `{"a": [1, 2]}`, ""},
		{"JSON", `{a: 1}`, `must be a JSON value written as JSON text`},
		{"VARCHAR", "anything at all", ""},
		{"INTERVAL", "2 days", ""},
	} {
		q.Params[0].Type = tc.typ
		_, err := checkParams(q, map[string]any{"v": tc.v})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.typ, tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: got %v, want an error with %q", tc.typ, tc.v, err, tc.want)
		}
	}

	// Through the tool: a query that returns its parameters as given.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS x;\n\n-- @query echo\n-- @param day DATE\n-- @param id UUID\nSELECT $day AS day, $id AS id;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/echo", "parameters": map[string]any{"day": "2025-13-45", "id": "123e4567-e89b-12d3-a456-426614174000"}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "day" must be a DATE written YYYY-MM-DD (e.g. "2024-07-14"), got "2025-13-45": there is no month 13`) {
		t.Errorf("a DATE out of range, returned as given: %s", text(r))
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/echo", "parameters": map[string]any{"day": "2025-01-31", "id": "123e4567-e89b-12d3-a456-426614174000"}}, &res); r.IsError || len(res.Rows) != 1 {
		t.Errorf("good values: %s", text(r))
	}
}

// TestQuestionPlaceholders: ad-hoc SQL with ? placeholders (which it cannot be
// given values for) is told about the ? as written, with its position, not about
// DuckDB's $1; so is a named query whose SQL uses one.
func TestQuestionPlaceholders(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @query anon\nSELECT x FROM a WHERE x > ?;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for _, tc := range []struct {
		sql, want string
		pos       int
	}{
		{"SELECT ?", "the SQL uses the placeholder ? (at character 8), but ad-hoc SQL takes no parameters", 8},
		{"SELECT x FROM a WHERE x > ? AND x < ?", "the placeholder ? (at character 27)", 27},
		{"SELECT '?' AS q, x /* ? */ FROM a -- ?\nWHERE x = ?", "the placeholder ? (at character 50)", 50},
		{"SELECT ?2, ?1", "the placeholder ?1 (at character 12)", 12},
		// A number the SQL skips: DuckDB counts a $1 the text does not have.
		{"SELECT ?2", "the SQL uses the placeholder ?2 (at character 8), but ad-hoc SQL takes no parameters", 8},
		{"SELECT x FROM a WHERE x > ?3", "the placeholder ?3 (at character 27)", 27},
		// Dollar-quoted strings and nested comments hide a ? as '…' does; a $
		// inside a name starts no string.
		{"SELECT $$?$$ AS q, $t$ ? $t$ AS r, x FROM a WHERE x = ?", "the placeholder ? (at character 55)", 55},
		{"SELECT x /* a /* ? */ ? */ FROM a WHERE x = ?", "the placeholder ? (at character 45)", 45},
		{"SELECT x$$y FROM (SELECT x AS x$$y FROM a) WHERE x$$y = ?", "the placeholder ? (at character 57)", 57},
		{"SELECT $1", "the SQL uses the parameter $1, but ad-hoc SQL takes no parameters", 0},
		{"SELECT $lo", "the SQL uses the parameter $lo", 0},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": tc.sql}, &te)
		if !r.IsError || te.Kind != "sql_error" || !strings.Contains(te.Error, tc.want) || te.Position != tc.pos {
			t.Errorf("%q: %+v", tc.sql, te)
		}
		if strings.Contains(tc.sql, "?") && strings.Contains(text(r), "$") {
			t.Errorf("%q: the text speaks of $: %q", tc.sql, text(r))
		}
	}
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/anon"}, &te)
	if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, "named query anon uses the placeholder ? (at character 27 of its SQL), which has no name") || strings.Contains(te.Error, "$1") {
		t.Errorf("a named query with ?: %+v", te)
	}
}

// TestRelativeFilePaths: ad-hoc SQL naming a file by a relative path (refused:
// DuckDB resolves it from the server's working directory, outside the package)
// is told where such paths are resolved from, whether the package has the file,
// and the package's closest files with the sources that read them — in paths
// relative to the package, never the folder's absolute path. A source whose file
// is missing says so the same way.
func TestRelativeFilePaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json":     `{}`,
		"p/k/data/orders.csv":   "id\n1\n",
		"p/k/data/refunds.csv":  "id\n1\n",
		"p/k/m.sql":             "-- @source orders\nSELECT * FROM 'data/orders.csv';\n\n-- @source gone\nSELECT * FROM read_csv('data/ordres_2023.csv');\n",
		"p/secret.csv":          "password\nhunter2\n",
		"p/k/.hidden/notes.csv": "x\n1\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM 'data/ordrs.csv'", []string{
			`the SQL names the file "data/ordrs.csv" by a relative path`, "not read from the package folder (p/k) but from the server's working directory",
			"the package has no file data/ordrs.csv", `closest to it: data/orders.csv (the source orders: SELECT * FROM "orders")`}},
		{"SELECT * FROM read_csv('orders.csv')", []string{"the package has no file orders.csv", "closest to it: data/orders.csv (the source orders"}},
		{"SELECT * FROM 'data/orders.csv'", []string{`in the package it is data/orders.csv (the source orders: SELECT * FROM "orders")`}},
		{"SELECT * FROM read_csv('data/refunds.csv')", []string{"in the package it is data/refunds.csv (no source reads it)"}},
		{"SELECT * FROM 'data/*.csv'", []string{"in the package it matches data/orders.csv (the source orders", "data/refunds.csv (no source reads it)"}},
		{"SELECT * FROM read_csv('../secret.csv')", []string{`"../secret.csv" would leave the package folder too`}},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": tc.sql}, &te)
		if !r.IsError || te.Kind != "refused" {
			t.Errorf("%q: %s", tc.sql, text(r))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(te.Error, w) {
				t.Errorf("%q: %q missing from %q", tc.sql, w, te.Error)
			}
		}
		if strings.Contains(text(r), dir) || strings.Contains(text(r), "notes.csv") || strings.Contains(text(r), "manifest.json") {
			t.Errorf("%q: shows more than the package's data files: %q", tc.sql, text(r))
		}
	}
	// A path of 100,000 characters is said once, cut, and not compared with the
	// package's files (that took about a second after the engine answered).
	long := strings.Repeat("d/", 50000) + "orders.csv"
	var lte toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM '" + long + "'"}, &lte)
	if !r.IsError || lte.Kind != "refused" || len(text(r)) > 4000 || strings.Count(lte.Error, long[:maxEchoPath]+"…") != 1 || strings.Contains(lte.Error, "closest") {
		t.Errorf("a 100,000-character path: %d bytes: %.600q", len(text(r)), text(r))
	}
	var d Description
	r = call(t, cs, "describe", map[string]any{"path": "p/k/m/gone"}, &d)
	if r.IsError || strings.Contains(text(r), dir) || !strings.Contains(d.Error, `No files found that match the pattern "data/ordres_2023.csv"`) ||
		!strings.Contains(d.Error, "the package's files closest to it: data/orders.csv") {
		t.Errorf("a source whose file is missing: %s", text(r))
	}
	var te toolError
	r = call(t, cs, "execute_query", map[string]any{"path": "p/k/m/gone"}, &te)
	if !r.IsError || te.Kind != "unavailable" || strings.Contains(text(r), dir) || !strings.Contains(te.Error, "data/ordres_2023.csv") {
		t.Errorf("reading a source whose file is missing: %s", text(r))
	}
}

// TestLookAlikeNames: a name that differs from an existing one only by
// characters that look alike — a Cyrillic "о", a fullwidth letter, a zero-width
// or no-break space — is told which character it holds and the name meant: in
// catalog paths, a queryName, and DuckDB's unknown table and column errors.
func TestLookAlikeNames(t *testing.T) {
	for _, tc := range []struct {
		name, match, note string
	}{
		{"оrders", "orders", `"оrders" contains U+043E CYRILLIC SMALL LETTER O (which looks like "o"); did you mean "orders"?`},
		{"ｏｒｄｅｒｓ", "orders", `U+FF4F FULLWIDTH LATIN SMALL LETTER O (which looks like "o"), U+FF52 FULLWIDTH LATIN SMALL LETTER R`},
		{"ord\u200bers", "orders", `"ord\u200bers" contains U+200B ZERO WIDTH SPACE (invisible); did you mean "orders"?`},
		{"Оrders", "orders", "U+041E CYRILLIC CAPITAL LETTER O"},
		{"unit\u00a0price", "unit price", "U+00A0 NO-BREAK SPACE (which looks like a space)"},
		{"order-items", "", ""}, // plain ASCII: a typo, not a look-alike
		{"оrdors", "", ""},      // more than a look-alike apart
		{"température", "", ""}, // accents are Fold's, not look-alikes
		{"naïve", "", ""},
	} {
		match, note := catalog.LookAlike(tc.name, []string{"customers", "orders", "unit price", "temperature", "naive"})
		if match != tc.match || !strings.Contains(note, tc.note) {
			t.Errorf("LookAlike(%q) = %q, %q; want %q, %q", tc.name, match, note, tc.match, tc.note)
		}
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/o.csv":    "quantity,price\n1,2\n",
		"p/k/m.sql":         "-- @source orders\nSELECT * FROM 'data/o.csv';\n\n-- @query total\nSELECT sum(quantity) AS n FROM orders;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"describe", map[string]any{"path": "p/k/m/оrders"}, `no source or query named "оrders" in "p/k/m" ("оrders" contains U+043E CYRILLIC SMALL LETTER O (which looks like "o"); did you mean "orders"?); closest: p/k/m/orders`},
		{"describe", map[string]any{"path": "p/ｋ"}, `U+FF4B FULLWIDTH LATIN SMALL LETTER K (which looks like "k"); did you mean "k"?); closest: p/k`},
		{"execute_query", map[string]any{"path": "p/k/m", "queryName": "tоtal"}, `did you mean "total"?); closest: p/k/m/total`},
		{"execute_query", map[string]any{"path": "p/k/m", "sql": `SELECT * FROM "оrders"`}, `("оrders" contains U+043E CYRILLIC SMALL LETTER O (which looks like "o"); did you mean "orders"?)`},
		{"execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT \"quantity\u200b\" FROM orders"}, `U+200B ZERO WIDTH SPACE (invisible); did you mean "quantity"?`},
		{"execute_query", map[string]any{"path": "p/k/m", "sql": `SELECT o."рrice" FROM orders o`}, `U+0440 CYRILLIC SMALL LETTER ER (which looks like "p"); did you mean "price"?`},
	} {
		var te toolError
		r := call(t, cs, tc.tool, tc.args, &te)
		if !r.IsError || !strings.Contains(te.Error, tc.want) {
			raw, _ := json.Marshal(tc.args)
			t.Errorf("%s %s: %s", tc.tool, raw, text(r))
		}
	}
}

// TestLookAlikeNoteMatchesFirst: an engine error about anything but an unknown
// table or column builds no list of the model's names (it used to gather every
// column, de-duplicated by a linear search, on every SQL error).
func TestLookAlikeNoteMatchesFirst(t *testing.T) {
	m := &catalog.Model{Sources: []*catalog.Source{{Name: "orders"}}}
	few := map[string][]engine.Column{"orders": {{Name: "id"}}}
	many := map[string][]engine.Column{}
	for i := range 200 {
		var cs []engine.Column
		for j := range 50 {
			cs = append(cs, engine.Column{Name: fmt.Sprintf("c%d_%d", i, j)})
		}
		many[fmt.Sprintf("s%d", i)] = cs
	}
	msg := "Binder Error: No function matches the given name and argument types"
	a := testing.AllocsPerRun(20, func() { lookAlikeNote(msg, m, few) })
	b := testing.AllocsPerRun(20, func() { lookAlikeNote(msg, m, many) })
	if b > a+5 {
		t.Errorf("an unrelated error: %.0f allocations with 10000 columns, %.0f with one", b, a)
	}
	// Still found: a column that only looks like one the model has.
	cols := map[string][]engine.Column{"orders": {{Name: "id"}, {Name: "total"}}, "items": {{Name: "id"}}}
	if note := lookAlikeNote(`Binder Error: Referenced column "tоtal" not found in FROM clause!`, m, cols); !strings.Contains(note, "total") {
		t.Errorf("a look-alike column: %q", note)
	}
}

// TestPackageFilesBounded: the files an error lists are found reading at most
// a budget of entries, data files or not; within it, in walk order; a listing
// cut short says so.
func TestPackageFilesBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"zz/sub/x.csv": "x\n", "a.csv": "x\n", ".hidden/y.csv": "y\n", "manifest.json": "{}"}
	for i := range 30 {
		files[fmt.Sprintf("junk%02d.bin", i)] = ""
	}
	writeFiles(t, dir, files)
	if got, cut := packageFilesWithin(dir, 10); len(got) > 1 || slices.Contains(got, "zz/sub/x.csv") || !cut {
		t.Errorf("within 10 entries of 34: %q, cut %v", got, cut)
	}
	if got, cut := packageFiles(dir); !slices.Equal(got, []string{"a.csv", "zz/sub/x.csv"}) || cut {
		t.Errorf("packageFiles = %q, cut %v; want a.csv, zz/sub/x.csv, not cut", got, cut)
	}
	// Exactly the budget: all read, not cut.
	if got, cut := packageFilesWithin(dir, 36); len(got) != 2 || cut {
		t.Errorf("within 36 entries of 36: %q, cut %v", got, cut)
	}
}

// TestFileRefusalBigPackage: in a package whose listing is cut (20,001 files
// in one folder), a file the SQL names is looked up by its path: one that is
// there is named, one that is not is said to be missing, and a pattern that
// matches none of the files looked at is not said to match nothing.
func TestFileRefusalBigPackage(t *testing.T) {
	dir := t.TempDir()
	pkgDir := filepath.Join(dir, "p", "k")
	for _, d := range []string{"a_parts", "data"} {
		if err := os.MkdirAll(filepath.Join(pkgDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range maxPackageEntries + 1 {
		if err := os.WriteFile(filepath.Join(pkgDir, "a_parts", fmt.Sprintf("part%05d.csv", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, pkgDir, map[string]string{"data/orders.csv": "id\n1\n", ".hidden/notes.csv": "x\n"})
	// A link out of the package, and a folder link out of it.
	outside := filepath.Join(dir, "outside")
	writeFiles(t, outside, map[string]string{"secret.csv": "x\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(pkgDir, "data", "secret.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(pkgDir, "ext")); err != nil {
		t.Fatal(err)
	}
	pkg := &catalog.Package{Project: &catalog.Project{Name: "p"}, Name: "k", Dir: pkgDir}
	m := &catalog.Model{Package: pkg, Name: "m"}
	pkg.Models = []*catalog.Model{m}
	for _, tc := range []struct {
		file    string
		want    []string
		wantNot []string
	}{
		{"data/orders.csv", []string{"in the package it is data/orders.csv (no source reads it)"}, []string{"has no file"}},
		{"./data//orders.csv", []string{"in the package it is data/orders.csv"}, []string{"has no file"}},
		{"data/ordrs.csv", []string{"the package has no file data/ordrs.csv either", "the package has more"}, nil},
		{"data/secret.csv", []string{"the package has no file data/secret.csv"}, []string{"it is data/secret.csv"}},
		{"ext/secret.csv", []string{"the package has no file ext/secret.csv"}, []string{"it is ext/secret.csv"}},
		{".hidden/notes.csv", []string{"the package has no file .hidden/notes.csv"}, nil},
		{"data/*.csv", []string{"it matches none of the package's first", "the package has more"}, []string{"no file", "matches no file"}},
	} {
		err := fileRefusal(&engine.RefusedError{Reason: fmt.Sprintf("Cannot access file %q", tc.file)}, m)
		if err == nil {
			t.Fatalf("%s: no answer", tc.file)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q missing from %q", tc.file, w, err)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q in %q", tc.file, w, err)
			}
		}
	}
}
