package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/internal/leaktest"
)

// fakeAS is a small authorization server: it redirects at once, issues opaque
// tokens "at-<n>" carrying the requested scopes, and records what it saw.
type fakeAS struct {
	t               *testing.T
	srv             *httptest.Server
	issuer          string
	mu              sync.Mutex
	meta            map[string]any
	issParam        string // "correct", "none", "wrong"
	n               int
	scopes          map[string]string // token → scope
	authReqs        []url.Values
	tokReqs         []url.Values
	tokAuth         []string // Authorization header of each token request
	regs            int
	refresh         bool              // issue refresh tokens
	withhold        string            // a scope Verify never reports
	issued          map[string]string // every token issued → scope
	refuseRefreshed bool              // tokens from refresh_token grants are never accepted
	expires         int               // expires_in
}

func newFakeAS(t *testing.T) *fakeAS {
	a := &fakeAS{t: t, issParam: "correct", scopes: map[string]string{}, issued: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		m := map[string]any{
			"issuer": a.issuer, "authorization_endpoint": a.issuer + "/authorize", "token_endpoint": a.issuer + "/token",
			"registration_endpoint": a.issuer + "/register", "code_challenge_methods_supported": []string{"S256"},
			"authorization_response_iss_parameter_supported": true,
		}
		for k, v := range a.meta {
			m[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.authReqs = append(a.authReqs, q)
		iss := a.issParam
		a.mu.Unlock()
		ru, _ := url.Parse(q.Get("redirect_uri"))
		rq := url.Values{"code": {"code-" + q.Get("scope")}, "state": {q.Get("state")}}
		switch iss {
		case "correct":
			rq.Set("iss", a.issuer)
		case "wrong":
			rq.Set("iss", "https://evil.example.com")
		}
		ru.RawQuery = rq.Encode()
		http.Redirect(w, r, ru.String(), http.StatusFound)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.regs++
		n := a.regs
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"client_id":"client-%d","token_endpoint_auth_method":"none"}`, n)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.tokReqs = append(a.tokReqs, r.PostForm)
		a.tokAuth = append(a.tokAuth, r.Header.Get("Authorization"))
		scope := strings.TrimPrefix(r.PostForm.Get("code"), "code-")
		refreshed := r.PostForm.Get("grant_type") == "refresh_token"
		if refreshed {
			scope = a.issued[strings.TrimPrefix(r.PostForm.Get("refresh_token"), "rt-")]
		}
		a.n++
		tok := fmt.Sprintf("at-%d", a.n)
		a.issued[tok] = scope
		if !refreshed || !a.refuseRefreshed {
			a.scopes[tok] = scope
		}
		resp := map[string]any{"access_token": tok, "token_type": "Bearer", "scope": scope}
		if a.refresh {
			resp["refresh_token"] = "rt-" + tok
		}
		if a.expires > 0 {
			resp["expires_in"] = a.expires
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
	a.srv = httptest.NewServer(mux)
	a.issuer = a.srv.URL
	t.Cleanup(a.srv.Close)
	return a
}

// Verify makes fakeAS a Verifier for its own tokens.
func (a *fakeAS) Verify(_ context.Context, tok string) (*Principal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.scopes[tok]
	if !ok {
		return nil, invalid("unknown")
	}
	scopes := slices.DeleteFunc(splitScopes(s), func(x string) bool { return x == a.withhold })
	return &Principal{Issuer: a.issuer, Subject: "u", Scopes: scopes}, nil
}

// protectedServer serves /mcp behind RequireBearer with metadata naming as.
func protectedServer(t *testing.T, as *fakeAS, opts ResourceServerOptions, resourceOverride string) (string, *[]string) {
	var seen []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	meta := &ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{as.issuer}, ScopesSupported: []string{"mcp:basic"}}
	if resourceOverride != "" {
		meta.Resource = resourceOverride
	}
	h := ProtectedResourceHandler(meta)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", h)
	opts.Verifier = as
	opts.ResourceMetadataURL = srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", RequireBearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, string(b))
		mu.Unlock()
		w.Write([]byte("ok"))
	}), &opts))
	return resource, &seen
}

// browser follows the authorization redirect without following it further.
func browser(ctx context.Context, authURL string) (*url.URL, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, "GET", authURL, nil)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return url.Parse(resp.Header.Get("Location"))
}

func newClient(t *testing.T, mod func(*ClientOptions)) *http.Client {
	o := &ClientOptions{RedirectURI: "http://127.0.0.1:9/callback", Authorize: browser}
	if mod != nil {
		mod(o)
	}
	tr, err := NewTransport(o)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: tr}
}

func post(t *testing.T, c *http.Client, u, body string) (int, error) {
	resp, err := c.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestClientAuthorizationCodeFlow(t *testing.T) {
	leaktest.Check(t)
	as := newFakeAS(t)
	u, seen := protectedServer(t, as, ResourceServerOptions{Scopes: []string{"mcp:basic"}, ToolScopes: map[string][]string{"write": {"mcp:write"}}}, "")
	c := newClient(t, nil)
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}}`
	}
	if st, err := post(t, c, u, call("read")); err != nil || st != 200 {
		t.Fatalf("first call: %d %v", st, err)
	}
	if st, err := post(t, c, u, call("read")); err != nil || st != 200 {
		t.Fatalf("second call: %d %v", st, err)
	}
	// Step-up: the write tool needs mcp:write; the client asks for the union.
	if st, err := post(t, c, u, call("write")); err != nil || st != 200 {
		t.Fatalf("write call: %d %v", st, err)
	}
	if len(*seen) != 3 || (*seen)[2] != call("write") {
		t.Fatalf("the server saw %q", *seen)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.authReqs) != 2 || as.regs != 1 {
		t.Fatalf("%d authorizations, %d registrations; want 2, 1", len(as.authReqs), as.regs)
	}
	first, second := as.authReqs[0], as.authReqs[1]
	if first.Get("scope") != "mcp:basic" || second.Get("scope") != "mcp:basic mcp:write" {
		t.Errorf("scopes %q then %q", first.Get("scope"), second.Get("scope"))
	}
	for _, q := range as.authReqs {
		if q.Get("resource") != u || q.Get("code_challenge_method") != "S256" || q.Get("state") == "" || q.Get("client_id") != "client-1" {
			t.Errorf("authorization request %v", q)
		}
	}
	for _, f := range as.tokReqs {
		if f.Get("resource") != u || f.Get("code_verifier") == "" || f.Get("client_id") != "client-1" {
			t.Errorf("token request %v", f)
		}
	}
}

func TestClientRefusesBadResponses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		meta     map[string]any
		iss      string
		resource func(u string) string
		want     error
	}{
		{"iss missing though advertised", nil, "none", nil, ErrIssuerResponse},
		{"iss wrong", nil, "wrong", nil, ErrIssuerResponse},
		{"iss wrong, not advertised", map[string]any{"authorization_response_iss_parameter_supported": false}, "wrong", nil, ErrIssuerResponse},
		{"metadata issuer mismatch", map[string]any{"issuer": "https://attacker.example.com"}, "correct", nil, ErrIssuerMismatch},
		{"resource for another server", nil, "correct", func(string) string { return "https://evil.example.com/mcp" }, ErrResourceMismatch},
		{"no PKCE", map[string]any{"code_challenge_methods_supported": []string{"plain"}}, "correct", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			as.meta, as.issParam = tc.meta, tc.iss
			override := ""
			if tc.resource != nil {
				override = tc.resource("")
			}
			u, seen := protectedServer(t, as, ResourceServerOptions{}, override)
			_, err := post(t, newClient(t, nil), u, `{}`)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if len(*seen) != 0 || len(as.tokReqs) != 0 {
				t.Fatalf("went on: %d requests served, %d token requests", len(*seen), len(as.tokReqs))
			}
		})
	}
}

