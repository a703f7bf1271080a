package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// ClientOptions configures a Transport. The zero value of each field is documented;
// the struct is copied by NewTransport.
type ClientOptions struct {
	// Base sends the MCP requests. Nil means a clone of http.DefaultTransport.
	Base http.RoundTripper
	// HTTPClient sends the OAuth requests (metadata, registration, token). Nil means
	// a client with a 15 second timeout.
	HTTPClient *http.Client
	// Store keeps registrations and tokens. Nil means a new MemoryStore.
	Store TokenStore

	// RedirectURI is the redirect_uri of the authorization code flow: an https URL,
	// or an http URL of localhost, 127.0.0.1 or [::1] (see Loopback), without a
	// fragment, as the MCP specification requires; NewTransport refuses others.
	// Required unless ClientCredentialsGrant is set.
	RedirectURI string
	// Authorize shows the authorization URL to the user and returns the redirect.
	// Required unless ClientCredentialsGrant is set.
	Authorize AuthorizeFunc

	// Credentials returns pre-registered client credentials for the authorization
	// server with the given issuer, or false when there are none. The credentials it
	// returns are used with that issuer only. Nil means none are pre-registered.
	Credentials func(issuer string) (ClientCredentials, bool)
	// ClientIDMetadataURL is the https URL of this client's Client ID Metadata
	// Document. When set and the authorization server advertises
	// client_id_metadata_document_supported, it is the client_id (no registration).
	ClientIDMetadataURL string
	// ClientName is the client_name sent in dynamic registration. Empty means
	// "wiremcp client".
	ClientName string
	// ApplicationType is the application_type of dynamic registration: "native" or
	// "web". Empty means "native" when RedirectURI is a loopback or localhost URL (or
	// there is none), else "web".
	ApplicationType string

	// ClientCredentialsGrant makes this a machine client: tokens come from the
	// client_credentials grant with the credentials of Credentials (or a dynamic
	// registration), never from a user.
	ClientCredentialsGrant bool
	// PrivateKey, with PrivateKeyAlg (RS256, PS256, ES256, EdDSA...), authenticates
	// the client at the token endpoint with a signed JWT (private_key_jwt, RFC 7523)
	// when its credentials' AuthMethod is private_key_jwt.
	PrivateKey    crypto.Signer
	PrivateKeyAlg string

	// MaxStepUps bounds the re-authorizations made for one request answered 403
	// insufficient_scope. Zero means 2; negative disables step-up.
	MaxStepUps int
	// DisableOfflineAccess stops the client from asking for offline_access (a
	// refresh token) when the authorization server lists that scope.
	DisableOfflineAccess bool
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
}

// Transport is an http.RoundTripper that authorizes MCP requests: it adds the bearer
// token of the endpoint's authorization server and, when the server answers 401 or
// 403 insufficient_scope, obtains a (new) token and sends the request again. Use it
// as the Transport of the *http.Client given to a Streamable HTTP or SSE client
// transport. Requests with a body are retried only when http.Request.GetBody is set
// (as it is for requests built from bytes).
//
// It is safe for concurrent use; authorizations for one endpoint are made one at a
// time.
type Transport struct {
	opts ClientOptions
	mu   sync.Mutex
	eps  map[string]*endpoint
}

// endpoint is the authorization state of one MCP endpoint URL.
type endpoint struct {
	url string
	mu  sync.Mutex // held during an authorization
	// guarded by mu:
	issuer    string
	resource  string
	token     *Token
	requested []string // scopes asked for in the last authorization
}

