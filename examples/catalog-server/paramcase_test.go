package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestParamNameCase: DuckDB reads parameter names without regard to case. Two
// @param names of a DuckDB query that differ only in case are the catalog's
// fault, told when the model loads and at every call, naming both (before,
// {"Ab":"7","AB":41} ran as ["7", 8]: $AB got Ab's value cast to INTEGER and 41
// was dropped, and the load check said "@param AB is declared but the SQL
// never uses $AB"). A placeholder written in another case than its @param
// line is that parameter, as DuckDB reads it (before: refused as undeclared).
// A call still names each value exactly as declared, and no value is
// dropped. PostgreSQL binds @Ab and @AB apart.
func TestParamNameCase(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query qcase2\n-- @param Ab VARCHAR x\n-- @param AB INTEGER y\nSELECT $Ab AS s, $AB + 1 AS n;\n\n" +
			"-- @query qlow\n-- @param Ab INTEGER x\nSELECT $ab + 1 AS n, $AB AS m, $Ab AS o;\n\n" +
			"-- @query qmap\n-- @param Mm MAP(VARCHAR, INTEGER)\n-- @param Ll INTEGER[]\nSELECT CAST($mm AS MAP(VARCHAR, INTEGER)) AS m, $LL AS l;\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	clash := "p/k/m.sql: query qcase2 (line 7): @param Ab and @param AB differ only in case, and DuckDB reads $Ab and $AB as one parameter, so no call can run the query: rename one of them"
	for _, path := range []string{"p/k", "p/k/m", "p/k/m/qcase2"} {
		d, err := svc.Describe(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(d.Problems, "\n")
		if !strings.Contains(all, clash) || strings.Contains(all, "never uses") {
			t.Errorf("%s problems:\n%s\nwant %q and no \"never uses\"", path, all, clash)
		}
	}
	for _, path := range []string{"p/k/m/qlow", "p/k/m/qmap"} {
		if d, _ := svc.Describe(ctx, path); len(d.Problems) != 0 {
			t.Errorf("%s problems: %q", path, d.Problems)
		}
	}
	for _, params := range []string{`{"Ab":"7","AB":41}`, `{"Ab":"hello","AB":41}`, `{}`} {
		_, te := runNamed(t, svc, "p/k/m/qcase2", params)
		if te == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, `named query qcase2 declares the parameters "Ab" (VARCHAR) and "AB" (INTEGER), whose names differ only in case`) || !strings.Contains(te.Error, "the catalog's file must rename one of them") {
			t.Errorf("qcase2 %s: %+v", params, te)
		}
	}
	for _, tc := range []struct{ path, params, want string }{
		{"p/k/m/qlow", `{"Ab":41}`, `{"Columns":[{"name":"n","type":"INTEGER"},{"name":"m","type":"INTEGER"},{"name":"o","type":"INTEGER"}],"Rows":[[42,41,41]]}`},
		{"p/k/m/qmap", `{"Mm":"{a=1}","Ll":[1,2]}`, `{"Columns":[{"name":"m","type":"MAP(VARCHAR, INTEGER)"},{"name":"l","type":"INTEGER[]"}],"Rows":[[[{"key":"a","value":1}],[1,2]]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	// Values are named as declared: another case is told, never dropped.
	for _, tc := range []struct{ params, want string }{
		{`{"ab":41}`, `named query qlow needs parameter "Ab" (given as "ab": names are exact, without $)`},
		{`{"Ab":41,"ab":1}`, `named query qlow has no parameter "ab"`},
		{`{"Ab":"x"}`, `parameter "Ab" must be an integer (INTEGER)`},
	} {
		_, te := runNamed(t, svc, "p/k/m/qlow", tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("qlow %s: %+v, want %q", tc.params, te, tc.want)
		}
	}
}

// TestParamNameCasePostgres: PostgreSQL's @Ab and @AB are two parameters, each
// bound its own value (CATALOG_TEST_PG_DSN).
func TestParamNameCasePostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source one\nSELECT 1 AS x;\n\n"+
		"-- @query qcase2\n-- @param Ab VARCHAR x\n-- @param AB INTEGER y\nSELECT @Ab AS s, @AB + 1 AS n;\n")
	if d, _ := svc.Describe(context.Background(), "p/pg/m/qcase2"); len(d.Problems) != 0 {
		t.Errorf("problems: %q", d.Problems)
	}
	got, te := runNamed(t, svc, "p/pg/m/qcase2", `{"Ab":"7","AB":41}`)
	var res struct{ Rows [][]any }
	_ = json.Unmarshal([]byte(got), &res)
	if te != nil || len(res.Rows) != 1 || res.Rows[0][0] != "7" || res.Rows[0][1] != 42.0 {
		t.Errorf("got %s %+v, want [\"7\", 42]", got, te)
	}
}
