package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5/pgxpool"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPostgresCheckReadOnly: the check of a PostgreSQL model's queries runs in
// a read-only transaction with the model's search_path and a
// statement_timeout, and stops at its bound of queries.
func TestPostgresCheckReadOnly(t *testing.T) {
	dsn := pgDSN(t)
	pgSetup(t, dsn)
	var sql strings.Builder
	sql.WriteString("-- @source stock\nSELECT sku, qty FROM stock;\n")
	for i := range maxCheckedQueries + 4 {
		fmt.Fprintf(&sql, "-- @query q%d\nSELECT sku FROM stock WHERE qty > %d;\n", i, i)
	}
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
		"p/wh/stock.sql":     sql.String(),
	}, "p/wh/stock")
	var seen []string
	pgCheckBegun = func(ctx context.Context, tx pgx.Tx) {
		var ro, path, timeout string
		if err := tx.QueryRow(ctx, "SELECT current_setting('transaction_read_only'), current_setting('search_path'), current_setting('statement_timeout')").Scan(&ro, &path, &timeout); err != nil {
			t.Error(err)
		}
		seen = append(seen, ro, path, timeout)
	}
	defer func() { pgCheckBegun = nil }()
	p, err := OpenPostgres(context.Background(), m, dsn, PGConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if strings.Join(seen, " ") != "on shop 2s" {
		t.Errorf("the check's transaction: %q", seen)
	}
	checks := p.QueryChecks()
	if len(checks) != 1 || len(checks[""].Problems) != 1 || !strings.Contains(checks[""].Problems[0], "of the model's 260 named queries were not checked when it loaded (the check stops after 256 queries or 2s per model)") {
		t.Errorf("checks: %+v", checks)
	}
}

// TestPostgresCheckUnreachable: a model whose database cannot be reached does
// not open (its sources are not read), and its queries add nothing to that.
func TestPostgresCheckUnreachable(t *testing.T) {
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED"}`,
		"p/wh/stock.sql":     "-- @source stock\nSELECT 1 AS v;\n-- @query q\nSELECT nope FROM stock;\n",
	}, "p/wh/stock")
	// A port nothing listens on (the discard port, refused at once).
	p, err := OpenPostgres(context.Background(), m, "postgres://nobody@127.0.0.1:9/none?sslmode=disable&connect_timeout=2", PGConfig{})
	if err == nil {
		p.Close()
		t.Fatal("opened")
	}
	if !strings.Contains(err.Error(), "no source of the model could be read") {
		t.Errorf("err: %v", err)
	}
}

