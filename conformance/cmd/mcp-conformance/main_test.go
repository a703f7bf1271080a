package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/conformance"
	"github.com/wiremcp/wiremcp/conformance/internal/faultserver"
)

func TestCLIWritesEveryOutput(t *testing.T) {
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Reports: true}).Handler())
	defer ts.Close()
	dir := t.TempDir()
	args := []string{"-url", ts.URL + "/mcp", "-run", "^(jsonrpc|tools|reports)/", "-binding", "reports", "-timeout", "3s",
		"-json", filepath.Join(dir, "r.json"), "-junit", filepath.Join(dir, "r.xml"), "-report", filepath.Join(dir, "reports"),
		"-header", "X-Test: yes"}
	if sd := os.Getenv("MCP_SCHEMA_DIR"); sd != "" {
		args = append(args, "-schema-dir", sd)
	}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "total") || !strings.Contains(out.String(), "jsonrpc") {
		t.Errorf("summary lacks the per-area table:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "tools called (policy readonly): ") || !strings.Contains(out.String(), "REPORTS_LIST") {
		t.Errorf("summary does not list the tools called:\n%s", out.String())
	}
	var res struct {
		Checks      []struct{ ID, Outcome string }
		ToolsCalled []string
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || json.Unmarshal(data, &res) != nil || len(res.Checks) == 0 {
		t.Fatalf("JSON output unreadable: %v", err)
	}
	if len(res.ToolsCalled) == 0 {
		t.Errorf("JSON output lists no tools called")
	}
	var junit struct {
		Suites []struct {
			Tests int `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	data, _ = os.ReadFile(filepath.Join(dir, "r.xml"))
	if err := xml.Unmarshal(data, &junit); err != nil || len(junit.Suites) != 1 || junit.Suites[0].Tests != len(res.Checks) {
		t.Fatalf("JUnit output: %v %+v", err, junit)
	}
	loaded, diags, err := reports.LoadDir(filepath.Join(dir, "reports"))
	if err != nil || len(diags) != 0 || len(loaded) != 1 {
		t.Fatalf("report dir: %v %v %d", err, diags, len(loaded))
	}
	if r := loaded[0].Report; r.Category != "conformance" || r.Status != reports.StatusPassing {
		t.Errorf("report category %q status %q", r.Category, r.Status)
	}
}

func TestCLIExitsNonZeroOnFailure(t *testing.T) {
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Faults: []string{"jsonrpc/id-string"}}).Handler())
	defer ts.Close()
	var out, errb bytes.Buffer
	code := run([]string{"-url", ts.URL + "/mcp", "-run", "^jsonrpc/id-string$", "-timeout", "3s"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	for _, want := range []string{"== MUST failures", "FAIL jsonrpc/id-string", "exchange:", "> {\"jsonrpc\":\"2.0\",\"id\":\"42\""} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "fail") {
		t.Errorf("no plain progress lines on a non-terminal stderr:\n%s", errb.String())
	}
}

func TestCLIUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-url", "http://x", "-stdio", "y"},
		{"-url", "http://x", "-run", "("},
		{"-url", "http://x", "-header", "nocolon"},
		{"-url", "http://x", "-binding", "nope"},
		{"-url", "http://x", "-revision", "1999-01-01"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node server.mjs -stdio`: {"node", "server.mjs", "-stdio"},
		`sh -c 'echo "a b"'`:     {"sh", "-c", `echo "a b"`},
		`a\ b "c d" ''`:          {"a b", "c d", ""},
		`  go   run ./x  `:       {"go", "run", "./x"},
	} {
		got, err := splitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`"open`, `trailing\`, `   `} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q) accepted", bad)
		}
	}
}

func TestCLIHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"-url URL", "-stdio 'CMD'", "-sse URL", "What it does to the server", "readonly (default)", "Examples:", "-call-tools", "Exit status"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("-h does not mention %q:\n%s", want, errb.String())
		}
	}
}

func TestCLINoOrUnreachableTargetIsOneLine(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	// A web server with no MCP endpoint at the path (a wrong -url).
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-url"},
		{[]string{"-url", closed, "-timeout", "2s"}, "cannot reach the server (-url)"},
		{[]string{"-url", web.URL + "/", "-timeout", "2s"}, "no JSON-RPC response (HTTP 404"},
		{[]string{"-stdio", "/nonexistent/mcp-server"}, "cannot reach the server (-stdio)"},
		// A process that starts but never answers initialize.
		{[]string{"-stdio", "sleep 30", "-timeout", "1s"}, "initialize: timed out after 1 s (try -timeout)"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, errb.String(), out.String(), tc.want)
		}
	}
}

func TestProgressShowsTheRunningCheck(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true)
	p.started("2025-11-25", "http/resume")
	p.started("2025-11-25", "tools/call-result")
	p.finished(1, 10, conformance.CheckResult{ID: "http/resume", Revision: "2025-11-25", Outcome: conformance.Pass})
	lines := strings.Split(b.String(), "\r\033[K")
	if last := lines[len(lines)-1]; last != "[1/10] running 2025-11-25 tools/call-result" {
		t.Errorf("terminal line %q, want the check still running", last)
	}
	if !strings.Contains(b.String(), "running 2025-11-25 http/resume (+1 more)") {
		t.Errorf("no line named the first check while it ran: %q", b.String())
	}
}

func TestCLIAdviceFailsOnlyWhenStrict(t *testing.T) {
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Faults: []string{"jsonrpc/duplicate-member"}}).Handler())
	defer ts.Close()
	for _, strict := range []bool{false, true} {
		args := []string{"-url", ts.URL + "/mcp", "-run", "^jsonrpc/duplicate-member$", "-timeout", "3s"}
		want := 0
		if strict {
			args, want = append(args, "-strict"), 1
		}
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != want {
			t.Errorf("strict=%v: exit %d, want %d\n%s", strict, code, want, out.String())
		}
		if !strings.Contains(out.String(), "== ADVICE") || !strings.Contains(out.String(), "FAIL jsonrpc/duplicate-member [ADVICE") {
			t.Errorf("strict=%v: the advice failure is not listed under ADVICE:\n%s", strict, out.String())
		}
	}
}

// TestCLIOutputsCarryTheGroupedResults: a MUST failure, a check the suite
// could not judge and an ADVICE failure appear in the summary under their
// groups, and -json, -junit and -report carry each with its severity and
// the exchange that shows it.
func TestCLIOutputsCarryTheGroupedResults(t *testing.T) {
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Faults: []string{"jsonrpc/id-string", "jsonrpc/duplicate-member"},
		Quirks: []string{"stall-prompts-get"}}).Handler())
	defer ts.Close()
	dir := t.TempDir()
	ids := map[string]struct{ severity, outcome, group string }{
		"jsonrpc/id-string":        {"MUST", "fail", "== MUST failures"},
		"prompts/get":              {"MUST", "not-testable", "== Not testable"},
		"jsonrpc/duplicate-member": {"ADVICE", "fail", "== ADVICE"},
	}
	args := []string{"-url", ts.URL + "/mcp", "-revision", conformance.Rev20251125, "-timeout", "2s",
		"-run", "^(jsonrpc/id-string|prompts/get|jsonrpc/duplicate-member)$",
		"-json", filepath.Join(dir, "r.json"), "-junit", filepath.Join(dir, "r.xml"), "-report", filepath.Join(dir, "reports")}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	summary := out.String()
	for id, w := range ids {
		g := strings.Index(summary, w.group)
		c := strings.Index(summary, " "+id+" [")
		if g < 0 || c < g {
			t.Errorf("summary does not list %s under %q:\n%s", id, w.group, summary)
		}
	}

	var res struct {
		Checks []struct{ ID, Outcome, Severity, Exchange string }
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || json.Unmarshal(data, &res) != nil {
		t.Fatalf("JSON output unreadable: %v", err)
	}
	seen := 0
	for _, cr := range res.Checks {
		w, ok := ids[cr.ID]
		if !ok {
			continue
		}
		seen++
		if cr.Outcome != w.outcome || cr.Severity != w.severity || !strings.Contains(cr.Exchange, `"method":`) {
			t.Errorf("JSON %s: outcome %q severity %q exchange %q; want %s, %s and the exchange", cr.ID, cr.Outcome, cr.Severity, cr.Exchange, w.outcome, w.severity)
		}
	}
	if seen != len(ids) {
		t.Errorf("JSON output has %d of the %d checks", seen, len(ids))
	}

	var junit struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, _ = os.ReadFile(filepath.Join(dir, "r.xml"))
	if err := xml.Unmarshal(data, &junit); err != nil || len(junit.Suites) != 1 {
		t.Fatalf("JUnit output: %v", err)
	}
	for _, jc := range junit.Suites[0].Cases {
		w, ok := ids[jc.Name]
		if !ok {
			continue
		}
		msg, body := "", ""
		switch {
		case w.severity == "ADVICE" && jc.Skipped != nil:
			msg, body = jc.Skipped.Message, jc.Skipped.Body
		case w.severity != "ADVICE" && jc.Failure != nil:
			msg, body = jc.Failure.Message, jc.Failure.Body
		default:
			t.Errorf("JUnit %s: neither the failure nor the skip wanted (%+v)", jc.Name, jc)
			continue
		}
		if !strings.Contains(msg, w.severity) || !strings.Contains(body, "exchange:") || !strings.Contains(body, `"method":`) {
			t.Errorf("JUnit %s: message %q body %q; want the severity and the exchange", jc.Name, msg, body)
		}
	}

	loaded, diags, err := reports.LoadDir(filepath.Join(dir, "reports"))
	if err != nil || len(diags) != 0 || len(loaded) != 1 {
		t.Fatalf("report dir: %v %v %d", err, diags, len(loaded))
	}
	rows := map[string][]string{}
	for _, sec := range loaded[0].Report.Sections {
		if sec.Title != "Failures and warnings" {
			continue
		}
		for _, r := range sec.Rows {
			var cells []string
			for _, v := range r {
				cells = append(cells, v.String())
			}
			rows[cells[0]] = cells
		}
	}
	for id, w := range ids {
		r := rows[id]
		if r == nil {
			t.Errorf("report: %s is not among the failures and warnings (%v)", id, rows)
			continue
		}
		if !strings.Contains(r[2], "exchange:") || !strings.HasPrefix(r[3], w.severity+":") {
			t.Errorf("report %s: message %q spec %q; want the exchange and the severity", id, r[2], r[3])
		}
	}
	if st := loaded[0].Report.Status; st != reports.StatusFailing {
		t.Errorf("report status %q, want failing", st)
	}
}

// TestCLIRunThatCannotStartIsShort: a server that answers initialize with an
// error is reachable (exit 1, its answer is a verdict), but the checks that
// could not run because of it are one line of the summary, not a hundred.
func TestCLIRunThatCannotStartIsShort(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if len(req.ID) == 0 {
			req.ID = json.RawMessage("null")
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"server misconfigured"}}`, req.ID)
	}))
	defer ts.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"-url", ts.URL + "/mcp", "-timeout", "2s"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	summary := out.String()
	if !strings.Contains(summary, `checks under 2025-11-25: initialize answered error -32603 "server misconfigured" (the run could not start`) {
		t.Errorf("the summary does not count the checks that could not start on one line:\n%s", summary)
	}
	if n := strings.Count(summary, "\nNOT-TESTABLE "); n > 0 || strings.Count(summary, "\n") > 40 {
		t.Errorf("%d not-testable checks printed one by one, %d lines:\n%s", n, strings.Count(summary, "\n"), summary)
	}
	if strings.Contains(summary, "initialize: initialize") {
		t.Errorf("the reason repeats itself:\n%s", summary)
	}
}
