package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// TestResourceErrorEchoCut: a resources/read error repeats at most
// maxEchoURI bytes of the URI the client sent, and its detail is cut at
// maxErrorText, as a tool error's message is: a 3 MB catalog://project/aaa…
// was repeated three times, uncut (a 9 MB answer), in the detail, the names in
// it and data.uri.
func TestResourceErrorEchoCut(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	// A revision that does not repeat the URI in a request header (which the
	// HTTP server bounds).
	cs := connectHTTP(t, startHTTP(t, svc).URL, "2025-06-18")
	long := strings.Repeat("a", 3<<20)
	for _, uri := range []string{
		"catalog://project/" + long,                  // no such project
		"catalog://source/retail/shop/sales/" + long, // no such source
		"catalog://" + long + "/x",                   // no such kind
		"catalog://model/retail/shop/sales/orders" + strings.Repeat("/"+long[:1000], 3000), // too many segments
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !mcp.IsResourceNotFound(err) {
			t.Errorf("%.60s…: err = %.300v, want Resource not found", uri, err)
			continue
		}
		if n := len(je.Message) + len(je.Data); n > maxErrorText+4*maxEchoURI {
			t.Errorf("%.60s…: an error of %d bytes: %.300s", uri, n, je.Data)
		}
		if !strings.Contains(string(je.Data), "more bytes not shown") {
			t.Errorf("%.60s…: does not say the URI was cut: %.300s", uri, je.Data)
		}
	}
}
