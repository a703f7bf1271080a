package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestParamRanges: an integer parameter's value must fit its type, exactly:
// the arguments keep a number's digits (json.Number), and a string of decimal
// digits is taken too (for a client whose numbers are exact only to 2^53); a
// value out of range is refused with the range and the value as sent, not
// bound as some other number. INTERVAL and POINT are not integer types.
func TestParamRanges(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "year", Type: "INTEGER"}}}
	n := func(s string) json.Number { return json.Number(s) }
	for _, tc := range []struct {
		typ  string
		v    any
		want string // "" means accepted
		bind any    // the value bound, when accepted (nil: not compared)
	}{
		{"INTEGER", n("2024"), "", int64(2024)},
		{"INTEGER", 2024.0, "", int64(2024)}, // a float64 from a Go caller
		{"INTEGER", n("-2147483648"), "", int64(-2147483648)},
		{"INTEGER", n("2.0"), "", int64(2)},
		{"INTEGER", n("4.2e1"), "", int64(42)},
		{"INTEGER", n("3e9"), "from -2147483648 to 2147483647 (INTEGER), got 3e9", nil},
		{"INTEGER", n("1e400"), "from -2147483648 to 2147483647 (INTEGER), got 1e400", nil},
		{"INTEGER", n("1e99999999999"), "from -2147483648 to 2147483647 (INTEGER), got 1e99999999999", nil},
		{"INTEGER", n("2.5"), `must be an integer (INTEGER): a JSON number without a fraction (42), or a string of decimal digits`, nil},
		{"INTEGER", n("1e-400"), `must be an integer (INTEGER)`, nil},
		{"INT4", "2", "", int64(2)},
		{"INT4", "-007", "", int64(-7)},
		{"INT4", "2.0", `must be an integer (INT4)`, nil},
		{"INT4", "1e3", `must be an integer (INT4)`, nil},
		{"INT4", " 2", `must be an integer (INT4)`, nil},
		{"INT4", true, `must be an integer (INT4)`, nil},
		{"TINYINT", n("200"), "from -128 to 127 (TINYINT)", nil},
		{"UTINYINT", n("-1"), "from 0 to 255", nil},
		{"USMALLINT", n("65535"), "", int64(65535)},
		{"BIGINT", n("9007199254740993"), "", int64(9007199254740993)},
		{"BIGINT", "9223372036854775807", "", int64(9223372036854775807)},
		{"BIGINT", "9223372036854775808", `from -9223372036854775808 to 9223372036854775807 (BIGINT), got "9223372036854775808"`, nil},
		{"INT8", n("-9223372036854775808"), "", int64(-9223372036854775808)},
		{"UBIGINT", n("18446744073709551615"), "", "18446744073709551615"},
		{"UBIGINT", n("18446744073709551616"), "from 0 to 18446744073709551615 (UBIGINT), got 18446744073709551616", nil},
		{"HUGEINT", "-170141183460469231731687303715884105728", "", "-170141183460469231731687303715884105728"},
		{"HUGEINT", "170141183460469231731687303715884105728", "from -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727 (HUGEINT)", nil},
		{"UHUGEINT", n("340282366920938463463374607431768211455"), "", "340282366920938463463374607431768211455"},
		{"UHUGEINT", strings.Repeat("9", 500), "from 0 to 340282366920938463463374607431768211455 (UHUGEINT)", nil},
		{"INT64", n("-1e300"), "from -9223372036854775808 to 9223372036854775807 (INT64), got -1e300", nil},
		{"INTERVAL", "2 days", "", "2 days"},
		{"INTERVAL", n("2"), `must be a JSON string (INTERVAL, in double quotes, e.g. "1 day 02:00:00" or "90 minutes"), got the number 2: a number of seconds is written "2 seconds"`, nil},
		{"POINT", "(1,2)", "", "(1,2)"},
		{"DOUBLE", n("1e400"), `parameter "year" must be a number (DOUBLE), and 1e400 is out of range`, nil},
		{"REAL", n("1e39"), `parameter "year" must be a number (REAL), and 1e39 is out of range`, nil},
		{"DOUBLE", n("1e39"), "", 1e39},
		{"DOUBLE", n("0.1"), "", 0.1},
		// Go's reader stops counting an exponent at 10000: this was bound as 0.
		{"DOUBLE", n("0." + strings.Repeat("0", 2000000) + "1e2000001"), `parameter "year" must be a number (DOUBLE) written in at most 1100 characters, got one of 2000011: write it with an exponent (1.5e-300)`, nil},
		{"REAL", n("0." + strings.Repeat("0", 1100) + "1e1101"), `parameter "year" must be a number (REAL) written in at most 1100 characters, got one of 1108`, nil},
		{"DOUBLE", n("0." + strings.Repeat("0", 1000) + "1e1001"), "", 1.0},
		{"DOUBLE", n("4.940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359923797965646954457177309266567103559397963987747960107818781263007131903114045278458171678489821036887186360569987307230500063874091535649843873124733972731696151400317153853980741262385655911710266585566867681870395603106249319452715914924553293054565444011274801297099995419319894090804165633245247571478690147267801593552386115501348035264934720193790268107107491703332226844753335720832431936092382893458368060106011506169809753078342277318329247904982524730776375927247874656084778203734469699533647017972677717585125660551199131504891101451037862738167250955837389733598993664809941164205702637090279242767544565229087538682506419718265533447265625e-324"), "", 5e-324},
		{"VARCHAR", nil, `parameter "year" must be a VARCHAR, got null: parameters take no nulls`, nil},
	} {
		q.Params[0].Type = tc.typ
		out, err := checkParams(q, map[string]any{"year": tc.v})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.typ, tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: got %v (%v), want an error with %q", tc.typ, tc.v, err, out, tc.want)
		case tc.want == "" && tc.bind != nil && out["year"] != tc.bind:
			t.Errorf("%s %v: bound %#v, want %#v", tc.typ, tc.v, out["year"], tc.bind)
		}
	}
}

