package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// twoPackages writes packages p/a and p/b, each a model m with a named query one.
func twoPackages(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/a/manifest.json": "{}", "p/a/m.sql": "-- @source s\nSELECT 1 AS x;\n\n-- @query one\nSELECT x FROM s;\n",
		"p/b/manifest.json": "{}", "p/b/m.sql": "-- @source s\nSELECT 1 AS x;\n\n-- @query one\nSELECT x FROM s;\n",
	})
	return dir
}

// addQuery adds the named query two to the model m of package pkg.
func addQuery(t *testing.T, dir, pkg string) {
	t.Helper()
	time.Sleep(20 * time.Millisecond) // a later modification time than the load before
	writeFiles(t, dir, map[string]string{"p/" + pkg + "/m.sql": "-- @source s\nSELECT 1 AS x;\n\n-- @query one\nSELECT x FROM s;\n\n-- @query two\nSELECT x + 1 AS y FROM s;\n"})
}

// blockingOpen opens the models of package b only once release is closed
// when block is set, ignoring the load's context as a DuckDB check that
// computes cannot be interrupted; entered receives once such an open waits.
type blockingOpen struct {
	block   atomic.Bool
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlockingOpen(t *testing.T) *blockingOpen {
	b := &blockingOpen{entered: make(chan struct{}, 16), release: make(chan struct{})}
	t.Cleanup(b.done)
	return b
}

func (b *blockingOpen) done() { b.once.Do(func() { close(b.release) }) }

func (b *blockingOpen) open(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
	if m.Package.Name == "b" && b.block.Load() {
		b.entered <- struct{}{}
		<-b.release
	}
	return real(ctx, m)
}

func (b *blockingOpen) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-b.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("package b's load did not start")
	}
}

// TestSlowPackageDoesNotHoldOthers: while a package's load cannot end (a
// named query whose check computes for a minute), a change to another package
// is served at once, the slow package's previous version stays served, and
// its new version is swapped in when its load ends. Reloads opened the models
// one by one under one lock: package a's new query waited 71 s for b's check.
func TestSlowPackageDoesNotHoldOthers(t *testing.T) {
	dir := twoPackages(t)
	slow := newBlockingOpen(t)
	svc := newTestService(t, dir, Config{open: slow.open})
	t.Cleanup(slow.done) // before the service closes
	slow.block.Store(true)
	addQuery(t, dir, "b")
	if _, err := svc.reread(); err != nil { // as Watch does: without waiting
		t.Fatal(err)
	}
	slow.waitEntered(t)

	addQuery(t, dir, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := svc.Reload(ctx); err != nil {
		t.Fatalf("reloading package a while b loads: %v after %v", err, time.Since(start))
	}
	run := func(path string) error {
		_, err := svc.Execute(context.Background(), executeIn{Path: path})
		return err
	}
	if err := run("p/a/m/two"); err != nil {
		t.Errorf("a's new query: %v", err)
	}
	if err := run("p/b/m/one"); err != nil {
		t.Errorf("b's previous version, while its new one loads: %v", err)
	}
	var nf *catalog.NotFoundError
	if err := run("p/b/m/two"); !errors.As(err, &nf) {
		t.Errorf("b's new query before its load ended: want not found (the previous version served), got %v", err)
	}
	t.Logf("a reloaded in %v beside b's load", time.Since(start))

	slow.done()
	if err := svc.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	if err := run("p/b/m/two"); err != nil {
		t.Errorf("b's new query once its load ended: %v", err)
	}
}

// TestStartAndStopBesideSlowLoad: the server serves the packages that loaded
// after -start-wait, a package still loading answers so (kind unavailable),
// and a stop while it loads returns within -stop-wait. The server waited for
// every model before it served, and a SIGTERM during a load took as long as
// the load (77 s).
func TestStartAndStopBesideSlowLoad(t *testing.T) {
	dir := twoPackages(t)
	slow := newBlockingOpen(t)
	slow.block.Store(true)
	var out, logs syncBuffer
	const stopWait = 300 * time.Millisecond
	o := options{httpAddr: "127.0.0.1:0", dir: dir, poll: 50 * time.Millisecond, startWait: 200 * time.Millisecond, stopWait: stopWait, cfg: Config{open: slow.open}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, strings.NewReader(""), &out, slog.New(slog.NewTextHandler(&logs, nil))) }()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(out.String(), "MCP endpoint: "); ok {
			url = strings.TrimSpace(rest)
		} else if time.Now().After(deadline) {
			t.Fatalf("not serving while package b loads; log: %s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "p/b") || !strings.Contains(logs.String(), "serving before every package has loaded") {
		t.Errorf("the log does not say which packages were still loading: %s", logs.String())
	}
	cs := connectHTTP(t, url, "")
	var sc map[string]any
	// Package a loads beside b: served once its model has opened (within
	// -start-wait here, but a loaded machine may take longer).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := call(t, cs, "execute_query", map[string]any{"path": "p/a/m/one"}, nil)
		if !r.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("package a, beside b's load: %s", text(r))
		}
	}
	r := call(t, cs, "execute_query", map[string]any{"path": "p/b/m/one"}, &sc)
	if !r.IsError || sc["kind"] != "unavailable" || !strings.Contains(text(r), "p/b is still loading") {
		t.Errorf("package b, loading: want unavailable, still loading; got %s", text(r))
	}
	cs.Close()

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop within 5 s while a package loaded")
	}
	if took := time.Since(start); took > stopWait+2*time.Second {
		t.Errorf("stopping took %v, with -stop-wait %v", took, stopWait)
	}
}

