package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonListElems are JSON texts a JSON[] parameter's elements may hold: strings
// that look like other JSON (numbers, booleans, null, arrays), strings with
// quotes, backslashes, brackets, braces and commas, JSON null and the string
// "null", nested arrays and objects, and white space around a value.
var jsonListElems = []string{
	`"1"`, `"true"`, `"null"`, `null`, `"[1, 2]"`, `{"a": 1}`, `"abc"`, `""`,
	`"a\"b"`, `"x\\y"`, `"\\"`, `"\""`, `"[\"a\", 1]"`, `"{\"a\": 1}"`, `"a,b"`,
	`"]"`, `"["`, `"}"`, `"NULL"`, `"'q'"`, `"é"`, `"\u00e9\n\t"`,
	`1`, `-1.5e3`, `true`, `false`, `[1, "2", [3, null]]`, `[]`, `{}`,
	`{"a": [1, {"b": "c,d]"}], "e": null}`, ` [ 1 , 2 ] `, `"  spaced  "`,
}

// TestJSONListParam: each element of a JSON[] parameter arrives as the same
// JSON a JSON parameter given that text gets, on DuckDB. (Before, DuckDB's list
// cast read the element "\"1\"" as the number 1, "\"true\"" as true and
// "\"null\"" as null, and refused "\"abc\"" as malformed JSON.)
func TestJSONListParam(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query one\n-- @param j JSON\nSELECT $j AS j, CAST($j AS VARCHAR) AS t;\n\n" +
			"-- @query many\n-- @param l JSON[]\nSELECT $l AS l, CAST($l AS VARCHAR[]) AS t, len($l) AS n;\n\n" +
			"-- @query grid\n-- @param g JSON[][]\nSELECT $g AS g;\n",
	})
	svc := newTestService(t, dir, Config{})
	rows := func(path string, params any) []any {
		t.Helper()
		raw, _ := json.Marshal(params)
		got, te := runNamed(t, svc, path, string(raw))
		if te != nil {
			t.Fatalf("%s %s: %+v", path, raw, te)
		}
		var res struct{ Rows [][]any }
		if err := json.Unmarshal([]byte(got), &res); err != nil || len(res.Rows) != 1 {
			t.Fatalf("%s %s: %s", path, raw, got)
		}
		return res.Rows[0]
	}
	var wantVals, wantTexts []any
	for _, e := range jsonListElems {
		r := rows("p/k/m/one", map[string]any{"j": e})
		wantVals = append(wantVals, r[0])
		wantTexts = append(wantTexts, r[1])
		// The value a JSON parameter gets is the JSON sent.
		var sent any
		_ = json.Unmarshal([]byte(e), &sent)
		if !reflect.DeepEqual(r[0], sent) {
			t.Errorf("JSON %s came back %#v", e, r[0])
		}
	}
	r := rows("p/k/m/many", map[string]any{"l": jsonListElems})
	if !reflect.DeepEqual(r[0], wantVals) {
		t.Errorf("JSON[] values:\n got %#v\nwant %#v", r[0], wantVals)
	}
	if !reflect.DeepEqual(r[1], wantTexts) {
		t.Errorf("JSON[] texts:\n got %#v\nwant %#v", r[1], wantTexts)
	}
	if r[2] != float64(len(jsonListElems)) {
		t.Errorf("JSON[] length %v, want %d", r[2], len(jsonListElems))
	}
	g := rows("p/k/m/grid", map[string]any{"g": [][]string{{`"1"`, `"null"`}, {`null`, `"[1]"`}}})
	if want := []any{[]any{"1", "null"}, []any{nil, "[1]"}}; !reflect.DeepEqual(g[0], want) {
		t.Errorf("JSON[][]: got %#v, want %#v", g[0], want)
	}
	// Not JSON is still refused, naming the element.
	_, te := runNamed(t, svc, "p/k/m/many", `{"l":["1","abc"]}`)
	if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "l[1]" must be a JSON value written as JSON text`) {
		t.Errorf("not JSON: %+v", te)
	}
}

// TestJSONListParamPostgres: the same on PostgreSQL's JSONB[] and JSON[]
// (CATALOG_TEST_PG_DSN).
func TestJSONListParamPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source src\nSELECT 1 AS x;\n\n"+
		"-- @query one\n-- @param j JSONB\nSELECT @j AS j;\n\n"+
		"-- @query many\n-- @param l JSONB[]\nSELECT @l AS l;\n\n"+
		"-- @query manyjson\n-- @param l JSON[]\nSELECT @l AS l;\n")
	var want []any
	for _, e := range jsonListElems {
		raw, _ := json.Marshal(map[string]any{"j": e})
		got, te := runNamed(t, svc, "p/pg/m/one", string(raw))
		var res struct{ Rows [][]any }
		if te != nil || json.Unmarshal([]byte(got), &res) != nil {
			t.Fatalf("%s: %s %+v", raw, got, te)
		}
		want = append(want, res.Rows[0][0])
	}
	for _, path := range []string{"p/pg/m/many", "p/pg/m/manyjson"} {
		raw, _ := json.Marshal(map[string]any{"l": jsonListElems})
		got, te := runNamed(t, svc, path, string(raw))
		var res struct{ Rows [][]any }
		if te != nil || json.Unmarshal([]byte(got), &res) != nil || !reflect.DeepEqual(res.Rows[0][0], want) {
			t.Errorf("%s: %s %+v\nwant %#v", path, got, te, want)
		}
	}
}
