package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// CarryPrevious fills the previousValue of every metric in r that has none from prev,
// the last report with the same id: an item takes the value of the item with the same
// label in the metrics section with the same title (or, failing that, in any metrics
// section of prev). A nil prev changes nothing.
func CarryPrevious(r, prev *Report) {
	if prev == nil {
		return
	}
	byTitle := map[string]map[string]Value{}
	anyTitle := map[string]Value{}
	for _, s := range prev.Sections {
		if s.Type != SectionMetrics {
			continue
		}
		m := byTitle[s.Title]
		if m == nil {
			m = map[string]Value{}
			byTitle[s.Title] = m
		}
		for _, it := range s.Items {
			m[it.Label] = it.Value
			if _, ok := anyTitle[it.Label]; !ok {
				anyTitle[it.Label] = it.Value
			}
		}
	}
	for i := range r.Sections {
		s := &r.Sections[i]
		if s.Type != SectionMetrics {
			continue
		}
		for j := range s.Items {
			it := &s.Items[j]
			if !it.PreviousValue.IsZero() {
				continue
			}
			if v, ok := byTitle[s.Title][it.Label]; ok {
				it.PreviousValue = v
			} else if v, ok := anyTitle[it.Label]; ok {
				it.PreviousValue = v
			}
		}
	}
}

// GoTestOptions configures [ImportGoTest]. Zero fields take the documented defaults.
type GoTestOptions struct {
	ID       string    // default "go-tests"
	Title    string    // default "Go tests"
	Category string    // default "quality"
	Source   string    // default "go test"
	Tags     []string  // default ["go"]
	Previous *Report   // the last import of the same report, for previousValue
	Now      time.Time // updatedAt; default: the last event's time, else time.Now
}

// goTestEvent is one line of `go test -json` (see `go doc test2json`).
type goTestEvent struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

type goTestCase struct {
	pkg, name string
	result    string // pass, fail, skip, or "" when it never finished
	elapsed   float64
	output    []string
}

// maxOutputLines is how many trailing output lines are kept per failed test.
const maxOutputLines = 15

