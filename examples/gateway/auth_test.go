package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/auth/authtest"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestAuthRequired: with -auth-issuer, every route needs a token of that issuer for
// the gateway's audience with the configured scope; the metadata names the issuer;
// a session is its principal's only; the client's token never reaches a backend.
func TestAuthRequired(t *testing.T) {
	const aud = "https://gateway.example/mcp"
	is := authtest.NewIssuer(t)
	cfg, err := ParseConfig([]byte(`{"servers": {"notes": {"description": "Notes.",
	  "resources": {"readme": {"uri": "note://readme", "name": "readme", "text": "hello"}}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(cfg, &Options{SessionOwner: auth.SessionOwner})
	if err != nil {
		t.Fatal(err)
	}
	ac := authConfig{issuer: is.URL, audience: aud, scope: "mcp:use"}
	if err := ac.check(); err != nil {
		t.Fatal(err)
	}
	h, err := protect(g, ac, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.CloseClientConnections(); g.Close(); srv.Close() })

	get := func(path, token string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	// No token, a token for another audience, one without the scope.
	for _, tc := range []struct {
		name, token string
		status      int
	}{
		{"none", "", 401},
		{"other audience", is.Token("alice", "https://other.example/mcp", "mcp:use"), 401},
		{"tampered", is.Token("alice", aud, "mcp:use") + "x", 401},
		{"missing scope", is.Token("alice", aud, "other"), 403},
	} {
		resp := get("/mcp", tc.token)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: GET /mcp %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if challenge := resp.Header.Get("WWW-Authenticate"); !strings.Contains(challenge, "resource_metadata=") {
			t.Errorf("%s: WWW-Authenticate %q names no resource_metadata", tc.name, challenge)
		}
	}
	if resp := get("/mcp", is.Token("alice", aud, "mcp:use")); resp.StatusCode != 200 {
		t.Errorf("GET /mcp with a good token: %d", resp.StatusCode)
	}
	// The protected resource metadata is public and names the issuer.
	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if resp.StatusCode != 200 || prm.Resource != aud || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != is.URL {
		t.Fatalf("metadata: %d %+v", resp.StatusCode, prm)
	}

	// An MCP client with Alice's token lists and reads; Bob cannot use her session.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	alice := is.Token("alice", aud, "mcp:use")
	tr, err := streamable.NewClient(srv.URL+"/mcp/notes", &streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + alice}}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://readme"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "hello" {
		t.Fatalf("read: %+v %v", rr, err)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/mcp/notes", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", tr.SessionID())
	req.Header.Set("Authorization", "Bearer "+is.Token("bob", aud, "mcp:use"))
	bob, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bob.Body.Close()
	if bob.StatusCode != 404 {
		t.Errorf("Bob with Alice's session id: %d, want 404", bob.StatusCode)
	}
}

func TestAuthFlags(t *testing.T) {
	for _, c := range []authConfig{{issuer: "https://as.example"}, {audience: "https://gw.example/mcp"}, {scope: "x"}, {issuer: "https://as.example", audience: "not a url"}} {
		if c.check() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (authConfig{}).check(); err != nil {
		t.Errorf("no auth flags: %v", err)
	}
}
