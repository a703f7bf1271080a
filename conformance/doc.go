// Package conformance is an MCP conformance suite that talks to a server
// over the raw wire — Streamable HTTP, the legacy HTTP+SSE transport, or a
// stdio process — so that it can check what SDK clients hide: malformed
// JSON, member-name case, duplicate members, id types, HTTP status codes
// and headers, SSE framing and stdio framing. It has its own small wire
// clients on the standard library and shares no code with the wiremcp
// library it tests.
//
// Every check has an id ("area/name"), a one-line requirement, the revision
// range it applies to (2024-11-05 … 2026-07-28), the transports it applies
// to and a severity: MUST or SHOULD for rules of MCP or JSON-RPC, ADVICE
// for hardening the suite recommends without a rule behind it (its
// failures are reported apart; Result.Failed ignores them, FailedStrict
// and Run do not). Outcomes are pass, fail, not
// applicable (the server lacks the declared prerequisite), not testable
// (the suite could not judge: an exchange outlasted Options.Timeout, or the
// server refused every input the suite made up; it counts as a failure, so
// that a run that judged nothing is not green) and skipped (not selected).
// A failure carries the exchange behind it (Exchange: the last request and
// what came back).
//
// Checks run Options.Parallel at a time; those marked Serial (they change
// or watch state other checks could see) run alone afterwards.
//
// Use it from a test, one subtest per check:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Target{URL: srv.URL + "/mcp"}, &conformance.Options{
//			Revision: conformance.RevisionAll,
//		})
//	}
//
// or get a structured result:
//
//	res, err := conformance.CheckServer(ctx, conformance.Target{Command: []string{"./server", "-stdio"}}, nil)
//	if err == nil && res.Failed() {
//		res.WriteSummary(os.Stdout)
//	}
//
// The command mcp-conformance (in cmd/mcp-conformance) is a thin wrapper
// with JSON, JUnit and Reports-binding output.
//
// Checks that need data call the server's own tools with arguments
// generated from their input schemas, as Options.CallTools allows: by
// default (CallReadOnly) only tools annotated readOnlyHint: true and the
// official suite's fixture tools (FixtureTools), since MCP says a tool
// without annotations may be destructive; CallAll adds every tool not
// annotated destructiveHint: true; CallNone calls none. Result.ToolsCalled
// names the tools called. A duration-like argument (seconds, duration,
// delay, …ms) is set short, so a slow tool does not run for its default
// time; a JSON-RPC error answering made-up arguments is a refusal, not a
// failure, and the suite tries another candidate. Behaviour only the server
// can start — list changes, resource updates, a call slow enough to cancel
// or resume, input_required rounds, tasks — is provoked through the
// official conformance suite's fixture tools when the server lists them
// (test_trigger_tool_change, test_trigger_prompt_change, slow_compute,
// test_reconnection, test_input_required_result_*, …) and our
// test_trigger_resource_update {uri?} and test_trigger_resource_list_change,
// otherwise through tools found by name and schema; when neither exists the
// check is not applicable. Application-level
// contracts are plug-ins: a Binding contributes checks and is selected by
// name (the Reports binding is built in as "reports").
package conformance
