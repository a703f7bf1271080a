package catalog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRacyOwnFilesOutsideBudget: data files written at the same time as a
// model, which take the whole budget of a walk before it (data/ sorts before
// m.sql), do not hide a rewrite of the model with the same size and time: the
// files Load reads are hashed outside the budget. Before, walks 2 and 3 left the
// fingerprint unchanged.
func TestRacyOwnFilesOutsideBudget(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	const size, n = 1024, 8
	rewriteSame(t, root, "p/project.json", "{}", when)
	rewriteSame(t, root, "p/x/manifest.json", "{}", when)
	for i := range n {
		rewriteSame(t, root, fmt.Sprintf("p/x/data/f%02d.csv", i), strings.Repeat("a", size), when)
	}
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	rewriteSame(t, root, "p/x/nb.md", "# alpha\n", when)
	ids := FileIDs{ctime: sameTick, now: (&racyClock{t: when}).now, budget: 2 + n/2*size} // room for project.json ({}) and half the data: none left
	fp := func() string {
		t.Helper()
		f, err := fingerprint(root, &ids)
		if err != nil {
			t.Fatal(err)
		}
		if ids.read > ids.budget {
			t.Fatalf("a walk read %d bytes of data files, over its budget of %d", ids.read, ids.budget)
		}
		return f
	}
	last := fp()
	for _, c := range []struct{ path, content string }{
		{"p/x/m.sql", "SELECT 'gamma';\n"},
		{"p/x/nb.md", "# gamma\n"},
		{"p/x/manifest.json", "[]"},
		{"p/project.json", "[]"},
	} {
		rewriteSame(t, root, c.path, c.content, when)
		next := fp()
		if next == last {
			t.Errorf("%s rewritten with the same size and time, beside data files taking the budget, was not seen", c.path)
		}
		last = next
	}
}

// TestRacyLearnPastBudget: a reload's walk that did not hash a racy file for
// want of budget does not erase the hash the watch took of it: the watch still
// sees the file rewritten with the same size and time. Before, Learn copied
// "not hashed", and the rewrite was never seen.
func TestRacyLearnPastBudget(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	now := (&racyClock{t: when}).now
	rewriteSame(t, root, "p/x/manifest.json", "{}", when.Add(-time.Hour))
	rewriteSame(t, root, "p/x/data/d.csv", "a,b\n1,2\n", when)
	watch := FileIDs{ctime: sameTick, now: now}
	before, err := fingerprint(root, &watch)
	if err != nil {
		t.Fatal(err)
	}
	reload := FileIDs{ctime: sameTick, now: now, budget: 1} // room for no file
	fingerprint(root, &reload)
	watch.Learn(&reload)
	rewriteSame(t, root, "p/x/data/d.csv", "a,b\n3,4\n", when)
	after, err := fingerprint(root, &watch)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("a racy file the reload's walk had no budget to hash: its rewrite with the same size and time was not seen")
	}
}

// TestRacyAheadDuringWalk: a file saved during a long walk, dated more than
// RacyAhead after the walk's start but not after the moment the walk looks at
// it, is racy: its rewrite with the same size and time is seen. Before, "ahead"
// was measured from the walk's start, and it was not.
func TestRacyAheadDuringWalk(t *testing.T) {
	root := t.TempDir()
	start := time.Now().Truncate(time.Second)
	rewriteSame(t, root, "p/x/manifest.json", "{}", start.Add(-time.Hour))
	saved := start.Add(RacyAhead + 3*time.Second)
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", saved)
	// Each reading of the clock is 10 s after the one before: the walk looks
	// at m.sql 10 s after its start.
	clock := start.Add(-10 * time.Second)
	ids := FileIDs{ctime: sameTick, now: func() time.Time { clock = clock.Add(10 * time.Second); return clock }}
	before, err := fingerprint(root, &ids)
	if err != nil {
		t.Fatal(err)
	}
	if hashedCount(&ids) != 1 {
		t.Errorf("%d files hashed, want m.sql, saved during the walk", hashedCount(&ids))
	}
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'gamma';\n", saved)
	after, err := fingerprint(root, &ids)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("a file saved during a long walk, rewritten with the same size and time, was not seen")
	}
}

