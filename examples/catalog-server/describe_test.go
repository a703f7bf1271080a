package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDescribeSlowSource: the row count and sample rows of a source whose SQL is
// slow share one time limit (here the 1 s query timeout), so describe answers
// within about that limit, not once per query; and the description says which of
// them did not finish, the sample rows included.
func TestDescribeSlowSource(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/k/manifest.json": `{"description": "slow"}`,
		"p/k/m.sql": `-- Slow.
-- One row in a billion.
-- @source slow
SELECT x FROM range(100000000000) t(x) WHERE x % 1000000007 = 3;
-- Quick.
-- @source quick
SELECT 1 AS one;
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	svc := newTestService(t, dir, Config{QueryTimeout: time.Second})
	start := time.Now()
	d, err := svc.Describe(context.Background(), "p/k/m/slow")
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// The row count had the whole limit and spent it: the sample rows, which
	// share it, were not read (a query of their own would have had a limit
	// of its own). Said by describe, so however slow this machine is.
	// execute_query has the same 1s limit: running the count there is no advice.
	if d.RowCount != nil || !strings.Contains(d.Error, "row count: not done within describe's 1s limit, which execute_query has too") ||
		strings.Contains(d.Error, "run SELECT count(*)") || !strings.Contains(d.Error, "Its columns above are complete") ||
		!strings.Contains(d.Error, "sample rows: not read, describe's 1s limit was spent") {
		t.Errorf("slow source: rowCount %v, error %q", d.RowCount, d.Error)
	}
	// Two limits' time would be a query each: the one query's time past its
	// limit (interrupting DuckDB, on a loaded machine) is not bounded here.
	if el >= 2*time.Second {
		t.Errorf("describe took %v with a 1s limit: a limit per query", el)
	}
	d, err = svc.Describe(context.Background(), "p/k/m/quick")
	if err != nil || d.Error != "" || d.RowCount == nil || *d.RowCount != 1 || len(d.SampleRows) != 1 {
		t.Errorf("quick source: %v %+v", err, d)
	}
}

// TestDescribePathFromLowerDown: a path given from below the project ("orders",
// "sales/orders") is answered with the objects whose paths end with it; a name
// nothing is close to is not called close.
func TestDescribePathFromLowerDown(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for path, want := range map[string]string{
		"orders":           "closest: retail/shop/sales/orders",
		"sales/orders":     "closest: retail/shop/sales/orders",
		"Shop/Sales":       "closest: retail/shop/sales",
		"climate/zzzzzzzz": `no package named "zzzzzzzz" in "climate"; no name there is close to it; the first there: climate/stations`,
	} {
		var te toolError
		r := call(t, cs, "describe", map[string]any{"path": path}, &te)
		if !r.IsError || te.Kind != "not_found" || !strings.Contains(te.Error, want) {
			t.Errorf("%s: %s", path, text(r))
		}
	}
}
