package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestGoneRebuildOfOneModelLeavesOthers: two models of a package have their
// database files gone; the rebuild of m1 fails (the next is an hour away), and
// a call of m2 then starts a rebuild that brings m2 back, while m1 keeps its
// failure and its next try. Before, the failed rebuild of m1 blocked m2: its
// calls were told "the server's last try to build it again failed" though m2
// was never tried, and the timer rebuilt only m1.
func TestGoneRebuildOfOneModelLeavesOthers(t *testing.T) {
	bin := buildServer(t) // before TMPDIR is set: its folder outlives this test
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}",
		"p/k/m1.sql":        "-- @source s\nSELECT 1 AS x;\n",
		"p/k/m2.sql":        "-- @source s\nSELECT 2 AS x;\n",
	})
	var opens1 atomic.Int32
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		if m.Name == "m1" && opens1.Add(1) > 1 {
			return nil, errors.New("the test fails this open")
		}
		return real(ctx, m)
	}
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(bin)}, open: open, rebuildFirst: time.Hour}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	sn := svc.snap()
	m1, m2 := sn.cat.Lookup("p/k/m1").Model, sn.cat.Lookup("p/k/m2").Model
	old1, old2 := sn.engines[m1], sn.engines[m2]
	files, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*", "model.duckdb"))
	if len(files) != 2 {
		t.Fatalf("database files: %v", files)
	}
	for _, f := range files {
		if err := os.RemoveAll(filepath.Dir(f)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	call := func(path string) error {
		_, err := svc.Execute(ctx, executeIn{Path: path, SQL: "SELECT x FROM s"})
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for call("p/k/m1") == nil { // the model's idle process may serve a call or two
		if time.Now().After(deadline) {
			t.Skip("the model's query processes kept serving the removed file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for !strings.Contains(logs.String(), "could not be loaded again") {
		if time.Now().After(deadline) {
			t.Fatalf("the rebuild's failure is not logged:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// m2, never tried: a call starts its rebuild, and it comes back.
	for svc.snap().engines[m2] == old2 {
		err := call("p/k/m2")
		if err != nil && strings.Contains(err.Error(), "last try to build it again failed") {
			t.Fatalf("m2, never rebuilt, is told its rebuild failed: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("m2 did not come back:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := call("p/k/m2"); err != nil {
		t.Fatalf("m2 after its rebuild: %v", err)
	}
	// m1 failed again with it: still served, its next try scheduled.
	if svc.snap().engines[m1] != old1 {
		t.Fatal("m1's engine was replaced though it did not open")
	}
	if err := call("p/k/m1"); err == nil || !strings.Contains(err.Error(), "last try to build it again failed") {
		t.Errorf("m1 after its rebuilds failed: %v", err)
	}
}
