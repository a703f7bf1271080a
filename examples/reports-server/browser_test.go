package main

import (
	"bufio"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// chromiumPath finds Debian's chromium. Without it the test is skipped, unless CI=true,
// where it must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed but CI=true: install the Debian package chromium (apt-get install -y chromium)")
	}
	t.Skip("skipping the headless-browser test: /usr/bin/chromium not found (apt-get install -y chromium); it runs whenever CI=true")
	return ""
}

// startChromium starts a headless browser with a fresh profile and returns its DevTools
// WebSocket endpoint. The browser is killed when the test ends.
func startChromium(t *testing.T, bin string) string {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	found := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if u, ok := devToolsURL(sc.Text()); ok && !sent {
				found <- u
				sent = true
			}
		}
		cmd.Wait()
	}()
	select {
	case u := <-found:
		return u
	case <-exited:
		t.Fatal("chromium exited before printing its DevTools endpoint")
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not print its DevTools endpoint within 60s")
	}
	return ""
}

// TestBrowserDismiss loads the inbox in headless Chromium, clicks a report's Dismiss
// button with a real mouse event, and finds the report under the Done tab.
func TestBrowserDismiss(t *testing.T) {
	bin := chromiumPath(t)
	in, h := newWebInbox(t)
	changes := make(chan Change, 16)
	in.OnChange(func(c Change) { changes <- c })
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	defer srv.Close()

	page, err := openPage(startChromium(t, bin), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer page.ws.Close()

	if err := page.navigate(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	var titles []string
	if err := page.eval(`Array.from(document.querySelectorAll("#reports .title")).map(e => e.textContent)`, &titles); err != nil {
		t.Fatal(err)
	}
	// The browser shows the hostile title as text, not as a script.
	if !slices.Contains(titles, evilTitle) || !slices.Contains(titles, "Latency budget") {
		t.Fatalf("inbox titles = %q", titles)
	}

	var pos struct{ X, Y float64 }
	if err := page.eval(`(() => { const b = document.querySelector('button[data-action="dismiss"][data-id="perf"]');
		b.scrollIntoView(); const r = b.getBoundingClientRect(); return {x: r.x + r.width/2, y: r.y + r.height/2}; })()`, &pos); err != nil {
		t.Fatal(err)
	}
	page.clearEvents()
	if err := page.click(pos.X, pos.Y); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-changes:
		if !slices.Equal(c.Lifecycle, []string{"perf"}) {
			t.Fatalf("change after the click = %+v", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("clicking Dismiss did not change the report's status")
	}
	if got := lifecycles(in)["perf"]; got != reports.LifecycleDismissed {
		t.Fatalf("perf is %s after the click, want dismissed", got)
	}
	// The page reloads itself after a successful update.
	if _, err := page.waitEvent("Page.loadEventFired"); err != nil {
		t.Fatal(err)
	}
	if err := page.eval(`Array.from(document.querySelectorAll("#reports .title")).map(e => e.textContent)`, &titles); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(titles, "Latency budget") {
		t.Errorf("the dismissed report is still in the Inbox tab: %q", titles)
	}

	// Switch to the Done tab by clicking it, as a user would.
	if err := page.eval(`(() => { const r = document.getElementById("tab-done").getBoundingClientRect(); return {x: r.x + r.width/2, y: r.y + r.height/2}; })()`, &pos); err != nil {
		t.Fatal(err)
	}
	page.clearEvents()
	if err := page.click(pos.X, pos.Y); err != nil {
		t.Fatal(err)
	}
	if _, err := page.waitEvent("Page.loadEventFired"); err != nil {
		t.Fatal(err)
	}
	var done struct {
		URL    string
		Titles []string
	}
	if err := page.eval(`({url: location.href, titles: Array.from(document.querySelectorAll("#reports .title")).map(e => e.textContent)})`, &done); err != nil {
		t.Fatal(err)
	}
	if done.URL != srv.URL+"/?tab=done" || !slices.Equal(done.Titles, []string{"Latency budget"}) {
		t.Errorf("Done tab at %s shows %q, want only the dismissed report", done.URL, done.Titles)
	}
}
