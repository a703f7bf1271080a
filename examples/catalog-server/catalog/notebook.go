package catalog

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ParseNotebook reads a Markdown notebook. Its title is the first "# " heading, its
// description the first paragraph of prose, and each fenced ```sql block is a cell:
// a named query "cell-N" (numbered from 1 in file order) whose description is the
// nearest heading above it. A line "<!-- model: NAME -->" chooses the model the
// cells run against (by default the package's first model, by name).
func ParseNotebook(text string) *Notebook {
	nb := &Notebook{Markdown: text}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	heading := ""
	var para []string
	inFence, sqlFence := false, false
	var cell []string
	cellLine := 0 // the file's line of cell[0]
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") {
			if !inFence {
				inFence = true
				lang := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "```")))
				sqlFence = lang == "sql"
				cell, cellLine = nil, i+2
				continue
			}
			if sqlFence {
				sql := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.Join(cell, "\n")), ";"))
				if sql != "" {
					n := len(nb.Cells) + 1
					line, col := startOf(strings.Join(cell, "\n"), cellLine)
					nb.Cells = append(nb.Cells, &Query{Name: fmt.Sprintf("cell-%d", n), Description: heading, SQL: sql, Line: line, Col: col})
				}
			}
			inFence, sqlFence = false, false
			continue
		}
		if inFence {
			cell = append(cell, raw)
			continue
		}
		if strings.HasPrefix(line, "<!--") && strings.HasSuffix(line, "-->") {
			inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->"))
			if name, ok := strings.CutPrefix(inner, "model:"); ok {
				nb.ModelName = strings.TrimSpace(name)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			h := strings.TrimSpace(strings.TrimLeft(line, "#"))
			if nb.Title == "" && strings.HasPrefix(line, "# ") {
				nb.Title = h
			}
			heading = h
			continue
		}
		if nb.Description == "" {
			if line == "" {
				if len(para) > 0 {
					nb.Description = strings.Join(para, " ")
				}
			} else {
				para = append(para, line)
			}
		}
	}
	if nb.Description == "" && len(para) > 0 {
		nb.Description = strings.Join(para, " ")
	}
	return nb
}

// NotebookProse is the text of a notebook without its fenced blocks (the cells'
// SQL and any other code) and HTML comments, headings without their marks: what
// search reads of it.
func NotebookProse(md string) string {
	var b strings.Builder
	inFence := false
	for _, raw := range strings.Split(md, "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || (strings.HasPrefix(line, "<!--") && strings.HasSuffix(line, "-->")) {
			continue
		}
		b.WriteString(strings.TrimSpace(strings.TrimLeft(line, "#")))
		b.WriteByte('\n')
	}
	return b.String()
}

// cutBytes is s cut to at most n bytes, at a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
