package conformance_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/conformance"
	"github.com/wiremcp/wiremcp/conformance/internal/faultserver"
)

// runQuirk runs the checks matching re over Streamable HTTP under
// 2025-11-25 against a correct fault server with quirks switched on.
func runQuirk(t *testing.T, quirks []string, re string, opts conformance.Options) *conformance.Result {
	t.Helper()
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Quirks: quirks, Reports: true}).Handler())
	defer ts.Close()
	if opts.Revision == "" {
		opts.Revision = conformance.Rev20251125
	}
	if opts.Timeout == 0 {
		opts.Timeout = 3 * time.Second
	}
	opts.Run = regexp.MustCompile(re)
	res, err := conformance.CheckServer(context.Background(), conformance.Target{URL: ts.URL + "/mcp"}, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func outcomeOf(t *testing.T, res *conformance.Result, id string) conformance.CheckResult {
	t.Helper()
	for _, cr := range res.Checks {
		if cr.ID == id {
			return cr
		}
	}
	t.Fatalf("check %s did not run", id)
	return conformance.CheckResult{}
}

// TestSlowToolDrivenShort: checks that pick a slow tool with an optional
// duration defaulting to more than the exchange limit ask it for a short
// one, and pass, instead of timing out (false failures seen against
// server-everything's trigger-long-running-operation).
func TestSlowToolDrivenShort(t *testing.T) {
	t.Parallel()
	ids := []string{"utilities/progress-token", "utilities/progress-increasing", "http/sse-response", "http/sse-priming", "http/event-id-unique"}
	res := runQuirk(t, []string{"slow-default-duration"}, "^("+strings.Join(ids, "|")+")$", conformance.Options{Timeout: 2 * time.Second})
	for _, id := range ids {
		if cr := outcomeOf(t, res, id); cr.Outcome != conformance.Pass {
			t.Errorf("%s: %s (%s), want pass; evidence %v", id, cr.Outcome, cr.Detail, cr.Evidence)
		}
	}
	if !slices.Contains(res.ToolsCalled, "long_operation") {
		t.Errorf("long_operation was not called (called: %v): the test proves nothing", res.ToolsCalled)
	}
}

// TestTimeoutIsNotTestable: an exchange that outlasts -timeout makes the
// check not testable with a hint, never a failure.
func TestTimeoutIsNotTestable(t *testing.T) {
	t.Parallel()
	res := runQuirk(t, []string{"stall-prompts-get"}, "^prompts/get$", conformance.Options{Timeout: time.Second})
	cr := outcomeOf(t, res, "prompts/get")
	if cr.Outcome != conformance.NotTestable || !strings.Contains(cr.Detail, "timed out after 1 s (try -timeout)") {
		t.Errorf("prompts/get: %s (%s), want not-testable naming the time limit", cr.Outcome, cr.Detail)
	}
	if !strings.Contains(cr.Exchange, `"method":"prompts/get"`) {
		t.Errorf("the exchange does not show the request that timed out: %q", cr.Exchange)
	}
}

// TestRefusedPromptArgumentsTryAnother: a prompt that refuses the
// arguments the suite made up (with any error code) is not held against
// the server; the suite judges another prompt.
func TestRefusedPromptArgumentsTryAnother(t *testing.T) {
	t.Parallel()
	res := runQuirk(t, []string{"strict-prompt-args"}, "^prompts/get$", conformance.Options{})
	cr := outcomeOf(t, res, "prompts/get")
	if cr.Outcome != conformance.Pass {
		t.Fatalf("prompts/get: %s (%s), want pass; evidence %v", cr.Outcome, cr.Detail, cr.Evidence)
	}
	if !strings.Contains(strings.Join(cr.Evidence, "\n"), `"greet"`) {
		t.Errorf("the refusal of greet's made-up arguments is not noted: %v", cr.Evidence)
	}
}

// TestDeleteMessageSaysWhatWasSeen: a session ended by DELETE whose id then
// gets 400 fails with a message that says so, not that it still works.
func TestDeleteMessageSaysWhatWasSeen(t *testing.T) {
	t.Parallel()
	res := runQuirk(t, []string{"delete-then-400"}, "^http/session-delete$", conformance.Options{})
	cr := outcomeOf(t, res, "http/session-delete")
	if cr.Outcome != conformance.Fail || !strings.Contains(cr.Detail, "got HTTP 400, want 404") || strings.Contains(cr.Detail, "still works") {
		t.Errorf("http/session-delete: %s (%s), want a failure saying HTTP 400 was seen and 404 wanted", cr.Outcome, cr.Detail)
	}
}

// TestToolPolicy: by default only read-only and fixture tools are called;
// -call-tools all adds the others (never destructive ones), none calls
// nothing. The result names what was called.
func TestToolPolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		policy          conformance.ToolPolicy
		want, forbidden []string
	}{
		{"", []string{"echo", "slow_compute"}, []string{"add", "REPORTS_UPDATE_STATUS", "task_job"}},
		{conformance.CallAll, []string{"echo", "add", "REPORTS_UPDATE_STATUS"}, nil},
		{conformance.CallNone, nil, []string{"echo", "add", "slow_compute", "REPORTS_LIST"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.policy)+"-policy", func(t *testing.T) {
			t.Parallel()
			res := runQuirk(t, nil, "^(tools|utilities|http|security|reports)/", conformance.Options{CallTools: tc.policy, Bindings: []string{"reports"}})
			for _, n := range tc.want {
				if !slices.Contains(res.ToolsCalled, n) {
					t.Errorf("%s was not called (called: %v)", n, res.ToolsCalled)
				}
			}
			for _, n := range tc.forbidden {
				if slices.Contains(res.ToolsCalled, n) {
					t.Errorf("%s was called (called: %v)", n, res.ToolsCalled)
				}
			}
			if tc.policy == conformance.CallNone && len(res.ToolsCalled) > 0 {
				t.Errorf("tools called with -call-tools none: %v", res.ToolsCalled)
			}
			if up := outcomeOf(t, res, "reports/update-status"); (tc.policy == conformance.CallAll) != (up.Outcome == conformance.Pass) {
				t.Errorf("reports/update-status under %q: %s (%s)", tc.policy, up.Outcome, up.Detail)
			}
			if res.FailedStrict() {
				t.Errorf("a correct server failed under policy %q", tc.policy)
			}
		})
	}
}

