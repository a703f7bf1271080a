package main

import (
	"context"
	"strings"
	"testing"
)

// TestNotebookErrors: a notebook cell (or named query) whose SQL fails says the
// SQL is the catalog's and what to do instead of "fix the SQL and call again"; a
// notebook naming a model its package lacks says so, in describe and when a cell
// is run.
func TestNotebookErrors(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/k/manifest.json": `{"description": "k"}`,
		"p/k/m.sql": `-- M.
-- @source s
SELECT 1 AS v;
-- Broken.
-- @query broken
SELECT vv FROM s;
`,
		"p/k/nb.md":    "# NB\n\nBroken cells.\n\n```sql\nSELECT v FROM s\n```\n\n```sql\nSELEC v FROM s\n```\n",
		"p/k/other.md": "# Other\n\n<!-- model: nosuch -->\n\n```sql\nSELECT 1\n```\n",
	}
	writeFiles(t, dir, files)
	svc := newTestService(t, dir, Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var res struct{ RowCount int }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/nb", "queryName": "cell-1"}, &res); r.IsError || res.RowCount != 1 {
		t.Errorf("cell-1: %s", text(r))
	}
	for _, tc := range []struct {
		args map[string]any
		want string
		pos  int
	}{
		{map[string]any{"path": "p/k/nb/cell-2"}, "the SQL of the notebook cell p/k/nb/cell-2 fails: duckdb error at character 1: Parser Error", 1},
		{map[string]any{"path": "p/k/m", "queryName": "broken"}, "the SQL of the named query p/k/m/broken fails: duckdb error at character 8: Binder Error", 8},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		if !r.IsError || te.Kind != "sql_error" || te.Position != tc.pos || !strings.HasPrefix(te.Error, tc.want) ||
			!strings.Contains(te.Hint, "the catalog's SQL, not in this call") || !strings.Contains(te.Hint, "with sql against the model p/k/m") || strings.Contains(text(r), "Fix the SQL") {
			t.Errorf("%v: %+v", tc.args, te)
		}
	}
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/other/cell-1"}, &te)
	if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, `its notebook names the model "nosuch"`) || !strings.Contains(te.Error, "its models: m") {
		t.Errorf("cell of a notebook without its model: %+v", te)
	}
	var d Description
	call(t, cs, "describe", map[string]any{"path": "p/k/other"}, &d)
	if d.Model != "" || !strings.Contains(d.Error, `it names the model "nosuch"`) {
		t.Errorf("describe a notebook without its model: model %q, error %q", d.Model, d.Error)
	}
}

// TestNotebookMarkdownProblems: what the notebook parser finds wrong with a
// notebook's Markdown (a fence not closed, several model lines) is in the
// problems of the notebook and its package, with the file and line; the cell
// of an unclosed ```sql fence is a cell.
func TestNotebookMarkdownProblems(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source s\nSELECT 1 AS x;\n", "p/k/n.sql": "-- @source u\nSELECT 2 AS y;\n",
		"p/k/nb.md": "<!-- model: m -->\n<!-- model: n -->\n\n# Look\n\n```sql\nSELECT y FROM u\n",
	})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	want := []string{
		`p/k/nb.md: line 2: a second <!-- model: … --> line (model "n" after model "m" on line 1): the last one is used, so its cells run against "n"; keep one`,
		"p/k/nb.md: line 6: the ``` fence is not closed, so its cell runs to the end of the file; close it with a line ```",
	}
	for _, path := range []string{"p/k/nb", "p/k"} {
		d, err := svc.Describe(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(d.Problems, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: problems %q, want %q", path, d.Problems, want)
		}
		if path == "p/k/nb" && (len(d.Queries) != 1 || d.Model != "p/k/n") {
			t.Errorf("notebook: cells %+v, model %q", d.Queries, d.Model)
		}
	}
}
