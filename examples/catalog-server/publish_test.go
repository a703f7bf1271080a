package main

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPublishCoalesced starts 300 PostgreSQL packages whose connection variable
// is unset, so that every load fails at once and they finish close together:
// they are swapped in by a few publishes, not one each (before, 301 publishes,
// and a start of 4,000 such packages took 34 s). A reload right after is
// served as soon as Reload returns, though the publish that swaps it in is put
// off (one came just before).
func TestPublishCoalesced(t *testing.T) {
	t.Setenv("CATALOG_EMPTY_PUBLISH_TEST", "")
	const n = 300
	dir := t.TempDir()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p/k%d/manifest.json", i)] = `{"engine": "postgres", "dsnEnv": "CATALOG_EMPTY_PUBLISH_TEST"}`
		files[fmt.Sprintf("p/k%d/m.sql", i)] = "-- @source s\nSELECT 1 AS a;\n"
	}
	writeFiles(t, dir, files)
	svc := newTestService(t, dir, Config{})
	svc.mu.Lock()
	published := svc.publishes
	svc.mu.Unlock()
	t.Logf("%d packages loaded by %d publishes", n, published)
	if published > n/10 {
		t.Errorf("%d packages loaded by %d publishes; want at most %d", n, published, n/10)
	}
	if l := svc.Loading(); len(l) != 0 {
		t.Fatalf("still loading after NewService: %v", l)
	}
	for i := range n {
		if svc.snap().broken[svc.Catalog().Lookup(fmt.Sprintf("p/k%d/m", i)).Model] == "" {
			t.Fatalf("p/k%d/m: no reason it did not open", i)
		}
	}

	for round := range 3 {
		name := fmt.Sprintf("m%d", round+2)
		writeFiles(t, dir, map[string]string{"p/k7/" + name + ".sql": "-- @source s\nSELECT 1 AS a;\n"})
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := svc.Reload(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if svc.Catalog().Lookup("p/k7/"+name) == nil {
			t.Fatalf("round %d: Reload returned before p/k7/%s was served", round, name)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("round %d: the reload took %s", round, took)
		}
	}
}
