package main

import (
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
