// Command everything-server is an MCP server that exposes every fixture the official
// MCP conformance suite (npm @modelcontextprotocol/conformance) calls for in its
// server scenarios: tools with text, image, audio, embedded-resource and mixed
// content, an error-returning tool, progress, logging, sampling and elicitation tools
// (including the SEP-1034 defaults and SEP-1330 enum forms), an SSE-polling tool, a
// JSON Schema 2020-12 tool, static and templated resources, a subscribable resource,
// prompts with arguments, embedded resources and images, and completion.
//
// It is written against the public API of package mcp only, as any user of the
// library would write a server.
//
// Usage:
//
//	everything-server -http 127.0.0.1:3000         # Streamable HTTP at /mcp
//	everything-server -http 127.0.0.1:3000 -stateless
//	everything-server -stdio                       # newline-delimited JSON on stdin/stdout
//
// With -http and port 0 the server picks a free port and prints the endpoint URL
// ("listening on http://127.0.0.1:PORT/mcp") on stderr.
//
// Run the official suite against it (Node 22):
//
//	npx @modelcontextprotocol/conformance@0.1.16 server --url http://127.0.0.1:3000/mcp --suite all
//
// or use .ci/official-suite.sh, which installs Node 22 and both suite versions and
// runs everything.
package main
