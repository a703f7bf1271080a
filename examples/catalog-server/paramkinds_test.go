package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestParamWrongKind: a value of another JSON kind than its parameter's type
// takes says the kind expected and the kind given (it read as a contradiction:
// "must be true or false, got "true""), and a DATE, TIME or INTERVAL given a
// number says the string form it takes, with an example.
func TestParamWrongKind(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	for _, tc := range []struct {
		typ  string
		v    any
		want string
	}{
		{"BOOLEAN", "true", `parameter "x" must be a JSON boolean (true or false, without quotes), got the string "true"`},
		{"BOOLEAN", n("1"), `parameter "x" must be a JSON boolean (true or false, without quotes), got the number 1`},
		{"DOUBLE", "1.5", `parameter "x" must be a JSON number (DOUBLE; e.g. 1.5, without quotes), got the string "1.5"`},
		{"DOUBLE", []any{n("1")}, `got the list [1]`},
		{"DATE", n("20240714"), `parameter "x" must be a JSON string (DATE, in double quotes, written YYYY-MM-DD, e.g. "2024-07-14"), got the number 20240714`},
		{"TIME", n("930"), `parameter "x" must be a JSON string (TIME, in double quotes, written HH:MM[:SS[.fraction]], e.g. "09:30:00"), got the number 930`},
		{"INTERVAL", n("3600"), `parameter "x" must be a JSON string (INTERVAL, in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 3600: a number of seconds is written "3600 seconds"`},
		{"VARCHAR", true, `parameter "x" must be a JSON string (VARCHAR, in double quotes), got the boolean true`},
		{"UUID", map[string]any{"a": n("1")}, `must be a JSON string (UUID, in double quotes, written 8-4-4-4-12 hexadecimal digits, e.g. "123e4567-e89b-12d3-a456-426614174000"), got the object {"a":1}`},
	} {
		q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "x", Type: tc.typ}}}
		_, err := checkParams(q, map[string]any{"x": tc.v})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.typ, tc.v, err, tc.want)
		}
	}
}

// TestCallErrorWording: each error blames the right party in plain words — a
// notebook cell using $x takes no parameters (it was told to declare @param); a
// @param type the engine does not know is the catalog's fault naming the
// parameter (it was DuckDB's sql_error with "Did you mean "JSON"?" and a hint to
// run corrected SQL); a value the engine cannot read as an INTERVAL is blamed
// without DuckDB's excerpt of the catalog's SQL; a parameter the SQL uses but
// does not declare, given by the call, is the catalog's fault (it was "has no
// parameter"); an unknown table DuckDB guesses a system view for loses the
// guess; ad-hoc $id is refused in the server's words, not as "duckdb error:";
// a misspelled engine is told the engine it looks like.
func TestCallErrorWording(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n",
		"p/k/m.sql": "-- @source a\nSELECT * FROM 'data/a.csv';\n\n" +
			"-- @query foo\n-- @param f FOOTYPE\nSELECT $f AS f;\n\n" +
			"-- @query iv\n-- @param i INTERVAL\nSELECT $i AS i, typeof($i) AS t;\n\n" +
			"-- @query und\n-- @param a INTEGER\nSELECT $a + $b AS s;\n",
		"p/k/n.sql":         "-- @source customers\nSELECT 1 AS id;\n",
		"p/k/nb.md":         "# NB\n\n```sql\nSELECT $x AS x\n```\n",
		"p/j/manifest.json": `{"engine":"duckbd"}`,
	})
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for _, tc := range []struct {
		args       map[string]any
		kind, want string
		not        string
	}{
		{map[string]any{"path": "p/k/nb", "queryName": "cell-1"}, "unavailable",
			"notebook cell cell-1 uses the parameter $x, but a notebook cell takes no parameters, so no call can give it a value; the notebook must write the value into the cell (or make it a named query of a model). To run it now, run the cell's SQL with sql against path p/k/m, the value written in as a literal", "@param"},
		{map[string]any{"path": "p/k/nb", "queryName": "cell-1", "parameters": map[string]any{"x": 1}}, "unavailable",
			"notebook cell cell-1 uses the parameter $x, but a notebook cell takes no parameters", "drop"},
		{map[string]any{"path": "p/k/m/foo", "parameters": map[string]any{"f": "x"}}, "unavailable",
			`named query foo declares its parameter "f" as FOOTYPE (@param f FOOTYPE), a type the engine does not know (Catalog Error: Type with name FOOTYPE does not exist!), so no call can run it`, "Did you mean"},
		{map[string]any{"path": "p/k/m/iv", "parameters": map[string]any{"i": "yesterday"}}, "invalid",
			`parameter "i" must be an INTERVAL, and the engine could not read "yesterday" as one (Conversion Error: Could not convert string 'yesterday' to INTERVAL); call again`, "LINE 1"},
		{map[string]any{"path": "p/k/m/und", "parameters": map[string]any{"a": 1, "b": 2}}, "unavailable",
			"named query und uses the parameter $b, which none of its @param lines declares", "has no parameter"},
		{map[string]any{"path": "p/k/m", "sql": "SELECT * FROM customers"}, "sql_error",
			"Table with name customers does not exist!\n\nLINE 1: SELECT * FROM customers", "sqlite_master"},
		{map[string]any{"path": "p/k/m", "sql": "SELECT * FROM a WHERE x = $id"}, "sql_error",
			"the SQL uses the parameter $id, but ad-hoc SQL takes no parameters", "duckdb error"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		if !r.IsError || te.Kind != tc.kind || !strings.Contains(te.Error, tc.want) || strings.Contains(te.Error, tc.not) {
			t.Errorf("%v: %+v", tc.args, te)
		}
	}
	if !slices.ContainsFunc(svc.Catalog().Diagnostics, func(d string) bool {
		return strings.Contains(d, `unknown engine "duckbd" (want duckdb or postgres): did you mean "duckdb"?`)
	}) {
		t.Errorf("diagnostics: %v", svc.Catalog().Diagnostics)
	}
}