// ImportGoTest reads `go test -json` output from r and builds a quality report: a
// metrics section (tests passed, failed, skipped, packages, duration, pass rate; each
// with previousValue from opts.Previous), a table of failures with the end of each
// failing test's output, and the slowest tests. Lines that are not JSON events are
// ignored; input without a single event is an error.
func ImportGoTest(r io.Reader, opts GoTestOptions) (*Report, error) {
	if opts.ID == "" {
		opts.ID = "go-tests"
	}
	if opts.Title == "" {
		opts.Title = "Go tests"
	}
	if opts.Category == "" {
		opts.Category = "quality"
	}
	if opts.Source == "" {
		opts.Source = "go test"
	}
	if opts.Tags == nil {
		opts.Tags = []string{"go"}
	}
	if !ValidID(opts.ID) {
		_, err := FileName(opts.ID)
		return nil, err
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	tests := map[string]*goTestCase{}
	var order []string
	pkgResult := map[string]string{}
	pkgElapsed := map[string]float64{}
	buildOut := map[string][]string{}
	var events int
	var first, last time.Time
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev goTestEvent
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			continue
		}
		events++
		if !ev.Time.IsZero() {
			if first.IsZero() || ev.Time.Before(first) {
				first = ev.Time
			}
			if ev.Time.After(last) {
				last = ev.Time
			}
		}
		switch ev.Action {
		case "build-output":
			buildOut[ev.ImportPath] = appendBounded(buildOut[ev.ImportPath], ev.Output)
			continue
		case "build-fail":
			pkgResult[ev.ImportPath] = "build-fail"
			continue
		}
		if ev.Test == "" {
			switch ev.Action {
			case "pass", "fail", "skip":
				if !(ev.Action == "fail" && pkgResult[ev.Package] == "build-fail") {
					pkgResult[ev.Package] = ev.Action
				}
				pkgElapsed[ev.Package] = ev.Elapsed
			case "output":
				if strings.Contains(ev.Output, "[build failed]") || strings.Contains(ev.Output, "[setup failed]") {
					pkgResult[ev.Package] = "build-fail"
				}
			case "start":
				if _, ok := pkgResult[ev.Package]; !ok {
					pkgResult[ev.Package] = ""
				}
			}
			continue
		}
		key := ev.Package + "\x00" + ev.Test
		tc := tests[key]
		if tc == nil {
			tc = &goTestCase{pkg: ev.Package, name: ev.Test}
			tests[key] = tc
			order = append(order, key)
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			tc.result = ev.Action
			tc.elapsed = ev.Elapsed
		case "output":
			tc.output = appendBounded(tc.output, ev.Output)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("import gotest: reading input: %w", err)
	}
	if events == 0 {
		return nil, errors.New("import gotest: no `go test -json` events in the input")
	}

	var passed, failed, skipped int
	var failures []*goTestCase
	for _, k := range order {
		tc := tests[k]
		switch tc.result {
		case "pass":
			passed++
		case "skip":
			skipped++
		case "fail":
			failed++
			failures = append(failures, tc)
		default:
			// A test that started but never reported a result died with its package
			// (panic, timeout, os.Exit).
			if pkgResult[tc.pkg] == "fail" {
				tc.result = "fail"
				tc.output = appendBounded(tc.output, "(test did not finish)\n")
				failed++
				failures = append(failures, tc)
			}
		}
	}
	var pkgs []string
	for p := range pkgResult {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var failedPkgs []string
	var sumElapsed float64
	for _, p := range pkgs {
		if res := pkgResult[p]; res == "fail" || res == "build-fail" {
			failedPkgs = append(failedPkgs, p)
		}
		sumElapsed += pkgElapsed[p]
	}
	duration := sumElapsed
	if !first.IsZero() && last.After(first) {
		duration = last.Sub(first).Seconds()
	}
	duration = math.Round(duration*100) / 100

	status := StatusPassing
	switch {
	case failed > 0 || len(failedPkgs) > 0:
		status = StatusFailing
	case passed == 0 && skipped == 0:
		status = StatusInfo
	case skipped > 0 && passed == 0:
		status = StatusWarning
	}
	total := passed + failed
	passRate := 100.0
	if total > 0 {
		passRate = math.Round(float64(passed)/float64(total)*1000) / 10
	}
	summary := fmt.Sprintf("%d passed, %d failed, %d skipped in %d packages (%.1fs).", passed, failed, skipped, len(pkgs), duration)
	if len(failedPkgs) > 0 {
		summary += fmt.Sprintf(" %d package(s) failed.", len(failedPkgs))
	}

	itemStatus := func(bad bool) Status {
		if bad {
			return StatusFailing
		}
		return StatusPassing
	}
	metrics := Metrics("Tests",
		MetricItem{Label: "Passed", Value: Num(float64(passed))},
		MetricItem{Label: "Failed", Value: Num(float64(failed)), Status: itemStatus(failed > 0)},
		MetricItem{Label: "Skipped", Value: Num(float64(skipped))},
		MetricItem{Label: "Packages", Value: Num(float64(len(pkgs)))},
		MetricItem{Label: "Failed packages", Value: Num(float64(len(failedPkgs))), Status: itemStatus(len(failedPkgs) > 0)},
		MetricItem{Label: "Duration", Value: Num(duration), Unit: "s"},
		MetricItem{Label: "Pass rate", Value: Num(passRate), Unit: "%", Status: itemStatus(passRate < 100)},
	)
	rep := &Report{
		ReportSummary: ReportSummary{
			ID: opts.ID, Title: opts.Title, Category: opts.Category, Status: status,
			Summary: summary, Source: opts.Source, Tags: opts.Tags,
		},
		Sections: []Section{metrics},
	}
	switch {
	case !opts.Now.IsZero():
		rep.UpdatedAt = opts.Now.UTC()
	case !last.IsZero():
		rep.UpdatedAt = last.UTC()
	default:
		rep.UpdatedAt = time.Now().UTC()
	}
	rep.UpdatedAt = rep.UpdatedAt.Truncate(time.Millisecond)

	var md strings.Builder
	if len(failedPkgs) > 0 {
		md.WriteString("**Failed packages:**\n\n")
		for _, p := range failedPkgs {
			fmt.Fprintf(&md, "- `%s`", p)
			if pkgResult[p] == "build-fail" {
				md.WriteString(" (build failed)")
				if out := buildOut[p]; len(out) > 0 {
					fmt.Fprintf(&md, "\n\n```\n%s\n```\n", strings.TrimRight(strings.Join(out, ""), "\n"))
				}
			}
			md.WriteString("\n")
		}
	} else if status == StatusPassing {
		md.WriteString("All packages passed.\n")
	} else if status == StatusInfo {
		md.WriteString("No tests ran.\n")
	}
	if md.Len() > 0 {
		rep.Sections = append(rep.Sections, Markdown(md.String()))
	}

	failures = dropFailedParents(failures)
	if len(failures) > 0 {
		rows := make([][]Value, 0, len(failures))
		for _, tc := range failures {
			rows = append(rows, []Value{Str(tc.pkg), Str(tc.name), Num(tc.elapsed), Str(strings.TrimRight(strings.Join(tc.output, ""), "\n"))})
		}
		rep.Sections = append(rep.Sections, Table("Failures", []string{"Package", "Test", "Elapsed (s)", "Output"}, rows))
	}
	var all []*goTestCase
	for _, k := range order {
		if tc := tests[k]; tc.result == "pass" && !strings.Contains(tc.name, "/") {
			all = append(all, tc)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].elapsed > all[j].elapsed })
	if len(all) > 5 {
		all = all[:5]
	}
	if len(all) > 0 && all[0].elapsed > 0 {
		rows := make([][]Value, 0, len(all))
		for _, tc := range all {
			rows = append(rows, []Value{Str(tc.pkg), Str(tc.name), Num(tc.elapsed)})
		}
		rep.Sections = append(rep.Sections, Table("Slowest tests", []string{"Package", "Test", "Elapsed (s)"}, rows))
	}
	CarryPrevious(rep, opts.Previous)
	if err := rep.Validate(); err != nil {
		return nil, fmt.Errorf("import gotest: built an invalid report: %w", err)
	}
	return rep, nil
}

// appendBounded keeps the last maxOutputLines lines, each at most 500 bytes.
func appendBounded(lines []string, s string) []string {
	if len(s) > 500 {
		s = s[:500] + "…\n"
	}
	lines = append(lines, s)
	if len(lines) > maxOutputLines {
		lines = lines[len(lines)-maxOutputLines:]
	}
	return lines
}

// dropFailedParents leaves out a failed test whose failure is explained by a failed
// subtest listed too, so the table names the subtests that broke.
func dropFailedParents(fs []*goTestCase) []*goTestCase {
	out := fs[:0:0]
	for _, f := range fs {
		parent := false
		for _, g := range fs {
			if g.pkg == f.pkg && strings.HasPrefix(g.name, f.name+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, f)
		}
	}
	return out
}