// TestPostgresCheckRowLocks: a named query or notebook cell that locks rows
// (which PostgreSQL refuses in the read-only transaction of a call, not in a
// prepare) is found when its model opens, by the LockRows step of its plan:
// each locking form, in a WITH query, in a subquery, and behind a parameter
// whose NULL would fold the subquery away in a custom plan. The words in a
// string or comment, a locking clause on a source (which PostgreSQL ignores)
// and one in a WITH query nothing reads lock nothing, are not told, and run.
// No prepared statement is left on the model's connections.
func TestPostgresCheckRowLocks(t *testing.T) {
	dsn := pgDSN(t)
	pgSetup(t, dsn)
	locking := map[string]string{
		"fu":     "SELECT * FROM stock FOR UPDATE",
		"fnku":   "SELECT * FROM stock FOR NO KEY UPDATE",
		"fs":     "SELECT * FROM stock FOR SHARE",
		"fks":    "SELECT * FROM stock FOR KEY SHARE",
		"nowait": "SELECT * FROM stock FOR UPDATE NOWAIT",
		"of":     "SELECT * FROM goods g JOIN stock t USING (sku) FOR UPDATE OF t",
		"cte":    "WITH c AS (SELECT * FROM stock FOR SHARE) SELECT * FROM c",
		"sub":    "SELECT * FROM (SELECT * FROM stock FOR UPDATE SKIP LOCKED) s",
		"insub":  "SELECT sku FROM goods WHERE sku IN (SELECT sku FROM stock FOR KEY SHARE)",
		"param":  "-- @param min INTEGER\nSELECT sku FROM goods WHERE @min::integer IS NOT NULL AND sku IN (SELECT sku FROM stock FOR UPDATE)",
	}
	fine := map[string]string{
		"literal": "SELECT 'for update' AS x, sku AS \"for share\" FROM goods /* FOR UPDATE */ -- FOR KEY SHARE",
		"where":   "SELECT sku FROM goods WHERE sku <> 'FOR UPDATE'",
		"source":  "SELECT * FROM goods FOR UPDATE",
		"unread":  "WITH c AS (SELECT * FROM stock FOR UPDATE) SELECT 1 AS one",
	}
	var sql strings.Builder
	sql.WriteString("-- @source goods\nSELECT sku, qty FROM stock;\n")
	for _, set := range []map[string]string{locking, fine} {
		for name, q := range set {
			fmt.Fprintf(&sql, "-- @query %s\n%s;\n", name, q)
		}
	}
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
		"p/wh/stock.sql":     sql.String(),
		"p/wh/nb.md":         "# NB\n\n```sql\nSELECT * FROM stock FOR KEY SHARE\n```\n\n```sql\nSELECT 'FOR UPDATE' AS x\n```\n",
	}, "p/wh/stock")
	p, err := OpenPostgres(context.Background(), m, dsn, PGConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checks := p.QueryChecks()
	for name := range locking {
		if ps := checks[name].Problems; len(ps) != 1 || ps[0] != RowLocksProblem {
			t.Errorf("%s: %q", name, ps)
		}
	}
	nb := m.Package.Notebooks[0]
	if ps := checks[CellKey(nb, nb.Cells[0])].Problems; len(ps) != 1 || ps[0] != RowLocksProblem {
		t.Errorf("cell-1: %q", ps)
	}
	for _, key := range []string{"literal", "where", "source", "unread", CellKey(nb, nb.Cells[1]), ""} {
		if ps := checks[key].Problems; len(ps) != 0 {
			t.Errorf("%q: %q", key, ps)
		}
	}
	// What the check tells is what a call meets.
	for _, q := range m.Queries {
		_, err := p.Query(context.Background(), q.SQL, map[string]any{"min": 1}, testLimits)
		var re *RefusedError
		if _, lock := locking[q.Name]; lock != (errors.As(err, &re) && re.RowLocks()) || !lock && err != nil {
			t.Errorf("call of %s: %v", q.Name, err)
		}
	}
	// An idle connection of the pool (wait for one).
	var conns []*pgxpool.Conn
	waitFor(t, "an idle connection", func() bool {
		conns = p.pool.AcquireAllIdle(context.Background())
		return len(conns) > 0
	})
	for _, c := range conns {
		var n int
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_prepared_statements WHERE starts_with(name, $1)", pgCheckPrefix).Scan(&n); err != nil || n != 0 {
			t.Errorf("prepared statements left: %d %v", n, err)
		}
		c.Release()
	}
}

// pgLeftoverModel is a model whose check prepares a fine query, one that locks
// rows, and one whose parameter's domain refuses the NULL the check's EXPLAIN
// gives it (dsn's schema shop, set up by pgSetup, gets the domain).
func pgLeftoverModel(t *testing.T, dsn string) (*Postgres, map[string]QueryCheck) {
	t.Helper()
	pgSetup(t, dsn)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgWrite(context.Background(), conn, "CREATE DOMAIN shop.nn_int AS integer NOT NULL"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
		"p/wh/stock.sql": "-- @source goods\nSELECT sku, qty FROM stock;\n" +
			"-- @query by_id\n-- @param min INTEGER\nSELECT sku FROM goods WHERE qty >= @min::integer;\n" +
			"-- @query locks\nSELECT * FROM stock FOR UPDATE;\n" +
			"-- @query domain\n-- @param n INTEGER\nSELECT sku FROM goods WHERE @n::nn_int > 0;\n",
	}, "p/wh/stock")
	p, err := OpenPostgres(context.Background(), m, dsn, PGConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, p.QueryChecks()
}

