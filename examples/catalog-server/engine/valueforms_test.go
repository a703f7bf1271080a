package engine

import (
	"context"
	"encoding/json"
	"math"
	"testing"
)

// queryBoth runs sqlText in the server's process and in a query process, and
// checks the answer's columns (name type, …) and rows' JSON in each.
func queryBoth(t *testing.T, d *Duck, p *DuckProc, sqlText string, cols []Column, rows string) {
	t.Helper()
	for _, e := range []struct {
		name string
		q    func(context.Context, string, map[string]any, Limits) (*Result, error)
	}{{"in process", d.Query}, {"query process", p.Query}} {
		res, err := e.q(context.Background(), sqlText, nil, testLimits)
		if err != nil {
			t.Errorf("%s: %s: %v", e.name, sqlText, err)
			continue
		}
		if len(res.Columns) != len(cols) {
			t.Errorf("%s: %s: columns %+v, want %+v", e.name, sqlText, res.Columns, cols)
		} else {
			for i := range cols {
				if res.Columns[i] != cols[i] {
					t.Errorf("%s: %s: columns %+v, want %+v", e.name, sqlText, res.Columns, cols)
					break
				}
			}
		}
		if res.Rows == nil {
			res.Rows = [][]any{}
		}
		if got, _ := json.Marshal(res.Rows); string(got) != rows {
			t.Errorf("%s: %s: rows %s, want %s", e.name, sqlText, got, rows)
		}
	}
}

// TestDuckTimeNS: a TIME_NS value (pyarrow's time64[ns] in Parquet), which
// duckdb-go 1.5.6 cannot read, is read as its text with its nanoseconds, as a
// column and inside a list or struct, its type shown as TIME_NS. Before: the
// query failed with "database/sql/driver: unsupported data type: unknown
// type: index: 1" (kind invalid), and with no rows the column's type was "".
func TestDuckTimeNS(t *testing.T) {
	d, p := openBoth(t)
	queryBoth(t, d, p, `SELECT 1 AS x, TIME_NS '12:00:00.1' AS tn, TIME_NS '23:59:59.123456789' AS t9`,
		[]Column{{"x", "INTEGER"}, {"tn", "TIME_NS"}, {"t9", "TIME_NS"}}, `[[1,"12:00:00.1","23:59:59.123456789"]]`)
	queryBoth(t, d, p, `SELECT NULL::TIME_NS AS tn`, []Column{{"tn", "TIME_NS"}}, `[[null]]`)
	queryBoth(t, d, p, `SELECT TIME_NS '01:02:03' AS tn WHERE false`, []Column{{"tn", "TIME_NS"}}, `[]`)
	queryBoth(t, d, p, `SELECT [TIME_NS '01:02:03.000000001', NULL] AS l, {'t': TIME_NS '00:00:00.5', 'n': 2} AS s`,
		[]Column{{"l", "TIME_NS[]"}, {"s", "STRUCT(t TIME_NS, n INTEGER)"}}, `[[["01:02:03.000000001",null],{"n":2,"t":"00:00:00.5"}]]`)
	queryBoth(t, d, p, `SELECT MAP {TIME_NS '01:00:00': 1} AS m`, []Column{{"m", "MAP(TIME_NS, INTEGER)"}}, `[[[{"key":"01:00:00","value":1}]]]`)
	queryBoth(t, d, p, `SELECT union_value(t := TIME_NS '01:00:00')::UNION(t TIME_NS, i INTEGER) AS u`,
		[]Column{{"u", "UNION(t TIME_NS, i INTEGER)"}}, `[[{"tag":"t","value":"01:00:00"}]]`)
}

