package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/benchdata"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

var (
	samplesOnce sync.Once
	samplesDir  string
	samplesErr  error
)

// sampleDir returns a folder holding the built-in sample catalog, written once per
// test binary.
func sampleDir(t testing.TB) string {
	t.Helper()
	samplesOnce.Do(func() {
		samplesDir, samplesErr = os.MkdirTemp("", "catalog-test-samples-*")
		if samplesErr == nil {
			samplesErr = writeSamples(context.Background(), samplesDir)
		}
	})
	if samplesErr != nil {
		t.Fatal(samplesErr)
	}
	return samplesDir
}

func TestMain(m *testing.M) {
	flag.Parse()
	// The benchmarks compare with duckdb-go in this process: the same
	// allocator settings as the query processes.
	if code, ran := benchdata.WithMalloc(engine.WorkerMalloc(0)); ran {
		os.Exit(code)
	}
	code := m.Run()
	if samplesDir != "" {
		os.RemoveAll(samplesDir)
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func newTestService(t testing.TB, dir string, cfg Config) *Service {
	t.Helper()
	svc, err := NewService(context.Background(), dir, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// watch makes svc follow changes to its catalog directory (polling every 10 ms)
// until the test ends.
func watch(t testing.TB, svc *Service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Watch(ctx, 10*time.Millisecond) }()
	t.Cleanup(func() { cancel(); <-done })
}

// startHTTP serves svc over stateless Streamable HTTP on a loopback test server.
func startHTTP(t testing.TB, svc *Service) *httptest.Server {
	t.Helper()
	h := newHTTPHandler(context.Background(), svc, "test")
	ts := httptest.NewServer(identifyClients(h, svc.cfg.ClientHeader))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	return ts
}

// connectHTTP connects our client to url; version "" lets the client negotiate.
func connectHTTP(t testing.TB, url, version string) *mcp.ClientSession {
	t.Helper()
	tr, err := streamable.NewClient(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(mcp.Implementation{Name: "catalog-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured content into out (when not nil).
func call(t testing.TB, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("%s %s: %v", name, raw, err)
	}
	if out != nil {
		sc, _ := res.StructuredContent.(json.RawMessage)
		if err := json.Unmarshal(sc, out); err != nil {
			t.Fatalf("%s %s: structured content %s: %v", name, raw, sc, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// followingSession connects a client with opts, over the memory transport, to an
// MCP server over svc that follows its reloads, as a stdio session does. The
// session ends with the test.
func followingSession(t *testing.T, svc *Service, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	srv := newMCPServer(svc, "test", false)
	followReloads(srv, svc)
	st, ct := memory.NewPair()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(mcp.Implementation{Name: "catalog-test", Version: "1"}, opts).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// pgModelService serves a catalog of one PostgreSQL package p/pg (reached
// through CATALOG_TEST_PG_DSN; the test is skipped without it) whose one
// model, m, is modelSQL.
func pgModelService(t *testing.T, modelSQL string) *Service {
	t.Helper()
	pgTestDSN(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/pg/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"p/pg/m.sql":         modelSQL,
	})
	return newTestService(t, dir, Config{})
}

// serverMode is a way the server runs DuckDB queries, for tests that run in
// both (bothModes).
type serverMode struct {
	name string
	cfg  Config
}

// bothModes is the server with queries in its own process (-isolate=false)
// and in query processes of the built server (-isolate, the default).
func bothModes(t *testing.T) []serverMode {
	return []serverMode{
		{"in process", Config{}},
		{"isolated", Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}}},
	}
}
