package main

import (
	"strings"
	"testing"
)

// decimalCommaWant is the refusal of an INTERVAL written with a decimal comma.
const decimalCommaWant = `a comma between digits is neither a decimal point nor a thousands separator here: write "1.5 hours" for one and a half, "10000 seconds" for ten thousand; call again with an INTERVAL`

// TestIntervalDecimalCommaDuckDB: an INTERVAL with a decimal comma, which
// DuckDB does not read, is refused as the caller's, saying so. (Before: "the
// engine could not read … as one", no word of the comma.)
func TestIntervalDecimalCommaDuckDB(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT CAST($v AS VARCHAR) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"iv", `{"v":"2147483648,5 hours"}`, `parameter "v" must be an INTERVAL, and "2147483648,5 hours" is not an interval DuckDB reads: ` + decimalCommaWant},
		{"iv", `{"v":"1,5 hours"}`, `and "1,5 hours" is not an interval DuckDB reads`},
		// A thousands separator: told the same, not led to "10.000 seconds".
		{"iv", `{"v":"10,000 seconds"}`, `and "10,000 seconds" is not an interval DuckDB reads`},
		{"ivl", `{"v":["1 day","1,5 hours"]}`, `and "1,5 hours" is not an interval DuckDB reads`},
	} {
		_, te := runNamed(t, svc, "p/k/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) || !strings.Contains(te.Error, decimalCommaWant) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	// A comma that is no decimal comma: the engine's refusal as before.
	if _, te := runNamed(t, svc, "p/k/m/iv", `{"v":"1 day, 2 hours"}`); te == nil || te.Kind != "invalid" || strings.Contains(te.Error, "decimal") {
		t.Errorf("1 day, 2 hours: %+v", te)
	}
}

// TestIntervalDecimalCommaPostgres: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN), which reads a comma as a space between fields ("1,5
// hours" as 1 day 5 hours): refused before the query. (Before: "2147483648,5 hours" was refused by the range check
// as "2147483648 5 takes its days out of range".)
func TestIntervalDecimalCommaPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
		"-- @query iv\n-- @param v INTERVAL\nSELECT @v::text AS v;\n\n"+
		"-- @query ivl\n-- @param v INTERVAL[]\nSELECT @v::text AS v;\n")
	for _, tc := range []struct{ path, params, want string }{
		{"iv", `{"v":"2147483648,5 hours"}`, `parameter "v" must be an INTERVAL, and "2147483648,5 hours" is refused: PostgreSQL would read its comma as a space between fields ("1,5 hours" as 1 day 5 hours): ` + decimalCommaWant},
		{"iv", `{"v":"2147483647,5 days"}`, `and "2147483647,5 days" is refused: PostgreSQL would read its comma`},
		{"iv", `{"v":"1,5"}`, `and "1,5" is refused: PostgreSQL would read its comma`},
		{"iv", `{"v":"1,5 hours"}`, `and "1,5 hours" is refused: PostgreSQL would read its comma`},
		{"iv", `{"v":"10,000 seconds"}`, `and "10,000 seconds" is refused: PostgreSQL would read its comma`},
		{"ivl", `{"v":["1 day","2147483648,5 hours"]}`, `parameter "v[1]" must be an INTERVAL, and "2147483648,5 hours" is refused`},
	} {
		_, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) || !strings.Contains(te.Error, decimalCommaWant) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	// A comma that is not between digits is PostgreSQL's separator, kept.
	if got, te := runNamed(t, svc, "p/pg/m/iv", `{"v":"1 day, 5 hours"}`); te != nil || !strings.Contains(got, "1 day 05:00:00") {
		t.Errorf("1 day, 5 hours: %s %+v", got, te)
	}
}
