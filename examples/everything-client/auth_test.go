package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// miniAS behaves like the suite's mock authorization server: it redirects at once
// and issues opaque tokens; it is also the resource server's Verifier.
type miniAS struct {
	url    string
	mu     sync.Mutex
	tokens map[string]string // token → scope
	n      int
}

func (a *miniAS) Verify(_ context.Context, tok string) (*auth.Principal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.tokens[tok]
	if !ok {
		return nil, fmt.Errorf("%w: unknown", auth.ErrInvalidToken)
	}
	return &auth.Principal{Issuer: a.url, Subject: "u", Scopes: strings.Fields(s)}, nil
}

func startMiniAS(t *testing.T) *miniAS {
	a := &miniAS{tokens: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.url, "authorization_endpoint": a.url + "/authorize", "token_endpoint": a.url + "/token",
			"registration_endpoint": a.url + "/register", "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		ru, _ := url.Parse(q.Get("redirect_uri"))
		ru.RawQuery = url.Values{"code": {q.Get("scope")}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, ru.String(), http.StatusFound)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"client_id":"c1"}`))
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		a.n++
		tok := fmt.Sprintf("tok%d", a.n)
		a.tokens[tok] = r.PostForm.Get("code")
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	srv := httptest.NewServer(mux)
	a.url = srv.URL
	t.Cleanup(srv.Close)
	return a
}

// TestAuthFlow runs the auth scenarios' flow against a wiremcp server protected by
// auth.RequireBearer, with sessions bound to the principal: 401, discovery,
// registration, authorization, then tools/list and a tools/call that needs a step-up.
func TestAuthFlow(t *testing.T) {
	checkNoLeaks(t)
	as := startMiniAS(t)
	s := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	called := make(chan string, 1)
	s.AddTool(&mcp.Tool{Name: "test-tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			called <- "called"
			return mcp.TextResult("test"), nil
		})
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, &streamable.HandlerOptions{SessionOwner: auth.SessionOwner})
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
		Resource: ts.URL + "/mcp", AuthorizationServers: []string{as.url}, ScopesSupported: []string{"mcp:basic"},
	})
	mux.Handle("/mcp", auth.RequireBearer(h, &auth.ResourceServerOptions{
		Verifier: as, ResourceMetadataURL: prm, Scopes: []string{"mcp:basic"},
		ToolScopes: map[string][]string{"test-tool": {"mcp:write"}},
	}))

	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/scope-step-up")
	conformanceContext, protocolVersion = "", ""
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := authFlow(ctx, ts.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-called:
	default:
		t.Fatal("the tool was not called")
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.n != 2 {
		t.Errorf("%d tokens issued, want 2 (first authorization, then step-up)", as.n)
	}
	if as.tokens["tok2"] != "mcp:basic mcp:write" {
		t.Errorf("step-up token scope %q, want the union", as.tokens["tok2"])
	}
}
