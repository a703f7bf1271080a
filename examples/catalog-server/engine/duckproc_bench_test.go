package engine

import (
	"context"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/benchdata"
)

// BenchmarkDuckProcRoundTrip measures what a query process adds to a query
// whose answer has the shape of the benchmark's aggregates (100 rows of four
// numbers; 144 rows of a time, a text and three numbers) but costs DuckDB
// little, so that the round trip between the processes is most of what
// differs: the same query on the model in the server's process (Duck) and in
// a query process (DuckProc), interleaved (shuffled).
func BenchmarkDuckProcRoundTrip(b *testing.B) {
	m := testModel(b)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	p, err := OpenDuckProc(context.Background(), m, DuckConfig{Worker: testWorker})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, q := range []struct {
		name, sql string
		rows      int
	}{
		{"4-numbers", "SELECT range AS k, range * 10000 AS n, (range * 4950000)::HUGEINT AS total, range / 3 AS mean FROM range(100)", 100},
		{"time-text-numbers", "SELECT TIMESTAMP '2025-01-01' + to_months(range // 12) AS month, 'category-' || (range % 12) AS category, 7000 + range AS orders, (range * 1234.5678)::DECIMAL(18,2) AS revenue, range / 7 AS avg_order FROM range(144)", 144},
	} {
		b.Run(q.name, func(b *testing.B) {
			on := func(e interface {
				Query(context.Context, string, map[string]any, Limits) (*Result, error)
			}) func() {
				return func() {
					res, err := e.Query(context.Background(), q.sql, nil, testLimits)
					if err != nil || len(res.Rows) != q.rows {
						b.Fatalf("query: %v %d rows", err, len(res.Rows))
					}
				}
			}
			on(p)() // the query process starts here, not in the loop
			times := benchdata.Interleave(b.Loop, []func(){on(d), on(p)})
			b.StopTimer()
			b.ReportMetric(float64(benchdata.Median(times[0]).Microseconds())/1000, "p50-in-process-ms")
			b.ReportMetric(float64(benchdata.Median(times[1]).Microseconds())/1000, "p50-query-process-ms")
			b.ReportMetric(float64(benchdata.MedianDiff(times[1], times[0]).Microseconds())/1000, "paired-process-minus-in-process-ms")
		})
	}
}
