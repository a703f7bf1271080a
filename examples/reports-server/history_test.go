package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// nightly returns version n of a nightly report whose coverage and duration move.
func nightly(n int) *reports.Report {
	r := testReport("nightly", "Nightly", "ci", reports.StatusWarning, testTime.Add(time.Duration(n)*24*time.Hour))
	r.Sections = []reports.Section{
		reports.Metrics("Tests",
			reports.MetricItem{Label: "Coverage", Value: reports.Num(78 - 0.5*float64(n)), PreviousValue: reports.Num(78.5 - 0.5*float64(n)), Unit: "%", Status: reports.StatusWarning},
			reports.MetricItem{Label: "Duration", Value: reports.Num(600 + float64(n)), Unit: "s"},
			reports.MetricItem{Label: "Branch", Value: reports.Str("main")},
		),
		reports.Table("Failures", []string{"Test", "Output"}, [][]reports.Value{
			{reports.Str("TestRefund"), reports.Str("--- FAIL: TestRefund (0.01s)\n    refund_test.go:40: second refund created a new ledger entry")},
		}),
	}
	return r
}

func newHistoryInbox(t *testing.T) (*Inbox, *HistoryStore, string) {
	t.Helper()
	in, statePath := newTestInbox(t)
	hp := filepath.Join(filepath.Dir(statePath), "history.json")
	h, err := OpenHistory(hp)
	if err != nil {
		t.Fatal(err)
	}
	in.KeepHistory(h, func(err error) { t.Errorf("history: %v", err) })
	return in, h, hp
}

func TestHistoryRecordsVersions(t *testing.T) {
	in, h, hp := newHistoryInbox(t)
	for n := range 3 {
		in.Replace(loadedOf(nightly(n)), nil)
		in.Replace(loadedOf(nightly(n)), nil) // the same content again adds nothing
	}
	vs := h.Versions("nightly")
	if len(vs) != 3 {
		t.Fatalf("%d versions, want 3", len(vs))
	}
	for n, v := range vs {
		if len(v.Metrics) != 2 || v.Metrics[0].Value != 78-0.5*float64(n) || v.Metrics[1].Label != "Duration" || !v.UpdatedAt.Equal(nightly(n).UpdatedAt) {
			t.Errorf("version %d: %+v", n, v)
		}
	}
	// The history is on disk: a new store (a restart, another process) reads it.
	h2, err := OpenHistory(hp)
	if err != nil || len(h2.Versions("nightly")) != 3 {
		t.Fatalf("reopened: %v, %d versions", err, len(h2.Versions("nightly")))
	}
	// Bounded: only the newest maxHistoryVersions are kept.
	for n := 3; n < maxHistoryVersions+8; n++ {
		in.Replace(loadedOf(nightly(n)), nil)
	}
	vs = h.Versions("nightly")
	if len(vs) != maxHistoryVersions || !vs[len(vs)-1].UpdatedAt.Equal(nightly(maxHistoryVersions+7).UpdatedAt) {
		t.Errorf("%d versions kept, newest %v", len(vs), vs[len(vs)-1].UpdatedAt)
	}
}

