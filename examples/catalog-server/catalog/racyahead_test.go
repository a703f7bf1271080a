package catalog

import (
	"cmp"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// TestRacyFutureNotHashed: files dated far ahead of the walk (a catalog
// unpacked from an archive made on a machine whose clock was ahead) are not
// racy: no walk reads them. Before, they were racy until the clock caught up,
// and every poll read them all. One dated less than RacyAhead ahead still is.
func TestRacyFutureNotHashed(t *testing.T) {
	root := t.TempDir()
	now := time.Now().Truncate(time.Second)
	rewriteSame(t, root, "p/x/manifest.json", "{}", now.Add(-time.Hour))
	clock := &racyClock{t: now}
	const n = 20
	for i := range n {
		rewriteSame(t, root, fmt.Sprintf("p/x/data/f%02d.csv", i), strings.Repeat("a", 4096), now.Add(24*time.Hour))
	}
	rewriteSame(t, root, "p/x/data/near.csv", "SELECT 'alpha';\n", now.Add(RacyAhead-time.Second))
	ids := FileIDs{ctime: sameTick, now: clock.now}
	for walk := range 3 {
		if _, err := fingerprint(root, &ids); err != nil {
			t.Fatal(err)
		}
		if got, want := ids.read, int64(len("SELECT 'alpha';\n")); walk > 0 && got != want {
			t.Errorf("walk %d read %d bytes, want %d (the file dated %s ahead only)", walk, got, want, RacyAhead-time.Second)
		}
		if got := hashedCount(&ids); got != 1 {
			t.Errorf("walk %d: %d files hashed, want 1", walk, got)
		}
		clock.t = clock.t.Add(time.Second)
	}
}

// TestRacyBudget: one walk reads at most its budget to hash racy files; those
// past it are not read (a rewrite of them keeping size and time is not seen,
// as of a file over RacyMaxSize), and a file hashed before whose comparison
// does not fit keeps its hash for a later walk, which sees its rewrite.
func TestRacyBudget(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Truncate(time.Second)
	rewriteSame(t, root, "p/x/manifest.json", "{}", when.Add(-time.Hour))
	clock := &racyClock{t: when}
	const size, n = 1024, 30
	for i := range n {
		rewriteSame(t, root, fmt.Sprintf("p/x/data/f%02d.csv", i), strings.Repeat("a", size), when)
	}
	ids := FileIDs{ctime: sameTick, now: clock.now, budget: 10*size + size/2}
	fp := func() string {
		t.Helper()
		f, err := fingerprint(root, &ids)
		if err != nil {
			t.Fatal(err)
		}
		if budget := cmp.Or(ids.budget, RacyBudget); ids.read > budget {
			t.Fatalf("a walk read %d bytes, over its budget of %d", ids.read, budget)
		}
		return f
	}
	first := fp()
	if got := hashedCount(&ids); got != 10 {
		t.Fatalf("%d files hashed, want the 10 the budget holds", got)
	}
	// The budget's files are compared at the next walk: a rewrite is seen.
	rewriteSame(t, root, "p/x/data/f03.csv", strings.Repeat("b", size), when)
	second := fp()
	if second == first {
		t.Error("a racy file within the budget rewritten with the same size and time was not seen")
	}
	// With room for one file, the walk compares f00 and keeps the others' hashes;
	// a later walk with room compares f05 and sees its rewrite.
	ids.budget = size
	rewriteSame(t, root, "p/x/data/f05.csv", strings.Repeat("b", size), when)
	if fp() != second {
		t.Error("a file whose comparison did not fit in the budget changed the fingerprint")
	}
	if got := hashedCount(&ids); got != 10 {
		t.Errorf("%d hashes kept, want 10", got)
	}
	ids.budget = 0 // RacyBudget
	if fp() == second {
		t.Error("a rewrite of a file whose hash was kept past the budget was not seen when it fit")
	}
	// The default budget is RacyBudget.
	var fresh FileIDs
	big := fakeInfo{size: RacyMaxSize}
	for i := range RacyBudget / RacyMaxSize {
		if !fresh.fitsFor("data.csv", big) {
			t.Fatalf("file %d of %d bytes does not fit", i, RacyMaxSize)
		}
	}
	if fresh.fitsFor("data.csv", fakeInfo{size: 1}) {
		t.Errorf("more than RacyBudget (%d bytes) fits in one walk", RacyBudget)
	}
}

type fakeInfo struct{ size int64 }

func (f fakeInfo) Name() string       { return "f" }
func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) Mode() fs.FileMode  { return 0o644 }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return nil }
