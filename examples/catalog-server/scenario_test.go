package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// direct runs a query with duckdb-go on the sample files, the way a user without
// this server would: the expected answers of the scenario.
func direct(t testing.TB, dir, query string) [][]any {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(strings.ReplaceAll(query, "DIR", dir))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	return out
}

// normalize turns numbers into float64 so engine results and JSON-decoded ones compare.
func normalize(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			switch x := v.(type) {
			case int64:
				v = float64(x)
			case int32:
				v = float64(x)
			case *big.Int:
				v, _ = new(big.Float).SetInt(x).Float64()
			}
			out[i][j] = v
		}
	}
	return out
}

// scenario is one client's discovery and query session, asserted step by step.
// Every call stands alone: nothing depends on which server answered before.
func scenario(t *testing.T, cs *mcp.ClientSession, dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var names []string
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if d := cmp.Diff([]string{"describe", "execute_query", "list_catalog", "search_catalog"}, names); d != "" {
		t.Errorf("tools: %s", d)
	}

	var lst listOut
	call(t, cs, "list_catalog", map[string]any{}, &lst)
	var got []string
	for _, it := range lst.Items {
		got = append(got, it.Kind+" "+it.Path)
	}
	if d := cmp.Diff([]string{"project climate", "project operations", "project retail"}, got); d != "" {
		t.Errorf("projects: %s", d)
	}
	call(t, cs, "list_catalog", map[string]any{"path": "retail/shop"}, &lst)
	got = nil
	for _, it := range lst.Items {
		got = append(got, it.Kind+" "+it.Path)
	}
	if d := cmp.Diff([]string{"notebook retail/shop/monthly-review", "model retail/shop/sales"}, got); d != "" {
		t.Errorf("package contents: %s", d)
	}

	var src Description
	call(t, cs, "describe", map[string]any{"path": "retail/shop/sales/orders"}, &src)
	if src.Kind != "source" || src.RowCount == nil || *src.RowCount != sampleOrders || len(src.SampleRows) != sampleRows || src.URI != "catalog://source/retail/shop/sales/orders" {
		t.Errorf("describe source: %+v", src)
	}
	var colNames []string
	for _, c := range src.Columns {
		colNames = append(colNames, c.Name+":"+c.Type)
	}
	if d := cmp.Diff([]string{"order_id:BIGINT", "customer_id:BIGINT", "product_id:BIGINT", "quantity:BIGINT", "unit_price:DOUBLE", "ordered_at:TIMESTAMP"}, colNames); d != "" {
		t.Errorf("columns: %s", d)
	}
	var q Description
	call(t, cs, "describe", map[string]any{"path": "retail/shop/sales/top_customers"}, &q)
	if q.Kind != "query" || len(q.Parameters) != 2 || q.Parameters[0].Name != "region" || q.Parameters[1].Type != "INTEGER" || !strings.Contains(q.SQL, "$region") {
		t.Errorf("describe query: %+v", q)
	}
	var nb Description
	call(t, cs, "describe", map[string]any{"path": "retail/shop/monthly-review"}, &nb)
	if nb.Kind != "notebook" || nb.Title != "Monthly review" || len(nb.Queries) != 2 || nb.Model != "retail/shop/sales" || !strings.Contains(nb.Markdown, "## Best categories") {
		t.Errorf("describe notebook: %+v", nb)
	}

	var found searchOut
	call(t, cs, "search_catalog", map[string]any{"query": "revenue"}, &found)
	if len(found.Results) == 0 || found.Results[0].Path != "retail/shop/sales/revenue_by_month" {
		t.Errorf("search revenue: %+v", found)
	}
	call(t, cs, "search_catalog", map[string]any{"query": "latency_ms"}, &found)
	if len(found.Results) != 1 || found.Results[0].Path != "operations/web/traffic/requests" || found.Results[0].Match != "column latency_ms" {
		t.Errorf("search column: %+v", found)
	}

	// An ad-hoc aggregate, checked against duckdb-go run directly on the file.
	var res engine.Result
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT p.category, count(*) AS n, sum(o.quantity) AS units FROM orders o JOIN products p USING (product_id) GROUP BY 1 ORDER BY 1"}, &res)
	want := direct(t, dir, "SELECT p.category, count(*) AS n, sum(o.quantity) AS units FROM 'DIR/retail/shop/data/orders.parquet' o JOIN read_csv('DIR/retail/shop/data/products.csv') p USING (product_id) GROUP BY 1 ORDER BY 1")
	if d := cmp.Diff(normalize(want), normalize(res.Rows)); d != "" || r.IsError {
		t.Errorf("aggregate (-direct +mcp): %s %s", d, text(r))
	}
	if res.RowCount != len(want) || res.Truncated || res.RowLimit != 1000 || len(res.Columns) != 3 || res.Columns[2].Type != "HUGEINT" && res.Columns[2].Type != "BIGINT" && res.Columns[2].Type != "DOUBLE" {
		t.Errorf("result fields: %+v", res)
	}
	if !strings.Contains(text(r), `"rowCount":`) {
		t.Errorf("text block lacks the result: %s", text(r))
	}
	// A named query with parameters.
	call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_month", "parameters": map[string]any{"year": 2024}}, &res)
	want = direct(t, dir, "SELECT month(ordered_at) AS month, count(*) AS orders, round(sum(quantity * unit_price), 2) AS revenue FROM 'DIR/retail/shop/data/orders.parquet' WHERE year(ordered_at) = 2024 GROUP BY 1 ORDER BY 1")
	if d := cmp.Diff(normalize(want), normalize(res.Rows)); d != "" || len(want) != 12 {
		t.Errorf("named query (-direct +mcp): %s", d)
	}
	// The same by the query's own path, and a notebook cell.
	call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales/top_customers", "parameters": map[string]any{"region": "west", "n": 3}}, &res)
	if res.RowCount != 3 || res.Columns[2].Name != "spent" {
		t.Errorf("query by path: %+v", res)
	}
	call(t, cs, "execute_query", map[string]any{"path": "retail/shop/monthly-review", "queryName": "cell-1"}, &res)
	if res.RowCount != 24 {
		t.Errorf("notebook cell: %+v", res)
	}
	// Row limit.
	call(t, cs, "execute_query", map[string]any{"path": "climate/stations/weather/readings", "rowLimit": 7}, &res)
	if res.RowCount != 7 || !res.Truncated || res.TruncatedBy != "rowLimit" || res.RowLimit != 7 {
		t.Errorf("row limit: %+v", res)
	}

	// Errors a model can act on.
	var te toolError
	r = call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sale", "sql": "SELECT 1"}, &te)
	if !r.IsError || te.Kind != "not_found" || len(te.Suggestions) == 0 || te.Suggestions[0] != "retail/shop/sales" || !strings.Contains(text(r), "retail/shop/sales") {
		t.Errorf("unknown model: %+v %s", te, text(r))
	}
	r = call(t, cs, "describe", map[string]any{"path": "retial"}, &te)
	if !r.IsError || te.Suggestions[0] != "retail" {
		t.Errorf("unknown project: %+v", te)
	}
	r = call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT custmer_id FROM orders"}, &te)
	if !r.IsError || te.Kind != "sql_error" || te.Position != 8 || !strings.Contains(te.Error, "customer_id") {
		t.Errorf("unknown column: %+v", te)
	}
	// The text block says what the structured content says: the hint too.
	if te.Hint == "" || !strings.Contains(text(r), te.Hint) {
		t.Errorf("unknown column: the text %q lacks the hint %q", text(r), te.Hint)
	}
	r = call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT order_id,\n       custmer_id\nFROM orders"}, &te)
	if !r.IsError || te.Kind != "sql_error" || te.Position != 25 {
		t.Errorf("unknown column on the second line: %+v", te)
	}
	r = call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "DROP VIEW orders"}, &te)
	if !r.IsError || te.Kind != "refused" {
		t.Errorf("drop: %+v", te)
	}
	r = call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "revenue_by_month", "parameters": map[string]any{"yaer": 2024}}, &te)
	if !r.IsError || !strings.Contains(te.Error, `"year"`) {
		t.Errorf("wrong parameter: %+v", te)
	}
	// Arguments the input schema refuses: the same shape as the tools' own errors,
	// with the arguments the tool takes and the closest to a misnamed one.
	te = toolError{}
	r = call(t, cs, "execute_query", map[string]any{"query": "SELECT 1"}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, "'path'") ||
		!strings.Contains(te.Hint, "path (required), sql, queryName, parameters, rowLimit") ||
		!slices.Equal(te.Suggestions, []string{"queryName"}) || !strings.Contains(text(r), te.Hint) ||
		!strings.Contains(text(r), `execute_query takes no argument "query" (did you mean "queryName"?)`) {
		t.Errorf("schema-refused arguments: %+v (text %q)", te, text(r))
	}
	te = toolError{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "orders", "limit": 500}, &te)
	if !r.IsError || te.Kind != "invalid" || !strings.Contains(te.Error, "/limit") || !strings.Contains(te.Hint, "query (required), limit") || len(te.Suggestions) != 0 {
		t.Errorf("limit above its maximum: %+v", te)
	}

	// Resources: templates, a paginated listing, a read.
	tres, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{})
	if err != nil || len(tres.ResourceTemplates) != len(templates)+1 {
		t.Fatalf("templates: %v %+v", err, tres)
	}
	n := 0
	for res, err := range cs.Resources(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if res.MIMEType != "application/json" || !strings.HasPrefix(res.URI, "catalog://") {
			t.Errorf("resource %+v", res)
		}
		n++
	}
	if n < 20 {
		t.Errorf("listed %d resources", n)
	}
	// A catalog URI that names an object under the wrong kind, or no kind, says
	// what is wrong and which URI to use (-32602 from protocol 2026-07-28).
	for _, tc := range []struct{ uri, want string }{
		{"catalog://model/retail/shop/sales/orders", "retail/shop/sales/orders is a source; its URI is catalog://source/retail/shop/sales/orders"},
		{"catalog://source/retail/shop/sales", "retail/shop/sales is a model; its URI is catalog://model/retail/shop/sales"},
		{"catalog://table/retail/shop/sales/orders", `the catalog has no kind "table"; its URIs are catalog://project/{project}, `},
		{"catalog://source/retail/shop/sales/ordrs/x", `no source or query named "ordrs" in "retail/shop/sales"; closest: retail/shop/sales/orders`},
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		var re *jsonrpc.Error
		var data struct{ Detail string }
		if !errors.As(err, &re) || re.Code != -32002 && re.Code != -32602 || json.Unmarshal(re.Data, &data) != nil || !strings.Contains(data.Detail, tc.want) {
			t.Errorf("read %s: %v (want detail %q)", tc.uri, err, tc.want)
		}
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "catalog://package/retail/shop"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" || !strings.Contains(rr.Contents[0].Text, `"retail/shop/sales"`) {
		t.Errorf("read package: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "catalog://model/retail/shop/nosuch"}); !mcp.IsResourceNotFound(err) {
		t.Errorf("missing resource: %v", err)
	}
	// A misspelt name comes with the closest existing ones, as from describe.
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "catalog://source/retail/shop/sales/ordrs"}); !mcp.IsResourceNotFound(err) || !strings.Contains(err.Error(), "retail/shop/sales/orders") {
		t.Errorf("misspelt resource: %v", err)
	}
}

