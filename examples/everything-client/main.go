// Command everything-client is the client fixture of the official MCP conformance
// suite (npm @modelcontextprotocol/conformance). The suite starts it once per client
// scenario with the mock server's URL as the last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO; the program performs that scenario's flow with package mcp
// and exits 0 when the flow completed. The revision to speak comes from
// MCP_CONFORMANCE_PROTOCOL_VERSION (ClientOptions.ProtocolVersion; unset: the client
// probes).
//
// Scenarios without OAuth: on the 2025-11-25 wire initialize,
// elicitation-sep1034-client-defaults (also under the reference client's name
// elicitation-defaults), sse-retry and json-schema-2020-12-preservation; on the
// 2026-07-28 wire request-metadata, sep-2322-client-request-state,
// http-standard-headers, http-custom-headers (its tool calls come from
// MCP_CONFORMANCE_CONTEXT), http-invalid-tool-headers and json-schema-ref-no-deref;
// tools_call on both. The OAuth scenarios (auth/..., auth.go) authorize through
// package auth's Transport, driving the mock authorization server headlessly; the
// pre-registration and client-credentials scenarios take their credentials from
// MCP_CONFORMANCE_CONTEXT. An unknown scenario exits with status 2.
//
// Run one by hand (Node 22):
//
//	go build -o /tmp/everything-client ./examples/everything-client
//	npx @modelcontextprotocol/conformance@0.2.0-alpha.12 client \
//	    --command /tmp/everything-client --scenario tools_call --spec-version 2025-11-25
//
// Only this program reads the suite's environment variables; the library never looks
// at them.
package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// scenarioTimeout bounds a whole scenario; the suite itself kills the process after 30 s.
const scenarioTimeout = 25 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: everything-client URL   (scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	run, ok := scenarios[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "everything-client: unknown scenario %q\n", name)
		os.Exit(2)
	}
	protocolVersion = os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	conformanceContext = os.Getenv("MCP_CONFORMANCE_CONTEXT")
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	if err := run(ctx, url); err != nil {
		fmt.Fprintf(os.Stderr, "everything-client: %s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "everything-client: %s: done\n", name)
}
