package main

import (
	"context"
	"testing"
)

// TestIntervalTextBindsBack: every interval a DuckDB query returns, written as
// DuckDB writes it, binds back as an INTERVAL parameter to the same interval,
// at the extremes of each field too. (Before: a time of day of many hours,
// "2562047788:00:54.775807" or "2147483647:00:00", was refused "could not
// convert": DuckDB's own reader does not take it.)
func TestIntervalTextBindsBack(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v, $v AS i;\n\n" +
			"-- @query ivl\n-- @param v INTERVAL[]\nSELECT CAST($v AS VARCHAR) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	const maxUs = "to_microseconds(9223372036854775807)"
	const minUs = "(to_microseconds(-9223372036854775807) - INTERVAL 1 microsecond)"
	for _, expr := range []string{
		maxUs,
		minUs,
		"to_microseconds(2147483647 * 3600000000)",
		"to_microseconds(-2147483647 * 3600000000 - 1)",
		"to_months(2147483647) + to_days(2147483647) + " + maxUs,
		"to_months(-2147483648) + to_days(-2147483648) + " + minUs,
		"to_days(-1) + to_microseconds(3600000000 * 1000000 + 500000)",
		"INTERVAL '1 day 02:00:00'", "INTERVAL '-00:00:00.5'", "INTERVAL '00:00:00.000001'", "INTERVAL '1 year 2 months'",
	} {
		res, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT CAST(" + expr + " AS VARCHAR) AS s, " + expr + " AS i"})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		text, _ := res.Rows[0][1].(string)
		if text == "" || res.Rows[0][0] != text {
			t.Fatalf("%s: the interval is returned as %v, its text is %v", expr, res.Rows[0][1], res.Rows[0][0])
		}
		// DuckDB's text of an interval is one interval's: the same text back
		// is the same interval.
		got, te := runNamed(t, svc, "p/k/m/iv", `{"v":`+jsonText(text)+`}`)
		if want := `{"Columns":[{"name":"v","type":"VARCHAR"},{"name":"i","type":"INTERVAL"}],"Rows":[[` + jsonText(text) + `,` + jsonText(text) + `]]}`; te != nil || got != want {
			t.Errorf("%s: %q binds back as %s %+v", expr, text, got, te)
		}
		res, err = svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT CAST([" + expr + ", " + expr + "] AS VARCHAR) AS v"})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		got, te = runNamed(t, svc, "p/k/m/ivl", `{"v":[`+jsonText(text)+`,`+jsonText(text)+`]}`)
		if te != nil || got != `{"Columns":[{"name":"v","type":"VARCHAR"}],"Rows":[[`+jsonText(res.Rows[0][0])+`]]}` {
			t.Errorf("%s: [%q] binds back as %s %+v", expr, text, got, te)
		}
	}
}

// TestDuckIntervalBind: only DuckDB's own form of an interval is rewritten, its
// time of day as microseconds; any other text goes to DuckDB as sent, so its
// errors quote what the caller wrote.
func TestDuckIntervalBind(t *testing.T) {
	for in, want := range map[string]string{
		"2562047788:00:54.775807":          "9223372036854775807 microseconds",
		"-2562047788:00:54.775808":         "-9223372036854775807 microseconds -1 microseconds",
		"1 year 2 months -3 days 02:00:00": "1 year 2 months -3 days 7200000000 microseconds",
		"-00:00:00.5":                      "-500000 microseconds",
		"2562047788:00:54.775808":          "2562047788:00:54.775808", // past the range: DuckDB refuses it
		"99999999999999999999:00:00":       "99999999999999999999:00:00",
		"1 day 2 hours":                    "1 day 2 hours",
		"00:75:00":                         "00:75:00",
		"00:00:00.1234567":                 "00:00:00.1234567",
		"1 day 02:00:00 ago":               "1 day 02:00:00 ago",
		"02:00":                            "02:00",
		"1 day\n02:00:00":                  "1 day\n02:00:00",
		"":                                 "",
	} {
		if got := duckIntervalBind(in); got != want {
			t.Errorf("duckIntervalBind(%q) = %q, want %q", in, got, want)
		}
	}
}
