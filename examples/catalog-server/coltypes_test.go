package main

import (
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestColumnTypesAgree: describe of a source and execute_query's columns for
// SELECT * FROM it write each column's type the same way, DuckDB's own (as
// typeof() and DESCRIBE write it), for nested, enum, decimal, array and time
// zone types; in the server's process and in query processes (-isolate).
func TestColumnTypesAgree(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": `-- @source s
SELECT {'k': 'a', 'Odd Name': 1, 'select': 2}::STRUCT(k VARCHAR, "Odd Name" INTEGER, "select" INTEGER) AS st,
  MAP {'a': 1} AS mp, MAP {'a': [{'x': 1}]} AS mn, [1, 2] AS li, [[1]]::INTEGER[][] AS ll, [1, 2, 3]::INTEGER[3] AS arr,
  union_value(i := 1)::UNION(i INTEGER, "S t" VARCHAR) AS un, 'a'::ENUM('a', 'it''s') AS en, [{'e': 'a'::ENUM('a', 'b')}] AS le,
  1.5::DECIMAL(5,2) AS de, 1::DECIMAL(20,3) AS hd, '{"a": 1}'::JSON AS js, {'j': '1'::JSON, 't': TIME '01:02:03'} AS sj,
  TIMESTAMPTZ '2020-01-01' AS tz, TIMETZ '01:02:03+00' AS ttz, [TIMESTAMPTZ '2020-01-01'] AS ltz, {'a': [1, 2]::INTEGER[2]} AS sa,
  '101'::BIT AS bt, 1::BIGNUM AS bn, TIMESTAMP_NS '2020-01-01' AS ns;
`,
	})
	want := map[string]string{
		"st":  `STRUCT(k VARCHAR, "Odd Name" INTEGER, "select" INTEGER)`,
		"un":  `UNION(i INTEGER, "S t" VARCHAR)`,
		"en":  `ENUM('a', 'it''s')`,
		"le":  `STRUCT(e ENUM('a', 'b'))[]`,
		"sj":  `STRUCT(j JSON, t TIME)`,
		"tz":  `TIMESTAMP WITH TIME ZONE`,
		"ttz": `TIME WITH TIME ZONE`,
		"arr": `INTEGER[3]`,
		"mn":  `MAP(VARCHAR, STRUCT(x INTEGER)[])`,
	}
	for _, mode := range bothModes(t) {
		cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, mode.cfg)).URL, "")
		var d Description
		if r := call(t, cs, "describe", map[string]any{"path": "p/k/m/s"}, &d); r.IsError || len(d.Columns) == 0 {
			t.Fatalf("%s: describe: %s", mode.name, text(r))
		}
		var res struct{ Columns []engine.Column }
		if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM s"}, &res); r.IsError {
			t.Fatalf("%s: execute_query: %s", mode.name, text(r))
		}
		if len(res.Columns) != len(d.Columns) {
			t.Fatalf("%s: %d columns described, %d in the result", mode.name, len(d.Columns), len(res.Columns))
		}
		for i, c := range d.Columns {
			if res.Columns[i] != c {
				t.Errorf("%s: describe gives %s %s, execute_query %s %s", mode.name, c.Name, c.Type, res.Columns[i].Name, res.Columns[i].Type)
			}
			if w, ok := want[c.Name]; ok && c.Type != w {
				t.Errorf("%s: %s is %s, want %s", mode.name, c.Name, c.Type, w)
			}
		}
	}
}
