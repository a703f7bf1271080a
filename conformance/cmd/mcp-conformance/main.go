// Command mcp-conformance checks an MCP server over the wire, check by
// check, and says what it gets wrong.
//
//	mcp-conformance -url http://127.0.0.1:8080/mcp
//	mcp-conformance -stdio 'go run ./examples/everything-server -stdio' -revision all
//	mcp-conformance -sse http://127.0.0.1:8080/sse -json out.json -junit out.xml
//	mcp-conformance -url http://127.0.0.1:8080/mcp -binding reports -report ./reports -call-tools all
//
// By default it calls only the server's tools annotated readOnlyHint: true
// and the official conformance suite's fixture tools (-call-tools).
//
// The exit status is 0 when no check failed, 1 when one did (or could not
// be judged), 2 on bad usage or an unreachable target.
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
	"sync"
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
		callTools = fs.String("call-tools", string(conformance.CallReadOnly), "which server tools the suite may call with generated arguments: readonly (readOnlyHint: true and official fixture tools), all (all but destructiveHint: true) or none")
		noCalls   = fs.Bool("no-tool-calls", false, "same as -call-tools none")
		strict    = fs.Bool("strict", false, "ADVICE failures (hardening without a specification rule) also make the exit status 1")
		parallel  = fs.Int("parallel", 4, "checks run at once (those that change or watch shared state always run alone)")
		list      = fs.Bool("list", false, "list the checks and exit")
		headers   multi
		binds     multi
	)
	fs.Var(&headers, "header", "HTTP header 'Name: value' added to every request (repeatable)")
	fs.Var(&binds, "binding", "also check a binding ("+strings.Join(conformance.BindingNames(), ", ")+"); repeatable")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcp-conformance: unexpected argument %q (name the server with -url, -stdio or -sse; -h for help)\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, ch := range conformance.Checks() {
			fmt.Fprintf(stdout, "%-40s %-6s %s\n", ch.ID, ch.Severity, ch.Requirement)
		}
		return 0
	}
	target := conformance.Target{URL: *url, SSEURL: *sse}
	if n := countSet(*url, *sse, *stdio); n != 1 {
		what := "no server to check"
		if n > 1 {
			what = "more than one server named"
		}
		fmt.Fprintf(stderr, "mcp-conformance: %s: give exactly one of -url URL (Streamable HTTP), -stdio 'COMMAND' or -sse URL (legacy HTTP+SSE); -h for help\n", what)
		return 2
	}
	policy, err := conformance.ParseToolPolicy(*callTools)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-conformance: -call-tools:", err)
		return 2
	}
	if *stdio != "" {
		argv, err := splitCommand(*stdio)
		if err != nil {
			fmt.Fprintln(stderr, "mcp-conformance: -stdio:", err)
			return 2
		}
		target.Command = argv
	}
	opts := &conformance.Options{Revision: *revision, SchemaDir: *schemaDir, Timeout: *timeout, Bindings: binds,
		CallTools: policy, NoToolCalls: *noCalls, Parallel: *parallel}
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
	pp := newProgress(stderr, isTerminal(stderr))
	opts.Started, opts.Progress = pp.started, pp.finished
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := conformance.CheckServer(ctx, target, opts)
	if isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if errors.Is(err, conformance.ErrUnreachable) {
		flagName := map[conformance.Transport]string{conformance.HTTP: "-url", conformance.SSE: "-sse", conformance.Stdio: "-stdio"}[target.Kind()]
		fmt.Fprintf(stderr, "mcp-conformance: cannot reach the server (%s): %s\n", flagName, strings.TrimPrefix(err.Error(), conformance.ErrUnreachable.Error()+": "))
		return 2
	}
	if err != nil && res == nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
		return 2
	}
	if err := res.WriteSummary(stdout); err != nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
	}
	code := 0
	if res.Failed() || (*strict && res.FailedStrict()) || err != nil {
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

// reportRun converts a result for the Reports binding: MUST failures and
// MUST checks the suite could not judge are failures, the others (SHOULD,
// ADVICE) warnings, each with its exchange as in the summary; passes pass
// and the rest skips.
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
		case cr.Outcome.Failed() && cr.Severity != string(conformance.MUST):
			out = reports.OutcomeWarn
		case cr.Outcome.Failed():
			out = reports.OutcomeFail
		}
		msg := cr.Detail
		if cr.Outcome == conformance.NotTestable {
			msg = "not testable: " + msg
		}
		if cr.Exchange != "" {
			msg += "\nexchange:\n" + cr.Exchange
		}
		run.Checks = append(run.Checks, reports.CheckResult{ID: id, Outcome: out, Message: msg,
			Spec: cr.Severity + ": " + cr.Requirement, Duration: time.Duration(cr.DurationMs) * time.Millisecond})
	}
	return run
}

