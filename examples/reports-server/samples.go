package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// sampleFS holds the built-in reports served when no -dir is given.
//
//go:embed samples/*.json samples/history/*.json
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

// loadSampleHistory parses the earlier versions of some samples (samples/history/<id>.json,
// a JSON array of reports, oldest first), so that the built-in inbox shows trend charts
// from its first start. Each version is validated like a report file.
func loadSampleHistory() ([]reports.LoadedReport, error) {
	names, _ := fs.Glob(sampleFS, "samples/history/*.json")
	var out []reports.LoadedReport
	for _, n := range names {
		data, err := sampleFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var versions []json.RawMessage
		if err := json.Unmarshal(data, &versions); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		for i, v := range versions {
			r, err := reports.Parse(v)
			if err != nil {
				return nil, fmt.Errorf("%s, version %d: %w", n, i, err)
			}
			out = append(out, reports.LoadedReport{Report: r, File: "builtin:" + path.Base(n)})
		}
	}
	return out, nil
}
