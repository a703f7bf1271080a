package catalog

import (
	"slices"
	"strings"
	"testing"
)

// TestNotebookFences: fenced blocks as CommonMark reads them. Before, any line
// starting with ``` closed a block (```sql, or the ``` a ````-fenced example
// holds, after which every later fence flipped), an unclosed final ```sql
// block was dropped without a word, and of several model lines the last won
// silently.
func TestNotebookFences(t *testing.T) {
	for _, tc := range []struct {
		name     string
		md       string
		cells    []string // the cells' SQL
		desc     string
		model    string
		problems []string // substrings, one per problem, in order
	}{
		{
			name:  "plain",
			md:    "# T\n\nAbout it.\n\n```sql\nSELECT 1\n```\n",
			cells: []string{"SELECT 1"}, desc: "About it.",
		},
		{
			name:     "unclosed final sql fence",
			md:       "# T\n\nAbout it.\n\n```sql\nSELECT 1\n```\n\n```sql\nSELECT 2;\n",
			cells:    []string{"SELECT 1", "SELECT 2"},
			desc:     "About it.",
			problems: []string{"line 9: the ``` fence is not closed, so its cell runs to the end of the file; close it with a line ```"},
		},
		{
			name:     "unclosed other fence swallows what follows",
			md:       "About it.\n\n```text\nnotes\n\n```sql\nSELECT 1\n",
			desc:     "About it.",
			problems: []string{"line 3: the ``` fence is not closed, so the rest of the file is its code"},
		},
		{
			name: "four backticks wrap a three-backtick example",
			md: "# T\n\nHow to write a cell:\n\n````markdown\n```sql\nSELECT 'example'\n```\n````\n\nThe real ones:\n\n" +
				"```sql\nSELECT 1\n```\n\n```sql\nSELECT 2\n```\n",
			cells: []string{"SELECT 1", "SELECT 2"}, desc: "How to write a cell:",
		},
		{
			name:  "four-backtick sql cell holding a ``` line",
			md:    "Prose.\n\n````sql\nSELECT '\n```\n' AS fence\n````\n\n```sql\nSELECT 2\n```\n",
			cells: []string{"SELECT '\n```\n' AS fence", "SELECT 2"}, desc: "Prose.",
		},
		{
			name:  "```sql inside a block does not close it",
			md:    "Prose.\n\n```\nexample\n```sql\nnot a cell\n```\n\n```sql\nSELECT 3\n```\n",
			cells: []string{"SELECT 3"}, desc: "Prose.",
		},
		{
			name:  "a closing fence may be longer, not shorter, nor carry text",
			md:    "```sql\nSELECT 1\n``` not yet\n``\n`````\n",
			cells: []string{"SELECT 1\n``` not yet\n``"},
		},
		{
			name:  "tildes close only tildes",
			md:    "~~~sql\nSELECT 1\n```\n~~~\n",
			cells: []string{"SELECT 1\n```"},
		},
		{
			name:  "up to 3 spaces of indentation",
			md:    "   ```sql\n   SELECT 1\n   ```\n",
			cells: []string{"SELECT 1"},
		},
		{
			name: "4 spaces: indented code, not a fence",
			md:   "Prose.\n\n    ```sql\n    SELECT 1\n    ```\n",
			desc: "Prose.",
		},
		{
			name:  "a fence under a list item",
			md:    "1. Count them:\n\n    ```sql\n    SELECT count(*) FROM t\n    ```\n2. Done.\n",
			cells: []string{"SELECT count(*) FROM t"}, desc: "1. Count them:",
		},
		{
			name:     "several model lines",
			md:       "<!-- model: a -->\n\nProse.\n\n<!-- model: b -->\n\n```sql\nSELECT 1\n```\n",
			cells:    []string{"SELECT 1"},
			desc:     "Prose.",
			model:    "b",
			problems: []string{`line 5: a second <!-- model: … --> line (model "b" after model "a" on line 1): the last one is used, so its cells run against "b"`},
		},
		{
			name:  "a model line inside a block is code",
			md:    "<!-- model: a -->\n\n```html\n<!-- model: b -->\n```\n",
			model: "a",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := ParseNotebook(tc.md)
			var got []string
			for _, c := range nb.Cells {
				got = append(got, c.SQL)
			}
			if strings.Join(got, "\x00") != strings.Join(tc.cells, "\x00") {
				t.Errorf("cells %q, want %q", got, tc.cells)
			}
			if nb.Description != tc.desc {
				t.Errorf("description %q, want %q", nb.Description, tc.desc)
			}
			if nb.ModelName != tc.model {
				t.Errorf("model %q, want %q", nb.ModelName, tc.model)
			}
			if len(nb.Problems) != len(tc.problems) {
				t.Fatalf("problems %q, want %d", nb.Problems, len(tc.problems))
			}
			for i, p := range tc.problems {
				if !strings.Contains(nb.Problems[i], p) {
					t.Errorf("problem %q, want %q in it", nb.Problems[i], p)
				}
			}
			// Search reads the same blocks as code.
			prose := NotebookProse(tc.md)
			for _, sql := range tc.cells {
				if strings.Contains(prose, sql) {
					t.Errorf("prose %q holds the cell %q", prose, sql)
				}
			}
		})
	}
}

