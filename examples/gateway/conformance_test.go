package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wiremcp/wiremcp/conformance"
)

// TestConformanceThroughGateway runs our conformance suite, every revision, against
// examples/everything-server (which passes it directly) behind the gateway, over
// Streamable HTTP at /mcp/everything and the legacy HTTP+SSE route.
func TestConformanceThroughGateway(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../everything-server").CombinedOutput(); err != nil {
		t.Fatalf("building everything-server: %v\n%s", err, out)
	}
	cmd, _ := json.Marshal([]string{bin, "-stdio"})
	tg := startGateway(t, `{"servers": {"everything": {"mcp": {"command": `+string(cmd)+`}}}}`)
	t.Run("streamable", func(t *testing.T) {
		conformance.Run(t, conformance.Target{URL: tg.srv.URL + "/mcp/everything"}, &conformance.Options{Revision: conformance.RevisionAll})
	})
	t.Run("sse", func(t *testing.T) {
		conformance.Run(t, conformance.Target{SSEURL: tg.srv.URL + "/mcp/everything/sse"}, nil)
	})
}
