package catalog

import (
	"strings"
	"testing"
)

// TestManifestJSONProblems: a project.json or manifest.json whose JSON is wrong
// is reported with the file, the field and the type it takes (or the line and
// column), in the catalog author's terms rather than Go's.
func TestManifestJSONProblems(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{"p/project.json", `{"description": 5}`, `p/project.json: field "description" must be a string (text in double quotes), not a JSON number`},
		{"p/k/manifest.json", `{"engine": ["duckdb"]}`, `p/k/manifest.json: skipped: field "engine" must be a string (text in double quotes), not a JSON array`},
		{"p/k/manifest.json", `{"descripton": "x"}`, `p/k/manifest.json: skipped: unknown field "descripton" (the fields it takes: description, engine, dsnEnv, schema)`},
		{"p/k/manifest.json", "{\n  \"description\": \"x\",\n}", `p/k/manifest.json: skipped: not valid JSON at line 3, column 1: invalid character '}'`},
		{"p/k/manifest.json", `[1]`, `p/k/manifest.json: skipped: the file must hold one JSON object`},
		{"p/k/manifest.json", ``, `p/k/manifest.json: skipped: the file is empty`},
		{"p/k/manifest.json", `{"description": "x"`, `p/k/manifest.json: skipped: the JSON ends before its object closes`},
	} {
		root := t.TempDir()
		files := map[string]string{"p/k/manifest.json": `{}`}
		files[tc.file] = tc.body
		write(t, root, files)
		c, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(c.Diagnostics, "\n")
		if !strings.Contains(got, tc.want) || strings.Contains(got, "Go struct") || strings.Contains(got, "cannot unmarshal") {
			t.Errorf("%s %q: %s, want %q", tc.file, tc.body, got, tc.want)
		}
	}
}
