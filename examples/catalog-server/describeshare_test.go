package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// describeShareRuns describes each source of model (a DuckDB or PostgreSQL
// model of svc, whose -max-queries-per-client is 1) from one client: fine
// answers with rows, fail fails at run time (its row count and sample rows
// are errors), slow runs past describe's time limit. After each describe the
// client's share is back to nothing (svc.shares.n empty) and its next
// execute_query is not refused as busy. With late (DuckDB in the server's
// process), a query stopped at its limit may go on until DuckDB returns
// (stopGrace: on a loaded machine, DuckDB takes longer to stop), and counts
// until then: after slow, the count must be given back within a bound.
func describeShareRuns(t *testing.T, svc *Service, model string, late bool) {
	t.Helper()
	ctx := withClient(context.Background(), "192.0.2.7")
	for _, tc := range []struct{ source, want string }{
		{"fine", ""},
		{"fail", "row count: "},
		{"slow", "row count: not done within describe's 2s limit"},
		{"fine", ""},
	} {
		d, err := svc.Describe(ctx, model+"/"+tc.source)
		if err != nil {
			t.Fatalf("describe %s: %v", tc.source, err)
		}
		if tc.want == "" && (d.Error != "" || d.RowCount == nil) || tc.want != "" && !strings.HasPrefix(d.Error, tc.want) {
			t.Errorf("describe %s: error %q, row count %v", tc.source, d.Error, d.RowCount)
		}
		if strings.Contains(d.Error, "your client already has") {
			t.Errorf("describe %s refused as busy: %q", tc.source, d.Error)
		}
		left := func() int {
			svc.shares.mu.Lock()
			defer svc.shares.mu.Unlock()
			return len(svc.shares.n)
		}
		for start := time.Now(); late && tc.source == "slow" && left() != 0 && time.Since(start) < time.Minute; {
			time.Sleep(10 * time.Millisecond)
		}
		svc.shares.mu.Lock()
		if len(svc.shares.n) != 0 {
			t.Errorf("after describe %s (%q), counters left: %v", tc.source, d.Error, svc.shares.n)
		}
		svc.shares.mu.Unlock()
		_, err = svc.Execute(ctx, executeIn{Path: model, SQL: "SELECT count(*) AS n FROM fine"})
		if busy := (*clientBusyError)(nil); errors.As(err, &busy) {
			t.Errorf("execute_query after describe %s refused as busy: %v", tc.source, err)
		} else if err != nil {
			t.Errorf("execute_query after describe %s: %v", tc.source, err)
		}
	}
	svc.shares.mu.Lock()
	defer svc.shares.mu.Unlock()
	if len(svc.shares.n) != 0 {
		t.Errorf("counters left at the end: %v", svc.shares.n)
	}
}

// TestDescribeReleasesShare: describe's queries (a source's row count and
// sample rows) count in the client's share, and the count is given back when
// describe is done — after queries that answer, fail or run out of time — so
// that a client with a share of 1 can call execute_query right after. Before,
// with DuckDB in the server's process (-isolate=false), each query's count was
// given back by its goroutine just after its answer had gone, so the count
// could still be held when describe returned, and the next call be refused.
func TestDescribeReleasesShare(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source fine\nSELECT i FROM range(10) t(i);\n\n" +
			"-- @source fail\nSELECT i FROM range(3) t(i) WHERE CAST('x' || i AS INTEGER) > 0;\n\n" +
			"-- @source slow\nSELECT a.range + b.range AS s FROM range(200000) a, range(200000) b WHERE (a.range * b.range) % 7 = 3;\n",
	})
	svc := newTestService(t, dir, Config{MaxQueriesPerClient: 1, QueryTimeout: 2 * time.Second})
	describeShareRuns(t, svc, "p/k/m", true)
}

// TestPostgresDescribeReleasesShare: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN).
func TestPostgresDescribeReleasesShare(t *testing.T) {
	pgTestDSN(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"p/pg/m.sql": "-- @source fine\nSELECT i FROM generate_series(1, 10) i;\n\n" +
			"-- @source fail\nSELECT i FROM generate_series(1, 3) i WHERE ('x' || i)::int > 0;\n\n" +
			"-- @source slow\nSELECT i FROM generate_series(1, 3) i WHERE pg_sleep(2) IS NOT NULL;\n",
	})
	svc := newTestService(t, dir, Config{MaxQueriesPerClient: 1, QueryTimeout: 2 * time.Second})
	describeShareRuns(t, svc, "p/pg/m", false)
}
