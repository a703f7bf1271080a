package main

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// showcase is a report as producers write them: a Markdown section with a GFM table,
// a block quote and preformatted test output.
func showcase() *reports.Report {
	r := testReport("showcase", "Release readiness", "ci", reports.StatusWarning, testTime)
	r.Sections = []reports.Section{
		reports.Markdown("## Checklist\n\n| Check | Result | Owner |\n|:---|:---:|---|\n| Unit tests | **pass** | `@core` |\n| Migration dry run | *fail* | `@db` |\n\n" +
			"> The migration dry run failed on the staging snapshot.\n> Re-run after the index fix lands.\n\n" +
			"```\n--- FAIL: TestMigrate (0.31s)\n    migrate_test.go:57: column \"ledger_id\" does not exist\nFAIL\n```\n"),
	}
	return r
}

// nightlyAgo returns the sample nightly build as it looked n nights ago.
func nightlyAgo(t *testing.T, sample *reports.Report, n int) *reports.Report {
	t.Helper()
	r := sample.Clone()
	r.UpdatedAt = sample.UpdatedAt.Add(-time.Duration(n) * 24 * time.Hour)
	for i, s := range r.Sections {
		for j, m := range s.Items {
			if v, ok := m.Value.Number(); ok {
				// A plausible wobble, different per metric and night.
				w := v - float64(n%3)*0.4 - float64(n)*0.3*float64(j%2)
				if v == math.Trunc(v) {
					w = math.Round(w) // counts stay whole
				}
				r.Sections[i].Items[j].Value = reports.Num(math.Round(max(w, 0)*10) / 10)
			}
		}
	}
	return r
}

