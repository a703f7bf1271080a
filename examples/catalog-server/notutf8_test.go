package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestSQLNotUTF8AtLoad: a source, named query or notebook cell whose SQL holds
// a byte that is not UTF-8 (a file saved in Latin-1) is told so when its model
// loads, where in the file, in the words a call of it is refused with. Before,
// a DuckDB source's error was "duckdb error at m.sql (its SQL from line 5): "
// with nothing after it, and a query's DuckDB's "Invalid unicode (byte sequence
// mismatch)", with no place.
func TestSQLNotUTF8AtLoad(t *testing.T) {
	engines := map[string]string{"duckdb": `{}`}
	if os.Getenv("CATALOG_TEST_PG_DSN") != "" { // else the PostgreSQL half is not run
		engines["postgres"] = `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`
	}
	for engine, manifest := range engines {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"p/k/manifest.json": manifest,
				"p/k/m.sql":         "-- @source s\nSELECT 1 AS x;\n\n-- @source s2\nSELECT '\xff' AS y;\n\n-- @query q\nSELECT '\xfe' AS z FROM s;\n",
				"p/k/nb.md":         "<!-- model: m -->\n\n```sql\nSELECT '\xfd' AS w FROM s\n```\n",
			})
			svc := newTestService(t, dir, Config{})
			d, err := svc.Describe(context.Background(), "p/k/m")
			if err != nil {
				t.Fatal(err)
			}
			var s2 string
			for _, s := range d.Sources {
				if s.Name == "s2" {
					s2 = s.Error
				}
			}
			if !strings.Contains(s2, "m.sql: the SQL is not UTF-8 text: byte 0xFF at character 9 is not a character in UTF-8 (line 5, column 9)") || !strings.Contains(s2, "saved as UTF-8") {
				t.Errorf("source s2: error %q", s2)
			}
			d, err = svc.Describe(context.Background(), "p/k/m/q")
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "query q (line 8): the SQL is not UTF-8 text: byte 0xFE at character 9 is not a character in UTF-8 (line 8, column 9); no call can run it until the file is saved as UTF-8 text") {
				t.Errorf("query q: problems %q", d.Problems)
			}
			d, err = svc.Describe(context.Background(), "p/k/nb")
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "cell-1 (line 4): the SQL is not UTF-8 text: byte 0xFD at character 9 is not a character in UTF-8 (line 4, column 9)") {
				t.Errorf("notebook: problems %q", d.Problems)
			}
		})
	}
}
