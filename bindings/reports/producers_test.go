package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func metric(t *testing.T, r *Report, label string) MetricItem {
	t.Helper()
	for _, s := range r.Sections {
		for _, it := range s.Items {
			if it.Label == label {
				return it
			}
		}
	}
	t.Fatalf("no metric %q in report", label)
	return MetricItem{}
}

func tableByTitle(r *Report, title string) *Section {
	for i := range r.Sections {
		if r.Sections[i].Type == SectionTable && r.Sections[i].Title == title {
			return &r.Sections[i]
		}
	}
	return nil
}

func num(t *testing.T, v Value) float64 {
	t.Helper()
	f, ok := v.Number()
	if !ok {
		t.Fatalf("value %v is not a number", v)
	}
	return f
}

func TestImportGoTest(t *testing.T) {
	f, err := os.Open("testdata/gotest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ImportGoTest(f, GoTestOptions{ID: "app-tests"})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "app-tests" || r.Category != "quality" || r.Status != StatusFailing {
		t.Errorf("summary = %+v", r.ReportSummary)
	}
	if !r.UpdatedAt.Equal(time.Date(2025, 6, 1, 10, 0, 3, 20e6, time.UTC)) {
		t.Errorf("updatedAt = %v, want the last event's time", r.UpdatedAt)
	}
	want := map[string]float64{
		// TestPut, TestGet/present, TestServe, TestSlug
		"Passed": 4,
		// TestGet, TestGet/missing, TestHang (never finished, its package failed)
		"Failed":  3,
		"Skipped": 1,
		// store, broken, api, util
		"Packages":        4,
		"Failed packages": 3,
		"Duration":        3.02,
		"Pass rate":       57.1,
	}
	for label, v := range want {
		if got := num(t, metric(t, r, label).Value); got != v {
			t.Errorf("%s = %v, want %v", label, got, v)
		}
		if !metric(t, r, label).PreviousValue.IsZero() {
			t.Errorf("%s has a previousValue without a previous report", label)
		}
	}
	if metric(t, r, "Failed").Status != StatusFailing {
		t.Error("Failed metric not marked failing")
	}
	fails := tableByTitle(r, "Failures")
	if fails == nil {
		t.Fatal("no Failures table")
	}
	var names []string
	for _, row := range fails.Rows {
		names = append(names, row[1].String())
	}
	// The parent TestGet is left out: its failing subtest explains it.
	if diff := cmp.Diff([]string{"TestGet/missing", "TestHang"}, names); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if !strings.Contains(fails.Rows[0][3].String(), "want ErrNotFound") {
		t.Errorf("failure output = %q", fails.Rows[0][3])
	}
	md := FormatMarkdown(r)
	if !strings.Contains(md, "example.com/app/broken` (build failed)") || !strings.Contains(md, "syntax error") {
		t.Errorf("markdown does not explain the build failure:\n%s", md)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("imported report is invalid: %v", err)
	}

	// A second import of an improved run carries the previous values.
	second := `{"Time":"2025-06-02T10:00:00Z","Action":"run","Package":"p","Test":"TestA"}
{"Time":"2025-06-02T10:00:01Z","Action":"pass","Package":"p","Test":"TestA","Elapsed":1}
{"Time":"2025-06-02T10:00:01Z","Action":"pass","Package":"p","Elapsed":1}
`
	r2, err := ImportGoTest(strings.NewReader(second), GoTestOptions{ID: "app-tests", Previous: r})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != StatusPassing || tableByTitle(r2, "Failures") != nil {
		t.Errorf("second run: status %s, failures table %v", r2.Status, tableByTitle(r2, "Failures"))
	}
	if got := num(t, metric(t, r2, "Failed").PreviousValue); got != 3 {
		t.Errorf("Failed previousValue = %v, want 3", got)
	}
	if got := num(t, metric(t, r2, "Passed").PreviousValue); got != 4 {
		t.Errorf("Passed previousValue = %v, want 4", got)
	}
	if got := Delta(metric(t, r2, "Failed")); got != "-3 (-100.0%)" {
		t.Errorf("Delta(Failed) = %q", got)
	}
}

