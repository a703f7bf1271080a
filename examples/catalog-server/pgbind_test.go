package main

import (
	"context"
	"strings"
	"testing"
)

// TestPostgresOperatorsWithParams: in a PostgreSQL named query with
// parameters, <@ and @@ written right before a name are PostgreSQL's
// operators (the server binds the parameters by position; pgx's named
// arguments read <@ARRAY as the parameter @ARRAY); a parameter used twice has
// one value; an @name in a string, a comment or a dollar quote is text; an
// error after the parameters, which run cast and as $n, is placed in the
// author's SQL; an undeclared parameter is still refused.
func TestPostgresOperatorsWithParams(t *testing.T) {
	pgTestDSN(t)
	dir := t.TempDir()
	bad := "SELECT id FROM items WHERE id > @min AND body <> '@min' AND idd > @min"
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"p/pg/m.sql": "-- @source items\nSELECT * FROM (VALUES (1, ARRAY['a','b'], 'red fox'), (2, ARRAY['c'], 'blue whale'), (3, ARRAY['a'], 'red whale')) AS v(id, tags, body);\n\n" +
			"-- @query find\n-- @param tag TEXT\n-- @param word TEXT\n-- @param min INTEGER\n" +
			"SELECT id, '@tag' AS s, $$@word$$ AS d FROM items -- @nope\nWHERE tags <@ARRAY[@tag, 'b'] AND to_tsvector('simple', body) @@to_tsquery('simple', @word) /* @nope */ AND id >= @min AND id < @min + 10 ORDER BY id;\n\n" +
			"-- @query bad\n-- @param min INTEGER\n" + bad + ";\n\n" +
			"-- @query undeclared\n-- @param min INTEGER\nSELECT id FROM items WHERE id > @min AND id < @max;\n",
	})
	svc := newTestService(t, dir, Config{})
	if q, err := svc.Describe(context.Background(), "p/pg/m/find"); err != nil || len(q.Problems) != 0 {
		t.Fatalf("describe: %+v %v", q, err)
	}
	got, te := runNamed(t, svc, "p/pg/m/find", `{"tag":"a","word":"red","min":1}`)
	if want := `{"Columns":[{"name":"id","type":"int4"},{"name":"s","type":"text"},{"name":"d","type":"text"}],"Rows":[[1,"@tag","@word"],[3,"@tag","@word"]]}`; te != nil || got != want {
		t.Errorf("find: %s %+v\nwant %s", got, te, want)
	}
	_, te = runNamed(t, svc, "p/pg/m/bad", `{"min":1}`)
	if want := strings.Index(bad, "idd") + 1; te == nil || te.Position != want || !strings.Contains(te.Error, `column "idd" does not exist`) {
		t.Errorf("bad: %+v, want position %d", te, want)
	}
	_, te = runNamed(t, svc, "p/pg/m/undeclared", `{"min":1}`)
	if te == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, "uses the parameter @max, which none of its @param lines declares") {
		t.Errorf("undeclared: %+v", te)
	}
}