func TestHTTPStateless(t *testing.T) {
	dir := sampleDir(t)
	svc := newTestService(t, dir, Config{})
	ts := startHTTP(t, svc)
	for _, v := range []string{"", "2025-06-18", "2025-11-25"} {
		t.Run("version="+v, func(t *testing.T) {
			cs := connectHTTP(t, ts.URL, v)
			if v != "" && cs.ProtocolVersion() != v {
				t.Fatalf("negotiated %s", cs.ProtocolVersion())
			}
			scenario(t, cs, dir)
		})
	}
}

// TestStatelessWire checks on the wire that the endpoint keeps no session: an
// initialize gets no Mcp-Session-Id, and a request needs none.
func TestStatelessWire(t *testing.T) {
	ts := startHTTP(t, newTestService(t, sampleDir(t), Config{}))
	post := func(body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize: status %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	resp = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_catalog","arguments":{}}}`, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `retail`) {
		t.Errorf("a call without initialize on this connection: %d %s", resp.StatusCode, body)
	}

	// Malformed requests get protocol errors; the endpoint keeps serving.
	v := map[string]string{"MCP-Protocol-Version": "2025-06-18"}
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":3,"method":`, -32700},
		{"no method", `{"jsonrpc":"2.0","id":4}`, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"catalog/everything"}`, -32601},
		{"unknown tool", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"drop_catalog","arguments":{}}}`, -32602},
		{"unknown resource", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"catalog://model/retail/shop/sale"}}`, -32002},
	} {
		resp := post(tc.body, v)
		raw, _ := io.ReadAll(resp.Body)
		var msg struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || msg.Error == nil || msg.Error.Code != tc.code {
			t.Errorf("%s: status %d, %s (want error %d)", tc.name, resp.StatusCode, raw, tc.code)
		}
	}
	resp = post(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_catalog","arguments":{"path":"retail"}}}`, v)
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !strings.Contains(string(body), `retail/shop`) {
		t.Errorf("after the malformed requests: %d %s", resp.StatusCode, body)
	}
}

func TestQueryTimeoutOverMCP(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{QueryTimeout: 300 * time.Millisecond})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	start := time.Now()
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3"}, &te)
	if !r.IsError || te.Kind != "timeout" || !strings.Contains(te.Error, "300ms") {
		t.Errorf("timeout: %+v", te)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the query was not interrupted: %v", time.Since(start))
	}
	var res engine.Result
	call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT count(*) FROM orders"}, &res)
	if res.RowCount != 1 {
		t.Errorf("after timeout: %+v", res)
	}
}

func TestRowLimitAboveMax(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{MaxRowLimit: 50})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	var te toolError
	r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales/orders", "rowLimit": 51}, &te)
	if !r.IsError || !strings.Contains(text(r), "50") {
		t.Errorf("rowLimit above max: %s", text(r))
	}

}
