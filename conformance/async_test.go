package conformance_test

import (
	"context"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/conformance"
)

// TestAsyncChecksEverywhere proves the cancellation and resumption checks
// beyond the one placement TestEachCheckCatchesItsFault uses: cancellation
// over stdio and the legacy SSE transport, resumption under a revision
// without priming events (the first id comes with a progress notification).
func TestAsyncChecksEverywhere(t *testing.T) {
	cases := []struct {
		name, id, rev string
		tr            conformance.Transport
	}{
		{"cancel over stdio", "utilities/cancel-in-flight", conformance.Rev20250618, conformance.Stdio},
		{"cancel over legacy sse", "utilities/cancel-in-flight", conformance.Rev20241105, conformance.SSE},
		{"resume without priming", "http/resume", conformance.Rev20250618, conformance.HTTP},
		{"event ids without priming", "http/event-id-unique", conformance.Rev20250326, conformance.HTTP},
	}
	before := runtime.NumGoroutine()
	defer checkGoroutines(t, before)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				for _, faulty := range []bool{false, true} {
					var faults []string
					want := conformance.Pass
					if faulty {
						faults, want = []string{tc.id}, conformance.Fail
					}
					f := startFixture(t, tc.tr, faults, false)
					res, err := conformance.CheckServer(context.Background(), f.target, &conformance.Options{
						Revision: tc.rev, Run: regexp.MustCompile("^" + regexp.QuoteMeta(tc.id) + "$"), Timeout: 3 * time.Second, CallTools: conformance.CallAll})
					f.close()
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, cr := range res.Checks {
						if cr.ID != tc.id {
							continue
						}
						found = true
						if cr.Outcome != want {
							t.Errorf("faults %v: %s (%s), want %s; evidence %v", faults, cr.Outcome, cr.Detail, want, cr.Evidence)
						}
					}
					if !found {
						t.Fatalf("check %s did not run", tc.id)
					}
				}
			})
		}
	})
}
