//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipesInCatalog: a named pipe where the catalog expects a file — a model
// file, a data file a source names, or one its wildcard matches — is skipped with
// the reason, and the rest is served. Opening one waits for a writer: the server
// hung at start (and ignored SIGTERM), or a reload held the catalog for good.
func TestNamedPipesInCatalog(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}",
		"p/k/data/z.csv":    "y\n1\n",
		"p/k/m.sql":         "-- @source one\nSELECT * FROM read_csv('data/x.csv');\n-- @source many\nSELECT * FROM read_csv('data/*.csv');\n-- @source ok\nSELECT 1 AS y;\n",
	})
	for _, f := range []string{"p/k/f.sql", "p/k/data/x.csv"} { // no writer ever comes
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Skipf("cannot make a named pipe here: %v", err)
		}
	}
	done := make(chan *Service, 1)
	go func() {
		svc, err := NewService(context.Background(), dir, Config{}, nil)
		if err != nil {
			t.Error(err)
		}
		done <- svc
	}()
	var svc *Service
	select {
	case svc = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("loading a catalog holding named pipes did not end")
	}
	if svc == nil {
		return
	}
	defer svc.Close()
	if got := strings.Join(svc.Catalog().Lookup("p/k").Package.Problems, "\n"); !strings.Contains(got, "f.sql is a named pipe, not a regular file") {
		t.Errorf("problems of p/k: %q", got)
	}
	for _, src := range []string{"p/k/m/one", "p/k/m/many"} {
		d, err := svc.Describe(context.Background(), src)
		if err != nil {
			t.Errorf("describe %s: %v", src, err)
		} else if !strings.Contains(d.Error, "x.csv is a named pipe, not a regular file") {
			t.Errorf("describe %s: error %q", src, d.Error)
		}
	}
	res, err := svc.Execute(context.Background(), executeIn{Path: "p/k/m", SQL: "SELECT * FROM ok"})
	if err != nil || res.RowCount != 1 {
		t.Errorf("the source beside them: %v, %+v", err, res)
	}
}
