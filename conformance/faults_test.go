package conformance_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/conformance"
	"github.com/wiremcp/wiremcp/conformance/internal/faultserver"
)

// TestMain lets the test binary double as the stdio fault server.
func TestMain(m *testing.M) {
	if os.Getenv("FAULTSERVER_STDIO") == "1" {
		var faults []string
		if f := os.Getenv("FAULTSERVER_FAULTS"); f != "" {
			faults = strings.Split(f, ",")
		}
		var quirks []string
		if q := os.Getenv("FAULTSERVER_QUIRKS"); q != "" {
			quirks = strings.Split(q, ",")
		}
		srv := faultserver.New(faultserver.Options{Faults: faults, Quirks: quirks, Reports: os.Getenv("FAULTSERVER_REPORTS") == "1"})
		switch err := srv.ServeStdio(os.Stdin, os.Stdout); err {
		case nil:
			os.Exit(0)
		case faultserver.ErrHang:
			select {} // the suite kills us
		default:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	os.Exit(m.Run())
}

// fixture is a running fault server reachable over one transport.
type fixture struct {
	target conformance.Target
	close  func()
}

func startFixture(t *testing.T, tr conformance.Transport, faults []string, reports bool) fixture {
	t.Helper()
	if tr == conformance.Stdio {
		env := append(os.Environ(), "FAULTSERVER_STDIO=1", "FAULTSERVER_FAULTS="+strings.Join(faults, ","))
		if reports {
			env = append(env, "FAULTSERVER_REPORTS=1")
		}
		return fixture{target: conformance.Target{Command: []string{os.Args[0], "-test.run=^$"}, Env: env}, close: func() {}}
	}
	srv := faultserver.New(faultserver.Options{Faults: faults, Reports: reports})
	ts := httptest.NewServer(srv.Handler())
	f := fixture{close: ts.Close}
	if tr == conformance.SSE {
		f.target.SSEURL = ts.URL + "/sse"
	} else {
		f.target.URL = ts.URL + "/mcp"
	}
	return f
}

// placement picks the transport and revision a check is proven on.
func placement(ch *conformance.Check) (conformance.Transport, string) {
	tr := conformance.HTTP
	switch {
	case ch.Transports == 0 || ch.Transports&conformance.HTTP != 0:
	case ch.Transports&conformance.Stdio != 0:
		tr = conformance.Stdio
	default:
		tr = conformance.SSE
	}
	for _, rev := range []string{conformance.Rev20251125, conformance.Rev20260728, conformance.Rev20250618, conformance.Rev20250326, conformance.Rev20241105} {
		if ch.AppliesTo(rev, tr) {
			return tr, rev
		}
	}
	return tr, conformance.Rev20251125
}

// naOnCorrectServer lists checks whose prerequisite the correct fault
// server deliberately lacks.
var naOnCorrectServer = map[string]bool{
	"lifecycle/undeclared-capability": true,
}

// slowExchanges gives checks whose faulty server takes long to answer (it
// reads and parses a 16 MiB or a 4 MiB body, slowly under the race detector and
// slower still on a loaded machine) a longer exchange limit: a timeout is not
// testable, never the failure the proof wants.
var slowExchanges = map[string]time.Duration{
	"http/body-limit":           20 * time.Second,
	"jsonrpc/oversized-message": 20 * time.Second,
}

func runOne(t *testing.T, ch *conformance.Check, faults []string) conformance.CheckResult {
	t.Helper()
	tr, rev := placement(ch)
	f := startFixture(t, tr, faults, ch.Binding != "")
	defer f.close()
	timeout := 3 * time.Second
	if d, ok := slowExchanges[ch.ID]; ok {
		timeout = d
	}
	opts := &conformance.Options{Revision: rev, Run: regexp.MustCompile("^" + regexp.QuoteMeta(ch.ID) + "$"), Timeout: timeout,
		CallTools: conformance.CallAll}
	if ch.Binding != "" {
		opts.Bindings = []string{ch.Binding}
	}
	res, err := conformance.CheckServer(context.Background(), f.target, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, cr := range res.Checks {
		if cr.ID == ch.ID {
			return cr
		}
	}
	t.Fatalf("check %s did not run", ch.ID)
	return conformance.CheckResult{}
}

// TestEveryCheckHasAFault keeps the registry and the fault server in step.
func TestEveryCheckHasAFault(t *testing.T) {
	ids := map[string]bool{}
	for _, ch := range conformance.Checks() {
		ids[ch.ID] = true
		if _, ok := faultserver.Faults[ch.ID]; !ok {
			t.Errorf("check %s has no fault in faultserver.Faults", ch.ID)
		}
	}
	for f := range faultserver.Faults {
		if !ids[f] {
			t.Errorf("fault %s names no registered check", f)
		}
	}
}

// TestEachCheckCatchesItsFault proves every check: it passes against the
// correct server and fails against the server with its fault switched on.
func TestEachCheckCatchesItsFault(t *testing.T) {
	for _, ch := range conformance.Checks() {
		t.Run(ch.ID, func(t *testing.T) {
			t.Parallel()
			good := runOne(t, ch, nil)
			want := conformance.Pass
			if naOnCorrectServer[ch.ID] {
				want = conformance.NotApplicable
			}
			if good.Outcome != want {
				t.Errorf("correct server: %s (%s), want %s; evidence: %v", good.Outcome, good.Detail, want, good.Evidence)
			}
			bad := runOne(t, ch, []string{ch.ID})
			if bad.Outcome != conformance.Fail {
				t.Errorf("server with fault %q: %s (%s), want fail", ch.ID, bad.Outcome, bad.Detail)
			} else {
				t.Logf("caught: %s", bad.Detail)
			}
		})
	}
}

// TestCorrectServerAllRevisions runs the whole suite over each transport
// and every revision: nothing may fail.
func TestCorrectServerAllRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("full run skipped in -short mode")
	}
	before := runtime.NumGoroutine()
	// The transports run in parallel inside one group, so that the
	// goroutine count is taken after all of them and before any other test.
	t.Run("transports", func(t *testing.T) {
		for _, tr := range []conformance.Transport{conformance.HTTP, conformance.SSE, conformance.Stdio} {
			runCorrectServer(t, tr)
		}
	})
	checkGoroutines(t, before)
}

func runCorrectServer(t *testing.T, tr conformance.Transport) {
	t.Run(tr.String(), func(t *testing.T) {
		t.Parallel()
		f := startFixture(t, tr, nil, true)
		defer f.close()
		// A correct server answers at once: the generous limit only keeps a
		// loaded machine from turning a slow answer into a not-testable verdict.
		res, err := conformance.CheckServer(context.Background(), f.target, &conformance.Options{Revision: conformance.RevisionAll, Bindings: []string{"reports"}, Timeout: 20 * time.Second,
			CallTools: conformance.CallAll})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Counts()
		t.Logf("%s: %d pass, %d fail, %d n/a, %d not testable", tr, c.Pass, c.Fail, c.NotApplicable, c.NotTestable)
		if res.FailedStrict() {
			var b strings.Builder
			res.WriteSummary(&b)
			t.Errorf("the correct server failed checks:\n%s", b.String())
		}
		if c.Pass == 0 {
			t.Errorf("nothing passed")
		}
	})
}

// TestNegotiatedRunUsesTestingT exercises Run with a negotiated revision.
func TestNegotiatedRunUsesTestingT(t *testing.T) {
	t.Parallel()
	f := startFixture(t, conformance.HTTP, nil, false)
	defer f.close()
	// A correct server answers at once: the generous limit only keeps a loaded
	// machine from turning a slow answer (the 4 MiB message under -race) into a
	// not-testable verdict, which Run reports as a failure.
	conformance.Run(t, f.target, &conformance.Options{Run: regexp.MustCompile(`^(jsonrpc|stateless)/`), Timeout: 20 * time.Second})
}

// checkGoroutines fails when goroutines started by the suite outlive it.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if runtime.NumGoroutine() <= before+2 {
			return
		}
		<-tick.C
	}
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	stacks := strings.Split(string(buf[:n]), "\n\n")
	sort.Strings(stacks)
	t.Errorf("goroutines leaked: %d before, %d after\n%s", before, runtime.NumGoroutine(), strings.Join(stacks, "\n\n"))
}
