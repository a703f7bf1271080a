package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
)

const probeSQL = "SELECT TIMESTAMP '2024-01-01' + INTERVAL (i % 12) MONTH AS month, 'category ' || (i // 12) AS category, 1000 + i AS orders, 123456.789 * i + random() AS revenue, 52.3456789 * i / 7 + random() AS avg_order FROM range(144) t(i) ORDER BY month, category"

func BenchmarkProbeMem(b *testing.B) {
	dir := b.TempDir()
	pkg := filepath.Join(dir, "bench", "big")
	os.MkdirAll(filepath.Join(pkg, "data"), 0o755)
	os.WriteFile(filepath.Join(pkg, "data", "t.csv"), []byte("a\n1\n"), 0o644)
	os.WriteFile(filepath.Join(pkg, "manifest.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "events.sql"), []byte("-- @source events\nSELECT * FROM 'data/t.csv'"), 0o644)
	svc := newTestService(b, dir, Config{})
	srvEnd, cliEnd := memory.NewPair()
	if _, err := newMCPServer(svc, "bench", false).Connect(context.Background(), srvEnd); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "catalog-bench", Version: "1"}, nil).Connect(context.Background(), cliEnd)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args, _ := json.Marshal(map[string]any{"path": "bench/big/events", "sql": probeSQL})
	in := executeIn{Path: "bench/big/events", SQL: probeSQL}
	b.Run("mcp", func(b *testing.B) {
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_query", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err)
			}
			var out struct{ RowCount int }
			json.Unmarshal(res.StructuredContent.(json.RawMessage), &out)
			if out.RowCount != 144 {
				b.Fatal(out.RowCount)
			}
			b.ReportMetric(float64(len(res.StructuredContent.(json.RawMessage))), "structured-bytes")
		}
	})
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Execute(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
