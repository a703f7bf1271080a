package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// The end-to-end tests run the compiled server as a user would and talk to it with the
// wiremcp client: list, filter, get, update, get again.

func TestEndToEndStdio(t *testing.T) {
	bin := buildServer(t)
	leaktest.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr strings.Builder
	tr, err := stdio.Command(exec.Command(bin, "-stdio", "-data", t.TempDir()), &stdio.CommandOptions{Stderr: &stderrWriter{b: &stderr}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		t.Fatalf("connect: %v\nserver stderr:\n%s", err, stderr.String())
	}
	exerciseBinding(t, ctx, cs)
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	// The server exits on its own once its stdin closes.
	if err := tr.Close(); err != nil {
		t.Errorf("server did not exit cleanly after stdin closed: %v\n%s", err, stderr.String())
	}
}

func TestEndToEndHTTP(t *testing.T) {
	bin := buildServer(t)
	data := t.TempDir()
	p := startServer(t, bin, "-data", data)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	tr, err := streamable.NewClient(p.base+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	exerciseBinding(t, ctx, cs)
	cs.Close()

	// The inbox is served by the same server and shows the MCP client's update.
	res, err := http.Get(p.base + "/?tab=done")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("inbox: %d", res.StatusCode)
	}
	if got := listHTTP(t, p.base); got["ci-main-nightly"] != reports.LifecycleDismissed {
		t.Errorf("inbox API sees ci-main-nightly as %s, want dismissed", got["ci-main-nightly"])
	}

	// A foreign Origin is refused on /mcp as on the inbox API.
	req, _ := http.NewRequest("POST", p.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin on /mcp: %d, want 403", res.StatusCode)
	}

	// Lifecycle state survives a restart of the binary.
	p.kill()
	p2 := startServer(t, bin, "-data", data)
	if got := listHTTP(t, p2.base); got["ci-main-nightly"] != reports.LifecycleDismissed {
		t.Errorf("after restart ci-main-nightly is %s, want dismissed", got["ci-main-nightly"])
	}
}

// TestBuiltinSamplesHaveTrends: a fresh start on the built-in samples shows trend
// charts for the samples with earlier versions, and a restart adds no duplicates.
func TestBuiltinSamplesHaveTrends(t *testing.T) {
	bin := buildServer(t)
	data := t.TempDir()
	for range 2 {
		p := startServer(t, bin, "-data", data)
		for _, want := range []struct {
			id               string
			charts, versions int
		}{{"ci-main-nightly", 5, 7}, {"sec-dependency-audit", 5, 6}, {"perf-api-latency", 5, 6}} {
			res, err := http.Get(p.base + "/reports/" + want.id)
			if err != nil {
				t.Fatal(err)
			}
			body := new(strings.Builder)
			_, err = io.Copy(body, res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(body.String(), `<svg class="spark"`); n != want.charts || !strings.Contains(body.String(), fmt.Sprintf("over the last %d versions", want.versions)) {
				t.Errorf("%s sample: %d trend charts, want %d over %d versions", want.id, n, want.charts, want.versions)
			}
		}
		p.kill()
	}
}
