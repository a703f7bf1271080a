package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/internal/testkit"
)

// unreadable holds the folders whose read dirStamps' walk fails (as a folder
// of another user, or lost+found, fails for a server not run as root).
var unreadable testkit.Unreadable

func init() { walkDir = unreadable.Walk }

// wantOf is the version of the package key the service's last read found.
func wantOf(svc *Service, key string) (string, bool) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	v, ok := svc.want[key]
	return v, ok
}

// waitWant waits (5 s at most) until ok says the version of key is as wanted.
func waitWant(svc *Service, key string, ok func(ver string, found bool) bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok(wantOf(svc, key)) {
			return true
		}
	}
	return false
}

// TestWatchReadsEditBeforeItStarts: serve reads the catalog (openService),
// waits for the packages (-start-wait), then starts the watch; an edit in
// between is read when the watch starts (before, its first look was only a
// baseline, and the edit was never read). With no edit, the watch's start
// reads nothing.
func TestWatchReadsEditBeforeItStarts(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n"})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	svc.mu.Lock()
	read := svc.read
	svc.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Watch(ctx, 10*time.Millisecond) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-done
	svc.mu.Lock()
	same := svc.read == read
	svc.mu.Unlock()
	if !same {
		t.Error("the watch's start read the catalog again with nothing changed")
	}

	writeFiles(t, dir, map[string]string{"p/y/manifest.json": "{}", "p/y/m.sql": "-- @query q\nSELECT 2 AS n;\n"})
	watch(t, svc)
	if !waitWant(svc, "p/y", func(_ string, found bool) bool { return found }) {
		t.Fatal("p/y, added after the catalog was read and before the watch started, was never read")
	}
}

// TestDirStampsRecreatedFile: a file removed and created again (tar's
// extraction, rm and cp -p) with the same size and times may get the inode
// just freed (ext4): os.SameFile says it is the same file. Its change time
// tells it apart.
func TestDirStampsRecreatedFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/data/a.csv": "who\nalpha\n"})
	setTimes(t, filepath.Join(dir, "p"))
	var ids catalog.FileIDs
	before := stampsOf(dir, &ids)["p/x"]
	f := filepath.Join(dir, "p/x/data/a.csv")
	st0, _ := os.Stat(f)
	time.Sleep(20 * time.Millisecond) // past a tick of the kernel's clock
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("who\nomega\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setTimes(t, filepath.Join(dir, "p")) // the file's and its folder's times, as tar gives them
	st1, _ := os.Stat(f)
	t.Logf("the same inode: %v", os.SameFile(st0, st1))
	if stampsOf(dir, &ids)["p/x"] == before {
		t.Fatal("a data file replaced by another (removed, created again: the same size and times) kept the package's stamp")
	}
}

// TestWatchSeesModeChange: the README says a file changed when its mode
// changed; the watch's fingerprint left the mode out.
func TestWatchSeesModeChange(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/data/a.csv": "who\nalpha\n"})
	setTimes(t, filepath.Join(dir, "p"))
	svc := newTestService(t, dir, Config{SkipEngines: true})
	watch(t, svc)
	time.Sleep(200 * time.Millisecond)
	before, _ := wantOf(svc, "p/x")
	if err := os.Chmod(filepath.Join(dir, "p/x/data/a.csv"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !waitWant(svc, "p/x", func(ver string, _ bool) bool { return ver != before }) {
		t.Fatal("a mode change was not seen by the watch")
	}
}

// TestWatchRetriesFailedReread: a reread that fails (the catalog folder
// unreadable for a moment, too many open files) is tried again at each poll
// until one succeeds, and its error is logged once while it lasts. Before,
// the change was never read again.
func TestWatchRetriesFailedReread(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n"})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{SkipEngines: true}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	watch(t, svc)
	time.Sleep(100 * time.Millisecond)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	unreadable.Add(real)
	t.Cleanup(func() { unreadable.Remove(real) })
	writeFiles(t, dir, map[string]string{"p/y/manifest.json": "{}", "p/y/m.sql": "-- @query q\nSELECT 2 AS n;\n"})
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "reload failed"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no reread failed")
		}
	}
	time.Sleep(300 * time.Millisecond) // many polls, each failing
	if n := strings.Count(logs.String(), "reload failed"); n != 1 {
		t.Errorf("%d warnings of one lasting failure, want 1:\n%s", n, logs.String())
	}
	if _, ok := wantOf(svc, "p/y"); ok {
		t.Fatal("p/y read while the catalog folder could not be")
	}
	unreadable.Remove(real)
	if !waitWant(svc, "p/y", func(_ string, found bool) bool { return found }) {
		t.Fatal("after a failed reread the change was never read again")
	}
}

