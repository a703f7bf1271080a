package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// TestDuckRowCapStopsTheEngine: a query is run capped at the rows its result can
// hold, so DuckDB never computes the rows past them (duckdb-go materialises a
// result whole before the first row is read: here the 100,000th row fails, and
// the 4-row result must not see it). The cap keeps the query's order, and SQL
// ending in a semicolon or a comment still runs.
func TestDuckRowCapStopsTheEngine(t *testing.T) {
	d := openTestDuck(t)
	lim := testLimits
	lim.RowLimit = 3
	res, err := d.Query(context.Background(), "SELECT CASE WHEN i < 100000 THEN i ELSE error('computed past the row cap') END AS v FROM range(1000000) t(i)", nil, lim)
	if err != nil || res.RowCount != 3 || !res.Truncated || res.TruncatedBy != "rowLimit" {
		t.Fatalf("capped: %v %+v", err, res)
	}
	res, err = d.Query(context.Background(), "SELECT name FROM items ORDER BY price DESC -- dearest first", nil, Limits{RowLimit: 2, ByteBudget: 1 << 20, Timeout: testLimits.Timeout})
	if err != nil || res.RowCount != 2 || res.Rows[0][0] != "plum" || res.Rows[1][0] != "pear" || !res.Truncated {
		t.Errorf("order under the cap: %v %+v", err, res)
	}
	for _, sql := range []string{"SELECT count(*) FROM items;", "SELECT count(*) FROM items ; -- all", "-- all\nSELECT count(*) FROM items\n-- done"} {
		if res, err := d.Query(context.Background(), sql, nil, testLimits); err != nil || res.RowCount != 1 || res.Rows[0][0] != int64(3) {
			t.Errorf("%q: %v %+v", sql, err, res)
		}
	}
	// Without a cap the same query reads past it: the test above can fail.
	if _, err := d.Query(context.Background(), "SELECT sum(v) FROM (SELECT CASE WHEN i < 100000 THEN i ELSE error('computed past the row cap') END AS v FROM range(1000000) t(i))", nil, lim); err == nil || !strings.Contains(err.Error(), "computed past the row cap") {
		t.Errorf("the whole query: %v", err)
	}
}

// TestUnwrapLines: an error about a capped statement is about the caller's lines
// (the cap adds one before them), with the caret under the same character.
func TestUnwrapLines(t *testing.T) {
	in := &duckdb.Error{Type: duckdb.ErrorTypeBinder, Msg: "Binder Error: x\n\nLINE 10: SELECT nme\n                ^"}
	var de *duckdb.Error
	if !errors.As(unwrapLines(in, true), &de) || de.Msg != "Binder Error: x\n\nLINE 9: SELECT nme\n               ^" {
		t.Errorf("unwrapped: %q", de.Msg)
	}
	if got := unwrapLines(in, false); got != error(in) {
		t.Errorf("not wrapped: %v", got)
	}
}

// TestDuckOutOfMemory: a query that needs more than the model's memory limit is
// stopped with what to do instead, not DuckDB's advice to SET a larger limit (the
// configuration is locked).
func TestDuckOutOfMemory(t *testing.T) {
	m := loadModel(t, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n"}, "p/k/m")
	d, err := OpenDuck(context.Background(), m, DuckConfig{MemoryLimit: "32MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = d.Query(context.Background(), "SELECT length(list(i)) FROM range(20000000) t(i)", nil, testLimits)
	var me *MemoryError
	if !errors.As(err, &me) || me.Limit != "32MB" || !strings.Contains(err.Error(), "more memory than this model may use (32MB)") ||
		!strings.Contains(err.Error(), "Out of Memory Error") || strings.Contains(err.Error(), "SET ") {
		t.Errorf("out of memory: %v", err)
	}
	if res, err := d.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil || res.RowCount != 1 {
		t.Errorf("after: %v", err)
	}
}

// querier is a model opened on either engine.
type querier interface {
	Query(context.Context, string, map[string]any, Limits) (*Result, error)
}

// budgetSQL selects n columns of the value val, named c0_xxx… to c(n-1)_xxx…
// with about width bytes each, from from.
func budgetSQL(n, width int, val, from string) string {
	var cols []string
	for i := range n {
		name := fmt.Sprintf("c%d_%s", i, strings.Repeat("x", width))
		cols = append(cols, val+" AS "+name[:width])
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + from
}

// checkBudget says whether res's columns and rows, as JSON, stay within the byte
// budget (the rows' brackets aside).
func checkBudget(t *testing.T, name string, res *Result, err error, budget int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(struct {
		Columns []Column `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}{res.Columns, res.Rows})
	if err != nil {
		t.Fatal(err)
	}
	// {"columns":…,"rows":…} and the rows' closing bracket.
	if over := len(b) - len(`{"columns":,"rows":}`) - 1; over > budget || !res.Truncated || res.TruncatedBy != "byteBudget" || res.RowCount == 0 {
		t.Errorf("%s: columns and %d rows take %d bytes of JSON, budget %d (truncated %v by %q)", name, res.RowCount, over, budget, res.Truncated, res.TruncatedBy)
	}
}

// TestByteBudgetCountsColumns: the result's columns (their names and types) take
// their share of the byte budget before the rows: with wide column names an
// answer stays within the budget (the columns were counted apart, so an answer
// could reach about twice it).
func TestByteBudgetCountsColumns(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{})
	const budget = 32 << 10
	lim := Limits{RowLimit: 1000, ByteBudget: budget, Timeout: testLimits.Timeout}
	for _, e := range []struct {
		name string
		q    querier
	}{{"in process", d}, {"query process", p}} {
		res, err := e.q.Query(context.Background(), budgetSQL(16, 900, "repeat('v', 100)", "range(100)"), nil, lim)
		checkBudget(t, e.name, res, err, budget)
	}
}

// TestDuckLeadingEmptyStatement: a text that starts with an empty statement
// (";SELECT 1") prepares as sent but not under the cap: it is refused, and
// the refusal says what to send instead (the statement without the semicolon
// before it), in the server's process and in a query process.
func TestDuckLeadingEmptyStatement(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{Worker: testWorker})
	for _, e := range []interface {
		Query(context.Context, string, map[string]any, Limits) (*Result, error)
	}{d, p} {
		for _, q := range []string{";SELECT 1", "; ;SELECT count(*) FROM items"} {
			_, err := e.Query(context.Background(), q, nil, testLimits)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "without a semicolon before it") {
				t.Errorf("%q: %T %v", q, err, err)
			}
		}
	}
}
