//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOutsideLinks: links out of the folder are found wherever they are (in a
// hidden folder, dangling, through another link), links inside it and loops
// are not, and a link to a folder is not followed.
func TestOutsideLinks(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for _, d := range []string{"data/sub", ".hidden"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "data/x.csv"), []byte("a\n"), 0o644)
	links := map[string]string{
		"data/in.csv":     "x.csv",                                            // inside
		"data/sub/up":     "..",                                               // inside (the data folder)
		"data/loop1":      "loop2",                                            // a loop: lists nothing
		"data/loop2":      "loop1",                                            //
		"data/gone":       "nothere/x",                                        // dangling, inside
		"data/out":        out,                                                // out
		".hidden/root":    "/",                                                // out, in a hidden folder
		"data/far":        "../../" + filepath.Base(filepath.Dir(dir)) + "/x", // dangling, out
		"data/sub/viaout": "../out",                                           // through a link out
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("cannot make a symbolic link: %v", err)
		}
	}
	// Followed, this would find the links of out as well.
	os.Symlink("/", filepath.Join(out, "deeper"))
	got, complete, err := OutsideLinks(dir)
	if err != nil || !complete {
		t.Fatalf("OutsideLinks: %v, complete %t", err, complete)
	}
	want := []string{
		".hidden/root -> /",
		"data/far -> ../../" + filepath.Base(filepath.Dir(dir)) + "/x",
		"data/out -> " + out,
		"data/sub/viaout -> ../out",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("OutsideLinks:\n got %q\nwant %q", got, want)
	}
}

// TestWithin: a path is within a folder when it is the folder or below it, not
// when it only starts with the folder's name.
func TestWithin(t *testing.T) {
	dir := filepath.Join(string(filepath.Separator), "srv", "pkg")
	for p, want := range map[string]bool{
		dir:                                true,
		filepath.Join(dir, "a.csv"):        true,
		filepath.Join(dir, "sub", "b.csv"): true,
		dir + "2":                          false,
		filepath.Join(dir+"2", "a.csv"):    false,
		filepath.Dir(dir):                  false,
	} {
		if got := Within(dir, p); got != want {
			t.Errorf("Within(%q, %q) = %v, want %v", dir, p, got, want)
		}
	}
}