// TestDirStampsPastUnreadableFolder: a folder dirStamps cannot read is in its
// package's stamp, and the walk is kept: the next walk with nothing changed
// gives the same stamps. Before, no walk was kept, and every reread numbered
// every file anew (every package loaded again at every reread).
func TestDirStampsPastUnreadableFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/sub/f": "", "p/y/manifest.json": "{}"})
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(real, "p/x/sub")
	var ids catalog.FileIDs
	readable := stampsOf(dir, &ids)
	unreadable.Add(sub)
	t.Cleanup(func() { unreadable.Remove(sub) })
	first := stampsOf(dir, &ids)
	if first == nil || first["p/x"] == readable["p/x"] || first["p/y"] != readable["p/y"] {
		t.Fatalf("an unreadable folder: p/x %q (before %q), p/y %q (before %q)", first["p/x"], readable["p/x"], first["p/y"], readable["p/y"])
	}
	if again := stampsOf(dir, &ids); again["p/x"] != first["p/x"] || again["p/y"] != first["p/y"] {
		t.Errorf("with nothing changed, the stamps changed:\n%q\n%q", first, again)
	}
	unreadable.Remove(sub)
	if back := stampsOf(dir, &ids); back["p/x"] == first["p/x"] || back["p/x"] == readable["p/x"] {
		t.Error("a folder readable again: the package's stamp not new")
	}
}

// TestWatchPastUnreadableFolderAsUser: the same as a user (not root, who reads
// every folder): lost+found, mode 000, at the top of the catalog. Before, the
// watch never reloaded again.
func TestWatchPastUnreadableFolderAsUser(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads every folder (TestDirStampsPastUnreadableFolder and catalog's TestWatchPastUnreadableFolder make one unreadable otherwise)")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/sub/f": ""})
	lf := filepath.Join(dir, "lost+found")
	sub := filepath.Join(dir, "p/x/sub")
	for _, d := range []string{lf, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	svc := newTestService(t, dir, Config{SkipEngines: true})
	x, _ := wantOf(svc, "p/x")
	watch(t, svc)
	time.Sleep(200 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/y/manifest.json": "{}", "p/y/m.sql": "-- @query q\nSELECT 2 AS n;\n"})
	if !waitWant(svc, "p/y", func(_ string, found bool) bool { return found }) {
		t.Fatal("with an unreadable folder in the catalog, no change was ever read")
	}
	if now, _ := wantOf(svc, "p/x"); now != x {
		t.Error("p/x, unchanged, has another version after a reread")
	}
}

// TestWatchSeesTarOverSameTimes: a package extracted by tar over the one
// served, from an archive made with a fixed time (reproducible builds:
// --mtime, SOURCE_DATE_EPOCH). tar removes each file before it extracts it,
// and ext4 may give the new file the inode just freed: the same names, sizes,
// times and inodes.
func TestWatchSeesTarOverSameTimes(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	mk := func(who, name string) string {
		writeFiles(t, src, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/data/a.csv": "who\n" + who + "\n"})
		ar := filepath.Join(t.TempDir(), name)
		if out, err := exec.Command("tar", "-C", src, "--mtime=@1700000000", "-cf", ar, "p").CombinedOutput(); err != nil {
			t.Skipf("tar: %v: %s", err, out)
		}
		return ar
	}
	v1, v2 := mk("alpha", "v1.tar"), mk("omega", "v2.tar")
	untar := func(ar string) {
		if out, err := exec.Command("tar", "-C", dir, "-xf", ar).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	untar(v1)
	svc := newTestService(t, dir, Config{SkipEngines: true})
	watch(t, svc)
	time.Sleep(200 * time.Millisecond)
	before, _ := wantOf(svc, "p/x")
	untar(v2)
	if !waitWant(svc, "p/x", func(ver string, _ bool) bool { return ver != before }) {
		t.Fatal("a package extracted over by tar (the same names, sizes and times) was not seen")
	}
}

// TestWatchSeesCpAOverSameTimes: cp -a of a package over the one served
// rewrites each existing file in place (the same inode) and gives it its
// source's times.
func TestWatchSeesCpAOverSameTimes(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	files := func(root, who string) {
		writeFiles(t, root, map[string]string{"p/x/manifest.json": "{}", "p/x/m.sql": "-- @query q\nSELECT 1 AS n;\n", "p/x/data/a.csv": "who\n" + who + "\n"})
		setTimes(t, filepath.Join(root, "p"))
	}
	files(dir, "alpha")
	svc := newTestService(t, dir, Config{SkipEngines: true})
	watch(t, svc)
	time.Sleep(200 * time.Millisecond)
	before, _ := wantOf(svc, "p/x")
	files(src, "omega")
	if out, err := exec.Command("cp", "-a", filepath.Join(src, "p")+"/.", filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		t.Skipf("cp -a: %v: %s", err, out)
	}
	if !waitWant(svc, "p/x", func(ver string, _ bool) bool { return ver != before }) {
		t.Fatal("a package copied over with cp -a (the same names, sizes and times) was not seen")
	}
}
