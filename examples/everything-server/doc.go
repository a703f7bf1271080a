// Command everything-server is an MCP server that exposes every fixture the official
// MCP conformance suite (npm @modelcontextprotocol/conformance) calls for in its
// server scenarios: tools with text, image, audio, embedded-resource and mixed
// content, an error-returning tool, progress, logging, sampling and elicitation tools
// (including the SEP-1034 defaults and SEP-1330 enum forms), an SSE-polling tool, a
// JSON Schema 2020-12 tool, static and templated resources, a subscribable resource,
// prompts with arguments, embedded resources and images, and completion.
//
// It is dual-era: the same process and endpoint serve initialize-era sessions
// (2024-11-05 to 2025-11-25) and 2026-07-28 requests, which carry their revision and
// capabilities in _meta. The 2026-07-28 fixtures (modern.go) are the
// test_input_required_result_* tools and prompt, whose one handler asks an
// initialize-era client with elicitation/create, sampling/createMessage or roots/list
// and answers a 2026-07-28 client with an input_required result; the diagnostic tools
// test_missing_capability, test_streaming_elicitation and test_logging_tool; the
// list-change and resource-update triggers (test_trigger_*) for subscriptions/listen
// and initialize-era sessions; and test_header_params, whose region
// argument travels in the Mcp-Param-Region header (x-mcp-header). The tasks extension
// fixtures (tasks.go: greet, slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input, test_tool_with_task) run as tasks in both eras.
//
// It is written against the public API of package mcp only, as any user of the
// library would write a server.
//
// Usage:
//
//	everything-server -http 127.0.0.1:3000         # Streamable HTTP at /mcp, HTTP+SSE at /sse
//	everything-server -http 127.0.0.1:3000 -stateless
//	everything-server -stdio                       # newline-delimited JSON on stdin/stdout
//
// With -http the same listener also serves the legacy HTTP+SSE transport of
// 2024-11-05 at /sse (GET opens the event stream; its "endpoint" event names
// /sse?sessionId=… for POSTs), with the same Origin and Host checks as /mcp. It is
// stateful whatever -stateless says: that transport has no stateless form.
//
// With -http and port 0 the server picks a free port and prints the endpoint URL
// ("listening on http://127.0.0.1:PORT/mcp") on stderr.
//
// Check it with this repository's own suite over every transport and revision:
//
//	go run ./conformance/cmd/mcp-conformance -url http://127.0.0.1:3000/mcp -revision all
//	go run ./conformance/cmd/mcp-conformance -sse http://127.0.0.1:3000/sse -revision all
//	go run ./conformance/cmd/mcp-conformance -stdio 'everything-server -stdio' -revision all
//
// (.ci/conformance.sh does all of this).
//
// Run the official suite against it (Node 22):
//
//	npx @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url http://127.0.0.1:3000/mcp --requirements 2025-11-25
//	npx @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url http://127.0.0.1:3000/mcp --requirements 2026-07-28
//
// or use .ci/official-suite.sh, which installs Node 22 and both suite versions and
// runs everything.
package main
