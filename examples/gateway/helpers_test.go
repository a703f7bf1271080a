package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// exampleBuilds holds the example servers built for this test process (each once),
// in a folder TestMain removes.
var exampleBuilds struct {
	mu   sync.Mutex
	dir  string
	bins map[string]string
}

// buildExample builds examples/<name> (once per test process) and returns the binary.
func buildExample(t testing.TB, name string) string {
	t.Helper()
	exampleBuilds.mu.Lock()
	defer exampleBuilds.mu.Unlock()
	if bin := exampleBuilds.bins[name]; bin != "" {
		return bin
	}
	if exampleBuilds.dir == "" {
		dir, err := os.MkdirTemp("", "gateway-examples-")
		if err != nil {
			t.Fatal(err)
		}
		exampleBuilds.dir, exampleBuilds.bins = dir, map[string]string{}
	}
	bin := filepath.Join(exampleBuilds.dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, "../"+name).CombinedOutput(); err != nil {
		t.Fatalf("building examples/%s: %v\n%s", name, err, out)
	}
	exampleBuilds.bins[name] = bin
	return bin
}

func removeExampleBuilds() {
	exampleBuilds.mu.Lock()
	defer exampleBuilds.mu.Unlock()
	if exampleBuilds.dir != "" {
		os.RemoveAll(exampleBuilds.dir)
	}
}

// testGateway is a gateway served on 127.0.0.1 for one test.
type testGateway struct {
	g   *Gateway
	srv *httptest.Server
	dir string
}

// startGateway serves cfg (JSON, with $EXE replaced by the test upstream's command,
// $ECHO by examples/echo-server built for the test, and $DIR by a fresh directory
// holding root/data.txt and outside.txt).
func startGateway(t testing.TB, cfg string) *testGateway {
	t.Helper()
	return startGatewayOpts(t, cfg, &Options{CloseTimeout: 2 * time.Second})
}

// startGatewayOpts is startGateway with the gateway's options.
func startGatewayOpts(t testing.TB, cfg string, opts *Options) *testGateway {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "root"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "root", "data.txt"), []byte("file data"), 0o644)
	os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("secret"), 0o644)
	exe, _ := json.Marshal(upstreamCommand(t)[0])
	cfg = strings.ReplaceAll(cfg, `"$EXE"`, string(exe))
	if strings.Contains(cfg, `"$ECHO"`) {
		echo, _ := json.Marshal(buildExample(t, "echo-server"))
		cfg = strings.ReplaceAll(cfg, `"$ECHO"`, string(echo))
	}
	c, err := ParseConfig([]byte(cfg), dir)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	g, err := NewGateway(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		g.Close()
		srv.Close()
	})
	return &testGateway{g: g, srv: srv, dir: dir}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens a client session over Streamable HTTP to path.
func (tg *testGateway) connect(t *testing.T, path string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tr, err := streamable.NewClient(tg.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = mcp.Revision20251125
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(testCtx(t), tr)
	if err != nil {
		t.Fatalf("connect %s: %v", path, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectSSE opens a client session over the legacy HTTP+SSE transport.
func (tg *testGateway) connectSSE(t *testing.T, path string) *mcp.ClientSession {
	t.Helper()
	ctx := testCtx(t)
	tr, err := sse.NewClient(ctx, tg.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20241105}).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("connect %s: %v", path, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// callText calls a tool and returns its text and isError.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	return callTextCtx(t, testCtx(t), cs, name, args)
}

func callTextCtx(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	if args == nil {
		raw = []byte(`{}`)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// get does an HTTP GET with the given Accept and returns status, headers and body.
func (tg *testGateway) get(t *testing.T, path, accept string) (int, http.Header, string) {
	t.Helper()
	return httpGet(t, tg.srv.URL+path, accept)
}

// httpGet does an HTTP GET of url with the given Accept (none when empty) and
// returns status, headers and body.
func httpGet(t *testing.T, url, accept string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// record serves one browser GET of path through h and returns the body.
func record(h http.Handler, path string) string {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
	req.Header.Set("Accept", "text/html")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}