// TestUnboundParams: a parameter the SQL uses but no call can give is explained
// for what it is: ad-hoc SQL takes no parameters (so the advice is a literal or a
// named query, not "pass it in parameters", which is refused), and a named query's
// SQL using a parameter it does not declare is the catalog's mistake.
func TestUnboundParams(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @query above\n-- @param lo INTEGER\nSELECT x FROM a WHERE x > $lo AND x < $hi;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT x FROM a WHERE x > $lo"}, &te)
	if !r.IsError || te.Kind != "sql_error" || !strings.Contains(te.Error, "uses the parameter $lo, but ad-hoc SQL takes no parameters: write the value into the SQL as a literal") || strings.Contains(te.Error, "pass it in parameters") {
		t.Errorf("ad-hoc SQL with a parameter: %+v", te)
	}
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "p/k/m/above", "parameters": map[string]any{"lo": 1}}, &te)
	if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, "named query above uses the parameter $hi, which none of its @param lines declares") || !strings.Contains(te.Hint, "the catalog's file needs fixing") {
		t.Errorf("undeclared parameter: %+v", te)
	}
}

// TestUnknownArguments: an argument a tool does not take is refused with the
// closest one it does, rather than dropped (a "limit" would leave the row limit at
// its default); names differing only in case are the arguments encoding/json
// matches.
func TestUnknownArguments(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n3\n",
		"p/k/m.sql":         "-- @source a\nSELECT * FROM 'data/a.csv';\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		want    string
		closest []string
	}{
		{"execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM a", "limit": 1}, `execute_query takes no argument "limit" (did you mean "rowLimit"?)`, []string{"rowLimit"}},
		{"execute_query", map[string]any{"path": "p/k/m", "query": "SELECT * FROM a"}, `execute_query takes no argument "query" (did you mean "queryName"?)`, []string{"queryName"}},
		{"search_catalog", map[string]any{"query": "a", "max": 1}, `search_catalog takes no argument "max"`, nil},
		{"list_catalog", map[string]any{"path": "p", "offset": 2}, `list_catalog takes no argument "offset"`, nil},
		{"describe", map[string]any{"path": "p/k", "paths": []string{"p"}}, `describe takes no argument "paths" (did you mean "path"?)`, []string{"path"}},
	} {
		var te toolError
		r := call(t, cs, tc.tool, tc.args, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) || !strings.Contains(te.Hint, "Call again with the arguments "+tc.tool+" takes") ||
			!strings.Contains(text(r), tc.want) || len(te.Suggestions) != len(tc.closest) || len(tc.closest) > 0 && te.Suggestions[0] != tc.closest[0] {
			t.Errorf("%s %v: %+v", tc.tool, tc.args, te)
		}
	}
	// Argument names are case-sensitive, as the input schema is: "RowLimit" is not
	// rowLimit (decoded anyway, -5 would have passed the schema's minimum of 1).
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "p/k/m", "sql": "SELECT * FROM a", "RowLimit": -5}, "rowLimit"},
		{map[string]any{"path": "p/k/m", "sql": "SELECT * FROM a", "rowLimit": 2, "RowLimit": -5}, "rowLimit"},
		{map[string]any{"path": "p/k/m", "SQL": "SELECT * FROM a"}, "sql"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `(did you mean "`+tc.want+`"?)`) || !slices.Equal(te.Suggestions, []string{tc.want}) {
			t.Errorf("arguments in another case %v: %s", tc.args, text(r))
		}
	}
	// A search for blanks (the schema's minLength lets them through) says so
	// rather than finding nothing.
	var te toolError
	if r := call(t, cs, "search_catalog", map[string]any{"query": "  \t"}, &te); !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, "no words") {
		t.Errorf("a blank search: %s", text(r))
	}
}