// refusingPG listens on 127.0.0.1 and closes each connection at once (hold:
// keeps it open, answering nothing), like a PostgreSQL server that is down
// (or hangs); it counts the connections.
func refusingPG(t *testing.T, hold bool) (addr string, conns *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int64)
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			if !hold {
				c.Close()
				continue
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().String(), conns
}

// pgPackage writes package p/pgx of three PostgreSQL models and package p/a.
func pgPackage(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/a/manifest.json":   "{}",
		"p/a/m.sql":           "-- @source s\nSELECT 1 AS x;\n\n-- @query one\nSELECT x FROM s;\n",
		"p/pgx/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PGX_DSN"}`,
		"p/pgx/m1.sql":        "-- @source s\nSELECT 1 AS x\n",
		"p/pgx/m2.sql":        "-- @source s\nSELECT 1 AS x\n",
		"p/pgx/m3.sql":        "-- @source s\nSELECT 1 AS x\n",
	})
	return dir
}

// countingOpen counts the opens of each model, and the most at once.
type countingOpen struct {
	mu        sync.Mutex
	opens     map[string]int
	now, most int
}

func (c *countingOpen) open(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
	c.mu.Lock()
	if c.opens == nil {
		c.opens = map[string]int{}
	}
	c.opens[m.Package.Name+"/"+m.Name]++
	c.now++
	c.most = max(c.most, c.now)
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.now--; c.mu.Unlock() }()
	return real(ctx, m)
}

func (c *countingOpen) count(pkg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.opens {
		if strings.HasPrefix(k, pkg+"/") {
			n += v
		}
	}
	return n
}

// TestFailedPGModelsKeptAcrossReloads: PostgreSQL models that did not open are
// not tried again when another package changes (each try waited up to 10 s to
// connect, in series: every change to another package took 30 s to be
// served); they are when their own package, or its connection string,
// changes. A package's PostgreSQL models open at once, not one after the other.
func TestFailedPGModelsKeptAcrossReloads(t *testing.T) {
	addr, conns := refusingPG(t, true)
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=1")
	dir := pgPackage(t)
	var c countingOpen
	start := time.Now()
	svc := newTestService(t, dir, Config{open: c.open, retryFirst: time.Hour})
	t.Logf("started in %v", time.Since(start))
	if n := c.count("pgx"); n != 3 {
		t.Fatalf("pgx: %d opens at start, want 3", n)
	}
	if c.most < 3 {
		t.Errorf("at most %d models opened at once: the package's 3 PostgreSQL models opened one after the other", c.most)
	}
	var down *modelDownError
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m1", SQL: "SELECT 1"}); !errors.As(err, &down) {
		t.Fatalf("p/pgx/m1: want unavailable (did not open), got %v", err)
	}

	// Each open reached the server (accepted there, counted a little after).
	for deadline := time.Now().Add(10 * time.Second); conns.Load() < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections to the PostgreSQL server from the 3 opens", conns.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}

	addQuery(t, dir, "a")
	before := conns.Load()
	start = time.Now()
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Neither an open nor any other connection to the PostgreSQL server: each
	// would wait for its connect_timeout. (The time the reload took was
	// asserted before, under 900 ms, a proxy for these two counts that a
	// loaded machine failed without any connection: 1.36 s.)
	t.Logf("the change to package a was served in %v", time.Since(start))
	if n := c.count("pgx"); n != 3 {
		t.Errorf("pgx: %d opens after a change to package a, want still 3", n)
	}
	if n := conns.Load() - before; n != 0 {
		t.Errorf("%d connections to the PostgreSQL server while a change to package a loaded, want none", n)
	}
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/a/m/two"}); err != nil {
		t.Errorf("a's new query: %v", err)
	}
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m1", SQL: "SELECT 1"}); !errors.As(err, &down) {
		t.Errorf("p/pgx/m1 after a's change: want its failure kept, got %v", err)
	}

	time.Sleep(20 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/pgx/m1.sql": "-- @source s\nSELECT 2 AS x\n"})
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.count("pgx"); n != 6 {
		t.Errorf("pgx: %d opens after its own file changed, want 6", n)
	}
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@"+addr+"/other?sslmode=disable&connect_timeout=1")
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.count("pgx"); n != 9 {
		t.Errorf("pgx: %d opens after its connection string changed, want 9", n)
	}
}

// fakeEngine is a model that opened, answering every query with one row.
type fakeEngine struct{}

func (fakeEngine) Query(context.Context, string, map[string]any, engine.Limits) (*engine.Result, error) {
	return &engine.Result{Columns: []engine.Column{{Name: "x", Type: "INTEGER"}}, Rows: [][]any{{int32(1)}}}, nil
}
func (fakeEngine) Columns() map[string][]engine.Column { return nil }
func (fakeEngine) Broken() map[string]string           { return nil }
func (fakeEngine) Close() error                        { return nil }

// TestFailedPGModelsRetriedInBackground: a PostgreSQL model that did not open
// is tried again in the background, at growing intervals, the models of its
// package that opened kept; once it opens, it is served.
func TestFailedPGModelsRetriedInBackground(t *testing.T) {
	t.Setenv("CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db")
	dir := pgPackage(t)
	var up atomic.Bool
	var mu sync.Mutex
	opens := map[string]int{}
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		if m.Package.Name != "pgx" {
			return real(ctx, m)
		}
		mu.Lock()
		opens[m.Name]++
		mu.Unlock()
		if m.Name == "m1" || up.Load() {
			return fakeEngine{}, nil
		}
		return nil, errors.New("postgres: the server is down")
	}
	svc := newTestService(t, dir, Config{open: open, retryFirst: 50 * time.Millisecond})
	time.Sleep(1500 * time.Millisecond) // tries at 50, 150, 350, 750 ms (1550: after)
	mu.Lock()
	m1, m2 := opens["m1"], opens["m2"]
	mu.Unlock()
	if m1 != 1 {
		t.Errorf("m1, which opened, was opened %d times", m1)
	}
	if m2 < 2 || m2 > 7 {
		t.Errorf("m2 was tried %d times in 1.5 s (retries from 50 ms on, doubling): want 2 to 7", m2)
	}
	up.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m2", SQL: "SELECT 1"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("m2 once the server is up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if opens["m1"] != 1 {
		t.Errorf("m1 was opened %d times", opens["m1"])
	}
}

// TestNoRetryOfWhatCannotOpen: a PostgreSQL model whose manifest names a
// variable -dsn-env does not allow, or whose variable holds no connection
// string, is not tried again in the background: nothing but a change of the
// package (or the variable) could open it. Before, it was tried every 30 s to
// 10 minutes for as long as the server ran, each time taking a load's place.
func TestNoRetryOfWhatCannotOpen(t *testing.T) {
	for _, tc := range []struct {
		name, env, value string
		allow            []string
	}{
		{"not allowed", "CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db", []string{"OTHER_*"}},
		{"not a connection string", "CATALOG_TEST_PGX_DSN", "host=x password='unterminated", nil},
		// The control: a string that reads, to a server that is down, is tried again.
		{"down", "CATALOG_TEST_PGX_DSN", "postgres://u@127.0.0.1:1/db", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			dir := pgPackage(t)
			var opens atomic.Int32
			open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
				if m.Package.Name == "pgx" {
					opens.Add(1)
				}
				if m.Package.Name == "pgx" && tc.name == "down" {
					return nil, errors.New("postgres: the server is down")
				}
				return real(ctx, m)
			}
			svc := newTestService(t, dir, Config{open: open, retryFirst: 20 * time.Millisecond, DSNEnv: tc.allow})
			time.Sleep(500 * time.Millisecond) // retries at 20, 60, 140, 300 ms, if any
			n := opens.Load()
			if tc.name == "down" {
				if n <= 3 {
					t.Errorf("a model on a server that is down was not tried again: %d opens of 3 models", n)
				}
			} else if n != 3 {
				t.Errorf("%d opens of the 3 models, want 3 (no retries)", n)
			}
			if _, err := svc.Execute(context.Background(), executeIn{Path: "p/pgx/m1", SQL: "SELECT 1"}); err == nil {
				t.Error("the model answered")
			}
		})
	}
}
