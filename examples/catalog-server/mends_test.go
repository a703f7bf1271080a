package main

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestClientNetworkOnce: the IPv6 /48 of a client is worked out once, when
// the client is first known (withClient), and carried in the context: its
// turns (turnOf) and its shares (clientShares.take) read it there, not from
// the id again.
func TestClientNetworkOnce(t *testing.T) {
	ctx := withClient(context.Background(), "2001:db8:7:1::/64")
	if c, _ := clientIn(ctx); c.network != "net 2001:db8:7::/48" {
		t.Fatalf("withClient carried the network %q", c.network)
	}
	// A network the id does not give: only what the context carries is read.
	ctx = context.WithValue(context.Background(), clientKey{}, callClient{id: "192.0.2.1", network: "net made-up"})
	if id, group := turnOf(ctx); id != "192.0.2.1" || group != "net made-up" {
		t.Errorf("turnOf = %q, %q", id, group)
	}
	m := &catalog.Model{Name: "m", Package: &catalog.Package{Name: "k", Engine: catalog.EngineDuckDB, Project: &catalog.Project{Name: "p"}}}
	c := newClientShares(4)
	release, err := c.take(ctx, m, modelPath(m))
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	n := c.n["net made-up"]
	c.mu.Unlock()
	release()
	if n != 1 {
		t.Errorf("the network's counter is %d while its query runs; want 1", n)
	}
	if _, ok := clientIn(context.Background()); ok {
		t.Error("a context without a client has one")
	}
}

// TestDelayDefaults: the service's delays are Config's, each its constant
// unless a test sets it (one pattern: Config.fill).
func TestDelayDefaults(t *testing.T) {
	var c Config
	c.fill()
	if c.retryFirst != pgRetryFirst || c.restartLimit != loadRestartLimit || c.rebuildFirst != goneRetryFirst {
		t.Errorf("defaults: retryFirst %s, restartLimit %s, rebuildFirst %s", c.retryFirst, c.restartLimit, c.rebuildFirst)
	}
	c = Config{retryFirst: time.Millisecond, restartLimit: 2 * time.Millisecond, rebuildFirst: 3 * time.Millisecond}
	c.fill()
	if c.retryFirst != time.Millisecond || c.restartLimit != 2*time.Millisecond || c.rebuildFirst != 3*time.Millisecond {
		t.Errorf("set by a test: retryFirst %s, restartLimit %s, rebuildFirst %s", c.retryFirst, c.restartLimit, c.rebuildFirst)
	}
}

// TestPackageDSN: one reading of a package's dsnEnv variable says why it
// cannot be used (the messages open gives a model) or returns its value.
func TestPackageDSN(t *testing.T) {
	t.Setenv("CATALOG_MEND_OK", "postgres://reader@127.0.0.1:1/hr")
	t.Setenv("CATALOG_MEND_BAD", "host=x password='unterminated")
	t.Setenv("CATALOG_MEND_EMPTY", "")
	os.Unsetenv("CATALOG_MEND_UNSET")
	t.Setenv("OTHER_MEND", "postgres://reader@127.0.0.1:1/hr")
	s := &Service{}
	s.cfg.fill()
	for _, tc := range []struct{ env, want string }{
		{"CATALOG_MEND_OK", ""},
		{"OTHER_MEND", "dsnEnv names the environment variable OTHER_MEND, which this server does not let a manifest read (it lets manifests read CATALOG_*)"},
		{"CATALOG_MEND_BAD", "the environment variable CATALOG_MEND_BAD (dsnEnv in the manifest) does not hold a PostgreSQL connection string"},
		{"CATALOG_MEND_EMPTY", "the environment variable CATALOG_MEND_EMPTY (dsnEnv in the manifest) is empty: set it"},
		{"CATALOG_MEND_UNSET", "the environment variable CATALOG_MEND_UNSET (dsnEnv in the manifest) is not set in the server's environment: set it"},
	} {
		dsn, err := s.packageDSN(&catalog.Package{Engine: catalog.EnginePostgres, DSNEnv: tc.env})
		switch {
		case tc.want == "" && (err != nil || dsn != os.Getenv(tc.env)):
			t.Errorf("%s: %q, %v", tc.env, dsn, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || dsn != ""):
			t.Errorf("%s: %q, %v; want the error %q", tc.env, dsn, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "unterminated") {
			t.Errorf("%s: the error quotes the value: %v", tc.env, err)
		}
	}
}

// heldEngine is an engine whose Close waits for release (queries still
// running on it), and which records Discard.
type heldEngine struct {
	modelEngine
	release   chan struct{}
	discarded atomic.Bool
}

func (e *heldEngine) Close() error { <-e.release; return nil }
func (e *heldEngine) Discard()     { e.discarded.Store(true) }

// TestDiscardSuperseded: the engines of a load superseded by an edit close in
// the background as a retired version's do (closeEngines), so that a server
// stopping without waiting for them (Discard) removes their files too; one
// kept from the version served is not closed.
func TestDiscardSuperseded(t *testing.T) {
	s := &Service{}
	held := &heldEngine{release: make(chan struct{})}
	kept := &heldEngine{release: make(chan struct{})}
	s.discard(&pkgState{engines: map[string]modelEngine{"a": held, "b": kept}}, map[string]modelEngine{"b": kept}, true)
	s.Discard()
	if !held.discarded.Load() {
		t.Error("Discard left the files of a superseded load's engine still closing")
	}
	if kept.discarded.Load() {
		t.Error("Discard took an engine the version served keeps")
	}
	close(held.release)
	s.old.Wait()
	if _, ok := s.closing.Load(held); ok {
		t.Error("an engine closed is still listed as closing")
	}
}
