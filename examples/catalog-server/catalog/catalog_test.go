package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const salesSQL = `-- Sales of the web shop.

-- Orders placed in the shop,
-- one row per order.
-- @source orders
SELECT * FROM 'data/orders.csv';

-- @source customers
SELECT * FROM 'data/customers.csv'
-- a comment inside the statement
WHERE true;

-- Revenue per month of one year.
-- @query revenue_by_month
-- @param year INTEGER the calendar year
-- @param region varchar
SELECT month(ordered_at) AS m, sum(amount) FROM orders
WHERE year(ordered_at) = $year AND region = $region GROUP BY 1;
`

func testCatalog(t *testing.T) string {
	root := t.TempDir()
	write(t, root, map[string]string{
		"retail/project.json":         `{"description": "Retail analytics"}`,
		"retail/shop/manifest.json":   `{"description": "The web shop"}`,
		"retail/shop/sales.sql":       salesSQL,
		"retail/shop/review.md":       "# Monthly review\n\nWhat sold, where.\n\n<!-- model: sales -->\n## Orders per region\n```sql\nSELECT region, count(*) FROM orders GROUP BY 1;\n```\n\n```python\nprint(1)\n```\n## Big orders\n```sql\nSELECT * FROM orders WHERE amount > 100\n```\n",
		"retail/shop/README.md":       "not a notebook",
		"retail/notapkg/x.sql":        "-- @source x\nSELECT 1",
		"retail/bad/manifest.json":    `{"engine": "oracle"}`,
		"retail/broken/manifest.json": `{}`,
		"retail/broken/m.sql":         "SELECT 1",
		"ops/warehouse/manifest.json": `{"engine": "postgres", "dsnEnv": "PGDSN", "schema": "ops"}`,
		"ops/warehouse/stock.sql":     "-- @source stock\nSELECT * FROM stock",
		"bad name/x/manifest.json":    `{}`,
	})
	return root
}

