package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgFailure says how the model m of the package key failed to open: its
// error, whether it is final (no retry) and whether a retry is scheduled.
func pgFailure(svc *Service, key, m string) (why string, final, timer bool) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	st := svc.ready[key]
	if st == nil {
		return "", false, false
	}
	return st.broken[m], st.final[m], st.next.Load() != 0
}

// TestPGServerErrorRetried: a model whose open fails with an error of the
// server, not of the catalog's SQL (57P01, the connection terminated by an
// administrator's command, as at a restart or failover), is tried again in
// the background. Before, every PostgreSQL error but 57014 counted as the
// catalog's SQL: the model was final, with no retry, until a file changed.
func TestPGServerErrorRetried(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	fn := fmt.Sprintf("revfix_kill_%d", time.Now().UnixNano())
	// IMMUTABLE: folded while the source's LIMIT 0 is planned, so it runs.
	if _, err := conn.Exec(ctx, "CREATE FUNCTION "+fn+"() RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN 1; END $$"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP FUNCTION "+fn) })
	t.Setenv("CATALOG_TEST_PGFINAL", dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PGFINAL"}`,
		"p/pg/m.sql":         "-- @source s\nSELECT " + fn + "() AS x;\n",
		"p/pg/ok.sql":        "-- @source t\nSELECT * FROM nosuch_table_revfix;\n",
	})
	svc := newTestService(t, dir, Config{retryFirst: time.Hour})
	why, final, _ := pgFailure(svc, "p/pg", "m")
	if !strings.Contains(why, "57P01") || final {
		t.Errorf("the connection terminated: final=%v, %q; want tried again", final, why)
	}
	why, final, timer := pgFailure(svc, "p/pg", "ok")
	if !strings.Contains(why, "42P01") || !final {
		t.Errorf("a missing table: final=%v, %q; want final", final, why)
	}
	if !timer {
		t.Error("no retry scheduled")
	}
}

// TestPGSourcesNotUTF8Final: a PostgreSQL model whose every source is not
// UTF-8 text fails with that reason, as the catalog's (not tried again).
// Before, its error was "no source of the model could be read (%!w(<nil>))",
// and it was tried again for as long as the server ran.
func TestPGSourcesNotUTF8Final(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGFINAL", pgTestDSN(t))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PGFINAL"}`,
		"p/pg/m.sql":         "-- @source s\nSELECT '\xff' AS y;\n",
	})
	svc := newTestService(t, dir, Config{retryFirst: time.Hour})
	why, final, timer := pgFailure(svc, "p/pg", "m")
	if strings.Contains(why, "%!") || !strings.Contains(why, "not UTF-8") || !final || timer {
		t.Errorf("final=%v timer=%v: %q; want the reason, final, no retry", final, timer, why)
	}
}
