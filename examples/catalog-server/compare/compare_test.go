// Package compare measures what an MCP library adds to a DuckDB query over
// stateless Streamable HTTP on loopback: wiremcp, the official Go SDK and
// mark3labs/mcp-go serve the same tool (the same duckdb-go query, the same JSON as
// structured content and as text), each called by its own client, interleaved in one
// loop with duckdb-go called directly. See README.md.
package compare

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	mgclient "github.com/mark3labs/mcp-go/client"
	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	gsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wiremcp/wiremcp/examples/catalog-server/benchdata"
	wjson "github.com/wiremcp/wiremcp/jsonrpc"
	wmcp "github.com/wiremcp/wiremcp/mcp"
	wstream "github.com/wiremcp/wiremcp/transport/streamable"
)

// qIn is the tool's input: the SQL to run.
type qIn struct {
	SQL string `json:"sql"`
}

type col struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// run runs q and returns the result as JSON: columns, rows, rowCount.
func run(db *sql.DB, q string) ([]byte, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, _ := rows.Columns()
	cts, _ := rows.ColumnTypes()
	cols := make([]col, len(names))
	for i := range names {
		cols[i] = col{names[i], cts[i].DatabaseTypeName()}
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return json.Marshal(map[string]any{"columns": cols, "rows": out, "rowCount": len(out)})
}

// countOf reads rowCount from structured content a client decoded into Go values
// (the official SDK's and mcp-go's clients decode it into a map).
func countOf(v any) int {
	m, _ := v.(map[string]any)
	n, _ := m["rowCount"].(float64)
	return int(n)
}

// BenchmarkCompare runs three aggregates over a 1,000,000-row Parquet file (those of
// the catalog server's BenchmarkExecuteQuery) four ways, interleaved in a shuffled
// order (benchdata.Interleave), and reports each library's overhead over duckdb-go at the median (and paired: the
// median of each iteration's difference). Every way's row count is checked first.
func BenchmarkCompare(b *testing.B) {
	file := filepath.Join(b.TempDir(), "events.parquet")
	if err := benchdata.WriteParquet(file); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("duckdb", "?threads=2&memory_limit=512MB")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	// wiremcp: stateless Streamable HTTP.
	ws := wmcp.NewServer(wmcp.Implementation{Name: "w", Version: "1"}, nil)
	wmcp.AddTool(ws, &wmcp.Tool{Name: "q"}, func(ctx context.Context, req *wmcp.CallToolRequest, in qIn) (*wmcp.CallToolResult, any, error) {
		raw, err := run(db, in.SQL)
		if err != nil {
			return nil, nil, err
		}
		return &wmcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []wmcp.Content{&wmcp.TextContent{Text: string(raw)}}}, nil, nil
	})
	wsrv := httptest.NewServer(wstream.NewHandler(func(_ context.Context, t wjson.Transport) error {
		_, err := ws.Connect(ctx, t)
		return err
	}, &wstream.HandlerOptions{Stateless: true}))
	defer wsrv.Close()
	wt, _ := wstream.NewClient(wsrv.URL, nil)
	wcs, err := wmcp.NewClient(wmcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, wt)
	if err != nil {
		b.Fatal(err)
	}
	defer wcs.Close()

	// The official Go SDK: stateless Streamable HTTP.
	gs := gsdk.NewServer(&gsdk.Implementation{Name: "g", Version: "1"}, nil)
	gsdk.AddTool(gs, &gsdk.Tool{Name: "q"}, func(ctx context.Context, req *gsdk.CallToolRequest, in qIn) (*gsdk.CallToolResult, any, error) {
		raw, err := run(db, in.SQL)
		if err != nil {
			return nil, nil, err
		}
		return &gsdk.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []gsdk.Content{&gsdk.TextContent{Text: string(raw)}}}, nil, nil
	})
	gsrv := httptest.NewServer(gsdk.NewStreamableHTTPHandler(func(*http.Request) *gsdk.Server { return gs }, &gsdk.StreamableHTTPOptions{Stateless: true}))
	defer gsrv.Close()
	gcs, err := gsdk.NewClient(&gsdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &gsdk.StreamableClientTransport{Endpoint: gsrv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer gcs.Close()

	// mark3labs/mcp-go: stateless Streamable HTTP.
	ms := mgserver.NewMCPServer("m", "1")
	ms.AddTool(mgmcp.NewTool("q", mgmcp.WithString("sql", mgmcp.Required())), func(ctx context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
		raw, err := run(db, req.GetString("sql", ""))
		if err != nil {
			return nil, err
		}
		return mgmcp.NewToolResultStructured(json.RawMessage(raw), string(raw)), nil
	})
	msrv := httptest.NewServer(mgserver.NewStreamableHTTPServer(ms, mgserver.WithStateLess(true)))
	defer msrv.Close()
	mc, err := mgclient.NewStreamableHttpClient(msrv.URL + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	if err := mc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	ireq := mgmcp.InitializeRequest{}
	ireq.Params.ProtocolVersion = mgmcp.LATEST_PROTOCOL_VERSION
	ireq.Params.ClientInfo = mgmcp.Implementation{Name: "c", Version: "1"}
	if _, err := mc.Initialize(ctx, ireq); err != nil {
		b.Fatal(err)
	}
	defer mc.Close()

	for _, bq := range benchdata.Queries {
		q := fmt.Sprintf(bq.SQL, benchdata.Quote(file))
		args := map[string]any{"sql": q}
		rawArgs, _ := json.Marshal(args)
		rowCount := func(raw []byte) int {
			var out struct{ RowCount int }
			json.Unmarshal(raw, &out)
			return out.RowCount
		}
		ways := []struct {
			name string
			f    func() int
		}{
			{"direct", func() int {
				n, err := benchdata.ScanAll(db, q)
				if err != nil {
					b.Fatal(err)
				}
				return n
			}},
			{"wiremcp", func() int {
				res, err := wcs.CallTool(ctx, &wmcp.CallToolParams{Name: "q", Arguments: rawArgs})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				return rowCount(res.StructuredContent.(json.RawMessage))
			}},
			{"go-sdk", func() int {
				res, err := gcs.CallTool(ctx, &gsdk.CallToolParams{Name: "q", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				return countOf(res.StructuredContent)
			}},
			{"mcp-go", func() int {
				req := mgmcp.CallToolRequest{}
				req.Params.Name = "q"
				req.Params.Arguments = args
				res, err := mc.CallTool(ctx, req)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				return countOf(res.StructuredContent)
			}},
		}
		b.Run(bq.Name, func(b *testing.B) {
			for _, w := range ways {
				if n := w.f(); n != bq.Rows {
					b.Fatalf("%s: %d rows, want %d", w.name, n, bq.Rows)
				}
			}
			fs := make([]func(), len(ways))
			for k, w := range ways {
				fs[k] = func() { w.f() }
			}
			times := benchdata.Interleave(b.Loop, fs)
			d := benchdata.Median(times[0])
			b.ReportMetric(float64(d.Microseconds())/1000, "direct-ms")
			for k := 1; k < len(ways); k++ {
				m := benchdata.Median(times[k])
				b.ReportMetric(100*(float64(m)-float64(d))/float64(d), ways[k].name+"-%")
				b.ReportMetric(100*float64(benchdata.MedianDiff(times[k], times[0]))/float64(d), ways[k].name+"-paired-%")
			}
		})
	}
}
