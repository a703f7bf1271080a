package main

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxMarkdownSection is the most Markdown of one section the inbox renders. Longer
// content is cut at the last line break before the cap and the page says so: a report
// of megabytes of prose is a producer's mistake, and the full text stays available
// through REPORTS_GET and report://{id}.
const maxMarkdownSection = 256 << 10

// maxQuoteDepth bounds nested block quotes; deeper markers are shown as text.
const maxQuoteDepth = 8

// maxInlineDepth bounds nested emphasis and link text; deeper markup is shown as text.
const maxInlineDepth = 6

// renderedMarkdown is a Markdown section rendered for the inbox.
type renderedMarkdown struct {
	HTML template.HTML
	// Truncated is set when the section exceeded maxMarkdownSection; Shown and Total
	// are then the bytes rendered and the bytes of the section.
	Truncated    bool
	Shown, Total int
}

// renderMarkdown turns the Markdown of a report section into HTML. It supports the
// subset report producers write, documented in the README: ATX headings, paragraphs,
// bullet and numbered lists, fenced code blocks, block quotes, GFM tables (with column
// alignment), thematic breaks, inline code, **strong**, *emphasis*, backslash escapes
// and [links](https://…). Everything else is escaped: raw HTML in the input is shown as
// text, never interpreted. Links are kept only for http, https and mailto URLs.
//
// Rendering takes time linear in the input (every search for a closing delimiter is
// remembered, so no byte is scanned more than a bounded number of times), and input
// beyond maxMarkdownSection is cut with a notice.
func renderMarkdown(src string) template.HTML {
	return renderMarkdownSection(src).HTML
}

// renderMarkdownSection is renderMarkdown with the truncation made known.
func renderMarkdownSection(src string) renderedMarkdown {
	out := renderedMarkdown{Total: len(src)}
	if len(src) > maxMarkdownSection {
		cut := strings.LastIndexByte(src[:maxMarkdownSection], '\n')
		if cut < maxMarkdownSection/2 {
			cut = maxMarkdownSection
			for cut > 0 && !utf8.RuneStart(src[cut]) {
				cut--
			}
		}
		src = src[:cut]
		out.Truncated = true
	}
	out.Shown = len(src)
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	renderBlocks(&b, lines, 0)
	if out.Truncated {
		fmt.Fprintf(&b, "<p class=\"notice\" role=\"note\">Section cut: %s of %s shown. The full text is in the report file and in REPORTS_GET.</p>\n",
			byteSize(out.Shown), byteSize(out.Total))
	}
	out.HTML = template.HTML(b.String())
	return out
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// isDelimRow reports whether s is a GFM table delimiter row: cells of one or more
// '-' with optional ':' at either end, separated by '|', with optional outer pipes.
func isDelimRow(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || !strings.ContainsRune(s, '-') {
		return false
	}
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	for cell := range strings.SplitSeq(s, "|") {
		c := strings.TrimSpace(cell)
		c = strings.TrimPrefix(c, ":")
		c = strings.TrimSuffix(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// renderBlocks renders lines as block-level Markdown at quote depth depth.
func renderBlocks(b *strings.Builder, lines []string, depth int) {
	var para []string
	list := "" // "ul", "ol" or ""
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.TrimRight(strings.Join(para, "\n"), " \t"), 0) + "</p>\n")
			para = nil
		}
	}
	closeList := func() {
		if list != "" {
			b.WriteString("</" + list + ">\n")
			list = ""
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case fenceOf(trimmed) != "":
			flushPara()
			closeList()
			open := fenceOf(trimmed)
			indent := len(line) - len(strings.TrimLeft(line, " "))
			var code []string
			for i++; i < len(lines); i++ {
				t := strings.TrimSpace(lines[i])
				if strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "" {
					break
				}
				code = append(code, trimIndent(lines[i], indent))
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
		case trimmed == "":
			flushPara()
			closeList()
		case strings.HasPrefix(trimmed, ">") && depth < maxQuoteDepth:
			flushPara()
			closeList()
			var quoted []string
			for ; i < len(lines); i++ {
				t := strings.TrimSpace(lines[i])
				if !strings.HasPrefix(t, ">") {
					break
				}
				t = t[1:]
				if strings.HasPrefix(t, " ") {
					t = t[1:]
				}
				quoted = append(quoted, t)
			}
			i--
			b.WriteString("<blockquote>\n")
			renderBlocks(b, quoted, depth+1)
			b.WriteString("</blockquote>\n")
		case headingLevel(trimmed) > 0:
			flushPara()
			closeList()
			level := headingLevel(trimmed)
			text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[level:]), "#"))
			// Headings inside a report start at h3: the page and the report own h1 and h2.
			h := string(rune('0' + min(level+2, 6)))
			b.WriteString("<h" + h + ">" + inline(text, 0) + "</h" + h + ">\n")
		case strings.Contains(trimmed, "|") && i+1 < len(lines) && isDelimRow(lines[i+1]) &&
			len(splitRow(trimmed)) == len(splitRow(strings.TrimSpace(lines[i+1]))):
			flushPara()
			closeList()
			i = renderTable(b, lines, i)
		case isThematicBreak(trimmed):
			flushPara()
			closeList()
			b.WriteString("<hr>\n")
		case bulletItem(trimmed) != "":
			flushPara()
			if list != "ul" {
				closeList()
				b.WriteString("<ul>\n")
				list = "ul"
			}
			item, next := listItem(bulletItem(trimmed), lines, i)
			i = next
			b.WriteString("<li>" + inline(item, 0) + "</li>\n")
		case orderedItem(trimmed) != "":
			flushPara()
			if list != "ol" {
				closeList()
				b.WriteString("<ol>\n")
				list = "ol"
			}
			item, next := listItem(orderedItem(trimmed), lines, i)
			i = next
			b.WriteString("<li>" + inline(item, 0) + "</li>\n")
		default:
			closeList()
			// Trailing spaces stay: two of them make a hard line break.
			para = append(para, strings.TrimLeft(line, " \t"))
		}
	}
	flushPara()
	closeList()
}