// checkLeftoverChecks: by_id has no problem, locks is found to lock rows, and
// domain's row locks, which its plan cannot tell (EXPLAIN fails on the NULL
// its domain refuses), are said not to be checked, in a note of the model's,
// not taken for "no lock".
func checkLeftoverChecks(t *testing.T, checks map[string]QueryCheck) {
	t.Helper()
	if ps := checks["by_id"].Problems; len(ps) != 0 {
		t.Errorf("by_id: %q", ps)
	}
	if ps := checks["locks"].Problems; len(ps) != 1 || ps[0] != RowLocksProblem {
		t.Errorf("locks: %q", ps)
	}
	if ps := checks["domain"].Problems; len(ps) != 0 {
		t.Errorf("domain: %q", ps)
	}
	if ps := checks[""].Problems; len(ps) != 1 || ps[0] != "query domain (line 10): whether it locks rows (FOR UPDATE, FOR SHARE: refused in every call's read-only transaction) was not checked when the model loaded (PostgreSQL: domain nn_int does not allow null values); a call that locks rows is refused when it runs" {
		t.Errorf("model: %q", ps)
	}
}

// TestPostgresCheckLeftoverStatementDirect: a statement named
// catalog_load_check (the name the check's statement had) prepared in the
// check's own server session does not make the check blame the model's
// queries. A direct connection's session is the check's alone (no other role,
// not even a superuser, can prepare in it), so the statement is prepared by
// the check's own transaction (pgCheckBegun), as a check whose deallocation
// failed left it before. Before, every query that prepared was told "the SQL
// does not prepare: PostgreSQL: prepared statement "catalog_load_check"
// already exists", and a plan EXPLAIN could not read said "no lock".
func TestPostgresCheckLeftoverStatementDirect(t *testing.T) {
	dsn := pgDSN(t)
	pgCheckBegun = func(ctx context.Context, tx pgx.Tx) {
		if _, err := tx.Exec(ctx, "PREPARE catalog_load_check AS SELECT 1"); err != nil {
			t.Error(err)
		}
	}
	defer func() { pgCheckBegun = nil }()
	p, checks := pgLeftoverModel(t, dsn)
	checkLeftoverChecks(t, checks)
	// What the check prepared itself is gone (its own PREPARE above is not).
	c, err := p.pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_prepared_statements WHERE starts_with(name, $1)", pgCheckPrefix).Scan(&n); err != nil || n != 0 {
		t.Errorf("the check's statements left: %d %v", n, err)
	}
}

// TestPostgresCheckLeftoverStatementPgbouncer: through a transaction-pooling
// pgbouncer, where another client of the pool left a statement named
// catalog_load_check in every server session, the check blames no query.
// Before, every query that prepared was told "prepared statement
// "catalog_load_check" already exists".
func TestPostgresCheckLeftoverStatementPgbouncer(t *testing.T) {
	dsn := pgbouncerDSN(t)
	ctx := context.Background()
	// As many transactions at once as the pool has server sessions
	// (default_pool_size 8 in .ci/catalog.sh; more wait for one), each
	// leaving the statement in its session; at the end, each session's
	// statements deallocated again the same way.
	const sessions = 8
	inEach := func(sql string) {
		var txs []pgx.Tx
		for range sessions {
			c, err := pgx.Connect(ctx, dsn+"&default_query_exec_mode=simple_protocol")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			tx, err := c.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, sql); err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
		for _, tx := range txs {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	inEach("DEALLOCATE ALL; PREPARE catalog_load_check AS SELECT 1")
	t.Cleanup(func() { inEach("DEALLOCATE ALL") })
	_, checks := pgLeftoverModel(t, dsn)
	checkLeftoverChecks(t, checks)
}
