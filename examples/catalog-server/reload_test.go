package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/mcp"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHotReloadEdits edits a watched catalog under a running server: a model's
// queries change and one is added, a notebook gains a cell, a model and the
// manifest are broken (their previous versions stay served, the package says why)
// and fixed (the model's added query gone again), a notebook is added and one
// removed. Each change is served without a restart.
func TestHotReloadEdits(t *testing.T) {
	dir := t.TempDir()
	const model = "-- Numbers.\n\n-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @query total\nSELECT sum(x) AS s FROM a;\n"
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{"description": "a package"}`,
		"p/k/data/a.csv":    "x\n1\n2\n",
		"p/k/m.sql":         model,
		"p/k/other.sql":     "-- @source b\nSELECT x + 100 AS y FROM 'data/a.csv';\n",
		"p/k/nb.md":         "# Notes\n\n<!-- model: m -->\n\n```sql\nSELECT count(*) AS n FROM a\n```\n",
	})
	svc := newTestService(t, dir, Config{})
	watch(t, svc)
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")

	// eventually calls a tool until check accepts its result (20 s at most).
	eventually := func(what, tool string, args map[string]any, check func(r *mcp.CallToolResult, sc map[string]any) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var sc map[string]any
			r := call(t, cs, tool, args, &sc)
			if check(r, sc) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %s", what, text(r))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	firstCell := func(r *mcp.CallToolResult, sc map[string]any) any {
		if r.IsError {
			return nil
		}
		rows, _ := sc["rows"].([]any)
		if len(rows) != 1 {
			return nil
		}
		return rows[0].([]any)[0]
	}
	eventually("the first query", "execute_query", map[string]any{"path": "p/k/m/total"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(3)
	})

	// A changed query and a new one in the same model.
	writeFiles(t, dir, map[string]string{"p/k/m.sql": strings.Replace(model, "sum(x)", "sum(x) * 10", 1) + "\n-- The largest value.\n-- @query biggest\nSELECT max(x) AS m FROM a;\n"})
	eventually("the changed query", "execute_query", map[string]any{"path": "p/k/m/total"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(30)
	})
	eventually("the new query", "execute_query", map[string]any{"path": "p/k/m", "queryName": "biggest"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(2)
	})
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "catalog://query/p/k/m/biggest"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "The largest value.") {
		t.Errorf("the new query's resource: %v", err)
	}

	// A notebook gains a cell.
	writeFiles(t, dir, map[string]string{"p/k/nb.md": "# Notes\n\n<!-- model: m -->\n\n```sql\nSELECT count(*) AS n FROM a\n```\n\n## Smallest\n\n```sql\nSELECT min(x) FROM a\n```\n"})
	eventually("the new cell", "execute_query", map[string]any{"path": "p/k/nb", "queryName": "cell-2"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(1)
	})

	// A broken edit of the model: its previous version stays served (the changed
	// query, the added one) and the package says why; the rest is served too.
	writeFiles(t, dir, map[string]string{"p/k/m.sql": "SELECT this is not a model"})
	var pkg Description
	eventually("the broken model", "describe", map[string]any{"path": "p/k"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return !r.IsError && strings.Contains(text(r), "p/k/m.sql: line 1: SQL before any @source or @query annotation; still serving its previous version")
	})
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/total"}, &map[string]any{}); r.IsError || !strings.Contains(text(r), `"rows":[[30]]`) {
		t.Errorf("the previous version of the broken model: %s", text(r))
	}
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "queryName": "biggest"}, &map[string]any{}); r.IsError {
		t.Errorf("the previous version's added query: %s", text(r))
	}
	var other map[string]any
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/other", "sql": "SELECT sum(y) FROM b"}, &other); firstCell(r, other) != float64(203) {
		t.Errorf("the other model, beside the broken one: %s", text(r))
	}

	// A broken manifest: the package stays served with its previous one.
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": `{"description": "a pack`})
	eventually("the broken manifest", "describe", map[string]any{"path": "p/k"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return !r.IsError && sc["description"] == "a package" && strings.Contains(text(r), "p/k/manifest.json: the JSON ends before its object closes; still serving its previous version")
	})
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": `{"description": "a package"}`})

	// Fixed again.
	writeFiles(t, dir, map[string]string{"p/k/m.sql": model})
	eventually("the fixed model", "execute_query", map[string]any{"path": "p/k/m/total"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(3)
	})
	pkg = Description{}
	call(t, cs, "describe", map[string]any{"path": "p/k"}, &pkg)
	if len(pkg.Problems) != 0 {
		t.Errorf("problems after the fix: %q", pkg.Problems)
	}
	// The fixed model is the first one again: its query "biggest" is gone.
	var te toolError
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/biggest"}, &te); !r.IsError || te.Kind != "not_found" {
		t.Errorf("a removed query: %s", text(r))
	}

	// A new notebook.
	writeFiles(t, dir, map[string]string{"p/k/nb2.md": "# More\n\n<!-- model: other -->\n\n```sql\nSELECT max(y) FROM b\n```\n"})
	eventually("the new notebook", "execute_query", map[string]any{"path": "p/k/nb2/cell-1"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return firstCell(r, sc) == float64(102)
	})

	// A notebook removed.
	if err := os.Remove(filepath.Join(dir, "p/k/nb.md")); err != nil {
		t.Fatal(err)
	}
	eventually("the removed notebook", "describe", map[string]any{"path": "p/k/nb"}, func(r *mcp.CallToolResult, sc map[string]any) bool {
		return r.IsError && sc["kind"] == "not_found"
	})
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "catalog://notebook/p/k/nb"}); !mcp.IsResourceNotFound(err) {
		t.Errorf("the removed notebook's resource: %v", err)
	}
}

