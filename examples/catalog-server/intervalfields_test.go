package main

import (
	"context"
	"strings"
	"testing"
)

// TestIntervalFieldsPostgres: PostgreSQL's interval fields as a parameter's
// type (INTERVAL HOUR TO MINUTE, INTERVAL DAY TO SECOND(2)) are an INTERVAL:
// the value is bound as PostgreSQL reads that type (its fields cut, its
// seconds rounded), checked for range like an INTERVAL's, and a number is
// told the string form (CATALOG_TEST_PG_DSN). (Before: the fields were read
// as the description, and the value bound as a plain INTERVAL: "1 day
// 02:03:04" stayed 1 day 02:03:04.)
func TestIntervalFieldsPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
		"-- @query hm\n-- @param v INTERVAL HOUR TO MINUTE\nSELECT @v::text AS v;\n\n"+
		"-- @query ds\n-- @param v interval day to second (2)\nSELECT @v::text AS v;\n\n"+
		"-- @query ym\n-- @param v INTERVAL YEAR TO MONTH\nSELECT @v::text AS v;\n\n"+
		"-- @query s3\n-- @param v INTERVAL SECOND(3)\nSELECT @v::text AS v;\n\n"+
		"-- @query hml\n-- @param v INTERVAL HOUR TO MINUTE[]\nSELECT @v::text AS v;\n")
	ctx := context.Background()
	q, err := svc.Describe(ctx, "p/pg/m/ds")
	if err != nil || len(q.Problems) > 0 {
		t.Fatalf("%+v %v", q, err)
	}
	for _, tc := range []struct{ path, params, want string }{
		{"hm", `{"v":"1 day 02:03:04"}`, `[["1 day 02:03:00"]]`},
		{"ds", `{"v":"1 day 02:03:04.5678"}`, `[["1 day 02:03:04.57"]]`},
		{"ym", `{"v":"1 year 2 mons 3 days 04:05:06"}`, `[["1 year 2 mons"]]`},
		{"s3", `{"v":"1.23456 seconds"}`, `[["00:00:01.235"]]`},
		{"hml", `{"v":["1 day 02:03:04","5 minutes 6 seconds"]}`, `{\"1 day 02:03:00\",00:05:00}`},
	} {
		if got, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params); te != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %s %+v, want %q", tc.path, tc.params, got, te, tc.want)
		}
	}
	for _, tc := range []struct{ path, params, want string }{
		{"hm", `{"v":"178956971 years"}`, `parameter "v" must be an INTERVAL HOUR TO MINUTE within its range (`},
		{"s3", `{"v":"2562047788:00:54.775807"}`, `its 9223372036854775807 microseconds, rounded to 3 digits after the second, go past their range`},
		{"hm", `{"v":3600}`, `parameter "v" must be a JSON string (INTERVAL HOUR TO MINUTE, in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"hml", `{"v":["1 day","2147483648 days"]}`, `parameter "v[1]" must be an INTERVAL HOUR TO MINUTE within its range`},
	} {
		if _, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params); te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
}

// TestIntervalFieldsDuckDB: DuckDB reads PostgreSQL's interval fields and
// drops them (INTERVAL HOUR TO MINUTE keeps the seconds) or refuses them
// (SECOND(3)), so such a parameter in a DuckDB package is the catalog's
// fault, told when the model loads and when the query is called. (Before:
// the fields were read as the description, and the value bound as a plain
// INTERVAL, with no word of it.)
func TestIntervalFieldsDuckDB(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n" +
			"-- @query hm\n-- @param v INTERVAL HOUR TO MINUTE\nSELECT $v AS v;\n\n" +
			"-- @query s3\n-- @param v INTERVAL SECOND(3)[]\nSELECT $v AS v;\n\n" +
			"-- @query plain\n-- @param v INTERVAL(3)\nSELECT $v AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	for name, want := range map[string]string{
		"hm": `p/k/m.sql: query hm (line 6): @param v INTERVAL HOUR TO MINUTE has PostgreSQL's interval fields, which DuckDB does not apply`,
		"s3": `p/k/m.sql: query s3 (line 10): @param v INTERVAL SECOND(3)[] has PostgreSQL's interval fields`,
	} {
		q, err := svc.Describe(ctx, "p/k/m/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(q.Problems, "\n"); !strings.Contains(got, want) || !strings.Contains(got, "declare it INTERVAL") || !strings.Contains(got, "put a comma after INTERVAL") {
			t.Errorf("%s problems: %s, want %q", name, got, want)
		}
	}
	for path, params := range map[string]string{"hm": `{"v":"1 day 02:03:04"}`, "s3": `{"v":["1 second"]}`} {
		_, te := runNamed(t, svc, "p/k/m/"+path, params)
		if te == nil || te.Kind == "invalid" || !strings.Contains(te.Error, `parameter "v" cannot be bound, so no call can run this query: @param v INTERVAL`) {
			t.Errorf("%s: %+v", path, te)
		}
	}
	if got, te := runNamed(t, svc, "p/k/m/plain", `{"v":"1 day 02:03:04"}`); te != nil || !strings.Contains(got, "1 day 02:03:04") {
		t.Errorf("plain: %s %+v", got, te)
	}
	if iv, list := isIntervalType("INTERVALDAYTOSECOND(3)[]"); !iv || !list {
		t.Error("INTERVAL DAY TO SECOND(3)[] is a list of intervals")
	}
	if p := intervalPrecision("INTERVALDAYTOSECOND(3)"); p != 3 {
		t.Errorf("precision %d", p)
	}
}
