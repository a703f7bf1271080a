package catalog

import (
	"strings"
	"testing"
)

// TestCodeOnly: CodeOnly blanks what Spans skips as quoted text or comment —
// strings with a doubled quote, E'…' with backslash escapes, dollar quoting
// with or without a tag, -- comments, nested /* */ comments, and one not
// closed — keeping every offset and line break, and the quoted names.
func TestCodeOnly(t *testing.T) {
	sp := strings.Repeat
	for in, want := range map[string]string{
		"SELECT error('x')":                   "SELECT error(   )",
		"SELECT 'it''s' || error('y')":        "SELECT" + sp(" ", 9) + "|| error(   )",
		"SELECT 1 -- error(\nFROM t":          "SELECT 1" + sp(" ", 10) + "\nFROM t",
		"SELECT /* 'a */ error(b)":            "SELECT          error(b)",
		"SELECT 'open":                        "SELECT      ",
		"SELECT 1 /* open":                    "SELECT 1        ",
		"SELECT 1 -- open":                    "SELECT 1        ",
		"SELECT $$error($$, x":                "SELECT " + sp(" ", 10) + ", x",
		"SELECT $t$ a $$ error( $t$, x":       "SELECT " + sp(" ", 19) + ", x",
		"SELECT $t$ open":                     "SELECT " + sp(" ", 8),
		"SELECT /* a /* error( */ b */ x":     "SELECT " + sp(" ", 22) + " x",
		"SELECT E'\\' error(', x":             "SELECT " + sp(" ", 12) + ", x",
		"SELECT \"error\"('a'), $1, $name":    "SELECT \"error\"(   ), $1, $name",
		"SELECT 'é'\r\n/* a\nb */ x":          "SELECT " + sp(" ", 4) + "\r\n" + sp(" ", 4) + "\n" + sp(" ", 4) + " x",
		"SELECT tbl$x, a$$b FROM t -- a'b\nc": "SELECT tbl$x, a$$b FROM t " + sp(" ", 6) + "\nc",
	} {
		got := CodeOnly(in, EngineDuckDB)
		if got != want {
			t.Errorf("CodeOnly(%q) = %q, want %q", in, got, want)
		}
		if len(got) != len(in) {
			t.Errorf("CodeOnly(%q): %d bytes, want %d", in, len(got), len(in))
		}
	}
}