// TestUnreachableTarget: a target nobody listens on is one error wrapping
// ErrUnreachable, not a result full of failures.
func TestUnreachableTarget(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for _, target := range []conformance.Target{{URL: url}, {Command: []string{"/nonexistent/mcp-server"}}} {
		_, err := conformance.CheckServer(context.Background(), target, &conformance.Options{Timeout: 2 * time.Second})
		if !errors.Is(err, conformance.ErrUnreachable) {
			t.Errorf("%s: error %v, want ErrUnreachable", target, err)
		}
	}
}

// TestSilentServerCostsARoundTrip: over stdio a server that answers nothing
// to malformed messages is judged after a probe's round trip and a grace
// period, not after the whole exchange limit.
func TestSilentServerCostsARoundTrip(t *testing.T) {
	t.Parallel()
	const limit = 10 * time.Second
	env := append(os.Environ(), "FAULTSERVER_STDIO=1", "FAULTSERVER_QUIRKS=silent-on-invalid")
	target := conformance.Target{Command: []string{os.Args[0], "-test.run=^$"}, Env: env}
	res, err := conformance.CheckServer(context.Background(), target, &conformance.Options{Revision: conformance.Rev20251125,
		Run: regexp.MustCompile(`^jsonrpc/(invalid-request-no-version|parse-error)$`), Timeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"jsonrpc/invalid-request-no-version", "jsonrpc/parse-error"} {
		cr := outcomeOf(t, res, id)
		if cr.Outcome != conformance.Fail || !strings.Contains(cr.Detail, "no ") {
			t.Errorf("%s: %s (%s), want a failure for the missing answer", id, cr.Outcome, cr.Detail)
		}
		if time.Duration(cr.DurationMs)*time.Millisecond >= limit/2 {
			t.Errorf("%s took %d ms: the suite waited out the exchange limit", id, cr.DurationMs)
		}
	}
}

// TestLargeIDRefusalIsNotAFailure: a server whose parser cannot hold an
// integer id beyond 2^53 (a JavaScript one) and refuses the request with a
// null-id error passes; one that drops it unanswered over stdio is not
// judged by this check. Only an id that comes back changed fails (the
// float64 fault, in TestEachCheckCatchesItsFault).
func TestLargeIDRefusalIsNotAFailure(t *testing.T) {
	t.Parallel()
	res := runQuirk(t, []string{"refuse-large-id"}, "^jsonrpc/id-large-integer$", conformance.Options{})
	if cr := outcomeOf(t, res, "jsonrpc/id-large-integer"); cr.Outcome != conformance.Pass || !strings.Contains(cr.Detail, "RFC 8259") {
		t.Errorf("refused over HTTP: %s (%s), want pass noting the refusal", cr.Outcome, cr.Detail)
	}
	env := append(os.Environ(), "FAULTSERVER_STDIO=1", "FAULTSERVER_QUIRKS=refuse-large-id,silent-on-invalid")
	target := conformance.Target{Command: []string{os.Args[0], "-test.run=^$"}, Env: env}
	res, err := conformance.CheckServer(context.Background(), target, &conformance.Options{Revision: conformance.Rev20251125,
		Run: regexp.MustCompile(`^jsonrpc/id-large-integer$`), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if cr := outcomeOf(t, res, "jsonrpc/id-large-integer"); cr.Outcome != conformance.NotApplicable || !strings.Contains(cr.Detail, "unanswered") {
		t.Errorf("dropped over stdio: %s (%s), want not applicable saying it went unanswered", cr.Outcome, cr.Detail)
	}
}

// TestResumeFailureShowsTheResumingGET: when a resumed stream does not
// deliver the response, the exchange printed is the GET with Last-Event-ID
// and what came back, not the session's initialize.
func TestResumeFailureShowsTheResumingGET(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Faults: []string{"http/resume"}}).Handler())
	defer ts.Close()
	res, err := conformance.CheckServer(context.Background(), conformance.Target{URL: ts.URL + "/mcp"}, &conformance.Options{
		Revision: conformance.Rev20250618, Run: regexp.MustCompile(`^http/resume$`), Timeout: 2 * time.Second, CallTools: conformance.CallAll})
	if err != nil {
		t.Fatal(err)
	}
	cr := outcomeOf(t, res, "http/resume")
	if cr.Outcome != conformance.Fail {
		t.Fatalf("http/resume: %s (%s), want fail", cr.Outcome, cr.Detail)
	}
	if !strings.HasPrefix(cr.Exchange, "> GET | Last-Event-ID: ") || !strings.Contains(cr.Exchange, "< HTTP 200 text/event-stream") || strings.Contains(cr.Exchange, "initialize") {
		t.Errorf("the exchange does not show the resuming GET:\n%s", cr.Exchange)
	}
	if !strings.Contains(strings.Join(cr.Evidence, "\n"), "before the response; resuming with GET") {
		t.Errorf("the evidence does not say which stream was resumed: %v", cr.Evidence)
	}
}