// layoutInbox serves the built-in samples, the nightly build with seven versions of
// history, the showcase and a report imported from `go test -json`.
func layoutInbox(t *testing.T) *Inbox {
	t.Helper()
	in, _, _ := newHistoryInbox(t)
	samples, diags := loadSamples()
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var nightly *reports.Report
	var others []reports.LoadedReport
	for _, l := range samples {
		if l.Report.ID == "ci-main-nightly" {
			nightly = l.Report
		} else {
			others = append(others, l)
		}
	}
	f, err := os.Open("../../bindings/reports/testdata/gotest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	imported, err := reports.ImportGoTest(f, reports.GoTestOptions{ID: "unit-tests", Title: "Unit tests"})
	if err != nil {
		t.Fatal(err)
	}
	others = append(others, loadedOf(showcase(), imported)...)
	// An invalid file with a long name, as a watched directory may hold: the list
	// shows it among the skipped files, which must wrap at 420 px too.
	skipped := []reports.Diagnostic{{File: "nightly_build_main_linux_amd64_race_detector_enabled_20251124T031200Z.json",
		Message: "at /sections/1/items/3/previousValue: got object, want number, string or null"}}
	for n := 6; n >= 0; n-- {
		in.Replace(append(loadedOf(nightlyAgo(t, nightly, n)), others...), skipped)
	}
	return in
}

// TestBrowserLayout loads the inbox and report pages in headless Chromium at 1280 and
// 420 CSS pixels: Markdown tables, quotes and preformatted test output render; nothing
// overflows horizontally at 420 px; no empty element leaves a gap above the list; the
// nightly build shows trend charts. Screenshots go to $REPORTS_SCREENSHOTS when set.
func TestBrowserLayout(t *testing.T) {
	bin := chromiumPath(t)
	in := layoutInbox(t)
	srv := httptest.NewServer(newWebHandler(in, discard, true))
	defer srv.Close()
	page, err := openPage(startChromium(t, bin), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer page.ws.Close()
	shots := os.Getenv("REPORTS_SCREENSHOTS")

	pages := []string{"/", "/reports/ci-main-nightly", "/reports/showcase", "/reports/unit-tests", "/reports/perf-api-latency", "/reports/no-such-report"}
	for _, width := range []int{1280, 420} {
		if err := page.call("Emulation.setDeviceMetricsOverride", map[string]any{
			"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600,
		}, nil); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			name := fmt.Sprintf("%d%s", width, strings.ReplaceAll(p, "/", "_"))
			if err := page.navigate(srv.URL + p); err != nil {
				t.Fatal(err)
			}
			var m struct {
				ScrollWidth, ClientWidth int
				Offenders                []string
			}
			if err := page.eval(`(() => {
				document.querySelectorAll("details").forEach(d => { d.open = true; }); // what a click shows must fit too
				const cw = document.documentElement.clientWidth;
				const off = [];
				for (const e of document.querySelectorAll("body *")) {
					const r = e.getBoundingClientRect();
					if (r.width > 0 && r.right > cw + 0.5 && !e.closest(".table-wrap, pre, .vh")) off.push(e.tagName + "." + e.className);
				}
				return {scrollWidth: document.documentElement.scrollWidth, clientWidth: cw, offenders: off.slice(0, 5)};
			})()`, &m); err != nil {
				t.Fatal(err)
			}
			if m.ScrollWidth > m.ClientWidth {
				t.Errorf("%s: scrollWidth %d > clientWidth %d (overflowing: %v)", name, m.ScrollWidth, m.ClientWidth, m.Offenders)
			}
			// Every button is fully on screen.
			var cut []string
			if err := page.eval(`Array.from(document.querySelectorAll("button")).filter(b => b.getBoundingClientRect().right > document.documentElement.clientWidth).map(b => b.textContent)`, &cut); err != nil {
				t.Fatal(err)
			}
			if len(cut) > 0 {
				t.Errorf("%s: buttons cut off: %q", name, cut)
			}
			if shots != "" {
				screenshot(t, page, filepath.Join(shots, name+".png"))
			}
		}
	}

	// At 420 px (still set): no empty element between the filters and the list.
	page.navigate(srv.URL + "/")
	var gap struct{ Message, Gap float64 }
	if err := page.eval(`(() => ({message: document.getElementById("message").getBoundingClientRect().height,
		gap: document.getElementById("reports").getBoundingClientRect().top - document.querySelector("form.filters").getBoundingClientRect().bottom}))()`, &gap); err != nil {
		t.Fatal(err)
	}
	if gap.Message != 0 || gap.Gap > 24 {
		t.Errorf("empty status line is %vpx high; %vpx between the filters and the list", gap.Message, gap.Gap)
	}

	// Markdown: a table, a quote and preformatted output.
	page.navigate(srv.URL + "/reports/showcase")
	var md struct {
		Cells      []string
		Align      string
		Quote      string
		Pre        string
		PreFont    string
		PreSpacing string
	}
	if err := page.eval(`(() => {
		const pre = document.querySelector("section pre");
		const cs = getComputedStyle(pre);
		return {
			cells: Array.from(document.querySelectorAll("table.md td")).map(e => e.textContent),
			align: getComputedStyle(document.querySelector("table.md td:nth-child(2)")).textAlign,
			quote: document.querySelector("blockquote") ? document.querySelector("blockquote").textContent.trim() : "",
			pre: pre.textContent, preFont: cs.fontFamily,
			preSpacing: cs.whiteSpace,
		};
	})()`, &md); err != nil {
		t.Fatal(err)
	}
	if strings.Join(md.Cells, "|") != "Unit tests|pass|@core|Migration dry run|fail|@db" || md.Align != "center" {
		t.Errorf("Markdown table cells %q, second column aligned %q", md.Cells, md.Align)
	}
	if !strings.HasPrefix(md.Quote, "The migration dry run failed") {
		t.Errorf("block quote %q", md.Quote)
	}
	if !strings.Contains(md.Pre, "--- FAIL: TestMigrate (0.31s)\n    migrate_test.go:57") || !strings.Contains(md.PreFont, "monospace") || md.PreSpacing != "pre" {
		t.Errorf("preformatted block %q font %q white-space %q", md.Pre, md.PreFont, md.PreSpacing)
	}

	// go test -json failures imported as a table keep their lines, in monospace.
	page.navigate(srv.URL + "/reports/unit-tests")
	var out struct {
		Count      int
		Text, Font string
		Lines      float64
	}
	if err := page.eval(`(() => {
		const all = document.querySelectorAll("pre.cell");
		const c = Array.from(all).find(e => e.textContent.includes("\n")); if (!c) return {count: all.length};
		const cs = getComputedStyle(c);
		return {count: all.length, text: c.textContent, font: cs.fontFamily,
			lines: c.getBoundingClientRect().height / parseFloat(cs.lineHeight)};
	})()`, &out); err != nil {
		t.Fatal(err)
	}
	if out.Count == 0 || !strings.Contains(out.Text, "\n") || !strings.Contains(out.Font, "monospace") || out.Lines < 1.9 {
		t.Errorf("imported failure output: %d cells, %q, font %q, %.1f lines high", out.Count, out.Text, out.Font, out.Lines)
	}

	// The nightly build has history: one chart per numeric metric, values on hover.
	page.navigate(srv.URL + "/reports/ci-main-nightly")
	var ch struct {
		Charts, Points int
		Width          float64
		Hover, Label   string
		TableRows      int
	}
	if err := page.eval(`(() => {
		const svgs = document.querySelectorAll("svg.spark");
		const s = svgs[0];
		return {charts: svgs.length, points: s ? s.querySelectorAll("g").length : 0,
			width: s ? s.getBoundingClientRect().width : 0,
			hover: s ? s.querySelector("g > title").textContent : "",
			label: s ? s.getAttribute("aria-label") : "",
			tableRows: document.querySelectorAll("figure.trend table.vh tbody tr").length};
	})()`, &ch); err != nil {
		t.Fatal(err)
	}
	if ch.Charts != 5 || ch.Points != 7 || ch.Width < 100 || !strings.Contains(ch.Hover, "UTC: ") || !strings.Contains(ch.Label, "over the last 7 versions") || ch.TableRows != 35 {
		t.Errorf("trend charts: %+v", ch)
	}

	// Values on hover: the pointer over a point shows its value, inside the chart's
	// box; elsewhere no value shows. Checked for the first and the last point, at
	// both widths.
	for _, width := range []int{420, 1280} {
		if err := page.call("Emulation.setDeviceMetricsOverride", map[string]any{
			"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600,
		}, nil); err != nil {
			t.Fatal(err)
		}
		page.navigate(srv.URL + "/reports/ci-main-nightly")
		for _, which := range []string{"first", "last"} {
			var pt struct {
				X, Y          float64
				Value, Hidden string
			}
			if err := page.eval(`(() => {
				const g = document.querySelector("figure.trend svg.spark g:`+which+`-of-type");
				g.closest("figure").scrollIntoView({block: "center"});
				const r = g.querySelector("circle.hit").getBoundingClientRect();
				return {x: r.x + r.width/2, y: r.y + r.height/2,
					value: g.querySelector("title").textContent.split(": ").pop(),
					hidden: getComputedStyle(g.querySelector("text.tip")).display};
			})()`, &pt); err != nil {
				t.Fatal(err)
			}
			if err := page.call("Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": pt.X, "y": pt.Y}, nil); err != nil {
				t.Fatal(err)
			}
			var tip struct {
				Display, Text string
				Inside        bool
			}
			if err := page.eval(`(() => {
				const t = document.querySelector("figure.trend svg.spark g:`+which+`-of-type text.tip");
				const r = t.getBoundingClientRect(), f = t.closest("figure").getBoundingClientRect();
				return {display: getComputedStyle(t).display, text: t.textContent,
					inside: r.width > 0 && r.left >= f.left && r.right <= f.right && r.top >= f.top && r.bottom <= f.bottom};
			})()`, &tip); err != nil {
				t.Fatal(err)
			}
			if pt.Hidden != "none" || tip.Display == "none" || tip.Text != pt.Value || !tip.Inside {
				t.Errorf("%d px, %s point: before hover display %q; on hover display %q, text %q (want %q), inside the chart %v",
					width, which, pt.Hidden, tip.Display, tip.Text, pt.Value, tip.Inside)
			}
			if shots != "" {
				screenshot(t, page, filepath.Join(shots, fmt.Sprintf("%d_hover-%s.png", width, which)))
			}
		}
		// The scale: highest and lowest value beside the line.
		var scale struct{ Hi, Lo string }
		if err := page.eval(`({hi: document.querySelector("figure.trend .chart .hi").textContent,
			lo: document.querySelector("figure.trend .chart .lo").textContent})`, &scale); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ch.Label, "lowest "+scale.Lo+", highest "+scale.Hi) {
			t.Errorf("%d px: scale labels %+v, chart says %q", width, scale, ch.Label)
		}
	}
}

// screenshot saves PNGs of the whole page, in tiles of at most 1400 px height
// (name.png, name-2.png, …) so that each stays legible.
func screenshot(t *testing.T, page *cdpClient, path string) {
	t.Helper()
	var h float64
	if err := page.eval(`document.documentElement.scrollHeight`, &h); err != nil {
		t.Fatal(err)
	}
	var res struct{ Data string }
	var vw float64
	page.eval(`document.documentElement.clientWidth`, &vw)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const tile = 1400.0
	for i := 0; float64(i)*tile < min(h, 8*tile); i++ {
		if err := page.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
			"clip": map[string]any{"x": 0, "y": float64(i) * tile, "width": vw, "height": min(tile, h-float64(i)*tile), "scale": 1}}, &res); err != nil {
			t.Fatal(err)
		}
		data, err := base64.StdEncoding.DecodeString(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		name := path
		if i > 0 {
			name = strings.TrimSuffix(path, ".png") + fmt.Sprintf("-%d.png", i+1)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
