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
// The walk stops after maxStamped files and folders.
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
	stamps := dirStamps(dir, &ids)
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
	if again := dirStamps(dir, &ids); again["p/k"] != stamps["p/k"] {
		t.Errorf("a hidden file changed the stamp of p/k:\n%q\n%q", stamps["p/k"], again["p/k"])
	}

	maxStamped = 2
	t.Cleanup(func() { maxStamped = catalog.MaxWatchedFiles })
	dirStamps(dir, &ids)
	if got := ids.Len(); got != 2 {
		t.Errorf("%d paths kept with a cap of 2", got)
	}
}
