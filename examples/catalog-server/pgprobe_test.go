package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// silentServer listens on 127.0.0.1, accepts connections and never answers;
// it returns its address and the count of connections accepted.
func silentServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	addr, _, accepted, _ := switchedSilentServer(t)
	return addr, accepted
}

// switchedSilentServer is silentServer, but while refuse is true it closes
// each connection at once (a probe fails without waiting for its connect
// timeout: "the server closed the connection"); held counts the connections
// it holds open without an answer that began with a startup message (a
// connection attempt: not pgx's cancel request for a connection that failed).
func switchedSilentServer(t *testing.T) (addr string, refuse *atomic.Bool, accepted, held *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refuse, accepted, held = new(atomic.Bool), new(atomic.Int64), new(atomic.Int64)
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup // the readers of held connections
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			if refuse.Load() {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
			wg.Go(func() {
				// A startup message: its length, then protocol 3.x.
				var head [8]byte
				if _, err := io.ReadFull(c, head[:]); err == nil && binary.BigEndian.Uint16(head[4:6]) == 3 {
					held.Add(1)
				}
			})
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), refuse, accepted, held
}

// pgModels writes a PostgreSQL package of n models reading dsnEnv.
func pgModels(files map[string]string, pkg, env string, n int) {
	files["p/"+pkg+"/manifest.json"] = `{"engine": "postgres", "dsnEnv": "` + env + `"}`
	for i := range n {
		files[fmt.Sprintf("p/%s/m%02d.sql", pkg, i)] = "-- @source s\nSELECT 1 AS x\n"
	}
}