// TestRacyOwnFilesAsLoadReads: only the files Load reads are hashed outside
// RacyBudget: not .sql files in a folder without manifest.json, nor .SQL
// files (Load's extensions are case-sensitive), nor a .md file whose name Load
// skips, nor README.md. Before, every */*/*.sql and *.md file was hashed
// outside the budget (the reviewer's repro, 40 × 1 MiB of each, made every
// poll read 121 MiB).
func TestRacyOwnFilesAsLoadReads(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	const size, n, fit = 256, 40, 5
	rewriteSame(t, root, "p/x/manifest.json", "{}", when)
	for i := range n {
		rewriteSame(t, root, fmt.Sprintf("p/raw/dump%02d.sql", i), strings.Repeat("a", size), when)
		rewriteSame(t, root, fmt.Sprintf("p/x/DUMP%02d.SQL", i), strings.Repeat("a", size), when)
		rewriteSame(t, root, fmt.Sprintf("p/x/bad name%02d.md", i), strings.Repeat("a", size), when)
	}
	rewriteSame(t, root, "p/x/README.md", strings.Repeat("a", size), when)
	rewriteSame(t, root, "p/x/m.sql", "SELECT 1;\n", when)
	ids := FileIDs{ctime: sameTick, now: (&racyClock{t: when}).now, budget: fit * size}
	for walk := range 2 {
		if _, err := fingerprint(root, &ids); err != nil {
			t.Fatal(err)
		}
		if want := int64(len("{}") + len("SELECT 1;\n")); ids.ownRead != want {
			t.Errorf("walk %d read %d bytes of the catalog's own files, want %d (manifest.json and m.sql)", walk, ids.ownRead, want)
		}
		if got := hashedCount(&ids); got > fit+2 {
			t.Errorf("walk %d hashed %d files, want at most %d: files Load does not read were hashed outside the budget", walk, got, fit+2)
		}
	}
	for path, want := range map[string]bool{
		"p/project.json":       true,
		"p/x/manifest.json":    true,
		"p/x/m.sql":            true,
		"p/x/README.sql":       true, // a model: only README.md is skipped
		"p/x/README.md":        false,
		"p/x/readme.md":        false,
		"p/x/DUMP00.SQL":       false,
		"p/x/bad name00.md":    false,
		"p/raw/dump00.sql":     false,
		"p/x/data/d.sql":       false,
		"bad name/x/m.sql":     false,
		"p/bad name/m.sql":     false,
		"p/x/m.SQL":            false,
		"p/x/nb.md":            true,
		"p/other/project.json": false,
	} {
		ids.BeginIn(root)
		if got := ids.ownFile(filepath.Join(root, path)); got != want {
			t.Errorf("ownFile(%s) = %t, want %t", path, got, want)
		}
	}
}

// TestRacyOwnBudget: the catalog's own files are hashed from RacyOwnBudget,
// then from RacyBudget: a package of many fresh models is not read whole at
// every walk. Before, they were hashed without bound.
func TestRacyOwnBudget(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	const size, n = 256, 40
	rewriteSame(t, root, "p/x/manifest.json", "{}", when.Add(-time.Hour))
	for i := range n {
		rewriteSame(t, root, fmt.Sprintf("p/x/m%02d.sql", i), strings.Repeat("-", size), when)
	}
	ids := FileIDs{ctime: sameTick, now: (&racyClock{t: when}).now, budget: 3 * size, ownBudget: 4 * size}
	if _, err := fingerprint(root, &ids); err != nil {
		t.Fatal(err)
	}
	if ids.ownRead != 4*size || ids.read != 3*size {
		t.Errorf("read %d bytes of own files and %d of the rest, want %d and %d", ids.ownRead, ids.read, 4*size, 3*size)
	}
	if got := hashedCount(&ids); got != 7 {
		t.Errorf("%d files hashed, want 7", got)
	}
	// The default is RacyOwnBudget, then RacyBudget.
	fresh := FileIDs{root: "/catalog"}
	own := filepath.Join("/catalog", "p", "project.json") // ownFile, without a look at the disk
	big := fakeInfo{size: RacyMaxSize}
	for i := range (RacyOwnBudget + RacyBudget) / RacyMaxSize {
		if !fresh.fitsFor(own, big) {
			t.Fatalf("own file %d of %d bytes does not fit", i, RacyMaxSize)
		}
	}
	if fresh.fitsFor(own, fakeInfo{size: 1}) {
		t.Errorf("more than RacyOwnBudget + RacyBudget fits in one walk")
	}
}

// TestRacyLearnWatchSkipped: a racy file the watch had no budget to hash, and
// the reload's walk hashed with the same size and time, takes the reload's
// hash: a later rewrite of it with the same size and time is seen. Before,
// Learn skipped it, and the rewrite was never seen.
func TestRacyLearnWatchSkipped(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	now := (&racyClock{t: when}).now
	rewriteSame(t, root, "p/x/manifest.json", "{}", when.Add(-time.Hour))
	rewriteSame(t, root, "p/x/data/d.csv", "a,b\n1,2\n", when)
	watch := FileIDs{ctime: sameTick, now: now, budget: 1} // room for no file
	before, err := fingerprint(root, &watch)
	if err != nil {
		t.Fatal(err)
	}
	reload := FileIDs{ctime: sameTick, now: now}
	fingerprint(root, &reload)
	watch.Learn(&reload)
	watch.budget = 0 // RacyBudget: room to compare
	rewriteSame(t, root, "p/x/data/d.csv", "a,b\n3,4\n", when)
	after, err := fingerprint(root, &watch)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("a racy file the watch had no budget for, hashed by the reload: its rewrite with the same size and time was not seen")
	}
}
