package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

func TestRenderMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello *world*", "<p>hello <em>world</em></p>\n"},
		{"**bold** and `x<y`", "<p><strong>bold</strong> and <code>x&lt;y</code></p>\n"},
		{"# Title\ntext", "<h3>Title</h3>\n<p>text</p>\n"},
		{"- a\n- b\n\n1. one\n2. two", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"```\n<script>x</script>\n```", "<pre><code>&lt;script&gt;x&lt;/script&gt;</code></pre>\n"},
		{"<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
		{"[ok](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">ok</a></p>` + "\n"},
		{"[bad](javascript:alert(1))", "<p>bad)</p>\n"}, // the link ends at the first ")"; no javascript: link
		{`[q](https://x.example/"onmouseover=alert(1))`, `<p><a href="https://x.example/&#34;onmouseover=alert(1" rel="noopener noreferrer">q</a>)</p>` + "\n"},
		{"2 * 3 * 4 and snake_case_name", "<p>2 * 3 * 4 and snake_case_name</p>\n"},
		{"#hashtag", "<p>#hashtag</p>\n"},
		{"_em_ and __strong__", "<p><em>em</em> and <strong>strong</strong></p>\n"},
		{"| Test | Result |\n|:---|---:|\n| `TestA` | **fail** |\n| B \\| C |\n\nafter",
			"<div class=\"table-wrap\"><table class=\"md\">\n<thead><tr><th>Test</th><th class=\"al-r\">Result</th></tr></thead>\n<tbody>\n" +
				"<tr><td><code>TestA</code></td><td class=\"al-r\"><strong>fail</strong></td></tr>\n<tr><td>B | C</td><td class=\"al-r\"></td></tr>\n</tbody></table></div>\n<p>after</p>\n"},
		{"a | b\n--|--\n1 | 2", "<div class=\"table-wrap\"><table class=\"md\">\n<thead><tr><th>a</th><th>b</th></tr></thead>\n<tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table></div>\n"},
		{"a | b\n---|---|---\n", "<p>a | b\n---|---|---</p>\n"}, // header and delimiter row differ in cells: not a table
		{"> quoted **text**\n> second line\n>\n> - item\n\nout",
			"<blockquote>\n<p>quoted <strong>text</strong>\nsecond line</p>\n<ul>\n<li>item</li>\n</ul>\n</blockquote>\n<p>out</p>\n"},
		{"> > nested", "<blockquote>\n<blockquote>\n<p>nested</p>\n</blockquote>\n</blockquote>\n"},
		{"~~~text\n--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1\n~~~", "<pre><code>--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1</code></pre>\n"},
		{"line one\\\nline two", "<p>line one<br>\nline two</p>\n"},
		{"line one  \nline two ", "<p>line one  <br>\nline two</p>\n"},
		{"a\n\n---\n\nb", "<p>a</p>\n<hr>\n<p>b</p>\n"},
		{"``a ` b``", "<p><code>a ` b</code></p>\n"},
		{`\*not em\*`, "<p>*not em*</p>\n"},
		{"- item\n  continued", "<ul>\n<li>item\ncontinued</li>\n</ul>\n"},
	}
	for _, tt := range tests {
		if got := string(renderMarkdown(tt.in)); got != tt.want {
			t.Errorf("renderMarkdown(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestSampleHistory: the earlier versions of samples are valid, older than the sample,
// and chained as the binding defines previousValue: each version's previousValue is
// the value of the version before, and the sample's is the newest earlier version's.
func TestSampleHistory(t *testing.T) {
	older, err := loadSampleHistory()
	if err != nil {
		t.Fatal(err)
	}
	samples, _ := loadSamples()
	current := map[string]*reports.Report{}
	for _, l := range samples {
		current[l.Report.ID] = l.Report
	}
	byID := map[string][]*reports.Report{}
	for _, l := range older {
		byID[l.Report.ID] = append(byID[l.Report.ID], l.Report)
	}
	if len(byID) < 3 {
		t.Fatalf("history for %d samples, want at least 3", len(byID))
	}
	values := func(r *reports.Report) (cur, prev map[string]reports.Value) {
		cur, prev = map[string]reports.Value{}, map[string]reports.Value{}
		for _, s := range r.Sections {
			for _, m := range s.Items {
				cur[s.Title+"/"+m.Label], prev[s.Title+"/"+m.Label] = m.Value, m.PreviousValue
			}
		}
		return cur, prev
	}
	for id, versions := range byID {
		chain := append(versions, current[id])
		if current[id] == nil {
			t.Fatalf("history for %s, which is not a sample", id)
		}
		for i := 1; i < len(chain); i++ {
			if !chain[i-1].UpdatedAt.Before(chain[i].UpdatedAt) {
				t.Errorf("%s: version %d is not older than the next", id, i-1)
			}
			before, _ := values(chain[i-1])
			_, prev := values(chain[i])
			for k, v := range prev {
				if !v.Equal(before[k]) {
					t.Errorf("%s version %d: previousValue of %s is %v, the version before has %v", id, i, k, v, before[k])
				}
			}
		}
	}
}

func TestSamplesValid(t *testing.T) {
	loaded, diags := loadSamples()
	if len(diags) > 0 {
		t.Fatalf("invalid samples: %v", diags)
	}
	if len(loaded) < 12 {
		t.Errorf("%d samples, want at least 12", len(loaded))
	}
	statuses := map[reports.Status]int{}
	categories := map[string]int{}
	for _, l := range loaded {
		statuses[l.Report.Status]++
		categories[l.Report.Category]++
		kinds := map[reports.SectionType]bool{}
		for _, s := range l.Report.Sections {
			kinds[s.Type] = true
		}
		if len(kinds) == 0 {
			t.Errorf("sample %s has no sections", l.Report.ID)
		}
	}
	for _, s := range []reports.Status{reports.StatusPassing, reports.StatusWarning, reports.StatusFailing, reports.StatusInfo} {
		if statuses[s] == 0 {
			t.Errorf("no sample with status %s", s)
		}
	}
	for _, c := range []string{"ci", "security", "performance", "accessibility"} {
		if categories[c] == 0 {
			t.Errorf("no sample in category %s", c)
		}
	}
}

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCmdCheck(t *testing.T) {
	dir := t.TempDir()
	writeReport(t, dir, testReport("good", "Good", "ci", reports.StatusPassing, testTime))
	code, out, _ := runCmd(t, "", "check", dir)
	if code != 0 || !strings.Contains(out, "1 valid, 0 invalid") {
		t.Errorf("check of a valid dir: %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"id":"bad","title":"","category":"ci","status":"red","summary":"","updatedAt":"2025-01-01T00:00:00Z","sections":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "", "check", dir)
	if code != 1 || !strings.Contains(out, "INVALID  "+filepath.Join(dir, "bad.json")) || !strings.Contains(out, "at /status") ||
		!strings.Contains(out, "at /title") || !strings.Contains(out, "1 valid, 1 invalid") {
		t.Errorf("check with an invalid file: %d\n%s", code, out)
	}
	if code, _, _ := runCmd(t, "", "check", filepath.Join(dir, "missing")); code != 2 {
		t.Errorf("check of a missing dir: exit %d, want 2", code)
	}
	if code, _, _ := runCmd(t, "", "check"); code != 2 {
		t.Errorf("check without a dir: exit %d, want 2", code)
	}
}

func TestCmdPublishAndImport(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	data, err := reports.Encode(testReport("pub", "Published", "ci", reports.StatusWarning, testTime))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(src, "anything.json")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "publish", "-dir", dst, f)
	if code != 0 || !strings.Contains(out, "published "+filepath.Join(dst, "pub.json")) {
		t.Fatalf("publish: %d %s %s", code, out, errs)
	}
	if _, err := reports.LoadFile(filepath.Join(dst, "pub.json")); err != nil {
		t.Errorf("published file: %v", err)
	}
	if code, _, errs := runCmd(t, "", "publish", "-dir", dst, filepath.Join(src, "missing.json")); code != 1 || !strings.Contains(errs, "nothing written") {
		t.Errorf("publish of a missing file: %d %s", code, errs)
	}
	if code, _, _ := runCmd(t, "", "publish", f); code != 2 {
		t.Errorf("publish without -dir: exit %d", code)
	}

	run1 := `{"Time":"2025-06-01T10:00:00Z","Action":"run","Package":"p","Test":"TestA"}
{"Time":"2025-06-01T10:00:01Z","Action":"fail","Package":"p","Test":"TestA","Elapsed":1}
{"Time":"2025-06-01T10:00:01Z","Action":"fail","Package":"p","Elapsed":1}
`
	code, out, errs = runCmd(t, run1, "import", "gotest", "-dir", dst, "-id", "unit", "-title", "Unit tests")
	if code != 0 || !strings.Contains(out, "failing") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	run2 := strings.ReplaceAll(run1, `"fail"`, `"pass"`)
	if code, out, errs := runCmd(t, run2, "import", "gotest", "-dir", dst, "-id", "unit"); code != 0 {
		t.Fatalf("second import: %d %s %s", code, out, errs)
	}
	r, err := reports.LoadFile(filepath.Join(dst, "unit.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != reports.StatusPassing {
		t.Errorf("status after the second import = %s", r.Status)
	}
	var failedPrev reports.Value
	for _, it := range r.Sections[0].Items {
		if it.Label == "Failed" {
			failedPrev = it.PreviousValue
		}
	}
	if v, ok := failedPrev.Number(); !ok || v != 1 {
		t.Errorf("Failed previousValue = %v, want 1 from the first import", failedPrev)
	}
	if code, _, errs := runCmd(t, "garbage", "import", "gotest", "-dir", dst); code != 1 || !strings.Contains(errs, "no `go test -json` events") {
		t.Errorf("import of garbage: %d %s", code, errs)
	}
	if code, _, _ := runCmd(t, "", "import", "junit", "-dir", dst); code != 2 {
		t.Errorf("import junit: exit %d, want 2", code)
	}
}

func TestServeFlags(t *testing.T) {
	if code, _, errs := runCmd(t, "", "-nope"); code != 2 || !strings.Contains(errs, "flag provided but not defined") {
		t.Errorf("unknown flag: %d %s", code, errs)
	}
	if code, _, errs := runCmd(t, "", "-h"); code != 0 || !strings.Contains(errs, "-dir DIR") {
		t.Errorf("-h: %d %s", code, errs)
	}
	code, _, errs := runCmd(t, "", "-dir", filepath.Join(t.TempDir(), "missing"), "-data", t.TempDir())
	if code != 1 || !strings.Contains(errs, "reports directory") {
		t.Errorf("missing -dir: %d %s", code, errs)
	}
}

// TestProducersMarkdownRenders: the Markdown that report producers in this repository
// write — the built-in samples, `import gotest` and the showcase of the layout test —
// renders without leftover syntax (a literal **, a fence, a table row, a quote marker
// or a bullet outside preformatted text), so the documented subset covers it.
func TestProducersMarkdownRenders(t *testing.T) {
	var sources []string
	samples, _ := loadSamples()
	f, err := os.Open("../../bindings/reports/testdata/gotest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	imported, err := reports.ImportGoTest(f, reports.GoTestOptions{ID: "unit-tests"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append([]*reports.Report{imported, showcase()}, func() (rs []*reports.Report) {
		for _, l := range samples {
			rs = append(rs, l.Report)
		}
		return rs
	}()...) {
		for _, s := range r.Sections {
			if s.Type == reports.SectionMarkdown {
				sources = append(sources, s.Content)
			}
		}
	}
	if len(sources) < 8 {
		t.Fatalf("only %d Markdown sections found", len(sources))
	}
	pre := regexp.MustCompile(`(?s)<pre>.*?</pre>`)
	tag := regexp.MustCompile(`<[^>]+>`)
	leftover := regexp.MustCompile("(?m)\\*\\*|```|~~~|^\\s*\\|.*\\|\\s*$|^\\s*&gt;|^\\s*[-*+] |^#{1,6} ")
	for _, src := range sources {
		html := string(renderMarkdown(src))
		text := tag.ReplaceAllString(pre.ReplaceAllString(html, ""), "")
		if m := leftover.FindString(text); m != "" {
			t.Errorf("rendered Markdown keeps %q as text:\n%s\nfrom\n%s", m, html, src)
		}
	}
	// The check can fail: rows without a delimiter row are no table and stay as text.
	if text := tag.ReplaceAllString(string(renderMarkdown("| a | b |\n| c | d |")), ""); !leftover.MatchString(text) {
		t.Errorf("the leftover check does not see literal table rows in %q", text)
	}
}
