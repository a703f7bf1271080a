package catalog

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// racyClock is a clock for FileIDs that a test moves on.
type racyClock struct{ t time.Time }

func (c *racyClock) now() time.Time { return c.t }

// sameTick is a change time for FileIDs that never moves: as a rewrite within
// one tick of the file system's clock leaves it (rewriteSame sets the
// modification time back, which moves the real one).
func sameTick(fs.FileInfo) int64 { return 0 }

// rewriteSame writes content to path (root-relative) and gives it the
// modification time when: the same size and time as before, other content.
func rewriteSame(t *testing.T, root, path, content string, when time.Time) {
	t.Helper()
	full := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, when, when); err != nil {
		t.Fatal(err)
	}
}

// walkOf returns a walk of root with ids: its fingerprint, t failed on an error.
func walkOf(t *testing.T, root string, ids *FileIDs) func() string {
	return func() string {
		t.Helper()
		f, err := fingerprint(root, ids)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}

func hashedCount(ids *FileIDs) int {
	n := 0
	for _, id := range ids.last {
		if id.hashed {
			n++
		}
	}
	return n
}

// TestRacyRewriteSeen: a file rewritten in place with the same size and
// modification time, racy (modified within RacyWindow) when the walk before
// looked, changes the fingerprint once; an unchanged racy file that stops being
// racy changes nothing, and is read no more.
func TestRacyRewriteSeen(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}"})
	when := time.Now().Truncate(time.Second)
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	clock := &racyClock{t: when.Add(100 * time.Millisecond)}
	ids := FileIDs{ctime: sameTick, now: clock.now}
	fp := walkOf(t, root, &ids)
	first := fp()
	if fp() != first {
		t.Fatal("an untouched racy file changed the fingerprint")
	}
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'gamma';\n", when)
	second := fp()
	if second == first {
		t.Fatal("a racy file rewritten with the same size and time did not change the fingerprint")
	}
	if fp() != second {
		t.Fatal("the rewritten file changed the fingerprint again")
	}
	// Past the window: no longer racy, no change, no hash kept.
	clock.t = when.Add(RacyWindow + time.Second)
	if fp() != second {
		t.Error("a racy file that stopped being racy changed the fingerprint")
	}
	if n := hashedCount(&ids); n != 0 {
		t.Errorf("%d files hashed once none is racy", n)
	}
	// The plain Fingerprint reads no content.
	plain := mustFingerprint(t, root)
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'delta';\n", when)
	if mustFingerprint(t, root) != plain {
		t.Error("Fingerprint without FileIDs changed with the content alone")
	}
}

// TestRacyLargeFile: a racy file over RacyMaxSize is not read: rewritten with
// the same size and time, it is not seen (the documented limit); one of
// RacyMaxSize bytes is.
func TestRacyLargeFile(t *testing.T) {
	for _, size := range []int{RacyMaxSize, RacyMaxSize + 1} {
		root := t.TempDir()
		write(t, root, map[string]string{"p/x/manifest.json": "{}", "p/x/data/big.csv": ""})
		when := time.Now().Truncate(time.Second)
		rewriteSame(t, root, "p/x/data/big.csv", strings.Repeat("a", size), when)
		ids := FileIDs{ctime: sameTick, now: (&racyClock{t: when}).now}
		before, err := fingerprint(root, &ids)
		if err != nil {
			t.Fatal(err)
		}
		rewriteSame(t, root, "p/x/data/big.csv", strings.Repeat("b", size), when)
		after, err := fingerprint(root, &ids)
		if err != nil {
			t.Fatal(err)
		}
		if seen := after != before; seen != (size <= RacyMaxSize) {
			t.Errorf("%d bytes: rewrite seen %t, want %t", size, seen, size <= RacyMaxSize)
		}
	}
}

