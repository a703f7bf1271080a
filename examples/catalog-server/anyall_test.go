package main

import (
	"context"
	"strings"
	"testing"
)

// TestAnyAllLikeNoPosition: DuckDB's error for LIKE or ILIKE with ANY over a
// list has no position, and the answer gives none (it said "at character 1");
// it says which operator "~~*" is.
func TestAnyAllLikeNoPosition(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source a\nSELECT 1 AS x;\n",
	})
	svc := newTestService(t, dir, Config{})
	_, err := svc.Execute(context.Background(), executeIn{Path: "p/k/m", SQL: "SELECT 1 WHERE 'a' ILIKE ANY (['b'])"})
	te := classify(err)
	if te.Kind != "sql_error" || te.Position != 0 || strings.Contains(te.Error, "character 1") || !strings.Contains(te.Error, `"~~*" is ILIKE`) {
		t.Errorf("%+v", te)
	}
}