func TestLoad(t *testing.T) {
	c, err := Load(testCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range c.Entries() {
		paths = append(paths, string(e.Kind)+" "+e.Path)
	}
	want := []string{
		"project ops", "package ops/warehouse", "model ops/warehouse/stock", "source ops/warehouse/stock/stock",
		"project retail", "package retail/broken", "package retail/shop",
		"notebook retail/shop/review", "query retail/shop/review/cell-1", "query retail/shop/review/cell-2",
		"model retail/shop/sales", "source retail/shop/sales/customers", "source retail/shop/sales/orders",
		"query retail/shop/sales/revenue_by_month",
	}
	if d := cmp.Diff(want, paths); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	m := c.Model("retail/shop/sales")
	if m.Description != "Sales of the web shop." {
		t.Errorf("model description %q", m.Description)
	}
	if got := c.Lookup("retail/shop/sales/orders").Description; got != "Orders placed in the shop, one row per order." {
		t.Errorf("source description %q", got)
	}
	if got := c.Lookup("retail/shop/sales/customers").Source.SQL; got != "SELECT * FROM 'data/customers.csv'\n-- a comment inside the statement\nWHERE true" {
		t.Errorf("customers SQL %q", got)
	}
	q := c.Lookup("retail/shop/sales/revenue_by_month").Query
	if d := cmp.Diff([]Param{{Name: "year", Type: "INTEGER", Description: "the calendar year"}, {Name: "region", Type: "varchar"}}, q.Params); d != "" {
		t.Errorf("params: %s", d)
	}
	if q.Params[0].JSONType() != "integer" || q.Params[1].JSONType() != "string" {
		t.Errorf("json types %s %s", q.Params[0].JSONType(), q.Params[1].JSONType())
	}
	nb := c.Lookup("retail/shop/review").Notebook
	if nb.Title != "Monthly review" || nb.Description != "What sold, where." || nb.ModelName != "sales" || len(nb.Cells) != 2 {
		t.Errorf("notebook %+v", nb)
	}
	if nb.Cells[0].Description != "Orders per region" || nb.Cells[1].SQL != "SELECT * FROM orders WHERE amount > 100" || nb.Cells[0].Model != m {
		t.Errorf("cells %+v %+v", nb.Cells[0], nb.Cells[1])
	}
	pg := c.Lookup("ops/warehouse").Package
	if pg.Engine != EnginePostgres || pg.DSNEnv != "PGDSN" || pg.Schema != "ops" {
		t.Errorf("postgres package %+v", pg)
	}
	diags := strings.Join(c.Diagnostics, "\n")
	for _, want := range []string{"bad name", "unknown engine \"oracle\"", "retail/broken/m.sql: skipped: line 1: SQL before any @source"} {
		if !strings.Contains(diags, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
}

func TestParseModelErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no source":       "-- @query q\nSELECT 1",
		"duplicate":       "-- @source a\nSELECT 1;\n-- @source a\nSELECT 2",
		"bad ident":       "-- @source a-b\nSELECT 1",
		"empty":           "-- @source a\n",
		"unknown":         "-- @source a\n-- @frob\nSELECT 1",
		"param on source": "-- @source a\n-- @param x INTEGER\nSELECT 1",
		"bad param":       "-- @source a\nSELECT 1;\n-- @query q\n-- @param x\nSELECT 1",
	} {
		if _, err := ParseModel(text); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// An annotation without its words is told what it wants, not called unknown.
	for text, want := range map[string]string{
		"-- @source a\nSELECT 1;\n-- @query q\n-- @param\nSELECT 1": `line 4: want "@param NAME TYPE [description]"`,
		"-- @source\nSELECT 1":                         `line 1: want "@source NAME"`,
		"-- @source a\nSELECT 1;\n-- @query\nSELECT 1": `line 3: want "@query NAME"`,
	} {
		if _, err := ParseModel(text); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}

func TestResolveSuggests(t *testing.T) {
	c, _ := Load(testCatalog(t))
	for _, tc := range []struct {
		path, kind, name, closest string
	}{
		{"retial", "project", "retial", "retail"},
		{"retail/shpo", "package", "shpo", "retail/shop"},
		{"retail/shop/sale", "model or notebook", "sale", "retail/shop/sales"},
		{"retail/shop/sales/order", "source or query", "order", "retail/shop/sales/orders"},
	} {
		_, err := c.Resolve(tc.path)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if nf.Kind != tc.kind || nf.Name != tc.name || len(nf.Closest) == 0 || nf.Closest[0] != tc.closest {
			t.Errorf("%s: %+v", tc.path, nf)
		}
		if !strings.Contains(err.Error(), tc.closest) {
			t.Errorf("%s: message %q lacks %q", tc.path, err, tc.closest)
		}
	}
}

func TestListPages(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := range 25 {
		b.WriteString("-- @source s" + string(rune('a'+i)) + "\nSELECT 1;\n")
	}
	write(t, root, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": b.String()})
	c, _ := Load(root)
	var got []string
	cursor := ""
	pages := 0
	for {
		p, err := c.List("p/k/m", cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, e := range p.Items {
			got = append(got, e.Name)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if pages != 3 || len(got) != 25 || got[0] != "sa" || got[24] != "sy" {
		t.Errorf("pages %d items %v", pages, got)
	}
	if _, err := c.List("p/k/m", "garbage!", 10); err == nil {
		t.Error("bad cursor accepted")
	}
	// A cursor continues its own listing only: with another path it is refused,
	// not read as a place in that listing.
	first, err := c.List("p/k/m", "", 10)
	if err != nil || first.NextCursor == "" {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"p/k": "this cursor continues the listing of p/k/m, not of p/k",
		"":    "this cursor continues the listing of p/k/m, not of the projects",
	} {
		if _, err := c.List(path, first.NextCursor, 10); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cursor of p/k/m with path %q: %v", path, err)
		}
	}
	if p, err := c.List("/p/k/m/", first.NextCursor, 10); err != nil || len(p.Items) == 0 || p.Items[0].Name != got[10] {
		t.Errorf("cursor of p/k/m with /p/k/m/: %v %+v", err, p)
	}
}

func TestSearch(t *testing.T) {
	c, _ := Load(testCatalog(t))
	c.Lookup("retail/shop/sales/customers").Columns = []string{"customer_id", "region"}
	hits := c.Search("orders", 10)
	if len(hits) == 0 || hits[0].Entry.Path != "retail/shop/sales/orders" {
		t.Fatalf("orders: %+v", hits)
	}
	hits = c.Search("region", 10)
	found := false
	for _, h := range hits {
		if h.Entry.Path == "retail/shop/sales/customers" && h.Match == "column region" {
			found = true
		}
	}
	if !found {
		t.Errorf("column search: %+v", hits)
	}
	if hits := c.Search("web shop", 10); len(hits) == 0 || hits[0].Entry.Kind != KindModel && hits[0].Entry.Kind != KindPackage {
		t.Errorf("description search: %+v", hits)
	}
	if hits := c.Search("nothing-like-this", 10); len(hits) != 0 {
		t.Errorf("no-match search: %+v", hits)
	}
	if hits := c.Search("s", 2); len(hits) != 2 {
		t.Errorf("limit: %d", len(hits))
	}
}

// TestSearchFolds: search folds case, accents and compatibility forms on both
// sides: "temperature" finds a column "température" and "TEMPÉRATURE" a source
// named "temperature"; "STRASSE" finds "Straße" and "straße" finds "STRASSE"; a
// fullwidth or ligature query finds the plain letters.
func TestSearchFolds(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": `-- @source readings
SELECT 1;
-- @source temperature
SELECT 1;
-- Deliveries per Straße.
-- @source deliveries
SELECT 1;
-- Shops of the HAUPTSTRASSE.
-- @source shops
SELECT 1;
-- Files of the office.
-- @source files
SELECT 1;
`,
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	c.Lookup("p/k/m/readings").Columns = []string{"Température_C", "at"}
	for _, tc := range []struct{ q, want string }{
		{"temperature_c", "p/k/m/readings column Température_C"},
		{"TEMPÉRATURE", "p/k/m/temperature name"},
		{"température", "p/k/m/temperature name"},
		{"STRASSE", "p/k/m/deliveries description"},
		{"straße", "p/k/m/deliveries description"},
		{"hauptstraße", "p/k/m/shops description"},
		{"ＦＩＬＥＳ", "p/k/m/files name"},
		{"ﬁles", "p/k/m/files name"},
	} {
		var got []string
		for _, h := range c.Search(tc.q, 20) {
			got = append(got, h.Entry.Path+" "+h.Match)
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("search %q: %q, want among them %q", tc.q, got, tc.want)
		}
	}
	if got := Closest("temprature", []string{"Température_C", "orders"}, 3); !slices.Equal(got, []string{"Température_C"}) {
		t.Errorf("closest to temprature: %q", got)
	}
	for in, want := range map[string]string{"Straße": "strasse", "ÉTÉ": "ete", "İstanbul": "istanbul", "ＴＥＳＴ²": "test2", "plain": "plain"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWatch(t *testing.T) {
	root := testCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, root, 5*time.Millisecond, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	// Wait until the watcher has taken its first fingerprint by changing a file
	// repeatedly until it notices (bounded).
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		write(t, root, map[string]string{"retail/shop/extra.sql": "-- @source e\nSELECT " + strings.Repeat("1", i+1)})
		select {
		case <-changed:
			cancel()
			<-done
			c, _ := Load(root)
			if c.Lookup("retail/shop/extra/e") == nil {
				t.Error("new model not loaded")
			}
			return
		case <-deadline:
			t.Fatal("no reload after 10s")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestLoadSymlinks: a package's files (manifest, models, notebooks) are read only
// when they resolve inside the package folder; links that stay inside work.
func TestLoadSymlinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, map[string]string{
		"stolen.sql":    "-- @source stolen\nSELECT * FROM 'x.csv';\n",
		"stolen.md":     "# Stolen\n```sql\nSELECT 1\n```\n",
		"manifest.json": `{"description": "from outside"}`,
		"project.json":  `{"description": "from outside"}`,
	})
	write(t, root, map[string]string{
		"pr/k/manifest.json":  `{}`,
		"pr/k/real/inner.sql": "-- @source inner\nSELECT * FROM 'data/a.csv';\n",
		"pr/away/m.sql":       "-- @source a\nSELECT 1;\n",
		"pr2/k/manifest.json": `{}`,
	})
	for link, target := range map[string]string{
		"pr/k/out.sql":          filepath.Join(outside, "stolen.sql"),
		"pr/k/outnb.md":         filepath.Join(outside, "stolen.md"),
		"pr/k/in.sql":           "real/inner.sql",
		"pr/away/manifest.json": filepath.Join(outside, "manifest.json"),
		"pr2/project.json":      filepath.Join(outside, "project.json"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model("pr/k/in") == nil {
		t.Errorf("a model linked inside the package did not load; diagnostics %v", c.Diagnostics)
	}
	for _, p := range []string{"pr/k/out", "pr/k/outnb", "pr/away"} {
		if _, err := c.Resolve(p); err == nil {
			t.Errorf("%s, read through a link out of its folder, loaded", p)
		}
	}
	if e := c.Lookup("pr2"); e == nil || e.Description == "from outside" {
		t.Errorf("project pr2: %+v", e)
	}
	diags := strings.Join(c.Diagnostics, "\n")
	for _, want := range []string{"pr/k/out.sql", "pr/k/outnb.md", "pr/away/manifest.json", "pr2/project.json"} {
		if !strings.Contains(diags, want) {
			t.Errorf("no diagnostic for %s in %q", want, diags)
		}
	}
	if !strings.Contains(diags, "outside") {
		t.Errorf("diagnostics do not say why: %q", diags)
	}
}

// TestWatchLinkedDir: a catalog folder reached through a symbolic link (which Load
// reads) is watched too: a change below it is seen.
func TestWatchLinkedDir(t *testing.T) {
	root := testCatalog(t)
	link := filepath.Join(t.TempDir(), "catalog")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	before, err := Fingerprint(link)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, map[string]string{"retail/shop/extra.sql": "-- @source e\nSELECT 1"})
	after, err := Fingerprint(link)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Error("a new model under a linked catalog folder left the fingerprint unchanged")
	}
}

// TestFingerprintIgnoresUnreadFiles: files Load never reads — beside the projects
// (a server's log written into the catalog folder) or beside a project's packages —
// leave the fingerprint as it is, so they trigger no reload; a project's
// project.json and every file of a package (data included) change it.
func TestFingerprintIgnoresUnreadFiles(t *testing.T) {
	root := testCatalog(t)
	fp := func() string {
		t.Helper()
		f, err := Fingerprint(root)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	write(t, root, map[string]string{"server.log": "start\n", "retail/notes.txt": "a"})
	before := fp()
	write(t, root, map[string]string{"server.log": "start\nmore lines\n", "retail/notes.txt": "ab"})
	if fp() != before {
		t.Error("a file beside the projects or beside the packages changed the fingerprint")
	}
	for _, f := range []string{"retail/project.json", "retail/shop/manifest.json", "retail/shop/data/new.csv", "retail/shop/new.sql"} {
		before := fp()
		write(t, root, map[string]string{f: `{"description": "changed ` + f + `"}`})
		if fp() == before {
			t.Errorf("%s: change not seen", f)
		}
	}
}

// TestSkippedFilesExplained: a file that does not load leaves the rest of its
// package served, its package (or project) lists it as a problem, and asking for
// the object it would have made says why it is missing.
func TestSkippedFilesExplained(t *testing.T) {
	c, err := Load(testCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, why string }{
		{"retail/broken/m", "retail/broken/m.sql: skipped: line 1: SQL before any @source"},
		{"retail/bad", `retail/bad/manifest.json: skipped: unknown engine "oracle"`},
	} {
		_, err := c.Resolve(tc.path)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(nf.Skipped, tc.why) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
	if _, err := c.Resolve("retail/broken/nosuch"); err == nil || strings.Contains(err.Error(), "skipped") {
		t.Errorf("a name no file had: %v", err)
	}
	if got := c.Lookup("retail/broken").Package.Problems; len(got) != 1 || !strings.Contains(got[0], "m.sql: skipped") {
		t.Errorf("package problems %q", got)
	}
	if got := strings.Join(c.Lookup("retail").Project.Problems, "\n"); !strings.Contains(got, "retail/bad/manifest.json") {
		t.Errorf("project problems %q", got)
	}
	if got := c.Lookup("retail/shop").Package.Problems; len(got) != 0 {
		t.Errorf("a clean package has problems %q", got)
	}
}

// TestSearchRanking: an exact name beats a name prefix, which beats a name
// substring, a column, then a description; among equals a shallower object comes
// first, then the path decides.
func TestSearchRanking(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/k/manifest.json": `{"description": "figures about returns"}`,
		"p/k/m.sql": `-- @source returns
SELECT 1;
-- @source returns_daily
SELECT 1;
-- @source late_returns
SELECT 1;
-- @source orders
SELECT 1;
-- Goods sent back: see returns.
-- @source refunds
SELECT 1;
-- @source zz
SELECT 1;
`,
		"returns/k/manifest.json": `{}`,
		"returns/k/m.sql":         "-- @source a\nSELECT 1;\n",
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	c.Lookup("p/k/m/orders").Columns = []string{"id", "returns"}
	c.Lookup("p/k/m/zz").Columns = []string{"returns_count"}
	var got []string
	for _, h := range c.Search("returns", 20) {
		got = append(got, h.Entry.Path+" "+h.Match)
	}
	want := []string{
		"returns name",                  // exact name, a project
		"p/k/m/returns name",            // exact name, deeper
		"p/k/m/returns_daily name",      // prefix
		"p/k/m/late_returns name",       // substring
		"p/k/m/orders column returns",   // a column named so
		"p/k/m/zz column returns_count", // a column containing it
		"p/k description",               // descriptions, shallower first
		"p/k/m/refunds description",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ranking (-want +got):\n%s", d)
	}
}

// TestLoadAfterKeepsBrokenFiles: a model file or manifest that parsed in the catalog
// loaded before and no longer does (an edit saved half-way) keeps its previous
// version, with a problem saying so; a load with nothing before skips it, a fixed
// file is taken as it is, and a file removed is gone.
func TestLoadAfterKeepsBrokenFiles(t *testing.T) {
	root := testCatalog(t)
	first, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, map[string]string{
		"retail/shop/sales.sql":       "-- @source orders\nSELECT * FROM 'data/orders.csv';\n-- @query half\n-- @param",
		"retail/shop/manifest.json":   `{"description": "The web sh`,
		"ops/warehouse/manifest.json": `{"engine": "postgre", "dsnEnv": "PGDSN"}`,
	})
	for i, prev := range []*Catalog{first, nil} {
		c, err := LoadAfter(root, prev)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// A second load after the broken one keeps the same versions.
			if c, err = LoadAfter(root, c); err != nil {
				t.Fatal(err)
			}
			q := c.Lookup("retail/shop/sales/revenue_by_month")
			if q == nil || q.Query.Params[0].Name != "year" || c.Lookup("retail/shop/sales/half") != nil {
				t.Errorf("the previous model is not served: %v", q)
			}
			if nb := c.Lookup("retail/shop/review"); nb == nil || nb.Notebook.ModelName != "sales" {
				t.Errorf("the notebook on the kept model: %+v", nb)
			}
			pkg := c.Lookup("retail/shop")
			if pkg == nil || pkg.Description != "The web shop" {
				t.Fatalf("the package with its previous manifest: %+v", pkg)
			}
			probs := strings.Join(pkg.Package.Problems, "\n")
			for _, want := range []string{
				"retail/shop/manifest.json: the JSON ends before its object closes; still serving its previous version",
				"retail/shop/sales.sql: line 4: want \"@param NAME TYPE [description]\"; still serving its previous version",
			} {
				if !strings.Contains(probs, want) || !strings.Contains(strings.Join(c.Diagnostics, "\n"), want) {
					t.Errorf("problems %q lack %q", probs, want)
				}
			}
			if wh := c.Lookup("ops/warehouse"); wh == nil || wh.Package.Engine != EnginePostgres || wh.Package.Schema != "ops" ||
				!strings.Contains(strings.Join(wh.Package.Problems, "\n"), `unknown engine "postgre" (want duckdb or postgres): did you mean "postgres"?; still serving`) {
				t.Errorf("a manifest with a wrong engine: %+v", wh)
			}
			continue
		}
		// Nothing loaded before: the broken files are skipped.
		if c.Lookup("retail/shop") != nil || c.Lookup("ops/warehouse") != nil {
			t.Errorf("broken manifests loaded with nothing before")
		}
	}
	// Fixed: the new version. Removed: gone, even though it parsed before.
	write(t, root, map[string]string{
		"retail/shop/manifest.json": `{"description": "The new shop"}`,
		"retail/shop/sales.sql":     "-- @source orders\nSELECT * FROM 'data/orders.csv';\n",
	})
	c, err := LoadAfter(root, first)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lookup("retail/shop").Description != "The new shop" || c.Lookup("retail/shop/sales/revenue_by_month") != nil || len(c.Lookup("retail/shop").Package.Problems) != 0 {
		t.Errorf("the fixed files: %+v", c.Lookup("retail/shop").Package)
	}
	if err := os.Remove(filepath.Join(root, "retail/shop/sales.sql")); err != nil {
		t.Fatal(err)
	}
	if c, err = LoadAfter(root, first); err != nil || c.Lookup("retail/shop/sales") != nil {
		t.Errorf("a removed model is still there: %v", err)
	}
}

// TestSearchParamsAndNotebookProse: a named query is found by its parameters'
// names (ranked as a column would be) and descriptions, and a notebook by any of
// its prose, not by the SQL of its cells.
func TestSearchParamsAndNotebookProse(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": `-- @source orders
SELECT 1;
-- Top customers.
-- @query top
-- @param region VARCHAR the sales territory, e.g. north
-- @param n INTEGER how many
SELECT 1;
`,
		"p/k/review.md": "# Review\n\nA first paragraph.\n\n## Later\n\nCustomers who churned last winter.\n\n```sql\nSELECT lifetime_value FROM orders\n```\n",
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"region", "p/k/m/top parameter region"},
		{"regi", "p/k/m/top parameter region"},
		{"territory", "p/k/m/top parameter description"},
		{"churned", "p/k/review text"},
		{"winter customers", "p/k/review text"},
	} {
		var got []string
		for _, h := range c.Search(tc.q, 20) {
			got = append(got, h.Entry.Path+" "+h.Match)
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("search %q: %v, want [%s]", tc.q, got, tc.want)
		}
	}
	if hits := c.Search("lifetime_value", 20); len(hits) != 0 {
		t.Errorf("a notebook's SQL is searched: %v", hits[0].Entry.Path)
	}
}

// TestParamType: an @param line's type is a name with its parentheses, SQL's
// longer type names and list brackets, kept as written; the rest is the
// description.
func TestParamType(t *testing.T) {
	for _, tc := range []struct{ in, typ, desc string }{
		{"INTEGER the year", "INTEGER", "the year"},
		{"integer", "integer", ""},
		{"DECIMAL(10, 2) amount in euros", "DECIMAL(10, 2)", "amount in euros"},
		{"timestamp with time zone when it began", "timestamp with time zone", "when it began"},
		{"timestamp(3)  without  time zone x", "timestamp(3) without time zone", "x"},
		{"TIME WITH TIME ZONE", "TIME WITH TIME ZONE", ""},
		{"timestamp with timezone x", "timestamp", "with timezone x"},
		{"timestamp with time zone[] days", "timestamp with time zone[]", "days"},
		{"double precision ratio", "double precision", "ratio"},
		{"character varying(20) name", "character varying(20)", "name"},
		{"STRUCT(a INTEGER, b VARCHAR) pair", "STRUCT(a INTEGER, b VARCHAR)", "pair"},
		{"ENUM('a b', 'c)') mood", "ENUM('a b', 'c)')", "mood"},
		{"INTEGER[3] triple", "INTEGER[3]", "triple"},
		{"INTEGER [] ids", "INTEGER[]", "ids"},
		{"VARCHAR withdrawn reason", "VARCHAR", "withdrawn reason"},
		// A description in parentheses or brackets after white space.
		{"INTEGER (how many rows)", "INTEGER", "(how many rows)"},
		{"DATE (YYYY-MM-DD)", "DATE", "(YYYY-MM-DD)"},
		{"INTEGER [1-100] how many", "INTEGER", "[1-100] how many"},
		{"TYPE [description]", "TYPE", "[description]"},
		{"DECIMAL (10, 2) amount", "DECIMAL (10, 2)", "amount"},
		{"NUMERIC(10 ,2)", "NUMERIC(10 ,2)", ""},
		// PostgreSQL's own types, by schema or quoted.
		{"public.mood the mood", "public.mood", "the mood"},
		{`"Mood" x`, `"Mood"`, "x"},
		{`public."Mood"[] moods`, `public."Mood"[]`, "moods"},
		// After white space, a precision only for types that take one, and
		// only [] as brackets.
		{"INTEGER (10) max rows", "INTEGER", "(10) max rows"},
		{"DATE (2024) a day", "DATE", "(2024) a day"},
		{"character varying (max 20 chars) name", "character varying", "(max 20 chars) name"},
		{"VARCHAR [1] see note", "VARCHAR", "[1] see note"},
		{"INTEGER [0] index", "INTEGER", "[0] index"},
		{"INTEGER[3] three", "INTEGER[3]", "three"},
		// PostgreSQL's interval fields, a precision after SECOND only.
		{"INTERVAL DAY TO SECOND(3) the gap", "INTERVAL DAY TO SECOND(3)", "the gap"},
		{"interval  hour to minute", "interval hour to minute", ""},
		{"INTERVAL YEAR TO MONTH, age", "INTERVAL YEAR TO MONTH", "age"},
		{"INTERVAL SECOND (2)[] gaps", "INTERVAL SECOND (2)[]", "gaps"},
		{"INTERVAL MINUTE TO SECOND", "INTERVAL MINUTE TO SECOND", ""},
		{"INTERVAL HOUR TO MINUTE (2) x", "INTERVAL HOUR TO MINUTE", "(2) x"},
		{"INTERVAL(3) hour wait", "INTERVAL(3)", "hour wait"},
		{"INTERVAL hours of wait", "INTERVAL", "hours of wait"},
		// A comma or colon after the type.
		{"INTEGER, the id", "INTEGER", "the id"},
		{"INTEGER: the id", "INTEGER", "the id"},
	} {
		typ, desc, ok := paramType(tc.in)
		if !ok || typ != tc.typ || desc != tc.desc {
			t.Errorf("paramType(%q) = %q, %q, %v; want %q, %q", tc.in, typ, desc, ok, tc.typ, tc.desc)
		}
	}
	for _, in := range []string{"", "(1)", "DECIMAL(10,2", "DECIMAL(5,2)x", "ENUM('a"} {
		if typ, desc, ok := paramType(in); ok {
			t.Errorf("paramType(%q) = %q, %q: want a refusal", in, typ, desc)
		}
	}
}

// TestPlaceholderSpansOperators: on PostgreSQL an @name whose @ ends one of
// PostgreSQL's operators ending in @ (<@, @@, @@@, ^@, @-@) is that operator
// before a name, in SQL with parameters or without; after other operator
// characters (=@x, ||@x, &&@x) it is a parameter.
func TestPlaceholderSpansOperators(t *testing.T) {
	names := func(sql string) []string {
		var out []string
		for _, sp := range PlaceholderSpans(sql, EnginePostgres) {
			out = append(out, sp.Name)
		}
		return out
	}
	if got := names("SELECT tags <@ARRAY['a'], tsv @@to_tsquery('a') FROM t"); len(got) != 0 {
		t.Errorf("without parameters: %q", got)
	}
	if got := names("SELECT count(*) FROM t WHERE ARRAY[@tag]::text[] <@tags AND tsv @@q AND tsv @@@q2 AND name ^@p AND @-@seg > 1"); !slices.Equal(got, []string{"tag"}) {
		t.Errorf("with parameters: %q", got)
	}
	if got := names("SELECT 1 WHERE a=@a AND b||@b = '' AND c &&@c AND d>=@d AND e -@e > 0 AND (@f, @g) AND h IN(@h)"); !slices.Equal(got, []string{"a", "b", "c", "d", "e", "f", "g", "h"}) {
		t.Errorf("after other operator characters: %q", got)
	}
	if got := names("SELECT @a, @ b, x <@ y, 'me@example.com'"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("spaced operators and strings: %q", got)
	}
}

// TestWithPackagesProjectFields: a package kept from an earlier read
// (WithPackages) is served within the new read's project: the project's entry,
// and the Project of the package's entries, have the new project.json's
// description, while the kept package is the earlier version (whose own
// Package.Project is its read's, as WithPackages says).
func TestWithPackagesProjectFields(t *testing.T) {
	root := testCatalog(t)
	old, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, map[string]string{"retail/project.json": `{"description": "Retail analytics, revised"}`})
	c, err := LoadAfter(root, old)
	if err != nil {
		t.Fatal(err)
	}
	kept := old.Lookup("retail/shop").Package
	n := c.WithPackages(map[string]*Package{"retail/shop": kept})
	pe := n.Lookup("retail")
	if pe.Description != "Retail analytics, revised" || pe.Project.Description != pe.Description {
		t.Errorf("project entry: %q, its project's %q", pe.Description, pe.Project.Description)
	}
	for _, path := range []string{"retail/shop", "retail/shop/sales", "retail/shop/sales/orders"} {
		e := n.Lookup(path)
		if e == nil || e.Package != kept || e.Project != pe.Project {
			t.Errorf("%s: %+v", path, e)
		}
	}
	// As documented: the kept package's own Project is its read's, the same
	// name, the description of then.
	if kept.Project.Name != "retail" || kept.Project.Description != "Retail analytics" {
		t.Errorf("kept package's project: %q %q", kept.Project.Name, kept.Project.Description)
	}
}
