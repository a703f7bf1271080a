package main

import (
	"html"
	"html/template"
	"net/url"
	"strings"
)

// renderMarkdown turns the Markdown of a report section into HTML. It supports the
// subset reports use — headings, paragraphs, bullet and numbered lists, fenced code,
// inline code, **bold**, *italic* and [links](http://…) — and escapes everything else:
// raw HTML in the input is shown as text, never interpreted. Links are kept only for
// http, https and mailto URLs.
func renderMarkdown(src string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var para []string
	list := "" // "ul", "ol" or ""
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inlineMarkdown(strings.Join(para, " ")) + "</p>\n")
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
		case strings.HasPrefix(trimmed, "```"):
			flushPara()
			closeList()
			var code []string
			i++
			for ; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
		case trimmed == "":
			flushPara()
			closeList()
		case strings.HasPrefix(trimmed, "#"):
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			text := strings.TrimSpace(trimmed[level:])
			if level > 6 || (len(trimmed) > level && trimmed[level] != ' ') {
				para = append(para, trimmed)
				continue
			}
			flushPara()
			closeList()
			// Headings inside a report start at h3: the page and the report own h1 and h2.
			h := string(rune('0' + min(level+2, 6)))
			b.WriteString("<h" + h + ">" + inlineMarkdown(text) + "</h" + h + ">\n")
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* "):
			flushPara()
			if list != "ul" {
				closeList()
				b.WriteString("<ul>\n")
				list = "ul"
			}
			b.WriteString("<li>" + inlineMarkdown(trimmed[2:]) + "</li>\n")
		case orderedItem(trimmed) != "":
			flushPara()
			if list != "ol" {
				closeList()
				b.WriteString("<ol>\n")
				list = "ol"
			}
			b.WriteString("<li>" + inlineMarkdown(orderedItem(trimmed)) + "</li>\n")
		default:
			if list != "" {
				closeList()
			}
			para = append(para, trimmed)
		}
	}
	flushPara()
	closeList()
	return template.HTML(b.String())
}

// orderedItem returns the text of a "1. text" line, or "".
func orderedItem(s string) string {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || s[i] != '.' || s[i+1] != ' ' {
		return ""
	}
	return strings.TrimSpace(s[i+2:])
}

// inlineMarkdown escapes s and renders code spans, bold, italics and links in it.
func inlineMarkdown(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case s[0] == '`':
			if end := strings.IndexByte(s[1:], '`'); end >= 0 {
				b.WriteString("<code>" + html.EscapeString(s[1:1+end]) + "</code>")
				s = s[end+2:]
				continue
			}
		case strings.HasPrefix(s, "**"):
			if end := strings.Index(s[2:], "**"); end > 0 {
				b.WriteString("<strong>" + inlineMarkdown(s[2:2+end]) + "</strong>")
				s = s[end+4:]
				continue
			}
		case s[0] == '*' || s[0] == '_':
			if end := strings.IndexByte(s[1:], s[0]); end > 0 && s[1] != ' ' {
				b.WriteString("<em>" + inlineMarkdown(s[1:1+end]) + "</em>")
				s = s[end+2:]
				continue
			}
		case s[0] == '[':
			if text, href, rest, ok := cutLink(s); ok {
				if safeURL(href) {
					b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer">` + inlineMarkdown(text) + "</a>")
				} else {
					b.WriteString(inlineMarkdown(text))
				}
				s = rest
				continue
			}
		}
		// Copy up to the next character that may start markup.
		n := strings.IndexAny(s[1:], "`*_[")
		if n < 0 {
			n = len(s) - 1
		}
		b.WriteString(html.EscapeString(s[:n+1]))
		s = s[n+1:]
	}
	return b.String()
}

// cutLink parses "[text](href)rest".
func cutLink(s string) (text, href, rest string, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 {
		return "", "", "", false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", "", false
	}
	return s[1:close], s[close+2 : close+2+end], s[close+2+end+1:], true
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
