package main

import (
	"context"
	"strings"
	"testing"
)

// TestPivotWithoutInAtLoad: a named query or a notebook cell with a PIVOT
// without an IN list is told at load why it cannot run and how to write it,
// not that it holds more than one statement.
func TestPivotWithoutInAtLoad(t *testing.T) {
	dir := t.TempDir()
	const pivot = "PIVOT (SELECT 'c' || i AS k, 1 AS v FROM range(3) t(i)) ON k USING sum(v)"
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source s\nSELECT 1 AS v;\n\n-- @query pv\nSELECT * FROM (" + pivot + ");\n\n-- @query ok\nSELECT * FROM (PIVOT (SELECT 'c' || i AS k, 1 AS v FROM range(3) t(i)) ON k IN ('c0', 'c1') USING sum(v));\n",
		"p/k/nb.md":         "# NB\n\n<!-- model: m -->\n\n```sql\n" + pivot + "\n```\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	for _, path := range []string{"p/k/m/pv", "p/k/nb/cell-1"} {
		d, err := svc.Describe(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if probs := strings.Join(d.Problems, "\n"); !strings.Contains(probs, "DuckDB runs a PIVOT without an IN list as two statements") || strings.Contains(probs, "more than one statement") {
			t.Errorf("%s problems: %s", path, probs)
		}
	}
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m/ok"}); err != nil || len(res.Columns) != 2 {
		t.Errorf("ok: %+v %v", res, err)
	}
}
