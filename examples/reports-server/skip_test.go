package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// TestWatcherListsSkippedEntries: a symbolic link and a named pipe with report file
// names are listed as skipped with the reason, never read (a FIFO would block the
// poll), and the list follows the directory.
func TestWatcherListsSkippedEntries(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	writeReport(t, dir, testReport("real", "Real", "ci", reports.StatusPassing, t0))
	writeReport(t, outside, testReport("elsewhere", "Elsewhere", "ci", reports.StatusPassing, t0))
	if err := os.Symlink(filepath.Join(outside, "elsewhere.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	in, _ := newTestInbox(t)
	w := NewWatcher(dir, in, time.Second, discard)
	done := make(chan Change, 1)
	go func() { done <- w.Scan() }()
	var c Change
	select {
	case c = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Scan blocked: it opened the named pipe")
	}
	if !c.Diagnostics || len(c.Added) != 1 || c.Added[0] != "real" {
		t.Errorf("change %+v", c)
	}
	got := map[string]string{}
	for _, d := range in.Diagnostics() {
		got[filepath.Base(d.File)] = d.Message
	}
	if !strings.Contains(got["link.json"], "symbolic link") || !strings.Contains(got["pipe.json"], "named pipe (FIFO)") || len(got) != 2 {
		t.Errorf("diagnostics %v", got)
	}
	if _, err := in.Get("elsewhere"); err == nil {
		t.Error("the report behind the symbolic link is served")
	}
	// Gone from the directory, gone from the list.
	os.Remove(filepath.Join(dir, "pipe.json"))
	if c := w.Scan(); !c.Diagnostics || len(in.Diagnostics()) != 1 {
		t.Errorf("after removing the pipe: %+v, %v", c, in.Diagnostics())
	}
	if c := w.Scan(); !c.empty() {
		t.Errorf("a scan without changes reported %+v", c)
	}

	// check (LoadDir) says the same and does not block either.
	loadDone := make(chan []reports.Diagnostic, 1)
	syscall.Mkfifo(filepath.Join(dir, "pipe2.json"), 0o600)
	go func() {
		_, d, _ := reports.LoadDir(dir)
		loadDone <- d
	}()
	select {
	case d := <-loadDone:
		if len(d) != 2 || !strings.Contains(d[0].Message+d[1].Message, "named pipe") || !strings.Contains(d[0].Message+d[1].Message, "symbolic link") {
			t.Errorf("LoadDir diagnostics %v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadDir blocked on a named pipe")
	}
}
