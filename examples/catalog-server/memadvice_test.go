package main

import (
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestNamedMemoryAdvice: a named query stopped at the model's memory limit is
// advised as its timeout is — values that select less, or its SQL run as sql
// — not "aggregate, filter or select fewer columns", which the caller cannot
// do to SQL it did not write. Ad-hoc SQL keeps the general advice.
func TestNamedMemoryAdvice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n" +
			"-- @query lst\n-- @param n INTEGER how many\nSELECT list(i) AS l FROM range($n) t(i);\n\n" +
			"-- @query big\nSELECT list(i) AS l FROM range(30000000) t(i);\n",
	})
	svc := newTestService(t, dir, Config{Duck: engine.DuckConfig{MemoryLimit: "64MB"}})
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
	for _, tc := range []struct {
		args       map[string]any
		want, dont string
	}{
		{map[string]any{"path": "p/k/m", "queryName": "lst", "parameters": map[string]any{"n": 30000000}},
			`Call it again with parameter values that select less (a shorter range, a narrower filter) than this call's {"n":30000000} — its parameters: n INTEGER (how many); or run its SQL (describe p/k/m/lst shows it) as sql against the model p/k/m`, "Aggregate, filter"},
		{map[string]any{"path": "p/k/m/big"},
			"The named query takes no parameters, so calling it again runs out of memory again: run its SQL (describe p/k/m/big shows it) as sql against the model p/k/m", "Aggregate, filter"},
		{map[string]any{"path": "p/k/m", "sql": "SELECT list(i) AS l FROM range(30000000) t(i)"},
			"", "Call it again with"},
	} {
		var te toolError
		res := call(t, cs, "execute_query", tc.args, &te)
		if !res.IsError || te.Kind != "out_of_memory" || !strings.Contains(te.Hint, tc.want) || strings.Contains(te.Hint, tc.dont) {
			t.Errorf("%v: kind %q, error %q, hint %q; want out_of_memory, %q", tc.args, te.Kind, te.Error, te.Hint, tc.want)
		}
		if tc.want != "" && strings.Contains(te.Error, "Ask for less work") {
			t.Errorf("%v: the error still says %q", tc.args, te.Error)
		}
	}
}