// TestParamValueUnreadable: a string parameter the engine cannot read as its type
// (an INTERVAL "yesterday", a type the server does not check itself) is answered
// as the parameter's fault, with the engine's message, not as a SQL error the
// caller did not write; a DATE "yesterday" is refused before the query runs
// (TestTypedParamValues).
func TestParamValueUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "d,n\n2024-07-13,1\n2024-07-14,2\n",
		"p/k/m.sql": "-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @query on_day\n-- @param day DATE the day\nSELECT sum(n) AS n FROM a WHERE d = $day;\n\n" +
			"-- @query within\n-- @param span INTERVAL how far back\nSELECT sum(n) AS n FROM a WHERE d > DATE '2024-07-14' - CAST($span AS INTERVAL);\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/within", "parameters": map[string]any{"span": "yesterday"}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "span" must be an INTERVAL, and the engine could not read "yesterday" as one`) ||
		strings.Contains(text(r), "Fix the SQL") {
		t.Errorf("an INTERVAL parameter that is no interval: %+v (text %q)", te, text(r))
	}
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "p/k/m/on_day", "parameters": map[string]any{"day": "yesterday"}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "day" must be a DATE written YYYY-MM-DD`) || strings.Contains(text(r), "Fix the SQL") {
		t.Errorf("a DATE parameter that is no date: %+v (text %q)", te, text(r))
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/on_day", "parameters": map[string]any{"day": "2024-07-14"}}, &res); r.IsError || len(res.Rows) != 1 || res.Rows[0][0] != float64(2) {
		t.Errorf("a DATE parameter: %s", text(r))
	}
}

// TestParamValueErrorDuckDBZones: DuckDB's errors for a TIMESTAMPTZ in a zone
// it does not know, and in a zone that takes it past either end of DuckDB's
// range, quote no value; both are blamed on the parameter, the second only on
// a value near an end (any other is not the cause), and through the tool as
// the parameter's fault.
func TestParamValueErrorDuckDBZones(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "at", Type: "timestamp with time zone"}, {Name: "note", Type: "VARCHAR"}}}
	unknown := &engine.SQLError{Engine: "duckdb", Message: "Conversion Error: Unknown TimeZone 'Mars/Olympus'!\nCandidate time zones: …"}
	overflow := &engine.SQLError{Engine: "duckdb", Message: "Conversion Error: ICU date overflows timestamp range"}
	for _, tc := range []struct {
		v     string
		err   *engine.SQLError
		blame bool
	}{
		{"2024-07-14 09:30:00 Mars/Olympus", unknown, true},
		{"2024-07-14 09:30:00 UTC", unknown, false},
		{"294247-01-10 04:00:54 America/New_York", overflow, true},
		{"294247-01-10 04:00:54", overflow, true}, // in the session's zone
		{"290309-12-23 (BC) 00:00:00 Asia/Tokyo", overflow, true},
		{"2024-07-14 09:30:00 America/New_York", overflow, false},
		{"294247-01-10 04:00:54+02", overflow, false}, // its offset is DuckDB's to apply, and the check's
	} {
		pe := paramValueError(q, map[string]any{"at": tc.v, "note": "x"}, "", tc.err)
		if (pe != nil) != tc.blame || pe != nil && !strings.Contains(pe.Error(), `parameter "at" must be a timestamp with time zone`) {
			t.Errorf("%q, %v: %v", tc.v, tc.err, pe)
		}
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS x;\n\n-- @query at\n-- @param ts TIMESTAMPTZ when\nSELECT CAST($ts AS TIMESTAMPTZ) AS t;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for v, want := range map[string]string{
		"2024-07-14 09:30:00 Mars/Olympus":       "Unknown TimeZone 'Mars/Olympus'",
		"294247-01-10 04:00:54 America/New_York": "within DuckDB's range once read in its time zone",
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/at", "parameters": map[string]any{"ts": v}}, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "ts" must be a TIMESTAMPTZ`) || !strings.Contains(te.Error, want) || strings.Contains(text(r), "Fix the SQL") {
			t.Errorf("%q: %+v (text %q)", v, te, text(r))
		}
	}
	var res struct{ Rows [][]any }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/at", "parameters": map[string]any{"ts": "294247-01-09 23:00:54 America/New_York"}}, &res); r.IsError || len(res.Rows) != 1 {
		t.Errorf("a time in range in its zone: %s", text(r))
	}
}