func TestClientNotAdvertisedIssProceeds(t *testing.T) {
	as := newFakeAS(t)
	as.meta, as.issParam = map[string]any{"authorization_response_iss_parameter_supported": false}, "none"
	u, _ := protectedServer(t, as, ResourceServerOptions{}, "")
	if st, err := post(t, newClient(t, nil), u, `{}`); err != nil || st != 200 {
		t.Fatalf("%d %v", st, err)
	}
}

func TestClientRefreshesExpiredToken(t *testing.T) {
	as := newFakeAS(t)
	as.refresh, as.expires = true, 60
	u, _ := protectedServer(t, as, ResourceServerOptions{}, "")
	now := time.Now()
	c := newClient(t, func(o *ClientOptions) { o.Now = func() time.Time { return now } })
	if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
		t.Fatalf("%d %v", st, err)
	}
	now = now.Add(2 * time.Minute)
	if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
		t.Fatalf("after expiry: %d %v", st, err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.authReqs) != 1 || len(as.tokReqs) != 2 || as.tokReqs[1].Get("grant_type") != "refresh_token" || as.tokReqs[1].Get("resource") != u {
		t.Fatalf("%d authorizations, token requests %v", len(as.authReqs), as.tokReqs)
	}
}

func TestClientCredentialsPerIssuer(t *testing.T) {
	leaktest.Check(t)
	as1, as2 := newFakeAS(t), newFakeAS(t)
	store := &MemoryStore{}
	u1, _ := protectedServer(t, as1, ResourceServerOptions{}, "")
	u2, _ := protectedServer(t, as2, ResourceServerOptions{}, "")
	c := newClient(t, func(o *ClientOptions) {
		o.Store = store
		o.Credentials = func(iss string) (ClientCredentials, bool) {
			if iss == as1.issuer {
				return ClientCredentials{ClientID: "pre-1", ClientSecret: "s1"}, true
			}
			return ClientCredentials{}, false
		}
	})
	for _, u := range []string{u1, u2} {
		if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
			t.Fatalf("%s: %d %v", u, st, err)
		}
	}
	if got := as1.authReqs[0].Get("client_id"); got != "pre-1" || as1.regs != 0 {
		t.Errorf("AS 1: client %q, %d registrations", got, as1.regs)
	}
	if got := as2.authReqs[0].Get("client_id"); got != "client-1" || as2.regs != 1 {
		t.Errorf("AS 2: client %q, %d registrations; the pre-registered client must not be used there", got, as2.regs)
	}
	if g, _ := store.Load(context.Background(), tokenKey(as2.issuer, u2)); g == nil || g.Token == nil {
		t.Errorf("no token stored for AS 2")
	}
}

