// Package faultserver is a deliberately breakable MCP server used to prove
// the conformance suite. It is written on raw JSON and the standard library
// only (it shares no code with the wiremcp library), serves stdio,
// Streamable HTTP (/mcp) and the legacy HTTP+SSE transport (/sse and
// /messages), and speaks every revision from 2024-11-05 to 2026-07-28.
//
// With no faults it conforms to every check of the suite. Each entry of
// Faults, keyed by a check id, switches on one misbehaviour that the check
// of that id must catch:
//
//	srv := faultserver.New(faultserver.Options{Faults: []string{"jsonrpc/id-string"}})
//	ts := httptest.NewServer(srv.Handler())
package faultserver