// progress reports checks as they run: on a terminal one rewritten line
// naming the checks running now, otherwise one line per finished check.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	running []string // "revision id" of the checks running, in start order
	done    int
	total   int
}

func newProgress(w io.Writer, tty bool) *progress { return &progress{w: w, tty: tty} }

func (p *progress) started(rev, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, rev+" "+id)
	p.draw()
}

func (p *progress) finished(done, total int, r conformance.CheckResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	key := r.Revision + " " + r.ID
	for i, k := range p.running {
		if k == key {
			p.running = append(p.running[:i], p.running[i+1:]...)
			break
		}
	}
	if !p.tty {
		if r.Outcome != conformance.Skipped {
			fmt.Fprintf(p.w, "%-14s %s %s (%d ms)\n", r.Outcome, r.Revision, r.ID, r.DurationMs)
		}
		return
	}
	p.draw()
}

// draw rewrites the terminal line (callers hold mu).
func (p *progress) draw() {
	if !p.tty || len(p.running) == 0 {
		return
	}
	line := fmt.Sprintf("[%d/%d] running %s", p.done, p.total, p.running[0])
	if n := len(p.running) - 1; n > 0 {
		line += fmt.Sprintf(" (+%d more)", n)
	}
	if len(line) > 100 {
		line = line[:100]
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

func countSet(vals ...string) int {
	n := 0
	for _, v := range vals {
		if v != "" {
			n++
		}
	}
	return n
}

// usage prints -h: what the tool does, its targets, what it will do to the
// server, examples, then the flags.
func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `mcp-conformance checks an MCP server against the specification over the wire,
check by check, and says what it gets wrong (MUST and SHOULD failures, each with
the exchange that shows it), plus what it could not test and why.

Targets (exactly one):
  -url URL        a Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp
  -stdio 'CMD'    a command that starts a stdio server (a fresh process per check)
  -sse URL        the event-stream URL of a legacy (2024-11-05) HTTP+SSE server

What it does to the server:
  It opens many sessions, sends malformed and hostile messages (bad JSON, wrong
  member case, oversized bodies, foreign Origin and Host headers, ../ in URIs),
  reads resources, gets prompts, asks for completions, sets log levels and
  subscribes to resources. It calls tools only as -call-tools allows:
    readonly (default)  tools annotated readOnlyHint: true, and the official
                        conformance suite's fixture tools (test_*, slow_compute, ...)
    all                 every tool not annotated destructiveHint: true (MCP says
                        a tool without annotations may be destructive: use this
                        only against a server whose data you can lose)
    none                no tool calls; checks that need one are not applicable
  Tools with a duration argument are asked for a short one. The summary lists
  every tool that was called. Binding checks (-binding) call their contract's
  tools; those that change data run only with -call-tools all.

Examples:
  mcp-conformance -url http://127.0.0.1:8080/mcp
  mcp-conformance -stdio 'node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio'
  mcp-conformance -url http://127.0.0.1:8080/mcp -run '^http/' -json out.json -junit out.xml
  mcp-conformance -stdio './server -stdio' -call-tools all -binding reports -report ./reports

-stdio starts the command once per check (about 60 times): name an installed
server, not npx, which looks the package up each time (three times slower).

Checks are MUST or SHOULD (rules of MCP or JSON-RPC) or ADVICE (hardening with no
rule behind it, such as refusing duplicate JSON members or 16 MiB bodies): ADVICE
failures are listed apart and count only with -strict.

Exit status: 0 when every check passed or was not applicable, 1 when one failed
or could not be tested, 2 on bad usage or when no MCP server answers at the
target (connection refused, a command that does not start, a page that is not
JSON-RPC, no answer to initialize within -timeout).

Flags:
`)
	fs.PrintDefaults()
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
