package auth

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"github.com/wiremcp/wiremcp/internal/nodetest"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// The end-to-end test against an authorization server nobody here wrote: npm
// oidc-provider (testdata/oidc-provider), with resource indicators and JWT access
// tokens. It needs Node.js 20.19 or later (WIREMCP_NODE, else node on PATH) and npm
// (WIREMCP_NPM, else npm on PATH) to install the pinned oidc-provider into
// testdata/oidc-provider/node_modules. Without them the test skips, unless CI=true,
// where it fails.

const oidcDir = "testdata/oidc-provider"

func oidcSetup(t *testing.T) (node string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Node.js authorization server; skipped with -short")
	}
	return nodetest.Setup(t, oidcDir, 20, 19, "the oidc-provider test")
}

// startOIDC runs the authorization server and returns its issuer.
func startOIDC(t *testing.T, node string) string {
	t.Helper()
	cmd := exec.Command(node, "server.mjs")
	cmd.Dir = oidcDir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	issuer := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "issuer "); ok {
				issuer <- u
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close() // the server exits when its stdin closes
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case u := <-issuer:
		return u
	case <-exited:
		t.Fatalf("oidc-provider exited: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("oidc-provider did not start within 30s: %s", stderr.String())
	}
	return ""
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// browser plays the user's browser for the loopback redirect: it follows every
// redirect, keeping cookies, the last one landing on the loopback listener.
func oidcBrowser(t *testing.T) func(string) error {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return func(authURL string) error {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, Timeout: 20 * time.Second}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(authURL)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("browser: the redirect chain ended with %d at %s", resp.StatusCode, resp.Request.URL)
			}
		}()
		return nil
	}
}

func TestOIDCProviderEndToEnd(t *testing.T) {
	leaktest.Check(t)
	node := oidcSetup(t)
	issuer := startOIDC(t, node)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The protected MCP server.
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping_tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("pong"), nil
		})
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, tr)
		return err
	}, &streamable.HandlerOptions{SessionOwner: SessionOwner})
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		h.Shutdown(sctx)
	}()
	resource := ts.URL + "/mcp"
	prm := MountProtectedResourceMetadata(mux, &ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{issuer}, ScopesSupported: []string{"mcp:read", "mcp:write"},
	})
	verifier, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: issuer, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var principals []*Principal
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		principals = append(principals, PrincipalFrom(r.Context()))
		mu.Unlock()
		h.ServeHTTP(w, r)
	})
	mux.Handle("/mcp", RequireBearer(record, &ResourceServerOptions{Verifier: verifier, ResourceMetadataURL: prm, Scopes: []string{"mcp:read"}}))

	// The user's client: authorization code + PKCE through the loopback helper.
	lb, err := NewLoopback("")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	store := &MemoryStore{}
	tr, err := NewTransport(&ClientOptions{RedirectURI: lb.RedirectURI(), Authorize: lb.Authorizer(oidcBrowser(t)), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	callTool(t, ctx, &http.Client{Transport: tr}, resource)
	mu.Lock()
	p := principals[len(principals)-1]
	mu.Unlock()
	if p == nil || p.Subject != "alice" || !p.HasScopes("mcp:read") || p.Issuer != issuer {
		t.Fatalf("principal %+v", p)
	}
	g, _ := store.Load(ctx, tokenKey(issuer, resource))
	if g == nil || g.Token == nil {
		t.Fatal("no token in the store")
	}
	userToken := g.Token.AccessToken
	t.Logf("user token claims: %v; scope %q; refresh token: %v", p.Claims, g.Token.Scope, g.Token.RefreshToken != "")

	// A machine client: the client credentials grant, pre-registered at this issuer.
	mtr, err := NewTransport(&ClientOptions{
		ClientCredentialsGrant: true,
		Credentials: func(iss string) (ClientCredentials, bool) {
			return ClientCredentials{ClientID: "machine", ClientSecret: "machine-secret"}, iss == issuer
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	callTool(t, ctx, &http.Client{Transport: mtr}, resource)

	// Tokens the server must refuse with 401.
	as, err := FetchAuthServerMetadata(ctx, nil, issuer)
	if err != nil {
		t.Fatal(err)
	}
	otherAud := clientCredentialsToken(t, as.TokenEndpoint, "http://other.example/mcp")
	parts := strings.Split(userToken, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"alice"`, `"admin"`, 1))) + "." + parts[2]
	var claims map[string]any
	json.Unmarshal(payload, &claims)
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forged, err := signJWT(otherKey, "ES256", "ec-1", "at+jwt", claims)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"for another audience": otherAud, "tampered": tampered, "signed by another key": forged} {
		if st := postWithToken(t, ts.URL+"/mcp", tok); st != 401 {
			t.Errorf("token %s: status %d, want 401", name, st)
		}
	}
	if st := postWithToken(t, ts.URL+"/mcp", userToken); st == 401 || st == 403 {
		t.Errorf("the user's own token: status %d", st)
	}
	// The same token an hour later is expired.
	later, _ := NewJWTVerifier(&JWTVerifierOptions{Issuer: issuer, Audience: resource, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if _, err := later.Verify(ctx, userToken); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired token: %v", err)
	}
	expired := RequireBearer(h, &ResourceServerOptions{Verifier: later})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", resource, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+userToken)
	expired.ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("expired token: status %d, want 401", rec.Code)
	}
}

// callTool connects to the MCP server at u with c and calls ping_tool.
func callTool(t *testing.T, ctx context.Context, c *http.Client, u string) {
	t.Helper()
	tr, err := streamable.NewClient(u, &streamable.ClientOptions{HTTPClient: c})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping_tool", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
}

func clientCredentialsToken(t *testing.T, tokenEndpoint, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "scope": {"mcp:read"}}
	req, _ := http.NewRequest("POST", tokenEndpoint, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("machine", "machine-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(b, &r) != nil || r.AccessToken == "" {
		t.Fatalf("client credentials for %s: %d %s", resource, resp.StatusCode, b)
	}
	return r.AccessToken
}

func postWithToken(t *testing.T, u, tok string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
