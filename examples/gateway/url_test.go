package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestURLUpstreams forwards to upstreams at URLs: one speaking Streamable HTTP, one
// only the legacy HTTP+SSE transport (the gateway falls back). Headers come from the
// configuration, with ${NAME} from the environment; the client's own Authorization
// never reaches the upstream.
func TestURLUpstreams(t *testing.T) {
	t.Setenv("GW_TEST_UPSTREAM_TOKEN", "from-config")
	up := newTestUpstream()
	connect := func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := up.Connect(ctx, tr)
		return err
	}
	var seen []string
	auth := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := r.Header.Get("Authorization"); a != "Bearer from-config" {
				seen = append(seen, a)
				http.Error(w, "bad token", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	stream := streamable.NewHandler(connect, nil)
	legacy := sse.NewHandler(connect, nil)
	streamSrv := httptest.NewServer(auth(stream))
	legacySrv := httptest.NewServer(auth(legacy))
	t.Cleanup(func() {
		stream.Shutdown(context.Background())
		legacy.Shutdown(context.Background())
		streamSrv.Close()
		legacySrv.Close()
	})
	tg := startGateway(t, `{"servers": {
	  "stream": {"mcp": {"url": "`+streamSrv.URL+`", "headers": {"Authorization": "Bearer ${GW_TEST_UPSTREAM_TOKEN}"}}},
	  "legacy": {"mcp": {"url": "`+legacySrv.URL+`", "headers": {"Authorization": "Bearer ${GW_TEST_UPSTREAM_TOKEN}"}}}}}`)
	for _, name := range []string{"stream", "legacy"} {
		t.Run(name, func(t *testing.T) {
			// The client sends credentials of its own; they must not travel on.
			tr, err := streamable.NewClient(tg.srv.URL+"/mcp/"+name, &streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer client-secret"}}})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125,
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo"}}, nil
				}}).Connect(testCtx(t), tr)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if text, _ := callText(t, cs, "echo", map[string]any{"message": "via " + name}); text != "via "+name {
				t.Errorf("echo = %q", text)
			}
			if text, _ := callText(t, cs, "ask", nil); text != "accept Bo" {
				t.Errorf("ask = %q (per-client upstream session with the client's elicitation)", text)
			}
		})
	}
	if len(seen) > 0 {
		t.Errorf("upstreams saw other credentials: %q", seen)
	}
	if body := record(tg.g, "/mcp/meta/stream"); strings.Contains(body, "from-config") {
		t.Error("the meta page shows the upstream token")
	}
}

// TestModernClient talks 2026-07-28 (no initialize, input_required rounds) to an
// upstream the gateway reaches through initialize.
func TestModernClient(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	asked := 0
	cs := tg.connect(t, "/mcp/up", &mcp.ClientOptions{ProtocolVersion: "2026-07-28",
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Cy"}}, nil
		}})
	if v := cs.ProtocolVersion(); v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	if text, _ := callText(t, cs, "echo", map[string]any{"message": "modern"}); text != "modern" {
		t.Errorf("echo = %q", text)
	}
	if text, _ := callText(t, cs, "ask", nil); text != "accept Cy" || asked != 1 {
		t.Errorf("ask = %q after %d questions, want the answer of one input_required round", text, asked)
	}
}
