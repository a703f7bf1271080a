package reports_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// A producer writes a report into a directory that reports-server watches.
func ExampleWriteReport() {
	dir, _ := os.MkdirTemp("", "reports")
	defer os.RemoveAll(dir)

	r := &reports.Report{
		ReportSummary: reports.ReportSummary{
			ID: "nightly-ci", Title: "Nightly CI", Category: "ci",
			Status: reports.StatusFailing, Summary: "2 of 410 tests failed.",
			UpdatedAt: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC),
		},
		Sections: []reports.Section{
			reports.Metrics("Tests",
				reports.MetricItem{Label: "Failed", Value: reports.Num(2), PreviousValue: reports.Num(0), Status: reports.StatusFailing},
				reports.MetricItem{Label: "Duration", Value: reports.Num(61.5), PreviousValue: reports.Num(60), Unit: "s"},
			),
		},
	}
	path, err := reports.WriteReport(dir, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(path))

	r.ID = "../outside"
	_, err = reports.WriteReport(dir, r)
	fmt.Println(err != nil)
	// Output:
	// nightly-ci.json
	// true
}

// FormatMarkdown is how clients without the binding see a report.
func ExampleFormatMarkdown() {
	r := &reports.Report{
		ReportSummary: reports.ReportSummary{
			ID: "latency", Title: "API latency", Category: "performance",
			Status: reports.StatusWarning, Summary: "p99 rose by a third.",
			UpdatedAt: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC),
		},
		Sections: []reports.Section{
			reports.Metrics("", reports.MetricItem{Label: "p99", Value: reports.Num(274), PreviousValue: reports.Num(198), Unit: "ms"}),
		},
	}
	fmt.Print(reports.FormatMarkdown(r))
	// Output:
	// # API latency
	//
	// **Status:** warning · **Category:** performance · **Updated:** 2025-06-01T03:00:00Z
	//
	// p99 rose by a third.
	//
	// | Metric | Value | Previous | Change | Status |
	// |---|---|---|---|---|
	// | p99 | 274 ms | 198 ms | +76 ms (+38.4%) |  |
}
