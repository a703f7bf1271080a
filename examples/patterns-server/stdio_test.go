package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// TestStdioBinary builds the real program, starts it with -stdio as a child
// process and uses both tools over its stdin/stdout, including native
// elicitation, then closes stdin and expects a clean exit.
func TestStdioBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH; cannot build the binary")
	}
	bin := filepath.Join(t.TempDir(), "patterns-server")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	leaktest.Check(t)

	tr, err := stdio.Command(exec.Command(bin, "-stdio"), nil)
	if err != nil {
		t.Fatal(err)
	}
	el := &elicitor{answer: accept(map[string]any{"q": "fan out"})}
	cs := connectClient(t, tr, &mcp.ClientOptions{ElicitationHandler: el.handle})

	for _, f := range []string{"markdown", "json", "both"} {
		p := parseResult(t, call(t, cs, "get_pattern", map[string]any{"id": "errors-join", "format": f}))
		checkFormat(t, p, f)
		if p.kind != present.KindDetails {
			t.Errorf("format %s: kind %s", f, p.kind)
		}
	}
	p := parseResult(t, call(t, cs, "search_patterns", map[string]any{"format": "both"}))
	checkFormat(t, p, "both")
	sr := decode[present.SearchResults](t, p.structured)
	if sr.Query.Q == nil || *sr.Query.Q != "fan out" || len(sr.Patterns) == 0 || sr.Patterns[0].ID != "fan-out-fan-in" {
		t.Errorf("elicited search: query %+v results %v", sr.Query, sr.Patterns)
	}
	if got := countMarker(p.markdown, present.CardMarker); got != sr.Metadata.ContractMarkers.Cards {
		t.Errorf("%d card markers, JSON says %d", got, sr.Metadata.ContractMarkers.Cards)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close (child exit): %v", err)
	}
}
