package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// pgValueCases runs each case's SELECT through p and compares the value's JSON
// and its column's type name.
func pgValueCases(t *testing.T, p *Postgres, cases []struct{ expr, typ, json string }) {
	t.Helper()
	for _, tc := range cases {
		v, ok := pgValue(t, p, tc.expr, tc.typ)
		if !ok {
			continue
		}
		if got, _ := json.Marshal(v); string(got) != tc.json {
			t.Errorf("%s: %s, want %s", tc.expr, got, tc.json)
		}
	}
}

// TestPostgresArrayDimensions: an array of a built-in type pgx decodes (int4,
// text, numeric, bool, date, float8, jsonb, uuid) keeps its dimensions, as arrays
// in arrays, NULL null, as the arrays read as text do (TestPostgresTextArrays);
// empty and one-dimensional arrays are as before.
func TestPostgresArrayDimensions(t *testing.T) {
	p := openTestPG(t)
	pgValueCases(t, p, []struct{ expr, typ, json string }{
		{"'{{1,2},{3,NULL}}'::int[]", "_int4", `[[1,2],[3,null]]`},
		{"'{{a,b},{c,d}}'::text[]", "_text", `[["a","b"],["c","d"]]`},
		{"'{{1.5,2}}'::numeric[]", "_numeric", `[[1.5,2]]`},
		{"'{{t,f}}'::bool[]", "_bool", `[[true,false]]`},
		{"'{{{1},{2}},{{3},{4}}}'::int8[]", "_int8", `[[[1],[2]],[[3],[4]]]`},
		{"'[0:1][5:5]={{1},{2}}'::int2[]", "_int2", `[[1],[2]]`},
		{"'{{2020-01-01,NULL}}'::date[]", "_date", `[["2020-01-01",null]]`},
		{"'{{NaN,1.5}}'::float8[]", "_float8", `[["NaN",1.5]]`},
		{`ARRAY[['{"a": 12345678901234567890}'::jsonb]]`, "_jsonb", `[[{"a":12345678901234567890}]]`},
		{"ARRAY[['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]]", "_uuid", `[["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]]`},
		{"'{1,2}'::int[]", "_int4", `[1,2]`},
		{"'{}'::int[]", "_int4", `[]`},
		{"NULL::int[]", "_int4", `null`},
	})
}

// TestPostgresArrayElementTypes: the elements of date[] and timestamp[] are
// written as plain date and timestamp columns are (no time of day, no "Z"),
// timestamptz[]'s as timestamptz columns.
func TestPostgresArrayElementTypes(t *testing.T) {
	p := openTestPG(t)
	pgValueCases(t, p, []struct{ expr, typ, json string }{
		{"'{2020-01-01,NULL,infinity}'::date[]", "_date", `["2020-01-01",null,"infinity"]`},
		{"ARRAY['2024-01-01 10:00'::timestamp]", "_timestamp", `["2024-01-01T10:00:00"]`},
		{"'2024-01-01 10:00'::timestamp", "timestamp", `"2024-01-01T10:00:00"`},
		{"ARRAY['2024-01-01 10:00:00.5+00'::timestamptz]", "_timestamptz", `["2024-01-01T10:00:00.5Z"]`},
		{"'2024-01-01 10:00:00.5+00'::timestamptz", "timestamptz", `"2024-01-01T10:00:00.5Z"`},
	})
}

// TestPostgresBCDates: dates and times before 1 AD are written as PostgreSQL
// writes them, the year counted back from 1 BC and " BC" after it ("4713-01-01
// BC", not Go's astronomical "-4712-01-01", which PostgreSQL refuses), in
// arrays too; and that text reads back as the same value in PostgreSQL.
func TestPostgresBCDates(t *testing.T) {
	p := openTestPG(t)
	pgValueCases(t, p, []struct{ expr, typ, json string }{
		{"DATE '4713-01-01 BC'", "date", `"4713-01-01 BC"`},
		{"DATE '0001-12-31 BC'", "date", `"0001-12-31 BC"`},
		{"DATE '0001-01-01'", "date", `"0001-01-01"`},
		{"TIMESTAMP '4713-01-01 10:00:00.5 BC'", "timestamp", `"4713-01-01T10:00:00.5 BC"`},
		{"TIMESTAMPTZ '0044-03-15 12:00:00+00 BC'", "timestamptz", `"0044-03-15T12:00:00Z BC"`},
		{"ARRAY[DATE '0044-03-15 BC', NULL]", "_date", `["0044-03-15 BC",null]`},
		{"ARRAY[[TIMESTAMP '0044-03-15 12:00 BC']]", "_timestamp", `[["0044-03-15T12:00:00 BC"]]`},
	})
	// PostgreSQL reads the text back as the same value.
	for _, tc := range []struct{ text, typ string }{
		{"4713-01-01 BC", "date"},
		{"4713-01-01T10:00:00.5 BC", "timestamp"},
		{"0044-03-15T12:00:00Z BC", "timestamptz"},
	} {
		expr := "'" + tc.text + "'::" + tc.typ
		v, ok := pgValue(t, p, expr, tc.typ)
		if ok && v != tc.text {
			t.Errorf("%s: %#v", expr, v)
		}
	}
}

// TestPostgresCharAndTid: PostgreSQL's one-byte "char" and tid are written as
// PostgreSQL's text ("r", "(0,1)"), not as a number and a Go struct, also in
// arrays.
func TestPostgresCharAndTid(t *testing.T) {
	p := openTestPG(t)
	pgValueCases(t, p, []struct{ expr, typ, json string }{
		{`'r'::"char"`, "char", `"r"`},
		{`ARRAY['r'::"char", NULL, 'v']`, "_char", `["r",null,"v"]`},
		{"'(0,1)'::tid", "tid", `"(0,1)"`},
		{"ARRAY['(0,1)'::tid, '(4294967295,65535)']", "_tid", `["(0,1)","(4294967295,65535)"]`},
		{"(SELECT relkind FROM pg_class WHERE relname = 'pg_class')", "char", `"r"`},
	})
}

// BenchmarkPostgresRows reads 10,000 rows of 5 ordinary columns (int4, text,
// numeric, date, float8) through the engine: the row loop's cost per query
// (go test -run '^$' -bench PostgresRows ./engine/, with CATALOG_TEST_PG_DSN).
func BenchmarkPostgresRows(b *testing.B) {
	p := openTestPG(b)
	const q = "SELECT i, 'name-' || i AS s, i * 1.25 AS n, DATE '2024-01-01' + i AS d, i / 3.0::float8 AS f FROM generate_series(1, 10000) i"
	lim := Limits{RowLimit: 20000, ByteBudget: 1 << 30, Timeout: time.Minute}
	for b.Loop() {
		res, err := p.Query(context.Background(), q, nil, lim)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Rows) != 10000 || res.Rows[9999][3] != "2051-05-19" {
			b.Fatalf("%d rows, last %v", len(res.Rows), res.Rows[len(res.Rows)-1])
		}
	}
}
