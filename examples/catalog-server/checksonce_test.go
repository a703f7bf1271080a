package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// countedChecks is a model's engine whose QueryChecks calls are counted.
type countedChecks struct {
	modelEngine
	mu *sync.Mutex
	n  map[string]int
	m  string
}

func (c *countedChecks) QueryChecks() map[string]engine.QueryCheck {
	c.mu.Lock()
	c.n[c.m]++
	c.mu.Unlock()
	return c.modelEngine.(queryChecker).QueryChecks()
}

// TestChecksOncePerVersion: the checks of a package's named queries are
// worked out once per version of the package (pkgState.checksOf), not again
// at each publish; a reload of another package still serves them. Before,
// every publish asked each model's engine again and rebuilt every message.
func TestChecksOncePerVersion(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/a/manifest.json": `{}`,
		"p/a/m.sql":         "-- @source s\nSELECT 1 AS x;\n\n-- @query bad\nSELECT nope FROM s;\n",
		"p/b/manifest.json": `{}`,
		"p/b/m.sql":         "-- @source s\nSELECT 1 AS x;\n",
	})
	var mu sync.Mutex
	calls := map[string]int{}
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		e, err := real(ctx, m)
		if err != nil {
			return nil, err
		}
		return &countedChecks{modelEngine: e, mu: &mu, n: calls, m: modelPath(m)}, nil
	}
	svc := newTestService(t, dir, Config{open: open})
	problems := func() []string {
		return svc.snap().checks["p/a/m/bad"]
	}
	first := problems()
	if len(first) == 0 {
		t.Fatalf("no problem found with p/a/m/bad: %v", svc.snap().checks)
	}
	for i := range 3 {
		writeFiles(t, dir, map[string]string{"p/b/m.sql": "-- @source s\nSELECT " + string(rune('2'+i)) + " AS x;\n"})
		// A new modification time, whatever the file system's resolution.
		later := time.Now().Add(time.Duration(i+1) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, "p/b/m.sql"), later, later); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := svc.Reload(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if got := problems(); len(got) != len(first) || got[0] != first[0] {
			t.Fatalf("reload %d: the problems of p/a/m/bad are %q, were %q", i, got, first)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["p/a/m"] != 1 {
		t.Errorf("p/a/m's checks were asked for %d times over 4 publishes; want once", calls["p/a/m"])
	}
	if calls["p/b/m"] != 4 {
		t.Errorf("p/b/m's checks were asked for %d times over its 4 versions; want 4", calls["p/b/m"])
	}
}
