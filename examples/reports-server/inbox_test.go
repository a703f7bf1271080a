package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/bindings/reports"
)

var (
	discard  = slog.New(slog.NewTextHandler(io.Discard, nil))
	testTime = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
)

func testReport(id, title, category string, status reports.Status, at time.Time) *reports.Report {
	return &reports.Report{
		ReportSummary: reports.ReportSummary{ID: id, Title: title, Category: category, Status: status,
			Summary: "summary of " + id, UpdatedAt: at.UTC(), Source: "test", Tags: []string{"t"}},
		Sections: []reports.Section{
			reports.Markdown("Some **markdown** for " + id),
			reports.Metrics("Numbers", reports.MetricItem{Label: "Latency", Value: reports.Num(120), PreviousValue: reports.Num(100), Unit: "ms"}),
			reports.Table("Rows", []string{"Name", "Count"}, [][]reports.Value{{reports.Str("a"), reports.Num(1)}}),
		},
	}
}

func newTestInbox(t *testing.T) (*Inbox, string) {
	t.Helper()
	statePath := filepath.Join(t.TempDir(), "data", "state.json")
	st, err := OpenState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	return NewInbox(st), statePath
}

func loadedOf(rs ...*reports.Report) []reports.LoadedReport {
	out := make([]reports.LoadedReport, len(rs))
	for i, r := range rs {
		out[i] = reports.LoadedReport{Report: r, File: r.ID + ".json"}
	}
	return out
}

func lifecycles(in *Inbox) map[string]reports.LifecycleStatus {
	m := map[string]reports.LifecycleStatus{}
	for _, s := range in.List(reports.ListInput{}) {
		m[s.ID] = s.LifecycleStatus
	}
	return m
}

func TestInboxLifecycle(t *testing.T) {
	in, statePath := newTestInbox(t)
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	a := testReport("a", "A", "ci", reports.StatusFailing, t0)
	b := testReport("b", "B", "security", reports.StatusPassing, t0.Add(time.Minute))
	c := in.Replace(loadedOf(a, b), nil)
	if diff := cmp.Diff([]string{"a", "b"}, c.Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]reports.LifecycleStatus{"a": "unread", "b": "unread"}, lifecycles(in)); diff != "" {
		t.Errorf("new reports must be unread (-want +got):\n%s", diff)
	}

	if err := in.SetStatus("a", reports.LifecycleDismissed); err != nil {
		t.Fatal(err)
	}
	if err := in.SetStatus("b", reports.LifecycleRead); err != nil {
		t.Fatal(err)
	}
	if err := in.SetStatus("nope", reports.LifecycleRead); err == nil {
		t.Error("SetStatus of an unknown id succeeded")
	}
	if err := in.SetStatus("a", "archived"); err == nil {
		t.Error("SetStatus with an invalid status succeeded")
	}
	got, err := in.Get("a")
	if err != nil || got.LifecycleStatus != reports.LifecycleDismissed {
		t.Fatalf("Get(a) = %v, %v", got, err)
	}

	// The state survives a restart: a new store on the same file.
	st2, err := OpenState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	in2 := NewInbox(st2)
	in2.Replace(loadedOf(a, b), nil)
	if diff := cmp.Diff(map[string]reports.LifecycleStatus{"a": "dismissed", "b": "read"}, lifecycles(in2)); diff != "" {
		t.Errorf("after restart (-want +got):\n%s", diff)
	}

	// Content that changes brings the report back as unread; a reformatted file
	// (same content) does not.
	a2 := a.Clone()
	a2.Summary = "now even worse"
	c = in2.Replace(loadedOf(a2, b.Clone()), nil)
	if diff := cmp.Diff([]string{"a"}, c.Updated); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]reports.LifecycleStatus{"a": "unread", "b": "read"}, lifecycles(in2)); diff != "" {
		t.Errorf("after content change (-want +got):\n%s", diff)
	}

	// Setting unread removes the entry; the filter on lifecycle works on effective status.
	if err := in2.SetStatus("b", reports.LifecycleUnread); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "a"}, idsOf(in2.List(reports.ListInput{LifecycleStatus: reports.LifecycleUnread}))); diff != "" {
		t.Errorf("unread list (-want +got):\n%s", diff)
	}

	// Removal is reported.
	c = in2.Replace(loadedOf(b), nil)
	if diff := cmp.Diff([]string{"a"}, c.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if _, err := in2.Get("a"); err == nil {
		t.Error("Get of a removed report succeeded")
	}
}

func idsOf(s []reports.ReportSummary) []string {
	out := []string{}
	for _, r := range s {
		out = append(out, r.ID)
	}
	return out
}

func TestInboxReturnsCopies(t *testing.T) {
	in, _ := newTestInbox(t)
	in.Replace(loadedOf(testReport("a", "A", "ci", reports.StatusInfo, time.Now())), nil)
	r, _ := in.Get("a")
	r.Title = "changed"
	r.Sections[1].Items[0].Label = "changed"
	list := in.List(reports.ListInput{})
	list[0].Tags[0] = "changed"
	r2, _ := in.Get("a")
	if r2.Title != "A" || r2.Sections[1].Items[0].Label != "Latency" || r2.Tags[0] != "t" {
		t.Errorf("callers can modify the inbox's reports: %+v", r2)
	}
}

func TestStateConcurrentUpdates(t *testing.T) {
	in, statePath := newTestInbox(t)
	var rs []*reports.Report
	for i := range 20 {
		rs = append(rs, testReport(fmt.Sprintf("r%02d", i), "R", "ci", reports.StatusPassing, time.Now()))
	}
	in.Replace(loadedOf(rs...), nil)
	var wg sync.WaitGroup
	statuses := []reports.LifecycleStatus{reports.LifecycleRead, reports.LifecycleDismissed}
	for i := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				if err := in.SetStatus(rs[i].ID, statuses[(i+j)%2]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st, err := OpenState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	in2 := NewInbox(st)
	in2.Replace(loadedOf(rs...), nil)
	got := lifecycles(in2)
	for i, r := range rs {
		if want := statuses[(i+4)%2]; got[r.ID] != want {
			t.Errorf("%s = %s after restart, want %s (its last update)", r.ID, got[r.ID], want)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(statePath))
	if len(entries) != 1 {
		t.Errorf("data dir has %d entries, want only the state file (no temp files)", len(entries))
	}
}

func TestStateFileErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenState(p); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("corrupt state file: err = %v", err)
	}
	if err := os.WriteFile(p, []byte(`{"version":7,"reports":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenState(p); err == nil {
		t.Error("unknown version accepted")
	}

	// A failed write changes nothing in memory.
	p2 := filepath.Join(dir, "sub", "state.json")
	st, err := OpenState(p2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := st.Set("a", "h", reports.LifecycleRead, time.Now()); err == nil {
		t.Fatal("Set succeeded although the directory is gone")
	}
	if got := st.Status("a", "h"); got != reports.LifecycleUnread {
		t.Errorf("after a failed Set the status is %s, want unread", got)
	}
}

func TestStateFileFor(t *testing.T) {
	a, _ := stateFileFor("/data", "/srv/reports")
	b, _ := stateFileFor("/data", "/srv/other/reports")
	c, _ := stateFileFor("/data", "")
	if a == b || a == c || filepath.Dir(a) != "/data" || !strings.HasPrefix(filepath.Base(a), "state-reports-") {
		t.Errorf("state files: %s %s %s", a, b, c)
	}
}
