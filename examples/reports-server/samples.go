package main

import (
	"embed"
	"io/fs"
	"path"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// sampleFS holds the built-in reports served when no -dir is given.
//
//go:embed samples/*.json
var sampleFS embed.FS

// loadSamples parses the built-in reports. They are validated like any file; a broken
// sample shows up as a diagnostic (and fails TestSamplesValid).
func loadSamples() ([]reports.LoadedReport, []reports.Diagnostic) {
	names, _ := fs.Glob(sampleFS, "samples/*.json")
	var loaded []reports.LoadedReport
	var diags []reports.Diagnostic
	for _, n := range names {
		data, err := sampleFS.ReadFile(n)
		if err == nil {
			var r *reports.Report
			if r, err = reports.Parse(data); err == nil {
				loaded = append(loaded, reports.LoadedReport{Report: r, File: "builtin:" + path.Base(n)})
				continue
			}
		}
		diags = append(diags, reports.Diagnostic{File: "builtin:" + path.Base(n), Message: err.Error()})
	}
	loaded, dup := reports.Dedupe(loaded)
	return loaded, append(diags, dup...)
}