// TestParamValueErrorFirstLine: a conversion error is blamed on a parameter only
// when its value is quoted in the message's first line, not in DuckDB's excerpt
// of the SQL after it (an empty value matches any empty literal, a short one
// a literal of its own). (DATE parameters: a text parameter is never blamed
// by a quote, TestTextParamCastBlamesQuery.)
func TestParamValueErrorFirstLine(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "a", Type: "DATE"}, {Name: "b", Type: "DATE"}}}
	err := &engine.SQLError{Engine: "duckdb", Message: "Conversion Error: invalid date field format: \"abc\", expected format is (YYYY-MM-DD)\n\nLINE 1: SELECT CAST($a AS DATE), CAST($b AS DATE), '', 'x'\n                    ^"}
	if pe := paramValueError(q, map[string]any{"a": "", "b": "x"}, "", err); pe != nil {
		t.Errorf("values quoted only in the SQL's excerpt: %v", pe)
	}
	if pe := paramValueError(q, map[string]any{"a": "", "b": "abc"}, "", err); pe == nil || !strings.Contains(pe.Error(), `parameter "b"`) {
		t.Errorf("a value quoted on the first line: %v", pe)
	}
}

// TestParamValueErrorPostgres: PostgreSQL's errors for a value it cannot read
// (by SQLSTATE, the value in double quotes, or the zone it does not know) are
// blamed on the parameter.
func TestParamValueErrorPostgres(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "at", Type: "TIMESTAMPTZ"}}}
	for _, tc := range []struct {
		v     string
		err   *engine.SQLError
		blame bool
	}{
		{"2024-02-30 09:30", &engine.SQLError{Engine: "postgres", SQLState: "22008", Message: `date/time field value out of range: "2024-02-30 09:30"`}, true},
		{"2024-07-14 09:30+16", &engine.SQLError{Engine: "postgres", SQLState: "22009", Message: `time zone displacement out of range: "2024-07-14 09:30+16"`}, true},
		{"2024-07-14 09:30 Mars/Olympus", &engine.SQLError{Engine: "postgres", SQLState: "22023", Message: `time zone "mars/olympus" not recognized`}, true},
		{"2024-07-14 09:30 UTC", &engine.SQLError{Engine: "postgres", SQLState: "22023", Message: `time zone "mars/olympus" not recognized`}, false},
		{"2024-07-14", &engine.SQLError{Engine: "postgres", SQLState: "42703", Message: `column "x" does not exist`}, false},
	} {
		pe := paramValueError(q, map[string]any{"at": tc.v}, "", tc.err)
		if (pe != nil) != tc.blame || pe != nil && !strings.Contains(pe.Error(), `parameter "at" must be a TIMESTAMPTZ`) {
			t.Errorf("%q, %v: %v", tc.v, tc.err, pe)
		}
	}
	// JSON nested past PostgreSQL's stack (which encoding/json would not read
	// either, but PostgreSQL reads 10001 levels and more: it is left to it).
	q = &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "doc", Type: "jsonb"}}}
	deep := &engine.SQLError{Engine: "postgres", SQLState: "54001", Message: "stack depth limit exceeded"}
	if pe := paramValueError(q, map[string]any{"doc": strings.Repeat("[", 50000) + strings.Repeat("]", 50000)}, "", deep); pe == nil || !strings.Contains(pe.Error(), `parameter "doc" must be a jsonb nested less deeply (50000 levels`) {
		t.Errorf("JSON too deep: %v", pe)
	}
	if pe := paramValueError(q, map[string]any{"doc": `[[["[[[[[["]]]`}, "", deep); pe != nil {
		t.Errorf("shallow JSON blamed for the stack: %v", pe)
	}
	// A jsonb number past PostgreSQL's numeric.
	overflow := &engine.SQLError{Engine: "postgres", SQLState: "22003", Message: "value overflows numeric format"}
	if pe := paramValueError(q, map[string]any{"doc": `{"n": 1e131072}`}, "", overflow); pe == nil || !strings.Contains(pe.Error(), `parameter "doc" must be a jsonb whose numbers PostgreSQL's numeric holds`) {
		t.Errorf("a jsonb number past numeric: %v", pe)
	}
	if pe := paramValueError(q, map[string]any{"doc": `{"n": 1e300, "s": "1e131072"}`}, "", overflow); pe != nil {
		t.Errorf("a jsonb of ordinary numbers blamed for an overflow: %v", pe)
	}
}

