package main

import (
	"context"
	"net"
	"testing"

	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestStreamableHTTP runs serveHTTP on a loopback port and calls both tools over
// Streamable HTTP, including a native elicitation that travels on the call's
// stream, then shuts the server down.
func TestStreamableHTTP(t *testing.T) {
	leaktest.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveHTTP(ctx, testServer(t), ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serveHTTP: %v", err)
		}
	}()

	tr, err := streamable.NewClient("http://"+ln.Addr().String()+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	el := &elicitor{answer: accept(map[string]any{"id": "pipeline"})}
	cs := connectClient(t, tr, &mcp.ClientOptions{ElicitationHandler: el.handle})
	defer cs.Close()

	p := parseResult(t, call(t, cs, "search_patterns", map[string]any{"q": "channels", "format": "both", "limitCards": 2}))
	checkFormat(t, p, "both")
	sr := decode[present.SearchResults](t, p.structured)
	if sr.Metadata.TotalCount == 0 || countMarker(p.markdown, present.CardMarker) != sr.Metadata.ContractMarkers.Cards {
		t.Errorf("search over HTTP: total %d, cards %d", sr.Metadata.TotalCount, sr.Metadata.ContractMarkers.Cards)
	}

	p = parseResult(t, call(t, cs, "get_pattern", map[string]any{"id": "pipelin", "format": "json"}))
	checkFormat(t, p, "json")
	if p.kind != present.KindDetails || decode[present.Details](t, p.structured).ID != "pipeline" {
		t.Errorf("elicited get over HTTP: kind %s %s", p.kind, p.structured)
	}
	if n := len(el.requests()); n != 1 {
		t.Errorf("%d elicitation requests over HTTP, want 1", n)
	}
}
