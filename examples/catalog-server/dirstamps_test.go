package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestDirStampsSkipHidden: the stamps a reread takes of the files skip hidden
// files and folders (a .git folder in the catalog), as the watch does: none is
// hashed or kept, and one changing changes no package's stamp. Before, each
// reread walked .git, hashed its fresh objects and kept an entry for each.
func TestDirStampsSkipHidden(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source a\nSELECT 1 AS x;\n",
		"p/k/.editor.swp": "x", "p/.hidden.json": "{}",
	}
	for i := range 50 {
		files[fmt.Sprintf(".git/objects/%02d/obj", i)] = "blob"
		files[fmt.Sprintf("p/k/.git/objects/%02d/obj", i)] = "blob"
	}
	writeFiles(t, dir, files)
	var ids catalog.FileIDs
	stamps := stampsOf(dir, &ids)
	for key, s := range stamps {
		if strings.Contains(s, ".git") || strings.Contains(s, ".editor") || strings.Contains(s, ".hidden") {
			t.Errorf("stamp of %s holds a hidden file: %q", key, s)
		}
	}
	// p, p/k, p/k/manifest.json, p/k/m.sql.
	if got := ids.Len(); got != 4 {
		t.Errorf("%d paths kept, want 4", got)
	}
	writeFiles(t, dir, map[string]string{"p/k/.git/objects/00/obj": "a longer blob", "p/k/.git/HEAD": "ref"})
	if again := stampsOf(dir, &ids); again["p/k"] != stamps["p/k"] {
		t.Errorf("a hidden file changed the stamp of p/k:\n%q\n%q", stamps["p/k"], again["p/k"])
	}

}

// TestDirStampsEveryPackage: every package is stamped, however many files come
// before it in the walk, and an edit of it changes its stamp. Before, the walk
// stopped after 200,000 entries, counted otherwise than the watch's: a package
// past that got the stamp "" (taken for gone), the same before and after an
// edit the watch saw, and nothing was loaded (run against that code with its
// cap lowered to 20).
func TestDirStampsEveryPackage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/a/manifest.json": "{}",
		"p/z/manifest.json": "{}", "p/z/m.sql": "-- @source a\nSELECT 1 AS x;\n",
	}
	for i := range 5 {
		files[fmt.Sprintf("p/%dstray%d.txt", i, i)] = "x"
	}
	for i := range 40 {
		files[fmt.Sprintf("p/a/data/f%02d.csv", i)] = "x\n1\n"
	}
	writeFiles(t, dir, files)
	var ids catalog.FileIDs
	before := stampsOf(dir, &ids)
	if before["p/z"] == "" {
		t.Fatal("p/z, after 47 files and folders, has no stamp")
	}
	writeFiles(t, dir, map[string]string{"p/z/m.sql": "-- @source a\nSELECT 2 AS x, 3 AS y;\n"})
	if after := stampsOf(dir, &ids); after["p/z"] == before["p/z"] {
		t.Errorf("an edit of p/z/m.sql left its stamp unchanged: %q", after["p/z"])
	}
}

// stampsOf is dirStamps without its error (a catalog folder the tests can
// read: the stamps are then nil only if it could not).
func stampsOf(dir string, ids *catalog.FileIDs) map[string]string {
	stamps, _ := dirStamps(dir, ids)
	return stamps
}