func TestClientStepUp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		neverGrant bool
		status     int
		auths      int
	}{
		{"granted", false, 200, 2},
		// The server never sees "admin" in a token: the client asks once, then gives
		// the 403 back instead of asking for the same scopes again.
		{"never granted", true, 403, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			as.withhold = map[bool]string{true: "admin"}[tc.neverGrant]
			u, _ := protectedServer(t, as, ResourceServerOptions{Scopes: []string{"mcp:basic"}, MethodScopes: map[string][]string{"x": {"admin"}}}, "")
			st, err := post(t, newClient(t, nil), u, `{"jsonrpc":"2.0","id":1,"method":"x"}`)
			if err != nil || st != tc.status {
				t.Fatalf("status %d, %v; want %d", st, err, tc.status)
			}
			if n := len(as.authReqs); n != tc.auths {
				t.Fatalf("%d authorizations, want %d", n, tc.auths)
			}
		})
	}
}

func TestFileStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	s, err := NewFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if g, err := s.Load(ctx, "absent"); g != nil || err != nil {
		t.Fatalf("absent: %v %v", g, err)
	}
	want := &Grant{Issuer: "https://as", Resource: "https://rs/mcp", Token: &Token{AccessToken: "a", RefreshToken: "r", Expiry: time.Unix(1e9, 0).UTC()}}
	key := "token ../../etc/passwd https://rs/mcp"
	if err := s.Save(ctx, key, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("%d files in the store, want 1", len(ents))
	}
	fi, _ := ents[0].Info()
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
}

