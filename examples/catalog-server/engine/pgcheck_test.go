package engine

import (
	"context"
	"fmt"
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