// TestPGSilentServerOneTimeout: a PostgreSQL package of 12 models whose server
// accepts the connection and never answers fails all its models after one
// connect timeout (it took 3 rounds of 10 s: 4 models opened at a time, each
// waiting its own 10 s), with one connection tried.
func TestPGSilentServerOneTimeout(t *testing.T) {
	addr, accepted := silentServer(t)
	t.Setenv("CATALOG_TEST_SILENT", "postgres://alice:secret@"+addr+"/hrdb?sslmode=disable")
	dir := t.TempDir()
	files := map[string]string{}
	pgModels(files, "down", "CATALOG_TEST_SILENT", 12)
	writeFiles(t, dir, files)
	start := time.Now()
	svc := newTestService(t, dir, Config{PG: engine.PGConfig{ConnectTimeout: 300 * time.Millisecond}, retryFirst: time.Hour})
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("12 models of a silent server took %v to fail (want about one connect timeout, 300 ms)", took)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections to the silent server, want 1 (one probe for the package)", n)
	}
	const want = "could not connect to the PostgreSQL server named by CATALOG_TEST_SILENT: did not answer within 0.3 s"
	for i := range 12 {
		path := fmt.Sprintf("p/down/m%02d", i)
		_, err := svc.Execute(context.Background(), executeIn{Path: path, SQL: "SELECT 1"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// TestPGConnectErrorHidesDSN: a PostgreSQL connection error tells clients the
// cause and the variable, not the connection string's user, database, host
// or port (pgx's message was "failed to connect to `user=alice
// database=hrdb`: 127.0.0.1:54406 (127.0.0.1): dial error: … connection
// refused"); the server's log keeps the details.
func TestPGConnectErrorHidesDSN(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port nobody listens on: connection refused
	_, port, _ := net.SplitHostPort(addr)
	t.Setenv("CATALOG_G1", "postgres://alice:secret@"+addr+"/hrdb?sslmode=disable")
	dir := t.TempDir()
	files := map[string]string{}
	pgModels(files, "g1", "CATALOG_G1", 2)
	writeFiles(t, dir, files)
	var logs strings.Builder
	var logMu sync.Mutex
	svc, err := NewService(context.Background(), dir, Config{retryFirst: time.Hour}, slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	leaks := func(where, s string) {
		t.Helper()
		for _, bad := range []string{"alice", "hrdb", "127.0.0.1", port, "secret", "user=", "database="} {
			if strings.Contains(s, bad) {
				t.Errorf("%s shows %q: %s", where, bad, s)
			}
		}
	}
	const want = "could not connect to the PostgreSQL server named by CATALOG_G1: connection refused"
	_, err = svc.Execute(context.Background(), executeIn{Path: "p/g1/m00", SQL: "SELECT 1"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("execute_query: %v, want %q", err, want)
	}
	te := classify(err)
	raw, _ := json.Marshal(te)
	leaks("execute_query", string(raw))
	for _, path := range []string{"p/g1/m00", "p/g1", "p"} {
		d, err := svc.Describe(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(d)
		leaks("describe "+path, string(raw))
		if path == "p/g1/m00" && !strings.Contains(string(raw), "connection refused") {
			t.Errorf("describe %s does not say why: %s", path, raw)
		}
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "alice") || !strings.Contains(logs.String(), port) {
		t.Errorf("the server's log lacks the details: %s", logs.String())
	}
}

// TestPGProbeError: the probe's error says the cause and the variable; its
// details, for the log, keep pgx's message; a call meeting it is unavailable.
func TestPGProbeError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	var ce *engine.ConnectError
	err = engine.ProbePostgres(context.Background(), "postgres://alice@"+addr+"/hrdb?sslmode=disable", "CATALOG_G2", time.Second)
	if !errors.As(err, &ce) {
		t.Fatalf("probe: %v", err)
	}
	if got, want := ce.Error(), "could not connect to the PostgreSQL server named by CATALOG_G2: connection refused"; got != want {
		t.Errorf("probe: %q, want %q", got, want)
	}
	if !strings.Contains(ce.Err.Error(), port) {
		t.Errorf("the details lack the port: %v", ce.Err)
	}
	te := classify(fmt.Errorf("wrapped: %w", ce))
	if te.Kind != "unavailable" || strings.Contains(te.Error+te.Hint, "alice") {
		t.Errorf("classify: %+v", te)
	}
}

// TestPGRetriesLeaveLoadSlots: background retries of PostgreSQL packages
// whose server does not answer hold one load slot at most, so that an edit
// of an unrelated DuckDB package is served at once (four such packages'
// retries held all four slots, and the edit waited for them).
//
// The first load's probes are closed at once by the server (refuse), so the packages
// are down without waiting for a connect timeout; the retries' probes meet a
// server that does not answer, and their connect timeout (a minute) outlasts
// the test: a retry holds its place until the end. So no bound depends on how
// fast this machine loads the DuckDB package: the edit is served while a retry
// is held (before any connect timeout), or, behind the retries, not within
// half a minute.
func TestPGRetriesLeaveLoadSlots(t *testing.T) {
	addr, refuse, _, held := switchedSilentServer(t)
	refuse.Store(true)
	t.Setenv("CATALOG_TEST_SILENT", "postgres://u@"+addr+"/db?sslmode=disable")
	dir := t.TempDir()
	files := map[string]string{
		"p/duck/manifest.json": "{}",
		"p/duck/m.sql":         "-- @source s\nSELECT 1 AS x;\n",
	}
	for i := range 4 {
		pgModels(files, fmt.Sprintf("down%d", i), "CATALOG_TEST_SILENT", 12)
	}
	writeFiles(t, dir, files)
	const timeout = time.Minute
	svc := newTestService(t, dir, Config{PG: engine.PGConfig{ConnectTimeout: timeout}, retryFirst: 10 * time.Millisecond})
	refuse.Store(false)
	// The retries (10 ms after the loads, then at growing intervals while
	// the server still closed their connections) are under way once one holds
	// a connection the server does not answer, and each of the four packages
	// has its retry asking for a slot.
	waitRetries(t, svc, held)
	// Retries that did not wait for each other would take all four slots (a
	// connection each) within moments: this pause gives them the time to.
	time.Sleep(200 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/duck/m.sql": "-- @source s\nSELECT 2 AS y;\n"})
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout/2)
	defer cancel()
	if err := svc.Reload(ctx); err != nil {
		t.Fatalf("the DuckDB package's edit was not served within %v, behind the retries: %v", timeout/2, err)
	}
	t.Logf("the edit was served after %v", time.Since(start))
	if n, opening := held.Load(), retriesOpening(svc); n != 1 || opening != 1 {
		t.Errorf("%d connections held, %d retries holding a slot; want 1 and 1 (one retry at a time)", n, opening)
	}
	res, err := svc.Execute(context.Background(), executeIn{Path: "p/duck/m/s"})
	if err != nil || len(res.Columns) != 1 || res.Columns[0].Name != "y" {
		t.Errorf("the edit is not served: %v %+v", err, res)
	}
}

// retryLoads counts the loads under way of svc's packages p/down*, and those
// of them holding a load slot (opening models).
func retryLoads(svc *Service) (loads, opening int) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	for key, l := range svc.loading {
		if strings.HasPrefix(key, "p/down") {
			loads++
			if l.opening.Load() {
				opening++
			}
		}
	}
	return loads, opening
}

func retriesOpening(svc *Service) int {
	_, opening := retryLoads(svc)
	return opening
}

// waitRetries waits (20 s at most) until the four p/down* packages of svc
// have each a retry under way and the silent server holds a connection
// (held: the first of them probing it).
func waitRetries(t *testing.T, svc *Service, held *atomic.Int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		loads, _ := retryLoads(svc)
		if held.Load() >= 1 && loads == 4 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no retries: %d connections held, %d retries under way", held.Load(), loads)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPGProbeNoDatabase: PostgreSQL's refusal of a database that does not
// exist is told by its code, not by its message, which names the database
// (CATALOG_TEST_PG_DSN).
func TestPGProbeNoDatabase(t *testing.T) {
	dsn := os.Getenv("CATALOG_TEST_PG_DSN")
	if dsn == "" {
		t.Skip("CATALOG_TEST_PG_DSN not set")
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/nosuchdb_hrdb", RawQuery: "sslmode=disable"}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	var ce *engine.ConnectError
	if err := engine.ProbePostgres(context.Background(), u.String(), "CATALOG_G3", 5*time.Second); !errors.As(err, &ce) {
		t.Fatalf("probe: %v", err)
	}
	if got, want := ce.Error(), "could not connect to the PostgreSQL server named by CATALOG_G3: the database does not exist"; got != want {
		t.Errorf("probe: %q, want %q", got, want)
	}
	if !strings.Contains(ce.Err.Error(), "nosuchdb_hrdb") {
		t.Errorf("the details lack the database: %v", ce.Err)
	}
	if err := engine.ProbePostgres(context.Background(), dsn, "CATALOG_TEST_PG_DSN", 5*time.Second); err != nil {
		t.Errorf("probe of the test server: %v", err)
	}
}
