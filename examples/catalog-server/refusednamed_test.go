package main

import (
	"strings"
	"testing"
)

// TestRefusedNamedQuery: a named query or notebook cell whose SQL the server
// refuses is the catalog's fault (kind unavailable, the catalog's file to fix),
// not the caller's: before, it was kind refused and said to call again, which no
// call can change.
func TestRefusedNamedQuery(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source s\nSELECT 1 AS v;\n\n" +
			"-- @query del\nDELETE FROM s;\n\n" +
			"-- @query passwd\nSELECT * FROM read_csv('/etc/passwd');\n\n" +
			"-- @query sleepy\nSELECT sleep_ms(10) AS v;\n",
		"p/k/n.md": "# N\n\nA notebook.\n\n```sql\nSELECT sleep_ms(10) AS v\n```\n",
	})
	svc := newTestService(t, dir, Config{})
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
	// The same SQL sent as sql stays the caller's to change.
	var te toolError
	call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT sleep_ms(10) AS v"}, &te)
	if te.Kind != "refused" {
		t.Errorf("ad-hoc sleep_ms: kind %q, want refused", te.Kind)
	}
}
