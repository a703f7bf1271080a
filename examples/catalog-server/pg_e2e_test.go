package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/examples/catalog-server/internal/testkit"
)

// TestPostgresOverMCP serves a package whose data live in PostgreSQL
// (CATALOG_TEST_PG_DSN; see engine's tests for when this skips).
func TestPostgresOverMCP(t *testing.T) {
	dsn := pgTestDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgWrite(ctx, conn,
		"DROP SCHEMA IF EXISTS hr CASCADE", "CREATE SCHEMA hr",
		"CREATE TABLE hr.staff (id int PRIMARY KEY, name text, team text, salary int)",
		"INSERT INTO hr.staff SELECT i, 'person ' || i, (ARRAY['ops','data','web'])[1 + i % 3], 40000 + i * 100 FROM generate_series(1, 300) i",
	); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	dir := t.TempDir()
	files := map[string]string{
		"company/hr/manifest.json": `{"description": "Staff records in PostgreSQL.", "engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN", "schema": "hr"}`,
		"company/hr/people.sql": `-- People.
-- Everyone on the payroll.
-- @source staff
SELECT id, name, team, salary FROM staff;
-- Head count of one team.
-- @query team_size
-- @param team VARCHAR
SELECT count(*) AS people FROM staff WHERE team = @team;
-- Hours from a moment to midnight UTC of 2024-07-15.
-- @query hours_left
-- @param at TIMESTAMPTZ
SELECT extract(epoch FROM TIMESTAMPTZ '2024-07-15 00:00Z' - @at) / 3600 AS hours;
-- How deep a JSON document nests (as far as 3 levels).
-- @query depth
-- @param doc JSONB
SELECT CASE WHEN jsonb_typeof(CAST(@doc AS jsonb) -> 0 -> 0) IS NOT NULL THEN 3 WHEN jsonb_typeof(CAST(@doc AS jsonb) -> 0) IS NOT NULL THEN 2 ELSE 1 END AS depth;
`,
	}
	writeFiles(t, dir, files)
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var d Description
	call(t, cs, "describe", map[string]any{"path": "company/hr/people/staff"}, &d)
	if d.Engine != "postgres" || d.RowCount == nil || *d.RowCount != 300 || len(d.Columns) != 4 || d.Columns[3].Type != "int4" || len(d.SampleRows) != sampleRows {
		t.Errorf("describe: %+v", d)
	}
	var found searchOut
	call(t, cs, "search_catalog", map[string]any{"query": "salary"}, &found)
	if len(found.Results) != 1 || found.Results[0].Path != "company/hr/people/staff" {
		t.Errorf("search: %+v", found)
	}
	var res engine.Result
	call(t, cs, "execute_query", map[string]any{"path": "company/hr/people", "sql": "SELECT team, count(*) AS n FROM staff GROUP BY team ORDER BY team"}, &res)
	if len(res.Rows) != 3 || res.Rows[0][0] != "data" || res.Rows[0][1] != float64(100) {
		t.Errorf("aggregate: %+v", res)
	}
	call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/team_size", "parameters": map[string]any{"team": "web"}}, &res)
	if len(res.Rows) != 1 || res.Rows[0][0] != float64(100) {
		t.Errorf("named query: %+v", res)
	}
	// A TIMESTAMPTZ parameter in forms PostgreSQL reads and DuckDB does not.
	for v, want := range map[string]float64{"2024-07-14T09:30Z": 14.5, "2024-07-14 09:30 Europe/Paris": 16.5, "2024-07-14 09:30:00 +02:00": 16.5} {
		res = engine.Result{}
		if r := call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/hours_left", "parameters": map[string]any{"at": v}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != want {
			t.Errorf("TIMESTAMPTZ %q: %s", v, text(r))
		}
	}
	// Nonsense is refused before the query; what PostgreSQL refuses is blamed
	// on the parameter too.
	for v, want := range map[string]string{
		"2024-13-14 09:30Z":             "there is no month 13",
		"2024-07-14 09:30 Mars/Olympus": `time zone "mars/olympus" not recognized`,
		"2024-07-14 09:30:00+16":        "time zone displacement out of range",
		"294277-01-01":                  "timestamp out of range",
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/hours_left", "parameters": map[string]any{"at": v}}, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "at" must be a TIMESTAMPTZ`) || !strings.Contains(te.Error, want) {
			t.Errorf("TIMESTAMPTZ %q: %+v", v, te)
		}
	}
	// JSON as deep as PostgreSQL reads it (deeper than encoding/json goes), and
	// deeper than its stack, which is blamed on the parameter.
	res = engine.Result{}
	if r := call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/depth", "parameters": map[string]any{"doc": strings.Repeat("[", 10001) + strings.Repeat("]", 10001)}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != float64(3) {
		t.Errorf("JSONB 10001 levels deep: %s", text(r))
	}
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/depth", "parameters": map[string]any{"doc": strings.Repeat("[", 200000) + strings.Repeat("]", 200000)}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "doc" must be a JSONB nested less deeply (200000 levels`) {
		t.Errorf("JSONB 200000 levels deep: %+v", te)
	}
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "company/hr/people/depth", "parameters": map[string]any{"doc": `[1e131072]`}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "doc" must be a JSONB whose numbers PostgreSQL's numeric holds`) {
		t.Errorf("JSONB number past numeric: %+v", te)
	}
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "company/hr/people", "sql": "COMMIT; DROP TABLE staff"}, &te)
	if !r.IsError || te.Kind != "refused" || !strings.Contains(te.Error, "more than one statement") {
		t.Errorf("commit; drop: %+v", te)
	}
	// A SQL error keeps PostgreSQL's SQLSTATE, in the structured content and the text.
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "company/hr/people", "sql": "SELECT nme FROM staff"}, &te)
	if !r.IsError || te.Kind != "sql_error" || te.SQLState != "42703" || te.Position != 8 || !strings.Contains(text(r), "SQLSTATE 42703") {
		t.Errorf("unknown column: %+v", te)
	}
}

// pgTestDSN returns the connection string of the PostgreSQL the tests run
// against (CATALOG_TEST_PG_DSN), skips the test without one, and fails it
// without one under CI, where .ci/catalog.sh starts a server.
func pgTestDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("CATALOG_TEST_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CATALOG_TEST_PG_DSN is unset under CI: .ci/catalog.sh should have started PostgreSQL")
		}
		t.Skip("CATALOG_TEST_PG_DSN is unset: no PostgreSQL to test against (see .ci/catalog.sh)")
	}
	return dsn
}

// pgWrite runs a test's fixture statements in one READ WRITE transaction
// (testkit.PGWrite): the test role's default is read-only.
var pgWrite = testkit.PGWrite