// TestCheckParamsByEngine: checkParams checks a value as the query's model's
// engine reads it.
func TestCheckParamsByEngine(t *testing.T) {
	for _, tc := range []struct {
		eng, typ, v string
		ok          bool
	}{
		{catalog.EnginePostgres, "TIMESTAMPTZ", "2024-07-14T09:30Z", true},
		{catalog.EngineDuckDB, "TIMESTAMPTZ", "2024-07-14T09:30Z", false},
		{"", "TIMESTAMPTZ", "2024-07-14T09:30Z", false}, // a manifest without engine: DuckDB
		{catalog.EnginePostgres, "TIMETZ", "09:30+02", true},
		{catalog.EngineDuckDB, "TIMETZ", "09:30+02", false},
		{catalog.EnginePostgres, "UUID", "-123e4567e89b12d3a456426614174000", false},
		{catalog.EngineDuckDB, "UUID", "-123e4567e89b12d3a456426614174000", true},
		{catalog.EnginePostgres, "DATE", "2024-13-01", false},
	} {
		q := &catalog.Query{Name: "q", Model: &catalog.Model{Package: &catalog.Package{Engine: tc.eng}}, Params: []catalog.Param{{Name: "v", Type: tc.typ}}}
		_, err := checkParams(q, map[string]any{"v": tc.v})
		if (err == nil) != tc.ok {
			t.Errorf("%s %s %q: %v, want accepted: %v", tc.eng, tc.typ, tc.v, err, tc.ok)
		}
	}
}

// TestClassifyOutOfMemory: a query stopped for memory is its own kind, with a hint.
func TestClassifyOutOfMemory(t *testing.T) {
	te := classify(fmt.Errorf("query: %w", &engine.MemoryError{Limit: "512MB", Detail: "Out of Memory Error: …"}))
	if te.Kind != "out_of_memory" || te.Hint == "" || !strings.Contains(te.Error, "(512MB)") {
		t.Errorf("%+v", te)
	}
}

// TestClassifyClosed: a query that met a model closed by a reload (twice: it runs
// again once) is told to call again, as for a busy model, not that it is invalid.
func TestClassifyClosed(t *testing.T) {
	te := classify(fmt.Errorf("query: %w", engine.ErrClosed))
	if te.Kind != "unavailable" || te.Hint == "" || !strings.Contains(te.Error, "reloaded") {
		t.Errorf("%+v", te)
	}
}

