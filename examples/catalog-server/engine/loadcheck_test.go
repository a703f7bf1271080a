package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestQueryChecksBounded: a model's named queries are checked when it opens,
// at most maxCheckedQueries of them; the others are counted, not checked.
func TestQueryChecksBounded(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "p", "k")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("-- @source s\nSELECT 1 AS a;\n")
	n := maxCheckedQueries + 4
	for i := range n {
		fmt.Fprintf(&b, "-- @query q%d\nSELEC %d;\n", i, i)
	}
	for name, body := range map[string]string{"manifest.json": "{}", "m.sql": b.String()} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDuck(context.Background(), c.Model("p/k/m"), DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checks := d.QueryChecks()
	if len(checks) != maxCheckedQueries+1 || !strings.Contains(strings.Join(checks[""].Problems, ""), fmt.Sprintf("4 of the model's %d named queries were not checked", n)) {
		t.Errorf("%d checks; unchecked: %q", len(checks), checks[""].Problems)
	}
	if p := checks["q0"].Problems; len(p) != 1 || !strings.Contains(p[0], "line 4, column 1: Parser Error") {
		t.Errorf("q0: %q", p)
	}
}

// TestAuthorPositions: positions in a source's SQL with its file names made
// absolute map back to the author's text.
func TestAuthorPositions(t *testing.T) {
	text := "SELECT x FROM 'data/a.csv' /* 'b.csv' */ JOIN 'it''s.csv' USING (x) WHERE y"
	got, edits := withAbsolutePaths(text, "/pkg")
	want := "SELECT x FROM '/pkg/data/a.csv' /* 'b.csv' */ JOIN '/pkg/it''s.csv' USING (x) WHERE y"
	if got != want || len(edits) != 2 {
		t.Fatalf("%q, %v", got, edits)
	}
	for _, at := range []string{"SELECT", "FROM", "/* 'b", "JOIN", "USING", "WHERE y"} {
		pos := strings.Index(got, at) + 1
		if p := authorPos(edits, pos); p != strings.Index(text, at)+1 {
			t.Errorf("%q: %d → %d, want %d", at, pos, p, strings.Index(text, at)+1)
		}
	}
	// Inside a rewritten literal: its first character.
	if p := authorPos(edits, strings.Index(got, "data")+1); p != strings.Index(text, "data")+1 {
		t.Errorf("inside: %d", p)
	}
}

// TestCellChecksShareBound: the cells of the notebooks that run against a
// model are checked after its named queries, within the same bound.
func TestCellChecksShareBound(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "p", "k")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	var m, nb strings.Builder
	m.WriteString("-- @source s\nSELECT 1 AS a;\n")
	queries := maxCheckedQueries - 2
	for i := range queries {
		fmt.Fprintf(&m, "-- @query q%d\nSELECT %d;\n", i, i)
	}
	nb.WriteString("# NB\n")
	for range 5 {
		nb.WriteString("\n```sql\nSELEC a FROM s\n```\n")
	}
	for name, body := range map[string]string{"manifest.json": "{}", "m.sql": m.String(), "nb.md": nb.String()} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDuck(context.Background(), c.Model("p/k/m"), DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checks := d.QueryChecks()
	if p := checks["nb/cell-2"].Problems; len(p) != 1 || !strings.Contains(p[0], "line 8, column 1: Parser Error") {
		t.Errorf("cell-2: %q", p)
	}
	if _, ok := checks["nb/cell-3"]; ok {
		t.Errorf("cell-3 checked past the bound")
	}
	if u := strings.Join(checks[""].Problems, ""); !strings.Contains(u, fmt.Sprintf("3 of the model's %d named queries and 5 notebook cells", queries)) {
		t.Errorf("unchecked: %q", u)
	}
}

// TestPlaceholderPositions: a parameter DuckDB names in another case than the
// SQL writes it ($ab written, Ab declared: the text prepared has $Ab) is found
// at its first use, whatever its spelling there. Before, positions were looked
// up by the name as written, and such a parameter had none (0).
func TestPlaceholderPositions(t *testing.T) {
	at := placeholderPositions("SELECT $ab + 1 AS x, $AB AS y, $z AS z, $z AS w")
	for name, want := range map[string]int{"Ab": 8, "ab": 8, "AB": 8, "z": 32} {
		if got := at[catalog.ParamKey(name, catalog.EngineDuckDB)]; got != want {
			t.Errorf("%s: at %d, want %d", name, got, want)
		}
	}
}