// TestOriginRefusalStatusByRevision: a server that refuses a foreign Origin
// with 400 passes under revisions that name no status for the refusal and
// fails only from 2025-11-25, which requires 403; over the legacy SSE
// transport too.
func TestOriginRefusalStatusByRevision(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(faultserver.New(faultserver.Options{Quirks: []string{"origin-400"}}).Handler())
	defer ts.Close()
	for _, tc := range []struct {
		target conformance.Target
		id     string
		rev    string
		want   conformance.Outcome
	}{
		{conformance.Target{URL: ts.URL + "/mcp"}, "http/origin", conformance.Rev20250618, conformance.Pass},
		{conformance.Target{URL: ts.URL + "/mcp"}, "http/origin", conformance.Rev20251125, conformance.Fail},
		{conformance.Target{SSEURL: ts.URL + "/sse"}, "sse/origin", conformance.Rev20241105, conformance.Pass},
		{conformance.Target{SSEURL: ts.URL + "/sse"}, "sse/origin", conformance.Rev20251125, conformance.Fail},
	} {
		res, err := conformance.CheckServer(context.Background(), tc.target, &conformance.Options{Revision: tc.rev,
			Run: regexp.MustCompile("^" + tc.id + "$"), Timeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		cr := outcomeOf(t, res, tc.id)
		if cr.Outcome != tc.want {
			t.Errorf("%s under %s: %s (%s), want %s", tc.id, tc.rev, cr.Outcome, cr.Detail, tc.want)
		}
		if tc.want == conformance.Fail && !strings.Contains(cr.Detail, "HTTP 400, want 403") {
			t.Errorf("%s under %s: %q does not say what was seen and wanted", tc.id, tc.rev, cr.Detail)
		}
	}
}

// TestRefusedToolArgumentsTryAnother: tools that refuse the arguments the
// suite made up (a JSON-RPC error, or an isError result where a structured
// one is judged) are not held against the server: the suite judges another
// tool, or says it could not judge.
func TestRefusedToolArgumentsTryAnother(t *testing.T) {
	t.Parallel()
	res := runQuirk(t, []string{"strict-tool-args"}, "^tools/(call-result|structured-output|structured-text)$", conformance.Options{CallTools: conformance.CallAll})
	cr := outcomeOf(t, res, "tools/call-result")
	if cr.Outcome != conformance.Pass || !strings.Contains(strings.Join(cr.Evidence, "\n"), `"echo" with`) {
		t.Errorf("tools/call-result: %s (%s), want pass noting echo's refusal; evidence %v", cr.Outcome, cr.Detail, cr.Evidence)
	}
	for _, id := range []string{"tools/structured-output", "tools/structured-text"} {
		cr := outcomeOf(t, res, id)
		if cr.Outcome == conformance.Fail {
			t.Errorf("%s failed on refused made-up arguments: %s; evidence %v", id, cr.Detail, cr.Evidence)
		}
		if ev := strings.Join(cr.Evidence, "\n") + cr.Detail; !strings.Contains(ev, `"echo" with`) || !strings.Contains(ev, `"add" with`) {
			t.Errorf("%s: %s (%s): the refusals of echo and add are not noted: %v", id, cr.Outcome, cr.Detail, cr.Evidence)
		}
	}
}
