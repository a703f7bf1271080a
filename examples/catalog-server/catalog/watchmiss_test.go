package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/internal/testkit"
)

// unreadable holds the folders whose read walkDir fails (as a folder of
// another user, or lost+found, fails for a server not run as root).
var unreadable testkit.Unreadable

func init() { walkDir = unreadable.Walk }

// makeUnreadable has walks fail to read the folder path until the test ends.
func makeUnreadable(t *testing.T, path string) {
	unreadable.Add(path)
	t.Cleanup(func() { unreadable.Remove(path) })
}

// TestChangeTimeTellsRewrites: a file rewritten in place (cp -a over it) or
// chmod-ed, its size and modification time given back, long past being racy,
// is a change: its change time moved (where the change time is read).
func TestChangeTimeTellsRewrites(t *testing.T) {
	if !hasChangeTime {
		t.Skip("the change time is not read on this system")
	}
	root := t.TempDir()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rewriteSame(t, root, "p/x/manifest.json", "{}", old)
	rewriteSame(t, root, "p/x/data/a.csv", "who\nalpha\n", old)
	var ids FileIDs
	fp := walkOf(t, root, &ids)
	before := fp()
	time.Sleep(20 * time.Millisecond) // past a tick of the kernel's clock
	rewriteSame(t, root, "p/x/data/a.csv", "who\nomega\n", old)
	after := fp()
	if after == before {
		t.Error("a file rewritten in place with the same size and time, not racy, left the fingerprint unchanged")
	}
	time.Sleep(20 * time.Millisecond)
	if err := os.Chmod(filepath.Join(root, "p/x/data/a.csv"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fp() == after {
		t.Error("a chmod left the fingerprint unchanged")
	}
	if mustFingerprint(t, root) == before {
		t.Error("a chmod left Fingerprint unchanged")
	}
}

// TestWatchPastUnreadableFolder: a folder that cannot be read (lost+found at
// the top of a catalog on its own file system) is part of the fingerprint,
// and the walk goes on: the watch still sees changes. Before, the walk's error
// made every poll skip.
func TestWatchPastUnreadableFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}", "lost+found/f": ""})
	makeUnreadable(t, filepath.Join(root, "lost+found"))
	if _, err := Fingerprint(root); err != nil {
		t.Fatalf("an unreadable folder failed the fingerprint: %v", err)
	}
	var reloads atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Watch(ctx, root, 5*time.Millisecond, func() { reloads.Add(1) }) }()
	defer func() { cancel(); <-done }()
	time.Sleep(30 * time.Millisecond)
	write(t, root, map[string]string{"p/y/manifest.json": "{}"})
	deadline := time.Now().Add(5 * time.Second)
	for reloads.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if reloads.Load() == 0 {
		t.Fatal("with an unreadable folder in the catalog, a new package was not seen")
	}
	// Readable again: a change (its files are new).
	n := reloads.Load()
	unreadable.Remove(filepath.Join(root, "lost+found"))
	for reloads.Load() == n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if reloads.Load() == n {
		t.Error("a folder readable again was not seen")
	}
	// The catalog folder itself unreadable: no fingerprint.
	makeUnreadable(t, root)
	if _, err := Fingerprint(root); err == nil {
		t.Error("an unreadable catalog folder gave a fingerprint")
	}
}

// TestWatchFromRetriesAndFirst: WatchFrom calls reload once after its first
// fingerprint (first true); a reload that fails is called again at the next
// poll with nothing changed, until one succeeds.
func TestWatchFromRetriesAndFirst(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}"})
	type call struct{ first bool }
	calls := make(chan call, 100)
	var fail atomic.Int32
	fail.Store(3)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		WatchFrom(ctx, root, 5*time.Millisecond, func(_ *FileIDs, first bool) error {
			calls <- call{first}
			if !first && fail.Add(-1) >= 0 {
				return errors.New("too many open files")
			}
			return nil
		})
	}()
	defer func() { cancel(); <-done }()
	next := func(wait time.Duration) (call, bool) {
		select {
		case c := <-calls:
			return c, true
		case <-time.After(wait):
			return call{}, false
		}
	}
	const none = 300 * time.Millisecond // many polls
	if c, ok := next(5 * time.Second); !ok || !c.first {
		t.Fatalf("the first call: %v %v, want one with first true", c, ok)
	}
	if _, ok := next(none); ok {
		t.Fatal("a reload with nothing changed")
	}
	write(t, root, map[string]string{"p/y/manifest.json": "{}"})
	for i := range 4 { // the change, failing 3 times, then the success
		if c, ok := next(5 * time.Second); !ok || c.first {
			t.Fatalf("call %d after a change (3 failing): %v %v", i, c, ok)
		}
	}
	if _, ok := next(none); ok {
		t.Error("a reload after the one that succeeded, with nothing changed")
	}
}

// TestRacyLearnPastUnreadableFolder: a reload's walk that skipped a folder it
// could not read is kept, so the watch learns from that walk (the one made
// before the reload read the files): A, then B read by the reload, then A
// again, all with one size and times, is seen. Before, that walk was
// forgotten and Learn took what an older walk (or none) saw.
func TestRacyLearnPastUnreadableFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p/x/manifest.json": "{}", "p/x/sub/keep.txt": "k"})
	when := time.Now().Truncate(time.Second)
	now := (&racyClock{t: when}).now
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	watch, reload := FileIDs{ctime: sameTick, now: now}, FileIDs{ctime: sameTick, now: now}
	fingerprint(root, &reload) // the read at start
	if _, err := fingerprint(root, &watch); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(root, "p/x/m.sql")
	before := watch.last[m].num
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'gamma';\n", when)
	makeUnreadable(t, filepath.Join(root, "p/x/sub"))
	if _, err := fingerprint(root, &reload); err != nil { // the reload's walk, then its read of gamma
		t.Fatal(err)
	}
	watch.Learn(&reload)
	unreadable.Remove(filepath.Join(root, "p/x/sub"))
	rewriteSame(t, root, "p/x/m.sql", "SELECT 'alpha';\n", when)
	if _, err := fingerprint(root, &watch); err != nil {
		t.Fatal(err)
	}
	if watch.last[m].num == before {
		t.Error("alpha written back after gamma was read (a folder unreadable at that read) was not seen")
	}
}