// TestHistoryMerge: two stores on one file (two processes) keep each other's versions.
func TestHistoryMerge(t *testing.T) {
	hp := filepath.Join(t.TempDir(), "history.json")
	a, _ := OpenHistory(hp)
	b, _ := OpenHistory(hp)
	ra, rb := nightly(1), testReport("other", "Other", "ci", reports.StatusPassing, testTime)
	if err := a.Record(loadedOf(ra), []string{reports.ContentHash(ra)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(loadedOf(rb), []string{reports.ContentHash(rb)}); err != nil {
		t.Fatal(err)
	}
	c, err := OpenHistory(hp)
	if err != nil || len(c.Versions("nightly")) != 1 || len(c.Versions("other")) != 1 {
		t.Errorf("merged file: %v nightly %d other %d", err, len(c.Versions("nightly")), len(c.Versions("other")))
	}
}

func TestWebTrendChart(t *testing.T) {
	in, _, _ := newHistoryInbox(t)
	h := newWebHandler(in, discard, true)
	in.Replace(loadedOf(nightly(0)), nil)
	_, body := get(t, h, "/reports/nightly")
	if strings.Contains(body, `<svg class="spark"`) {
		t.Error("a chart for a report with one version")
	}
	for n := 1; n < 4; n++ {
		in.Replace(loadedOf(nightly(n)), nil)
	}
	res, body := get(t, h, "/reports/nightly")
	if res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	// One chart per numeric metric (Coverage, Duration), none for the string one.
	if n := strings.Count(body, `<svg class="spark"`); n != 2 {
		t.Errorf("%d charts, want 2", n)
	}
	for _, want := range []string{
		`aria-label="Coverage over the last 4 versions: from 78% to 76.5%, lowest 76.5%, highest 78%"`,
		"<title>2025-06-04 00:00 UTC: 76.5%</title>", // hover value of the newest point
		"<title>2025-06-01 00:00 UTC: 600 s</title>",
		// The value shown on hover, kept inside the chart: the newest point (bottom
		// right) labelled above and to its left, the oldest (top left) below and
		// to its right.
		`<text class="tip" x="236.0" y="49.0" text-anchor="end">76.5%</text>`,
		`<text class="tip" x="4.0" y="24.0" text-anchor="start">78%</text>`,
		// The scale the line spans.
		`<span class="hi" aria-hidden="true">78%</span><span class="lo" aria-hidden="true">76.5%</span>`,
		`<table class="vh"><caption>Duration, version by version</caption>`,
		"<td>2025-06-02 00:00 UTC</td><td>601 s</td>",
		// previousValue is the producer's, as the binding defines it.
		`<td class="num muted">77%</td>`,
		// Coverage change: percentage points and relative change, named.
		"-0.5 pp", "-0.6% relative", "pp: percentage points",
		// Status by shape and text too, not colour alone.
		`<span class="st s-warning" title="warning"><span aria-hidden="true">!</span><span class="vh">warning:</span></span>`,
		// Multi-line test output keeps its lines, in monospace.
		"<pre class=\"cell\">--- FAIL: TestRefund (0.01s)\n    refund_test.go:40: second refund created a new ledger entry</pre>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	for _, ext := range []string{`src="http`, `href="http`, "<img", "<script src"} {
		if strings.Contains(body, ext) {
			t.Errorf("the chart page references an external asset (%s)", ext)
		}
	}
}

func TestChangeParts(t *testing.T) {
	tests := []struct {
		m              reports.MetricItem
		change, relTxt string
	}{
		{reports.MetricItem{Value: reports.Num(77.3), PreviousValue: reports.Num(78), Unit: "%"}, "-0.7 pp", "-0.9% relative"},
		{reports.MetricItem{Value: reports.Num(120), PreviousValue: reports.Num(100), Unit: "ms"}, "+20 ms", "+20.0% relative"},
		{reports.MetricItem{Value: reports.Num(3), PreviousValue: reports.Num(0)}, "+3", ""},
		{reports.MetricItem{Value: reports.Num(5), PreviousValue: reports.Num(5), Unit: "%"}, "unchanged", ""},
		{reports.MetricItem{Value: reports.Str("b"), PreviousValue: reports.Str("a")}, "was a", ""},
		{reports.MetricItem{Value: reports.Num(5)}, "", ""},
	}
	for _, tt := range tests {
		c, r := changeParts(tt.m)
		if c != tt.change || r != tt.relTxt {
			t.Errorf("%v → %q, %q; want %q, %q", fmt.Sprint(tt.m.Value, tt.m.PreviousValue), c, r, tt.change, tt.relTxt)
		}
	}
}

// TestHistoryBoundedReports: at most maxHistoryReports reports are kept; those whose
// newest version is oldest go first, and a report recorded again stays.
func TestHistoryBoundedReports(t *testing.T) {
	hp := filepath.Join(t.TempDir(), "history.json")
	h, err := OpenHistory(hp)
	if err != nil {
		t.Fatal(err)
	}
	const extra = 3
	var versions []reports.LoadedReport
	var hashes []string
	for i := range maxHistoryReports + extra {
		// Report i is i hours newer than report 0.
		r := testReport(fmt.Sprintf("r%04d", i), "R", "ci", reports.StatusPassing, testTime.Add(time.Duration(i)*time.Hour))
		versions = append(versions, loadedOf(r)...)
		hashes = append(hashes, reports.ContentHash(r))
	}
	if err := h.Record(versions, hashes); err != nil {
		t.Fatal(err)
	}
	h2, err := OpenHistory(hp)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := range maxHistoryReports + extra {
		if n := len(h2.Versions(fmt.Sprintf("r%04d", i))); n > 0 {
			kept++
		} else if i >= extra {
			t.Errorf("r%04d (not among the %d oldest) was dropped", i, extra)
		}
	}
	if kept != maxHistoryReports {
		t.Fatalf("%d reports kept on disk, want %d", kept, maxHistoryReports)
	}
	// A new version of the oldest kept report makes it the newest: the next report
	// to arrive pushes out r0004, not it.
	renewed := testReport(fmt.Sprintf("r%04d", extra), "R", "ci", reports.StatusFailing, testTime.Add(time.Duration(maxHistoryReports+extra)*time.Hour))
	late := testReport("late", "R", "ci", reports.StatusPassing, testTime.Add(time.Duration(maxHistoryReports+extra+1)*time.Hour))
	if err := h.Record(loadedOf(renewed, late), []string{reports.ContentHash(renewed), reports.ContentHash(late)}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.Versions(fmt.Sprintf("r%04d", extra))); n != 2 {
		t.Errorf("renewed report has %d versions, want 2", n)
	}
	if len(h.Versions("late")) != 1 || len(h.Versions(fmt.Sprintf("r%04d", extra+1))) != 0 {
		t.Errorf("late report kept: %d versions; r%04d: %d versions, want dropped", len(h.Versions("late")), extra+1, len(h.Versions(fmt.Sprintf("r%04d", extra+1))))
	}
}
