package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestMemoryAdviceFits: a query stopped at the memory limit is advised by what
// it is: a long list of literals to be shortened, an aggregate to read or group
// less; anything else keeps the general advice.
func TestMemoryAdviceFits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM orders WHERE id IN (" + strings.Repeat("1234567, ", 400000) + "1)", "with about 400001 values in lists: DuckDB plans and holds each one. Use a shorter list"},
		{"SELECT customer, list(amount) FROM orders GROUP BY customer", "The query already aggregates"},
		{"SELECT * FROM orders ORDER BY amount", "Aggregate, filter or select fewer columns"},
	} {
		err := error(&engine.MemoryError{Limit: "512MB", Detail: "failed to allocate"})
		adviseOnFailure(ctx, err, tc.sql)
		te := classify(err)
		if te.Kind != "out_of_memory" || !strings.Contains(te.Hint, tc.want) || strings.Contains(te.Error, "Ask for less work") != strings.Contains(tc.want, "Aggregate, filter") {
			t.Errorf("%.50s: %+v, want %q", tc.sql, te, tc.want)
		}
	}
}

// TestSpecialFileRefused: ad-hoc SQL naming a named pipe inside the package (by
// its absolute path, or relative to the package) is refused at once, saying what
// the file is, instead of waiting on it until the time limit.
func TestSpecialFileRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": `{}`, "p/k/m.sql": "-- @source one\nSELECT 1 AS x;\n"})
	pipe := filepath.Join(dir, "p/k/data/pipe.csv")
	if err := os.MkdirAll(filepath.Dir(pipe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	svc := newTestService(t, dir, Config{QueryTimeout: 5 * time.Second})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	real, err := filepath.EvalSymlinks(pipe)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"SELECT * FROM read_csv('" + pipe + "')",
		"-- a comment\nSELECT * FROM '" + real + "'",
	} {
		start := time.Now()
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": sql}, &te)
		if !r.IsError || te.Kind != "refused" || !strings.Contains(te.Error, "(data/pipe.csv in the package) is a named pipe, not a regular file") || time.Since(start) > 3*time.Second {
			t.Errorf("%s: after %v: %s", sql, time.Since(start), text(r))
		}
	}
	// A relative path is read from the server's working directory, outside the
	// package: refused by DuckDB at once, not as the package's pipe.
	start := time.Now()
	var rel toolError
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": "SELECT * FROM read_csv('data/pipe.csv')"}, &rel); !r.IsError || strings.Contains(rel.Error, "named pipe") || time.Since(start) > 3*time.Second {
		t.Errorf("relative path: after %v: %s", time.Since(start), text(r))
	}
	// The pipe named in a comment only, or a path outside the package: runs.
	for _, sql := range []string{"SELECT 1 AS x -- '" + pipe + "'\n", "SELECT 1 AS x /* '" + pipe + "' */", "SELECT '/dev/null' AS x"} {
		if r := call(t, cs, "execute_query", map[string]any{"path": "p/k/m", "sql": sql}, nil); r.IsError {
			t.Errorf("%s: %s", sql, text(r))
		}
	}
}
