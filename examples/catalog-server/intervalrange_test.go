package main

import (
	"context"
	"database/sql"
	"fmt"
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
	// Fractions on the last microsecond (DuckDB keeps six digits of them).
	"9223372036854775.8075 ms", "9223372036854775.8079 ms", "9223372036854775.808 ms",
	"-9223372036854775.8089 ms", "-9223372036854775.809 ms", "9223372036854.7758079 s", "9223372036854.775808 s",
	"-9223372036854.775808 s", "-9223372036854.775809 s", "153722867280.9125999 minutes", "153722867280.912601 minutes",
	"2562047788.0152125 hours", "2562047788.0152126 hours", "9223372036854775807.4 us", "-9223372036854775808.4 us",
	"9223372036854775807 us 0.51 months", "9223372036854775807 us 0.0000009 days", "9223372036854775807 us 0.000001 days",
	"9223372036854775807 us 0.000001 weeks", "9223372036854775807 us 1.0000001 weeks",
	// Parts that overflow only together.
	"2147483647 days 0.2 weeks", "2147483647 days 0.1 weeks", "2147483647 months 0.9 months", "2147483646 days 0.99 months",
	"178956970 years 0.6 years", "178956970 years 0.7 years", "178956970 years 0.34 quarters", "178956970 years 0.25 quarters",
	"2147483647 months 0.9 years", "2147483647 days 0.99 quarters", "2562047788 hours -1 minute 0.9 minutes", "9223372036854775807 us 1 ms",
	// A sign apart from its number: PostgreSQL joins them, DuckDB refuses it.
	"- 2147483648 days", "-\t2147483648 days", "-,2 days", "+ ;2 days", "- 2147483649 days", "- 306783379.5 h 9223372036854.25 sec", "- 178956971 years",
	"+ 2147483648 days", "- 5days", "- 1-2", "- 01:00", "- .5 days", "-.5 days", "- abc", "1 day -", "- 2147483648 days ago",
	// A time of day, punctuation as separators.
	"178956970 years 8 months 02:00:00", "178956970 years 7 months 02:00:00", "178956971 years,", "178956971,years", "178956971 years 01:00",
	"1 day 2147483648 days 01:00", "2147483647 days 1 day 01:00", "1;day", "1_day", "1 @ day", "1 hour 01:00", "-01:00:30 1 day",
	"9223372036854775807 us 01:00", "2562047788:00:54.775808", "1 day 02:00:00 ago", "178956971 years 1:2:3:4",
	// DuckDB's other names of units.
	"1 msecond", "9223372036854775.808 mseconds", "9223372036854775807 useconds 1 us", "9223372036854775807 useconds",
	"9223372036854775807 usecond 1 us", "2147483647 dayofmonth", "2147483648 dayofmonth", "306783378 weekofyear", "306783379 weekofyear",
	"1.5 weekofyear", "1.5 dayofmonth", "2 dow", "1 doy", "3 epoch", "1 isoyear", "1 nanosecond",
	// "ago" after a number alone; a number alone before more.
	"5 ago", "9223372036855 1 day", "9223372036855.25 0 sec", "9223372036854 1 day", "-9223372036855 1 day", "9223372036854.25 0 sec",
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
		quoted := duckErr != nil && (strings.Contains(duckErr.Error(), "'"+v+"'") || strings.Contains(duckErr.Error(), "not recognized") || strings.Contains(duckErr.Error(), "not supported for interval"))
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
		// The part that goes out of range, or the parts that do together.
		// (Before: "0.2 weeks takes its days out of range".)
		{"p/k/m/iv", `{"v":"2147483647 days 0.2 weeks"}`, `got "2147483647 days 0.2 weeks": its days add up past their range: 2147483647 days plus 0.2 weeks`},
		{"p/k/m/iv", `{"v":"1 day 2147483646 days 0.99 months"}`, `its days add up past their range: 1 day plus 2147483646 days plus 0.99 months`},
		{"p/k/m/iv", `{"v":"178956970 years 0.7 years"}`, `its months add up past their range: 178956970 years plus 0.7 years`},
		{"p/k/m/iv", `{"v":"1 day 178956970.7 years"}`, `got "1 day 178956970.7 years": 178956970.7 years takes its months out of range`},
		{"p/k/m/iv", `{"v":"9223372036854775807 us 1 ms"}`, `its microseconds add up past their range: 9223372036854775807 us plus 1 ms`},
		// On the last microsecond, exactly. (Before: "9223372036854775.8075
		// ms", which DuckDB reads, was refused.)
		{"p/k/m/iv", `{"v":"9223372036854775.808 ms"}`, `got "9223372036854775.808 ms": 9223372036854775.808 ms takes its microseconds out of range`},
		// DuckDB rounds this one past the range to a negative value.
		{"p/k/m/iv", `{"v":"9223372036854775807.5 us"}`, `9223372036854775807.5 us takes its microseconds out of range`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	for _, v := range []string{"178956970 years 7 months", "9223372036854775.8079 ms", "-9223372036854775.8089 ms", "9223372036854.7758079 s", "9223372036854775807.4 us"} {
		if got, te := runNamed(t, svc, "p/k/m/iv", `{"v":`+jsonText(v)+`}`); te != nil || !strings.Contains(got, `"Rows":[[`) {
			t.Errorf("in range: %q: %s %+v", v, got, te)
		}
	}
}

// TestIntervalOutOfRangePostgres: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN); an interval the catalog's SQL takes out of range is
// still the catalog's fault.
func TestIntervalOutOfRangePostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
		"-- @query iv\n-- @param v INTERVAL\nSELECT @v AS v;\n\n"+
		"-- @query ivl\n-- @param v INTERVAL[]\nSELECT @v AS v;\n\n"+
		"-- @query ivm\n-- @param v INTERVAL\nSELECT @v * 1000000000 AS v;\n")
	for _, tc := range []struct{ path, params, want string }{
		{"p/pg/m/iv", `{"v":"999999999999 years"}`, `parameter "v" must be an INTERVAL within its range`},
		{"p/pg/m/iv", `{"v":"178956971 years"}`, `got "178956971 years": it is 2147483652 months`},
		{"p/pg/m/iv", `{"v":"2147483648 months"}`, `got "2147483648 months": 2147483648 months takes its months out of range`},
		{"p/pg/m/iv", `{"v":"9223372036854775808 microseconds"}`, `the number 9223372036854775808 is past 9223372036854775807`},
		{"p/pg/m/iv", `{"v":"2147483648 mons"}`, `got "2147483648 mons": 2147483648 mons takes its months out of range; call again with one in range, written as`},
		// A form the check leaves to PostgreSQL, whose error quotes it.
		{"p/pg/m/iv", `{"v":"1 fortnight"}`, `parameter "v" must be an INTERVAL, and the engine could not read "1 fortnight" as one (invalid input syntax for type interval`},
		{"p/pg/m/ivl", `{"v":["1 day","178956971 years"]}`, `parameter "v[1]" must be an INTERVAL within its range`},
		// The part that goes out of range, or the parts that do together.
		// (Before: "2147483647 days takes its days out of range".)
		{"p/pg/m/iv", `{"v":"2147483647 days 1 week"}`, `got "2147483647 days 1 week": its days add up past their range: 2147483647 days plus 1 week`},
		{"p/pg/m/iv", `{"v":"1 day 2147483647 days 0.5 weeks"}`, `its days add up past their range: 2147483647 days plus 0.5 weeks`}, // read from the end, as PostgreSQL does
		{"p/pg/m/iv", `{"v":"1 day 2147483648 days"}`, `got "1 day 2147483648 days": 2147483648 days takes its days out of range`},
		{"p/pg/m/iv", `{"v":"P1W2147483647DT1H"}`, `its days add up past their range: 1W plus 2147483647D`},
		// ISO 8601's alternative format. (Before: left to PostgreSQL, whose
		// "interval out of range" quotes nothing: kind sql_error.)
		{"p/pg/m/iv", `{"v":"P178956970-08"}`, `got "P178956970-08": it is 2147483648 months`},
		{"p/pg/m/iv", `{"v":"P0-0-2147483648"}`, `got "P0-0-2147483648": 2147483648 (its days) takes its days out of range`},
		{"p/pg/m/iv", `{"v":"PT2562047788:00:54.775808"}`, `its microseconds add up past their range: 2562047788 (its hours) plus 54.775808 (its seconds)`},
		{"p/pg/m/iv", `{"v":"9223372036854775807 us 1 ms"}`, `its microseconds add up past their range: 9223372036854775807 us plus 1 ms`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	// The last microsecond and month, taken as PostgreSQL takes them.
	for _, v := range []string{"9223372036854775.8075 ms", "-9223372036854.775808 s", "PT2562047788:00:54.775807", "P178956970-07"} {
		if got, te := runNamed(t, svc, "p/pg/m/iv", `{"v":`+jsonText(v)+`}`); te != nil || !strings.Contains(got, `"Rows":[[`) {
			t.Errorf("in range: %q: %s %+v", v, got, te)
		}
	}
	if _, te := runNamed(t, svc, "p/pg/m/iv", `{"v":"9223372036854775.808 ms"}`); te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `got "9223372036854775.808 ms": 9223372036854775.808 ms takes its microseconds out of range`) {
		t.Errorf("past the last microsecond: %+v", te)
	}
	if _, te := runNamed(t, svc, "p/pg/m/ivm", `{"v":"100 years"}`); te == nil || te.Kind != "sql_error" || te.SQLState != "22008" {
		t.Errorf("the SQL out of range: %+v", te)
	}
}

