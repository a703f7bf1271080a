package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDuckTempLimit: what DuckDB spills to disk is capped by DuckConfig.TempLimit
// (max_temp_directory_size), in the server's process and in a query process. A
// query past it is answered as out of memory, saying the disk cap was reached
// too, and the next query runs. DuckDB's own default is 90% of the free disk
// space: one sort of long strings grew its spill folder to 664 MB in 14 s.
func TestDuckTempLimit(t *testing.T) {
	cfg := DuckConfig{MemoryLimit: "40MB", TempLimit: "8MB", Threads: 1}
	// A sort of a million rows of 55 bytes and more: past 40MB, it spills.
	const q = "SELECT sum(rn * (h % 1000)) AS s FROM (SELECT h, row_number() OVER (ORDER BY h, pad) rn FROM (SELECT hash(x) AS h, repeat('y', 50) || x AS pad FROM range(1000000) t(x)))"
	lim := Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 60 * time.Second}
	d, err := OpenDuck(context.Background(), testModel(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for name, e := range map[string]interface {
		Query(ctx context.Context, sqlText string, params map[string]any, lim Limits) (*Result, error)
	}{"in the server's process": d, "in a query process": openProc(t, nil, cfg)} {
		_, err := e.Query(context.Background(), q, nil, lim)
		var me *MemoryError
		if !errors.As(err, &me) || !me.Spilled || me.TempLimit != "8MB" ||
			!strings.Contains(err.Error(), "more disk space to spill to than it may use (8MB)") {
			t.Errorf("%s: a query spilling past the cap: %v", name, err)
		}
		res, err := e.Query(context.Background(), "SELECT 42 AS n", nil, lim)
		if err != nil || cell(res, 0, 0) != "42" {
			t.Errorf("%s: the next query: %v, %s", name, err, cell(res, 0, 0))
		}
	}
}
