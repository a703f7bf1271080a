//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkOutOfPackage: a symbolic link in a DuckDB package's folder that leads
// out of it lets a glob pattern with a wildcard in the link's place list the
// folder it leads to (DuckDB checks a pattern's fixed part and the files it
// opens against allowed_directories, not each name it matches). Ad-hoc SQL on
// such a package is refused, naming the link, and the package's problems say
// so; its named queries and sources still run, links inside the package are
// fine, and a link made or removed after the load counts from the next reload.
func TestLinkOutOfPackage(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json":  "{}",
		"p/k/data/x.csv":     "y\n1\n",
		"p/k/m.sql":          "-- @source s\nSELECT * FROM read_csv('data/x.csv');\n-- @query q\nSELECT count(*) AS n FROM s;\n",
		"p/ok/manifest.json": "{}",
		"p/ok/data/x.csv":    "y\n1\n",
		"p/ok/m.sql":         "-- @source s\nSELECT * FROM read_csv('data/x.csv');\n",
	})
	if err := os.MkdirAll(filepath.Join(outside, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(outside, "sub", "id_rsa"), []byte("secret"), 0o600)
	if err := os.Symlink(outside, filepath.Join(dir, "p/k/data/linkdir")); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	// Inside the package: fine.
	os.Symlink("x.csv", filepath.Join(dir, "p/ok/data/alias.csv"))
	os.Symlink("../data", filepath.Join(dir, "p/ok/data/up"))
	ctx := context.Background()
	svc := newTestService(t, dir, Config{})

	_, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT * FROM glob('" + filepath.Join(dir, "p/k/data") + "/l*/**')"})
	if err == nil {
		t.Fatal("a glob through a link out of the package ran")
	}
	te := classify(err)
	if te.Kind != "unavailable" || !strings.Contains(te.Error, "data/linkdir -> "+outside) || !strings.Contains(te.Hint, "remove the links") {
		t.Errorf("glob through a link out: %+v", te)
	}
	if strings.Contains(te.Error, "id_rsa") {
		t.Errorf("the refusal names a file outside: %q", te.Error)
	}
	if got := strings.Join(svc.Catalog().Lookup("p/k").Package.Problems, "\n"); !strings.Contains(got, "symbolic links out of the package folder: data/linkdir -> "+outside) {
		t.Errorf("problems of p/k: %q", got)
	}
	// The author's queries and sources still run.
	for _, in := range []executeIn{{Path: "p/k/m/q"}, {Path: "p/k/m/s"}} {
		if res, err := svc.Execute(ctx, in); err != nil || res.RowCount != 1 {
			t.Errorf("%s: %v, %+v", in.Path, err, res)
		}
	}
	// Links inside a package are fine.
	res, err := svc.Execute(ctx, executeIn{Path: "p/ok/m", SQL: "SELECT count(*) AS n FROM glob('" + filepath.Join(dir, "p/ok/data") + "/*')"})
	if err != nil || res.RowCount != 1 {
		t.Errorf("a package with links inside it: %v, %+v", err, res)
	}
	if ps := svc.Catalog().Lookup("p/ok").Package.Problems; len(ps) > 0 {
		t.Errorf("problems of p/ok: %q", ps)
	}

	// Removed: ad-hoc SQL runs again after the reload; made: refused after it.
	os.Remove(filepath.Join(dir, "p/k/data/linkdir"))
	os.Symlink("/", filepath.Join(dir, "p/ok/data/rootlink"))
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT count(*) FROM s"}); err != nil || res.RowCount != 1 {
		t.Errorf("p/k with its link removed: %v, %+v", err, res)
	}
	_, err = svc.Execute(ctx, executeIn{Path: "p/ok/m", SQL: "SELECT * FROM glob('" + filepath.Join(dir, "p/ok/data") + "/r*/etc/*')"})
	if err == nil {
		t.Fatal("a glob through a link to / made after the load ran")
	}
	if te := classify(err); te.Kind != "unavailable" || !strings.Contains(te.Error, "data/rootlink -> /") {
		t.Errorf("a link to / made after the load: %+v", te)
	}
}