// fractionCases are INTERVAL texts with fractions, in the forms the engines
// read or refuse, near and past the ends of the range.
var fractionCases = []string{
	"1.5 days", "0.5 months", "P0.5Y", "1 day 2.5 hours", "1.5", "@ 1.5 years ago", "0.5 years",
	"0.04 years", "1.5 weeks", "P1.5D", "PT1.5H", "P1Y2.5M", "P1.5W", "P1.5Y1.5M1.5W1.5DT1.5H1.5M1.5S",
	"P-1.5Y", "P.5Y", "1.5days", "-1.5 days", "+1.5 days", ".5 days", "5. days", "1 day -2.5 hours",
	"1.5 day 02:00", "1.5 quarters", "1.5 decades", "0.1 millennium", "1789569.5 centuries",
	"178956970.6 years", "178956970.7 years", "-178956970.7 years", "P178956970.7Y", "17895697.5 decades",
	"178956971years", "178956970 years 1-0", "P1.8e8Y", "P1e8Y",
	"2147483647.5 days", "2147483647.9 months", "2147483647 days 0.5 months", "2147483647 days 1.5 weeks",
	"306783378.5 weeks", "P2147483647.5M", "2562047787.9 hours", "2562047788.5 hours",
	"153722867280.5 minutes", "9223372036854.775807 seconds", "9223372036854.775808 seconds", "9223372036854.9",
	"1.5 hours 2 hours", "1.5e3 days", "1.5 abc", "2.5 1 day", "1.5 days 1.5 days", "P1Y 2M",
	// ISO 8601's alternative format, extended and basic, and near it.
	"P0001-02-03T04:05:06", "P0001-02-03", "PT04:05:06", "P0001-02", "PT04:05", "P0001", "P1", "PT1", "P1T2H",
	"P0001-02-03T04:05:06.5", "P-0001-02-03", "P0001--02", "P0001-02-03x", "P0001-02T", "P0001-02-03T", "P00010203T040506",
	"P00010203", "PT040506", "PT040506.5", "P00010203.5", "P1.5-02", "P0001-1.5-2.5T1.5:2.5:3.5", "PT1:2:3:4", "PT1:2x",
	"P1Y0001-02", "P1YT04:05", "PT1H04:05", "P0001-02-03T1H", "P0001-02-03T04:05:06T1H", "P0001-02-03-04", "P1-2-3T",
	"P178956970-07", "P178956970-08", "P-178956970-08", "P-178956970--09", "P0-2147483647", "P0-2147483648",
	"P0-0-2147483647", "P0-0-2147483648", "P0-0-2147483647T24:00:00", "PT2562047788:00:54.775807", "PT2562047788:00:54.775808",
	"PT2562047788:0:54.7758075", "PT-2562047788:00:54.775808", "PT-2562047788:00:54.775809", "P17895697000000T", "P1e15-0", "P1e16-0",
	"P178956970-07-2147483647T2562047788:00:54.775807", "P1W0001-02",
}

