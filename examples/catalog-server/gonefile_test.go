package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestModelFileGone: a model whose database file is removed from the
// server's temporary folder (a cleaner of temporary files) is loaded again,
// and its queries run once that is done; meanwhile a call is told the model's
// database is gone and the server is building it again, without the server's
// temporary path, and the server logs at most the rate limit's lines. Before,
// every call logged an ERROR line and started a process in vain, its error
// showed /tmp/…/catalog-duckdb-…/model.duckdb, and the model never recovered
// until its files changed.
func TestModelFileGone(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source s\nSELECT 1 AS x;\n",
		"p/k/other.sql": "-- @source o\nSELECT 2 AS y;\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	sn := svc.snap()
	other := sn.engines[sn.cat.Lookup("p/k/other").Model]
	files, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*", "model.duckdb"))
	if len(files) != 2 {
		t.Fatalf("database files: %v", files)
	}
	for _, f := range files {
		if err := os.RemoveAll(filepath.Dir(f)); err != nil {
			t.Fatal(err)
		}
	}
	// Idle query processes still hold the file open; calls use them, or meet
	// the file gone once a new one starts. Query the model until it is gone.
	ctx := context.Background()
	var goneErr error
	for i := 0; i < 200 && goneErr == nil; i++ {
		// Several at once, to need processes that are not started yet.
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				_, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT x FROM s"})
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil && goneErr == nil {
				goneErr = err
			}
		}
	}
	if goneErr == nil {
		t.Skip("the model's query processes kept serving the removed file")
	}
	te := classify(goneErr)
	if te.Kind != "unavailable" || !strings.Contains(te.Error, "is gone") || strings.Contains(te.Error, tmp) ||
		strings.Contains(te.Error, "catalog-duckdb") || !strings.Contains(te.Hint, "call again in a few seconds") {
		t.Errorf("the call's error: %+v", te)
	}
	// The model loads again and is served; the other model's engine is kept.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT x FROM s"})
		if err == nil && len(res.Rows) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the model did not come back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	sn = svc.snap()
	if sn.engines[sn.cat.Lookup("p/k/other").Model] != other {
		t.Error("the other model of the package was opened again")
	}
	// One line a load started for it, not one a call.
	out := logs.String()
	if n := strings.Count(out, "loading the model again"); n < 1 || n > 3 || strings.Contains(out, "could not serve a model") {
		t.Errorf("%d lines saying the model is loaded again:\n%.3000s", n, out)
	}
}

// TestBrokenModelLogLimited: a model whose query processes cannot start logs
// at most 10 lines a minute, whatever the calls, then one counting the others.
// Before, each call logged an ERROR line (about 318 bytes: 27 KB in 1.3 s for
// 200 calls).
func TestBrokenModelLogLimited(t *testing.T) {
	var logs syncBuffer
	missing := filepath.Join(t.TempDir(), "no-such-program")
	svc, err := NewService(context.Background(), sampleDir(t), Config{Duck: engine.DuckConfig{Worker: func() *exec.Cmd { return exec.Command(missing, workerFlag) }}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for range 50 {
		_, err = svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT 1"})
		if te := classify(err); te.Kind != "unavailable" || !strings.Contains(te.Error, "fault of the server") {
			t.Fatalf("want the server's fault, got %+v", te)
		}
	}
	if n := strings.Count(logs.String(), "could not serve a model"); n != 10 {
		t.Errorf("%d lines for 50 calls, want 10:\n%.3000s", n, logs.String())
	}
}
