package catalog

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ParseNotebook reads a Markdown notebook. Its title is the first "# " heading, its
// description the first paragraph of prose, and each fenced ```sql block is a cell:
// a named query "cell-N" (numbered from 1 in file order) whose description is the
// nearest heading above it. A line "<!-- model: NAME -->" chooses the model the
// cells run against (by default the package's first model, by name).
//
// Its lines are read by scanNotebook, as search reads them (NotebookProse).
// Fences follow CommonMark: a block closes only at a fence of its own
// character at least as long, and one never closed runs to the end of the
// file. What the author likely did not mean (a fence not closed, several model
// lines) is in the notebook's Problems.
func ParseNotebook(text string) *Notebook {
	nb := &Notebook{Markdown: text}
	heading := ""
	var para []string
	var cell []string
	cellLine := 0  // the file's line of cell[0]
	modelLine := 0 // the file's line of the model line in force
	addCell := func() {
		sql := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.Join(cell, "\n")), ";"))
		if sql != "" {
			n := len(nb.Cells) + 1
			line, col := startOf(strings.Join(cell, "\n"), cellLine)
			nb.Cells = append(nb.Cells, &Query{Name: fmt.Sprintf("cell-%d", n), Description: heading, SQL: sql, Line: line, Col: col})
		}
	}
	open := scanNotebook(text, func(l mdLine) {
		switch l.role {
		case roleFenceOpen:
			cell, cellLine = nil, l.n+1
		case roleCode:
			cell = append(cell, l.raw)
		case roleFenceClose:
			if l.block.sql() {
				addCell()
			}
		case roleComment:
			inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l.text, "<!--"), "-->"))
			if name, ok := strings.CutPrefix(inner, "model:"); ok {
				name = strings.TrimSpace(name)
				if modelLine > 0 {
					nb.Problems = append(nb.Problems, fmt.Sprintf("line %d: a second <!-- model: … --> line (model %q after model %q on line %d): the last one is used, so its cells run against %q; keep one", l.n, name, nb.ModelName, modelLine, name))
				}
				nb.ModelName, modelLine = name, l.n
			}
		case roleHeading:
			if nb.Title == "" && l.level == 1 {
				nb.Title = l.text
			}
			heading = l.text
		case roleProse:
			if nb.Description == "" {
				if l.text == "" {
					if len(para) > 0 {
						nb.Description = strings.Join(para, " ")
					}
				} else {
					para = append(para, l.text)
				}
			}
		}
	})
	if open != nil {
		// CommonMark: the block runs to the end of the document.
		if open.sql() {
			addCell()
			nb.Problems = append(nb.Problems, fmt.Sprintf("line %d: the %s fence is not closed, so its cell runs to the end of the file; close it with a line %s", open.line, open.mark(), strings.Repeat(string(open.char), open.n)))
		} else {
			nb.Problems = append(nb.Problems, fmt.Sprintf("line %d: the %s fence is not closed, so the rest of the file is its code (no cell after it); close it with a line %s", open.line, open.mark(), strings.Repeat(string(open.char), open.n)))
		}
	}
	if nb.Description == "" && len(para) > 0 {
		nb.Description = strings.Join(para, " ")
	}
	return nb
}

// lineRole is what a line of a notebook is (scanNotebook).
type lineRole uint8

const (
	roleProse      lineRole = iota // text, or a blank line
	roleHeading                    // an ATX heading
	roleComment                    // a line that is one HTML comment ("<!-- model: … -->")
	roleFenceOpen                  // the opening fence of a code block
	roleCode                       // a line inside a code block
	roleFenceClose                 // the fence that closes a code block
)

// mdLine is one line of a notebook as scanNotebook reads it.
type mdLine struct {
	n     int // the file's line, from 1
	role  lineRole
	raw   string // the line as written (without its line end)
	text  string // the line trimmed; a heading's text without its marks
	level int    // a heading's level
	block *fence // the code block the line opens, is in or closes
}

