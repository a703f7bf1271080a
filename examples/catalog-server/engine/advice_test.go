package engine

import (
	"context"
	"strings"
	"testing"
)

// TestQueryShape: DuckDB's parser tells an aggregate (by DuckDB's own list of
// aggregate functions, or GROUP BY), a long list of literals and a huge range
// apart, and the advice fits each.
func TestQueryShape(t *testing.T) {
	ctx := context.Background()
	in := "SELECT * FROM orders WHERE id IN (" + strings.Repeat("123456, ", 2000) + "1)"
	long := "SELECT * FROM orders WHERE id IN (" + strings.Repeat("123456, ", 20000) + "1)"
	// Long without lists: it had "about 1 values in lists".
	chain := "SELECT * FROM orders WHERE " + strings.Repeat("id <> 123456 AND ", 5000) + "true"
	for _, tc := range []struct {
		sql          string
		timeout, mem string // in the advice; "" for none
	}{
		{"SELECT count(*) FROM range(100000000000)", "range(100000000000) alone makes more than 100000000 rows", "range(100000000000) alone makes more than 100000000 rows"},
		{"SELECT sum(x) FROM generate_series(1, 10, 2) t(x)", "The query already aggregates", "The query already aggregates"},
		{"SELECT region, median(amount) FROM orders GROUP BY ALL", "The query already aggregates", "group by fewer or coarser columns"},
		{"SELECT region FROM orders GROUP BY region", "The query already aggregates", "The query already aggregates"},
		{in, "The query holds 2001 literal values", "Use a shorter list"},
		{long, "with about 20001 values in lists", "a join with a source that holds the values"},
		{chain, "The query's text is 85031 bytes long: DuckDB parses, plans and holds every part of it", "in place of a long chain of AND or OR comparisons"},
		{"SELECT * FROM orders", "", ""},
	} {
		s, ok := QueryShape(ctx, tc.sql)
		if !ok {
			t.Errorf("%.60s: no shape", tc.sql)
			continue
		}
		if got := s.TimeoutAdvice(); tc.timeout == "" && got != "" || !strings.Contains(got, tc.timeout) {
			t.Errorf("%.60s: timeout advice %q, want %q", tc.sql, got, tc.timeout)
		}
		if got := s.MemoryAdvice(); tc.mem == "" && got != "" || !strings.Contains(got, tc.mem) {
			t.Errorf("%.60s: memory advice %q, want %q", tc.sql, got, tc.mem)
		}
	}
	if _, ok := QueryShape(ctx, "DELETE FROM orders"); ok {
		t.Error("a DELETE has a shape")
	}
}
