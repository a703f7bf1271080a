package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestPGEditOfDownPackageLeavesLoadSlots: an edit of PostgreSQL packages
// whose server was found down is served at once, their models answering the
// connection error with the time of their next try, and tried in the
// background in the one place of retries; so an edit of a DuckDB package at
// the same time is served at once. (Before, each edited package held one of
// the 4 load places for a connect timeout: four of them held all four, and
// the DuckDB package's edit waited that long.)
//
// The first load's probes are closed at once by the server (refuse), so the packages
// are found down without waiting for a connect timeout; the later probes meet
// a server that does not answer, and their connect timeout (a minute)
// outlasts the test. So no bound depends on how fast this machine loads the
// DuckDB package: the edits are served while the first background try is held
// (before any connect timeout), or, behind connect timeouts, not within half a
// minute.
func TestPGEditOfDownPackageLeavesLoadSlots(t *testing.T) {
	addr, refuse, _, held := switchedSilentServer(t)
	refuse.Store(true)
	t.Setenv("CATALOG_TEST_SILENT", "postgres://u@"+addr+"/db?sslmode=disable")
	dir := t.TempDir()
	files := map[string]string{
		"p/duck/manifest.json": "{}",
		"p/duck/m.sql":         "-- @source s\nSELECT 1 AS x;\n",
	}
	for i := range 4 {
		pgModels(files, fmt.Sprintf("down%d", i), "CATALOG_TEST_SILENT", 2)
	}
	writeFiles(t, dir, files)
	const timeout = time.Minute
	svc := newTestService(t, dir, Config{PG: engine.PGConfig{ConnectTimeout: timeout}, retryFirst: time.Hour})
	refuse.Store(false)
	edit := map[string]string{"p/duck/m.sql": "-- @source s\nSELECT 2 AS y;\n"}
	for i := range 4 {
		edit[fmt.Sprintf("p/down%d/new.sql", i)] = "-- @source s\nSELECT 3 AS z\n"
	}
	writeFiles(t, dir, edit)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout/2)
	defer cancel()
	if err := svc.Reload(ctx); err != nil {
		t.Fatalf("the edits were not served within %v, behind connect timeouts: %v", timeout/2, err)
	}
	t.Logf("the edits were served after %v", time.Since(start))
	res, err := svc.Execute(context.Background(), executeIn{Path: "p/duck/m/s"})
	if err != nil || len(res.Columns) != 1 || res.Columns[0].Name != "y" {
		t.Errorf("the DuckDB package's edit is not served: %v %+v", err, res)
	}
	for i := range 4 {
		_, err := svc.Execute(context.Background(), executeIn{Path: fmt.Sprintf("p/down%d/new", i), SQL: "SELECT 1"})
		te := classify(err)
		if err == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, "could not connect to the PostgreSQL server named by CATALOG_TEST_SILENT: the server closed the connection") ||
			!strings.Contains(te.Hint, "again") {
			t.Errorf("down%d/new, the edited package's new model: %+v", i, te)
		}
	}
	// The background tries come one at a time: each package has its try
	// under way, and one of them holds a slot and a connection.
	waitRetries(t, svc, held)
	// Tries that did not wait for each other would each hold a slot (a
	// connection each) within moments: this pause gives them the time to.
	time.Sleep(200 * time.Millisecond)
	if n, opening := held.Load(), retriesOpening(svc); n != 1 || opening != 1 {
		t.Errorf("%d connections held, %d tries holding a slot after the edit; want 1 and 1 (one try at a time in the place of retries)", n, opening)
	}
}

// switchProxy listens on 127.0.0.1 and, while up is false, accepts
// connections and never answers them; while up is true, it forwards them to
// target.
func switchProxy(t *testing.T, target string) (string, *atomic.Bool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var up atomic.Bool
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	keep := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			keep(c)
			if !up.Load() {
				continue // held open, never answered
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			keep(s)
			wg.Go(func() { io.Copy(s, c); s.Close() })
			wg.Go(func() { io.Copy(c, s); c.Close() })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), &up
}

// TestPGEditOfDownPackageComesUp: a PostgreSQL package edited while its
// server is down (CATALOG_TEST_PG_DSN behind a proxy that does not answer) is
// served at once with its models unavailable, and opens when the server
// answers again.
func TestPGEditOfDownPackageComesUp(t *testing.T) {
	dsn := pgTestDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addr, up := switchProxy(t, u.Host)
	u.Host = addr
	t.Setenv("CATALOG_TEST_BACK", u.String())
	dir := t.TempDir()
	files := map[string]string{}
	pgModels(files, "back", "CATALOG_TEST_BACK", 2)
	writeFiles(t, dir, files)
	svc := newTestService(t, dir, Config{PG: engine.PGConfig{ConnectTimeout: 500 * time.Millisecond}, retryFirst: 200 * time.Millisecond})
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/back/m00", SQL: "SELECT 1"}); classify(err).Kind != "unavailable" {
		t.Fatalf("the server is down, yet: %v", err)
	}
	writeFiles(t, dir, map[string]string{"p/back/new.sql": "-- @source s\nSELECT 3 AS z\n"})
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("the edit was served after %v", took)
	}
	if _, err := svc.Execute(context.Background(), executeIn{Path: "p/back/new", SQL: "SELECT 1"}); classify(err).Kind != "unavailable" {
		t.Errorf("the edited package's new model, its server down: %v", err)
	}
	up.Store(true)
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := svc.Execute(context.Background(), executeIn{Path: "p/back/new/s"})
		if err == nil && len(res.Columns) == 1 && res.Columns[0].Name == "z" {
			break
		}
		var te toolError
		if err != nil {
			te = classify(err)
		}
		if time.Now().After(deadline) || err != nil && te.Kind != "unavailable" && !errors.Is(err, context.Canceled) {
			t.Fatalf("the edited package did not come up with its server: %v %+v", err, res)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