// scanNotebook is the one reader of a notebook's Markdown: ParseNotebook and
// NotebookProse both read its lines through it, so they cannot disagree on
// what is a cell, a heading or prose. It calls each with every line of md in
// order ("\r\n" read as "\n") and its role, and returns the code block still
// open at the end (nil when none), which CommonMark runs to the end of the
// document.
//
// Fences follow CommonMark (fenceOpen, fence.closes): a block closes only at a
// fence of its own character at least as long; a fence may be indented under
// a list item (listContext). Headings are ATX headings (atxHeading); a line
// that is one HTML comment is a comment. Any other line is prose.
func scanNotebook(md string, each func(mdLine)) *fence {
	var open *fence // the fenced block the line is in, nil outside one
	listIndent := 0
	for i, raw := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		l := mdLine{n: i + 1, raw: raw}
		if open != nil {
			l.block, l.role = open, roleCode
			if open.closes(raw) {
				l.role, open = roleFenceClose, nil
			}
			each(l)
			continue
		}
		if f, ok := fenceOpen(raw, listIndent); ok {
			f.line = i + 1
			open = &f
			l.role, l.block = roleFenceOpen, open
			each(l)
			continue
		}
		listIndent = listContext(raw, listIndent)
		l.text = strings.TrimSpace(raw)
		if strings.HasPrefix(l.text, "<!--") && strings.HasSuffix(l.text, "-->") {
			l.role = roleComment
		} else if h, level, ok := atxHeading(l.text); ok {
			l.role, l.text, l.level = roleHeading, h, level
		}
		each(l)
	}
	return open
}

// fence is an open fenced code block (CommonMark): its character (` or ~), how
// many of it opened it, the indentation of its container (a list item's
// content), and the file's line of the opening fence.
type fence struct {
	char       byte
	n          int
	base, line int
	info       string // the info string, trimmed ("sql", "text")
}

func (f *fence) mark() string { return strings.Repeat(string(f.char), f.n) }

// sql reports whether f's block is a cell: its info string's first word is
// "sql", in any case.
func (f *fence) sql() bool {
	lang, _, _ := strings.Cut(f.info, " ")
	return strings.EqualFold(lang, "sql")
}

// indentOf is the width of line's leading spaces and tabs (a tab to the next
// multiple of 4, as CommonMark counts it), and the rest of the line.
func indentOf(line string) (int, string) {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, line[i:]
		}
	}
	return w, ""
}

// fenceOpen reads line as an opening code fence: at most 3 spaces of
// indentation (past a list item's content column, listIndent, when the line is
// indented that far), then 3 or more backticks or tildes, then the info string
// (trimmed, kept in the fence), which after backticks holds no backtick.
func fenceOpen(line string, listIndent int) (fence, bool) {
	ind, rest := indentOf(line)
	base := 0
	if listIndent > 0 && ind >= listIndent {
		base = listIndent
	}
	if ind-base > 3 || len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	info := strings.TrimSpace(rest[n:])
	if n < 3 || (c == '`' && strings.ContainsRune(info, '`')) {
		return fence{}, false
	}
	return fence{char: c, n: n, base: base, info: info}, true
}

// closes reports whether line closes f: at most 3 spaces of indentation past
// f's container, f's character at least as many times as it opened, then
// nothing but spaces and tabs.
func (f *fence) closes(line string) bool {
	ind, rest := indentOf(line)
	if ind-f.base > 3 {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && strings.Trim(rest[n:], " \t") == ""
}

// thematicBreak matches CommonMark's thematic break: three or more of one of
// -, * or _, spaces between them allowed.
var thematicBreak = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)

// listItem matches a list item's first line: its marker and the spaces after it.
var listItem = regexp.MustCompile(`^( {0,3}(?:[-+*]|[0-9]{1,9}[.)]))( {1,4})\S`)

// listContext is the content column of the list item the line after line is
// in (0 outside a list), given listIndent, that of line's: a list item sets it,
// and a line of text indented less than it ends the list. (Lazy continuation
// lines and nested containers other than list items are not followed: enough
// to read a fence indented under a list item as CommonMark does.)
func listContext(line string, listIndent int) int {
	if thematicBreak.MatchString(line) {
		return 0 // "* * *" and "- - -" end a list; they start none
	}
	if m := listItem.FindStringSubmatch(line); m != nil {
		return len(m[1]) + len(m[2])
	}
	if ind, rest := indentOf(line); rest != "" && ind < listIndent {
		return 0
	}
	return listIndent
}

// NotebookProse is the text of a notebook without its fenced blocks (the cells'
// SQL and any other code) and HTML comments, headings without their marks: what
// search reads of it. Its lines are read by scanNotebook, as ParseNotebook
// reads them.
func NotebookProse(md string) string {
	var b strings.Builder
	scanNotebook(md, func(l mdLine) {
		if l.role == roleProse || l.role == roleHeading {
			b.WriteString(l.text)
			b.WriteByte('\n')
		}
	})
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

// atxHeading reads line (trimmed) as CommonMark's ATX heading: 1 to 6 "#"
// then a space, a tab or nothing ("#tag" and "####### x" are text). It
// returns the heading's text, without a closing run of "#", and its level.
func atxHeading(line string) (text string, level int, ok bool) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return "", 0, false
	}
	text = strings.TrimSpace(line[level:])
	// A closing sequence: "#"s after a space, or the whole text.
	if t := strings.TrimRight(text, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		text = strings.TrimSpace(t)
	}
	return text, level, true
}