// TestSessionFollowsReloads: a session that outlives reloads (stdio's) sees objects
// come and go in resources/list, and is told the list changed.
func TestSessionFollowsReloads(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source a\nSELECT 1 AS x;\n"})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := make(chan struct{}, 16)
	// A revision whose sessions are told of list changes by notification, as
	// stdio clients such as the TypeScript SDK's are.
	cs := followingSession(t, svc, &mcp.ClientOptions{
		ProtocolVersion:            "2025-11-25",
		ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
	})
	listed := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for r, err := range cs.Resources(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			out[r.URI] = true
		}
		return out
	}
	reload := func() {
		t.Helper()
		if err := svc.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no notifications/resources/list_changed after a reload")
		}
	}
	if l := listed(); !l["catalog://source/p/k/m/a"] || l["catalog://model/p/k/n"] {
		t.Fatalf("before: %v", l)
	}
	writeFiles(t, dir, map[string]string{"p/k/n.sql": "-- @source b\nSELECT 2 AS y;\n"})
	reload()
	if l := listed(); !l["catalog://source/p/k/n/b"] || !l["catalog://model/p/k/m"] {
		t.Errorf("after a model was added: %v", l)
	}
	if err := os.Remove(filepath.Join(dir, "p/k/m.sql")); err != nil {
		t.Fatal(err)
	}
	reload()
	if l := listed(); l["catalog://model/p/k/m"] || l["catalog://source/p/k/m/a"] || !l["catalog://model/p/k/n"] {
		t.Errorf("after a model was removed: %v", l)
	}
}

// TestResourcesListAcrossReload: over HTTP, a reload between two pages of
// resources/list that adds objects before and after the cursor and removes one
// neither repeats nor skips any object: every object after the first page's last
// URI comes exactly once, in URI order.
func TestResourcesListAcrossReload(t *testing.T) {
	dir := t.TempDir()
	model := func(names ...string) string {
		var b strings.Builder
		for i, n := range names {
			fmt.Fprintf(&b, "-- @source %s\nSELECT %d AS x;\n\n", n, i)
		}
		return b.String()
	}
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": model("s1", "s3", "s5", "s7", "s9")})
	svc := newTestService(t, dir, Config{SkipEngines: true, PageSize: 4})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	ctx := context.Background()
	page := func(cursor string) ([]string, string) {
		t.Helper()
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, res := range r.Resources {
			uris = append(uris, res.URI)
		}
		return uris, r.NextCursor
	}
	first, cursor := page("")
	if len(first) != 4 || cursor == "" {
		t.Fatalf("first page: %v %q", first, cursor)
	}
	firstEnd := first[len(first)-1]
	// Sources before and after the cursor's URI appear, s5 goes.
	writeFiles(t, dir, map[string]string{"p/k/m.sql": model("s0", "s1", "s2", "s3", "s4", "s6", "s7", "s8", "s9")})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for cursor != "" {
		var uris []string
		uris, cursor = page(cursor)
		rest = append(rest, uris...)
	}
	var want []string
	for _, e := range svc.Catalog().Entries() {
		if u := uriOf(e); u > firstEnd {
			want = append(want, u)
		}
	}
	slices.Sort(want)
	if d := cmp.Diff(want, rest); d != "" {
		t.Errorf("pages after the reload (-every object after %s, once, in order +listed):\n%s", firstEnd, d)
	}
	if len(rest) == 0 || slices.Contains(rest, "catalog://source/p/k/m/s5") {
		t.Errorf("after the reload: %v", rest)
	}
}

// TestReloadKeepsUnchangedEngines: a reload keeps the engines of models whose
// package's files did not change (reopening every model of a catalog of 300 for
// one changed file took 15 s of CPU), and reopens those whose package changed, so
// their queries see the new data.
func TestReloadKeepsUnchangedEngines(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/a/manifest.json": "{}", "p/a/m.sql": "-- @source s\nSELECT * FROM read_csv('data/t.csv');\n", "p/a/data/t.csv": "x\n1\n",
		"p/b/manifest.json": "{}", "p/b/m.sql": "-- @source s\nSELECT * FROM read_csv('data/t.csv');\n", "p/b/data/t.csv": "x\n1\n",
	})
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	engineOf := func(path string) modelEngine {
		t.Helper()
		sn := svc.snap()
		e := sn.engines[sn.cat.Lookup(path).Model]
		if e == nil {
			t.Fatalf("%s has no engine", path)
		}
		return e
	}
	count := func(path string) any {
		t.Helper()
		res, err := svc.Execute(ctx, executeIn{Path: path, SQL: "SELECT count(*) AS n FROM s"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	a, b := engineOf("p/a/m"), engineOf("p/b/m")
	// A later modification time than the first load's, however coarse the clock.
	time.Sleep(20 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/b/data/t.csv": "x\n1\n2\n3\n"})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if engineOf("p/a/m") != a {
		t.Error("the model of an unchanged package was opened again")
	}
	if engineOf("p/b/m") == b {
		t.Error("the model of a changed package kept its engine")
	}
	if n := count("p/b/m"); n != int64(3) {
		t.Errorf("p/b/m after its data changed: %v rows, want 3", n)
	}
	if n := count("p/a/m"); n != int64(1) {
		t.Errorf("p/a/m: %v rows, want 1", n)
	}
	// A removed package's engine goes; a project file's change reopens nothing.
	if err := os.RemoveAll(filepath.Join(dir, "p/b")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"p/project.json": `{"description": "d"}`})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if engineOf("p/a/m") != a || len(svc.snap().engines) != 1 {
		t.Errorf("after p/b was removed: %d engines, p/a/m's kept: %v", len(svc.snap().engines), engineOf("p/a/m") == a)
	}
}