// TestIntervalFractionsPostgres: each form against PostgreSQL
// (CATALOG_TEST_PG_DSN): one PostgreSQL reads is bound as it reads it; one it
// refuses is the caller's (kind invalid), naming the parameter and the forms
// it reads. (Before: "178956970.7 years", "P1.8e8Y", "17895697.5 decades"
// were kind sql_error, "the SQL of the named query … fails: interval out of
// range".)
func TestIntervalFractionsPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"p/pg/m.sql":         "-- @source src\nSELECT 1 AS x;\n\n-- @query iv\n-- @param v INTERVAL\nSELECT @v::text AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, v := range fractionCases {
		var want string
		pgErr := conn.QueryRow(ctx, "SELECT CAST($1::text AS INTERVAL)::text", v).Scan(&want)
		got, te := runNamed(t, svc, "p/pg/m/iv", `{"v":`+jsonText(v)+`}`)
		switch {
		case pgErr == nil && (te != nil || !strings.Contains(got, `[["`+want+`"]]`)):
			t.Errorf("%q: PostgreSQL reads %q; the query answers %s %+v", v, want, got, te)
		case pgErr != nil && (te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "v" must be an INTERVAL`) || !strings.Contains(te.Error, `ISO 8601 ("P1DT2H", "P0.5Y")`)):
			t.Errorf("%q: PostgreSQL refuses it (%v); the query answers %s %+v", v, pgErr, got, te)
		}
	}
}

// TestIntervalFractionsDuckDB: the same forms on DuckDB, which reads no ISO
// 8601: one it reads is bound as it reads it, one it refuses is the
// caller's, naming the forms it reads.
func TestIntervalFractionsDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source src\nSELECT 1 AS x;\n\n-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, v := range fractionCases {
		var want string
		duckErr := db.QueryRow("SELECT CAST(CAST(CAST(? AS VARCHAR) AS INTERVAL) AS VARCHAR)", v).Scan(&want)
		got, te := runNamed(t, svc, "p/k/m/iv", `{"v":`+jsonText(v)+`}`)
		switch {
		case duckErr == nil && (te != nil || !strings.Contains(got, `[["`+want+`"]]`)):
			t.Errorf("%q: DuckDB reads %q; the query answers %s %+v", v, want, got, te)
		case duckErr != nil && (te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "v" must be an INTERVAL`) || !strings.Contains(te.Error, `"ago" at the end to negate`) || strings.Contains(te.Error, "ISO 8601")):
			t.Errorf("%q: DuckDB refuses it (%v); the query answers %s %+v", v, firstLine(duckErr), got, te)
		}
	}
}

