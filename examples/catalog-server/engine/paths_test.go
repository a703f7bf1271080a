package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFreezeReaders: a source reading one CSV file with detection on is built with the
// dialect and column types DuckDB's sniffer found spelled out (detection off), and
// answers exactly as the file read with detection does; calls that cannot be frozen
// (a wildcard, detection already off) stay as written, and so do their answers.
func TestFreezeReaders(t *testing.T) {
	var sb, jsonl strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&jsonl, `{"id":%d,"at":"2024-07-%02dT10:00:%02d","tags":["t%d"],"v":%d.5}`+"\n", i, 1+i%28, i%60, i%3, i)
	}
	sb.WriteString("id;name;joined;score\n")
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&sb, "%d;\"Name %d; the %dth\";2024-%02d-%02d;%d.%d\n", i, i, i, 1+i%12, 1+i%28, i%100, i%10)
	}
	m := loadModel(t, map[string]string{
		"p/k/manifest.json":     `{}`,
		"p/k/data/people.csv":   sb.String(),
		"p/k/data/b.csv":        "x,y\n1,a\n2,b\n",
		"p/k/data/events.jsonl": jsonl.String(),
		"p/k/data/array.json":   `[{"a": 1, "b": {"c": [1, 2], "d": "x"}}, {"a": 2, "b": {"c": [], "d": null}, "e": true}]`,
		"p/k/m.sql": `-- @source plain
SELECT * FROM read_csv('data/people.csv');
-- @source auto
SELECT id, joined FROM read_csv_auto('data/people.csv') WHERE id % 2 = 0;
-- @source withfile
SELECT * FROM read_csv('data/people.csv', filename = true, header = true);
-- @source joined
SELECT p.id, b.y FROM read_csv('data/people.csv') p JOIN read_csv('data/b.csv') b ON p.id = b.x;
-- @source glob
SELECT * FROM read_csv('data/*.csv', union_by_name = true);
-- @source manual
SELECT * FROM read_csv('data/b.csv', auto_detect = false, header = true, columns = {'x': 'VARCHAR', 'y': 'VARCHAR'});
-- @source lines
SELECT * FROM read_json('data/events.jsonl', format = 'newline_delimited');
-- @source lines_auto
SELECT id, "at" FROM read_ndjson_auto('data/events.jsonl');
-- @source nested
SELECT * FROM read_json('data/array.json');
-- @source unpacked
SELECT * FROM read_json('data/array.json', records = false);
-- @source typed
SELECT * FROM read_json('data/events.jsonl', columns = {'id': 'BIGINT'});
`,
	}, "p/k/m")
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if len(d.Broken()) > 0 {
		t.Fatalf("broken sources: %v", d.Broken())
	}
	plain, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	dir := m.Package.Dir
	all := Limits{RowLimit: 100_000, ByteBudget: 1 << 30, Timeout: testLimits.Timeout}
	frozen := map[string]bool{"plain": true, "auto": true, "withfile": true, "joined": true, "glob": false, "manual": true,
		"lines": true, "lines_auto": true, "nested": true, "unpacked": true, "typed": true}
	for _, s := range m.Sources {
		res, err := d.Query(context.Background(), "SELECT * FROM "+quoteIdent(s.Name)+" ORDER BY ALL", nil, all)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		// The same SQL over the files, read with detection, in a database of its own.
		want := strings.ReplaceAll(strings.TrimSuffix(strings.TrimSpace(s.SQL), ";"), "'data/", "'"+dir+"/data/")
		rows, err := plain.Query("SELECT * FROM (" + want + ") ORDER BY ALL")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		types, _ := rows.ColumnTypes()
		var wantCols []Column
		// Typed as DuckDB writes the types (DESCRIBE), as the engine does.
		described, err := plain.Query("SELECT column_type FROM (DESCRIBE SELECT * FROM (" + want + "))")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for i := 0; described.Next(); i++ {
			var typ string
			if err := described.Scan(&typ); err != nil || i >= len(types) {
				t.Fatalf("%s: DESCRIBE: %v", s.Name, err)
			}
			wantCols = append(wantCols, Column{Name: types[i].Name(), Type: typ})
		}
		described.Close()
		var wantRows [][]any
		for rows.Next() {
			vals := make([]any, len(types))
			ptrs := make([]any, len(types))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				vals[i] = duckValue(v, types[i].DatabaseTypeName())
			}
			wantRows = append(wantRows, vals)
		}
		rows.Close()
		if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
			t.Errorf("%s columns (-detected +frozen):\n%s", s.Name, diff)
		}
		if diff := cmp.Diff(wantRows, res.Rows); diff != "" {
			t.Errorf("%s rows (-detected +frozen):\n%s", s.Name, diff)
		}
		def, err := d.Query(context.Background(), "SELECT sql FROM duckdb_views() WHERE view_name = '"+s.Name+"'", nil, testLimits)
		if err != nil || len(def.Rows) != 1 {
			t.Fatalf("%s: view definition: %v %+v", s.Name, err, def)
		}
		text := strings.ToLower(fmt.Sprint(def.Rows[0][0]))
		got := strings.Contains(text, "auto_detect = cast('f' as boolean)") || strings.Contains(text, "columns = main.struct_pack(") || strings.Contains(text, "\"columns\" = main.struct_pack(")
		if got != frozen[s.Name] {
			t.Errorf("%s: frozen %v, want %v: %s", s.Name, got, frozen[s.Name], text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "people.csv")); err != nil {
		t.Fatal(err)
	}
}

// countingLoad is a loadConn that counts the parses of callSQL's probes.
type countingLoad struct {
	loadConn
	probes int
}

func (c *countingLoad) rows(ctx context.Context, width int, query string, args ...string) ([][]string, error) {
	if query == gateQuery && len(args) == 1 && strings.HasSuffix(args[0], " FROM read_csv('x')") {
		c.probes++
	}
	return c.loadConn.rows(ctx, width, query, args...)
}

// TestCallSQLProbeOnce: callSQL's probe is parsed once a select list in a
// process, not at each reader call; the SQL it gives is the same each time.
// Before, each call (three a reader frozen) parsed it again.
func TestCallSQLProbeOnce(t *testing.T) {
	probeTrees.Lock()
	saved := probeTrees.raw
	probeTrees.raw = nil
	probeTrees.Unlock()
	t.Cleanup(func() {
		probeTrees.Lock()
		probeTrees.raw = saved
		probeTrees.Unlock()
	})
	ctx := context.Background()
	dir := t.TempDir()
	l, err := openLocalLoad(ctx, dir, filepath.Join(dir, "m.duckdb"), DuckConfig{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer l.abandon()
	conn := &countingLoad{loadConn: l}
	arg, err := parseTree(ctx, conn, "SELECT * FROM read_json('a.json', format = 'array')")
	if err != nil {
		t.Fatal(err)
	}
	args := findCall(arg, "read_json")["children"].([]any)
	var got []string
	for _, sel := range []string{"*", "*", "Prompt", "Prompt", "*"} {
		q, err := callSQL(ctx, conn, sel, "read_json", args)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, q)
	}
	if conn.probes != 2 {
		t.Errorf("%d probes parsed, want 2 (one a select list)", conn.probes)
	}
	want := []string{"SELECT * FROM read_json('a.json', (format = 'array'))", "", "SELECT Prompt FROM read_json('a.json', (format = 'array'))", "", ""}
	want[1], want[3], want[4] = want[0], want[2], want[0]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the calls' SQL (-want +got):\n%s", diff)
	}
}
