package main

import (
	"context"
	"strings"
	"testing"
)

// TestLineInValue: a value holding a line that starts "LINE n: " (a named
// query's parameter, a string literal of ad-hoc SQL) is quoted by DuckDB as
// given. Only DuckDB's own excerpt of the SQL, last in its message, is
// renumbered to the caller's lines. (Before, the value's line was renumbered
// too: "1\nLINE 2: x" came back as '1\nLINE 1: x', no longer the caller's
// value, so the refusal was blamed on the catalog's SQL, kind sql_error; and
// ad-hoc SQL got no position, the value's line read as the excerpt.)
func TestLineInValue(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source src\nSELECT 1 AS x;\n\n" +
			"-- @query iv\n-- @param v INTERVAL\nSELECT CAST($v AS VARCHAR) AS v;\n\n" +
			"-- @query n\n-- @param v VARCHAR\nSELECT CAST($v AS INTEGER) AS v;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"iv", `{"v":"1 day\nLINE 2: x"}`, "parameter \"v\" must be an INTERVAL, and the engine could not read \"1 day\\nLINE 2: x\" as one (Conversion Error: Could not convert string '1 day\nLINE 2: x' to INTERVAL)"},
		{"n", `{"v":"1\nLINE 2: x"}`, "parameter \"v\" (a VARCHAR) is converted by the named query, and the engine could not convert \"1\\nLINE 2: x\" (Conversion Error: Could not convert string '1\nLINE 2: x' to INT32)"},
		{"n", `{"v":"1\nLINE 9: x\n   ^"}`, "could not convert \"1\\nLINE 9: x\\n   ^\" (Conversion Error: Could not convert string '1\nLINE 9: x\n   ^' to INT32)"},
		{"n", `{"v":"LINE 2: x"}`, "could not convert \"LINE 2: x\" (Conversion Error: Could not convert string 'LINE 2: x' to INT32)"},
	} {
		_, te := runNamed(t, svc, "p/k/m/"+tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	for _, tc := range []struct {
		sql, want string
		pos       int
	}{
		{"SELECT CAST('a\nLINE 3: x' AS INTEGER)", "Could not convert string 'a\nLINE 3: x' to INT32\n\nLINE 1: SELECT CAST('a\n               ^", 8},
		{"SELECT 1,\n CAST('a\nLINE 9: x' AS INTEGER)", "Could not convert string 'a\nLINE 9: x' to INT32\n\nLINE 2:  CAST('a\n         ^", 12},
		{"SELECT 'a\nLINE 3: x',\n nope", "\n\nLINE 3:  nope\n         ^", 24},
	} {
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/k/m", SQL: tc.sql})
		te := classify(err)
		if te.Kind != "sql_error" || te.Position != tc.pos || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%q: %+v, want position %d and %q", tc.sql, te, tc.pos, tc.want)
		}
	}
}
