package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"sync/atomic"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestEditCancelsLongRetry: an edit of a PostgreSQL package cancels its
// background retry of the version before, however long that retry has run,
// and the edited version loads at once. Before, a retry running past
// loadRestartLimit was left to finish, and the edited version waited for it
// (here 20 s).
func TestEditCancelsLongRetry(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db")
	dir := pgPackage(t)
	var edited atomic.Bool
	var m2opens atomic.Int32
	retrying := make(chan struct{}, 1)
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		if m.Package.Name != "pgx" {
			return real(ctx, m)
		}
		if edited.Load() || m.Name != "m2" {
			return fakeEngine{}, nil
		}
		if m2opens.Add(1) == 1 {
			return nil, errors.New("postgres: the server is down")
		}
		select {
		case retrying <- struct{}{}:
		default:
		}
		select { // a retry waiting on a server that does not answer
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return nil, errors.New("postgres: the server did not answer")
		}
	}
	svc := newTestService(t, dir, Config{open: open, retryFirst: 20 * time.Millisecond, restartLimit: 50 * time.Millisecond})
	select {
	case <-retrying:
	case <-time.After(10 * time.Second):
		t.Fatal("no retry")
	}
	time.Sleep(200 * time.Millisecond) // the retry runs past the restart limit
	edited.Store(true)
	writeFiles(t, dir, map[string]string{"p/pgx/m2.sql": "-- @source s\nSELECT 2 AS x, 3 AS y\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.Reload(ctx); err != nil {
		t.Fatalf("the edited version waits for the retry of the one before: %v", err)
	}
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m2", SQL: "SELECT 1"}); err != nil {
		t.Errorf("m2 after the edit: %v", err)
	}
}

// TestServeDownTryFailureRetriedAfterFirstDelay: an edited PostgreSQL package
// whose server is down is served at once and tried at once (serveDown); when
// that try finds the server still down, the next is after the first delay of
// retries (30 s), not twice that. Before, it came after 60 s.
func TestServeDownTryFailureRetriedAfterFirstDelay(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db")
	dir := pgPackage(t)
	svc := newTestService(t, dir, Config{probe: true, retryFirst: 2 * time.Minute, PG: engine.PGConfig{ConnectTimeout: time.Second}})
	next := func() time.Duration {
		svc.mu.Lock()
		defer svc.mu.Unlock()
		st := svc.ready["p/pgx"]
		if st == nil || st.down == "" {
			t.Fatal("the server is not found down")
		}
		return time.Until(time.Unix(0, st.next.Load()))
	}
	if d := next(); d < 90*time.Second || d > 2*time.Minute {
		t.Fatalf("first retry in %s, want 2 min", d)
	}
	writeFiles(t, dir, map[string]string{"p/pgx/m2.sql": "-- @source s\nSELECT 2 AS x, 3 AS y\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for next() < time.Minute { // the try at once, under way
		if time.Now().After(deadline) {
			t.Fatal("the try of the edited version did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if d := next(); d > 2*time.Minute {
		t.Errorf("after the try of the edited version, the next in %s, want 2 min (retryFirst)", d)
	}
}
