package streamable

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/sse"
)

func autoCall(t *testing.T, url string) *AutoClient {
	t.Helper()
	a, err := NewAutoClient(url, &ClientOptions{DisableGETStream: true})
	if err != nil {
		t.Fatal(err)
	}
	c := jsonrpc.NewConn(a, nil)
	defer c.Close()
	var out json.RawMessage
	if err := c.Call(t.Context(), "initialize", json.RawMessage(`{"protocolVersion":"2024-11-05"}`), &out); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Call(t.Context(), "echo", json.RawMessage(`{"k":"v"}`), &out); err != nil || string(out) != `{"k":"v"}` {
		t.Fatalf("echo: %s %v", out, err)
	}
	return a
}

func TestAutoClientStreamable(t *testing.T) {
	s := newTestServer(t, nil)
	if a := autoCall(t, s.url); a.Legacy() {
		t.Fatal("fell back against a Streamable HTTP server")
	}
}

func TestAutoClientFallsBackToSSE(t *testing.T) {
	leaktest.Check(t)
	var mu sync.Mutex
	var conns []*jsonrpc.Conn
	h := sse.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Context: ctx, Handler: jsonrpc.HandlerFunc(
			func(ctx context.Context, req *jsonrpc.Request) (any, error) { return req.Params, nil })}))
		return nil
	}, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer srv.CloseClientConnections()
	defer h.Shutdown(context.Background())
	if a := autoCall(t, srv.URL+"/mcp"); !a.Legacy() {
		t.Fatal("did not fall back to HTTP+SSE")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range conns {
		waitFor(t, c.Done(), "the legacy connection to end")
	}
}
