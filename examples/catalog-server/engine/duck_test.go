package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

var testLimits = Limits{RowLimit: 1000, ByteBudget: 1 << 20, Timeout: 10 * time.Second}

func loadModel(t testing.TB, files map[string]string, path string) *catalog.Model {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := catalog.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Model(path)
	if m == nil {
		t.Fatalf("no model %s; diagnostics %v", path, c.Diagnostics)
	}
	return m
}

func openTestDuck(t *testing.T) *Duck {
	t.Helper()
	d, err := OpenDuck(context.Background(), testModel(t), DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// testModel is a model over a CSV and a JSON file, with two broken sources.
func testModel(t testing.TB) *catalog.Model {
	t.Helper()
	return loadModel(t, map[string]string{
		"p/k/manifest.json":  `{}`,
		"p/k/data/items.csv": "id,name,price,added\n1,apple,0.5,2024-01-02\n2,pear,0.75,2024-02-03\n3,plum,1.25,2024-03-04\n",
		"p/k/data/tags.json": `[{"id":1,"tag":"fruit"},{"id":3,"tag":"stone"}]`,
		"p/k/m.sql": `-- @source items
SELECT * FROM 'data/items.csv';
-- @source tags
SELECT * FROM read_json('data/tags.json');
-- @source escapes
SELECT * FROM read_csv('../../../etc/passwd');
-- @source nofile
SELECT * FROM 'data/missing.csv';
`,
	}, "p/k/m")
}

func TestDuckQuery(t *testing.T) {
	d := openTestDuck(t)
	if d.Broken()["escapes"] == "" || !strings.Contains(d.Broken()["escapes"], "outside the package folder") {
		t.Errorf("escapes: %q", d.Broken()["escapes"])
	}
	if d.Broken()["nofile"] == "" {
		t.Error("nofile not reported broken")
	}
	if d.Columns()["items"] == nil || d.Columns()["tags"] == nil {
		t.Fatalf("columns %v broken %v", d.Columns(), d.Broken())
	}
	wantCols := []Column{{"id", "BIGINT"}, {"name", "VARCHAR"}, {"price", "DOUBLE"}, {"added", "DATE"}}
	if diff := cmp.Diff(wantCols, d.Columns()["items"]); diff != "" {
		t.Errorf("columns: %s", diff)
	}
	res, err := d.Query(context.Background(), "SELECT i.id, name, price, added, tag FROM items i LEFT JOIN tags USING (id) ORDER BY i.id", nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	got := [][]any{}
	for _, r := range res.Rows {
		got = append(got, r)
	}
	want := [][]any{{int64(1), "apple", 0.5, "2024-01-02", "fruit"}, {int64(2), "pear", 0.75, "2024-02-03", nil}, {int64(3), "plum", 1.25, "2024-03-04", "stone"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows: %s", diff)
	}
	if res.RowCount != 3 || res.Truncated || res.RowLimit != 1000 {
		t.Errorf("result %+v", res)
	}
	// Named parameters.
	res, err = d.Query(context.Background(), "SELECT name FROM items WHERE price > $min ORDER BY name", map[string]any{"min": 0.6}, testLimits)
	if err != nil || res.RowCount != 2 || res.Rows[0][0] != "pear" {
		t.Errorf("params: %v %+v", err, res)
	}
	if _, err := d.Query(context.Background(), "SELECT name FROM items WHERE price > $min", nil, testLimits); !errors.As(err, new(*UnboundParamError)) || !strings.Contains(err.Error(), "$min has no value") {
		t.Errorf("missing param: %v", err)
	}
}

func TestDuckLimits(t *testing.T) {
	d := openTestDuck(t)
	res, err := d.Query(context.Background(), "SELECT * FROM range(5000)", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != 10 || !res.Truncated || res.TruncatedBy != "rowLimit" {
		t.Errorf("row limit: %+v", res)
	}
	res, err = d.Query(context.Background(), "SELECT * FROM range(3)", nil, Limits{RowLimit: 3, ByteBudget: 1 << 20, Timeout: 10 * time.Second})
	if err != nil || res.RowCount != 3 || res.Truncated {
		t.Errorf("exactly at the limit: %v %+v", err, res)
	}
	res, err = d.Query(context.Background(), "SELECT repeat('x', 100) FROM range(100)", nil, Limits{RowLimit: 1000, ByteBudget: 1000, Timeout: 10 * time.Second})
	if err != nil || !res.Truncated || res.TruncatedBy != "byteBudget" || res.RowCount == 0 || res.RowCount >= 10 {
		t.Errorf("byte budget: %v %+v", err, res)
	}
	start := time.Now()
	_, err = d.Query(context.Background(), "SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3", nil, Limits{RowLimit: 10, ByteBudget: 1000, Timeout: 300 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("timeout: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the query was not stopped: %v", el)
	}
	if !strings.Contains(err.Error(), "300ms") || !strings.Contains(err.Error(), "GROUP BY") {
		t.Errorf("timeout message %q", err)
	}
	// The engine still answers after an interrupted query.
	if res, err := d.Query(context.Background(), "SELECT 1", nil, testLimits); err != nil || res.RowCount != 1 {
		t.Errorf("after timeout: %v", err)
	}
}

// TestDuckBypasses tries the known ways out of a read-only query; each must be
// refused (or fail) with a clear error, and nothing may change.
func TestDuckBypasses(t *testing.T) {
	d := openTestDuck(t)
	outside := filepath.Join(t.TempDir(), "out.csv")
	for _, tc := range []struct{ name, sql, want string }{
		{"multiple statements", "SELECT 1; SELECT 2", "2 statements"},
		{"commit then drop", "COMMIT; DROP VIEW items", "refused"},
		{"drop", "DROP VIEW items", "refused"},
		{"copy to", "COPY (SELECT * FROM items) TO '" + outside + "'", "refused"},
		{"copy from", "COPY items FROM '/etc/passwd'", "refused"},
		{"attach", "ATTACH '" + outside + ".db' AS x", "refused"},
		{"install", "INSTALL httpfs", "refused"},
		{"load", "LOAD httpfs", "refused"},
		{"pragma", "PRAGMA version", "refused"},
		{"pragma assignment", "PRAGMA threads=64", "refused"},
		{"set", "SET enable_external_access = true", "refused"},
		{"reset lock", "SET lock_configuration = false", "refused"},
		{"call", "CALL pragma_version()", "refused"},
		{"create", "CREATE TABLE t AS SELECT 1", "refused"},
		{"insert", "INSERT INTO items VALUES (9, 'x', 1, '2024-01-01')", "refused"},
		{"writable CTE", "WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d", "refused: each WITH query must be a SELECT"},
		{"insert in a subquery", "SELECT * FROM (INSERT INTO items VALUES (9, 'x', 1, '2024-01-01') RETURNING *)", "refused: DuckDB's parser stops at INSERT inside the query"},
		{"read_csv /etc/passwd", "SELECT * FROM read_csv('/etc/passwd')", "Permission Error"},
		{"replacement scan", "SELECT * FROM '/etc/passwd'", "does not exist"},
		{"glob", "SELECT * FROM glob('/etc/*')", "Permission Error"},
		{"dotdot", "SELECT * FROM read_csv('data/../../../../etc/passwd')", "Permission Error"},
		{"export", "EXPORT DATABASE '" + t.TempDir() + "'", "refused"},
		{"detach", "DETACH model", "refused"},
		{"checkpoint", "CHECKPOINT", "refused"},
		{"comment hiding", "/* SELECT */ DROP VIEW items", "refused"},
		{"empty", "   ", "no statement"},
		// DuckDB reads SQL up to a NUL character: the text after it would be
		// dropped without a word (here a statement, and below a filter).
		{"NUL then a statement", "SELECT 1\x00; DROP VIEW items", "NUL character (\\u0000) at character 9"},
		{"NUL cutting a filter", "SELECT count(*) FROM items\x00 WHERE id = 1", "NUL character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Query(context.Background(), tc.sql, nil, testLimits)
			if err == nil {
				t.Fatalf("%q ran", tc.sql)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: error %q lacks %q", tc.sql, err, tc.want)
			}
		})
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file was written outside the catalog")
	}
	res, err := d.Query(context.Background(), "SELECT count(*) FROM items", nil, testLimits)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("items changed: %v %+v", err, res)
	}
	res, err = d.Query(context.Background(), "SELECT current_setting('enable_external_access'), current_setting('lock_configuration'), current_setting('threads'), current_setting('memory_limit'), current_setting('access_mode'), current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions'), current_setting('allow_community_extensions'), current_setting('allow_persistent_secrets')", nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.Rows[0]); string(b) != `[false,true,2,"488.2 MiB","read_only",false,false,false,false]` {
		t.Errorf("settings: %s", b)
	}
}

func TestDuckSQLErrors(t *testing.T) {
	d := openTestDuck(t)
	_, err := d.Query(context.Background(), "SELECT name FROM items WHERE", nil, testLimits)
	var se *SQLError
	if !errors.As(err, &se) || se.Position != 29 || !strings.Contains(se.Message, "syntax error") {
		t.Errorf("syntax: %#v", err)
	}
	_, err = d.Query(context.Background(), "SELECT nme FROM items", nil, testLimits)
	if !errors.As(err, &se) || se.Position != 8 || !strings.Contains(se.Message, `"nme" not found`) || !strings.Contains(se.Message, "name") {
		t.Errorf("binder: %#v", err)
	}
}

// TestDuckConcurrencyCap: however many queries arrive at once, at most
// duckMaxConns of one model run (the others wait for their turn), and all answer.
func TestDuckConcurrencyCap(t *testing.T) {
	d := openTestDuck(t)
	waited := 0 // under d.slots.mu, read once every query has answered
	d.slots.onGrant = func(_ string, w bool) {
		if w {
			waited++
		}
	}
	stop := make(chan struct{})
	peak := make(chan int)
	go func() {
		most := 0
		for {
			if n := d.db.Stats().OpenConnections; n > most {
				most = n
			}
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 3*duckMaxConns)
	for range 3 * duckMaxConns {
		wg.Go(func() {
			res, err := d.Query(context.Background(), "SELECT count(*) FROM range(20000000) t(x) WHERE x % 7 = 3", nil, Limits{RowLimit: 1, ByteBudget: 1000, Timeout: time.Minute})
			if err == nil && (len(res.Rows) != 1 || res.Rows[0][0] != int64(2857143)) {
				err = fmt.Errorf("rows %v", res.Rows)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(stop)
	most := <-peak
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if most > duckMaxConns {
		t.Errorf("%d connections open at once, cap %d", most, duckMaxConns)
	}
	if waited == 0 {
		t.Errorf("no query waited for its turn (%d queries, cap %d)", 3*duckMaxConns, duckMaxConns)
	}
	// They waited for their turn (slots), not in the pool's own order.
	if st := d.db.Stats(); st.WaitCount != 0 {
		t.Errorf("queries waited in the pool: %+v", st)
	}
}

// TestDuckNestedValues: values inside lists, structs and maps are as faithful as
// at the top level: a MAP is [{key, value}…] in its order (not duckdb-go's
// debugging text "OrderedMap{…}"), a DECIMAL keeps its digits (its scale's
// too: 1.50) as a number in a list too (not a string), a DATE in a list is a date, and a TIMETZ keeps its
// offset. (A DATE in a STRUCT is still written as midnight UTC: the struct's
// field types are not parsed.)
func TestDuckNestedValues(t *testing.T) {
	d := openTestDuck(t)
	checkValues(t, d, []valueCase{
		{"MAP {3: 'c', 1: 'a'}", `[{"key":3,"value":"c"},{"key":1,"value":"a"}]`},
		{"MAP {'k': [1.5::DECIMAL(3,1)]}", `[{"key":"k","value":[1.5]}]`},
		{"[1.25::DECIMAL(4,2), NULL]", `[1.25,null]`},
		{"{'d': 2.25::DECIMAL(4,2), 'l': [DATE '2024-03-01']}", `{"d":2.25,"l":["2024-03-01"]}`},
		{`{'ts': TIMESTAMP '2024-03-01 12:00:00', 'odd "name"': {'x': DATE '2024-01-02'}, 't': TIME '13:00:01'}`, `{"odd \"name\"":{"x":"2024-01-02"},"t":"13:00:01","ts":"2024-03-01T12:00:00"}`},
		{"MAP {DATE '2024-03-01': [TIMESTAMP '2024-03-01 12:00:00']}", `[{"key":"2024-03-01","value":["2024-03-01T12:00:00"]}]`},
		{"[[DATE '2024-03-01']]", `[["2024-03-01"]]`},
		{"[DATE '2024-03-01', DATE '2024-03-02']::DATE[2]", `["2024-03-01","2024-03-02"]`},
		{"[DATE '2024-03-01']", `["2024-03-01"]`},
		{"12345678901234567890.12::DECIMAL(38,2)", `12345678901234567890.12`},
		// With its scale's digits, as DuckDB and PostgreSQL write it.
		{"1.50::DECIMAL(5,2)", `1.50`},
		{"-0.10::DECIMAL(5,2)", `-0.10`},
		{"0::DECIMAL(5,2)", `0.00`},
		{"-7::DECIMAL(5,0)", `-7`},
		{"[1.10::DECIMAL(4,2)]", `[1.10]`},
		{"TIMETZ '13:00:01+02'", `"13:00:01+02:00"`},
		{"['inf'::DOUBLE, '-inf'::FLOAT, 'nan'::DOUBLE, 1.5::DOUBLE]", `["Infinity","-Infinity","NaN",1.5]`},
		{"'-inf'::DOUBLE", `"-Infinity"`},
		{"NULL::MAP(INTEGER, INTEGER)", `null`},
	})
}

// TestDuckTimestamps: a TIMESTAMP (no time zone) is written without an offset,
// as DuckDB writes it; a TIMESTAMPTZ with one; infinite ones as "infinity", not
// as the year 294247.
func TestDuckTimestamps(t *testing.T) {
	d := openTestDuck(t)
	checkValues(t, d, []valueCase{
		{"TIMESTAMP '2024-03-01 12:00:00.5'", `"2024-03-01T12:00:00.5"`},
		{"TIMESTAMP_S '2024-03-01 12:00:00'", `"2024-03-01T12:00:00"`},
		{"[TIMESTAMP '2024-03-01 12:00:00']", `["2024-03-01T12:00:00"]`},
		{"TIMESTAMPTZ '2024-03-01 12:00:00+02'", `"2024-03-01T10:00:00Z"`},
		{"'infinity'::TIMESTAMP", `"infinity"`},
		{"'-infinity'::TIMESTAMPTZ", `"-infinity"`},
		{"'infinity'::DATE", `"infinity"`},
		{"['-infinity'::DATE]", `["-infinity"]`},
		{"TIMESTAMP '294247-01-09 04:00:54'", `"294247-01-09T04:00:54"`},
	})
}

// TestDuckEndOfDay: a TIME or TIMETZ of 24:00:00, the end of the day, comes back
// as 24:00:00, as DuckDB writes it (duckdb-go gives a TIME's as 00:00:00 and a
// TIMETZ's as the next day's midnight, written 00:00:00), as a column and inside
// lists, structs and maps; a TIME parameter of 24:00:00 too.
func TestDuckEndOfDay(t *testing.T) {
	d := openTestDuck(t)
	checkValues(t, d, []valueCase{
		{"TIME '24:00:00'", `"24:00:00"`},
		{"TIME '00:00:00'", `"00:00:00"`},
		{"TIME '12:30:00.5'", `"12:30:00.5"`},
		{"TIME '23:59:59.000001'", `"23:59:59.000001"`},
		{"[TIME '24:00:00', NULL, TIME '01:02:03']", `["24:00:00",null,"01:02:03"]`},
		{"{'t': TIME '24:00:00', 'n': 1}", `{"n":1,"t":"24:00:00"}`},
		{"MAP {TIME '24:00:00': [TIME '24:00:00']}", `[{"key":"24:00:00","value":["24:00:00"]}]`},
		{"[TIME '24:00:00']::TIME[1]", `["24:00:00"]`},
		{"TIMETZ '24:00:00+02'", `"24:00:00+02:00"`},
		{"TIMETZ '24:00:00+00'", `"24:00:00+00:00"`},
		{"TIMETZ '12:00:00+00'", `"12:00:00+00:00"`},
		{"TIMETZ '24:00:00+05:30:45'", `"24:00:00+05:30:45"`},
		{"TIMETZ '12:00:00-03:00:15'", `"12:00:00-03:00:15"`},
		{"TIMETZ '00:00:00+02'", `"00:00:00+02:00"`},
		{"[TIMETZ '24:00:00-05:30']", `["24:00:00-05:30"]`},
		{"{'z': TIMETZ '24:00:00+02'}", `{"z":"24:00:00+02:00"}`},
	})
	// Each TIMETZ text reads back in DuckDB as the same value.
	for _, tz := range []string{"24:00:00+00", "12:00:00+05:30:45", "12:00:00-03:00:15", "00:00:00+02"} {
		res, err := d.Query(context.Background(), "SELECT t, CAST(CAST(t AS VARCHAR) AS TIMETZ) = t AS same FROM (SELECT TIMETZ '"+tz+"' AS t)", nil, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		back, err := d.Query(context.Background(), "SELECT CAST($v AS TIMETZ) = TIMETZ '"+tz+"' AS same", map[string]any{"v": res.Rows[0][0]}, testLimits)
		if err != nil || back.Rows[0][0] != true {
			t.Errorf("%s: written %v, not read back as itself: %v %v", tz, res.Rows[0][0], back, err)
		}
	}
	res, err := d.Query(context.Background(), "SELECT $t::TIME AS t, $t::TIME > TIME '23:00:00' AS gt", map[string]any{"t": "24:00:00"}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.Rows[0]); string(got) != `["24:00:00",true]` || res.Columns[0].Type != "TIME" {
		t.Errorf("parameter: %s %v", got, res.Columns)
	}
}

// TestDuckIntervals: an INTERVAL comes back as DuckDB's own text ("1 day
// 02:00:00"), which DuckDB reads back as the same INTERVAL (it was the object
// {"days", "months", "micros"}), as a column and inside lists and structs, the
// same text as CAST(… AS VARCHAR) for every part's sign and size.
func TestDuckIntervals(t *testing.T) {
	d := openTestDuck(t)
	checkValues(t, d, []valueCase{
		{"INTERVAL '1 day 2 hours'", `"1 day 02:00:00"`},
		{"[INTERVAL 3 DAY, NULL]", `["3 days",null]`},
		{"{'i': INTERVAL '14 months'}", `{"i":"1 year 2 months"}`},
	})
	for _, e := range []string{
		"INTERVAL '0 seconds'", "INTERVAL '1 day 2 hours'", "INTERVAL '-1 month 3 days -00:00:01.5'",
		"INTERVAL '14 months 400 days 100 hours'", "INTERVAL '-0.000001 seconds'", "INTERVAL '-14 months'",
		"INTERVAL '1 year -1 day 00:00:00.12'", "INTERVAL '-25 months -1 day'", "INTERVAL '12 months'",
		"INTERVAL '59 minutes 59.999999 seconds'", "INTERVAL '1 month'", "INTERVAL '-1 day'",
		"to_months(2147483647)", "to_months(-2147483647)", "to_days(-2147483647)",
		// DuckDB writes these but does not read them back (hours past 2^31).
		"INTERVAL '2562047788 hours'", "INTERVAL '-2562047788 hours'",
		"to_microseconds(-9223372036854775807)", "to_microseconds(9223372036854775807)",
	} {
		res, err := d.Query(context.Background(), "SELECT "+e+" AS v, CAST("+e+" AS VARCHAR) AS s", nil, testLimits)
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		if r := res.Rows[0]; r[0] != r[1] {
			t.Errorf("%s: %v, DuckDB writes %v", e, r[0], r[1])
		}
		if strings.Contains(e, "2562047788") || strings.Contains(e, "to_microseconds") {
			continue
		}
		res, err = d.Query(context.Background(), "SELECT CAST($s AS INTERVAL) = "+e, map[string]any{"s": res.Rows[0][0]}, testLimits)
		if err != nil || res.Rows[0][0] != true {
			t.Errorf("%s: not read back as the same INTERVAL: %v %v", e, err, res)
		}
	}
}

// TestDuckJSONNumbers: numbers in a JSON column keep their digits (duckdb-go
// decodes JSON into float64, which changed 12345678901234567890 into
// 12345678901234567000); the column is still typed JSON, and the row cap and
// SQL errors are as for any query.
func TestDuckJSONNumbers(t *testing.T) {
	d := openTestDuck(t)
	res, err := d.Query(context.Background(), `SELECT '{"id": 12345678901234567890, "f": 1.10, "a": [1, null]}'::JSON AS j, 'x' AS s, '7'::JSON AS "j 2" FROM range(3)`, nil, Limits{RowLimit: 2, ByteBudget: 1 << 20, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Rows)
	if string(got) != `[[{"a":[1,null],"f":1.10,"id":12345678901234567890},"x",7],[{"a":[1,null],"f":1.10,"id":12345678901234567890},"x",7]]` || !res.Truncated {
		t.Errorf("rows: %s (truncated %v)", got, res.Truncated)
	}
	if res.Columns[0].Type != "JSON" || res.Columns[1].Type != "VARCHAR" || res.Columns[2] != (Column{"j 2", "JSON"}) {
		t.Errorf("columns: %+v", res.Columns)
	}
	res, err = d.Query(context.Background(), `SELECT NULL::JSON AS j`, nil, testLimits)
	if err != nil || res.Rows[0][0] != nil {
		t.Errorf("null JSON: %v %+v", err, res)
	}
}

// valueCase is an expression and the JSON its value must come back as.
type valueCase struct{ expr, json string }

// checkValues runs SELECT expr for each case and compares the value's JSON.
func checkValues(t *testing.T, d *Duck, cases []valueCase) {
	t.Helper()
	for _, tc := range cases {
		res, err := d.Query(context.Background(), "SELECT "+tc.expr+" AS v", nil, testLimits)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got, _ := json.Marshal(res.Rows[0][0]); string(got) != tc.json {
			t.Errorf("%s (%s): %s, want %s", tc.expr, res.Columns[0].Type, got, tc.json)
		}
	}
}

// TestDuckNestedJSONNumbers: JSON inside a LIST, ARRAY, STRUCT or MAP keeps its
// numbers' digits too (duckdb-go decoded it into float64: 9007199254740993 came
// back as 9007199254740992), beside values of other types converted by their own
// type, and the column is typed with JSON where JSON is, as DuckDB's typeof()
// writes the type.
func TestDuckNestedJSONNumbers(t *testing.T) {
	d := openTestDuck(t)
	for _, tc := range []struct{ expr, typ, json string }{
		{`[json '{"n": 9007199254740993}', NULL]`, "JSON[]", `[{"n":9007199254740993},null]`},
		{`{'j': '{"n": 12345678901234567890, "f": 1.10}'::JSON, 'd': 2.25::DECIMAL(4,2), 't': DATE '2024-03-01'}`, `STRUCT(j JSON, d DECIMAL(4,2), t DATE)`, `{"d":2.25,"j":{"f":1.10,"n":12345678901234567890},"t":"2024-03-01"}`},
		{`[[json '9007199254740993']]`, "JSON[][]", `[[9007199254740993]]`},
		{`array_value(json '9007199254740993', json '[1, 2.50]')`, "JSON[2]", `[9007199254740993,[1,2.50]]`},
		{`MAP {'a': json '9007199254740993'}`, "MAP(VARCHAR, JSON)", `[{"key":"a","value":9007199254740993}]`},
		{`[{'k': 'x', 'v': json '{"n": 9007199254740993}'}]`, `STRUCT(k VARCHAR, v JSON)[]`, `[{"k":"x","v":{"n":9007199254740993}}]`},
		{`{'a b"c': json '1'}`, `STRUCT("a b""c" JSON)`, `{"a b\"c":1}`},
		// In a UNION, {tag, value}; beside an ENUM (read as text, as it is
		// written).
		{`union_value(j := json '9007199254740993')::UNION(j JSON, i INTEGER)`, `UNION(j JSON, i INTEGER)`, `{"tag":"j","value":9007199254740993}`},
		{`[union_value(i := 3)::UNION(j JSON, i INTEGER), NULL]`, `UNION(j JSON, i INTEGER)[]`, `[{"tag":"i","value":3},null]`},
		{`{'e': 'a'::ENUM('a', 'b'), 'j': json '9007199254740993'}`, `STRUCT(e ENUM('a', 'b'), j JSON)`, `{"e":"a","j":9007199254740993}`},
		{`MAP {'k'::ENUM('k'): json '9007199254740993'}`, `MAP(ENUM('k'), JSON)`, `[{"key":"k","value":9007199254740993}]`},
		// Without JSON, nothing changes.
		{`[1, 2]`, "INTEGER[]", `[1,2]`},
		{`{'s': 'x'}`, `STRUCT(s VARCHAR)`, `{"s":"x"}`},
		{`'a'::ENUM('a', 'b')`, "ENUM('a', 'b')", `"a"`},
		{`{'e': 'b'::ENUM('a', 'b')}`, `STRUCT(e ENUM('a', 'b'))`, `{"e":"b"}`},
		// A union's value is written by its member's type, as a column's is
		// (a DECIMAL came back as duckdb-go's {"Width","Scale","Value"}).
		{`union_value("a b" := 2.25::DECIMAL(4,2))`, `UNION("a b" DECIMAL(4,2))`, `{"tag":"a b","value":2.25}`},
		{`union_value(d := DATE '2024-03-01')::UNION(d DATE, n INTEGER)`, `UNION(d DATE, n INTEGER)`, `{"tag":"d","value":"2024-03-01"}`},
	} {
		res, err := d.Query(context.Background(), "SELECT "+tc.expr+" AS v, 1 AS w", nil, testLimits)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got, _ := json.Marshal(res.Rows[0][0]); string(got) != tc.json {
			t.Errorf("%s: %s, want %s", tc.expr, got, tc.json)
		}
		if res.Columns[0].Type != tc.typ || res.Columns[1] != (Column{"w", "INTEGER"}) {
			t.Errorf("%s: columns %+v, want type %s", tc.expr, res.Columns, tc.typ)
		}
		if to, err := d.Query(context.Background(), "SELECT typeof("+tc.expr+")", nil, testLimits); err != nil || to.Rows[0][0] != tc.typ {
			t.Errorf("%s: DuckDB's typeof() is not %s (%v, %v)", tc.expr, tc.typ, to, err)
		}
	}
}

// TestRenumberLines: the one renumbering of DuckDB's "LINE n:" for a capped
// statement (unwrapLines: one line less) and for a text placed in its file
// (fileLines: first-1 lines more) keeps the caret under the same character
// both ways, and leaves the rest of the message as it is.
func TestRenumberLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{fileLines("Parser Error: x\n\nLINE 9: SELECT nme\n             ^", 2), "Parser Error: x\n\nLINE 10: SELECT nme\n              ^"},
		// Only DuckDB's own excerpt, last in its message with its caret: not
		// a line of a value it quotes (before, each line starting "LINE n:"
		// was renumbered, the caller's value changed with them).
		{fileLines("Conversion Error: Could not convert string 'a\nLINE 1: tail\n   ^' to INT32\n\nLINE 1: SELECT nme\n        ^", 12), "Conversion Error: Could not convert string 'a\nLINE 1: tail\n   ^' to INT32\n\nLINE 12: SELECT nme\n         ^"},
		{renumberLines("Conversion Error: Could not convert string '1\nLINE 2: x' to INT32\n\nLINE 2:  CAST(? AS INTEGER)\n         ^", func(n int) int { return max(n-1, 1) }), "Conversion Error: Could not convert string '1\nLINE 2: x' to INT32\n\nLINE 1:  CAST(? AS INTEGER)\n         ^"},
		{fileLines("Parser Error: x\n\nLINE 1: SELECT nme\n        ^\nLINE 1: tail", 12), "Parser Error: x\n\nLINE 1: SELECT nme\n        ^\nLINE 1: tail"},
		{fileLines("LINE 9: SELECT nme\nno caret here", 2), "LINE 9: SELECT nme\nno caret here"},
		{fileLines("Parser Error: x\n\nLINE 9: SELECT nme\n             ^\n", 2), "Parser Error: x\n\nLINE 10: SELECT nme\n              ^\n"},
		{fileLines("LINE 9: SELECT nme", 1), "LINE 9: SELECT nme"},
		{renumberLines("Binder Error: x\n\nLINE 10: SELECT nme\n                ^", func(n int) int { return max(n-1, 1) }), "Binder Error: x\n\nLINE 9: SELECT nme\n               ^"},
		{renumberLines("LINE 10: SELECT nme\n^", func(n int) int { return max(n-1, 1) }), "LINE 9: SELECT nme\n^"},
		{renumberLines("LINE 1: SELECT 1\n        ^", func(n int) int { return max(n-1, 1) }), "LINE 1: SELECT 1\n        ^"},
		{renumberLines("no line here\nLINE x: y", func(n int) int { return n + 5 }), "no line here\nLINE x: y"},
	} {
		if tc.in != tc.want {
			t.Errorf("got\n%s\nwant\n%s", tc.in, tc.want)
		}
	}
}
