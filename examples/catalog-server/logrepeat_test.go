package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestCatalogProblemsLoggedOnce: a package of 150 model files that do not
// parse logs its problems once (100 lines and a count), not again when another
// package is edited ten times; an edit of its own files logs them again.
// Before, each of the ten reads logged the same 100 lines and the count
// (165 KB, 1,030 lines).
func TestCatalogProblemsLoggedOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/good/manifest.json": "{}", "p/good/m.sql": "-- @source s\nSELECT 1 AS x;\n",
		"p/bad/manifest.json": "{}",
	}
	for i := range 150 {
		files[fmt.Sprintf("p/bad/m%03d.sql", i)] = "-- @source\nSELECT 1;\n"
	}
	writeFiles(t, dir, files)
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{SkipEngines: true}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	first := strings.Count(logs.String(), "\n")
	if first < 100 || !strings.Contains(logs.String(), "diagnostic=") {
		t.Fatalf("the first read logged %d lines: %.2000s", first, logs.String())
	}
	before := len(logs.String())
	for i := range 10 {
		time.Sleep(15 * time.Millisecond) // a later modification time, however coarse the clock
		writeFiles(t, dir, map[string]string{"p/good/m.sql": fmt.Sprintf("-- @source s\nSELECT %d AS x;\n", i)})
		if err := svc.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	added := logs.String()[before:]
	if strings.Contains(added, "diagnostic=") || strings.Contains(added, "more problems") || len(added) > 2000 {
		t.Errorf("ten edits of another package logged %d bytes: %.2000s", len(added), added)
	}
	// An edit of the bad package itself tells its problems again.
	time.Sleep(15 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/bad/m000.sql": "-- @source\nSELECT 2;\n"})
	before = len(logs.String())
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if added := logs.String()[before:]; !strings.Contains(added, "diagnostic=") {
		t.Errorf("an edit of the bad package logged no diagnostic: %.2000s", added)
	}
}