// TestQueryNameMustNameAQuery: queryName runs a named query or is refused; it is
// never dropped, and never taken for a source. (Before, a path that was itself a
// named query or a source ran that and ignored queryName, whatever it named.)
func TestQueryNameMustNameAQuery(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "retail/shop/sales/revenue_by_month", "queryName": "top_customers", "parameters": map[string]any{"year": 2023}},
			`path retail/shop/sales/revenue_by_month is already the named query revenue_by_month, and queryName names "top_customers": drop queryName, or give path retail/shop/sales with queryName`},
		{map[string]any{"path": "retail/shop/sales/revenue_by_month", "queryName": "nonexistent", "parameters": map[string]any{"year": 2023}}, `queryName names "nonexistent"`},
		{map[string]any{"path": "retail/shop/sales/orders", "queryName": "revenue_by_month", "rowLimit": 1},
			`path retail/shop/sales/orders is a source, which has no named queries, and queryName names "revenue_by_month": drop queryName to read the source, or give path retail/shop/sales (its model) with queryName`},
		{map[string]any{"path": "retail/shop/sales", "queryName": "orders"},
			`queryName "orders" is a source of retail/shop/sales, not a named query; read a source with path retail/shop/sales/orders (without queryName)`},
		{map[string]any{"path": "retail/shop/sales/orders", "parameters": map[string]any{"year": 2023}}, "parameters go with a named query; reading the source retail/shop/sales/orders takes none"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) || !strings.Contains(text(r), tc.want) {
			t.Errorf("%v: %s", tc.args, text(r))
		}
	}
	// The same name twice is not a conflict.
	var res struct{ RowCount int }
	if r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales/revenue_by_month", "queryName": "revenue_by_month", "parameters": map[string]any{"year": 2023}}, &res); r.IsError || res.RowCount != 12 {
		t.Errorf("path and queryName naming one query: %s", text(r))
	}
}

// TestModelUnavailable: a query on a model that did not load (a PostgreSQL
// package whose connection variable is unset) is the server's or the catalog's to
// fix, kind unavailable with the reason, not a mistake of the call.
func TestModelUnavailable(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_NEVER_SET_DSN"}`,
		"p/pg/hr.sql":        "-- @source staff\nSELECT 1 AS x;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	for path, want := range map[string]string{
		"p/pg/hr":       "the model p/pg/hr is unavailable: ",
		"p/pg/hr/staff": "the model of p/pg/hr/staff (p/pg/hr) is unavailable: ",
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": path, "sql": "SELECT 1"}, &te)
		if !r.IsError || te.Kind != "unavailable" || !strings.Contains(te.Error, want) || !strings.Contains(te.Error, "CATALOG_TEST_NEVER_SET_DSN") || !strings.Contains(te.Hint, "Calling again will not help") {
			t.Errorf("%s: %s", path, text(r))
		}
	}
}

// TestNamedQueryErrorBlame: a named query that fails at run time with the
// parameters a call gave (a negative LIMIT) says to check those values; one the
// engine cannot even bind (a missing column) is the catalog's to fix, whatever the
// values.
func TestNamedQueryErrorBlame(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n2\n3\n",
		"p/k/m.sql": "-- @source a\nSELECT * FROM 'data/a.csv';\n\n-- @query lim\n-- @param n INTEGER\nSELECT x FROM a ORDER BY x LIMIT $n;\n\n" +
			"-- @query bad\n-- @param n INTEGER\nSELECT nope FROM a WHERE x > 0 ORDER BY x LIMIT $n;\n\n" +
			"-- @query since\n-- @param d DATE\nSELECT x FROM a WHERE DATE '2024-01-01' + x::INTEGER > CAST($d AS DATE);\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/lim", "parameters": map[string]any{"n": -5}}, &te)
	if !r.IsError || te.Kind != "sql_error" || !strings.Contains(te.Hint, `failed with the parameter values of this call ({"n":-5}): check them`) || strings.Contains(te.Hint, "needs fixing") {
		t.Errorf("negative LIMIT: %s", text(r))
	}
	var res struct{ RowCount int }
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/lim", "parameters": map[string]any{"n": 2}}, &res); r.IsError || res.RowCount != 2 {
		t.Errorf("LIMIT 2: %s", text(r))
	}
	// An empty string the engine cannot read as a date is the parameter's fault.
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "p/k/m/since", "parameters": map[string]any{"d": ""}}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, `parameter "d" must be a DATE written YYYY-MM-DD (e.g. "2024-07-14"), got ""`) {
		t.Errorf("empty date: %s", text(r))
	}
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"path": "p/k/m/bad", "parameters": map[string]any{"n": 1}}, &te)
	if !r.IsError || te.Kind != "sql_error" || !strings.Contains(te.Hint, "the catalog's file needs fixing") || !strings.Contains(te.Error, "Binder Error") {
		t.Errorf("missing column: %s", text(r))
	}
}

