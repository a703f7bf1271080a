// Package reports is the Reports binding of wiremcp: the data format, JSON Schemas,
// validation, file storage and producers for the reports that an inbox-style MCP client
// consumes through three tools.
//
// A client detects the binding by the tool names alone: [ToolList] (REPORTS_LIST),
// [ToolGet] (REPORTS_GET) and [ToolUpdateStatus] (REPORTS_UPDATE_STATUS). Their input
// and output schemas are embedded here ([ListInputSchema], [ReportSchema], …) so that
// servers declare them verbatim and producers validate against the same text.
//
// Reports live on disk as JSON files, one report per file. [Parse] validates a file
// against the Report schema plus a few rules a schema cannot express (table row widths);
// [LoadDir] reads a directory, returning the valid reports and a [Diagnostic] per invalid
// file; [WriteReport] and [Publish] write reports atomically (temp file, fsync, rename,
// fsync of the directory), naming each file after its id, which is restricted so that it
// can never name a path outside the directory.
//
// Producers: [ImportGoTest] turns `go test -json` output into a quality report, and
// [ConformanceReport] turns a conformance run into one; [CarryPrevious] fills each
// metric's previousValue from the last report with the same id.
//
//	r := &reports.Report{
//		ReportSummary: reports.ReportSummary{
//			ID: "nightly-ci", Title: "Nightly CI", Category: "ci",
//			Status: reports.StatusPassing, Summary: "All 412 tests passed",
//			UpdatedAt: time.Now().UTC(),
//		},
//		Sections: []reports.Section{reports.Markdown("Built from `main`.")},
//	}
//	path, err := reports.WriteReport(dir, r)
//
// The package imports only the standard library and github.com/santhosh-tekuri/jsonschema/v6;
// the MCP wiring lives with the server (examples/reports-server).
package reports
