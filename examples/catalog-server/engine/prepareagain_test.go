package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestDuckNoSecondPrepareAfterLimit: a query whose time ran out while its text
// was prepared (DuckDB computes constant expressions then, and a prepare cannot
// be interrupted) is not prepared a second time, neither for the names of
// columns that look renamed (a_1 beside a) nor to read a JSON column as text:
// the second prepare would hold the query's connection as long again past its
// limit. A quick query with such names is prepared again, as it must be.
func TestDuckNoSecondPrepareAfterLimit(t *testing.T) {
	d := openTestDuck(t)
	var again atomic.Int32
	duckPrepareAgain = func() { again.Add(1) }
	defer func() { duckPrepareAgain = nil }()
	ctx := context.Background()
	if _, err := d.Query(ctx, `SELECT 1 AS a, 2 AS a_1, '{"n": 1}'::JSON AS j`, nil, testLimits); err != nil {
		t.Fatal(err)
	}
	if n := again.Load(); n != 2 {
		t.Fatalf("a quick query with a name like a rename and a JSON column was prepared again %d times, want 2", n)
	}
	again.Store(0)
	// About 0.4 s of constant folding on an idle machine, against a 50 ms limit.
	slow := `levenshtein(repeat('a', 15000), repeat('b', 15000))`
	lim := testLimits
	lim.Timeout = 50 * time.Millisecond
	for _, q := range []string{
		`SELECT ` + slow + ` AS a, 2 AS a_1`,
		`SELECT ` + slow + ` AS n, '{"n": 1}'::JSON AS j`,
	} {
		_, err := d.Query(ctx, q, nil, lim)
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a timeout", q, err)
		}
	}
	d.Close() // waits for the queries' goroutines
	if n := again.Load(); n != 0 {
		t.Errorf("queries past their limit were prepared again %d times", n)
	}
}
