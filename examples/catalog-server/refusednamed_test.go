package main

import (
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestRefusedNamedQuery: a named query or notebook cell whose SQL the server
// refuses is the catalog's fault (kind unavailable, the catalog's file to fix),
// not the caller's: before, it was kind refused and said to call again, which no
// call can change. A refusal the parameters' values may have caused (a file
// named by a parameter) stays the caller's, in the server's process and in
// query processes (the refusal crosses between them).
func TestRefusedNamedQuery(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n",
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n" +
			"-- @query del\nDELETE FROM s;\n\n" +
			"-- @query passwd\nSELECT * FROM read_csv('/etc/passwd');\n\n" +
			"-- @query sleepy\nSELECT sleep_ms(10) AS v;\n\n" +
			"-- @query byname\n-- @param f VARCHAR a file\nSELECT * FROM read_csv($f);\n",
		"p/k/n.md": "# N\n\nA notebook.\n\n```sql\nSELECT sleep_ms(10) AS v\n```\n",
	})
	for _, mode := range []struct {
		name string
		cfg  Config
	}{
		{"in process", Config{}},
		{"query processes", Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			svc := newTestService(t, dir, mode.cfg)
			cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
			for _, path := range []string{"p/k/m/del", "p/k/m/passwd", "p/k/m/sleepy", "p/k/n/cell-1"} {
				var te toolError
				res := call(t, cs, "execute_query", map[string]any{"path": path}, &te)
				if !res.IsError {
					t.Fatalf("%s answered: %s", path, text(res))
				}
				what := "named query "
				if strings.HasSuffix(path, "cell-1") {
					what = "notebook cell "
				}
				want := what + path + " cannot run: the server refuses its SQL ("
				if te.Kind != "unavailable" || !strings.Contains(te.Error, want) || !strings.Contains(te.Error, "against the model p/k/m") || !strings.Contains(te.Hint, "the catalog's file needs fixing") {
					t.Errorf("%s: kind %s, error %q, hint %q; want unavailable, %q and the catalog's file to fix", path, te.Kind, te.Error, te.Hint, want)
				}
				if strings.Contains(te.Error, "call again") {
					t.Errorf("%s: tells the caller to call again: %q", path, te.Error)
				}
			}
			// A file the caller named: the caller's to change.
			var te toolError
			call(t, cs, "execute_query", map[string]any{"path": "p/k/m/byname", "parameters": map[string]any{"f": "/etc/passwd"}}, &te)
			if te.Kind != "refused" || strings.Contains(te.Error, "catalog's file must") {
				t.Errorf("byname with /etc/passwd: kind %q, error %q; want refused, the caller's", te.Kind, te.Error)
			}
			var out struct{ RowCount int }
			if res := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/byname", "parameters": map[string]any{"f": dir + "/p/k/data/a.csv"}}, &out); res.IsError || out.RowCount != 1 {
				t.Errorf("byname with a file of the package: %s", text(res))
			}
			// The same SQL sent as sql stays the caller's to change.
			te = toolError{}
			call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT sleep_ms(10) AS v"}, &te)
			if te.Kind != "refused" {
				t.Errorf("ad-hoc sleep_ms: kind %q, want refused", te.Kind)
			}
		})
	}
}
