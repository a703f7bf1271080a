package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFoldersNotServedAreReported: what the catalog does not serve is said
// where a user looks, not skipped without a word: a folder of models without a
// manifest.json (at the project's level), a package folder that is a symbolic
// link (inside the catalog or out of it; neither is followed), a project folder
// that is a link (at the catalog's top), a folder of models or a package inside
// a package, a manifest.json or .sql file at the project's level, and one at
// the catalog's top (a README anywhere is not reported).
func TestFoldersNotServedAreReported(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, map[string]string{"k/manifest.json": `{}`, "k/m.sql": "-- @source a\nSELECT 1;\n"})
	write(t, root, map[string]string{
		"acme/real/manifest.json":         `{}`,
		"acme/real/m.sql":                 "-- @source a\nSELECT 1;\n",
		"acme/real/data/a.csv":            "x\n1\n",
		"acme/real/more/extra.sql":        "-- @source b\nSELECT 1;\n",
		"acme/real/sub/manifest.json":     `{}`,
		"acme/nomanifest/sales.sql":       "-- @source a\nSELECT 1;\n",
		"acme/docs/notes.md":              "# not models\n",
		"acme/manifest.json":              `{}`,
		"acme/stray.sql":                  "-- @source a\nSELECT 1;\n",
		"acme/README.md":                  "# a project\n",
		"manifest.json":                   `{}`,
		"top.sql":                         "-- @source a\nSELECT 1;\n",
		"README.md":                       "# a catalog\n",
		"other/k/manifest.json":           `{}`,
		"other/k/m.sql":                   "-- @source a\nSELECT 1;\n",
		"acme/real/data/nested/x.parquet": "",
	})
	for link, target := range map[string]string{
		"acme/inlink":  filepath.Join(root, "acme", "real"),
		"acme/outlink": filepath.Join(outside, "k"),
		"linkedproj":   filepath.Join(root, "other"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	proj := strings.Join(c.Lookup("acme").Project.Problems, "\n")
	for _, want := range []string{
		"acme/nomanifest: not a package: it holds the model file sales.sql but no manifest.json",
		"{} will do",
		"acme/inlink: skipped: a symbolic link to a folder (to acme/real, inside the catalog), which the catalog does not follow",
		"acme/outlink: skipped: a symbolic link to a folder (out of the catalog)",
		"acme/manifest.json: not read: acme is a project",
		"acme/stray.sql: not read: acme is a project, and a model's .sql file belongs in a package folder of it (acme/PACKAGE/",
	} {
		if !strings.Contains(proj, want) {
			t.Errorf("project problems lack %q:\n%s", want, proj)
		}
	}
	if strings.Contains(proj, "docs") || strings.Contains(proj, "README") {
		t.Errorf("a folder without models is reported:\n%s", proj)
	}
	pkg := strings.Join(c.Lookup("acme/real").Package.Problems, "\n")
	for _, want := range []string{
		"acme/real/more: not read: it holds the model file extra.sql, but a package's models and notebooks are read only beside its manifest.json",
		"acme/real/sub: not read: a package inside a package is not served",
	} {
		if !strings.Contains(pkg, want) {
			t.Errorf("package problems lack %q:\n%s", want, pkg)
		}
	}
	if strings.Contains(pkg, "data") {
		t.Errorf("a folder of data files is reported:\n%s", pkg)
	}
	top := strings.Join(c.Problems, "\n")
	for _, want := range []string{
		"linkedproj: skipped: a symbolic link to a folder (to other, inside the catalog)",
		"manifest.json: not read: the catalog's top holds project folders only",
		"top.sql: not read: the catalog's top holds project folders only",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("catalog problems lack %q: %q", want, top)
		}
	}
	if strings.Contains(top, "README") {
		t.Errorf("a README at the top is reported: %q", top)
	}
	if _, err := c.Resolve("linkedproj"); err == nil || !strings.Contains(err.Error(), "linkedproj: skipped: a symbolic link") {
		t.Errorf("resolve linkedproj: %v", err)
	}
	for _, p := range []string{"acme/inlink", "acme/outlink", "linkedproj", "acme/nomanifest"} {
		if c.Lookup(p) != nil {
			t.Errorf("%s is served", p)
		}
	}
	// What is skipped is in Diagnostics (logged) too.
	if d := strings.Join(c.Diagnostics, "\n"); !strings.Contains(d, "acme/outlink") || !strings.Contains(d, "acme/real/more") || !strings.Contains(d, "linkedproj") {
		t.Errorf("diagnostics: %s", d)
	}
	// A name near a link's is told why it is not there.
	_, err = c.Resolve("acme/inlnk")
	if err == nil || !strings.Contains(err.Error(), "acme/inlink (acme/inlink: skipped: a symbolic link") {
		t.Errorf("near a skipped link: %v", err)
	}
}

