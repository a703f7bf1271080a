package main

import (
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdleSessionMemory reports the gateway's memory (heap and goroutine stacks
// in use) and goroutines per idle client session
// (Streamable HTTP, initialized, no GET stream) on a server backed by a shared stdio
// upstream: b.N sessions are opened with raw HTTP (so no client state lives in this
// process) and what is in use after a GC is compared with before.
//
//	go test -run '^$' -bench IdleSessionMemory -benchtime 2000x ./examples/gateway
func BenchmarkIdleSessionMemory(b *testing.B) {
	tg := startGateway(b, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	url := tg.srv.URL + "/mcp/up"
	post := func(body, sid string) string {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			b.Fatalf("%s: %s", body, resp.Status)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	open := func() {
		sid := post(initialize, "")
		post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	}
	open() // warm up the server's one-time state
	heap := func() uint64 {
		var m runtime.MemStats
		for i := 0; i < 3; i++ {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	http.DefaultClient.CloseIdleConnections()
	before, gBefore := heap(), runtime.NumGoroutine()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		open()
	}
	b.StopTimer()
	http.DefaultClient.CloseIdleConnections()
	after, gAfter := heap(), runtime.NumGoroutine()
	if got := len(tg.g.servers["up"].srv.Sessions()); got < b.N {
		b.Fatalf("%d sessions live, want %d", got, b.N)
	}
	b.ReportMetric(float64(after-before)/float64(b.N), "B/session")
	b.ReportMetric(float64(gAfter-gBefore)/float64(b.N), "goroutines/session")
}
