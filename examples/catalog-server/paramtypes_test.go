package main

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// typedCases are values for the checked types, each with whether DuckDB 1.5.6
// reads it as that type (TestTypedParamsAgreeWithDuckDB asks DuckDB itself).
// Strings are cast as text; numbers as the DOUBLE a JSON number is bound as.
var typedCases = []struct {
	typ string
	v   any
	ok  bool
}{
	{"DATE", "2024-07-14", true},
	{"DATE", "2024-2-29", true},
	{"DATE", "infinity", true},
	{"DATE", "-infinity", true},
	{"DATE", "epoch", true},
	{"DATE", "10000-01-01", true},
	{"DATE", "2024-07-14 (BC)", true},
	{"DATE", "0005-02-29 (BC)", true}, // the year 4 BC is a leap year
	{"DATE", "0004-02-29 (BC)", false},
	{"DATE", "2024-07-14 10:00:00", true},
	{"DATE", "2024-07-14T10:00:00", true},
	{"DATE", "2024-07-14 10:00:00+02", true},
	{"DATE", "2025-13-45", false},
	{"DATE", "2023-02-29", false},
	{"DATE", "2024-02-30", false},
	{"DATE", "yesterday", false},
	{"DATE", "today", false},
	{"DATE", "20240714", false},
	{"DATE", "5881581-07-10", false},

	{"TIMESTAMP", "2024-07-14 09:30:00", true},
	{"TIMESTAMP", "2024-07-14T09:30:00.123456", true},
	{"TIMESTAMP", "2024-07-14", true},
	{"TIMESTAMP", "2024-07-14 09:30", true},
	{"TIMESTAMP", "2024-07-14 (BC)", true},
	{"TIMESTAMP", "10000-01-01", true},
	{"TIMESTAMP", "infinity", true},
	{"TIMESTAMP", "epoch", true},
	{"TIMESTAMP", "2024-07-14 24:00:00", true},
	{"TIMESTAMP", "2024-07-14 24:00:00.5", false},
	{"TIMESTAMP", "2024-07-14 25:00", false},
	{"TIMESTAMP", "2024-07-14T09:30:00Z", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+05:30", true},
	{"TIMESTAMP", "2024-07-14 09:30:00+0200", true},
	{"TIMESTAMP", "2024-07-14 09:30:00.5+02", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 UTC", true},
	{"TIMESTAMP", "2024-07-14 09:30:00 +02:00", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 Z", false},
	{"TIMESTAMP", "2024-07-14 09:30Z", false},
	{"TIMESTAMP", "2024-07-14 09:30+02:00", false},
	{"TIMESTAMP", "2024-07-14 09:30 UTC", false},
	{"TIMESTAMP", "2024-07-14T09:30:00 Europe/Paris", false},
	{"TIMESTAMP", "2024-07-14 09:30:00 EST", false},
	{"TIMESTAMP", "2024-07-14 09:30:00+2", false},
	{"TIMESTAMP", "now", false},
	{"TIMESTAMP", "294248-01-10", false},

	{"TIMESTAMPTZ", "2024-07-14T09:30:00Z", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00+02:00", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00-0530", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Europe/Paris", true},
	{"TIMESTAMPTZ", "2024-07-14T09:30:00 Europe/Paris", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 UTC", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 EST", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 America/Argentina/Buenos_Aires", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Etc/GMT+5", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00.5 UTC", true},
	{"TIMESTAMPTZ", "2024-07-14", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30", true},
	{"TIMESTAMPTZ", "infinity", true},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 +02:00", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00 Z", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30Z", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30+02", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 UTC", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30 Europe/Paris", false},
	{"TIMESTAMPTZ", "2024-07-14 09:30:00EST", false},
	{"TIMESTAMPTZ", "2024-07-14 09:61", false},

	{"TIME", "09:30", true},
	{"TIME", "9:30:15.5", true},
	{"TIME", "24:00:00", true},
	{"TIME", "24:00", true},
	{"TIME", "24:00:00.0", true},
	{"TIME", "09:30:00Z", true},
	{"TIME", "09:30:00+02", true},
	{"TIME", "09:30:00 +02:00", true},
	{"TIME", "09:30:00 UTC", true},
	{"TIME", "09:30:00 Z", true},
	{"TIME", "24:00:00.5", false},
	{"TIME", "09:30:60", false},
	{"TIME", "09:30Z", false},
	{"TIME", "09:30+02", false},
	{"TIME", "noon", false},
	{"TIME", "allballs", false},

	{"TIMETZ", "09:30:00+02:00", true},
	{"TIMETZ", "09:30:00+02", true},
	{"TIMETZ", "09:30:00-0530", true},
	{"TIMETZ", "09:30:00 +02:00", true},
	{"TIMETZ", "09:30:00.5 +02:00", true},
	{"TIMETZ", "09:30:00", true},
	{"TIMETZ", "09:30", true},
	{"TIMETZ", "09:30:00+15:59", true},
	{"TIMETZ", "24:00:00+02", true},
	{"TIMETZ", "09:30:00Z", false},
	{"TIMETZ", "09:30:00 Z", false},
	{"TIMETZ", "09:30+02", false},
	{"TIMETZ", "09:30 +02:00", false},
	{"TIMETZ", "09:30:00+16", false},
	{"TIMETZ", "09:30:00+2", false},
	{"TIMETZ", "09:30:00 UTC", false},
	{"TIMETZ", "24:00:00.5", false},

	{"UUID", "123e4567-e89b-12d3-a456-426614174000", true},
	{"UUID", "{123E4567-E89B-12D3-A456-426614174000}", true},
	{"UUID", "123e4567e89b12d3a456426614174000", true},
	{"UUID", "123e-4567-e89b-12d3-a456-4266-1417-4000", true},
	{"UUID", "123e4567-e89b12d3-a456426614174000", true},
	{"UUID", "{123e4567e89b12d3a456426614174000}", true},
	{"UUID", "abc", false},
	{"UUID", "", false},
	{"UUID", "123e4567-e89b-12d3-a456-42661417400", false},
	{"UUID", "123e4567-e89b-12d3-a456-4266141740000", false},
	{"UUID", "{123e4567-e89b-12d3-a456-426614174000", false},
	{"UUID", "123e4567-e89b-12d3-a456-42661417400g", false},

	{"DECIMAL(5,2)", 999.99, true},
	{"DECIMAL(5,2)", -12.5, true},
	{"DECIMAL(5,2)", 12345.5, false},
	{"NUMERIC(4)", 12345.0, false},
	{"NUMERIC(4)", 9999.4, true},
	{"DECIMAL(3,2)", 9.99, true},
	{"DECIMAL(3,2)", 9.994, true},
	{"DECIMAL(3,2)", 9.999, false}, // 10.00
	{"DECIMAL(3,2)", -9.999, false},
	{"DECIMAL(3,2)", 0.005, true},
	{"DECIMAL(3,0)", 999.4, true},
	{"DECIMAL(3,0)", 999.5, false},
	{"DECIMAL(4,2)", 99.995, false}, // a DOUBLE a little above 99.995
}

// TestTypedParamsAgreeWithDuckDB: for every value of typedCases, the check
// before the query (checkTypedValue) says what DuckDB says when it casts the
// value to the type: what the check refuses DuckDB refuses, and what it lets
// through DuckDB reads. The table's verdicts are DuckDB's too.
func TestTypedParamsAgreeWithDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range typedCases {
		cast := "SELECT CAST(CAST(? AS VARCHAR) AS " + tc.typ + ")::VARCHAR"
		if _, num := tc.v.(float64); num {
			cast = "SELECT CAST(? AS " + tc.typ + ")::VARCHAR"
		}
		var got string
		duckErr := db.QueryRow(cast, tc.v).Scan(&got)
		if (duckErr == nil) != tc.ok {
			t.Errorf("%s %#v: DuckDB answers %q, %v; the table says it reads it: %v", tc.typ, tc.v, got, duckErr, tc.ok)
		}
		checkErr := checkTypedValue(catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if (checkErr == nil) != (duckErr == nil) {
			t.Errorf("%s %#v: the check says %v; DuckDB answers %q, %v", tc.typ, tc.v, checkErr, got, firstLine(duckErr))
		}
	}
}

// TestTypedParamTypeNames: PostgreSQL's long names of the time types, and a
// precision, are checked as the type they spell.
func TestTypedParamTypeNames(t *testing.T) {
	for _, tc := range []struct {
		typ, v string
		ok     bool
	}{
		{"timestamp with time zone", "2024-07-14 09:30:00 Europe/Paris", true},
		{"timestamp with time zone", "2024-07-14 09:30:00 +02:00", false},
		{"TIMESTAMP WITHOUT TIME ZONE", "2024-07-14 09:30:00 Europe/Paris", false},
		{"timestamp without time zone", "2024-07-14 09:30:00", true},
		{"timestamp(3) with time zone", "yesterday", false},
		{"time with time zone", "09:30:00 +02:00", true},
		{"time with time zone", "09:30:00Z", false},
		{"time without time zone", "noon", false},
		{"timestamptz(6)", "2024-07-14 09:30Z", false},
	} {
		err := checkTypedValue(catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if (err == nil) != tc.ok {
			t.Errorf("%s %q: %v, want accepted: %v", tc.typ, tc.v, err, tc.ok)
		}
	}
}

func firstLine(err error) string {
	if err == nil {
		return "<nil>"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// TestTimestampZoneAdvice: DuckDB's advice for a TIMESTAMP with a time zone
// ("use TIMESTAMPTZ with the ICU extension loaded") is replaced by what to
// write instead, which works: a caller cannot load extensions. A TIMESTAMPTZ
// parameter with a zone by name is read in that zone.
func TestTimestampZoneAdvice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS x;\n\n-- @query at\n-- @param ts TIMESTAMPTZ\nSELECT CAST($ts AS TIMESTAMPTZ) = TIMESTAMPTZ '2024-07-14 07:30:00Z' AS same;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT CAST('2024-07-14 09:30:00 Europe/Paris' AS TIMESTAMP) AS t"}, &te)
	if !r.IsError || strings.Contains(text(r), "ICU") || strings.Contains(text(r), "extension") || !strings.Contains(te.Error, "A TIMESTAMP takes no time zone but UTC") {
		t.Errorf("a TIMESTAMP with a zone: %s", text(r))
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT CAST('2024-07-14 09:30:00 Europe/Paris' AS TIMESTAMPTZ) = TIMESTAMPTZ '2024-07-14 07:30:00Z' AS same"}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != true {
		t.Errorf("the advice's TIMESTAMPTZ: %s", text(r))
	}
	res.Rows = nil
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/at", "parameters": map[string]any{"ts": "2024-07-14 09:30:00 Europe/Paris"}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != true {
		t.Errorf("a TIMESTAMPTZ parameter with a zone: %s", text(r))
	}
}
