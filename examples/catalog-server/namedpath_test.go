package main

import (
	"strings"
	"testing"
)

// TestNamedQueryCatalogPath: a catalog path in a named query's SQL is placed in
// the SQL as its author wrote it, as DuckDB's own positions are: the server's
// casts of the parameters before it ((CAST($n AS INTEGER))) moved it.
func TestNamedQueryCatalogPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS u;\n\n" +
			"-- @query q\n-- @param n INTEGER\nSELECT $n AS n FROM p.k.m.one;\n",
	})
	svc := newTestService(t, dir, Config{})
	_, te := runNamed(t, svc, "p/k/m/q", `{"n":1}`)
	if te == nil || !strings.Contains(te.Error, "p.k.m.one is a catalog path") || te.Position != 21 {
		t.Errorf("want the catalog path at character 21 of the author's SQL: %+v", te)
	}
}
