package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the headless browser, skipping the test outside CI when there is
// none (CI installs it: a missing browser there is a failure).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("WIREMCP_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium (set WIREMCP_CHROMIUM, or run .ci/setup.sh)")
	}
	t.Skip("skipping the browser test: no chromium at /usr/bin/chromium (set WIREMCP_CHROMIUM)")
	return ""
}

// dumpDOM loads url in headless Chromium, lets its scripts run, and returns the DOM.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--window-size=360,740", "--virtual-time-budget=10000", "--dump-dom", url)
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process.Pid); return nil }
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// TestBrowserIndexMetaConnectionTest follows the index to a server's meta page in
// headless Chromium and runs its connection test, which lists the tools live.
func TestBrowserIndexMetaConnectionTest(t *testing.T) {
	browser := chromium(t)
	tg := startGateway(t, `{"servers": {
	  "up": {"description": "upstream <b>bold</b>", "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}},
	  "date": {"command": {"argv": ["date"]}}}}`)
	index := dumpDOM(t, browser, tg.srv.URL+"/mcp")
	m := regexp.MustCompile(`<div class="card server" data-server="up">[\s\S]*?<a class="meta-link" href="([^"]+)"`).FindStringSubmatch(index)
	if m == nil {
		t.Fatalf("index has no meta link for up:\n%s", index)
	}
	if strings.Contains(index, "<b>bold</b>") {
		t.Error("index renders the description as HTML")
	}
	meta := dumpDOM(t, browser, tg.srv.URL+m[1]+"#test")
	if !strings.Contains(meta, `id="test-status" data-state="ok"`) {
		i := strings.Index(meta, `id="test-status"`)
		t.Fatalf("connection test did not succeed: %.300s", meta[max(i, 0):])
	}
	for _, tool := range []string{"echo", "pid", "progress"} {
		if !strings.Contains(meta, `<li class="test-tool">`+tool+" — ") {
			t.Errorf("connection test does not list %q", tool)
		}
	}
}