// TestErrorTextCut: an error that echoes what the call sent or what the query made
// carries its first 8 KiB, and says how much it left out.
func TestErrorTextCut(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for _, args := range []struct {
		tool string
		args map[string]any
	}{
		{"execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT error(repeat('x', 200000))"}},
		{"describe", map[string]any{"path": "retail/" + strings.Repeat("é", 100000)}},
	} {
		var te toolError
		r := call(t, cs, args.tool, args.args, &te)
		if !r.IsError || len(te.Error) > 8<<10+64 || !strings.Contains(te.Error, "more bytes not shown)") || !utf8.ValidString(te.Error) || len(text(r)) > 17<<10 {
			t.Errorf("%s: %d bytes of error, %d of text: %.200s", args.tool, len(te.Error), len(text(r)), te.Error)
		}
	}
}

// TestMissingParams: every missing parameter is named at once, with the type and
// description of each, and a near miss ("Region", "$region") is pointed out.
func TestMissingParams(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	all := "its parameters: region (VARCHAR: one of north, south, east, west), n (INTEGER: how many customers)"
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{}, `named query top_customers needs parameters "region", "n"; ` + all},
		{map[string]any{"n": 3}, `named query top_customers needs parameter "region"; ` + all},
		{map[string]any{"Region": "north", "n": 3}, `needs parameter "region" (given as "Region": names are exact, without $)`},
		{map[string]any{"$region": "north", "n": 3}, `needs parameter "region" (given as "$region": names are exact, without $)`},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales/top_customers", "parameters": tc.params}, &te)
		if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, tc.want) {
			t.Errorf("%v: %s", tc.params, text(r))
		}
	}
}

// TestIntegralFloatArgument: an integer argument written as 2.0 or 1e1 (valid
// integers to JSON Schema; clients without an integer type send them) is taken
// as the integer it is; one past the field's range is refused in the caller's
// terms, not Go's.
func TestIntegralFloatArgument(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for _, v := range []string{`2.0`, `1e1`, `2.0e0`} {
		var out struct {
			RowCount int
			RowLimit int
		}
		r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT * FROM range(5)", "rowLimit": json.RawMessage(v)}, &out)
		want, _ := strconv.ParseFloat(v, 64)
		if r.IsError || out.RowLimit != int(want) || out.RowCount != min(5, int(want)) {
			t.Errorf("rowLimit %s: %+v %s", v, out, text(r))
		}
	}
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT 1", "rowLimit": json.RawMessage(`1e19`)}, &te)
	want := `invalid arguments for tool "execute_query": rowLimit must be a whole number within 64 bits, got number`
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, want) || strings.Contains(te.Error, "Go struct") {
		t.Errorf("rowLimit 1e19: %s", text(r))
	}
}

// TestQueryNameNotFoundAndNotebookAdvice: an unknown queryName is answered with the
// closest named queries, never sources (which no queryName runs); a notebook
// without a cell to run says which model's path takes SQL.
func TestQueryNameNotFoundAndNotebookAdvice(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for _, tc := range []struct {
		args map[string]any
		kind string
		want string
	}{
		{map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_mnth"}, "not_found",
			`no query named "revenue_by_mnth" in "retail/shop/sales"; closest: retail/shop/sales/revenue_by_month`},
		{map[string]any{"path": "retail/shop/sales", "queryName": "ordrs"}, "not_found",
			`no query named "ordrs" in "retail/shop/sales"; no name there is close to it; the first there: retail/shop/sales/revenue_by_month, retail/shop/sales/top_customers`},
		{map[string]any{"path": "retail/shop/monthly-review"}, "invalid",
			"retail/shop/monthly-review is a notebook: give queryName (one of its cells, e.g. cell-1) to run a cell, or run sql with path the model retail/shop/sales"},
		{map[string]any{"path": "retail/shop/monthly-review", "sql": "SELECT 1"}, "invalid", "or run sql with path the model retail/shop/sales"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", tc.args, &te)
		if !r.IsError || te.Kind != tc.kind || !strings.Contains(te.Error, tc.want) || slices.ContainsFunc(te.Suggestions, func(s string) bool { return strings.HasSuffix(s, "/orders") }) {
			t.Errorf("%v: %s (%v)", tc.args, text(r), te.Suggestions)
		}
	}
}
