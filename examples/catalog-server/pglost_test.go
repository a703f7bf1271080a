package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPGSessionEndedIsUnavailable: a query whose PostgreSQL session ends
// under it — a restart, a failover, here pg_terminate_backend (the same
// SQLSTATE 57P01, "terminating connection due to administrator command") — is
// answered as unavailable with advice to call again, for ad-hoc SQL and for a
// named query; not as an error in the SQL. The next query runs. (Before, both
// came back sql_error: "Fix the SQL and call again", and for the named query
// "the error is in the catalog's SQL".)
func TestPGSessionEndedIsUnavailable(t *testing.T) {
	super := os.Getenv("CATALOG_TEST_PG_SUPER_DSN")
	if super == "" {
		t.Skip("CATALOG_TEST_PG_SUPER_DSN is unset: no superuser to end a session with (see .ci/catalog.sh)")
	}
	svc := pgModelService(t, "-- @source items\nSELECT 1 AS id;\n\n"+
		"-- @query slow\n-- @param n INTEGER\nSELECT pg_sleep(20) AS s, 'hpe-lost-named' AS tag, @n AS n;\n")
	ctx := context.Background()
	sc, err := pgx.Connect(ctx, super)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	// terminate ends the server session running the query tagged tag, once
	// it shows in pg_stat_activity.
	terminate := func(tag string) {
		for range 200 {
			var ended bool
			err := sc.QueryRow(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'", tag).Scan(&ended)
			if err == nil && ended {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("no session ran the query tagged %s", tag)
	}
	for _, tc := range []struct {
		name string
		in   executeIn
		tag  string
	}{
		{"ad-hoc", executeIn{Path: "p/pg/m", SQL: "SELECT pg_sleep(20) AS s, 'hpe-lost-adhoc' AS tag FROM items"}, "hpe-lost-adhoc"},
		{"named", executeIn{Path: "p/pg/m/slow", Parameters: paramValues{"n": json.Number("1")}}, "hpe-lost-named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := svc.Execute(ctx, tc.in)
				done <- err
			}()
			terminate(tc.tag)
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the query did not end")
			}
			if err == nil {
				t.Fatal("the query ran to its end")
			}
			if time.Since(start) > 15*time.Second {
				t.Errorf("the query ended after %v, not when its session did", time.Since(start))
			}
			te := classify(err)
			if te.Kind != "unavailable" || !strings.Contains(te.Hint, "Call again") || strings.Contains(te.Hint, "the SQL") || strings.Contains(te.Hint, "catalog's SQL") ||
				!strings.Contains(te.Error, "the connection to the PostgreSQL server named by CATALOG_TEST_PG_DSN broke") ||
				!strings.Contains(te.Error, "terminating connection due to administrator command") || te.SQLState != "" {
				t.Errorf("%+v", te)
			}
			// The next query runs, on a connection of its own.
			res, err := svc.Execute(ctx, executeIn{Path: "p/pg/m", SQL: "SELECT id FROM items"})
			if err != nil || len(res.Rows) != 1 {
				t.Errorf("the next query: %+v %v", res, err)
			}
		})
	}
}
