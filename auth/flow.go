package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// discovery is what the client learned about an endpoint's authorization.
type discovery struct {
	prm      *ProtectedResourceMetadata // nil when the server publishes none
	resource string                     // the resource parameter; "" to leave it out
	issuer   string
	as       *AuthServerMetadata
	fallback bool // no authorization server metadata: the 2025-03-26 default endpoints
}

// discover finds the protected resource metadata of the endpoint (the URL from the
// challenge, else the path-suffixed well-known URL, else the root one), checks that
// it is about this endpoint, and fetches its authorization server's metadata. A
// server without protected resource metadata is treated as the 2025-03-26
// revision describes: the authorization server is at the endpoint's origin, with
// metadata at its well-known URL or else the default endpoints.
func (t *Transport) discover(ctx context.Context, endpointURL, metadataURL string) (*discovery, error) {
	pathURL, rootURL, err := ProtectedResourceMetadataURLs(endpointURL)
	if err != nil {
		return nil, err
	}
	var candidates []string
	if u, err := url.Parse(metadataURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		candidates = append(candidates, metadataURL)
	}
	candidates = appendNew(candidates, pathURL, rootURL)
	var prm *ProtectedResourceMetadata
	for _, c := range candidates {
		var m ProtectedResourceMetadata
		status, err := getJSON(ctx, t.opts.HTTPClient, c, &m)
		if err == nil {
			prm = &m
			break
		}
		if status == http.StatusOK {
			return nil, fmt.Errorf("auth: protected resource metadata: %w", err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if prm == nil {
		return t.discoverLegacy(ctx, endpointURL)
	}
	if !resourceCovers(prm.Resource, endpointURL) {
		return nil, fmt.Errorf("%w: %q does not cover %s", ErrResourceMismatch, prm.Resource, endpointURL)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("auth: the protected resource metadata names no authorization server")
	}
	var errs []error
	for _, issuer := range prm.AuthorizationServers {
		as, err := FetchAuthServerMetadata(ctx, t.opts.HTTPClient, issuer)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return &discovery{prm: prm, resource: prm.Resource, issuer: issuer, as: as}, nil
	}
	return nil, errors.Join(errs...)
}

// discoverLegacy is discovery for servers of the 2025-03-26 revision.
func (t *Transport) discoverLegacy(ctx context.Context, endpointURL string) (*discovery, error) {
	u, err := url.Parse(endpointURL)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	d := &discovery{issuer: origin, resource: endpointURL}
	var as AuthServerMetadata
	_, err = getJSON(ctx, t.opts.HTTPClient, origin+"/.well-known/oauth-authorization-server", &as)
	if err == nil {
		if as.Issuer != "" && strings.TrimSuffix(as.Issuer, "/") != origin {
			return nil, fmt.Errorf("%w: %q at %s", ErrIssuerMismatch, as.Issuer, origin)
		}
		d.as = &as
		return d, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	d.fallback = true
	d.as = &AuthServerMetadata{
		Issuer:                        origin,
		AuthorizationEndpoint:         origin + "/authorize",
		TokenEndpoint:                 origin + "/token",
		RegistrationEndpoint:          origin + "/register",
		CodeChallengeMethodsSupported: []string{"S256"},
	}
	return d, nil
}

// resourceCovers reports whether the resource identifier of protected resource
// metadata covers the endpoint: same scheme and host, and a path that is the
// endpoint's path or one of its parent paths.
func resourceCovers(resource, endpoint string) bool {
	r, err1 := url.Parse(resource)
	e, err2 := url.Parse(endpoint)
	if err1 != nil || err2 != nil || r.Fragment != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, e.Scheme) || !strings.EqualFold(r.Host, e.Host) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	ep := strings.TrimSuffix(e.EscapedPath(), "/")
	return rp == "" || ep == rp || strings.HasPrefix(ep, rp+"/")
}

// clientFor returns the client's credentials at the authorization server of d:
// pre-registered ones for that issuer, else a registration kept in the store,
// else a Client ID Metadata Document, else a new dynamic registration. Credentials
// are never used with another issuer than the one they belong to.
func (t *Transport) clientFor(ctx context.Context, d *discovery) (*ClientCredentials, error) {
	if t.opts.Credentials != nil {
		if c, ok := t.opts.Credentials(d.issuer); ok {
			return &c, nil
		}
	}
	// A kept registration serves only the redirect URI it was made for (a loopback
	// port changes from run to run).
	if g, err := t.opts.Store.Load(ctx, clientKey(d.issuer)); err == nil && g != nil && g.Client != nil && g.Issuer == d.issuer &&
		(t.opts.ClientCredentialsGrant || g.RedirectURI == t.opts.RedirectURI) {
		return g.Client, nil
	}
	if t.opts.ClientIDMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported && !t.opts.ClientCredentialsGrant {
		return &ClientCredentials{ClientID: t.opts.ClientIDMetadataURL, AuthMethod: "none"}, nil
	}
	if d.as.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("auth: no client credentials for %s, and it offers no dynamic registration", d.issuer)
	}
	c, err := t.register(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := t.opts.Store.Save(ctx, clientKey(d.issuer), &Grant{Issuer: d.issuer, Client: c, RedirectURI: t.opts.RedirectURI}); err != nil {
		t.opts.Logger.Warn("auth: cannot save the registration", "err", err)
	}
	return c, nil
}

// register performs dynamic client registration (RFC 7591).
func (t *Transport) register(ctx context.Context, d *discovery) (*ClientCredentials, error) {
	supported := d.as.TokenEndpointAuthMethodsSupported
	if len(supported) == 0 {
		supported = []string{"client_secret_basic"} // RFC 8414 section 2
	}
	// A public client ("none") for the authorization code flow when the server allows
	// it; a machine client needs a secret.
	prefs := []string{"none", "client_secret_basic", "client_secret_post"}
	if t.opts.ClientCredentialsGrant {
		prefs = prefs[1:]
	}
	method := "client_secret_basic"
	for _, m := range prefs {
		if slices.Contains(supported, m) {
			method = m
			break
		}
	}
	meta := map[string]any{
		"client_name":                t.opts.ClientName,
		"application_type":           t.opts.ApplicationType,
		"token_endpoint_auth_method": method,
	}
	if t.opts.ClientCredentialsGrant {
		meta["grant_types"] = []string{"client_credentials"}
	} else {
		meta["redirect_uris"] = []string{t.opts.RedirectURI}
		meta["grant_types"] = []string{"authorization_code", "refresh_token"}
		meta["response_types"] = []string{"code"}
	}
	body, _ := json.Marshal(meta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := t.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: registration at %s: %w", d.as.RegistrationEndpoint, oauthError(resp))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := decodeJSONBody(resp, &r); err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	if r.ClientID == "" {
		return nil, errors.New("auth: registration: no client_id in the response")
	}
	return &ClientCredentials{ClientID: r.ClientID, ClientSecret: r.ClientSecret, AuthMethod: r.AuthMethod}, nil
}

// OAuthError is an error response of an authorization server (RFC 6749 section
// 5.2), or of its authorization endpoint (section 4.1.2.1).
type OAuthError struct {
	Status      int    // HTTP status; 0 for an authorization response
	Code        string // "error"
	Description string // "error_description"
}

func (e *OAuthError) Error() string {
	s := "OAuth error"
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

func oauthError(resp *http.Response) error {
	e := &OAuthError{Status: resp.StatusCode}
	var body struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if b, err := readLimited(resp, 64<<10); err == nil && json.Unmarshal(b, &body) == nil {
		e.Code, e.Description = body.Error, body.ErrorDescription
	}
	return e
}

// ErrIssuerResponse is returned when the authorization response's iss parameter
// (RFC 9207) is missing where the server promised it, or names another issuer; the
// code is then not redeemed.
var ErrIssuerResponse = errors.New("auth: the authorization response comes from another issuer")

func randomString() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorizationCode runs the authorization code flow with PKCE.
func (t *Transport) authorizationCode(ctx context.Context, d *discovery, cc *ClientCredentials, scopes []string) (*Token, error) {
	// PKCE with S256 is required; a server that does not say it supports it is not
	// used (2025-11-25). The 2025-03-26 default endpoints are assumed to.
	if !slices.Contains(d.as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("auth: %s does not advertise PKCE with S256", d.issuer)
	}
	if d.as.AuthorizationEndpoint == "" || d.as.TokenEndpoint == "" {
		return nil, fmt.Errorf("auth: %s has no authorization or token endpoint", d.issuer)
	}
	au, err := url.Parse(d.as.AuthorizationEndpoint)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization endpoint: %w", err)
	}
	state := randomString()
	verifier := randomString()
	sum := sha256.Sum256([]byte(verifier))
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", cc.ClientID)
	q.Set("redirect_uri", t.opts.RedirectURI)
	q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	if d.resource != "" {
		q.Set("resource", d.resource)
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	au.RawQuery = q.Encode()
	redirect, err := t.opts.Authorize(ctx, au.String())
	if err != nil {
		return nil, fmt.Errorf("auth: authorization: %w", err)
	}
	rq := redirect.Query()
	// RFC 9207: with the iss parameter advertised it must be present and equal the
	// issuer; present without being advertised it is compared all the same. Exact
	// comparison, no normalisation; on a mismatch nothing else of the response
	// (error included) is trusted.
	iss, hasIss := rq["iss"]
	if d.as.AuthorizationResponseIssParameterSupported && !hasIss {
		return nil, fmt.Errorf("%w: no iss parameter, though %s advertises it", ErrIssuerResponse, d.issuer)
	}
	if hasIss && (len(iss) != 1 || iss[0] != d.issuer) {
		return nil, fmt.Errorf("%w: iss %q, expected %q", ErrIssuerResponse, iss, d.issuer)
	}
	if rq.Get("state") != state {
		return nil, errors.New("auth: the authorization response's state does not match")
	}
	if e := rq.Get("error"); e != "" {
		return nil, &OAuthError{Code: e, Description: rq.Get("error_description")}
	}
	code := rq.Get("code")
	if code == "" {
		return nil, errors.New("auth: the authorization response has no code")
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {t.opts.RedirectURI},
		"code_verifier": {verifier},
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tok, err := t.tokenRequest(ctx, d.as, cc, form)
	if err != nil {
		return nil, err
	}
	if tok.Scope == "" {
		tok.Scope = strings.Join(scopes, " ")
	}
	return tok, nil
}

// clientCredentials runs the client credentials grant.
func (t *Transport) clientCredentials(ctx context.Context, d *discovery, cc *ClientCredentials, scopes []string) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tok, err := t.tokenRequest(ctx, d.as, cc, form)
	if err != nil {
		return nil, err
	}
	if tok.Scope == "" {
		tok.Scope = strings.Join(scopes, " ")
	}
	return tok, nil
}

// tokenRequest posts form to the token endpoint, authenticated as cc.
func (t *Transport) tokenRequest(ctx context.Context, as *AuthServerMetadata, cc *ClientCredentials, form url.Values) (*Token, error) {
	if as.TokenEndpoint == "" {
		return nil, errors.New("auth: no token endpoint")
	}
	method := cc.AuthMethod
	if method == "" {
		// Unsaid: none without a secret; with one, Basic unless the server lists
		// only client_secret_post.
		method = "none"
		if cc.ClientSecret != "" {
			method = "client_secret_basic"
			if m := as.TokenEndpointAuthMethodsSupported; len(m) > 0 && !slices.Contains(m, method) && slices.Contains(m, "client_secret_post") {
				method = "client_secret_post"
			}
		}
	}
	var basic [2]string
	switch method {
	case "client_secret_basic":
		// RFC 6749 section 2.3.1: both form-encoded before Basic encoding.
		basic = [2]string{url.QueryEscape(cc.ClientID), url.QueryEscape(cc.ClientSecret)}
	case "client_secret_post":
		form.Set("client_id", cc.ClientID)
		form.Set("client_secret", cc.ClientSecret)
	case "private_key_jwt":
		if t.opts.PrivateKey == nil {
			return nil, errors.New("auth: private_key_jwt needs ClientOptions.PrivateKey")
		}
		now := t.opts.Now()
		// The audience is the authorization server's issuer identifier, which
		// draft-ietf-oauth-rfc7523bis requires in place of the token endpoint URL.
		aud := as.Issuer
		if aud == "" {
			aud = as.TokenEndpoint
		}
		assertion, err := signJWT(t.opts.PrivateKey, t.opts.PrivateKeyAlg, "", "", map[string]any{
			"iss": cc.ClientID, "sub": cc.ClientID, "aud": aud,
			"jti": randomString(), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		})
		if err != nil {
			return nil, err
		}
		form.Set("client_id", cc.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default: // none
		form.Set("client_id", cc.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic[0] != "" {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, err := t.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: token request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: token request: %w", oauthError(resp))
	}
	var r struct {
		AccessToken  string       `json:"access_token"`
		TokenType    string       `json:"token_type"`
		RefreshToken string       `json:"refresh_token"`
		ExpiresIn    *json.Number `json:"expires_in"`
		Scope        string       `json:"scope"`
	}
	if err := decodeJSONBody(resp, &r); err != nil {
		return nil, fmt.Errorf("auth: token response: %w", err)
	}
	if r.AccessToken == "" {
		return nil, errors.New("auth: token response without access_token")
	}
	if r.TokenType != "" && !strings.EqualFold(r.TokenType, "Bearer") {
		return nil, fmt.Errorf("auth: token type %q is not Bearer", r.TokenType)
	}
	tok := &Token{AccessToken: r.AccessToken, TokenType: "Bearer", RefreshToken: r.RefreshToken, Scope: r.Scope}
	if r.ExpiresIn != nil {
		if secs, err := r.ExpiresIn.Int64(); err == nil && secs > 0 {
			tok.Expiry = t.opts.Now().Add(time.Duration(secs) * time.Second)
		}
	}
	return tok, nil
}
