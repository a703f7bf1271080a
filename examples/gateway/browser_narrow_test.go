package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// framable lets the test's own page frame the gateway's pages (same origin), which
// otherwise forbid any framing: only frame-ancestors changes in their headers.
type framable struct{ http.ResponseWriter }

func (w framable) fix() {
	h := w.Header()
	if csp := h.Get("Content-Security-Policy"); csp != "" {
		h.Set("Content-Security-Policy", strings.Replace(csp, "frame-ancestors 'none'", "frame-ancestors 'self'", 1))
	}
}

func (w framable) WriteHeader(code int) { w.fix(); w.ResponseWriter.WriteHeader(code) }

func (w framable) Write(b []byte) (int, error) { w.fix(); return w.ResponseWriter.Write(b) }

func (w framable) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// narrowPage frames page at a phone's width (360 CSS px), opens every <details>,
// runs the page's own connection test when it has one, and writes what overflows
// the width into the body's data-result attribute for --dump-dom.
const narrowPage = `<!doctype html><meta charset="utf-8"><body style="margin:0">
<iframe id="f" src="%s" style="width:360px;height:740px;border:0"></iframe>
<script>
const f = document.getElementById("f");
f.onload = () => setTimeout(() => {
  const d = f.contentDocument;
  d.querySelectorAll("details").forEach(x => { x.open = true; });
  const cw = d.documentElement.clientWidth;
  const off = [];
  for (const e of d.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > cw + 0.5 && !e.closest("pre")) off.push(e.tagName + "." + e.className);
  }
  const tw = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
  for (let n = tw.nextNode(); n; n = tw.nextNode()) {
    const rg = d.createRange(); rg.selectNodeContents(n);
    const r = rg.getBoundingClientRect();
    if (r.width > 0 && r.right > cw + 0.5 && !n.parentElement.closest("pre")) off.push("text in " + n.parentElement.tagName + ": " + n.textContent.trim().slice(0, 40));
  }
  document.body.setAttribute("data-result", JSON.stringify({scrollWidth: d.documentElement.scrollWidth, clientWidth: cw, offenders: off.slice(0, 5)}));
}, 2000);
</script>`

// TestBrowserNarrowPages: the index, a server's meta page (with its connection test
// run and every section opened), a server's info page and the 404 page fit a 360 px
// wide screen in headless Chromium: no element or text wider than the screen outside a <pre>
// (whose own scroll bar is fine), and no horizontal scroll of the page.
func TestBrowserNarrowPages(t *testing.T) {
	browser := chromium(t)
	tg := startGateway(t, `{"servers": {
	  "up": {"description": "an upstream whose description is one long word: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij", "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}},
	  "date": {"command": {"argv": ["date"]}}}}`)
	mux := http.NewServeMux()
	mux.HandleFunc("/narrow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, narrowPage, html.EscapeString(r.URL.Query().Get("page")))
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tg.g.ServeHTTP(framable{w}, r) }))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	result := regexp.MustCompile(`<body[^>]* data-result="([^"]*)"`)
	for _, page := range []string{"/mcp", "/mcp/meta/up#test", "/mcp/meta/date", "/mcp/up", "/mcp/no-such-server"} {
		t.Run(page, func(t *testing.T) {
			dom := dumpDOM(t, browser, srv.URL+"/narrow?page="+page)
			m := result.FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("no measurement in the DOM:\n%.2000s", dom)
			}
			var got struct {
				ScrollWidth, ClientWidth int
				Offenders                []string
			}
			if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
				t.Fatalf("measurement %q: %v", m[1], err)
			}
			if got.ClientWidth < 300 || got.ClientWidth > 360 {
				t.Fatalf("the page was laid out %d px wide, want about 360", got.ClientWidth)
			}
			if got.ScrollWidth > got.ClientWidth || len(got.Offenders) > 0 {
				t.Errorf("wider than a 360 px screen: scrollWidth %d > clientWidth %d; overflowing: %v",
					got.ScrollWidth, got.ClientWidth, got.Offenders)
			}
		})
	}
}
