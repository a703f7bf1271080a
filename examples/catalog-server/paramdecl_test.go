package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestUncastListParam: a list parameter whose element type the server does not
// cast (STRUCT(a INTEGER)[], MAP(…)[], an enum list) is told when the model
// loads, in the problems of the query, its model and its package, with what
// to write instead; a call is refused as the catalog's fault, saying the same;
// and what it says to write runs.
func TestUncastListParam(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		// A PostgreSQL package is checked too, its server not needed.
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_NO_SUCH_DSN"}`,
		"p/pg/m.sql":         "-- @source s\nSELECT 1 AS v;\n\n-- @query moods\n-- @param m public.mood[]\nSELECT @m AS v;\n",
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n" +
			"-- @query structs\n-- @param p STRUCT(a INTEGER)[]\nSELECT $p AS v;\n\n" +
			"-- @query maps\n-- @param p MAP(VARCHAR, INTEGER)[]\nSELECT $p AS v;\n\n" +
			"-- @query enums\n-- @param e ENUM('x', 'y')[][]\nSELECT $e AS v;\n\n" +
			"-- @query structs_json\n-- @param p JSON\nSELECT CAST($p AS STRUCT(a INTEGER)[]) AS v;\n\n" +
			"-- @query enums_varchar\n-- @param e VARCHAR[][]\nSELECT CAST($e AS ENUM('x', 'y')[][]) AS v;\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx := context.Background()
	want := map[string]string{
		"structs": `p/k/m.sql: query structs (line 6): @param p STRUCT(a INTEGER)[] is a list of STRUCT(a INTEGER), a type the server does not cast a value to (only a name with an optional precision, and list brackets: INTEGER[], DECIMAL(5,2)[]), so its value would reach the engine as text, not as a list; declare it as JSON (a call gives "[{\"a\": 1}]") and convert it in the SQL: CAST($p AS STRUCT(a INTEGER)[])`,
		"maps":    `p/k/m.sql: query maps (line 10): @param p MAP(VARCHAR, INTEGER)[] is a list of MAP(VARCHAR, INTEGER)`,
		"enums":   `p/k/m.sql: query enums (line 14): @param e ENUM('x', 'y')[][] is a list of ENUM('x', 'y'), a type the server does not cast a value to (only a name with an optional precision, and list brackets: INTEGER[], DECIMAL(5,2)[]), so its value would reach the engine as text, not as a list; declare it as VARCHAR[][] (a call gives ["a", "b"]) and convert it in the SQL: CAST($e AS ENUM('x', 'y')[][])`,
	}
	pkg, _ := svc.Describe(ctx, "p/k")
	model, _ := svc.Describe(ctx, "p/k/m")
	for name, w := range want {
		q, err := svc.Describe(ctx, "p/k/m/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for what, probs := range map[string][]string{"package": pkg.Problems, "model": model.Problems, "query": q.Problems} {
			if !strings.Contains(strings.Join(probs, "\n"), w) {
				t.Errorf("%s problems lack %q:\n%s", what, w, strings.Join(probs, "\n"))
			}
		}
		if !strings.Contains(logs.String(), "query "+name+" (line") {
			t.Errorf("the log lacks query %s", name)
		}
	}
	pgq, _ := svc.Describe(ctx, "p/pg/m/moods")
	if w := `p/pg/m.sql: query moods (line 6): @param m public.mood[] is a list of public.mood, a type the server does not cast a value to (only a name with an optional precision, and list brackets: INTEGER[], DECIMAL(5,2)[]), so its value would reach the engine as text, not as a list; declare it as TEXT[] (a call gives ["a", "b"]) and convert it in the SQL: CAST(@m AS public.mood[])`; !strings.Contains(strings.Join(pgq.Problems, "\n"), w) {
		t.Errorf("PostgreSQL query problems lack %q:\n%s", w, strings.Join(pgq.Problems, "\n"))
	}
	for _, name := range []string{"structs_json", "enums_varchar"} {
		if q, _ := svc.Describe(ctx, "p/k/m/"+name); len(q.Problems) != 0 {
			t.Errorf("%s: %q", name, q.Problems)
		}
	}
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/structs", "parameters": map[string]any{"p": []any{map[string]any{"a": 1}}}}, &te)
	if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, `parameter "p" cannot be bound, so no call can run this query: @param p STRUCT(a INTEGER)[] is a list of STRUCT(a INTEGER)`) || !strings.Contains(te.Error, "declare it as JSON") {
		t.Errorf("calling structs: %+v", te)
	}
	// What the problems say to write runs.
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/structs_json", "parameters": map[string]any{"p": `[{"a": 1}]`}}, &res); r.IsError || len(res.Rows) != 1 {
		t.Errorf("structs_json: %s", text(r))
	}
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/enums_varchar", "parameters": map[string]any{"e": []any{[]any{"x", "y"}}}}, &res); r.IsError || len(res.Rows) != 1 {
		t.Errorf("enums_varchar: %s", text(r))
	}
}

// TestBitParam: a BIT (BITSTRING) parameter holding another character than 0
// and 1 is refused naming the parameter and the form DuckDB reads (DuckDB's own
// error names only the character), also as a list's element.
func TestBitParam(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n-- @query b\n-- @param b BIT\nSELECT $b AS v;\n\n" +
			"-- @query bl\n-- @param b BITSTRING[]\nSELECT $b AS v;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for _, tc := range []struct {
		path string
		v    any
		want string
	}{
		{"p/k/m/b", "102", `parameter "b" must be a BIT written as 0s and 1s only, at least one and no spaces (e.g. "10110"), got "102": '2' at character 3 is not 0 or 1`},
		{"p/k/m/b", "", `parameter "b" must be a BIT written as 0s and 1s only, at least one and no spaces (e.g. "10110"), got "": empty`},
		{"p/k/m/bl", []any{"1", "1 0"}, `parameter "b[1]" must be a BITSTRING written as 0s and 1s only, at least one and no spaces (e.g. "10110"), got "1 0": ' ' at character 2 is not 0 or 1`},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": tc.path, "parameters": map[string]any{"b": tc.v}}, &te)
		if !r.IsError || te.Kind != "invalid" || te.Error != tc.want {
			t.Errorf("%s %v: %+v", tc.path, tc.v, te)
		}
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/b", "parameters": map[string]any{"b": "101"}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != "101" {
		t.Errorf("a BIT: %s", text(r))
	}
}
