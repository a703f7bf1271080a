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
	// A released connection is idle once pgxpool has run its AfterRelease
	// (pg_advisory_unlock_all) off the query's path: wait for one.
	var conns []*pgxpool.Conn
	waitFor(t, "an idle connection", func() bool {
		conns = p.pool.AcquireAllIdle(context.Background())
		return len(conns) > 0
	})
	for _, c := range conns {
		var n int
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_prepared_statements WHERE name = $1", pgCheckStatement).Scan(&n); err != nil || n != 0 {
			t.Errorf("prepared statements left: %d %v", n, err)
		}
		c.Release()
	}
}
