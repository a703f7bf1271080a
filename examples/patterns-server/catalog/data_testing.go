package catalog

func testingPatterns() []Pattern {
	return []Pattern{
		{
			ID: "table-driven-tests", Title: "Table-driven tests", Category: Testing, Difficulty: Beginner,
			Tags:        []string{"testing", "subtests", "table", "unit-tests"},
			Description: "Describe each test case as a row in a slice of structs with a name, the inputs and the expected output, then loop over the rows running each as a named subtest. Adding a case is one line and failures say which case broke.",
			UseWhen:     []string{"One function is checked against many inputs", "Cases differ only in data, not in steps"},
			AvoidWhen:   []string{"Cases need very different setup or assertions: write separate tests"},
			Sections: howAndPitfalls(
				"for _, tc := range tests { t.Run(tc.name, func(t *testing.T) { ... }) }. Report got and want together in failures.",
				"Tables with many optional fields and flags grow into a second program; split them when the loop body starts branching."),
			Related: []string{"parallel-subtests", "test-helpers"},
		},
		{
			ID: "parallel-subtests", Title: "Parallel subtests", Category: Testing, Difficulty: Intermediate,
			Tags:        []string{"testing", "subtests", "parallel", "concurrency"},
			Description: "Call t.Parallel in subtests that do not share mutable state so they run concurrently with each other, which shortens slow suites and exposes data races under -race.",
			UseWhen:     []string{"Subtests are independent and slow (I/O, sleeps, servers)", "You want -race to exercise concurrent use"},
			AvoidWhen:   []string{"Tests mutate globals, environment variables or the working directory"},
			Sections: howAndPitfalls(
				"Inside t.Run call t.Parallel first; the parent returns only after all parallel subtests finish, so cleanup registered with t.Cleanup on the parent runs after them.",
				"t.Setenv and t.Chdir panic in parallel tests. Since Go 1.22 each loop iteration has its own variable, so capturing tc is safe."),
			Related: []string{"table-driven-tests"},
		},
		{
			ID: "test-helpers", Title: "Test helpers with t.Helper and t.Cleanup", Category: Testing, Difficulty: Beginner,
			Tags:        []string{"testing", "helpers", "cleanup", "fixtures"},
			Description: "Move repeated setup into helper functions that take testing.TB, call t.Helper so failures point at the caller, and register teardown with t.Cleanup instead of returning a close function.",
			UseWhen:     []string{"Several tests need the same fixture", "Setup must be undone even when the test fails"},
			AvoidWhen:   []string{"The helper hides the very thing the test is checking"},
			Sections: howAndPitfalls(
				"func newStore(t testing.TB) *Store { t.Helper(); s := open(t.TempDir()); t.Cleanup(func(){ s.Close() }); return s }.",
				"Helpers should fail with t.Fatal themselves rather than return errors every caller must check."),
			Related: []string{"table-driven-tests", "golden-files"},
		},
		{
			ID: "golden-files", Title: "Golden files", Category: Testing, Difficulty: Intermediate,
			Tags:        []string{"testing", "testdata", "snapshots", "update-flag"},
			Description: "Compare large outputs such as rendered text or generated code with a file under testdata, and regenerate the file with a -update flag when the change is intended, so reviewers see the diff.",
			UseWhen:     []string{"Output is large or structured and awkward to write inline", "Changes to output should be reviewed as diffs"},
			AvoidWhen:   []string{"Output includes timestamps or map order you have not normalised"},
			Sections: howAndPitfalls(
				"A package-level flag.Bool(\"update\", ...) decides whether the test writes the golden file or reads and compares it.",
				"Running -update blindly accepts regressions; review the diff before committing."),
			Related: []string{"test-helpers"},
		},
		{
			ID: "fake-dependencies", Title: "Fakes behind small interfaces", Category: Testing, Difficulty: Intermediate,
			Tags:        []string{"testing", "interfaces", "fakes", "mocks", "dependency-injection"},
			Description: "Let the code under test depend on a small interface defined where it is used, then pass a hand-written fake in tests that records calls and returns canned answers, with no mocking framework.",
			UseWhen:     []string{"The real dependency is slow, remote or non-deterministic", "You want to assert how the dependency was used"},
			AvoidWhen:   []string{"A real, fast implementation exists (an in-memory store, httptest): prefer it"},
			Sections: howAndPitfalls(
				"Define type clock interface{ Now() time.Time } in the consumer package; production passes the real one, tests pass a struct with a fixed time.",
				"Fakes drift from the real behaviour; back them with contract tests run against both."),
			Related: []string{"small-interfaces", "dependency-injection"},
		},
		{
			ID: "httptest-server", Title: "Testing HTTP with httptest", Category: Testing, Difficulty: Intermediate,
			Tags:        []string{"testing", "http", "httptest", "handlers"},
			Description: "Exercise handlers directly with httptest.NewRecorder, or start a real loopback server with httptest.NewServer to test clients end to end, without binding fixed ports or touching the network.",
			UseWhen:     []string{"Testing an http.Handler's status codes, headers and bodies", "Testing a client against a fake remote API"},
			AvoidWhen:   []string{"The logic can be tested without HTTP at all: test the function, not the transport"},
			Sections: howAndPitfalls(
				"NewRecorder captures what a handler writes; NewServer listens on 127.0.0.1 with a random port and Close shuts it down.",
				"Forgetting srv.Close leaks goroutines; use t.Cleanup(srv.Close)."),
			Related: []string{"http-handler-func", "json-api-handler"},
		},
		{
			ID: "fuzz-testing", Title: "Native fuzz tests", Category: Testing, Difficulty: Advanced,
			Tags:        []string{"testing", "fuzzing", "parsers", "robustness"},
			Description: "Write a FuzzXxx function that feeds generated inputs to code and checks invariants such as round-tripping or not panicking; seed it with f.Add and keep crashers in testdata/fuzz as regression cases.",
			UseWhen:     []string{"Parsing or decoding untrusted input", "A property holds for all inputs (encode then decode is the identity)"},
			AvoidWhen:   []string{"There is no invariant to check beyond 'does not crash' and the code does no parsing"},
			Sections: howAndPitfalls(
				"go test runs only the seeds; go test -fuzz=FuzzXxx explores new inputs and minimises any failure into testdata/fuzz/FuzzXxx.",
				"Fuzz targets must be deterministic and fast; avoid network, sleeps and global state."),
			Related: []string{"table-driven-tests"},
		},
		{
			ID: "benchmark-loop", Title: "Benchmarks with b.Loop", Category: Testing, Difficulty: Intermediate,
			Tags:        []string{"testing", "benchmarks", "performance", "allocations"},
			Description: "Measure with a BenchmarkXxx function whose timed body runs inside for b.Loop(), which keeps setup out of the timing and stops the compiler from optimising the work away; report allocations with b.ReportAllocs.",
			UseWhen:     []string{"Comparing two implementations", "Guarding a hot path against allocation regressions"},
			AvoidWhen:   []string{"Measuring end-to-end latency under load: use a load tool"},
			Sections: howAndPitfalls(
				"Setup before the loop is excluded automatically with b.Loop (Go 1.24). Compare runs with benchstat over several -count runs.",
				"Benchmarks on a busy machine are noisy; never trust one run."),
			Related: []string{"preallocate-slices", "sync-pool-buffers"},
		},
		{
			ID: "synctest-time", Title: "Testing time with testing/synctest", Category: Testing, Difficulty: Advanced,
			Tags:        []string{"testing", "time", "concurrency", "synctest", "deterministic"},
			Description: "Run code that sleeps, uses timers or waits on goroutines inside synctest.Test, where time is virtual and advances only when every goroutine in the bubble is blocked, so timeouts are tested instantly and deterministically.",
			UseWhen:     []string{"Testing timeouts, tickers, retries or expiry", "Tests currently rely on real sleeps"},
			AvoidWhen:   []string{"The code waits on real I/O such as network sockets, which do not count as durably blocked"},
			Sections: howAndPitfalls(
				"synctest.Test(t, func(t *testing.T){ ... }) starts a bubble; time.Sleep inside returns as soon as everything else is blocked; synctest.Wait waits for the bubble to settle.",
				"Channels created outside the bubble must not be used inside it. Requires Go 1.25."),
			Related: []string{"select-timeout", "retry-backoff"},
		},
	}
}
