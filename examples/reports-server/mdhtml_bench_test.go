package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// pathological are inputs that made a Markdown renderer quadratic: every opening
// delimiter searching the rest of the text for a closer that never comes.
var pathological = map[string]func(n int) string{
	"brackets":    func(n int) string { return strings.Repeat("[", n) },
	"link-opens":  func(n int) string { return strings.Repeat("[a](", n/4) },
	"text-close":  func(n int) string { return strings.Repeat("[a]", n/3) },
	"asterisks":   func(n int) string { return strings.Repeat("*a ", n/3) },
	"underscores": func(n int) string { return strings.Repeat(" _a", n/3) },
	"strong":      func(n int) string { return strings.Repeat("**a ", n/4) },
	"backticks":   func(n int) string { return strings.Repeat("`", n) },
	"backtick-runs": func(n int) string {
		var b strings.Builder
		for k := 1; b.Len() < n; k++ {
			b.WriteString(strings.Repeat("`", k) + " ")
		}
		return b.String()
	},
	"quotes":       func(n int) string { return strings.Repeat(">", n) },
	"quote-lines":  func(n int) string { return strings.Repeat("> > > > > > > > > > a\n", n/21) },
	"table-pipes":  func(n int) string { return "|a|\n|-|\n" + strings.Repeat("|", n) },
	"table-rows":   func(n int) string { return strings.Repeat("a|b\n", n/4) },
	"list-lines":   func(n int) string { return strings.Repeat("- a\n  b\n", n/8) },
	"nested-emph":  func(n int) string { return strings.Repeat("*_**[", n/5) },
	"escapes":      func(n int) string { return strings.Repeat(`\`, n) },
	"fence-opens":  func(n int) string { return strings.Repeat("```\n", n/4) },
	"heading-hash": func(n int) string { return strings.Repeat("#", n) },
}

// renderUncapped renders src without the section cap, to measure the renderer itself.
func renderUncapped(src string) int {
	var b strings.Builder
	renderBlocks(&b, strings.Split(src, "\n"), 0)
	return b.Len()
}

// TestRenderMarkdownLinear renders 1 MiB of each pathological input without the
// section cap. A quadratic renderer needs many seconds for the first (the previous
// one took 16 s, 118 s at 2 MiB); a linear one tens of milliseconds, about a second
// under the race detector, so the bound below is generous and still fails a
// quadratic renderer.
func TestRenderMarkdownLinear(t *testing.T) {
	const size = 1 << 20
	for name, gen := range pathological {
		src := gen(size)
		start := time.Now()
		renderUncapped(src)
		d := time.Since(start)
		t.Logf("%s: %v", name, d)
		if d > 8*time.Second {
			t.Errorf("%s: %d bytes rendered in %v; the renderer is not linear", name, len(src), d)
		}
	}
}

// TestRenderMarkdownCap: a section over the cap is cut at a line break and says so.
func TestRenderMarkdownCap(t *testing.T) {
	line := "| `TestThing` failed with *details* |\n"
	src := strings.Repeat(line, 2*maxMarkdownSection/len(line))
	r := renderMarkdownSection(src)
	if !r.Truncated || r.Total != len(src) || r.Shown > maxMarkdownSection || r.Shown%len(line) != len(line)-1 {
		t.Fatalf("truncated %v shown %d total %d", r.Truncated, r.Shown, r.Total)
	}
	if !strings.Contains(string(r.HTML), `<p class="notice" role="note">Section cut: 256.0 KiB of 512.0 KiB shown.`) {
		t.Errorf("no notice in %q", string(r.HTML)[len(r.HTML)-300:])
	}
	small := renderMarkdownSection("short")
	if small.Truncated || strings.Contains(string(small.HTML), "notice") {
		t.Errorf("a short section was cut: %+v", small)
	}
	// One huge line is cut at the cap, on a character boundary.
	huge := renderMarkdownSection(strings.Repeat("é", maxMarkdownSection))
	if !huge.Truncated || huge.Shown > maxMarkdownSection || !strings.HasPrefix(string(huge.HTML), "<p>é") {
		t.Errorf("huge line: %+v", huge.Shown)
	}
}

// BenchmarkRenderMarkdownBrackets renders n bytes of "[", the input that made the
// first renderer quadratic: "section" is what the inbox does (capped), "uncapped" the
// renderer alone.
func BenchmarkRenderMarkdownBrackets(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20, 2 << 20} {
		src := strings.Repeat("[", size)
		b.Run("section/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				renderMarkdown(src)
			}
		})
		b.Run("uncapped/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				renderUncapped(src)
			}
		})
	}
}
