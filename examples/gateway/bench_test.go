package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdleSessionMemory reports the gateway's memory (heap and goroutine stacks
// in use) and goroutines per idle client session
// (Streamable HTTP, initialized, no GET stream) on a server backed by a stdio
// upstream: b.N sessions are opened with raw HTTP (so no client state lives in this
// process) and what is in use after a GC is compared with before. The sessions send
// nothing upstream, so none has an upstream session (or child) of its own yet:
// BenchmarkIdleSessionWithChildMemory measures sessions that do.
//
//	go test -run '^$' -bench IdleSessionMemory -benchtime 2000x ./examples/gateway
func BenchmarkIdleSessionMemory(b *testing.B) {
	benchIdleSessions(b, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`, false)
}

// BenchmarkIdleSessionWithChildMemory is BenchmarkIdleSessionMemory for sessions that
// each made one call, so that each has its own upstream session and child process
// (examples/echo-server -stdio, the default per-client sessions): B/session is the
// gateway's side alone; child-RSS-KB and child-PSS-KB are each child's own resident
// and proportional set sizes (/proc/PID/status VmRSS, /proc/PID/smaps_rollup Pss;
// PSS shares the pages children have in common among them), medians over the
// children.
//
//	go test -run '^$' -bench IdleSessionWithChildMemory -benchtime 100x ./examples/gateway
func BenchmarkIdleSessionWithChildMemory(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the children's memory from /proc")
	}
	benchIdleSessions(b, `{"servers": {"up": {"mcp": {"command": ["$ECHO", "-stdio"], "maxSessions": 4096}}}}`, true)
}

func benchIdleSessions(b *testing.B, cfg string, call bool) {
	tg := startGateway(b, cfg)
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
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 || strings.Contains(string(out), `"isError":true`) || strings.Contains(string(out), `"error":`) {
			b.Fatalf("%s: %s %s", body, resp.Status, out)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	open := func() {
		sid := post(initialize, "")
		post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
		if call {
			post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, sid)
		}
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
	rt := tg.g.servers["up"]
	if got := len(rt.srv.Sessions()); got < b.N {
		b.Fatalf("%d sessions live, want %d", got, b.N)
	}
	b.ReportMetric(float64(after-before)/float64(b.N), "B/session")
	b.ReportMetric(float64(gAfter-gBefore)/float64(b.N), "goroutines/session")
	if !call {
		return
	}
	up := rt.hooks.(*upstreamPart)
	var pids []int
	up.mu.Lock()
	for _, slot := range up.clients {
		select {
		case <-slot.ready:
			if slot.uc != nil {
				pids = append(pids, slot.uc.pid)
			}
		default:
		}
	}
	up.mu.Unlock()
	if len(pids) < b.N {
		b.Fatalf("%d children, want at least %d", len(pids), b.N)
	}
	var rss, pss []float64
	for _, pid := range pids {
		rss = append(rss, procKB(b, pid, "status", "VmRSS:"))
		pss = append(pss, procKB(b, pid, "smaps_rollup", "Pss:"))
	}
	b.ReportMetric(median(rss), "child-RSS-KB")
	b.ReportMetric(median(pss), "child-PSS-KB")
}

// procKB reads the kB value of the line starting with key in /proc/PID/file.
func procKB(b *testing.B, pid int, file, key string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				v, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return v
				}
			}
		}
	}
	b.Fatalf("no %s in /proc/%d/%s", key, pid, file)
	return 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
