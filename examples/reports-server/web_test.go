package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

const evilTitle = `<script>alert(1)</script>`

func newWebInbox(t *testing.T) (*Inbox, *webHandler) {
	t.Helper()
	in, _ := newTestInbox(t)
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	evil := testReport("evil", evilTitle, `ci"><img src=x onerror=alert(2)>`, reports.StatusFailing, t0)
	evil.Summary = `<b>bold?</b>`
	evil.Sections = append(evil.Sections, reports.Markdown(`<img src=x onerror=alert(3)> [click](javascript:alert(4))`),
		reports.Table("T", []string{"<th>"}, [][]reports.Value{{reports.Str("<td>")}}))
	in.Replace(loadedOf(
		evil,
		testReport("perf", "Latency budget", "performance", reports.StatusWarning, t0.Add(time.Hour)),
		testReport("sec", "Dependency audit", "security", reports.StatusPassing, t0.Add(2*time.Hour)),
	), []reports.Diagnostic{{File: "broken.json", Message: "at /status: <bad>"}})
	return in, newWebHandler(in, discard, true)
}

func get(t *testing.T, h http.Handler, target string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	req.Host = "127.0.0.1:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.String()
}

func post(t *testing.T, h http.Handler, target, body string, hdr map[string]string) (*http.Response, reports.UpdateStatusOutput) {
	t.Helper()
	req := httptest.NewRequest("POST", target, strings.NewReader(body))
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out reports.UpdateStatusOutput
	data, _ := io.ReadAll(rec.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("POST %s: body %q is not JSON: %v", target, data, err)
	}
	return rec.Result(), out
}

func TestWebEscapes(t *testing.T) {
	_, h := newWebInbox(t)
	for _, target := range []string{"/", "/reports/evil"} {
		res, body := get(t, h, target)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s = %d", target, res.StatusCode)
		}
		for _, bad := range []string{evilTitle, "<img src=x", `<b>bold?</b>`, "<th><th>", "<td><td>", "javascript:", `"><img`} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s contains unescaped %q", target, bad)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s does not show the escaped title", target)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'nonce-") {
			t.Errorf("GET %s CSP = %q", target, csp)
		}
		// No external assets: every src/href is local.
		for _, ext := range []string{`src="http`, `href="http`, `src="//`, `href="//`} {
			if strings.Contains(body, ext) {
				t.Errorf("GET %s references an external asset (%s)", target, ext)
			}
		}
	}
}

func TestWebListTabsAndFilters(t *testing.T) {
	in, h := newWebInbox(t)
	if err := in.SetStatus("sec", reports.LifecycleDismissed); err != nil {
		t.Fatal(err)
	}
	if err := in.SetStatus("perf", reports.LifecycleRead); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		target      string
		want, avoid []string
	}{
		{"/", []string{"Latency budget", "&lt;script&gt;", "Inbox (2)", "Done (1)", `data-action="dismiss" data-status="dismissed" data-id="perf"`, `data-action="read"`},
			[]string{"Dependency audit"}},
		{"/?tab=done", []string{"Dependency audit", `data-action="restore" data-status="unread" data-id="sec"`}, []string{"Latency budget"}},
		{"/?category=performance", []string{"Latency budget", `<option value="performance" selected>`}, []string{"&lt;script&gt;alert"}},
		{"/?status=failing", []string{"&lt;script&gt;alert"}, []string{"Latency budget"}},
		{"/?status=passing", []string{"Inbox zero for these filters"}, nil},
		{"/?status=bogus", []string{"Latency budget"}, nil},
	}
	for _, tt := range tests {
		_, body := get(t, h, tt.target)
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", tt.target, w)
			}
		}
		for _, a := range tt.avoid {
			if strings.Contains(body, a) {
				t.Errorf("GET %s contains %q", tt.target, a)
			}
		}
	}
	// The inbox lists newest first: perf (01:00) before evil (00:00).
	_, body := get(t, h, "/")
	if strings.Index(body, "Latency budget") > strings.Index(body, "&lt;script&gt;alert") {
		t.Error("inbox is not ordered newest first")
	}
	if !strings.Contains(body, "1 invalid report file(s) skipped") || !strings.Contains(body, "&lt;bad&gt;") {
		t.Error("diagnostics are not shown (escaped)")
	}
}