// listItem gathers the continuation lines of a list item (indented, non-blank lines
// that start no block of their own) and returns the item's text and the index of its
// last line.
func listItem(first string, lines []string, i int) (string, int) {
	parts := []string{first}
	for i+1 < len(lines) {
		next := lines[i+1]
		t := strings.TrimSpace(next)
		if t == "" || !strings.HasPrefix(next, " ") || bulletItem(t) != "" || orderedItem(t) != "" || fenceOf(t) != "" {
			break
		}
		parts = append(parts, t)
		i++
	}
	return strings.Join(parts, "\n"), i
}

// fenceOf returns the opening fence (``` or ~~~, or longer) that starts s, or "".
func fenceOf(s string) string {
	for _, c := range []string{"`", "~"} {
		n := len(s) - len(strings.TrimLeft(s, c))
		if n >= 3 && (c == "~" || !strings.Contains(s[n:], "`")) {
			return s[:n]
		}
	}
	return ""
}

// trimIndent removes up to n leading spaces (the fence's indentation) from s.
func trimIndent(s string, n int) string {
	for n > 0 && strings.HasPrefix(s, " ") {
		s = s[1:]
		n--
	}
	return s
}

// isThematicBreak reports whether s is three or more of the same '*', '-' or '_',
// possibly with spaces between.
func isThematicBreak(s string) bool {
	if s == "" || strings.IndexByte("*-_", s[0]) < 0 {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// headingLevel returns 1–6 for an ATX heading line ("## text"), else 0.
func headingLevel(s string) int {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n == 0 || n > 6 || (len(s) > n && s[n] != ' ') {
		return 0
	}
	return n
}

// bulletItem returns the text of a "- text" (or * or +) line, or "".
func bulletItem(s string) string {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return strings.TrimSpace(s[2:])
	}
	return ""
}

// orderedItem returns the text of a "1. text" or "1) text" line, or "".
func orderedItem(s string) string {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || (s[i] != '.' && s[i] != ')') || s[i+1] != ' ' {
		return ""
	}
	return strings.TrimSpace(s[i+2:])
}

// splitRow splits a table row into its cells: on '|' not escaped by a backslash, with
// an optional leading and trailing pipe. "\|" in a cell becomes "|".
func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// renderTable renders the GFM table whose header is lines[i] and returns the index of
// its last line. Rows with fewer cells are padded, extra cells dropped, as in GFM.
func renderTable(b *strings.Builder, lines []string, i int) int {
	header := splitRow(lines[i])
	var align []string
	for _, d := range splitRow(lines[i+1]) {
		left, right := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":")
		switch {
		case left && right:
			align = append(align, ` class="al-c"`)
		case right:
			align = append(align, ` class="al-r"`)
		default:
			align = append(align, "")
		}
	}
	b.WriteString("<div class=\"table-wrap\"><table class=\"md\">\n<thead><tr>")
	for c, h := range header {
		b.WriteString("<th" + align[c] + ">" + inline(h, 0) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	i += 2
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || !strings.Contains(t, "|") {
			break
		}
		cells := splitRow(t)
		b.WriteString("<tr>")
		for c := range header {
			v := ""
			if c < len(cells) {
				v = cells[c]
			}
			b.WriteString("<td" + align[c] + ">" + inline(v, 0) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></div>\n")
	return i - 1
}

// finder finds delimiters in one string and remembers each answer, so that repeated
// searches from increasing positions scan every byte at most once per delimiter. That
// is what keeps inline rendering linear on input such as a megabyte of "[".
type finder struct {
	s    string
	memo [len(delimiters)]struct{ from, at int } // by index in delimiters; from 0 = unused
	used [len(delimiters)]bool
	// runs lists the start of every backtick run by its length, found in one pass on
	// first use; runNext[n] is how many of runs[n] lie behind the cursor.
	runs    map[int][]int
	runNext map[int]int
}

// nextRun returns the start of the first run of exactly n backticks at or after
// from, or -1.
func (f *finder) nextRun(n, from int) int {
	if f.runs == nil {
		f.runs, f.runNext = map[int][]int{}, map[int]int{}
		for i := 0; i < len(f.s); {
			if f.s[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(f.s) && f.s[j] == '`' {
				j++
			}
			f.runs[j-i] = append(f.runs[j-i], i)
			i = j
		}
	}
	starts := f.runs[n]
	k := f.runNext[n]
	for k < len(starts) && starts[k] < from {
		k++
	}
	f.runNext[n] = k
	if k == len(starts) {
		return -1
	}
	return starts[k]
}

// delimiters are the closers inline searches for.
var delimiters = [...]string{"]", ")", "*", "**", "_", "__"}

// next returns the index of the first occurrence of pat (one of delimiters) at or
// after from, or -1.
func (f *finder) next(pat string, from int) int {
	k := 0
	for k < len(delimiters) && delimiters[k] != pat {
		k++
	}
	if k == len(delimiters) {
		panic("mdhtml: unknown delimiter " + pat)
	}
	if m := f.memo[k]; f.used[k] && m.from <= from && (m.at < 0 || m.at >= from) {
		return m.at
	}
	at := -1
	if from <= len(f.s) {
		if j := strings.Index(f.s[from:], pat); j >= 0 {
			at = from + j
		}
	}
	f.memo[k], f.used[k] = struct{ from, at int }{from, at}, true
	return at
}

const inlineSpecial = "\\`*_[\n"

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// inline escapes s and renders its code spans, strong and emphasis, links, backslash
// escapes and line breaks (a soft break is a space; a line ending in a backslash or two
// spaces is a hard break). depth counts enclosing inline elements.
func inline(s string, depth int) string {
	var b strings.Builder
	f := &finder{s: s}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]()#+-.!|>~{}<\"'", s[i+1]) >= 0:
			b.WriteString(html.EscapeString(s[i+1 : i+2]))
			i += 2
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("<br>\n")
			i += 2
			continue
		case c == '\n':
			if strings.HasSuffix(s[:i], "  ") {
				b.WriteString("<br>")
			}
			b.WriteString("\n")
			i++
			continue
		case c == '`':
			n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
			// The closing run has exactly n backticks.
			if end := f.nextRun(n, i+n); end >= 0 {
				code := strings.ReplaceAll(s[i+n:end], "\n", " ")
				if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				b.WriteString("<code>" + html.EscapeString(code) + "</code>")
				i = end + n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		case (c == '*' || c == '_') && depth < maxInlineDepth:
			double := i+1 < len(s) && s[i+1] == c
			delim := s[i : i+1]
			if double {
				delim = s[i : i+2]
			}
			start := i + len(delim)
			leftOK := start < len(s) && s[start] != ' ' && s[start] != '\n'
			if c == '_' && i > 0 && isAlnum(s[i-1]) {
				leftOK = false // snake_case_name is not emphasis
			}
			if leftOK {
				end := f.next(delim, start)
				if !double {
					// A single delimiter must not close on half of a double one.
					for end >= 0 && end+1 < len(s) && s[end+1] == c {
						end = f.next(delim, end+2)
					}
				}
				if end > start && s[end-1] != ' ' && (c != '_' || end+len(delim) >= len(s) || !isAlnum(s[end+len(delim)])) {
					tag := "em"
					if double {
						tag = "strong"
					}
					b.WriteString("<" + tag + ">" + inline(s[start:end], depth+1) + "</" + tag + ">")
					i = end + len(delim)
					continue
				}
			}
			b.WriteString(delim)
			i += len(delim)
			continue
		case c == '[' && depth < maxInlineDepth:
			// [text](href): text holds no ']' and href no ')' or space.
			closeText := f.next("]", i+1)
			if closeText >= 0 && closeText+1 < len(s) && s[closeText+1] == '(' {
				end := f.next(")", closeText+2)
				if end >= 0 {
					href := strings.TrimSpace(s[closeText+2 : end])
					text := s[i+1 : closeText]
					if !strings.ContainsAny(href, " \n") {
						if safeURL(href) {
							b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer">` + inline(text, depth+1) + "</a>")
						} else {
							b.WriteString(inline(text, depth+1))
						}
						i = end + 1
						continue
					}
				}
			}
			b.WriteString("[")
			i++
			continue
		}
		// Copy up to the next character that may start markup.
		n := strings.IndexAny(s[i+1:], inlineSpecial)
		if n < 0 {
			n = len(s) - i - 1
		}
		b.WriteString(html.EscapeString(s[i : i+1+n]))
		i += 1 + n
	}
	return b.String()
}

func safeURL(href string) bool {
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
		return true
	}
	return false
}