// TestNotebookProseCRLF: search reads a notebook with CRLF line ends as
// ParseNotebook does: the prose after a fenced cell is searched. Before, the
// "\r" kept every fence from closing, and everything after the first cell was
// taken for code.
func TestNotebookProseCRLF(t *testing.T) {
	md := "# Title\r\n\r\n```sql\r\nSELECT 1\r\n```\r\n\r\nfindme after the cell\r\n"
	if nb := ParseNotebook(md); len(nb.Cells) != 1 {
		t.Fatalf("cells %+v", nb.Cells)
	}
	prose := NotebookProse(md)
	if !strings.Contains(prose, "findme after the cell") || strings.Contains(prose, "SELECT 1") {
		t.Errorf("prose %q", prose)
	}
}

// TestNotebookHeadings: headings as CommonMark reads them: "#tag" is text (a
// description), "## Part ##" is the heading "Part", and the title is the first
// level-1 heading. Before, any line starting with # was a heading.
func TestNotebookHeadings(t *testing.T) {
	nb := ParseNotebook("#hashtag and more words\n\n## Part ##\n\n# Title #\n\n```sql\nSELECT 1\n```\n")
	if nb.Title != "Title" || nb.Description != "#hashtag and more words" {
		t.Errorf("title %q, description %q", nb.Title, nb.Description)
	}
	if len(nb.Cells) != 1 || nb.Cells[0].Description != "Title" {
		t.Errorf("cells %+v", nb.Cells)
	}
	for _, tc := range []struct {
		line, text string
		level      int
		ok         bool
	}{
		{"# T", "T", 1, true}, {"#", "", 1, true}, {"###### six", "six", 6, true}, {"####### seven", "", 0, false},
		{"#tag", "", 0, false}, {"## a ##", "a", 2, true}, {"# a#", "a#", 1, true}, {"# ###", "", 1, true},
	} {
		text, level, ok := atxHeading(tc.line)
		if text != tc.text || level != tc.level || ok != tc.ok {
			t.Errorf("%q: %q %d %v", tc.line, text, level, ok)
		}
	}
}

// TestNotebookThematicBreak: "* * *" is a thematic break, not a list item: a
// fence indented four spaces after it is indented code, not a cell.
func TestNotebookThematicBreak(t *testing.T) {
	nb := ParseNotebook("# T\n\n* * *\n\n    ```sql\n    SELECT 1\n    ```\n\n- item\n\n  ```sql\n  SELECT 2\n  ```\n")
	if len(nb.Cells) != 1 || nb.Cells[0].SQL != "SELECT 2" {
		t.Errorf("cells %+v", nb.Cells)
	}
}

