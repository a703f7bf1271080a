package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
)

// TestClientOverSSE: the same Transport authorizes the legacy HTTP+SSE transport
// (its GET stream and its POSTs) with one authorization.
func TestClientOverSSE(t *testing.T) {
	leaktest.Check(t)
	as := newFakeAS(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "sse", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ok"), nil
		})
	h := sse.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, tr)
		return err
	}, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	prm := MountProtectedResourceMetadata(mux, &ProtectedResourceMetadata{Resource: ts.URL + "/sse", AuthorizationServers: []string{as.issuer}})
	mux.Handle("/sse", RequireBearer(h, &ResourceServerOptions{Verifier: as, ResourceMetadataURL: prm}))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newClient(t, nil)
	tr, err := sse.NewClient(ctx, ts.URL+"/sse", &sse.ClientOptions{HTTPClient: c})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2024-11-05"}).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.authReqs) != 1 {
		t.Fatalf("%d authorizations, want 1", len(as.authReqs))
	}
}