// TestStaticQueryChecks: in a PostgreSQL package (whose named queries are not
// prepared when the model opens), a parameter used and not declared and one
// declared and never used are the query's and the package's problems when the
// catalog loads; so is a parameter in a notebook cell (which takes none).
// Parameters in strings, quoted names, comments and dollar quotes are not
// parameters.
func TestStaticQueryChecks(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/k/manifest.json": `{"engine": "postgres", "dsnEnv": "X"}`,
		"p/k/m.sql": "-- @source s\nSELECT 1 AS a;\n\n-- @query q\n-- @param a INTEGER\n-- @param unused TEXT\n" +
			"SELECT * FROM s WHERE a = @a\n  AND '@no' <> \"@no\" /* @no */ AND $$ @no $$ = '' -- @no\n  AND a = @b;\n",
		"p/k/nb.md": "# N\n\n```sql\nSELECT * FROM s WHERE a = @c\n```\n",
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	q := c.Lookup("p/k/m/q").Query
	got := strings.Join(q.Problems, "\n")
	for _, want := range []string{
		"p/k/m.sql: query q (line 7): the SQL uses the parameter @b (line 9, column 11), which no @param line declares",
		"@param unused is declared but the SQL never uses @unused",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("query problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "@no") {
		t.Errorf("a parameter inside a string or comment: %s", got)
	}
	cell := c.Lookup("p/k/nb/cell-1").Query
	if len(cell.Problems) != 1 || !strings.Contains(cell.Problems[0], "p/k/nb.md: cell-1 (line 4): the SQL uses the parameter @c (line 4, column 27), but a notebook cell takes no parameters") {
		t.Errorf("cell problems: %q", cell.Problems)
	}
	pkg := c.Lookup("p/k").Package.Problems
	if len(pkg) != 3 {
		t.Errorf("package problems: %q", pkg)
	}
	if got := Placeholders("SELECT $a, $1, $$x$$, $t$ $b $t$, '$c', E'\\' $d', \"$e\", x$f, $a", EngineDuckDB); !slices.Equal(got, []Placeholder{{"a", 8}}) {
		t.Errorf("DuckDB placeholders: %v", got)
	}
}

// TestNearNames: a name is close to another when at most one edit in three of
// its characters is needed (a swap of two letters counts one), and a name whose
// file was skipped is named, with why, when it is close.
func TestNearNames(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"acme/hr/manifest.json":   `{}`,
		"acme/hr/top_n.sql":       "-- @source a\nSELECT 1;\n",
		"acme/hr/staff.sql":       "SELECT 1;\n",
		"acme/shop/manifest.json": `{}`,
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"nope":  nil,
		"top_m": {"top_n"},
		"tpo_n": {"top_n"},
		"..":    nil,
		"s":     nil,
		// Abbreviations either way, whatever their distance.
		"tpn":         {"top_n"},
		"shopkeeper":  {"shop"},
		"quantity":    {"qty"},
		"sh":          nil, // too short to abbreviate
		"hop":         {"shop"},
		"qzz":         nil, // two edits from qty, and no abbreviation
		"amt":         {"amount"},
		"customer_id": {"cust_id"},
	} {
		if got := Closest(name, []string{"top_n", "hr", "shop", "qty", "amount", "cust_id"}, 3); !slices.Equal(got, want) && !(len(got) == 0 && want == nil) {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
	_, err = c.Resolve("acme/hr/stuff")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "acme/hr/staff (acme/hr/staff.sql: skipped: line 1: SQL before any @source or @query annotation)") || strings.Contains(err.Error(), "no children") {
		t.Errorf("near a skipped model: %v", err)
	}
	// Dot segments are refused; empty ones do not count.
	if _, err := c.Resolve("acme/.."); err == nil || !strings.Contains(err.Error(), `the segment ".." means nothing here`) {
		t.Errorf("acme/..: %v", err)
	}
	for _, p := range []string{"acme//hr", "/acme/hr/", " acme///hr"} {
		if e, err := c.Resolve(p); err != nil || e.Path != "acme/hr" {
			t.Errorf("%q: %v, %v", p, e, err)
		}
	}
	if pg, err := c.List("acme//hr", "", 10); err != nil || len(pg.Items) != 1 {
		t.Errorf("list acme//hr: %v %v", pg, err)
	}
	// A package with nothing loaded says so, not "no children" of a name.
	if _, err := c.Resolve("acme/shop/x"); err == nil || !strings.Contains(err.Error(), `"acme/shop" has no children`) && !strings.Contains(err.Error(), "acme/shop has no children") {
		t.Errorf("acme/shop/x: %v", err)
	}
}
