package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchTellsReplacedFiles: the watch's fingerprint changes when two package
// folders swap names, or a file is renamed over another, though every name, size
// and time stays the same (the folders' times set back). Setting the same times
// again, or rewriting a file in place, moves the files' change time (ctime,
// read on Linux): a change there, none elsewhere.
func TestWatchTellsReplacedFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"p/x/manifest.json": "{}", "p/x/m.sql": "-- @source s\nSELECT 'alpha';\n",
		"p/y/manifest.json": "{}", "p/y/m.sql": "-- @source s\nSELECT 'gamma';\n",
		"p/x/new.sql": "-- @source s\nSELECT 'delta';\n", "p/y/new.sql": "-- @source s\nSELECT 'theta';\n",
	})
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	setTimes := func() {
		t.Helper()
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chtimes(path, when, when)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	mv := func(from, to string) {
		t.Helper()
		if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
			t.Fatal(err)
		}
	}
	var ids FileIDs
	fp := walkOf(t, root, &ids)
	ctime := hasChangeTime
	setTimes()
	before, plain := fp(), mustFingerprint(t, root)

	setTimes()
	if again := fp(); (again != before) != ctime {
		t.Errorf("the same times set again: fingerprint changed %t, want %t", again != before, ctime)
	}
	before = fp()
	mv("p/x", "p/t")
	mv("p/y", "p/x")
	mv("p/t", "p/y")
	setTimes()
	if mustFingerprint(t, root) != plain {
		t.Fatal("the test's swap changed a name, size or time")
	}
	after := fp()
	if after == before {
		t.Error("two package folders swapped left the watch's fingerprint unchanged")
	}
	if fp() != after {
		t.Error("the fingerprint changed again with nothing changed")
	}

	// A file renamed over another of the same size and time (now in p/y).
	mv("p/y/new.sql", "p/y/m.sql")
	write(t, root, map[string]string{"p/y/new.sql": "-- @source s\nSELECT 'delta';\n"})
	setTimes()
	if mustFingerprint(t, root) != plain {
		t.Fatal("the test's rename changed a name, size or time")
	}
	if fp() == after {
		t.Error("a file renamed over another left the watch's fingerprint unchanged")
	}
	// Rewritten in place, same size and time: the same file, its change time
	// moved (its time, in 2024, is not racy: TestRacyRewriteSeen has one that
	// is, within one tick of the clock).
	after = fp()
	write(t, root, map[string]string{"p/y/m.sql": "-- @source s\nSELECT 'omega';\n"})
	setTimes()
	if got := fp(); (got != after) != ctime {
		t.Errorf("a file rewritten in place with the same size and time: fingerprint changed %t, want %t", got != after, ctime)
	}
}

func mustFingerprint(t *testing.T, root string) string {
	t.Helper()
	f, err := Fingerprint(root)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
