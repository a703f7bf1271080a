package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// runNamed runs the named query at path with the parameters params (JSON, as
// a call sends them), and returns its result as JSON (columns with types, and
// rows) or its error as the tool answers it.
func runNamed(t *testing.T, svc *Service, path, params string) (string, *toolError) {
	t.Helper()
	var pv paramValues
	if err := json.Unmarshal([]byte(params), &pv); err != nil {
		t.Fatalf("%s: %v", params, err)
	}
	res, err := svc.Execute(context.Background(), executeIn{Path: path, Parameters: pv})
	if err != nil {
		te := classify(err)
		return "", &te
	}
	raw, _ := json.Marshal(struct {
		Columns []engine.Column
		Rows    [][]any
	}{res.Columns, res.Rows})
	return string(raw), nil
}

// TestParamsBoundAsDeclaredTypes: a named query's parameter is its declared
// type wherever the SQL uses it (DuckDB): a DATE plus days is a date, a
// DECIMAL(5,2) is rounded to 2 decimals, a column that is the parameter has
// its type, LIMIT takes an INTEGER; a placeholder in a string or a comment is
// text, and an error's position and excerpt are about the author's SQL.
// (Before, values went to DuckDB as text or DOUBLE: $day + 1 failed with
// "+(STRING_LITERAL, INTEGER_LITERAL)" blamed on the catalog, 1.235 came back
// 1.235 as a DOUBLE, and a DATE column was VARCHAR.)
func TestParamsBoundAsDeclaredTypes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n3\n",
		"p/k/m.sql": "-- @source a\nSELECT * FROM 'data/a.csv';\n\n" +
			"-- @query next_day\n-- @param day DATE\nSELECT $day + 1 AS next, $day AS day;\n\n" +
			"-- @query money\n-- @param d DECIMAL(5,2)\nSELECT $d AS d, typeof($d) AS t;\n\n" +
			"-- @query first\n-- @param n INTEGER\nSELECT x FROM a ORDER BY x LIMIT $n;\n\n" +
			"-- @query twice\n-- @param n INTEGER\nSELECT $n + $n AS two, typeof($n) AS t;\n\n" +
			"-- @query at\n-- @param ts TIMESTAMPTZ\nSELECT $ts AS ts;\n\n" +
			"-- @query quoted\n-- @param day DATE\nSELECT '$day' AS lit, \"$day\" AS d -- $day\n FROM (SELECT $day AS \"$day\") /* $day /* $day */ $day */ t;\n\n" +
			"-- @query broken\n-- @param day DATE\nSELECT $day + 1 AS a, nope AS b FROM a;\n\n" +
			"-- @query unused\n-- @param a INTEGER\n-- @param b INTEGER\nSELECT $b AS b;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/next_day", `{"day":"2024-07-14"}`, `{"Columns":[{"name":"next","type":"DATE"},{"name":"day","type":"DATE"}],"Rows":[["2024-07-15","2024-07-14"]]}`},
		{"p/k/m/money", `{"d":1.235}`, `{"Columns":[{"name":"d","type":"DECIMAL(5,2)"},{"name":"t","type":"VARCHAR"}],"Rows":[[1.24,"DECIMAL(5,2)"]]}`},
		{"p/k/m/first", `{"n":2}`, `{"Columns":[{"name":"x","type":"BIGINT"}],"Rows":[[1],[2]]}`},
		{"p/k/m/twice", `{"n":21}`, `{"Columns":[{"name":"two","type":"INTEGER"},{"name":"t","type":"VARCHAR"}],"Rows":[[42,"INTEGER"]]}`},
		{"p/k/m/at", `{"ts":"2024-07-14T09:30:00Z"}`, `{"Columns":[{"name":"ts","type":"TIMESTAMP WITH TIME ZONE"}],"Rows":[["2024-07-14T09:30:00Z"]]}`},
		{"p/k/m/quoted", `{"day":"2024-07-14"}`, `{"Columns":[{"name":"lit","type":"VARCHAR"},{"name":"d","type":"DATE"}],"Rows":[["$day","2024-07-14"]]}`},
		// A parameter the SQL does not use is not bound (it was: "parameter
		// "a" is not used by the statement", blamed on the values).
		{"p/k/m/unused", `{"a":1,"b":2}`, `{"Columns":[{"name":"b","type":"INTEGER"}],"Rows":[[2]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	// An error after a cast: its position and DuckDB's excerpt are the
	// author's SQL's.
	sqlText := "SELECT $day + 1 AS a, nope AS b FROM a"
	_, te := runNamed(t, svc, "p/k/m/broken", `{"day":"2024-07-14"}`)
	if te == nil || te.Kind != "sql_error" || te.Position != strings.Index(sqlText, "nope")+1 || strings.Contains(te.Error, "CAST") ||
		!strings.Contains(te.Error, "LINE 1: "+sqlText+"\n"+strings.Repeat(" ", len("LINE 1: ")+strings.Index(sqlText, "nope"))+"^") {
		t.Errorf("an error after a cast: %+v", te)
	}
}

// TestCastPositions: positions in the SQL run map back to the author's SQL:
// before, inside and after a cast; DuckDB's excerpt shows the placeholders,
// its caret under the same character.
func TestCastPositions(t *testing.T) {
	q := &catalog.Query{Name: "q", SQL: "SELECT é, $a + $b, 'x', $a FROM t", Params: []catalog.Param{{Name: "a", Type: "DATE"}, {Name: "b", Type: "INTEGER[]"}}}
	ts := castParams(q, catalog.EngineDuckDB)
	want := "SELECT é, (CAST($a AS DATE)) + (CAST(CAST($b AS JSON) AS INTEGER[])), 'x', (CAST($a AS DATE)) FROM t"
	if ts.text != want {
		t.Fatalf("cast:\n got %s\nwant %s", ts.text, want)
	}
	runes := []rune(ts.text)
	origRunes := []rune(q.SQL)
	at := func(s, sub string, nth int) int { // 1-based character position of the nth sub in s
		i := -1
		for range nth {
			i += 1 + strings.Index(s[i+1:], sub)
		}
		return len([]rune(s[:i])) + 1
	}
	for _, tc := range []struct {
		pos, want int
		param     string
	}{
		{at(ts.text, "é", 1), at(q.SQL, "é", 1), ""},
		{at(ts.text, "(CAST($a", 1), at(q.SQL, "$a", 1), "a"},
		{at(ts.text, "DATE", 1), at(q.SQL, "$a", 1), "a"},
		{at(ts.text, "+", 1), at(q.SQL, "+", 1), ""},
		{at(ts.text, "JSON", 1), at(q.SQL, "$b", 1), "b"},
		{at(ts.text, "'x'", 1), at(q.SQL, "'x'", 1), ""},
		{at(ts.text, "(CAST($a", 2), at(q.SQL, "$a", 2), "a"},
		{at(ts.text, "FROM", 1), at(q.SQL, "FROM", 1), ""},
		{len(runes), len(origRunes), ""},
		{0, 0, ""},
	} {
		if got, param := ts.origPosition(tc.pos); got != tc.want || param != tc.param {
			t.Errorf("position %d: got %d %q, want %d %q", tc.pos, got, param, tc.want, tc.param)
		}
	}
	msg := "Binder Error: Referenced column \"t\" not found\n\nLINE 1: " + ts.text + "\n" + strings.Repeat(" ", len("LINE 1: ")+len([]rune(ts.text[:strings.Index(ts.text, "FROM")]))) + "^"
	err, _ := ts.restore(&engine.SQLError{Engine: "duckdb", Message: msg, Position: at(ts.text, "FROM", 1)})
	se := err.(*engine.SQLError)
	wantMsg := "Binder Error: Referenced column \"t\" not found\n\nLINE 1: " + q.SQL + "\n" + strings.Repeat(" ", len("LINE 1: ")+len([]rune(q.SQL[:strings.Index(q.SQL, "FROM")]))) + "^"
	if se.Message != wantMsg || se.Position != at(q.SQL, "FROM", 1) {
		t.Errorf("restored:\n%s (at %d)\nwant\n%s", se.Message, se.Position, wantMsg)
	}
	// PostgreSQL: @name as pgx reads it, the list cast from its array literal.
	q = &catalog.Query{Name: "q", SQL: "SELECT @a, E'@a\\' @a', $$ @a $$, $t$ @a $t$, x@b, \"@a\" -- @a\n/* @a /* @a */ @a */ FROM t WHERE @b_c > 0", Params: []catalog.Param{{Name: "a", Type: "INT8"}, {Name: "b", Type: "TEXT[]"}}}
	want = "SELECT (CAST(@a AS INT8)), E'@a\\' @a', $$ @a $$, $t$ @a $t$, x(CAST(@b AS TEXT[])), \"@a\" -- @a\n/* @a /* @a */ @a */ FROM t WHERE @b_c > 0"
	if got := castParams(q, catalog.EnginePostgres).text; got != want {
		t.Errorf("PostgreSQL:\n got %s\nwant %s", got, want)
	}
}

// TestListParams: a list parameter (T[], DuckDB's T[n]) takes a JSON array,
// each element checked as a T and the whole bound as a list of T; a scalar is
// refused. (Before, [1,2] was refused as "must be an integer (INTEGER[])", and 1
// was bound as a BIGINT.)
func TestListParams(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query has\n-- @param ids INTEGER[]\nSELECT list_contains($ids, 2) AS has, $ids AS ids;\n\n" +
			"-- @query words\n-- @param w VARCHAR[]\nSELECT $w AS w, len($w) AS n;\n\n" +
			"-- @query days\n-- @param d DATE[]\nSELECT $d AS d;\n\n" +
			"-- @query pair\n-- @param p INTEGER[2]\nSELECT $p AS p;\n\n" +
			"-- @query grid\n-- @param g BIGINT[][]\nSELECT $g AS g;\n\n" +
			"-- @query spans\n-- @param s INTERVAL[]\nSELECT $s AS s;\n\n" +
			"-- @query big\n-- @param u UBIGINT[]\nSELECT $u AS u;\n\n" +
			"-- @query zoned\n-- @param t TIMESTAMPTZ[][]\nSELECT $t AS t;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/has", `{"ids":[1,2]}`, `{"Columns":[{"name":"has","type":"BOOLEAN"},{"name":"ids","type":"INTEGER[]"}],"Rows":[[true,[1,2]]]}`},
		{"p/k/m/has", `{"ids":[]}`, `{"Columns":[{"name":"has","type":"BOOLEAN"},{"name":"ids","type":"INTEGER[]"}],"Rows":[[false,[]]]}`},
		{"p/k/m/has", `{"ids":["3","2"]}`, `{"Columns":[{"name":"has","type":"BOOLEAN"},{"name":"ids","type":"INTEGER[]"}],"Rows":[[true,[3,2]]]}`},
		{"p/k/m/words", `{"w":["a\"b","c,d","x\\y","NULL","","[1]"," sp ","'q'","é"]}`, `{"Columns":[{"name":"w","type":"VARCHAR[]"},{"name":"n","type":"BIGINT"}],"Rows":[[["a\"b","c,d","x\\y","NULL","","[1]"," sp ","'q'","é"],9]]}`},
		{"p/k/m/days", `{"d":["2024-07-14","2024-02-29"]}`, `{"Columns":[{"name":"d","type":"DATE[]"}],"Rows":[[["2024-07-14","2024-02-29"]]]}`},
		{"p/k/m/pair", `{"p":[1,2]}`, `{"Columns":[{"name":"p","type":"INTEGER[2]"}],"Rows":[[[1,2]]]}`},
		{"p/k/m/grid", `{"g":[[1],[2,9007199254740993]]}`, `{"Columns":[{"name":"g","type":"BIGINT[][]"}],"Rows":[[[[1],[2,9007199254740993]]]]}`},
		// Each element is read as a single value is: a time zone by name too.
		{"p/k/m/zoned", `{"t":[["2024-07-14 09:30:00 Europe/Paris","2024-07-14 09:30:00+02"]]}`, `{"Columns":[{"name":"t","type":"TIMESTAMP WITH TIME ZONE[][]"}],"Rows":[[[["2024-07-14T07:30:00Z","2024-07-14T07:30:00Z"]]]]}`},
		{"p/k/m/big", `{"u":[18446744073709551615,"18446744073709551614"]}`, `{"Columns":[{"name":"u","type":"UBIGINT[]"}],"Rows":[[[18446744073709551615,18446744073709551614]]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/has", `{"ids":1}`, `parameter "ids" must be a list of INTEGER (INTEGER[]): a JSON array such as [1, 2]; got 1`},
		{"p/k/m/has", `{"ids":[1,"x"]}`, `parameter "ids[1]" must be an integer (INTEGER)`},
		{"p/k/m/has", `{"ids":[1,3000000000]}`, `parameter "ids[1]" must be an integer from -2147483648 to 2147483647 (INTEGER), got 3000000000`},
		{"p/k/m/has", `{"ids":[1,null]}`, `parameter "ids[1]" (an element of the list ids) is null: lists take no nulls`},
		{"p/k/m/has", `{"ids":null}`, `parameter "ids" must be an INTEGER[], got null: parameters take no nulls`},
		{"p/k/m/days", `{"d":["2024-13-01"]}`, `parameter "d[0]" must be a DATE written YYYY-MM-DD`},
		{"p/k/m/pair", `{"p":[1,2,3]}`, `parameter "p" must be a list of exactly 2 INTEGER values (INTEGER[2]), got 3: [1,2,3]`},
		{"p/k/m/grid", `{"g":[1]}`, `parameter "g[0]" must be a list of BIGINT (BIGINT[]): a JSON array such as [1, 2]; got 1`},
		// What only the engine refuses is the parameter's fault too.
		{"p/k/m/spans", `{"s":["2 days","yesterday"]}`, `parameter "s" must be an INTERVAL[], and the engine could not read ["2 days","yesterday"] as one (Conversion Error: Could not convert string 'yesterday' to INTERVAL`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) || strings.Contains(te.Error, "read_json") || strings.Contains(te.Error, "CAST") {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
}

// TestBigIntegerParams: an integer parameter takes its type's whole range,
// as a JSON number (its digits kept) or a string of digits, and an error
// quotes the number as sent. (Before, BIGINT stopped at 2^53, "2" was refused,
// and 18446744073709551615 was quoted as 18446744073709552000.)
func TestBigIntegerParams(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query u\n-- @param n UBIGINT\nSELECT $n AS n, $n - 1 AS less;\n\n" +
			"-- @query b\n-- @param n BIGINT\nSELECT $n AS n;\n\n" +
			"-- @query h\n-- @param n HUGEINT\nSELECT $n AS n;\n\n" +
			"-- @query f\n-- @param x DOUBLE\nSELECT $x AS x;\n\n" +
			"-- @query i32\n-- @param n INT32\nSELECT 1 AS one, $n AS n;\n",
	})
	svc := newTestService(t, dir, Config{})
	// A type whose range only the engine knows: its cast's error, at the
	// parameter's place, is the parameter's fault.
	if _, te := runNamed(t, svc, "p/k/m/i32", `{"n":3000000000}`); te == nil || te.Kind != "invalid" ||
		!strings.Contains(te.Error, `parameter "n" must be an INT32, and the engine could not read 3000000000 as one (Conversion Error: Type INT64 with value 3000000000 can't be cast`) {
		t.Errorf("INT32 3000000000: %+v", te)
	}
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/u", `{"n":18446744073709551615}`, `[[18446744073709551615,18446744073709551614]]`},
		{"p/k/m/u", `{"n":"18446744073709551615"}`, `[[18446744073709551615,18446744073709551614]]`},
		{"p/k/m/b", `{"n":9007199254740993}`, `[[9007199254740993]]`},
		{"p/k/m/b", `{"n":"-9223372036854775808"}`, `[[-9223372036854775808]]`},
		{"p/k/m/h", `{"n":"-170141183460469231731687303715884105728"}`, `[[-170141183460469231731687303715884105728]]`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || !strings.HasSuffix(got, `"Rows":`+tc.want+`}`) {
			t.Errorf("%s %s: %s %+v, want rows %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	// Through the tool: the number as sent, in range or not; 1e400 is a number
	// out of range for the parameter it is (it was: "parameters must be a
	// float64, got number 1e400").
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for _, tc := range []struct {
		path, v, want string
	}{
		{"p/k/m/u", `18446744073709551616`, `parameter "n" must be an integer from 0 to 18446744073709551615 (UBIGINT), got 18446744073709551616`},
		{"p/k/m/u", `1e400`, `parameter "n" must be an integer from 0 to 18446744073709551615 (UBIGINT), got 1e400`},
		{"p/k/m/f", `1e400`, `parameter "x" must be a number (DOUBLE), and 1e400 is out of range`},
		{"p/k/m/f", `-1e400`, `parameter "x" must be a number (DOUBLE), and -1e400 is out of range`},
	} {
		var te toolError
		name := "n"
		if strings.HasSuffix(tc.path, "/f") {
			name = "x"
		}
		r := call(t, cs, "execute_query", map[string]any{"path": tc.path, "parameters": map[string]any{name: json.RawMessage(tc.v)}}, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %s", tc.path, tc.v, text(r))
		}
	}
	var res struct{ Rows [][]json.RawMessage }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/u", "parameters": map[string]any{"n": json.RawMessage(`18446744073709551615`)}}, &res); r.IsError || len(res.Rows) != 1 || string(res.Rows[0][0]) != "18446744073709551615" {
		t.Errorf("UBIGINT through the tool: %s", text(r))
	}
}

// TestTypeArticle: "an INTERVAL", "a UUID".
func TestTypeArticle(t *testing.T) {
	for typ, want := range map[string]string{"INTERVAL": "an", "INTEGER[]": "an", "UUID": "a", "DATE": "a", "ENUM": "an", "OID": "an", "UBIGINT": "a"} {
		if got := typeArticle(typ); got != want {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}
}

// ExampleCastParams shows the SQL a named query runs with.
func Example_castParams() {
	q := &catalog.Query{SQL: "SELECT $day + 1, '$day' FROM t WHERE id = ANY($ids)", Params: []catalog.Param{{Name: "day", Type: "DATE"}, {Name: "ids", Type: "INTEGER[]"}}}
	fmt.Println(castParams(q, catalog.EngineDuckDB).text)
	q.SQL = "SELECT @day + 1 FROM t WHERE id = ANY(@ids)"
	fmt.Println(castParams(q, catalog.EnginePostgres).text)
	// Output:
	// SELECT (CAST($day AS DATE)) + 1, '$day' FROM t WHERE id = ANY((CAST(CAST($ids AS JSON) AS INTEGER[])))
	// SELECT (CAST(@day AS DATE)) + 1 FROM t WHERE id = ANY((CAST(@ids AS INTEGER[])))
}

// TestParamsBoundAsDeclaredTypesPostgres: the same on PostgreSQL
// (CATALOG_TEST_PG_DSN): @d + 1 with a DATE is a date (it was: 'parameter "d"
// must be a DATE, and the engine could not read "2019-01-01" as one (invalid
// input syntax for type integer…)'), lists are arrays, integers exact.
func TestParamsBoundAsDeclaredTypesPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source one\nSELECT 1 AS x;\n\n"+
		"-- @query next_day\n-- @param d DATE\nSELECT @d + 1 AS next, @d AS d;\n\n"+
		"-- @query money\n-- @param d DECIMAL(5,2)\nSELECT @d AS d;\n\n"+
		"-- @query first\n-- @param n INTEGER\nSELECT g FROM generate_series(1, 5) g ORDER BY g LIMIT @n;\n\n"+
		"-- @query has\n-- @param ids INTEGER[]\nSELECT 2 = ANY(@ids) AS has, @ids AS ids, (@ids)[1] AS first;\n\n"+
		"-- @query words\n-- @param w TEXT[]\nSELECT @w AS w;\n\n"+
		"-- @query grid\n-- @param g INT8[][]\nSELECT array_dims(@g) AS dims, (@g)[2][2] AS g22;\n\n"+
		"-- @query big\n-- @param n INT8\nSELECT @n AS n, '@n' AS lit -- @n\n;\n\n"+
		"-- @query spans\n-- @param s INTERVAL\nSELECT @s AS s;\n\n"+
		"-- @query broken\n-- @param d DATE\nSELECT @d + 1 AS a, nope AS b;\n\n"+
		"-- @query unused\n-- @param a INTEGER\n-- @param b INTEGER\nSELECT @b AS b;\n")
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/pg/m/next_day", `{"d":"2019-01-01"}`, `{"Columns":[{"name":"next","type":"date"},{"name":"d","type":"date"}],"Rows":[["2019-01-02","2019-01-01"]]}`},
		{"p/pg/m/money", `{"d":1.235}`, `{"Columns":[{"name":"d","type":"numeric(5,2)"}],"Rows":[[1.24]]}`},
		{"p/pg/m/first", `{"n":2}`, `{"Columns":[{"name":"g","type":"int4"}],"Rows":[[1],[2]]}`},
		{"p/pg/m/has", `{"ids":[1,2]}`, `{"Columns":[{"name":"has","type":"bool"},{"name":"ids","type":"_int4"},{"name":"first","type":"int4"}],"Rows":[[true,[1,2],1]]}`},
		{"p/pg/m/has", `{"ids":[]}`, `{"Columns":[{"name":"has","type":"bool"},{"name":"ids","type":"_int4"},{"name":"first","type":"int4"}],"Rows":[[false,[],null]]}`},
		{"p/pg/m/words", `{"w":["a\"b","c,d","x\\y","NULL","","{}"," sp ","'q'","é"]}`, `{"Columns":[{"name":"w","type":"_text"}],"Rows":[[["a\"b","c,d","x\\y","NULL","","{}"," sp ","'q'","é"]]]}`},
		{"p/pg/m/grid", `{"g":[[1,2],[3,"9223372036854775807"]]}`, `{"Columns":[{"name":"dims","type":"text"},{"name":"g22","type":"int8"}],"Rows":[["[1:2][1:2]",9223372036854775807]]}`},
		{"p/pg/m/big", `{"n":"9223372036854775807"}`, `{"Columns":[{"name":"n","type":"int8"},{"name":"lit","type":"text"}],"Rows":[[9223372036854775807,"@n"]]}`},
		{"p/pg/m/unused", `{"a":1,"b":2}`, `{"Columns":[{"name":"b","type":"int4"}],"Rows":[[2]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/pg/m/grid", `{"g":[[1],[2,3]]}`, `parameter "g" must be a list of lists of one length`},
		{"p/pg/m/has", `{"ids":2}`, `parameter "ids" must be a list of INTEGER (INTEGER[])`},
		{"p/pg/m/spans", `{"s":"yesterday"}`, `parameter "s" must be an INTERVAL, and the engine could not read "yesterday" as one`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
	_, te := runNamed(t, svc, "p/pg/m/broken", `{"d":"2019-01-01"}`)
	if te == nil || te.Kind != "sql_error" || te.SQLState != "42703" || te.Position != strings.Index("SELECT @d + 1 AS a, nope AS b", "nope")+1 {
		t.Errorf("an error after a cast: %+v", te)
	}
}

// TestUncastableListType: a list type the server cannot cast to is the
// catalog's fault, not bound as text.
func TestUncastableListType(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "m", Type: "MAP(VARCHAR,INTEGER)[]"}}}
	_, err := checkParams(q, map[string]any{"m": []any{}})
	if te := classify(err); te.Kind != "unavailable" || !strings.Contains(te.Error, `parameter "m" cannot be bound, so no call can run this query: @param m MAP(VARCHAR,INTEGER)[] is a list of MAP(VARCHAR,INTEGER)`) {
		t.Errorf("%+v", te)
	}
}

// TestRestoreCutExcerpt: DuckDB cuts a long line of its excerpt at either end
// ("..."), maybe inside a cast; the part shown stands for the placeholder, and
// the caret follows.
func TestRestoreCutExcerpt(t *testing.T) {
	q := &catalog.Query{Name: "q", SQL: "SELECT $s, 1", Params: []catalog.Param{{Name: "s", Type: "INTERVAL[]"}}}
	ts := castParams(q, catalog.EngineDuckDB)
	cast := "(CAST(CAST(CAST($s AS JSON) AS VARCHAR[]) AS INTERVAL[]))"
	if !strings.Contains(ts.text, cast) {
		t.Fatalf("cast: %s", ts.text)
	}
	for _, tc := range []struct{ in, want string }{
		{"Conversion Error: x\n\nLINE 1: SELECT " + cast[:40] + "...\n               ^",
			"Conversion Error: x\n\nLINE 1: SELECT $s...\n               ^"},
		{"Conversion Error: x\n\nLINE 1: ..." + cast[20:] + ", 1\n                       ^",
			"Conversion Error: x\n\nLINE 1: ...$s, 1\n           ^"},
		// A whole cast, the caret after it.
		{"E\nLINE 1: SELECT " + cast + ", 1\n" + strings.Repeat(" ", 17+len(cast)) + "^",
			"E\nLINE 1: SELECT $s, 1\n" + strings.Repeat(" ", 19) + "^"},
		// Not a cast's end: left alone.
		{"E\nLINE 1: ...x)) FROM t", "E\nLINE 1: ...x)) FROM t"},
	} {
		if got := ts.restoreExcerpt(tc.in); got != tc.want {
			t.Errorf("restoreExcerpt(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestCastTypeNames: SQL's longer type names and spaced precisions are cast as
// the types they spell; a type of another form is not cast.
func TestCastTypeNames(t *testing.T) {
	for in, want := range map[string]string{
		"timestamp with time zone":       "TIMESTAMPTZ",
		"timestamp(3) with time zone":    "TIMESTAMPTZ(3)",
		"timestamp(0) without time zone": "TIMESTAMP(0)",
		"DECIMAL (10, 2)":                "DECIMAL(10,2)",
		"NUMERIC(10 ,2)":                 "NUMERIC(10,2)",
		"INTEGER []":                     "INTEGER[]",
		"public.mood":                    "",
		`"Mood"`:                         "",
		"time without time zone":         "TIME",
		"time with time zone[]":          "TIMETZ[]",
		"DECIMAL(10, 2)":                 "DECIMAL(10,2)",
		"double precision":               "FLOAT8",
		"character varying(20)":          "VARCHAR(20)",
		"serial4":                        "INTEGER",
		"integer[3]":                     "INTEGER[3]",
		"ENUM('a','b')":                  "",
		"STRUCT(a INTEGER)":              "",
		"X((1),ERROR(CHR(88)),(1))":      "",
		"bit varying":                    "",
		"timestamp with time zone extra": "",
	} {
		if got := castType(in); got != want {
			t.Errorf("castType(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLongTypeNamesBound: a parameter declared with SQL's longer names is
// bound as the type they spell (the offset of a timestamp with time zone is
// kept), and DECIMAL(10, 2) with a space is a DECIMAL(10,2).
func TestLongTypeNamesBound(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query at\n-- @param t timestamp with time zone when it began\nSELECT $t AS t;\n\n" +
			"-- @query money\n-- @param d DECIMAL(10, 2) an amount\nSELECT $d AS d;\n\n" +
			"-- @query ratio\n-- @param r double precision\nSELECT $r AS r;\n",
	})
	svc := newTestService(t, dir, Config{})
	for _, tc := range []struct{ path, params, want string }{
		{"p/k/m/at", `{"t":"2024-07-14 09:30:00+02"}`, `{"Columns":[{"name":"t","type":"TIMESTAMP WITH TIME ZONE"}],"Rows":[["2024-07-14T07:30:00Z"]]}`},
		{"p/k/m/money", `{"d":1.5}`, `{"Columns":[{"name":"d","type":"DECIMAL(10,2)"}],"Rows":[[1.50]]}`},
		{"p/k/m/ratio", `{"r":0.5}`, `{"Columns":[{"name":"r","type":"DOUBLE"}],"Rows":[[0.5]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	q, err := svc.Describe(context.Background(), "p/k/m/at")
	if err != nil || len(q.Problems) != 0 {
		t.Errorf("describe: %+v %v", q, err)
	}
}

// TestDecimalParamsExact: a DECIMAL or NUMERIC parameter keeps every digit of
// a JSON number, and takes a string of a decimal number, which the query's cast
// reads exactly (DuckDB). Before, the value went through a DOUBLE:
// 9007199254740993.01 came back 9007199254740994.56 in a DECIMAL(38,2), and a
// string was refused ("must be a number").
func TestDecimalParamsExact(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query wide\n-- @param x DECIMAL(38,2)\nSELECT $x AS x;\n\n" +
			"-- @query plain\n-- @param x NUMERIC\nSELECT $x AS x;\n\n" +
			"-- @query small\n-- @param x DECIMAL(3,2)\nSELECT $x AS x;\n\n" +
			"-- @query many\n-- @param x DECIMAL(38,2)[]\nSELECT $x AS x;\n\n" +
			"-- @query dbl\n-- @param x DOUBLE\nSELECT $x AS x;\n",
	})
	svc := newTestService(t, dir, Config{})
	wide := `{"Columns":[{"name":"x","type":"DECIMAL(38,2)"}],"Rows":[[%s]]}`
	plain := `{"Columns":[{"name":"x","type":"DECIMAL(18,3)"}],"Rows":[[%s]]}`
	small := `{"Columns":[{"name":"x","type":"DECIMAL(3,2)"}],"Rows":[[%s]]}`
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/wide", `{"x":9007199254740993.01}`, fmt.Sprintf(wide, "9007199254740993.01")},
		{"p/k/m/wide", `{"x":123456789012345678901234567890.12}`, fmt.Sprintf(wide, "123456789012345678901234567890.12")},
		{"p/k/m/wide", `{"x":"123456789012345678901234567890.12"}`, fmt.Sprintf(wide, "123456789012345678901234567890.12")},
		{"p/k/m/wide", `{"x":"-0.005"}`, fmt.Sprintf(wide, "-0.01")},
		{"p/k/m/wide", `{"x":1.5e3}`, fmt.Sprintf(wide, "1500.00")},
		{"p/k/m/plain", `{"x":123456789012345.678}`, fmt.Sprintf(plain, "123456789012345.678")},
		{"p/k/m/plain", `{"x":"123456789012345.6785"}`, fmt.Sprintf(plain, "123456789012345.679")},
		// The server applies an exponent exactly (DuckDB's own cast of the text
		// 15e-1 finds it too wide for DECIMAL(3,2)).
		{"p/k/m/small", `{"x":15e-1}`, fmt.Sprintf(small, "1.50")},
		{"p/k/m/small", `{"x":"9.994999"}`, fmt.Sprintf(small, "9.99")},
		{"p/k/m/many", `{"x":[9007199254740993.01,"123456789012345678901234567890.12"]}`, `{"Columns":[{"name":"x","type":"DECIMAL(38,2)[]"}],"Rows":[[[9007199254740993.01,123456789012345678901234567890.12]]]}`},
		// A DOUBLE stays a number.
		{"p/k/m/dbl", `{"x":0.1}`, `{"Columns":[{"name":"x","type":"DOUBLE"}],"Rows":[[0.1]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/k/m/small", `{"x":9.995}`, `parameter "x" must be a number with at most 1 digit before the decimal point once rounded to 2 decimals (DECIMAL(3,2)), got 9.995`},
		{"p/k/m/small", `{"x":"9.995"}`, `got "9.995"`},
		{"p/k/m/plain", `{"x":"1e15"}`, `(NUMERIC, DuckDB's DECIMAL(18,3)), got "1e15"`},
		{"p/k/m/wide", `{"x":"12,5"}`, `parameter "x" must be a number (DECIMAL(38,2)): a JSON number, or a string of a decimal number`},
		{"p/k/m/wide", `{"x":"NaN"}`, `must be a number (DECIMAL(38,2))`},
		{"p/k/m/wide", `{"x":true}`, `must be a number (DECIMAL(38,2))`},
		{"p/k/m/many", `{"x":[1, "x"]}`, `parameter "x[1]" must be a number (DECIMAL(38,2))`},
		{"p/k/m/dbl", `{"x":"0.1"}`, `parameter "x" must be a JSON number (DOUBLE; e.g. 1.5, without quotes), got the string "0.1"`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
}

// TestDecimalParamsExactPostgres: the same on PostgreSQL (CATALOG_TEST_PG_DSN).
// Before, NUMERIC(38,2) read 9007199254740993.01 as 9007199254740994.00, and a
// NUMERIC without a precision 123456789012345678901234567890.123456789 as
// 123456789012345680000000000000.
func TestDecimalParamsExactPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source one\nSELECT 1 AS x;\n\n"+
		"-- @query wide\n-- @param x NUMERIC(38,2)\nSELECT @x AS x;\n\n"+
		"-- @query plain\n-- @param x NUMERIC\nSELECT @x AS x;\n\n"+
		"-- @query many\n-- @param x NUMERIC(38,2)[]\nSELECT @x AS x;\n")
	wide := `{"Columns":[{"name":"x","type":"numeric(38,2)"}],"Rows":[[%s]]}`
	plain := `{"Columns":[{"name":"x","type":"numeric"}],"Rows":[[%s]]}`
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/pg/m/wide", `{"x":9007199254740993.01}`, fmt.Sprintf(wide, "9007199254740993.01")},
		{"p/pg/m/wide", `{"x":"123456789012345678901234567890.125"}`, fmt.Sprintf(wide, "123456789012345678901234567890.13")},
		{"p/pg/m/wide", `{"x":15e-1}`, fmt.Sprintf(wide, "1.50")},
		{"p/pg/m/plain", `{"x":123456789012345678901234567890.123456789}`, fmt.Sprintf(plain, "123456789012345678901234567890.123456789")},
		{"p/pg/m/plain", `{"x":"1.5e40"}`, fmt.Sprintf(plain, "15000000000000000000000000000000000000000")},
		{"p/pg/m/many", `{"x":[9007199254740993.01,"0.005"]}`, `{"Columns":[{"name":"x","type":"_numeric"}],"Rows":[[[9007199254740993.01,0.01]]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	for _, tc := range []struct {
		path, params, want string
	}{
		{"p/pg/m/wide", `{"x":1e36}`, `parameter "x" must be a number with at most 36 digits before the decimal point once rounded to 2 decimals (NUMERIC(38,2)), got 1e36`},
		{"p/pg/m/plain", `{"x":"1e131072"}`, `PostgreSQL's numeric holds at most 131072 digits before the decimal point`},
		{"p/pg/m/plain", `{"x":"Infinity"}`, `must be a number (NUMERIC)`},
	} {
		_, te := runNamed(t, svc, tc.path, tc.params)
		if te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%s %s: %+v, want %q", tc.path, tc.params, te, tc.want)
		}
	}
}

// TestUndeclaredParamPostgres: a PostgreSQL named query whose SQL uses @y
// without declaring it is the catalog's fault at every call, whatever the call
// gives; before, PostgreSQL ran it, reading @ as its absolute-value operator
// (column "y" does not exist), and a call giving y was told the query takes no
// parameters.
func TestUndeclaredParamPostgres(t *testing.T) {
	svc := pgModelService(t, "-- @source one\nSELECT 1 AS u;\n\n-- @query q\nSELECT @y AS y FROM one;\n\n"+
		"-- @query ops\nSELECT ARRAY['a'] <@ARRAY['a','b'] AS within, to_tsvector('simple', 'a b') @@to_tsquery('simple', 'a') AS hit;\n\n"+
		"-- @query opsp\n-- @param tag VARCHAR\nSELECT ARRAY[@tag]::text[] <@tags AS within FROM (SELECT ARRAY['a','b'] AS tags) t;\n")
	// <@ before a name is PostgreSQL's operator in a query with parameters too
	// (they are bound by position): tags is the column.
	if got, te := runNamed(t, svc, "p/pg/m/opsp", `{"tag":"a"}`); te != nil || got != `{"Columns":[{"name":"within","type":"bool"}],"Rows":[[true]]}` {
		t.Errorf("operator in a query with parameters: %s %+v", got, te)
	}
	// <@ and @@ right before a name are PostgreSQL's operators, not parameters.
	if got, te := runNamed(t, svc, "p/pg/m/ops", `{}`); te != nil || got != `{"Columns":[{"name":"within","type":"bool"},{"name":"hit","type":"bool"}],"Rows":[[true,true]]}` {
		t.Errorf("operators: %s %+v", got, te)
	}
	for _, params := range []string{`{}`, `{"y":1}`} {
		_, te := runNamed(t, svc, "p/pg/m/q", params)
		if te == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, "uses the parameter @y, which none of its @param lines declares") {
			t.Errorf("%s: %+v", params, te)
		}
	}
}

// TestDuckCastTypePrecision: DuckDB takes no precision on TIME, TIMETZ,
// TIMESTAMPTZ or INTERVAL, so a DuckDB package's parameter of such a type is
// cast without it (PostgreSQL's keeps it), and the cast type is one DuckDB
// prepares.
func TestDuckCastTypePrecision(t *testing.T) {
	for in, want := range map[string][2]string{
		"timestamp(3) with time zone": {"TIMESTAMPTZ", "TIMESTAMPTZ(3)"},
		"TIMETZ(2)[]":                 {"TIMETZ[]", "TIMETZ(2)[]"},
		"time(6)":                     {"TIME", "TIME(6)"},
		"timestamp(3)":                {"TIMESTAMP(3)", "TIMESTAMP(3)"},
		"interval(3)":                 {"INTERVAL", "INTERVAL(3)"},
	} {
		if got := duckCastType(in); got != want[0] {
			t.Errorf("duckCastType(%q) = %q, want %q", in, got, want[0])
		}
		if got := castType(in); got != want[1] {
			t.Errorf("castType(%q) = %q, want %q", in, got, want[1])
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n\n" +
			"-- @query at\n-- @param t timestamp(3) with time zone\n-- @param i INTERVAL(3)\nSELECT $t AS t, $i AS i;\n",
	})
	svc := newTestService(t, dir, Config{})
	if q, err := svc.Describe(context.Background(), "p/k/m/at"); err != nil || len(q.Problems) != 0 {
		t.Fatalf("describe: %+v %v", q, err)
	}
	if got, te := runNamed(t, svc, "p/k/m/at", `{"t":"2024-07-14 09:30:00+02","i":"2 days"}`); te != nil || got != `{"Columns":[{"name":"t","type":"TIMESTAMP WITH TIME ZONE"},{"name":"i","type":"INTERVAL"}],"Rows":[["2024-07-14T07:30:00Z","2 days"]]}` {
		t.Errorf("at: %s %+v", got, te)
	}
}

// TestPostgresTextNul: PostgreSQL's text holds no NUL character, so a string
// parameter holding one is refused naming the parameter (PostgreSQL's own
// refusal, SQLSTATE 22021, read as the SQL's error); in a list too.
func TestPostgresTextNul(t *testing.T) {
	svc := pgModelService(t, "-- @source one\nSELECT 1 AS u;\n\n-- @query q\n-- @param t TEXT\nSELECT @t AS t;\n\n"+
		"-- @query l\n-- @param w TEXT[]\nSELECT @w AS w;\n")
	for path, params := range map[string]string{"p/pg/m/q": `{"t":"a\u0000b"}`, "p/pg/m/l": `{"w":["x","a\u0000b"]}`} {
		if _, te := runNamed(t, svc, path, params); te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, "without a NUL character") {
			t.Errorf("%s %s: %+v", path, params, te)
		}
	}
	if got, te := runNamed(t, svc, "p/pg/m/q", `{"t":"ab"}`); te != nil || got != `{"Columns":[{"name":"t","type":"text"}],"Rows":[["ab"]]}` {
		t.Errorf("plain text: %s %+v", got, te)
	}
}