func TestLoopback(t *testing.T) {
	leaktest.Check(t)
	l, err := NewLoopback("")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.RedirectURI(), "http://127.0.0.1:") || !strings.HasSuffix(l.RedirectURI(), "/callback") {
		t.Fatalf("redirect URI %q", l.RedirectURI())
	}
	get := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Nothing awaited: a redirect is refused.
	if st := get(l.RedirectURI() + "?code=c0&state=s1"); st != 400 {
		t.Fatalf("redirect while none is awaited: %d, want 400", st)
	}
	browserDone := make(chan struct{})
	open := func(authURL string) error {
		// The "browser": first a redirect of someone else's (another state), then
		// the one of this authorization, as the AS would send it.
		go func() {
			defer close(browserDone)
			if st := get(l.RedirectURI() + "?code=forged&state=other"); st != 400 {
				t.Errorf("redirect with another state: %d, want 400", st)
			}
			if st := get(l.RedirectURI() + "?code=c1&state=s1"); st != 200 {
				t.Errorf("the awaited redirect: %d, want 200", st)
			}
		}()
		return nil
	}
	u, err := l.Authorizer(open)(context.Background(), "https://as/authorize?client_id=c&state=s1")
	<-browserDone
	if err != nil {
		t.Fatal(err)
	}
	if u.Query().Get("code") != "c1" || u.Query().Get("state") != "s1" {
		t.Fatalf("redirect %v", u)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Authorizer(func(string) error { return nil })(ctx, "https://as/authorize"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestClientReusesRegistrationOnlyForItsRedirectURI(t *testing.T) {
	as := newFakeAS(t)
	u, _ := protectedServer(t, as, ResourceServerOptions{}, "")
	store := &MemoryStore{}
	for i, redirect := range []string{"http://127.0.0.1:1/callback", "http://127.0.0.1:2/callback", "http://127.0.0.1:2/callback"} {
		// Tokens of earlier runs are forgotten by the server: each run authorizes.
		as.mu.Lock()
		clear(as.scopes)
		as.mu.Unlock()
		c := newClient(t, func(o *ClientOptions) { o.Store, o.RedirectURI = store, redirect })
		if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
			t.Fatalf("run %d: %d %v", i, st, err)
		}
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.regs != 2 || len(as.authReqs) != 3 {
		t.Fatalf("%d registrations and %d authorizations, want 2 and 3", as.regs, len(as.authReqs))
	}
	if got := as.authReqs[2].Get("client_id"); got != "client-2" {
		t.Errorf("third run used %q, want the registration made for its redirect URI", got)
	}
}

// TestClientRefreshOn401: a refused token is replaced through its refresh token;
// when the refreshed token is refused too, the client authorizes anew.
func TestClientRefreshOn401(t *testing.T) {
	for _, tc := range []struct {
		name            string
		refuseRefreshed bool
		want            []string
	}{
		{"refresh accepted", false, []string{"authorization_code", "refresh_token"}},
		{"refresh refused", true, []string{"authorization_code", "refresh_token", "authorization_code"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			as.refresh, as.refuseRefreshed = true, tc.refuseRefreshed
			u, _ := protectedServer(t, as, ResourceServerOptions{}, "")
			c := newClient(t, nil)
			if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
				t.Fatalf("%d %v", st, err)
			}
			as.mu.Lock()
			delete(as.scopes, "at-1") // the server no longer accepts the first token
			as.mu.Unlock()
			if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
				t.Fatalf("after the server forgot the token: %d %v", st, err)
			}
			as.mu.Lock()
			defer as.mu.Unlock()
			var grants []string
			for _, f := range as.tokReqs {
				grants = append(grants, f.Get("grant_type"))
			}
			if diff := cmp.Diff(tc.want, grants); diff != "" {
				t.Errorf("token requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClientConcurrentRequestsAuthorizeOnce: requests refused at the same time share
// one authorization, and one step-up.
func TestClientConcurrentRequestsAuthorizeOnce(t *testing.T) {
	as := newFakeAS(t)
	u, _ := protectedServer(t, as, ResourceServerOptions{Scopes: []string{"mcp:basic"}, ToolScopes: map[string][]string{"w": {"mcp:write"}}}, "")
	c := newClient(t, nil)
	for _, body := range []string{`{}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w"}}`} {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := post(t, c, u, body)
				if err == nil && st != 200 {
					err = fmt.Errorf("status %d", st)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.authReqs) != 2 {
		t.Fatalf("%d authorizations, want 2 (one, then one step-up)", len(as.authReqs))
	}
}

// TestTokenEndpointAuth: the client authenticates as its credentials say, or as the
// server allows when they do not say.
func TestTokenEndpointAuth(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cc        ClientCredentials
		supported []string
		basic     bool   // an Authorization: Basic header
		secret    string // client_secret in the form
	}{
		{"basic said", ClientCredentials{ClientID: "a b", ClientSecret: "s:1", AuthMethod: "client_secret_basic"}, nil, true, ""},
		{"post said", ClientCredentials{ClientID: "a", ClientSecret: "s1", AuthMethod: "client_secret_post"}, nil, false, "s1"},
		{"unsaid, default", ClientCredentials{ClientID: "a", ClientSecret: "s1"}, nil, true, ""},
		{"unsaid, only post listed", ClientCredentials{ClientID: "a", ClientSecret: "s1"}, []string{"client_secret_post"}, false, "s1"},
		{"public", ClientCredentials{ClientID: "a"}, []string{"none"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			if tc.supported != nil {
				as.meta = map[string]any{"token_endpoint_auth_methods_supported": tc.supported}
			}
			u, _ := protectedServer(t, as, ResourceServerOptions{}, "")
			c := newClient(t, func(o *ClientOptions) {
				o.Credentials = func(string) (ClientCredentials, bool) { return tc.cc, true }
			})
			if st, err := post(t, c, u, `{}`); err != nil || st != 200 {
				t.Fatalf("%d %v", st, err)
			}
			as.mu.Lock()
			defer as.mu.Unlock()
			hdr, form := as.tokAuth[0], as.tokReqs[0]
			if tc.basic {
				// RFC 6749 section 2.3.1: form-encoded, then Basic.
				want := "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(tc.cc.ClientID)+":"+url.QueryEscape(tc.cc.ClientSecret)))
				if hdr != want || form.Get("client_secret") != "" {
					t.Errorf("Authorization %q, form %v; want %q", hdr, form, want)
				}
			} else {
				if hdr != "" || form.Get("client_id") != tc.cc.ClientID || form.Get("client_secret") != tc.secret {
					t.Errorf("Authorization %q, form %v", hdr, form)
				}
			}
		})
	}
}

// TestNewTransportRedirectURI: redirect URIs must be https, or http on a loopback
// host (MCP 2025-11-25, communication security), without a fragment.
func TestNewTransportRedirectURI(t *testing.T) {
	for uri, ok := range map[string]bool{
		"http://127.0.0.1:8123/callback":  true,
		"http://localhost:3000/callback":  true,
		"http://[::1]:9/cb":               true,
		"https://app.example.com/oauth":   true,
		"http://app.example.com/callback": false,
		"http://127.0.0.1.evil.com/cb":    false,
		"https://app.example.com/cb#frag": false,
		"https://user@app.example.com/cb": false,
		"com.example.app:/callback":       false,
		"/callback":                       false,
	} {
		_, err := NewTransport(&ClientOptions{RedirectURI: uri, Authorize: browser})
		if (err == nil) != ok {
			t.Errorf("%s: %v, want accepted %v", uri, err, ok)
		}
	}
}