// NewTransport returns a Transport configured by opts.
func NewTransport(opts *ClientOptions) (*Transport, error) {
	o := *opts
	if !o.ClientCredentialsGrant && (o.RedirectURI == "" || o.Authorize == nil) {
		return nil, errors.New("auth: ClientOptions needs RedirectURI and Authorize (or ClientCredentialsGrant)")
	}
	if o.RedirectURI != "" {
		u, err := url.Parse(o.RedirectURI)
		if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil ||
			!(u.Scheme == "https" || (u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
			return nil, fmt.Errorf("auth: RedirectURI %q is neither an https URL nor an http URL of a loopback host (or has a fragment)", o.RedirectURI)
		}
	}
	if o.Base == nil {
		o.Base = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTP
	}
	if o.Store == nil {
		o.Store = &MemoryStore{}
	}
	if o.ClientName == "" {
		o.ClientName = "wiremcp client"
	}
	if o.MaxStepUps == 0 {
		o.MaxStepUps = 2
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ApplicationType == "" {
		o.ApplicationType = "native"
		if u, err := url.Parse(o.RedirectURI); err == nil && o.RedirectURI != "" && !isLoopbackHost(u.Hostname()) {
			o.ApplicationType = "web"
		}
	}
	return &Transport{opts: o, eps: map[string]*endpoint{}}, nil
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

func (t *Transport) endpoint(u *url.URL) *endpoint {
	key := u.Scheme + "://" + u.Host + u.EscapedPath()
	t.mu.Lock()
	defer t.mu.Unlock()
	ep := t.eps[key]
	if ep == nil {
		ep = &endpoint{url: key}
		t.eps[key] = ep
	}
	return ep
}

// currentToken returns the endpoint's token, refreshing it first when it expired.
func (t *Transport) currentToken(ctx context.Context, ep *endpoint) *Token {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.token != nil && ep.token.expired(t.opts.Now()) && ep.token.RefreshToken != "" {
		as, err := FetchAuthServerMetadata(ctx, t.opts.HTTPClient, ep.issuer)
		if err == nil {
			err = t.refreshLocked(ctx, ep, as)
		}
		if err != nil {
			// Not tried again for this token: the next 401 leads to a new
			// authorization.
			t.opts.Logger.Info("auth: refresh failed", "issuer", ep.issuer, "err", err)
			stale := *ep.token
			stale.RefreshToken = ""
			ep.token = &stale
		}
	}
	return ep.token
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	ep := t.endpoint(req.URL)
	tok := t.currentToken(ctx, ep)
	resp, err := t.send(req, tok, false)
	if err != nil {
		return nil, err
	}
	stepUps := 0
	for reauths := 0; ; reauths++ {
		var ch map[string]string
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch = BearerChallenge(resp.Header.Values("WWW-Authenticate"))
			if reauths >= 2 {
				return resp, nil
			}
		case http.StatusForbidden:
			ch = BearerChallenge(resp.Header.Values("WWW-Authenticate"))
			if ch == nil || ch["error"] != "insufficient_scope" || stepUps >= t.opts.MaxStepUps || t.alreadyRequested(ep, ch["scope"], tok) {
				return resp, nil
			}
			stepUps++
		default:
			return resp, nil
		}
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return resp, nil // cannot send it again
		}
		drainClose(resp)
		if ch == nil {
			ch = map[string]string{}
		}
		// A refresh is tried once: a refreshed token that is refused too calls for
		// a new authorization.
		if err := t.authorize(ctx, ep, ch, tok, resp.StatusCode == http.StatusForbidden, reauths == 0); err != nil {
			return nil, err
		}
		tok = t.currentToken(ctx, ep)
		if resp, err = t.send(req, tok, true); err != nil {
			return nil, err
		}
	}
}

func drainClose(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// send sends req with tok (when not nil). again means req was sent before: its
// body is taken anew from GetBody.
func (t *Transport) send(req *http.Request, tok *Token, again bool) (*http.Response, error) {
	r := req
	if tok != nil || again {
		r = req.Clone(req.Context())
		if again && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		if tok != nil {
			r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	return t.opts.Base.RoundTrip(r)
}

// ErrResourceMismatch is returned when the protected resource metadata names a
// resource that the MCP endpoint is not part of; no authorization is attempted.
var ErrResourceMismatch = errors.New("auth: the protected resource metadata is for another resource")

// alreadyRequested reports whether every scope of a 403 challenge was asked for in
// the authorization that produced tok, the token the refused request carried:
// asking again would not help, so the 403 is the answer. (When the endpoint's token
// changed meanwhile, the request is worth sending again with the new one.)
func (t *Transport) alreadyRequested(ep *endpoint, challenged string, tok *Token) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	want := splitScopes(challenged)
	return ep.token != nil && ep.token == tok && len(want) > 0 &&
		!slices.ContainsFunc(want, func(s string) bool { return !slices.Contains(ep.requested, s) })
}

// authorize obtains a new token for ep after a 401 (or, stepUp, a 403
// insufficient_scope) whose Bearer challenge parameters are ch. rejected is the
// token the refused request carried; mayRefresh allows replacing it with its refresh
// token instead of a new authorization.
func (t *Transport) authorize(ctx context.Context, ep *endpoint, ch map[string]string, rejected *Token, stepUp, mayRefresh bool) error {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.token != nil && ep.token != rejected {
		return nil // another request got a new token meanwhile: try that one
	}
	d, err := t.discover(ctx, ep.url, ch["resource_metadata"])
	if err != nil {
		return err
	}
	if d.issuer != ep.issuer || d.resource != ep.resource {
		// Another authorization server (or resource): nothing of the old one is
		// used with it.
		ep.issuer, ep.resource, ep.token, ep.requested = d.issuer, d.resource, nil, nil
		if g, _ := t.opts.Store.Load(ctx, tokenKey(d.issuer, d.resource)); g != nil && g.Token != nil && (rejected == nil || g.Token.AccessToken != rejected.AccessToken) {
			ep.token = g.Token
			return nil
		}
	}
	// A refresh can replace an expired or revoked token, not add scopes.
	if !stepUp && mayRefresh && ep.token != nil && ep.token.RefreshToken != "" {
		if err := t.refreshLocked(ctx, ep, d.as); err == nil {
			return nil
		}
	}
	scopes := d.scopes(ch["scope"])
	if stepUp {
		challenged := splitScopes(ch["scope"])
		// Scopes already granted are kept: the union of old and new.
		prev := ep.requested
		if ep.token != nil {
			prev = appendNew(slices.Clone(prev), splitScopes(ep.token.Scope)...)
		}
		scopes = appendNew(slices.Clone(prev), challenged...)
	}
	if !t.opts.DisableOfflineAccess && !t.opts.ClientCredentialsGrant && len(scopes) > 0 &&
		slices.Contains(d.as.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	cc, err := t.clientFor(ctx, d)
	if err != nil {
		return err
	}
	var tok *Token
	if t.opts.ClientCredentialsGrant {
		tok, err = t.clientCredentials(ctx, d, cc, scopes)
	} else {
		tok, err = t.authorizationCode(ctx, d, cc, scopes)
	}
	if err != nil {
		return err
	}
	ep.requested = scopes
	ep.token = tok
	if err := t.opts.Store.Save(ctx, tokenKey(d.issuer, d.resource), &Grant{Issuer: d.issuer, Resource: d.resource, Token: tok}); err != nil {
		t.opts.Logger.Warn("auth: cannot save the token", "err", err)
	}
	return nil
}

func tokenKey(issuer, resource string) string { return "token " + issuer + " " + resource }
func clientKey(issuer string) string          { return "client " + issuer }

// refreshLocked replaces ep.token using its refresh token.
func (t *Transport) refreshLocked(ctx context.Context, ep *endpoint, as *AuthServerMetadata) error {
	d := &discovery{issuer: ep.issuer, resource: ep.resource, as: as}
	cc, err := t.clientFor(ctx, d)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {ep.token.RefreshToken}}
	if ep.resource != "" {
		form.Set("resource", ep.resource)
	}
	tok, err := t.tokenRequest(ctx, as, cc, form)
	if err != nil {
		return err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = ep.token.RefreshToken // RFC 6749 section 6: the old one stays valid
	}
	if tok.Scope == "" {
		tok.Scope = ep.token.Scope
	}
	ep.token = tok
	if err := t.opts.Store.Save(ctx, tokenKey(ep.issuer, ep.resource), &Grant{Issuer: ep.issuer, Resource: ep.resource, Token: tok}); err != nil {
		t.opts.Logger.Warn("auth: cannot save the token", "err", err)
	}
	return nil
}

// scopes chooses the scopes of an authorization: those of the challenge, else the
// resource's scopes_supported, else none (the scope parameter is left out).
func (d *discovery) scopes(challenged string) []string {
	if s := splitScopes(challenged); len(s) > 0 {
		return s
	}
	if d.prm != nil && len(d.prm.ScopesSupported) > 0 {
		return slices.Clone(d.prm.ScopesSupported)
	}
	return nil
}

// canonicalResource returns the endpoint URL without query and fragment, the
// resource identifier when no metadata names one.
func canonicalResource(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.EscapedPath()
}
