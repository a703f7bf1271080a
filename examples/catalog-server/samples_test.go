package main

import (
	"context"
	"strings"
	"testing"
)

// TestSampleQueriesRun runs every named query and notebook cell of the built-in
// sample catalog, with parameters of their declared types, over MCP: each answers
// rows (a user trying the samples meets no broken query), and every object
// describes without error.
func TestSampleQueriesRun(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	params := map[string]map[string]any{
		"retail/shop/sales/revenue_by_month":    {"year": 2024},
		"retail/shop/sales/top_customers":       {"region": "west", "n": 3},
		"operations/web/traffic/errors_by_path": {"day": "2024-07-03"},
		"climate/stations/weather/monthly_mean": {"station": "ST01"},
		"retail/shop/monthly-review/cell-1":     nil,
		"retail/shop/monthly-review/cell-2":     nil,
	}
	n := 0
	for _, e := range svc.Catalog().Entries() {
		if e.Kind != "query" {
			continue
		}
		n++
		p, ok := params[e.Path]
		if !ok {
			t.Errorf("%s: a sample query this test does not know", e.Path)
			continue
		}
		args := map[string]any{"path": e.Path}
		if p != nil {
			args["parameters"] = p
		}
		var res struct {
			RowCount int `json:"rowCount"`
		}
		if r := call(t, cs, "execute_query", args, &res); r.IsError || res.RowCount == 0 {
			t.Errorf("%s %v: %d rows, %s", e.Path, p, res.RowCount, text(r))
		}
	}
	if n != len(params) {
		t.Errorf("%d sample queries, %d known", n, len(params))
	}
	// Every object describes without error; every source has columns and rows.
	for _, e := range svc.Catalog().Entries() {
		var d Description
		r := call(t, cs, "describe", map[string]any{"path": e.Path}, &d)
		if r.IsError || d.Error != "" || len(d.Problems) > 0 {
			t.Errorf("describe %s: %s", e.Path, text(r))
		}
		if e.Kind == "source" && (len(d.Columns) == 0 || d.RowCount == nil || *d.RowCount == 0) {
			t.Errorf("source %s: %d columns, row count %v", e.Path, len(d.Columns), d.RowCount)
		}
	}
}

// TestSampleColumnsAsAnalystsExpect: the samples' times are typed as times (a
// timestamp DuckDB's JSON reader left as VARCHAR made date arithmetic fail), and
// the readings are what their descriptions say: one a day per station, through
// 2023 (they were every 17 hours, described as hourly).
func TestSampleColumnsAsAnalystsExpect(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	ctx := context.Background()
	for path, want := range map[string]map[string]string{
		"operations/web/traffic/requests":   {"requested_at": "TIMESTAMP"},
		"climate/stations/weather/readings": {"day": "DATE"},
		"retail/shop/sales/orders":          {"ordered_at": "TIMESTAMP"},
		"retail/shop/sales/customers":       {"signed_up": "DATE"},
	} {
		d, err := svc.Describe(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range d.Columns {
			got[c.Name] = c.Type
		}
		for col, typ := range want {
			if got[col] != typ {
				t.Errorf("%s.%s is %q, want %s", path, col, got[col], typ)
			}
		}
	}
	res, err := svc.Execute(ctx, executeIn{Path: "climate/stations/weather", SQL: "SELECT count(*) AS n, count(DISTINCT (station_id, day)) AS station_days, min(day) AS first, max(day) AS last FROM readings"})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != r[1] || r[2] != "2023-01-01" || r[3] != "2023-12-31" {
		t.Errorf("readings: %v rows, %v station-days, from %v to %v; want one a day per station through 2023", r[0], r[1], r[2], r[3])
	}
	if d := svc.Catalog().Lookup("climate/stations").Description; !strings.Contains(d, "Daily") {
		t.Errorf("climate/stations says %q", d)
	}
}
