package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestListCatalogCellOrder: list_catalog lists a notebook's cells in document
// order (cell-2 before cell-10), page by page, and its cursor continues that
// order after a reload that added cells: none twice, none skipped.
func TestListCatalogCellOrder(t *testing.T) {
	dir := t.TempDir()
	notebook := func(n int) string {
		var b strings.Builder
		b.WriteString("# NB\n\n<!-- model: m -->\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "## Step %d\n```sql\nSELECT %d AS n\n```\n", i, i)
		}
		return b.String()
	}
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source s\nSELECT 1 AS x;\n", "p/k/nb.md": notebook(12)})
	svc := newTestService(t, dir, Config{SkipEngines: true, PageSize: 5})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var got []string
	cursor := ""
	for page := 0; page < 20; page++ {
		if page == 1 {
			writeFiles(t, dir, map[string]string{"p/k/nb.md": notebook(21)})
			if err := svc.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		var out listOut
		if r := call(t, cs, "list_catalog", map[string]any{"path": "p/k/nb", "cursor": cursor}, &out); r.IsError {
			t.Fatalf("page %d: %+v", page, r)
		}
		for _, it := range out.Items {
			got = append(got, it.Name)
		}
		if cursor = out.NextCursor; cursor == "" {
			break
		}
	}
	var want []string
	for i := 1; i <= 21; i++ {
		want = append(want, fmt.Sprintf("cell-%d", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}
