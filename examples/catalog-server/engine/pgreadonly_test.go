package engine

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPostgresRoleReadOnlyByDefault: the README's second read-only layer,
// the role's default (ALTER ROLE … SET default_transaction_read_only = on,
// which .ci/catalog.sh applies to the tests' role). A statement sent on the
// model's own pool outside the server's transactions cannot write, directly
// and through pgbouncer (CATALOG_TEST_PGBOUNCER_DSN), while everything the
// server sends still works: the model's load (its sources, the load check's
// PREPARE and DEALLOCATE, the role's privileges read), ad-hoc SQL, a named
// query's parameter, a session-level advisory lock released at the query's
// end (pgEnd's pg_advisory_unlock_all after the ROLLBACK, outside the
// transaction), the time limit and a cancelled query. And what the layer is
// not: a session of the role may turn its default off and write.
func TestPostgresRoleReadOnlyByDefault(t *testing.T) {
	dsns := [][2]string{{"direct", pgDSN(t)}}
	if b := os.Getenv("CATALOG_TEST_PGBOUNCER_DSN"); b != "" {
		dsns = append(dsns, [2]string{"pgbouncer", b})
	}
	ctx := context.Background()
	for _, d := range dsns {
		t.Run(d[0], func(t *testing.T) {
			pgSetup(t, d[1])
			m := loadModel(t, map[string]string{
				"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
				"p/wh/stock.sql": "-- @source stock\nSELECT sku, qty FROM stock;\n\n" +
					"-- @query by_min\n-- @param min INTEGER\nSELECT sku FROM stock WHERE qty >= @min;\n\n" +
					"-- @query locking\n-- @param min INTEGER\nSELECT sku FROM stock WHERE @min::integer IS NOT NULL AND sku IN (SELECT sku FROM shop.stock FOR UPDATE);\n\n" +
					"-- @query also_locking\nWITH c AS (SELECT * FROM shop.stock FOR SHARE) SELECT * FROM c;\n",
			}, "p/wh/stock")
			p, err := OpenPostgres(ctx, m, d[1], PGConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var def string
			if err := p.pool.QueryRow(ctx, "SHOW default_transaction_read_only").Scan(&def); err != nil {
				t.Fatal(err)
			}
			if def != "on" {
				if os.Getenv("CI") == "true" {
					t.Fatalf("the role's default_transaction_read_only is %q: .ci/catalog.sh should set it on", def)
				}
				t.Skipf("the test role's default_transaction_read_only is %q: run ALTER ROLE … SET default_transaction_read_only = on (see .ci/catalog.sh)", def)
			}
			// Outside the server's transactions, on the connections it uses.
			for _, s := range []string{
				"CREATE TABLE shop.zz_outside (a int)",
				"UPDATE shop.stock SET qty = 0",
				"CREATE TEMP TABLE zz_temp (a int)",
			} {
				_, err := p.pool.Exec(ctx, s)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "25006" {
					t.Errorf("%s on the model's pool: %v, want read_only_sql_transaction (25006)", s, err)
				}
			}
			// The model loaded: its source, and its named queries checked,
			// the row locks found by the plans of their SQL-level PREPAREs
			// (pgLocksRows), each deallocated again.
			if p.Broken()["stock"] != "" || p.Columns()["stock"] == nil {
				t.Fatalf("broken %v", p.Broken())
			}
			checks := p.QueryChecks()
			for _, name := range []string{"locking", "also_locking"} {
				if ps := checks[name].Problems; len(ps) != 1 || ps[0] != RowLocksProblem {
					t.Errorf("the load check of %s: %+v", name, checks[name])
				}
			}
			if c, ok := checks["by_min"]; ok {
				t.Errorf("the load check of by_min: %+v", c)
			}
			// Ad-hoc SQL (served only after the role's privileges were read)
			// and a parameter.
			res, err := p.Query(ctx, "SELECT count(*) FROM stock WHERE qty >= @min", map[string]any{"min": int64(145)}, testLimits)
			if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(2) {
				t.Fatalf("a query with a parameter: %v %+v", err, res)
			}
			// A session-level advisory lock is gone when the query returns.
			check, err := pgx.Connect(ctx, pgDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			defer check.Close(ctx)
			for range 2 * pgMaxConns {
				if _, err := p.Query(ctx, "SELECT pg_advisory_lock(4260)", nil, testLimits); err != nil {
					t.Fatal(err)
				}
				var free bool
				if err := check.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(4260)").Scan(&free); err != nil || !free {
					t.Fatalf("the advisory lock after the query: free %v, %v", free, err)
				}
			}
			// The time limit, and a query cancelled by its caller.
			start := time.Now()
			_, err = p.Query(ctx, "SELECT pg_sleep(30)", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: 300 * time.Millisecond})
			if !errors.As(err, new(*TimeoutError)) || time.Since(start) > 5*time.Second {
				t.Errorf("pg_sleep past the limit: %v after %v", err, time.Since(start))
			}
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			start = time.Now()
			_, err = p.Query(cctx, "SELECT pg_sleep(30)", nil, testLimits)
			cancel()
			if err == nil || time.Since(start) > 5*time.Second {
				t.Errorf("a cancelled pg_sleep: %v after %v", err, time.Since(start))
			}
			for range 2 * pgMaxConns {
				if res, err := p.Query(ctx, "SELECT current_setting('transaction_read_only')", nil, testLimits); err != nil || res.Rows[0][0] != "on" {
					t.Fatalf("after the time limit: %v %+v", err, res)
				}
			}
		})
	}
	// A safety net, not a wall: a session of the role may set its own default
	// off (a user-settable setting) and write; the REVOKEs and grants are
	// what no statement of the role can undo.
	conn, err := pgx.Connect(ctx, pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var def string
	if err := conn.QueryRow(ctx, "SHOW default_transaction_read_only").Scan(&def); err != nil || def != "on" {
		return // skipped above
	}
	if _, err := conn.Exec(ctx, "SET default_transaction_read_only = off"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE zz_temp (a int)"); err != nil {
		t.Errorf("a write after SET default_transaction_read_only = off: %v", err)
	}
}