func TestWebDetail(t *testing.T) {
	in, h := newWebInbox(t)
	res, body := get(t, h, "/reports/perf")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if !strings.Contains(body, `<th scope="col">Previous</th><th scope="col">Change</th>`) {
		t.Error("a metric with a previousValue, but no Previous and Change columns")
	}
	// Metrics without any previousValue (a first run, an import) get no empty
	// Previous and Change columns.
	first := testReport("first", "First run", "ci", reports.StatusPassing, testTime)
	first.Sections = []reports.Section{reports.Metrics("Tests",
		reports.MetricItem{Label: "Passed", Value: reports.Num(4)}, reports.MetricItem{Label: "Failed", Value: reports.Num(0)})}
	in.Replace(loadedOf(first), nil)
	if _, b := get(t, h, "/reports/first"); !strings.Contains(b, "<td>Passed</td>") || strings.Contains(b, ">Previous<") || strings.Contains(b, ">Change<") {
		t.Errorf("metrics without previous values: Previous/Change columns shown or metrics missing")
	}
	for _, want := range []string{
		"<p>Some <strong>markdown</strong> for perf</p>", // markdown section
		"<h3>Numbers</h3>",
		"<td>Latency</td>", "120 ms", "100 ms", "trend-up", "&#43;20 ms", "&#43;20.0% relative", // metric with delta (html/template escapes +)
		"<h3>Rows</h3>", `<th scope="col">Name</th>`, `<td data-label="Name">a</td>`, `<td data-label="Count">1</td>`, // table
	} {
		if !strings.Contains(body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	res, body = get(t, h, "/reports/missing")
	if res.StatusCode != 404 || !strings.Contains(body, "Report not found") {
		t.Errorf("unknown report: %d", res.StatusCode)
	}
}

// TestWebNotFoundHeaders: the 404 page carries the headers of every other page.
func TestWebNotFoundHeaders(t *testing.T) {
	_, h := newWebInbox(t)
	ok, _ := get(t, h, "/reports/perf")
	missing, body := get(t, h, "/reports/no-such-report")
	if missing.StatusCode != 404 {
		t.Fatalf("status %d", missing.StatusCode)
	}
	for _, name := range []string{"Content-Security-Policy", "Cache-Control", "Content-Type", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"} {
		if missing.Header.Get(name) == "" || (name != "Content-Security-Policy" && missing.Header.Get(name) != ok.Header.Get(name)) {
			t.Errorf("404 %s = %q, a 200 page has %q", name, missing.Header.Get(name), ok.Header.Get(name))
		}
	}
	if csp := missing.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(body, `nonce="`) {
		t.Errorf("404 CSP %q", csp)
	}
}

func TestWebAPIStatus(t *testing.T) {
	in, h := newWebInbox(t)
	tests := []struct {
		name   string
		target string
		body   string
		hdr    map[string]string
		code   int
	}{
		{"foreign origin", "/api/reports/perf/status", `{"lifecycleStatus":"read"}`, map[string]string{"Origin": "http://evil.example"}, 403},
		{"cross-site fetch", "/api/reports/perf/status", `{"lifecycleStatus":"read"}`, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"form post", "/api/reports/perf/status", `{"lifecycleStatus":"read"}`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"bad status", "/api/reports/perf/status", `{"lifecycleStatus":"archived"}`, nil, 400},
		{"unknown field", "/api/reports/perf/status", `{"status":"read"}`, nil, 400},
		{"unknown id", "/api/reports/nope/status", `{"lifecycleStatus":"read"}`, nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out := post(t, h, tt.target, tt.body, tt.hdr)
			if res.StatusCode != tt.code || out.Success || out.Message == "" {
				t.Errorf("got %d %+v, want %d with a message", res.StatusCode, out, tt.code)
			}
		})
	}
	if got := lifecycles(in)["perf"]; got != reports.LifecycleUnread {
		t.Fatalf("refused requests changed the status to %s", got)
	}
	res, out := post(t, h, "/api/reports/perf/status", `{"lifecycleStatus":"dismissed"}`, map[string]string{"Origin": "http://127.0.0.1:8080"})
	if res.StatusCode != 200 || !out.Success {
		t.Fatalf("same-origin dismiss: %d %+v", res.StatusCode, out)
	}
	if got := lifecycles(in)["perf"]; got != reports.LifecycleDismissed {
		t.Errorf("after dismiss: %s", got)
	}
	// The JSON list reflects it and filters like REPORTS_LIST.
	_, body := get(t, h, "/api/reports?lifecycleStatus=dismissed")
	var list reports.ListOutput
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Reports) != 1 || list.Reports[0].ID != "perf" {
		t.Errorf("dismissed list = %s (%v)", body, err)
	}
	if res, _ := get(t, h, "/api/reports?status=red"); res.StatusCode != 400 {
		t.Errorf("bad filter: %d", res.StatusCode)
	}
}

func TestWebHostCheck(t *testing.T) {
	_, h := newWebInbox(t)
	for host, want := range map[string]int{"127.0.0.1:8080": 200, "localhost:8080": 200, "[::1]:8080": 200, "evil.example:8080": 403, "evil.example": 403} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}

// TestWebMarkdownCap: a Markdown section over the cap is shown cut, with a note on the
// page and a warning in the log.
func TestWebMarkdownCap(t *testing.T) {
	in, _ := newTestInbox(t)
	var logBuf strings.Builder
	log := slog.New(slog.NewTextHandler(&stderrWriter{b: &logBuf}, nil))
	r := testReport("big", "Big", "ci", reports.StatusInfo, testTime)
	r.Sections = []reports.Section{reports.Markdown(strings.Repeat("[", maxMarkdownSection+1000))}
	in.Replace(loadedOf(r), nil)
	res, body := get(t, newWebHandler(in, log, true), "/reports/big")
	if res.StatusCode != 200 || !strings.Contains(body, `<p class="notice" role="note">Section cut: 256.0 KiB of 257.0 KiB shown.`) {
		t.Errorf("status %d, no cut notice", res.StatusCode)
	}
	if !strings.Contains(logBuf.String(), "over the size cap") || !strings.Contains(logBuf.String(), "report=big") {
		t.Errorf("log: %q", logBuf.String())
	}
}
