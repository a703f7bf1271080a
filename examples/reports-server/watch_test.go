package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/bindings/reports"
)

func writeReport(t *testing.T, dir string, r *reports.Report) {
	t.Helper()
	if _, err := reports.WriteReport(dir, r); err != nil {
		t.Fatal(err)
	}
}

func TestWatcherScan(t *testing.T) {
	dir := t.TempDir()
	in, _ := newTestInbox(t)
	w := NewWatcher(dir, in, time.Second, discard)
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

	if c := w.Scan(); !c.empty() {
		t.Errorf("scan of an empty dir: %+v", c)
	}
	a := testReport("a", "A", "ci", reports.StatusFailing, t0)
	writeReport(t, dir, a)
	writeReport(t, dir, testReport("b", "B", "ci", reports.StatusPassing, t0))
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"id":"bad","status":"green"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := w.Scan()
	if diff := cmp.Diff(Change{Added: []string{"a", "b"}, Diagnostics: true}, c); diff != "" {
		t.Errorf("first scan (-want +got):\n%s", diff)
	}
	d := in.Diagnostics()
	if len(d) != 1 || filepath.Base(d[0].File) != "bad.json" || !strings.Contains(d[0].Message, "/status") {
		t.Errorf("diagnostics = %+v", d)
	}
	if c := w.Scan(); !c.empty() {
		t.Errorf("scan without changes: %+v", c)
	}

	if err := in.SetStatus("a", reports.LifecycleDismissed); err != nil {
		t.Fatal(err)
	}
	// Rewriting a report with the same content keeps its status.
	writeReport(t, dir, a)
	if c := w.Scan(); !c.empty() {
		t.Errorf("rewrite with the same content reported %+v", c)
	}
	if got := lifecycles(in)["a"]; got != reports.LifecycleDismissed {
		t.Errorf("a = %s after an identical rewrite, want dismissed", got)
	}
	// A real change makes it unread again.
	a2 := a.Clone()
	a2.Status = reports.StatusPassing
	writeReport(t, dir, a2)
	if diff := cmp.Diff(Change{Updated: []string{"a"}}, w.Scan()); diff != "" {
		t.Errorf("after change (-want +got):\n%s", diff)
	}
	if got := lifecycles(in)["a"]; got != reports.LifecycleUnread {
		t.Errorf("a = %s after its content changed, want unread", got)
	}

	// Fixing the invalid file and removing another.
	if err := os.Rename(filepath.Join(dir, "bad.json"), filepath.Join(dir, ".bad.json.hidden")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Change{Removed: []string{"b"}, Diagnostics: true}, w.Scan()); diff != "" {
		t.Errorf("after removal (-want +got):\n%s", diff)
	}
	if len(in.Diagnostics()) != 0 {
		t.Errorf("diagnostics left: %v", in.Diagnostics())
	}

	// A directory that disappears keeps the last reports.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if c := w.Scan(); !c.empty() || len(in.List(reports.ListInput{})) != 1 {
		t.Errorf("scan of a vanished dir: %+v, %d reports", c, len(in.List(reports.ListInput{})))
	}
}

func TestWatcherRunPicksUpFiles(t *testing.T) {
	dir := t.TempDir()
	in, _ := newTestInbox(t)
	changes := make(chan Change, 10)
	in.OnChange(func(c Change) { changes <- c })
	w := NewWatcher(dir, in, 10*time.Millisecond, discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	wait := func(what string) Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case <-time.After(10 * time.Second):
			t.Fatalf("timed out waiting for %s", what)
			return Change{}
		}
	}
	writeReport(t, dir, testReport("new", "New", "ci", reports.StatusInfo, time.Now()))
	if c := wait("a new file"); len(c.Added) != 1 || c.Added[0] != "new" {
		t.Errorf("change = %+v, want new added", c)
	}
	if err := os.Remove(filepath.Join(dir, "new.json")); err != nil {
		t.Fatal(err)
	}
	if c := wait("a removal"); len(c.Removed) != 1 {
		t.Errorf("change = %+v, want new removed", c)
	}
}

func TestWatcherIntervalClamped(t *testing.T) {
	in, _ := newTestInbox(t)
	if w := NewWatcher(".", in, 0, discard); w.interval != minPoll {
		t.Errorf("interval 0 -> %v", w.interval)
	}
	if w := NewWatcher(".", in, time.Hour, discard); w.interval != maxPoll {
		t.Errorf("interval 1h -> %v", w.interval)
	}
}
