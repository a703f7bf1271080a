package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
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
	bin := buildServer(t) // before TMPDIR is set: its folder outlives this test
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source s\nSELECT 1 AS x;\n",
		"p/k/other.sql": "-- @source o\nSELECT 2 AS y;\n",
	})
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}}, slog.New(slog.NewTextHandler(&logs, nil)))
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

// TestModelFileGoneRebuildRetried: a model whose database file is gone, and
// whose rebuild then fails, is rebuilt again in the background, after a delay
// that grows, with no call needed; a call meanwhile starts no rebuild of its
// own and is told the last try failed and when the next is; the log has one
// line per try. Before, the model stayed broken until a call met the file
// gone again and started another rebuild.
func TestModelFileGoneRebuildRetried(t *testing.T) {
	bin := buildServer(t) // before TMPDIR is set: its folder outlives this test
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source s\nSELECT 1 AS x;\n"})
	var opens atomic.Int32
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		if n := opens.Add(1); n == 2 || n == 3 {
			return nil, errors.New("the test fails this open")
		}
		return real(ctx, m)
	}
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}, open: open, rebuildFirst: 400 * time.Millisecond}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	sn := svc.snap()
	m := sn.cat.Lookup("p/k/m").Model
	old := sn.engines[m]
	files, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*", "model.duckdb"))
	if len(files) != 1 {
		t.Fatalf("database files: %v", files)
	}
	if err := os.RemoveAll(filepath.Dir(files[0])); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gone := func() error {
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				_, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT x FROM s"})
				errs <- err
			}()
		}
		var first error
		for range 8 {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	var goneErr error
	for i := 0; i < 200 && goneErr == nil; i++ {
		goneErr = gone()
	}
	if goneErr == nil {
		t.Skip("the model's query processes kept serving the removed file")
	}
	// The first rebuild fails: a call meanwhile is told so, and when the
	// next try is, and starts none.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "could not be loaded again") {
		if time.Now().After(deadline) {
			t.Fatalf("the rebuild's failure is not logged:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := gone(); err != nil && svc.snap().engines[m] == old {
		te := classify(err)
		t.Logf("a call after the failed rebuild: %s", te.Error)
		if te.Kind != "unavailable" || !strings.Contains(te.Error, "is gone") || !strings.Contains(te.Error, "The server's last try to build it again failed (its log says why); it tries again in the background, next in about ") ||
			strings.Contains(te.Error, tmp) || !strings.Contains(te.Hint, "call again after the time the error gives") {
			t.Errorf("a call after the failed rebuild: %+v", te)
		}
	}
	// No more calls: the model comes back on its own.
	for svc.snap().engines[m] == old {
		if time.Now().After(deadline) {
			t.Fatalf("the model did not come back on its own (%d opens):\n%s", opens.Load(), logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT x FROM s"}); err != nil || len(res.Rows) != 1 {
		t.Fatalf("after the rebuild: %v %v", res, err)
	}
	out := logs.String()
	if n, f := strings.Count(out, "loading the model again"), strings.Count(out, "could not be loaded again; trying again in the background"); opens.Load() != 4 || n != 3 || f != 2 {
		t.Errorf("%d opens, %d rebuilds and %d failures logged, want 4, 3, 2:\n%.3000s", opens.Load(), n, f, out)
	}
}
