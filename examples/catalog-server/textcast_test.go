package main

import (
	"strings"
	"testing"
)

// TestTextParamCastBlamesQuery: a text parameter (VARCHAR, TEXT, a list of
// them) whose value a named query casts to another type, and fails, is the
// named query's failure (sql_error, with the engine's message), not a value
// the engine "could not read as" the text it is. Before, the value quoted in
// the engine's message made the server tell the caller that "12\n3" or "abc"
// was not a VARCHAR.
func TestTextParamCastBlamesQuery(t *testing.T) {
	check := func(t *testing.T, svc *Service, path string) {
		t.Helper()
		for _, params := range []string{`{"s":"abc"}`, `{"s":"12\n3"}`} {
			_, te := runNamed(t, svc, path, params)
			if te == nil || te.Kind != "sql_error" || strings.Contains(te.Error, `parameter "s" must be`) || !strings.Contains(te.Error, "INT") && !strings.Contains(te.Error, "integer") {
				t.Errorf("%s %s: %+v, want the named query's sql_error naming the integer cast", path, params, te)
			}
		}
		if out, te := runNamed(t, svc, path, `{"s":" 42 "}`); te != nil || !strings.Contains(out, "42") {
			t.Errorf("%s 42: %s %+v", path, out, te)
		}
	}
	t.Run("duckdb", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"p/k/manifest.json": `{}`,
			"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
				"-- @query num\n-- @param s VARCHAR\nSELECT CAST(trim($s) AS INTEGER) AS n;\n\n" +
				"-- @query numtext\n-- @param s TEXT\nSELECT CAST(trim($s) AS INTEGER) AS n;\n",
		})
		svc := newTestService(t, dir, Config{})
		check(t, svc, "p/k/m/num")
		check(t, svc, "p/k/m/numtext")
	})
	t.Run("postgres", func(t *testing.T) {
		pgTestDSN(t)
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
			"p/pg/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
				"-- @query num\n-- @param s TEXT\nSELECT trim(@s)::integer AS n;\n\n" +
				"-- @query numvar\n-- @param s VARCHAR(20)\nSELECT trim(@s)::integer AS n;\n",
		})
		svc := newTestService(t, dir, Config{})
		check(t, svc, "p/pg/m/num")
		check(t, svc, "p/pg/m/numvar")
	})
}
