package engine

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestDuckColumnTypesAsTypeof: a query's column types are written as DuckDB's
// typeof() writes them (and DESCRIBE, and information_schema, which give a
// source's columns): a field's name quoted only where DuckDB quotes it (not a
// plain name, or a keyword in any case), an ENUM with its values, the time
// zone types by their long names.
func TestDuckColumnTypesAsTypeof(t *testing.T) {
	d := openTestDuck(t)
	for _, expr := range []string{
		`{'k': 'a', 'Odd Name': 1, 'Name2': 2, '_x': 3, 'x1': 4, '1x': 5, 'ß': 6, 'a"b': 7}`,
		`{'select': 1, 'name': 2, 'Type': 3, 'VALUE': 4, 'year': 5, 'at': 6, 'by': 7, 'key': 8}`,
		`MAP {'a': 1}`,
		`MAP {'a': [{'x': 1}]}`,
		`[1, 2]`,
		`[[1]]::INTEGER[][]`,
		`[1, 2, 3]::INTEGER[3]`,
		`{'a': [1, 2]::INTEGER[2]}`,
		`union_value(i := 1)::UNION(i INTEGER, "S t" VARCHAR)`,
		`'a'::ENUM('a', 'it''s', 'x, y)')`,
		`{'e': 'a'::ENUM('a', 'b')}`,
		`1.5::DECIMAL(5,2)`,
		`1::DECIMAL(20,3)`,
		`'{"a":1}'::JSON`,
		`{'j': '1'::JSON, 't': TIME '01:02:03'}`,
		`TIMESTAMPTZ '2020-01-01'`,
		`TIMETZ '01:02:03+00'`,
		`[TIMESTAMPTZ '2020-01-01']`,
		`{'t': TIMETZ '01:02:03+00'}`,
		`TIMESTAMP_NS '2020-01-01'`,
		`'101'::BIT`,
		`1::BIGNUM`,
		`'x'::BLOB`,
		`INTERVAL 1 DAY`,
		`1::UHUGEINT`,
	} {
		res, err := d.Query(context.Background(), "SELECT "+expr+" AS v, typeof("+expr+") AS t", nil, testLimits)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if res.Columns[0].Type != res.Rows[0][1] {
			t.Errorf("%s: column type %s, DuckDB's typeof() %s", expr, res.Columns[0].Type, res.Rows[0][1])
		}
	}
}

// TestDuckKeywords: the keywords duckOptionalQuote quotes are those of the
// DuckDB linked in.
func TestDuckKeywords(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT DISTINCT keyword_name FROM duckdb_keywords()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		seen[k] = true
		if !duckKeywords[k] {
			t.Errorf("%s: a keyword of DuckDB's missing from duckKeywordList", k)
		}
	}
	for k := range duckKeywords {
		if !seen[k] {
			t.Errorf("%s: in duckKeywordList, not a keyword of DuckDB's", k)
		}
	}
	if strings.ToLower(duckKeywordList) != duckKeywordList {
		t.Error("duckKeywordList is not lower case")
	}
}