// TestNotebookScanAgrees: ParseNotebook and NotebookProse read a notebook's
// lines through one scanner (scanNotebook), so they agree on every line's
// role. Each tricky notebook's roles are pinned line by line (P prose, H
// heading, M comment, O opening fence, C code, X closing fence); the cells
// ParseNotebook finds are exactly the code of the sql blocks, its headings
// (title, cell descriptions) are heading lines, and NotebookProse is exactly
// the prose and heading lines.
func TestNotebookScanAgrees(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		roles    string // one letter per line
	}{
		{"nested longer fence", "# T\n````md\n```sql\nSELECT 0\n```\n````\n```sql\nSELECT 1\n```\nafter", "HOCCCXOCXP"},
		{"tilde fence holds backticks", "~~~sql\nSELECT 1\n```\n~~~\nprose", "OCCXP"},
		{"longer closing fence", "```sql\nSELECT 1\n`````\nprose", "OCXP"},
		{"indented fences", "   ```sql\n   SELECT 1\n   ```\n    ```sql\n    SELECT 2\n    ```", "OCXPPP"},
		{"fence under a list item", "1. Count:\n\n    ```sql\n    SELECT 1\n    ```\n2. Done.", "PPOCXP"},
		{"unclosed final fence", "# T\n\n```sql\nSELECT 1\n\n## not a heading", "HPOCCC"},
		{"unclosed other fence", "intro\n```text\n```sql\nSELECT 1", "POCC"},
		{"CRLF", "# T\r\n\r\n```sql\r\nSELECT 1\r\n```\r\nafter\r\n", "HPOCXPP"},
		{"thematic break then indented fence", "# T\n* * *\n    ```sql\n    SELECT 1\n    ```\n- item\n  ```sql\n  SELECT 2\n  ```", "HPPPPPOCX"},
		{"#tag is prose", "#tag words\n## Part ##\n####### seven\n```sql\nSELECT 1\n```", "PHPOCX"},
		{"comments", "<!-- model: m -->\n<!-- note -->\n```html\n<!-- model: x -->\n```", "MMOCX"},
		{"info string with backtick is no fence", "``` a`b\nSELECT 1\n```", "PPO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var roles strings.Builder
			var wantProse strings.Builder
			var wantCells, headings []string
			var cell []string
			open := scanNotebook(tc.md, func(l mdLine) {
				roles.WriteByte("PHMOCX"[l.role])
				switch l.role {
				case roleProse, roleHeading:
					wantProse.WriteString(l.text + "\n")
					if l.role == roleHeading {
						headings = append(headings, l.text)
					}
				case roleFenceOpen:
					cell = nil
				case roleCode:
					cell = append(cell, l.raw)
				case roleFenceClose:
					if l.block.sql() {
						wantCells = append(wantCells, strings.TrimSpace(strings.Join(cell, "\n")))
					}
				}
			})
			if open != nil && open.sql() {
				wantCells = append(wantCells, strings.TrimSpace(strings.Join(cell, "\n")))
			}
			if roles.String() != tc.roles {
				t.Errorf("roles %s, want %s", roles.String(), tc.roles)
			}
			if got := NotebookProse(tc.md); got != wantProse.String() {
				t.Errorf("prose %q, want %q", got, wantProse.String())
			}
			nb := ParseNotebook(tc.md)
			var cells []string
			for _, c := range nb.Cells {
				cells = append(cells, c.SQL)
				if c.Description != "" && !slices.Contains(headings, c.Description) {
					t.Errorf("cell %s's description %q is no heading line", c.Name, c.Description)
				}
			}
			if strings.Join(cells, "\x00") != strings.Join(wantCells, "\x00") {
				t.Errorf("cells %q, want %q", cells, wantCells)
			}
			if nb.Title != "" && !slices.Contains(headings, nb.Title) {
				t.Errorf("title %q is no heading line", nb.Title)
			}
			if (open != nil) != (len(nb.Problems) > 0) {
				t.Errorf("open block %v, problems %q", open, nb.Problems)
			}
		})
	}
}
