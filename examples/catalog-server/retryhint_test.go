package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestModelDownRetryHint: a call of a PostgreSQL model that did not open is
// told that the server tries it again in the background, and when next (it
// was told that calling again would not help until the model loads, which the
// retry may do by itself); while that try runs, that it is under way. A DuckDB
// model that did not build, and a PostgreSQL model whose connection variable
// is empty (never tried again), keep the old hint.
func TestModelDownRetryHint(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db")
	dir := pgPackage(t)
	writeFiles(t, dir, map[string]string{
		"p/bad/manifest.json": "{}",
		"p/bad/m.sql":         "-- @source s\nSELECT 1 AS x;\n\n-- @query q\nSELECT x FROM s;\n",
	})
	var tries atomic.Int64
	hold := make(chan struct{})
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		switch m.Package.Name {
		case "bad":
			return nil, errors.New("duckdb: the model's database could not be written")
		case "pgx":
			if os.Getenv(m.Package.DSNEnv) == "" {
				return real(ctx, m) // the service's own answer
			}
			if m.Name == "m1" && tries.Add(1) > 1 {
				// A retry: held, to be seen under way.
				select {
				case <-hold:
				case <-ctx.Done():
				}
			}
			return nil, errors.New("postgres: the server is down")
		}
		return real(ctx, m)
	}
	before := time.Now()
	svc := newTestService(t, dir, Config{open: open, retryFirst: 40 * time.Second})
	after := time.Now()
	defer close(hold)
	// The first try comes retryFirst after the load that failed, which ended
	// while the service started (how long after the other packages' loads
	// took it to start, on this machine, does not matter: the hint is read
	// against when the try comes).
	svc.mu.Lock()
	next := time.Unix(0, svc.ready["p/pgx"].next.Load())
	svc.mu.Unlock()
	if next.Before(before.Add(40*time.Second)) || next.After(after.Add(40*time.Second)) {
		t.Fatalf("the first try at %v, not 40 s after the load (between %v and %v)", next, before, after)
	}
	hint := func(path string) string {
		t.Helper()
		_, err := svc.Execute(context.Background(), executeIn{Path: path, SQL: "SELECT 1"})
		var down *modelDownError
		if !errors.As(err, &down) {
			t.Fatalf("%s: want the model down, got %v", path, err)
		}
		te := classify(err)
		if te.Kind != "unavailable" {
			t.Errorf("%s: kind %s", path, te.Kind)
		}
		return te.Hint
	}
	asked := time.Now()
	h := hint("p/pgx/m1")
	told := time.Now()
	// The seconds the hint may say: from the try's time as the call was
	// answered, to it as the call came.
	ok := false
	for s := next.Sub(told).Round(time.Second); s <= next.Sub(asked).Round(time.Second); s += time.Second {
		ok = ok || strings.HasPrefix(h, fmt.Sprintf("The server tries to open the model again in the background, next in about %d s (then at growing intervals up to 10 minutes, and at once when its package's files or connection string change): call again after that.", s/time.Second))
	}
	if !ok {
		t.Errorf("pgx: hint %q, the try %v after the call", h, next.Sub(asked))
	}
	if strings.Contains(h, "will not help") {
		t.Errorf("pgx: hint says calling again will not help: %q", h)
	}
	const old = "Calling again will not help until the model loads"
	if h := hint("p/bad/m"); !strings.HasPrefix(h, old) {
		t.Errorf("DuckDB: hint %q", h)
	}

	// The try under way (the first delay shortened to make it come).
	svc.mu.Lock()
	st := svc.ready["p/pgx"]
	st.timer.Reset(0)
	st.next.Store(time.Now().UnixNano())
	svc.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for tries.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no retry")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if h := hint("p/pgx/m2"); !strings.HasPrefix(h, "The server is trying to open the model again now") {
		t.Errorf("pgx under way: hint %q", h)
	}

	// A connection variable manifests may not read (-dsn-env): no retry, the
	// old hint.
	var c countingOpen
	other := newTestService(t, dir, Config{open: c.open, retryFirst: 20 * time.Millisecond, DSNEnv: []string{"CATALOG_OTHER_*"}})
	// No try is scheduled (a retry comes only from its timer), so none comes.
	other.mu.Lock()
	st = other.ready["p/pgx"]
	scheduled, at := st.timer != nil, st.next.Load()
	other.mu.Unlock()
	if scheduled || at != 0 {
		t.Errorf("a package whose variable may not be read: a try is scheduled (at %v)", time.Unix(0, at))
	}
	if n := c.count("pgx"); n != 3 {
		t.Errorf("a package whose variable may not be read: %d opens of its 3 models", n)
	}
	_, err := other.Execute(context.Background(), executeIn{Path: "p/pgx/m1", SQL: "SELECT 1"})
	if err == nil || !strings.Contains(err.Error(), "does not let a manifest read") || !strings.HasPrefix(classify(err).Hint, old) {
		t.Errorf("pgx, variable not allowed: %v", err)
	}

	// An empty connection variable: no retry, the old hint.
	t.Setenv("CATALOG_TEST_PGX_DSN", "")
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m1", SQL: "SELECT 1"})
		if err != nil && strings.Contains(err.Error(), "is empty") {
			if h := classify(err).Hint; !strings.HasPrefix(h, old) {
				t.Errorf("pgx, empty variable: hint %q", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgx after its variable emptied: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
