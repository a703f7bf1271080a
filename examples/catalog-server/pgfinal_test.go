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
	// Closed after the cleanups below, which use it (a Cleanup registered
	// earlier runs later; a defer would close it before them).
	t.Cleanup(func() { conn.Close(context.Background()) })
	fn := fmt.Sprintf("revfix_kill_%d", time.Now().UnixNano())
	// IMMUTABLE: folded while the source's LIMIT 0 is planned, so it runs.
	if err := pgWrite(ctx, conn, "CREATE FUNCTION "+fn+"() RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN 1; END $$"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pgWrite(context.Background(), conn, "DROP FUNCTION "+fn); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	denied := fmt.Sprintf("revfix_denied_%d", time.Now().UnixNano())
	if err := pgWrite(ctx, conn, "CREATE TABLE "+denied+" (x int)", "REVOKE ALL ON "+denied+" FROM CURRENT_USER"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pgWrite(context.Background(), conn, "DROP TABLE "+denied); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	t.Setenv("CATALOG_TEST_PGFINAL", dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PGFINAL"}`,
		"p/pg/m.sql":         "-- @source s\nSELECT " + fn + "() AS x;\n",
		"p/pg/ok.sql":        "-- @source t\nSELECT * FROM nosuch_table_revfix;\n",
		// A missing table first, then a source the server fails: a retry may
		// open the second, so the model is tried again.
		"p/pg/mixed.sql": "-- @source t\nSELECT * FROM nosuch_table_revfix;\n\n-- @source s\nSELECT " + fn + "() AS x;\n",
		// A privilege a GRANT may give later (42501) is tried again too.
		"p/pg/denied.sql": "-- @source d\nSELECT * FROM " + denied + ";\n",
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
	why, final, _ = pgFailure(svc, "p/pg", "mixed")
	if !strings.Contains(why, "42P01") || final {
		t.Errorf("a missing table, then the connection terminated: final=%v, %q; want tried again", final, why)
	}
	why, final, _ = pgFailure(svc, "p/pg", "denied")
	if !strings.Contains(why, "42501") || final {
		t.Errorf("permission denied: final=%v, %q; want tried again", final, why)
	}
}

// TestPGWideSourceOpens: a PostgreSQL source whose columns' names and types
// take more than 1 KiB of JSON opens. Before, the check of each source at open
// ran with a budget of 1 KiB, and a table of 40 long-named columns was broken
// ("the result's columns alone … take 2001 bytes of JSON").
func TestPGWideSourceOpens(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGFINAL", pgTestDSN(t))
	var cols []string
	for i := range 40 {
		cols = append(cols, fmt.Sprintf("%d AS customer_address_line_%02d", i, i))
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PGFINAL"}`,
		"p/pg/m.sql":         "-- @source wide\nSELECT " + strings.Join(cols, ", ") + ";\n",
	})
	svc := newTestService(t, dir, Config{retryFirst: time.Hour})
	res, err := svc.Execute(context.Background(), executeIn{Path: "p/pg/m", SQL: "SELECT customer_address_line_39 FROM wide"})
	if err != nil || res.RowCount != 1 || len(res.Columns) != 1 {
		t.Fatalf("a wide source: %v %+v", err, res)
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
