package engine

import (
	"context"
	"strings"
	"testing"
)

// TestDuckPivotWithoutIn: DuckDB expands a PIVOT without an IN list into a
// statement that reads the pivot column's values before the query; the
// refusal says so and how to write it (the values listed), in a SELECT and as
// a statement of its own, and the form it advises runs.
func TestDuckPivotWithoutIn(t *testing.T) {
	d := openTestDuck(t)
	q := func(s string) (*Result, error) { return d.Query(context.Background(), s, nil, testLimits) }
	const src = "(SELECT 'c'||i AS k, 1 AS v FROM range(3) t(i))"
	for _, s := range []string{
		"SELECT * FROM (PIVOT " + src + " ON k USING sum(v))",
		"FROM (PIVOT " + src + " ON k USING sum(v));",
		"PIVOT " + src + " ON k USING sum(v)",
		"pivot " + src + " ON k USING sum(v); -- all",
		"PIVOT_WIDER " + src + " ON k USING sum(v)",
		"WITH p AS (PIVOT " + src + " ON k USING sum(v)) SELECT * FROM p",
		"PIVOT items ON name USING sum(price)",
	} {
		refused(t, q, s, "refused: "+pivotNoInReason)
	}
	for _, s := range []string{
		"SELECT * FROM (PIVOT " + src + " ON k IN ('c0', 'c1', 'c2') USING sum(v))",
		"PIVOT " + src + " ON k IN ('c0', 'c1', 'c2') USING sum(v)",
	} {
		res, err := q(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if len(res.Columns) != 3 || res.Columns[0].Name != "c0" || len(res.Rows) != 1 {
			t.Errorf("%q: columns %v rows %v", s, res.Columns, res.Rows)
		}
	}
	// Other texts that are not one query keep their reasons.
	for s, want := range map[string]string{
		"SELECT 1 AS pivot; DROP VIEW items":                         "more than one statement, and one after the first is not a query",
		"SELECT 'pivot' AS x; CREATE TYPE e AS ENUM ('a')":           "more than one statement, and one after the first is not a query",
		"PIVOT " + src + " ON k IN ('c0') USING sum(v); DROP VIEW x": "not a query",
		"CREATE TABLE t AS PIVOT " + src + " ON k USING sum(v)":      "a CREATE statement",
	} {
		res, err := q(s)
		if err == nil || strings.Contains(err.Error(), "PIVOT without an IN list") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v (%v), want a refusal holding %q", s, err, res, want)
		}
	}
}
