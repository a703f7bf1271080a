package catalog

import (
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