func TestImportGoTestErrors(t *testing.T) {
	if _, err := ImportGoTest(strings.NewReader("ok  \texample.com/x\t0.1s\n"), GoTestOptions{}); err == nil {
		t.Error("input without events accepted")
	}
	if _, err := ImportGoTest(strings.NewReader(`{"Action":"pass","Package":"p"}`), GoTestOptions{ID: "../x"}); err == nil {
		t.Error("bad id accepted")
	}
	r, err := ImportGoTest(strings.NewReader(`{"Action":"start","Package":"p"}`+"\n"+`{"Action":"pass","Package":"p"}`), GoTestOptions{Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInfo || r.ID != "go-tests" || r.UpdatedAt.Year() != 2025 {
		t.Errorf("no-test run = %+v", r.ReportSummary)
	}
}

func TestConformanceReport(t *testing.T) {
	run := ConformanceRun{
		Target:   "http://127.0.0.1:8080/mcp",
		Revision: "2025-11-25",
		Finished: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
		Checks: []CheckResult{
			{ID: "initialize", Outcome: OutcomePass},
			{ID: "tools/list", Outcome: OutcomeWarn, Message: "no titles"},
			{ID: "ping", Outcome: OutcomeFail, Message: "timed out", Spec: "basic/utilities/ping"},
			{ID: "tasks", Outcome: OutcomeSkip, Message: "not supported"},
		},
	}
	dir := t.TempDir()
	p, err := WriteConformanceReport(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "conformance-http-127-0-0-1-8080-mcp.json" {
		t.Errorf("path = %s", p)
	}
	r, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFailing || r.Category != "conformance" {
		t.Errorf("summary = %+v", r.ReportSummary)
	}
	if got := num(t, metric(t, r, "Pass rate").Value); got != 33.3 {
		t.Errorf("pass rate = %v, want 33.3 (1 of 3 that ran)", got)
	}
	probs := tableByTitle(r, "Failures and warnings")
	if probs == nil || len(probs.Rows) != 2 || probs.Rows[0][0].String() != "ping" {
		t.Fatalf("failures table = %+v", probs)
	}

	run.Checks[2].Outcome = OutcomePass
	run.Finished = run.Finished.Add(time.Hour)
	if _, err := WriteConformanceReport(dir, run); err != nil {
		t.Fatal(err)
	}
	r2, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != StatusWarning {
		t.Errorf("second run status = %s, want warning", r2.Status)
	}
	if got := num(t, metric(t, r2, "Failed").PreviousValue); got != 1 {
		t.Errorf("Failed previousValue = %v, want 1", got)
	}
}

func TestFormatMarkdown(t *testing.T) {
	r := sampleReport(t)
	r.Sections[2].Rows[1][2] = Str("a|b")
	md := FormatMarkdown(r)
	for _, want := range []string{
		"# Nightly CI\n",
		"**Status:** failing · **Category:** ci · **Updated:** 2025-06-01T10:00:00Z · **Source:** github-actions",
		"Built from **main**.",
		"## Tests",
		"| Passed | 408 | 410 | -2 (-0.5%) | passing |",
		"| Coverage | 81.5% |  |  |  |",
		"| Go | 1.25.1 | 1.25.0 | was 1.25.0 |  |",
		"| Test | Elapsed | Note |",
		"| TestB | 1 | a\\|b |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestDelta(t *testing.T) {
	tests := []struct {
		m    MetricItem
		want string
	}{
		{MetricItem{Value: Num(0.3), PreviousValue: Num(0.1), Unit: "s"}, "+0.2 s (+200.0%)"},
		{MetricItem{Value: Num(77.3), PreviousValue: Num(78), Unit: "%"}, "-0.7 pp (-0.9% relative)"},
		{MetricItem{Value: Num(5), PreviousValue: Num(5)}, "unchanged"},
		{MetricItem{Value: Num(5), PreviousValue: Num(0)}, "+5"},
		{MetricItem{Value: Num(5)}, ""},
		{MetricItem{Value: Str("A"), PreviousValue: Str("A")}, "unchanged"},
		{MetricItem{Value: Str("A"), PreviousValue: Num(2), Unit: "%"}, "was 2%"},
	}
	for _, tt := range tests {
		if got := Delta(tt.m); got != tt.want {
			t.Errorf("Delta(%v -> %v) = %q, want %q", tt.m.PreviousValue, tt.m.Value, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/mcp": "http-127-0-0-1-8080-mcp",
		"":                          "x",
		"--":                        "x",
		"npx -y @scope/server":      "npx-y-scope-server",
	} {
		if got := Slug(in); got != want || !ValidID(got) {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