// TestDuckFloatDigits: a REAL (FLOAT) is written with the shortest digits that
// read back as the same float32, as DuckDB writes it (0.1, 19.99), also
// inside lists, structs and maps; NaN and the infinities stay strings. Before:
// float64's digits of the float32 (0.10000000149011612, 19.989999771118164).
func TestDuckFloatDigits(t *testing.T) {
	d, p := openBoth(t)
	queryBoth(t, d, p, `SELECT 0.1::FLOAT f, 19.99::FLOAT p, [19.99::FLOAT] l, {'a': 0.1::REAL} s, MAP {0.1::FLOAT: 0.2::FLOAT} m, 'NaN'::FLOAT n, '-inf'::FLOAT i, 1e20::FLOAT big, 1e-7::FLOAT small, 0.1::DOUBLE dbl`,
		[]Column{{"f", "FLOAT"}, {"p", "FLOAT"}, {"l", "FLOAT[]"}, {"s", "STRUCT(a FLOAT)"}, {"m", "MAP(FLOAT, FLOAT)"}, {"n", "FLOAT"}, {"i", "FLOAT"}, {"big", "FLOAT"}, {"small", "FLOAT"}, {"dbl", "DOUBLE"}},
		`[[0.1,19.99,[19.99],{"a":0.1},[{"key":0.1,"value":0.2}],"NaN","-Infinity",100000000000000000000,1e-7,0.1]]`)
}

// TestDuckDuplicateNames: a result's columns keep the names DuckDB gives the
// statement as sent, duplicates too (the row cap's subquery renamed the second
// customer_id customer_id_1); a column genuinely named a_1 keeps its name.
func TestDuckDuplicateNames(t *testing.T) {
	d, p := openBoth(t)
	queryBoth(t, d, p, `SELECT 1 AS a, 2 AS a, 3 AS b`, []Column{{"a", "INTEGER"}, {"a", "INTEGER"}, {"b", "INTEGER"}}, `[[1,2,3]]`)
	queryBoth(t, d, p, `SELECT 1 AS a, 2 AS A, 3 AS "A_2"`, []Column{{"a", "INTEGER"}, {"A", "INTEGER"}, {"A_2", "INTEGER"}}, `[[1,2,3]]`)
	queryBoth(t, d, p, `SELECT 1 AS a, 2 AS a_1`, []Column{{"a", "INTEGER"}, {"a_1", "INTEGER"}}, `[[1,2]]`)
	queryBoth(t, d, p, `SELECT 1 AS a, 2 AS a, 3 AS a_1`, []Column{{"a", "INTEGER"}, {"a", "INTEGER"}, {"a_1", "INTEGER"}}, `[[1,2,3]]`)
	// The JSON and TIME columns' rewrite (SELECT * REPLACE) keeps places.
	queryBoth(t, d, p, `SELECT '{"n": 1}'::JSON AS j, TIME '24:00:00' AS j, 3 AS j_1 -- note`,
		[]Column{{"j", "JSON"}, {"j", "TIME"}, {"j_1", "INTEGER"}}, `[[{"n":1},"24:00:00",3]]`)
	queryBoth(t, d, p, `SELECT o.id, c.id FROM (VALUES (1, 10)) o(id, cid) JOIN (VALUES (10)) c(id) ON o.cid = c.id;`,
		[]Column{{"id", "INTEGER"}, {"id", "INTEGER"}}, `[[1,10]]`)
}

// TestDuckGeometryType: a GEOMETRY inside a list has its type's name (it was
// "[]"); its value is its WKB in base64, as at the top level.
func TestDuckGeometryType(t *testing.T) {
	d, p := openBoth(t)
	queryBoth(t, d, p, `SELECT 'POINT (1 2)'::GEOMETRY g, ['POINT (1 2)'::GEOMETRY] l`,
		[]Column{{"g", "GEOMETRY"}, {"l", "GEOMETRY[]"}},
		`[["AQEAAAAAAAAAAADwPwAAAAAAAABA",["AQEAAAAAAAAAAADwPwAAAAAAAABA"]]]`)
}

// TestJSONFloat32: a float32 (DuckDB's FLOAT, PostgreSQL's real through pgx)
// is written with its shortest digits, in encoding/json's form.
func TestJSONFloat32(t *testing.T) {
	for _, tc := range []struct {
		v    float32
		want string
	}{
		{0.1, `0.1`}, {19.99, `19.99`}, {-2.5, `-2.5`}, {0, `0`}, {1e-7, `1e-7`}, {1e20, `100000000000000000000`},
		{3.4028235e38, `3.4028235e+38`}, {float32(math.NaN()), `"NaN"`}, {float32(math.Inf(1)), `"Infinity"`},
	} {
		if got, _ := json.Marshal(jsonValue(tc.v, "real")); string(got) != tc.want {
			t.Errorf("%v: %s, want %s", tc.v, got, tc.want)
		}
	}
}