// TestIntervalTypesAlike: INTERVAL, INTERVAL(3) and lists of them are read
// alike (isIntervalType): each value, or each element, is checked as one
// INTERVAL, and a number is told it is written as seconds. (Before: an
// INTERVAL(3) or INTERVAL(3)[] element given 3600 was not told "3600
// seconds".)
func TestIntervalTypesAlike(t *testing.T) {
	for _, tc := range []struct {
		typ      string
		interval bool
		list     bool
	}{
		{"INTERVAL", true, false}, {"interval", true, false}, {"INTERVAL(3)", true, false}, {"interval (3)", true, false},
		{"INTERVAL[]", true, true}, {"INTERVAL(3)[][]", true, true}, {"INTERVAL[3]", true, true},
		{"INTEGER", false, false}, {"INTERVALS", false, false}, {"INTEGER[]", false, false}, {"INTERVAL(3", false, false},
	} {
		if iv, list := isIntervalType(tc.typ); iv != tc.interval || list != tc.list {
			t.Errorf("isIntervalType(%q) = %v, %v; want %v, %v", tc.typ, iv, list, tc.interval, tc.list)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query iv3\n-- @param v INTERVAL(3)\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query ivl3\n-- @param v INTERVAL(3)[]\nSELECT CAST($v AS VARCHAR) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"iv", `{"v":3600}`, `parameter "v" must be a JSON string (INTERVAL, in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"iv3", `{"v":3600}`, `parameter "v" must be a JSON string (INTERVAL(3), in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"ivl", `{"v":["1 day",3600]}`, `parameter "v[1]" must be a JSON string (INTERVAL, in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"ivl3", `{"v":["1 day",3600]}`, `parameter "v[1]" must be a JSON string (INTERVAL(3), in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"iv3", `{"v":"178956971 years"}`, `parameter "v" must be an INTERVAL(3) within its range`},
		{"ivl", `{"v":["1 day","2147483647 days 1 day"]}`, `parameter "v[1]" must be an INTERVAL within its range`},
		{"ivl3", `{"v":["1 day","2147483647 days 1 day"]}`, `parameter "v[1]" must be an INTERVAL(3) within its range`},
		// The engine's error quoting one element blames the list.
		{"ivl", `{"v":["1 day","1 fortnight"]}`, `parameter "v" must be an INTERVAL[], and the engine could not read ["1 day","1 fortnight"] as one`},
		{"ivl3", `{"v":["1 day","1 fortnight"]}`, `parameter "v" must be an INTERVAL(3)[], and the engine could not read`},
	} {
		_, te := runNamed(t, svc, "p/k/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	for _, path := range []string{"iv", "iv3"} {
		if got, te := runNamed(t, svc, "p/k/m/"+path, `{"v":"1 day 2 hours"}`); te != nil || !strings.Contains(got, `[["1 day 02:00:00"]]`) {
			t.Errorf("%s: %s %+v", path, got, te)
		}
	}
	for _, path := range []string{"ivl", "ivl3"} {
		if got, te := runNamed(t, svc, "p/k/m/"+path, `{"v":["1 day","2 hours"]}`); te != nil || !strings.Contains(got, `[["[1 day, '02:00:00']"]]`) {
			t.Errorf("%s: %s %+v", path, got, te)
		}
	}
}

// TestIntervalReviewDuckDB: forms a review found blamed on the catalog
// (kind sql_error) that are the caller's (kind invalid), on DuckDB.
func TestIntervalReviewDuckDB(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT CAST($v AS VARCHAR) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		// DuckDB's units the check did not know. (Before: sql_error "Out of
		// Range Error" or "Type INT64 … can't be cast … INT32".)
		{"iv", `{"v":"9223372036854775807 useconds 1 us"}`, `its microseconds add up past their range: 9223372036854775807 useconds plus 1 us`},
		{"iv", `{"v":"2147483648 dayofmonth"}`, `got "2147483648 dayofmonth": 2147483648 dayofmonth takes its days out of range`},
		{"iv", `{"v":"306783379 weekofyear"}`, `306783379 weekofyear takes its days out of range`},
		{"iv", `{"v":"9223372036854775.808 mseconds"}`, `9223372036854775.808 mseconds takes its microseconds out of range`},
		// A unit DuckDB knows but not for an interval. (Before: sql_error
		// `extract specifier "dow" not supported for interval`.)
		{"iv", `{"v":"2 dow"}`, `parameter "v" must be an INTERVAL, and the engine could not read "2 dow" as one (Conversion Error: extract specifier "dow" not supported for interval)`},
		{"iv", `{"v":"3 epoch"}`, `could not read "3 epoch" as one`},
		{"ivl", `{"v":["1 day","1 doy"]}`, `parameter "v" must be an INTERVAL[], and the engine could not read ["1 day","1 doy"] as one`},
		// A number alone before more: DuckDB adds it as seconds first.
		// (Before: sql_error "interval value is out of range".)
		{"iv", `{"v":"9223372036855 1 day"}`, `got "9223372036855 1 day": 9223372036855 takes its microseconds out of range`},
		{"iv", `{"v":"9223372036855.25 0 sec"}`, `9223372036855.25 takes its microseconds out of range`},
		// A value with a line break, quoted across lines.
		{"iv", `{"v":"1 day\nxyz"}`, `parameter "v" must be an INTERVAL, and the engine could not read "1 day\nxyz" as one (Conversion Error: Could not convert string '1 day` + "\n" + `xyz' to INTERVAL)`},
	} {
		_, te := runNamed(t, svc, "p/k/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	// Values DuckDB wraps around without an error are refused: a wrapped
	// interval is wrong data.
	for _, v := range []string{"9223372036854775807.5 us", "9223372036854775807.99 microseconds 7 USEC 0.0000005d"} {
		if _, te := runNamed(t, svc, "p/k/m/iv", `{"v":`+jsonText(v)+`}`); te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `must be an INTERVAL within its range`) {
			t.Errorf("wrapped by DuckDB: %q: %+v", v, te)
		}
	}
	for _, v := range []string{"1 msecond", "5 useconds", "2 dayofmonth", "1 weekofyear", "9223372036854 1 day"} {
		_, te := runNamed(t, svc, "p/k/m/iv", `{"v":`+jsonText(v)+`}`)
		if v == "9223372036854 1 day" {
			if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `could not read "9223372036854 1 day" as one`) {
				t.Errorf("%q: %+v", v, te)
			}
		} else if te != nil {
			t.Errorf("%q: %+v", v, te)
		}
	}
}

// TestIntervalReviewPostgres: the same on PostgreSQL (CATALOG_TEST_PG_DSN).
func TestIntervalReviewPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
		"-- @query iv\n-- @param v INTERVAL\nSELECT @v::text AS v;\n\n"+
		"-- @query ivl\n-- @param v INTERVAL[]\nSELECT @v::text AS v;\n\n"+
		"-- @query d\n-- @param v DATE\nSELECT @v::text AS v;\n")
	for _, tc := range []struct{ path, params, want string }{
		// A sign apart from its number is joined to it. (Before: read as no
		// sign: refused, or let through to "interval out of range", sql_error.)
		{"iv", `{"v":"- 178956971 years"}`, `got "- 178956971 years": it is -2147483652 months`},
		// Only white space joins a sign to its number: PostgreSQL refuses a
		// sign before punctuation, quoting the value. (Before: joined, and
		// refused as "-2147483649 days takes its days out of range".)
		{"iv", `{"v":"-,2147483649 days"}`, `could not read "-,2147483649 days" as one`},
		{"iv", `{"v":"- 2147483649 days"}`, `-2147483649 days takes its days out of range`},
		// A time of day, and punctuation as separators. (Before: sql_error
		// "interval out of range".)
		{"iv", `{"v":"178956970 years 8 months 02:00:00"}`, `got "178956970 years 8 months 02:00:00": it is 2147483648 months`},
		{"iv", `{"v":"178956971 years,"}`, `it is 2147483652 months`},
		{"iv", `{"v":"178956971,years"}`, `it is 2147483652 months`},
		{"ivl", `{"v":["1 day","178956971 years 01:00"]}`, `parameter "v[1]" must be an INTERVAL within its range`},
		// A number with no unit before "ago". (Before: "5 ago takes its
		// microseconds out of range".)
		{"iv", `{"v":"5 ago"}`, `parameter "v" must be an INTERVAL, and the engine could not read "5 ago" as one (invalid input syntax for type interval: "5 ago"); call again with an INTERVAL written as a number and a unit each`},
		// A value with a line break, quoted across lines. (Before: sql_error.)
		{"iv", `{"v":"1 day\nxyz"}`, `parameter "v" must be an INTERVAL, and the engine could not read "1 day\nxyz" as one (invalid input syntax for type interval: "1 day` + "\n" + `xyz")`},
		{"iv", `{"v":"1 fortnight\n"}`, `could not read "1 fortnight\n" as one`},
		{"d", `{"v":"2025-01-01\nx"}`, `parameter "v" must be a DATE, and the engine could not read "2025-01-01\nx" as one`},
	} {
		_, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	for _, tc := range []struct{ path, params, want string }{
		{"iv", `{"v":"- 2147483648 days"}`, `-2147483648 days`},
		{"iv", `{"v":"- 306783379.5 h 9223372036854.25 sec"}`, `2255264408:30:54.25`},
		{"iv", `{"v":"-\t2147483648 days"}`, `-2147483648 days`},
		{"ivl", `{"v":["1 day","- 2147483648 days"]}`, `-2147483648 days`},
		{"iv", `{"v":"1 day, 2 hours"}`, `1 day 02:00:00`},
	} {
		if got, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params); te != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %s %+v, want %q", tc.path, tc.params, got, te, tc.want)
		}
	}
}

