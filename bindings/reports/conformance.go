package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Check outcomes understood by [ConformanceReport].
const (
	OutcomePass = "pass"
	OutcomeFail = "fail"
	OutcomeWarn = "warn"
	OutcomeSkip = "skip"
)

// CheckResult is the outcome of one conformance check.
type CheckResult struct {
	// ID names the check (for example "tools/list-pagination").
	ID string
	// Outcome is one of OutcomePass, OutcomeFail, OutcomeWarn, OutcomeSkip.
	Outcome string
	// Message explains a failure, a warning or a skip.
	Message string
	// Spec cites the rule the check enforces; optional.
	Spec string
	// Duration is how long the check ran; optional.
	Duration time.Duration
}

// ConformanceRun describes one run of a conformance suite against a target.
type ConformanceRun struct {
	// ID is the report id; default "conformance-" plus a slug of Target.
	ID string
	// Target names the server under test (a URL or a command line).
	Target string
	// Revision is the protocol revision negotiated, if known.
	Revision string
	// Suite names the suite and its version; default "wiremcp conformance".
	Suite string
	// Finished is when the run ended; default time.Now.
	Finished time.Time
	// Checks are the results, in the order they ran.
	Checks []CheckResult
}

// ConformanceReport turns a run into a report of category "conformance": counts as
// metrics (with previousValue from prev, the last report with the same id, which may be
// nil), failures and warnings as a table, and every check in a second table.
func ConformanceReport(run ConformanceRun, prev *Report) *Report {
	id := run.ID
	if id == "" {
		id = "conformance-" + Slug(run.Target)
	}
	suite := run.Suite
	if suite == "" {
		suite = "wiremcp conformance"
	}
	finished := run.Finished
	if finished.IsZero() {
		finished = time.Now()
	}
	counts := map[string]int{}
	var problems, all [][]Value
	for _, c := range run.Checks {
		counts[c.Outcome]++
		msg := c.Message
		row := []Value{Str(c.ID), Str(c.Outcome), Str(msg)}
		all = append(all, row)
		if c.Outcome == OutcomeFail || c.Outcome == OutcomeWarn {
			problems = append(problems, []Value{Str(c.ID), Str(c.Outcome), Str(msg), Str(c.Spec)})
		}
	}
	sort.SliceStable(problems, func(i, j int) bool {
		// failures before warnings, each group in run order
		return problems[i][1].String() == OutcomeFail && problems[j][1].String() != OutcomeFail
	})
	ran := counts[OutcomePass] + counts[OutcomeFail] + counts[OutcomeWarn]
	rate := 100.0
	if ran > 0 {
		rate = math.Round(float64(counts[OutcomePass])/float64(ran)*1000) / 10
	}
	status := StatusPassing
	switch {
	case counts[OutcomeFail] > 0:
		status = StatusFailing
	case counts[OutcomeWarn] > 0:
		status = StatusWarning
	case ran == 0:
		status = StatusInfo
	}
	summary := fmt.Sprintf("%d passed, %d failed, %d warnings, %d skipped against %s.",
		counts[OutcomePass], counts[OutcomeFail], counts[OutcomeWarn], counts[OutcomeSkip], oneLine(run.Target))
	failStatus := StatusPassing
	if counts[OutcomeFail] > 0 {
		failStatus = StatusFailing
	}
	r := &Report{
		ReportSummary: ReportSummary{
			ID: id, Title: "Conformance: " + truncate(oneLine(run.Target), 200), Category: "conformance",
			Status: status, Summary: summary, UpdatedAt: finished.UTC().Truncate(time.Millisecond),
			Source: suite, Tags: []string{"mcp", "conformance"},
		},
		Sections: []Section{Metrics("Checks",
			MetricItem{Label: "Passed", Value: Num(float64(counts[OutcomePass]))},
			MetricItem{Label: "Failed", Value: Num(float64(counts[OutcomeFail])), Status: failStatus},
			MetricItem{Label: "Warnings", Value: Num(float64(counts[OutcomeWarn]))},
			MetricItem{Label: "Skipped", Value: Num(float64(counts[OutcomeSkip]))},
			MetricItem{Label: "Pass rate", Value: Num(rate), Unit: "%"},
		)},
	}
	if run.Revision != "" {
		r.Tags = append(r.Tags, run.Revision)
		r.Sections = append(r.Sections, Markdown(fmt.Sprintf("Target `%s`, protocol revision `%s`.", oneLine(run.Target), run.Revision)))
	}
	if len(problems) > 0 {
		r.Sections = append(r.Sections, Table("Failures and warnings", []string{"Check", "Outcome", "Message", "Spec"}, problems))
	}
	if len(all) > 0 {
		r.Sections = append(r.Sections, Table("All checks", []string{"Check", "Outcome", "Message"}, all))
	}
	CarryPrevious(r, prev)
	return r
}

// WriteConformanceReport builds the run's report, taking previous values from the report
// with the same id already in dir, and writes it atomically to dir. It returns the path.
func WriteConformanceReport(dir string, run ConformanceRun) (string, error) {
	r := ConformanceReport(run, nil)
	prev, err := FindReport(dir, r.ID)
	if err != nil {
		return "", err
	}
	CarryPrevious(r, prev)
	return WriteReport(dir, r)
}

// Slug turns s into a valid id fragment: lower-case letters, digits and single dashes,
// at most 60 characters ("x" for an empty result).
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "x"
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
