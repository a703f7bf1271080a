package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// flipProxy forwards connections on a port of 127.0.0.1 to target while it
// is up; while it is down nothing listens on the port (connection refused),
// and the connections it forwarded are closed, as a server that stopped.
type flipProxy struct {
	addr, target string
	accepted     atomic.Int64
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
	wg           sync.WaitGroup
}

func newFlipProxy(t *testing.T, target string) *flipProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flipProxy{addr: ln.Addr().String(), target: target}
	ln.Close()
	t.Cleanup(func() { p.set(t, false); p.wg.Wait() })
	return p
}

func (p *flipProxy) set(t *testing.T, up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !up {
		if p.ln != nil {
			p.ln.Close()
			p.ln = nil
		}
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
		return
	}
	if p.ln != nil {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.ln = ln
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.accepted.Add(1)
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			p.wg.Go(func() { io.Copy(s, c); s.Close() })
			p.wg.Go(func() { io.Copy(c, s); c.Close() })
		}
	})
}

// proxiedPG points the variable env at CATALOG_TEST_PG_DSN's server through a
// flipProxy, up.
func proxiedPG(t *testing.T, env string) *flipProxy {
	t.Helper()
	u, err := url.Parse(pgTestDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newFlipProxy(t, u.Host)
	p.set(t, true)
	u.Host = p.addr
	t.Setenv(env, u.String())
	return p
}

// logLines counts the lines of the log that hold each of parts.
func logLines(mu *sync.Mutex, b *strings.Builder, parts ...string) int {
	mu.Lock()
	defer mu.Unlock()
	n := 0
	for line := range strings.Lines(b.String()) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}

// TestPGRetryTellsNewFailure: a background retry that reaches the server
// again and finds the model failing otherwise (a source reading a table that
// does not exist) serves that failure, logs it once, and tries no more (no
// retry creates the table). Before, a retry that opened nothing more kept the
// version served with its old failure: calls and describe said "could not
// connect … connection refused" with the server up, and retries went on for
// as long as the server ran.
func TestPGRetryTellsNewFailure(t *testing.T) {
	proxy := proxiedPG(t, "CATALOG_TEST_RT")
	dir := t.TempDir()
	model := func(src string) map[string]string {
		return map[string]string{"p/pg/m.sql": "-- @source t\n" + src + "\n\n-- @query q1\nSELECT * FROM t;\n"}
	}
	files := model("SELECT 1 AS x;")
	files["p/pg/manifest.json"] = `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_RT"}`
	writeFiles(t, dir, files)
	var logMu sync.Mutex
	var logs strings.Builder
	svc, err := NewService(context.Background(), dir, Config{retryFirst: 300 * time.Millisecond}, slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func() error {
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/pg/m/q1"})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	proxy.set(t, false)
	writeFiles(t, dir, model("SELECT 2 AS x;"))
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if err := call(); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("the server down: %v", err)
	}
	writeFiles(t, dir, model("SELECT * FROM nosuch_table;"))
	if err := svc.Reload(ctx); err != nil { // served at once (serveDown), tried at once
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // that try finds the server down
	proxy.set(t, true)
	const want = `relation "nosuch_table" does not exist`
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := call()
		if err != nil && strings.Contains(err.Error(), want) {
			if strings.Contains(err.Error(), "sources: )") {
				t.Errorf("an empty list of sources: %v", err)
			}
			if h := classify(err).Hint; strings.Contains(h, "again in the background") || strings.Contains(h, "trying to open the model again") {
				t.Errorf("a missing table is said to be tried again: %s", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server up, after the retries: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	d, err := svc.Describe(context.Background(), "p/pg/m")
	if err != nil || !strings.Contains(d.Error, want) {
		t.Errorf("describe: %v %+v", err, d)
	}
	n := proxy.accepted.Load()
	time.Sleep(2 * time.Second) // retries, were there any, at 0.6, 1.2, 2.4 s
	if m := proxy.accepted.Load(); m != n {
		t.Errorf("%d connections after the missing table was found: a retry cannot create it", m-n)
	}
	if n := logLines(&logMu, &logs, "model did not open", "nosuch_table"); n != 1 {
		t.Errorf("the missing table was logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestPGSteadyEditsAfterServerBack: a PostgreSQL package edited every 100 ms
// while its server comes back, whose load takes 300 ms, opens within
// loadRestartLimit and one load, and the edits log no "model did not open"
// line for a connection error nobody met again. Before, each edit cancelled
// the background try and served the old connection error again (logging it
// as new), for as long as the edits went on.
func TestPGSteadyEditsAfterServerBack(t *testing.T) {
	proxy := proxiedPG(t, "CATALOG_TEST_RT")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_RT"}`,
		"p/pg/m.sql":         "-- @source t\nSELECT 1 AS x;\n",
	})
	var delay atomic.Int64
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		select {
		case <-time.After(time.Duration(delay.Load())):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return real(ctx, m)
	}
	var logMu sync.Mutex
	var logs strings.Builder
	const limit, load, every = 400 * time.Millisecond, 300 * time.Millisecond, 100 * time.Millisecond
	cfg := Config{open: open, probe: true, restartLimit: limit, retryFirst: time.Hour, PG: engine.PGConfig{ConnectTimeout: time.Second}}
	svc, err := NewService(context.Background(), dir, cfg, slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	edit := func() {
		n++
		writeFiles(t, dir, map[string]string{"p/pg/m.sql": "-- @source t\nSELECT 1 AS x, '" + strings.Repeat("e", n) + "' AS e;\n"})
		if _, err := svc.reread(); err != nil {
			t.Fatal(err)
		}
	}
	call := func() error {
		_, err := svc.Execute(context.Background(), executeIn{Path: "p/pg/m/t"})
		return err
	}
	proxy.set(t, false)
	edit() // a load that finds the server down
	if err := svc.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	edit() // served at once, tried at once: down again
	if err := svc.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := call(); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("the server down: %v", err)
	}
	delay.Store(int64(load))
	proxy.set(t, true)
	logMu.Lock()
	logs.Reset()
	logMu.Unlock()
	start := time.Now()
	opened := time.Duration(0)
	for time.Since(start) < 4*time.Second {
		edit()
		if call() == nil {
			opened = time.Since(start)
			break
		}
		time.Sleep(every)
	}
	if opened == 0 {
		t.Fatalf("edits every %v, the server up, a load of %v: the model did not open within 4 s (restart limit %v): %v", every, load, limit, call())
	}
	t.Logf("opened after %v, at edit %d", opened, n)
	if opened > limit+2*load+time.Second {
		t.Errorf("the model opened after %v: want within the restart limit (%v) and a load (%v)", opened, limit, load)
	}
	if k := logLines(&logMu, &logs, "model did not open"); k != 0 {
		t.Errorf("%d lines of models that did not open, the server up:\n%s", k, logs.String())
	}
}
