// Command mcp-conformance checks an MCP server over the wire, check by
// check, and says what it gets wrong.
//
//	mcp-conformance -url http://127.0.0.1:8080/mcp
//	mcp-conformance -stdio 'go run ./examples/everything-server -stdio' -revision all
//	mcp-conformance -sse http://127.0.0.1:8080/sse -json out.json -junit out.xml
//	mcp-conformance -url http://127.0.0.1:8080/mcp -binding reports -report ./reports
//
// The exit status is 0 when no check failed, 1 when one did, 2 on bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/conformance"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		url       = fs.String("url", "", "Streamable HTTP endpoint of the server under test")
		sse       = fs.String("sse", "", "event-stream URL of a legacy HTTP+SSE server")
		stdio     = fs.String("stdio", "", "command line that starts a stdio server (quoted as for a shell)")
		revision  = fs.String("revision", conformance.RevisionNegotiate, "negotiate, all, or a revision: "+strings.Join(conformance.Revisions, ", "))
		runRe     = fs.String("run", "", "run only checks whose id matches this regular expression")
		schemaDir = fs.String("schema-dir", "", "directory of schema-<revision>.json files; validate every server message")
		jsonOut   = fs.String("json", "", "write the result as JSON to this file")
		junitOut  = fs.String("junit", "", "write the result as JUnit XML to this file")
		reportDir = fs.String("report", "", "write the result as a Reports-binding report into this directory")
		timeout   = fs.Duration("timeout", 10*time.Second, "time limit for each exchange with the server")
		noCalls   = fs.Bool("no-tool-calls", false, "never call the server's tools with generated arguments")
		list      = fs.Bool("list", false, "list the checks and exit")
		headers   multi
		binds     multi
	)
	fs.Var(&headers, "header", "HTTP header 'Name: value' added to every request (repeatable)")
	fs.Var(&binds, "binding", "also check a binding ("+strings.Join(conformance.BindingNames(), ", ")+"); repeatable")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		for _, ch := range conformance.Checks() {
			fmt.Fprintf(stdout, "%-40s %-6s %s\n", ch.ID, ch.Severity, ch.Requirement)
		}
		return 0
	}
	target := conformance.Target{URL: *url, SSEURL: *sse}
	if *stdio != "" {
		argv, err := splitCommand(*stdio)
		if err != nil {
			fmt.Fprintln(stderr, "mcp-conformance: -stdio:", err)
			return 2
		}
		target.Command = argv
	}
	opts := &conformance.Options{Revision: *revision, SchemaDir: *schemaDir, Timeout: *timeout, Bindings: binds, NoToolCalls: *noCalls}
	if *runRe != "" {
		re, err := regexp.Compile(*runRe)
		if err != nil {
			fmt.Fprintln(stderr, "mcp-conformance: -run:", err)
			return 2
		}
		opts.Run = re
	}
	if len(headers) > 0 {
		opts.Headers = http.Header{}
		for _, h := range headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				fmt.Fprintf(stderr, "mcp-conformance: -header %q: want 'Name: value'\n", h)
				return 2
			}
			opts.Headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	opts.Progress = progressPrinter(stderr, isTerminal(stderr))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := conformance.CheckServer(ctx, target, opts)
	if err != nil && res == nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
		return 2
	}
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err := res.WriteSummary(stdout); err != nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
	}
	code := 0
	if res.Failed() || err != nil {
		code = 1
	}
	if err := writeOutputs(res, *jsonOut, *junitOut, *reportDir, stderr); err != nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
		code = 1
	}
	return code
}

func writeOutputs(res *conformance.Result, jsonOut, junitOut, reportDir string, stderr io.Writer) error {
	var errs []error
	write := func(path string, f func(io.Writer) error) {
		if path == "" {
			return
		}
		file, err := os.Create(path)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if err := f(file); err != nil {
			errs = append(errs, err)
		}
		if err := file.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	write(jsonOut, res.WriteJSON)
	write(junitOut, res.WriteJUnit)
	if reportDir != "" {
		path, err := reports.WriteConformanceReport(reportDir, reportRun(res))
		if err != nil {
			errs = append(errs, fmt.Errorf("-report: %w", err))
		} else {
			fmt.Fprintln(stderr, "report written to", path)
		}
	}
	return errors.Join(errs...)
}

// reportRun converts a result for the Reports binding: MUST failures are
// failures, SHOULD failures warnings, the rest skips.
func reportRun(res *conformance.Result) reports.ConformanceRun {
	run := reports.ConformanceRun{Target: res.Target, Suite: "wiremcp mcp-conformance", Finished: res.Finished}
	if len(res.Runs) == 1 {
		run.Revision = res.Runs[0].Revision
	}
	for _, cr := range res.Checks {
		id := cr.ID
		if len(res.Runs) > 1 {
			id += " @" + cr.Revision
		}
		out := reports.OutcomeSkip
		switch {
		case cr.Outcome == conformance.Pass:
			out = reports.OutcomePass
		case cr.Outcome.Failed() && cr.Severity == string(conformance.SHOULD):
			out = reports.OutcomeWarn
		case cr.Outcome.Failed():
			out = reports.OutcomeFail
		}
		msg := cr.Detail
		if cr.Outcome == conformance.NotTestable {
			msg = "not testable: " + msg
		}
		run.Checks = append(run.Checks, reports.CheckResult{ID: id, Outcome: out, Message: msg,
			Spec: cr.Severity + ": " + cr.Requirement, Duration: time.Duration(cr.DurationMs) * time.Millisecond})
	}
	return run
}

// progressPrinter reports each finished check: one rewritten line on a
// terminal, plain lines otherwise.
func progressPrinter(w io.Writer, tty bool) func(int, int, conformance.CheckResult) {
	return func(done, total int, r conformance.CheckResult) {
		if tty {
			line := fmt.Sprintf("[%d/%d] %s %s %s", done, total, r.Revision, r.ID, r.Outcome)
			if len(line) > 100 {
				line = line[:100]
			}
			fmt.Fprintf(w, "\r\033[K%s", line)
			return
		}
		if r.Outcome == conformance.Skipped {
			return
		}
		fmt.Fprintf(w, "%-14s %s %s\n", r.Outcome, r.Revision, r.ID)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// splitCommand splits a command line into words, honouring single and
// double quotes and backslash escapes (no other shell syntax).
func splitCommand(s string) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		inArg bool
		quote rune
		esc   bool
	)
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, inArg = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				out = append(out, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 || esc {
		return nil, errors.New("unterminated quote or escape")
	}
	if inArg {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, errors.New("empty command")
	}
	return out, nil
}
