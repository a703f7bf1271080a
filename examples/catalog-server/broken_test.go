package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBrokenSource: a source whose view could not be made (here its file is
// missing) is logged when the catalog loads, and a query of it — by path, or by
// name in ad-hoc SQL — says it did not load and why, instead of DuckDB's "no such
// table, did you mean …" about a table the catalog lists.
func TestBrokenSource(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @source gone\nSELECT * FROM read_csv('data/gone.csv');\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	if l := logs.String(); !strings.Contains(l, `msg="source did not load" source=p/k/m/gone`) || !strings.Contains(l, "gone.csv") {
		t.Errorf("log: %s", l)
	}
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for _, args := range []map[string]any{
		{"path": "p/k/m/gone"},
		{"path": "p/k/m", "sql": "SELECT count(*) FROM gone"},
		{"path": "p/k/m", "sql": "SELECT * FROM a JOIN gone USING (x)"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", args, &te)
		if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, "the source p/k/m/gone did not load") ||
			!strings.Contains(te.Error, "gone.csv") || !strings.Contains(text(r), te.Hint) || strings.Contains(te.Error, "Did you mean") {
			t.Errorf("%v: %+v", args, te)
		}
	}
	// A name that is no source at all is still DuckDB's own error.
	var te toolError
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM nosuch"}, &te); !r.IsError || te.Kind != "sql_error" {
		t.Errorf("unknown table: %+v", te)
	}
	var res struct{ RowCount int }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/a"}, &res); r.IsError || res.RowCount != 2 {
		t.Errorf("the other source: %s", text(r))
	}
}

// TestEmptyCatalogSaysWhy: a -catalog folder that yields no package (a package
// or project folder given by mistake, an empty folder) is served, but said to be
// empty, with what the folder looks like and the layout expected; it was served
// without a word.
func TestEmptyCatalogSaysWhy(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source a\nSELECT 1 AS x;\n"})
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "p/k"), "is a package folder (it holds manifest.json): give -catalog the folder two levels up"},
		{filepath.Join(dir, "p"), "is a project folder (k holds manifest.json): give -catalog its parent folder"},
		{t.TempDir(), "a catalog is DIR/PROJECT/PACKAGE/manifest.json"},
		{dir, ""},
	} {
		var logs strings.Builder
		svc, err := NewService(context.Background(), c.dir, Config{SkipEngines: true}, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		svc.Close()
		if c.want == "" && strings.Contains(logs.String(), "no packages") || c.want != "" && !strings.Contains(logs.String(), c.want) {
			t.Errorf("-catalog %s: log %q, want %q", c.dir, logs.String(), c.want)
		}
	}
}

// TestBrokenSourceByPathAndCase: SQL sent with a broken source's path runs when it
// does not read that source; a broken source named in another case ("Gone") is
// still told as the source that did not load.
func TestBrokenSourceByPathAndCase(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM 'data/a.csv';\n-- @source gone\nSELECT * FROM 'data/missing.csv';\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var res struct{ RowCount int }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/gone", "sql": "SELECT * FROM a"}, &res); r.IsError || res.RowCount != 2 {
		t.Errorf("SQL with the broken source's path: %s", text(r))
	}
	for _, args := range []map[string]any{
		{"path": "p/k/m/gone"},
		{"path": "p/k/m", "sql": "SELECT * FROM Gone"},
		{"path": "p/k/m/gone", "sql": "SELECT * FROM gone"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", args, &te)
		if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, "p/k/m/gone") {
			t.Errorf("%v: %s", args, text(r))
		}
	}
}
