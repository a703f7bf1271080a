package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/mcp"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestTimeNSParquetSource: a Parquet file with a TIME(NANOS) column (pyarrow's
// time64[ns], read by DuckDB as TIME_NS) is described with its sample rows, its
// resource read, and queried, the times with their nanoseconds; in the server's
// process and in query processes. Before: describe said "sample rows:
// database/sql/driver: unsupported data type: unknown type: index: 1".
func TestTimeNSParquetSource(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source s\nSELECT * FROM 'data/t.parquet';\n",
	})
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pq := filepath.Join(dir, "p", "k", "data", "t.parquet")
	if err := os.MkdirAll(filepath.Dir(pq), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("COPY (SELECT 1 AS n, TIME_NS '12:00:00.123456789' AS tn) TO " + quoteLit(pq) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range bothModes(t) {
		cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, mode.cfg)).URL, "")
		var d Description
		if r := call(t, cs, "describe", map[string]any{"path": "p/k/m/s"}, &d); r.IsError {
			t.Fatalf("%s: describe: %s", mode.name, text(r))
		}
		rows, _ := json.Marshal(d.SampleRows)
		if d.Error != "" || len(d.Columns) != 2 || d.Columns[1] != (engine.Column{Name: "tn", Type: "TIME_NS"}) || string(rows) != `[[1,"12:00:00.123456789"]]` {
			t.Errorf("%s: describe: columns %+v, sample rows %s, error %q", mode.name, d.Columns, rows, d.Error)
		}
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "catalog://source/p/k/m/s"})
		if err != nil || len(rr.Contents) == 0 || !strings.Contains(rr.Contents[0].Text, `"12:00:00.123456789"`) || strings.Contains(rr.Contents[0].Text, "unsupported") {
			t.Errorf("%s: resources/read: %v %+v", mode.name, err, rr)
		}
		var res struct {
			Columns []engine.Column
			Rows    [][]any
		}
		if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT tn, [tn] AS l FROM s"}, &res); r.IsError ||
			len(res.Rows) != 1 || res.Rows[0][0] != "12:00:00.123456789" || res.Columns[1].Type != "TIME_NS[]" {
			t.Errorf("%s: execute_query: %s", mode.name, text(r))
		}
	}
}

// TestRealParamEcho: a REAL parameter a named query gives back is written with
// a float32's shortest digits (19.99), as DuckDB writes it, not float64's
// (19.989999771118164).
func TestRealParamEcho(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source one\nSELECT 1 AS x;\n\n-- @query price\n-- @param p REAL the price\nSELECT CAST($p AS REAL) AS p, [CAST($p AS REAL)] AS l;\n",
	})
	cs := connectHTTP(t, startHTTP(t, newTestService(t, dir, Config{})).URL, "")
	r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m/price", "parameters": map[string]any{"p": 19.99}}, nil)
	sc, _ := json.Marshal(r.StructuredContent)
	if r.IsError || !strings.Contains(string(sc), `[[19.99,[19.99]]]`) {
		t.Errorf("REAL 19.99 echoed: %s", sc)
	}
}

// TestDuplicateColumnNames: execute_query gives a join's two customer_id
// columns both as customer_id, as DuckDB names them (the row cap's subquery
// renamed the second customer_id_1).
func TestDuplicateColumnNames(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	var res struct{ Columns []engine.Column }
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales",
		"sql": "SELECT o.customer_id, c.customer_id FROM orders o JOIN customers c ON o.customer_id = c.customer_id LIMIT 1"}, &res)
	if r.IsError || len(res.Columns) != 2 || res.Columns[0].Name != "customer_id" || res.Columns[1].Name != "customer_id" {
		t.Errorf("columns: %s", text(r))
	}
}
