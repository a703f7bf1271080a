package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// intervalCases are INTERVAL texts near and past the ends of the range, in
// the forms both engines read, and some the check leaves to the engine.
var intervalCases = []string{
	"999999999999 years", "178956971 years", "178956970 years", "178956970 years 7 months",
	"178956970 years 8 months", "-178956970 years -8 months", "-178956970 years -9 months",
	"2147483647 months", "2147483648 months", "-2147483648 months", "-2147483649 months",
	"2147483647 days", "2147483648 days", "306783378 weeks", "306783379 weeks",
	"9223372036854775807 microseconds", "9223372036854775808 microseconds",
	"-9223372036854775807 microseconds", "2562047788 hours", "2562047787 hours",
	"153722867280 minutes", "153722867281 minutes", "9223372036854 seconds", "9223372036855 seconds",
	"178956 millennia", "178957 millennia", "1789569 centuries", "1789570 centuries",
	"17895697 decades", "17895698 decades", "715827882 quarters", "715827883 quarters",
	"2147483647 days 1 day", "1 day", "2 hours 30 minutes", "1 year 2 months 3 days",
	"1 day ago", "-2147483648 days ago", "-2147483648 months ago", "-2147483647 months ago", "9223372036854", "9223372036855",
	"2147483647.5 days", "178956970.6 years", "1.5 years", "2147483647 days 23 hours",
	"@ 3 days", "01:02:03", "1 day 2", "yesterday", "1 fortnight",
}

// TestIntervalRangeAgreesWithDuckDB: an INTERVAL the check refuses as out of
// range DuckDB refuses, and one DuckDB refuses with an error that does not
// quote it (its range) the check refuses.
func TestIntervalRangeAgreesWithDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, v := range intervalCases {
		var got bool
		duckErr := db.QueryRow("SELECT CAST(CAST(? AS VARCHAR) AS INTERVAL) IS NOT NULL", v).Scan(&got)
		checkErr := checkTypedValue(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: "INTERVAL"}, v)
		quoted := duckErr != nil && (strings.Contains(duckErr.Error(), "'"+v+"'") || strings.Contains(duckErr.Error(), "not recognized"))
		switch {
		case checkErr != nil && duckErr == nil:
			t.Errorf("%q: the check says %v; DuckDB reads it", v, checkErr)
		case checkErr == nil && duckErr != nil && !quoted:
			t.Errorf("%q: the check lets it through; DuckDB answers %v", v, firstLine(duckErr))
		}
	}
}

// TestIntervalRangeAgreesWithPostgres: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN), where an error quoting the value (22015, 22007) is
// blamed on the parameter by paramValueError.
func TestIntervalRangeAgreesWithPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, v := range intervalCases {
		var got bool
		pgErr := conn.QueryRow(ctx, "SELECT CAST($1::text AS INTERVAL) IS NOT NULL", v).Scan(&got)
		checkErr := checkTypedValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: "INTERVAL"}, v)
		quoted := pgErr != nil && strings.Contains(pgErr.Error(), `"`+v+`"`)
		switch {
		case checkErr != nil && pgErr == nil:
			t.Errorf("%q: the check says %v; PostgreSQL reads it", v, checkErr)
		case checkErr == nil && pgErr != nil && !quoted:
			t.Errorf("%q: the check lets it through; PostgreSQL answers %v", v, pgErr)
		}
	}
}

// TestIntervalOutOfRange: an INTERVAL past the engine's range is the
// parameter's fault (kind invalid, naming it and the range), also as a list's
// element. (Before: kind sql_error, "the SQL of the named query … fails: …
// out of range for the destination type INT32".) The catalog's own SQL going
// out of range is still the catalog's.
func TestIntervalOutOfRange(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT $v AS v;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT $v AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"p/k/m/iv", `{"v":"999999999999 years"}`, `parameter "v" must be an INTERVAL within its range (months and days each from -2147483648 to 2147483647, microseconds from -9223372036854775808 to 9223372036854775807), got "999999999999 years": 999999999999 years takes its months out of range`},
		{"p/k/m/iv", `{"v":"178956971 years"}`, `got "178956971 years": 178956971 years takes its months out of range`},
		{"p/k/m/iv", `{"v":"2147483648 months"}`, `got "2147483648 months": 2147483648 months takes its months out of range`},
		{"p/k/m/iv", `{"v":"9223372036854775808 microseconds"}`, `got "9223372036854775808 microseconds": the number 9223372036854775808 is past 9223372036854775807`},
		{"p/k/m/ivl", `{"v":["1 day","2147483647 days 1 day"]}`, `parameter "v[1]" must be an INTERVAL within its range`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	if got, te := runNamed(t, svc, "p/k/m/iv", `{"v":"178956970 years 7 months"}`); te != nil || !strings.Contains(got, `"Rows":[[`) {
		t.Errorf("in range: %s %+v", got, te)
	}
}

// TestIntervalOutOfRangePostgres: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN); an interval the catalog's SQL takes out of range is
// still the catalog's fault.
func TestIntervalOutOfRangePostgres(t *testing.T) {
	pgTestDSN(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"p/pg/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT @v AS v;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT @v AS v;\n\n" +
			"-- @query ivm\n-- @param v INTERVAL\nSELECT @v * 1000000000 AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"p/pg/m/iv", `{"v":"999999999999 years"}`, `parameter "v" must be an INTERVAL within its range`},
		{"p/pg/m/iv", `{"v":"178956971 years"}`, `got "178956971 years": it is 2147483652 months`},
		{"p/pg/m/iv", `{"v":"2147483648 months"}`, `got "2147483648 months": it is 2147483648 months`},
		{"p/pg/m/iv", `{"v":"9223372036854775808 microseconds"}`, `it is 9223372036854775808 microseconds`},
		// A form the check leaves to PostgreSQL, whose error quotes it.
		{"p/pg/m/iv", `{"v":"2147483648 mons"}`, `parameter "v" must be an INTERVAL, and the engine could not read "2147483648 mons" as one (interval field value out of range`},
		{"p/pg/m/ivl", `{"v":["1 day","178956971 years"]}`, `parameter "v[1]" must be an INTERVAL within its range`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	if _, te := runNamed(t, svc, "p/pg/m/ivm", `{"v":"100 years"}`); te == nil || te.Kind != "sql_error" || te.SQLState != "22008" {
		t.Errorf("the SQL out of range: %+v", te)
	}
}
