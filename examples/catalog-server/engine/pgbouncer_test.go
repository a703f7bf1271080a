package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgbouncerDSN is CATALOG_TEST_PGBOUNCER_DSN: the tests' database and role
// through a pgbouncer in transaction pooling mode (.ci/catalog.sh starts
// one); the test is skipped without it.
func pgbouncerDSN(t *testing.T) string {
	return pgEnvDSN(t, "CATALOG_TEST_PGBOUNCER_DSN", "no pgbouncer to test through")
}

// TestPostgresBehindPgbouncer: a model whose connection string names a
// pgbouncer in transaction pooling mode opens and serves ad-hoc SQL, named
// queries with parameters (the same text again and again, on connections
// pgbouncer gives from one transaction to the next) and a time limit.
// Before, no model opened ("unsupported startup parameter:
// default_transaction_read_only"), and without that parameter queries failed
// with "prepared statement stmtcache_… already exists" (pgx's cache of
// named prepared statements, per client connection).
func TestPostgresBehindPgbouncer(t *testing.T) {
	p := openTestPGAt(t, pgbouncerDSN(t))
	ctx := context.Background()
	if p.Broken()["stock"] != "" || p.Columns()["stock"] == nil {
		t.Fatalf("broken %v", p.Broken())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				min := 3 * (g + i)
				res, err := p.Query(ctx, "SELECT count(*) FROM stock WHERE qty >= @min", map[string]any{"min": min}, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 20 * time.Second, Client: fmt.Sprint(g)})
				if err != nil {
					errs <- err
					return
				}
				if want := int64(51 - max(g+i, 1)); res.Rows[0][0] != want {
					errs <- fmt.Errorf("min %d: %v, want %d", min, res.Rows, want)
				}
				if _, err := p.Query(ctx, "SELECT sku FROM low ORDER BY qty LIMIT 2", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 20 * time.Second, Client: fmt.Sprint(g)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The time limit (SET LOCAL statement_timeout, pgx's cancel request)
	// holds through pgbouncer, and the connection serves the next query.
	start := time.Now()
	_, err := p.Query(ctx, "SELECT pg_sleep(30)", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: 300 * time.Millisecond})
	if !errors.As(err, new(*TimeoutError)) || time.Since(start) > 5*time.Second {
		t.Errorf("pg_sleep past the limit: %v after %v", err, time.Since(start))
	}
	for range 2 * pgMaxConns {
		if res, err := p.Query(ctx, "SELECT current_setting('transaction_read_only'), current_setting('search_path')", nil, testLimits); err != nil || fmt.Sprint(res.Rows) != "[[on shop]]" {
			t.Fatalf("after the timeout: %v %+v", err, res)
		}
	}
}

// TestPostgresSessionLocksGoneAtReturn: a session-level advisory lock a query
// took is released by the time Query returns, in the query's server session:
// directly, and through pgbouncer (CATALOG_TEST_PGBOUNCER_DSN), where a
// transaction of its own may reach another server session. Before, the lock was released after Query returned, off its path.
func TestPostgresSessionLocksGoneAtReturn(t *testing.T) {
	dsns := map[string]string{"direct": pgDSN(t)}
	if b := os.Getenv("CATALOG_TEST_PGBOUNCER_DSN"); b != "" {
		dsns["pgbouncer"] = b
	}
	ctx := context.Background()
	for name, dsn := range dsns {
		p := openTestPGAt(t, dsn)
		conn, err := pgx.Connect(ctx, pgDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for i := range 20 {
			if _, err := p.Query(ctx, "SELECT pg_advisory_lock(4252), pg_advisory_lock_shared(4253)", nil, testLimits); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var free bool
			if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(4252) AND pg_try_advisory_xact_lock(4253)").Scan(&free); err != nil {
				t.Fatal(err)
			}
			if !free {
				t.Fatalf("%s: run %d: the query's advisory locks are held after it returned", name, i)
			}
		}
	}
}
