package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestLeftoverModelFoldersRemoved: a server killed with SIGKILL leaves its
// models' folders (and, run on the built-in sample catalog, that catalog's
// folder) in the temporary folder; the next server's start removes those of
// processes that no longer exist, and nothing else: not the folders
// of a live process (another server sharing TMPDIR), not a name off the
// pattern, not a symbolic link or a file, not a folder of another PID
// namespace, not a folder of an earlier version's naming (counted in the log).
// Before, nothing removed them (a shared /tmp held 1,078), and the sample
// catalog's folder (catalog-samples-<random>) stayed after the change too.
func TestLeftoverModelFoldersRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process check here: nothing is removed")
	}
	dir := sampleDir(t) // before TMPDIR changes: the samples stay shared
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	// A server's own folders are named catalog-duckdb-<pid>-<ns>-<random>.
	svc := newTestService(t, dir, Config{})
	own, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*"))
	if len(own) == 0 {
		t.Fatal("no model folder in TMPDIR")
	}
	m := regexp.MustCompile(`^catalog-duckdb-(\d+)-(\d+)-\d+$`).FindStringSubmatch(filepath.Base(own[0]))
	if m == nil || m[1] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("model folder %s not named after this process (%d) and its PID namespace", own[0], os.Getpid())
	}
	ns := m[2]
	svc.Close()

	// A pid that is gone: a child process started and waited for.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	self := strconv.Itoa(os.Getpid())

	mkdir := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "spill-1"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "model.duckdb"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mkdir("catalog-duckdb-" + dead + "-" + ns + "-123456")
	// The sample catalog's folder of a server killed while it served it.
	goneSamples := mkdir("catalog-samples-" + dead + "-" + ns + "-123456")
	kept := []string{
		mkdir("catalog-samples-" + self + "-" + ns + "-123456"),    // a live process's
		mkdir("catalog-samples-" + dead + "-1" + ns + "-123456"),   // another PID namespace's
		mkdir("catalog-samples-123456789"),                         // an older version's: owner unknown
		mkdir("catalog-test-samples-" + dead + "-" + ns + "-1"),    // off the pattern
		mkdir("catalog-duckdb-" + self + "-" + ns + "-123456"),     // a live process's
		mkdir("catalog-duckdb-" + dead + "-1" + ns + "-123456"),    // another PID namespace's
		mkdir("catalog-duckdb-123456789"),                          // an older version's: owner unknown
		mkdir("catalog-duckdb-" + dead + "-" + ns + "-12x"),        // off the pattern
		mkdir("catalog-duckdb-0" + dead + "-" + ns + "-123456"),    // off the pattern (leading zero)
		mkdir("xcatalog-duckdb-" + dead + "-" + ns + "-123456"),    // off the pattern
		mkdir("catalog-duckdb-" + dead + "-" + ns + "-123456-7"),   // off the pattern
		mkdir("catalog-duckdb-" + dead + "-" + ns + "-123456.bak"), // off the pattern
	}
	// A symbolic link named as a dead process's folder: not followed, not removed.
	target := mkdir("elsewhere")
	link := filepath.Join(tmp, "catalog-duckdb-"+dead+"-"+ns+"-654321")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "catalog-duckdb-"+dead+"-"+ns+"-111111")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, target, filepath.Join(target, "model.duckdb"), link, file)

	var logs syncBuffer
	svc2, err := NewService(context.Background(), dir, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Close()
	for _, p := range []string{gone, goneSamples} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("the folder %s of a process that is gone was not removed (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if !strings.Contains(logs.String(), "removed model and sample catalog folders left by servers that ended") || !strings.Contains(logs.String(), "removed=2 ") {
		t.Errorf("the log does not say two folders were removed: %q", logs.String())
	}
	// The folders of earlier versions are counted, and left.
	if !strings.Contains(logs.String(), "folders of earlier versions") || !strings.Contains(logs.String(), "count=2 ") {
		t.Errorf("the log does not count the two folders of earlier versions: %q", logs.String())
	}
	// The sample catalog's folder is named after its server process.
	if m := regexp.MustCompile(`^catalog-samples-(\d+)-(\d+)-\*$`).FindStringSubmatch(engine.SamplesDirPattern()); m == nil || m[1] != self || m[2] != ns {
		t.Errorf("the sample catalog's folder pattern %q is not named after this process (%s) and its PID namespace (%s)", engine.SamplesDirPattern(), self, ns)
	}
}
