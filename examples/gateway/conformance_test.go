package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/wiremcp/wiremcp/conformance"
)

// conformanceOptions are the options .ci/conformance.sh gives our own servers: every
// tool not annotated destructive may be called, and, with MCP_SCHEMA_DIR set (CI sets
// it), every server message is validated against the official schema of its
// revision. revision is conformance.RevisionAll or "" (negotiated).
func conformanceOptions(t *testing.T, revision string) *conformance.Options {
	t.Helper()
	dir := os.Getenv("MCP_SCHEMA_DIR")
	switch {
	case dir == "" && os.Getenv("CI") == "true":
		t.Fatal("MCP_SCHEMA_DIR is not set (CI=true: server messages must be validated against the official schemas)")
	case dir == "":
		t.Log("MCP_SCHEMA_DIR is not set: server messages are not validated against the official schemas")
	}
	return &conformance.Options{Revision: revision, CallTools: conformance.CallAll, SchemaDir: dir}
}

// TestConformanceThroughGateway runs our conformance suite, every revision, against
// examples/everything-server (which passes it directly, with the same options, in
// .ci/conformance.sh) behind the gateway, over Streamable HTTP at /mcp/everything and
// the legacy HTTP+SSE route.
func TestConformanceThroughGateway(t *testing.T) {
	cmd, _ := json.Marshal([]string{buildExample(t, "everything-server"), "-stdio"})
	tg := startGateway(t, `{"servers": {"everything": {"mcp": {"command": `+string(cmd)+`}}}}`)
	t.Run("streamable", func(t *testing.T) {
		conformance.Run(t, conformance.Target{URL: tg.srv.URL + "/mcp/everything"}, conformanceOptions(t, conformance.RevisionAll))
	})
	t.Run("sse", func(t *testing.T) {
		conformance.Run(t, conformance.Target{SSEURL: tg.srv.URL + "/mcp/everything/sse"}, conformanceOptions(t, ""))
	})
}
