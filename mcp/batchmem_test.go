package mcp

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/internal/leaktest"
)

// A body of 38,000 tools/call (4 MiB, a batch of revision 2025-03-26) is refused
// whole by the batch cap with one Invalid Request error, instead of running every
// call and holding every response. The bytes allocated while serving it are logged
// (the figure of issue 20) and bounded.
func TestHugeBatchRefused(t *testing.T) {
	leaktest.Check(t)
	url := serveHTTP(t, newTestServer())
	post := func(sid, body string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	var b strings.Builder
	b.WriteByte('[')
	for i := range 38000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}}`, i+1)
	}
	b.WriteByte(']')
	body := b.String()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, reply := post(sid, body)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a batch of 38,000 tools/call (%d bytes): HTTP %d, %.1f MB allocated while serving it (client included)",
		len(body), resp.StatusCode, float64(alloc)/1e6)
	if !strings.Contains(reply, `"code":-32600`) || !strings.Contains(reply, "at most 1000") {
		t.Fatalf("reply %d %.200s", resp.StatusCode, reply)
	}
	if alloc > 32<<20 {
		t.Errorf("%d bytes allocated for a refused batch", alloc)
	}
	// A batch within the cap is served.
	resp, reply = post(sid, `[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"message":"ok"}}}]`)
	if resp.StatusCode != 200 || !strings.Contains(reply, `"id":"a"`) || !strings.Contains(reply, "ok") {
		t.Fatalf("small batch: %d %s", resp.StatusCode, reply)
	}
}
