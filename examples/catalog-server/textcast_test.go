package main

import (
	"strings"
	"testing"
)

// TestTextParamConverted: a text parameter (VARCHAR, TEXT, VARCHAR(n)) whose
// value the named query converts to another type, and the engine cannot, is
// the caller's value (kind invalid: the query is fine for values that
// convert), told as a conversion the query makes, not as a value the engine
// "could not read as a VARCHAR", which any string is. The same whether the
// SQL casts it (CAST(trim($s) AS INTEGER)) or DuckDB converts it to compare
// with an INTEGER column.
func TestTextParamConverted(t *testing.T) {
	check := func(t *testing.T, svc *Service, path, typ string) {
		t.Helper()
		for _, v := range []string{"abc", `12\n3`} {
			_, te := runNamed(t, svc, path, `{"s":"`+v+`"}`)
			want := `parameter "s" (a ` + typ + `) is converted by the named query, and the engine could not convert "` + v + `"`
			if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, want) || strings.Contains(te.Error, "could not read") {
				t.Errorf("%s %q: %+v, want invalid with %q", path, v, te, want)
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
			"p/k/m.sql": "-- @source src\nSELECT 42 AS x;\n\n" +
				"-- @query num\n-- @param s VARCHAR\nSELECT CAST(trim($s) AS INTEGER) AS n;\n\n" +
				"-- @query numtext\n-- @param s TEXT\nSELECT CAST(trim($s) AS INTEGER) AS n;\n\n" +
				"-- @query cmp\n-- @param s VARCHAR\nSELECT x FROM src WHERE x = trim($s);\n",
		})
		svc := newTestService(t, dir, Config{})
		check(t, svc, "p/k/m/num", "VARCHAR")
		check(t, svc, "p/k/m/numtext", "TEXT")
		check(t, svc, "p/k/m/cmp", "VARCHAR")
	})
	t.Run("postgres", func(t *testing.T) {
		svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
			"-- @query num\n-- @param s TEXT\nSELECT trim(@s)::integer AS n;\n\n"+
			"-- @query numvar\n-- @param s VARCHAR(20)\nSELECT trim(@s)::integer AS n;\n")
		check(t, svc, "p/pg/m/num", "TEXT")
		check(t, svc, "p/pg/m/numvar", "VARCHAR(20)")
	})
}
