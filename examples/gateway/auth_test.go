package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/auth/authtest"
	"github.com/wiremcp/wiremcp/internal/ssetest"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestAuthRequired: with -auth-issuer, every route needs a token of that issuer for
// the gateway's audience with the configured scope; the metadata names the issuer;
// a session is its principal's only; the client's token never reaches a backend.
func TestAuthRequired(t *testing.T) {
	const aud = "https://gateway.example/mcp"
	is := authtest.NewIssuer(t)
	g := ownedGateway(t, `{"servers": {"notes": {"description": "Notes.",
	  "resources": {"readme": {"uri": "note://readme", "name": "readme", "text": "hello"}}}}}`)
	ac := authConfig{issuer: is.URL, audience: aud, scope: "mcp:use"}
	srv := serveProtected(t, g, ac)

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

	// The same over the legacy HTTP+SSE route: Alice's stream, Bob's POSTs refused.
	sreq, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/mcp/notes/sse", nil)
	sreq.Header.Set("Accept", "text/event-stream")
	sreq.Header.Set("Authorization", "Bearer "+alice)
	stream, err := http.DefaultClient.Do(sreq)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != 200 {
		t.Fatalf("GET /mcp/notes/sse with Alice's token: %d", stream.StatusCode)
	}
	endpoint := ssetest.Endpoint(t, bufio.NewReader(stream.Body))
	postSSE := func(token string) int {
		req, _ := http.NewRequest("POST", srv.URL+endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := postSSE(is.Token("bob", aud, "mcp:use")); st != 404 {
		t.Errorf("Bob's POST to Alice's SSE session: %d, want 404", st)
	}
	if st := postSSE(alice); st != 202 {
		t.Errorf("Alice's POST to her SSE session: %d, want 202", st)
	}
}

func TestAuthFlags(t *testing.T) {
	for _, c := range []authConfig{{issuer: "https://as.example"}, {audience: "https://gw.example/mcp"}, {scope: "x"}, {issuer: "https://as.example", audience: "not a url"}} {
		if c.check() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	for _, v := range []string{"restart=x", "ops/restart", "ops/restart=", "/restart=x", "ops/=x", "ops/restart= "} {
		var c authConfig
		if c.addToolScope(v) == nil {
			t.Errorf("-auth-tool-scope %q accepted", v)
		}
	}
	var tc authConfig
	if err := tc.addToolScope("ops/restart=x"); err != nil || tc.check() == nil {
		t.Errorf("-auth-tool-scope without -auth-issuer: %v, check passed", err)
	}
	if err := (authConfig{}).check(); err != nil {
		t.Errorf("no auth flags: %v", err)
	}
}

// TestAuthToolScopes: -auth-tool-scope SERVER/TOOL=SCOPES makes a call of that tool
// need the scopes too (403 insufficient_scope naming them, for step-up), on
// /mcp/SERVER and under the tool's /mcp/all name; other tools need only -auth-scope;
// the metadata lists every scope.
func TestAuthToolScopes(t *testing.T) {
	const aud = "https://gateway.example/mcp"
	is := authtest.NewIssuer(t)
	g := ownedGateway(t, `{"all": true, "cors": {"allowedOrigins": ["https://app.example.com"]}, "servers": {"ops": {"tools": {
	  "status":  {"command": {"argv": ["echo", "fine"]}},
	  "restart": {"command": {"argv": ["echo", "restarted"]}}}}}}`)
	ac := authConfig{issuer: is.URL, audience: aud, scope: "mcp:use"}
	for _, v := range []string{"ops/restart=ops:write", "ops/restart=ops:write ops:admin"} {
		if err := ac.addToolScope(v); err != nil {
			t.Fatal(err)
		}
	}
	srv := serveProtected(t, g, ac)

	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	var prm struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if want := []string{"mcp:use", "ops:admin", "ops:write"}; strings.Join(prm.ScopesSupported, " ") != strings.Join(want, " ") {
		t.Errorf("scopes_supported %q, want %q", prm.ScopesSupported, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	call := func(path, token, tool string) (string, error) {
		tr, err := streamable.NewClient(srv.URL+path, &streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + token}}})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125}).Connect(ctx, tr)
		if err != nil {
			t.Fatalf("%s: connect: %v", path, err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s %s: %+v", path, tool, res)
		}
		return strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text), nil
	}
	user := is.Token("alice", aud, "mcp:use")
	admin := is.Token("alice", aud, "mcp:use ops:write ops:admin")
	for _, tc := range []struct{ path, tool, token, want string }{
		{"/mcp/ops", "status", user, "fine"},
		{"/mcp/all", "ops__status", user, "fine"},
		{"/mcp/ops", "restart", user, "403"},
		{"/mcp/all", "ops__restart", user, "403"},
		{"/mcp/ops", "restart", is.Token("alice", aud, "mcp:use ops:write"), "403"},
		{"/mcp/ops", "restart", admin, "restarted"},
		{"/mcp/all", "ops__restart", admin, "restarted"},
	} {
		got, err := call(tc.path, tc.token, tc.tool)
		var se *streamable.StatusError
		if errors.As(err, &se) {
			got = fmt.Sprint(se.StatusCode)
			if !strings.Contains(se.Body, "insufficient_scope") {
				t.Errorf("%s %s: body %q", tc.path, tc.tool, se.Body)
			}
		} else if err != nil {
			t.Fatalf("%s %s: %v", tc.path, tc.tool, err)
		}
		if got != tc.want {
			t.Errorf("%s %s with scopes of the token: %q, want %q", tc.path, tc.tool, got, tc.want)
		}
	}
	// A browser client of an allowed origin: its preflight (no token) is answered,
	// and it can read the 401 challenge; another origin's preflight is refused.
	for origin, want := range map[string]int{"https://app.example.com": 204, "https://evil.example.com": 401} {
		req, _ := http.NewRequest("OPTIONS", srv.URL+"/mcp/ops", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || (want == 204) != (resp.Header.Get("Access-Control-Allow-Origin") == origin) {
			t.Errorf("preflight from %s: %d, Allow-Origin %q; want %d", origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), want)
		}
	}
	req, _ := http.NewRequest("POST", srv.URL+"/mcp/ops", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://app.example.com")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("401 to a browser client: %d %v", resp.StatusCode, resp.Header)
	}

	// The challenge names every scope the call needs, so that a client can step up.
	for path, tool := range map[string]string{"/mcp/ops": "restart", "/mcp/ops/sse?sessionId=x": "restart", "/mcp/all": "ops__restart"} {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ch := auth.BearerChallenge(resp.Header.Values("WWW-Authenticate"))
		if resp.StatusCode != 403 || ch["error"] != "insufficient_scope" || ch["scope"] != "mcp:use ops:write ops:admin" {
			t.Errorf("%s %s: %d %q", path, tool, resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
		}
	}
}

// TestAuthToolScopesBodyCapped: on a route with tool scopes, the bodies the token
// check reads are counted against its per-client cap: of ten unfinished bodies of
// 1000 bytes from one client, with a cap of 4000 bytes, six get 429 at once; the
// route still serves calls afterwards. Before, a token check was built for each
// such request, with caps of its own that counted only that request's body, so
// none was refused and every unfinished body held its buffer.
func TestAuthToolScopesBodyCapped(t *testing.T) {
	const aud = "https://gateway.example/mcp"
	is := authtest.NewIssuer(t)
	g := ownedGateway(t, `{"servers": {"ops": {"tools": {"restart": {"command": {"argv": ["echo", "restarted"]}}}}}}`)
	ac := authConfig{issuer: is.URL, audience: aud, scope: "mcp:use", maxBody: 1000, maxBodyPerClient: 4000}
	if err := ac.addToolScope("ops/restart=ops:write"); err != nil {
		t.Fatal(err)
	}
	srv := serveProtected(t, g, ac)
	token := is.Token("alice", aud, "mcp:use ops:write")
	addr := strings.TrimPrefix(srv.URL, "http://")
	ch := make(chan int, 10)
	for i := 0; i < 10; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /mcp/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"", token)
		go func() {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				ch <- 0
				return
			}
			resp.Body.Close()
			ch <- resp.StatusCode
		}()
	}
	for n := 0; n < 6; n++ {
		if st := <-ch; st != http.StatusTooManyRequests {
			t.Fatalf("unfinished body %d of 10 from one client: %d, want 429 (4 fit in the cap)", n+1, st)
		}
	}
	select {
	case st := <-ch:
		t.Fatalf("a 7th unfinished body was answered (%d); 4 fit in the cap", st)
	case <-time.After(200 * time.Millisecond):
	}
}

// ownedGateway starts a gateway on cfg whose sessions belong to the principal that
// opened them (auth.SessionOwner), as main sets it up with -auth-issuer.
func ownedGateway(t *testing.T, cfg string) *Gateway {
	t.Helper()
	c, err := ParseConfig([]byte(cfg), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(c, &Options{SessionOwner: auth.SessionOwner})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// serveProtected serves g behind the token checks of ac on a loopback test server.
func serveProtected(t *testing.T, g *Gateway, ac authConfig) *httptest.Server {
	t.Helper()
	if err := ac.check(); err != nil {
		t.Fatal(err)
	}
	h, err := protect(g, ac, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.CloseClientConnections(); g.Close(); srv.Close() })
	return srv
}