// TestIntervalPrecisionPostgres: PostgreSQL 15 rounds an INTERVAL(p)'s
// microseconds to p digits after the second without checking the range, so
// "9223372036854775807 us" as INTERVAL(3) is -2562047788:00:54.775; the
// check refuses exactly the values PostgreSQL would wrap around
// (CATALOG_TEST_PG_DSN). (Before: taken, and bound as a negative interval.)
func TestIntervalPrecisionPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	values := []string{
		"9223372036854775807 us", "9223372036854775499 us", "9223372036854775307 us", "9223372036854775308 us",
		"-9223372036854775307 us", "-9223372036854775308 us", "-9223372036854775808 us", "9223372036854775802 us",
		"9223372036854775803 us", "-9223372036854775803 us", "PT2562047788:00:54.775807", "PT2562047788:00:54.775307",
		"9223372036854775807 us ago", "9223372036854775.307 ms", "9223372036854775.308 ms", "2562047788 hours", "1 day 2 hours",
		"9223372036854.775 s", "9223372036854.7753 s", "- 9223372036854775308 us",
	}
	for _, p := range []int{0, 3, 5, 6} {
		typ := fmt.Sprintf("INTERVAL(%d)", p)
		for _, v := range values {
			var wrapped bool
			err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT (a > '0' AND b < '0') OR (a < '0' AND b > '0') FROM (SELECT CAST($1::text AS interval) a, CAST($1::text AS interval(%d)) b) x`, p), v).Scan(&wrapped)
			if err != nil {
				t.Fatalf("%q: %v", v, err)
			}
			checkErr := checkTypedValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: typ}, v)
			if (checkErr != nil) != wrapped {
				t.Errorf("%s %q: PostgreSQL wraps it around: %v; the check says %v", typ, v, wrapped, checkErr)
			}
		}
	}
	if err := checkTypedValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: "INTERVAL(3)"}, "9223372036854775807 us"); err == nil || !strings.Contains(err.Error(), `parameter "v" must be an INTERVAL(3) within its range (`) || !strings.Contains(err.Error(), `got "9223372036854775807 us": its 9223372036854775807 microseconds, rounded to 3 digits after the second, go past their range`) {
		t.Errorf("INTERVAL(3): %v", err)
	}
}

// TestIntervalPrecisionTimeOfDayPostgres: a value with a time of day is
// checked for PostgreSQL's rounding to an INTERVAL(p)'s digits as the other
// forms are: refused exactly when PostgreSQL would wrap it around, taken
// otherwise (CATALOG_TEST_PG_DSN). (Before: a time of day was not checked, so
// "2562047788:00:54.775807" was bound as INTERVAL(3) -2562047788:00:54.775.)
func TestIntervalPrecisionTimeOfDayPostgres(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	values := []string{
		"1 day 23:59:59.9999999", "23:59:59.9999995", "23:59:59.4999995", "106751991 days 04:00:54.775807",
		"2562047788:00:54.775807", "2562047788:00:54.7755", "2562047788:00:54.775499", "2562047788:00:54.775307",
		"2562047788:00:54.775308", "2562047788:00:54.7753", "2562047788:00:54.775", "2562047788:00:54.3",
		"2562047788:00:54.2", "2562047788:00:54", "2562047788:00:54.5", "2562047788:00:54.775807 ago",
		"-2562047788:00:54.775807", "-2562047788:00:54.775501", "-2562047788:00:54.7753", "- 2562047788:00:54.775308",
		"1 day 2562047788:00:54.7755", "2562047788:00:54.775807 1.5 days", "1.5 days 2562047788:00:54.775807",
		"2562047788:00:54.775807 -1.5 days", "02:00:00 1.5 days", "1.5 days 02:00:00", "2562047788:00:54.775807 0.5 months",
		"153722867280:54.775807", "153722867280:54.775499", "153722867280:54.7", "2562047788:00", "2562047788:01",
		"2562047787:59:59.9999995", "1 year 2 mons 3 days 04:05:06.789", "-1 day +2562047788:00:54.7755",
		"2562047788:00:54.775807 ago 1 day", "02:00:00.", "00:00:00.0000005", "00:00:00.0000015", "1:60", "1:02:61",
	}
	for _, p := range []int{0, 1, 2, 3, 5, 6} {
		typ := fmt.Sprintf("INTERVAL(%d)", p)
		for _, v := range values {
			var wrapped bool
			pgErr := conn.QueryRow(ctx, fmt.Sprintf(`SELECT abs(extract(epoch from a) - extract(epoch from b)) > 1 FROM (SELECT CAST($1::text AS interval) a, CAST($1::text AS interval(%d)) b) x`, p), v).Scan(&wrapped)
			checkErr := checkTypedValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: typ}, v)
			quoted := pgErr != nil && strings.Contains(pgErr.Error(), `"`+v+`"`)
			switch {
			case pgErr != nil && !quoted && checkErr == nil:
				t.Errorf("%s %q: the check lets it through; PostgreSQL answers %v", typ, v, pgErr)
			case pgErr == nil && (checkErr != nil) != wrapped:
				t.Errorf("%s %q: PostgreSQL wraps it around: %v; the check says %v", typ, v, wrapped, checkErr)
			}
		}
	}
	for v, want := range map[string]string{
		"2562047788:00:54.775807":          `got "2562047788:00:54.775807": its 9223372036854775807 microseconds, rounded to 3 digits after the second, go past their range`,
		"1.5 days 2562047788:00:54.775807": `its microseconds add up past their range: 1.5 days plus 2562047788:00:54.775807`,
	} {
		if err := checkTypedValue(catalog.EnginePostgres, catalog.Param{Name: "v", Type: "INTERVAL(3)"}, v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", v, err, want)
		}
	}
}
