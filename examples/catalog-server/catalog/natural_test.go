package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCompareNames: digits compare as numbers, the rest byte by byte, and the
// order is total (antisymmetric, transitive, 0 only for the same name), as a
// cursor that continues after a name needs.
func TestCompareNames(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"cell-2", "cell-10", -1}, {"cell-10", "cell-9", 1}, {"cell-1", "cell-1", 0},
		{"q01", "q1", -1}, {"q1", "q01", 1}, {"q01", "q2", -1}, {"a", "a1", -1}, {"a-1", "a1", -1},
		{"x99999999999999999999999", "x100000000000000000000000", -1}, {"s", "sa", -1}, {"b", "a10", 1},
		{"cell-2", "cell-2b", -1}, {"cell-2b", "cell-10", -1}, {"1", "a", -1}, {"_", "a", -1},
	} {
		if got := CompareNames(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareNames(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := CompareNames(tc.b, tc.a); got != -tc.want {
			t.Errorf("CompareNames(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
	names := []string{"", "0", "00", "1", "01", "10", "9", "a", "a0", "a00", "a1", "a01", "a10", "a9", "a-1", "a_1", "a1b", "a1-2", "a01b", "b", "B", "é1", "é10", "é2", "1a", "10a", "cell-1", "cell-12", "cell-2", "x/1"}
	for _, a := range names {
		for _, b := range names {
			ab := CompareNames(a, b)
			if (ab == 0) != (a == b) || CompareNames(b, a) != -ab {
				t.Fatalf("CompareNames(%q, %q) = %d, reversed %d", a, b, ab, CompareNames(b, a))
			}
			for _, c := range names {
				if ab <= 0 && CompareNames(b, c) <= 0 && CompareNames(a, c) > 0 {
					t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
				}
			}
		}
	}
	if got := ComparePaths("p/k/nb/cell-2", "p/k/nb/cell-10"); got != -1 {
		t.Errorf("ComparePaths cell-2, cell-10 = %d", got)
	}
	if got := ComparePaths("p/k", "p/k/m"); got != -1 {
		t.Errorf("ComparePaths p/k, p/k/m = %d", got)
	}
	if got := ComparePaths("p/k/m", "p/k-2"); got != -1 {
		t.Errorf("ComparePaths p/k/m, p/k-2 = %d", got)
	}
}

// notebookOf writes a notebook of n cells.
func notebookOf(n int) string {
	var b strings.Builder
	b.WriteString("# NB\n\nCells.\n\n<!-- model: m -->\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Step %d\n```sql\nSELECT %d AS n\n```\n", i, i)
	}
	return b.String()
}

// pageAll lists path page by page (size items each), starting from cursor,
// calling between(pageIndex) before each page after the first; it returns the
// names in order.
func pageAll(t *testing.T, c func() *Catalog, path string, size int, between func(int)) []string {
	t.Helper()
	var got []string
	cursor := ""
	for page := 0; page < 100; page++ {
		if page > 0 && between != nil {
			between(page)
		}
		p, err := c().List(path, cursor, size)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Items {
			got = append(got, e.Name)
		}
		if p.NextCursor == "" {
			return got
		}
		cursor = p.NextCursor
	}
	t.Fatal("more than 100 pages")
	return nil
}

// TestNotebookCellsInOrder: a notebook's cells (and a model's objects named
// with numbers) list in document order (cell-2 before cell-10), page by page
// with a small page, in search results, and a cursor continues that order in a
// catalog reloaded with cells added and removed: no cell twice, none skipped.
func TestNotebookCellsInOrder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/k/manifest.json": "{}",
		"p/k/m.sql":         "-- @source s10\nSELECT 1;\n-- @source s9\nSELECT 1;\n-- @source s1\nSELECT 1;\n",
		"p/k/nb.md":         notebookOf(12),
	})
	c, _ := Load(root)
	want := make([]string, 12)
	for i := range want {
		want[i] = fmt.Sprintf("cell-%d", i+1)
	}
	if got := pageAll(t, func() *Catalog { return c }, "p/k/nb", 5, nil); !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	if got := pageAll(t, func() *Catalog { return c }, "p/k/m", 2, nil); !slices.Equal(got, []string{"s1", "s9", "s10"}) {
		t.Errorf("sources %v", got)
	}
	var hits []string
	for _, h := range c.Search("step", 100) {
		if h.Entry.Kind == KindQuery {
			hits = append(hits, h.Entry.Name)
		}
	}
	if !slices.Equal(hits, want) {
		t.Errorf("search hits %v, want %v", hits, want)
	}
	// Across reloads: after the first page (cell-1..cell-5) the notebook
	// grows to 20 cells, after the second it shrinks to 14; the listing goes on
	// after the last name it sent.
	cur := c
	got := pageAll(t, func() *Catalog { return cur }, "p/k/nb", 5, func(page int) {
		n := map[int]int{1: 20, 2: 14}[page]
		if n == 0 {
			return
		}
		write(t, root, map[string]string{"p/k/nb.md": notebookOf(n)})
		cur, _ = Load(root)
	})
	want = nil
	for i := 1; i <= 14; i++ {
		want = append(want, fmt.Sprintf("cell-%d", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("across reloads: %v, want %v", got, want)
	}
}
