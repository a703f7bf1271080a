package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Result is the outcome of a run.
type Result struct {
	Target    string        `json:"target"`
	Transport string        `json:"transport"`
	Started   time.Time     `json:"started"`
	Finished  time.Time     `json:"finished"`
	Runs      []RevisionRun `json:"runs"`
	// ToolPolicy is the tool-calling policy in effect (readonly, all, none).
	ToolPolicy string `json:"toolPolicy"`
	// ToolsCalled names every server tool the suite called, sorted.
	ToolsCalled []string      `json:"toolsCalled"`
	Checks      []CheckResult `json:"checks"`
}

// RevisionRun describes one pass under one revision.
type RevisionRun struct {
	// Requested is the pinned revision ("" when negotiating).
	Requested string `json:"requested,omitempty"`
	// Revision is the revision in effect.
	Revision string `json:"revision"`
	// Note explains why the pass could not run normally.
	Note string `json:"note,omitempty"`
}

// CheckResult is the verdict of one check under one revision.
type CheckResult struct {
	ID          string   `json:"id"`
	Requirement string   `json:"requirement"`
	Area        string   `json:"area"`
	Severity    string   `json:"severity"`
	Revision    string   `json:"revision"`
	Transport   string   `json:"transport"`
	Outcome     Outcome  `json:"outcome"`
	Detail      string   `json:"detail,omitempty"`
	Evidence    []string `json:"evidence,omitempty"`
	// Exchange is the exchange behind a failure or a not-testable verdict:
	// "> " the last request the check sent, "< " the HTTP status and the
	// messages that came back after it (each shortened).
	Exchange   string `json:"exchange,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// Counts tallies outcomes.
type Counts struct {
	Pass, Fail, NotApplicable, NotTestable, Skipped int
}

// Total is the number of results counted.
func (c Counts) Total() int { return c.Pass + c.Fail + c.NotApplicable + c.NotTestable + c.Skipped }

func (c *Counts) add(o Outcome) {
	switch o {
	case Pass:
		c.Pass++
	case Fail:
		c.Fail++
	case NotApplicable:
		c.NotApplicable++
	case NotTestable:
		c.NotTestable++
	case Skipped:
		c.Skipped++
	}
}

// Counts tallies all results.
func (r *Result) Counts() Counts {
	var c Counts
	for _, cr := range r.Checks {
		c.add(cr.Outcome)
	}
	return c
}

// Failed reports whether any check failed or was not testable, ADVICE
// failures aside.
func (r *Result) Failed() bool {
	for _, cr := range r.Checks {
		if cr.Outcome.Failed() && cr.Severity != string(ADVICE) {
			return true
		}
	}
	return false
}

// FailedStrict is Failed counting ADVICE failures too.
func (r *Result) FailedStrict() bool {
	for _, cr := range r.Checks {
		if cr.Outcome.Failed() {
			return true
		}
	}
	return false
}

// ByArea tallies results per area, in the suite's area order.
func (r *Result) ByArea() ([]string, map[string]Counts) {
	m := map[string]Counts{}
	var areas []string
	for _, cr := range r.Checks {
		c, seen := m[cr.Area]
		if !seen {
			areas = append(areas, cr.Area)
		}
		c.add(cr.Outcome)
		m[cr.Area] = c
	}
	sort.SliceStable(areas, func(i, j int) bool { return areaRank(Area(areas[i])) < areaRank(Area(areas[j])) })
	return areas, m
}

// WriteSummary prints failures with evidence and a table by area.
func (r *Result) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "target: %s\n", r.Target)
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "revision: %s", run.Revision)
		if run.Requested != "" && run.Requested != run.Revision {
			fmt.Fprintf(&b, " (requested %s)", run.Requested)
		}
		if run.Note != "" {
			fmt.Fprintf(&b, " — %s", run.Note)
		}
		b.WriteString("\n")
	}
	called := "none"
	if len(r.ToolsCalled) > 0 {
		called = strings.Join(r.ToolsCalled, ", ")
	}
	policy := r.ToolPolicy
	if policy == "" {
		policy = string(CallReadOnly)
	}
	fmt.Fprintf(&b, "tools called (policy %s): %s\n", policy, called)
	// A check not testable for the reason its whole revision run could not
	// start (the run's note) is counted on one line, not printed a hundred
	// times; -json and -junit still list each.
	runNote := map[string]string{}
	for _, run := range r.Runs {
		if run.Note != "" {
			runNote[run.Revision] = run.Note
		}
	}
	for _, g := range failureGroups(r.Checks) {
		fmt.Fprintf(&b, "\n== %s (%d)\n", g.title, len(g.checks))
		collapsed := map[string]int{}
		var order []string
		for _, cr := range g.checks {
			if cr.Outcome == NotTestable && cr.Detail != "" && cr.Detail == runNote[cr.Revision] {
				if collapsed[cr.Revision] == 0 {
					order = append(order, cr.Revision)
				}
				collapsed[cr.Revision]++
			}
		}
		for _, rev := range order {
			fmt.Fprintf(&b, "\n%d checks under %s: %s (the run could not start; -json and -junit list each)\n", collapsed[rev], rev, runNote[rev])
		}
		for _, cr := range g.checks {
			if collapsed[cr.Revision] > 0 && cr.Outcome == NotTestable && cr.Detail == runNote[cr.Revision] {
				continue
			}
			fmt.Fprintf(&b, "\n%s %s [%s %s] %s\n", strings.ToUpper(string(cr.Outcome)), cr.ID, cr.Severity, cr.Revision, cr.Requirement)
			ev := cr.Evidence
			if len(ev) == 0 && cr.Detail != "" {
				ev = []string{cr.Detail}
			}
			for _, e := range ev {
				fmt.Fprintf(&b, "    %s\n", e)
			}
			if cr.Exchange != "" {
				b.WriteString("    exchange:\n")
				for _, l := range strings.Split(cr.Exchange, "\n") {
					fmt.Fprintf(&b, "      %s\n", l)
				}
			}
		}
	}
	areas, m := r.ByArea()
	fmt.Fprintf(&b, "\n%-12s %5s %5s %5s %5s %5s\n", "area", "pass", "fail", "n/a", "n/t", "skip")
	for _, a := range areas {
		c := m[a]
		fmt.Fprintf(&b, "%-12s %5d %5d %5d %5d %5d\n", a, c.Pass, c.Fail, c.NotApplicable, c.NotTestable, c.Skipped)
	}
	c := r.Counts()
	fmt.Fprintf(&b, "%-12s %5d %5d %5d %5d %5d\n", "total", c.Pass, c.Fail, c.NotApplicable, c.NotTestable, c.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// failureGroup is a heading of the summary and its checks.
type failureGroup struct {
	title  string
	checks []CheckResult
}

// failureGroups sorts the failed and not-testable results by severity:
// MUST failures, SHOULD failures, then the checks the suite could not
// judge. Empty groups are left out.
func failureGroups(crs []CheckResult) []failureGroup {
	gs := []failureGroup{
		{title: "MUST failures: the server breaks a requirement of the specification"},
		{title: "SHOULD failures: the server departs from a recommendation"},
		{title: "Not testable: the suite could not judge these (a time limit, a refused precondition); not a verdict on the server"},
		{title: "ADVICE: hardening the suite recommends, no specification rule (does not fail the run without -strict)"},
	}
	for _, cr := range crs {
		switch {
		case cr.Outcome == Fail && cr.Severity == string(ADVICE):
			gs[3].checks = append(gs[3].checks, cr)
		case cr.Outcome == NotTestable:
			gs[2].checks = append(gs[2].checks, cr)
		case cr.Outcome == Fail && cr.Severity == string(MUST):
			gs[0].checks = append(gs[0].checks, cr)
		case cr.Outcome == Fail:
			gs[1].checks = append(gs[1].checks, cr)
		}
	}
	var out []failureGroup
	for _, g := range gs {
		if len(g.checks) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// WriteJSON writes the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the result as JUnit XML: one suite per revision, one
// case per check.
func (r *Result) WriteJUnit(w io.Writer) error {
	bySuite := map[string]*junitSuite{}
	var order []string
	for _, cr := range r.Checks {
		name := "mcp-conformance " + cr.Revision
		s, ok := bySuite[name]
		if !ok {
			s = &junitSuite{Name: name}
			bySuite[name] = s
			order = append(order, name)
		}
		jc := junitCase{Name: cr.ID, Classname: cr.Area, Time: fmt.Sprintf("%.3f", float64(cr.DurationMs)/1000)}
		body := cr.Severity + ": " + cr.Requirement + "\n" + strings.Join(cr.Evidence, "\n")
		if cr.Exchange != "" {
			body += "\nexchange:\n" + cr.Exchange
		}
		switch {
		case cr.Outcome == Fail && cr.Severity == string(ADVICE):
			// Not a protocol failure: shown with its evidence, not counted
			// against the build.
			jc.Skipped = &junitMessage{Message: "fail [ADVICE, no specification rule]: " + cr.Detail, Body: body}
			s.Skipped++
		case cr.Outcome.Failed():
			jc.Failure = &junitMessage{Message: string(cr.Outcome) + " [" + cr.Severity + "]: " + cr.Detail, Body: body}
			s.Failures++
		case cr.Outcome != Pass:
			jc.Skipped = &junitMessage{Message: string(cr.Outcome) + ": " + cr.Detail}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	var out junitSuites
	for _, n := range order {
		out.Suites = append(out.Suites, *bySuite[n])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
