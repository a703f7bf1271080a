package catalog

import (
	"fmt"
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
	ids := FileIDs{now: (&racyClock{t: when}).now, budget: 2 + n/2*size} // room for project.json ({}) and half the data: none left
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
	watch := FileIDs{now: now}
	before, err := fingerprint(root, &watch)
	if err != nil {
		t.Fatal(err)
	}
	reload := FileIDs{now: now, budget: 1} // room for no file
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
	ids := FileIDs{now: func() time.Time { clock = clock.Add(10 * time.Second); return clock }}
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
