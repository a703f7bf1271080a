package engine

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDuckStateMacrosRefused: DuckDB's built-in macros that call a refused
// function are refused as that function is. histogram_values('items', id) runs
// query_table inside the macro, where the caller's syntax tree has only the
// macro's name: before, it ran (and so could read any table named by a string
// built at run time). histogram (the table macro) and get_block_size
// (pragma_database_size) too (TestStateMacrosLive holds the list to DuckDB's). The aggregate
// histogram(c) and ordinary macros still run, in the server's process and in a
// query process.
func TestDuckStateMacrosRefused(t *testing.T) {
	ms := stateMacros()
	for name, want := range map[string]string{"histogram_values": "query_table", "histogram": "query_table"} {
		if ms.table[name] != want {
			t.Errorf("table macro %s: listed as calling %q, want %q (all: %v)", name, ms.table[name], want, ms)
		}
	}
	if ms.scalar["histogram"] != "" {
		t.Errorf("the aggregate histogram listed as a scalar macro: %v", ms)
	}
	m := testModel(t)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, DuckConfig{})
	lim := testLimits
	lim.Timeout = 20 * time.Second
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		for _, text := range []string{
			"SELECT * FROM histogram_values('items', id)",
			"SELECT * FROM HISTOGRAM_VALUES('items', id)",
			"SELECT * FROM main.histogram_values('items', id)",
			"SELECT * FROM histogram('items', id)",
			"SELECT count(*) FROM (SELECT * FROM histogram_values('items', id)) t",
		} {
			_, err := e.q.Query(context.Background(), text, nil, lim)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "a DuckDB macro that calls query_table), which changes the server's state") {
				t.Errorf("%s: %s: not refused as query_table is: %v", e.name, text, err)
			}
		}
		for _, text := range []string{
			"SELECT histogram(id) AS h FROM items",
			"SELECT list_reverse([1, 2]) AS l, nullif(1, 2) AS n",
			"SELECT 1 AS histogram_values",
		} {
			if res, err := e.q.Query(context.Background(), text, nil, lim); err != nil || res.RowCount != 1 {
				t.Errorf("%s: %s: %v %+v", e.name, text, err, res)
			}
		}
	}
}

// TestStateMacrosOf: a macro calling another that calls a refused function is
// listed too, with the function it comes to; one that names it only as a
// column is not.
func TestStateMacrosOf(t *testing.T) {
	got := stateMacrosOf([]macroDef{
		{name: "outer", def: `"main".middle(x) + 1`},
		{name: "middle", table: true, def: "SELECT * FROM query_table(CAST(t AS VARCHAR))"},
		{name: "nap", def: "sleep_ms (CAST(s AS BIGINT))"},
		{name: "plain", def: "query + query_table_count"},
	})
	if got.table["middle"] != "query_table" || got.scalar["outer"] != "query_table" || got.scalar["nap"] != "sleep_ms" || got.scalar["plain"] != "" || len(got.scalar)+len(got.table) != 3 {
		t.Errorf("got %v", got)
	}
}

// TestDuckExtensionsRefused: duckdb_extensions() reads the server's extension
// folder, which no query may read: it is refused saying so, not as "DuckDB did
// not open a file … query the model's sources by name instead", which blamed a
// file the caller never named.
func TestDuckExtensionsRefused(t *testing.T) {
	m := testModel(t)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, DuckConfig{})
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		for _, text := range []string{
			"SELECT * FROM duckdb_extensions()",
			"SELECT extension_name FROM DUCKDB_EXTENSIONS() WHERE loaded",
		} {
			_, err := e.q.Query(context.Background(), text, nil, testLimits)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "which lists the extensions installed in the server's extension folder, and a query may read no folder outside its package") || strings.Contains(re.Error(), "did not open a file") || strings.Contains(re.Error(), "by name instead") {
				t.Errorf("%s: %s: %v", e.name, text, err)
			}
		}
	}
}

// TestStateMacrosLive: DuckDB's own listing of its macros that call a
// refused function is knownStateMacros, which the server uses without
// listing them: a DuckDB that adds, drops or changes one fails here, so that
// knownStateMacros is brought up to date.
func TestStateMacrosLive(t *testing.T) {
	ms, err := listStateMacros()
	if err != nil {
		t.Fatalf("listing DuckDB's macros: %v", err)
	}
	if !maps.Equal(ms.scalar, knownStateMacros.scalar) || !maps.Equal(ms.table, knownStateMacros.table) {
		t.Errorf("DuckDB lists %v, knownStateMacros are %v: update knownStateMacros", ms, knownStateMacros)
	}
}

// macroCall finds a call in a macro's definition as duckdb_functions() writes it:
// a name, maybe quoted and after a schema ("main".query_table), then "(".
var macroCall = regexp.MustCompile(`"?([A-Za-z_][A-Za-z0-9_$]*)"?\s*\(`)

// listStateMacros lists stateMacros from DuckDB's own duckdb_functions(), on
// an empty in-memory database.
func listStateMacros() (macroSet, error) {
	db, err := sql.Open("duckdb", "?threads=1&enable_external_access=false&autoload_known_extensions=false&autoinstall_known_extensions=false")
	if err != nil {
		return macroSet{}, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT lower(function_name), function_type = 'table_macro', macro_definition FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro') AND internal AND macro_definition IS NOT NULL")
	if err != nil {
		return macroSet{}, err
	}
	defer rows.Close()
	var defs []macroDef
	for rows.Next() {
		var d macroDef
		if err := rows.Scan(&d.name, &d.table, &d.def); err != nil {
			return macroSet{}, err
		}
		defs = append(defs, d)
	}
	if err := rows.Err(); err != nil {
		return macroSet{}, err
	}
	return stateMacrosOf(defs), nil
}

// macroDef is one overload of a macro: its name in lower case, whether it is
// a table macro, its definition.
type macroDef struct {
	name  string
	table bool
	def   string
}

// stateMacrosOf returns, of the macros defs, those whose definition calls one
// of statefulFunctions or another such macro (of either kind: a definition's
// text does not say which), with the function each comes to. A macro is listed
// when any overload of its kind calls one; a name that only looks like a call
// (inside a string) lists it too, which errs on the side of refusing.
func stateMacrosOf(defs []macroDef) macroSet {
	out := macroSet{scalar: map[string]string{}, table: map[string]string{}}
	for changed := true; changed; {
		changed = false
		for _, d := range defs {
			set := out.scalar
			if d.table {
				set = out.table
			}
			if _, done := set[d.name]; done || statefulFunctions[d.name] {
				continue
			}
			for _, mt := range macroCall.FindAllStringSubmatch(d.def, -1) {
				callee := strings.ToLower(mt[1])
				f := out.scalar[callee]
				if f == "" {
					f = out.table[callee]
				}
				if statefulFunctions[callee] {
					f = callee
				}
				if f != "" {
					set[d.name] = f
					changed = true
					break
				}
			}
		}
	}
	return out
}