// TestRacyStateBounded: hashes are kept for racy files only: none is left once
// many racy files are removed, or once they stop being racy.
func TestRacyStateBounded(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}"})
	when := time.Now().Truncate(time.Second)
	clock := &racyClock{t: when}
	ids := FileIDs{ctime: sameTick, now: clock.now}
	walk := func() {
		t.Helper()
		if _, err := fingerprint(root, &ids); err != nil {
			t.Fatal(err)
		}
	}
	walk()
	base := len(ids.last)
	const n = 300
	for round := range 2 {
		for i := range n {
			rewriteSame(t, root, filepath.Join("p/x", fmt.Sprintf("f%d.sql", i)), "SELECT 1;\n", clock.t)
		}
		walk()
		if got := hashedCount(&ids); got < n {
			t.Fatalf("round %d: %d racy files hashed, want %d", round, got, n)
		}
		if round == 0 {
			if err := os.RemoveAll(filepath.Join(root, "p/x")); err != nil {
				t.Fatal(err)
			}
			rewriteSame(t, root, "p/x/manifest.json", "{}", when.Add(-time.Hour))
			walk()
			if len(ids.last) != base {
				t.Errorf("%d entries after the files went, want %d", len(ids.last), base)
			}
		} else {
			clock.t = clock.t.Add(RacyWindow + time.Second)
			walk()
		}
		if got := hashedCount(&ids); got != 0 {
			t.Errorf("round %d: %d hashes kept, want 0", round, got)
		}
	}
}

// TestWatchSeesRacyRewrite: Watch calls reload for a racy file rewritten with
// the same size and time, and not for the same file left alone (a poll may see
// the write before its time is set back: more than one reload then).
func TestWatchSeesRacyRewrite(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}"})
	when := time.Now().Truncate(time.Second)
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	var reloads atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Watch(ctx, root, 5*time.Millisecond, func() { reloads.Add(1) }) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond)
	if n := reloads.Load(); n != 0 {
		t.Fatalf("%d reloads of an untouched catalog", n)
	}
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'gamma';\n", when)
	deadline := time.Now().Add(5 * time.Second)
	for reloads.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if reloads.Load() == 0 {
		t.Fatal("no reload for a racy rewrite")
	}
	time.Sleep(20 * time.Millisecond)
	n := reloads.Load()
	time.Sleep(50 * time.Millisecond)
	if m := reloads.Load(); m != n {
		t.Errorf("%d more reloads of the racy file left alone", m-n)
	}
}

// TestRacyLearn: a watch that learns what a reload's walk saw of a racy file
// sees the file written back to the content the watch saw before (A, then B
// read by the reload, then A again, all with one size and time); without
// Learn it would compare A with A.
func TestRacyLearn(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}"})
	when := time.Now().Truncate(time.Second)
	now := (&racyClock{t: when}).now
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	for _, learn := range []bool{false, true} {
		watch, reload := FileIDs{ctime: sameTick, now: now}, FileIDs{ctime: sameTick, now: now}
		before, err := fingerprint(root, &watch)
		if err != nil {
			t.Fatal(err)
		}
		rewriteSame(t, root, "p/x/m.sql", "SELECT 'gamma';\n", when)
		fingerprint(root, &reload) // the reload's walk, then its read of gamma
		if learn {
			watch.Learn(&reload)
		}
		rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
		after, err := fingerprint(root, &watch)
		if err != nil {
			t.Fatal(err)
		}
		if seen := after != before; seen != learn {
			t.Errorf("learn %t: alpha written back seen %t", learn, seen)
		}
	}
}

// TestRewriteSeenHalfWritten: a file truncated and written again with other
// content of the same size, within one tick of the clock, may be seen between
// the two (empty, its time not moved yet: a stat that comes while the kernel
// truncates). The fingerprint after the second write must not be the one
// before the first: it was, and a reload then took the package for the
// version already served. Both a racy file and one dated long ago.
func TestRewriteSeenHalfWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		when time.Time
	}{
		{"racy", time.Now()},
		{"old", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, map[string]string{"p/x/manifest.json": "{}"})
			rewriteSame(t, root, "p/x/data/id.csv", "who\nbravo\n", tc.when)
			var ids FileIDs
			fp := walkOf(t, root, &ids)
			before := fp()
			rewriteSame(t, root, "p/x/data/id.csv", "", tc.when) // seen half-written
			if fp() == before {
				t.Fatal("an emptied file did not change the fingerprint")
			}
			rewriteSame(t, root, "p/x/data/id.csv", "who\ngamma\n", tc.when)
			after := fp()
			if after == before {
				t.Fatal("a file written again after it was seen empty, back to its size and time, has the fingerprint it had with its first content")
			}
			if fp() != after {
				t.Error("the untouched file changed the fingerprint")
			}
		})
	}
}
