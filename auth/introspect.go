package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// IntrospectionVerifierOptions configures an IntrospectionVerifier. Endpoint and
// Audience are required. The struct is copied by NewIntrospectionVerifier.
type IntrospectionVerifierOptions struct {
	// Endpoint is the authorization server's introspection endpoint (RFC 7662).
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the endpoint
	// (HTTP Basic, RFC 6749 section 2.3.1). Empty ClientID sends no credentials.
	ClientID, ClientSecret string
	// Audience is this server's canonical resource URI; the response's "aud" must
	// contain it.
	Audience string
	// Issuer, when set, must equal the response's "iss" when the response has one.
	Issuer string
	// HTTPClient sends the requests. Nil means a client with a 15 second timeout.
	HTTPClient *http.Client
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
}

// IntrospectionVerifier asks the authorization server about every token (RFC 7662).
// It keeps no cache: a revoked token is refused at once. It is safe for concurrent
// use.
type IntrospectionVerifier struct {
	opts IntrospectionVerifierOptions
}

// NewIntrospectionVerifier returns a verifier that introspects tokens at
// opts.Endpoint.
func NewIntrospectionVerifier(opts *IntrospectionVerifierOptions) (*IntrospectionVerifier, error) {
	o := *opts
	if o.Endpoint == "" || o.Audience == "" {
		return nil, errors.New("auth: IntrospectionVerifierOptions needs Endpoint and Audience")
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTP
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &IntrospectionVerifier{opts: o}, nil
}

type introspection struct {
	Active    bool            `json:"active"`
	Scope     string          `json:"scope"`
	ClientID  string          `json:"client_id"`
	Sub       string          `json:"sub"`
	Exp       *json.Number    `json:"exp"`
	Nbf       *json.Number    `json:"nbf"`
	Aud       json.RawMessage `json:"aud"`
	Iss       string          `json:"iss"`
	TokenType string          `json:"token_type"`
}

// Verify implements Verifier.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*Principal, error) {
	if token == "" || len(token) > MaxTokenBytes {
		return nil, invalid("token empty or longer than %d bytes", MaxTokenBytes)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultHTTPTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.opts.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.opts.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	}
	resp, err := v.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: introspection: HTTP %d", resp.StatusCode)
	}
	b, err := readLimited(resp, maxMetadataBytes)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	if !jsonDepthOK(b, maxJSONDepth) {
		return nil, errors.New("auth: introspection: response nested too deeply")
	}
	var r introspection
	if err := strictUnmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	if !r.Active {
		return nil, invalid("token is not active")
	}
	if r.TokenType != "" && !strings.EqualFold(r.TokenType, "Bearer") && !strings.EqualFold(r.TokenType, "access_token") {
		return nil, invalid("token type %q", r.TokenType)
	}
	if v.opts.Issuer != "" && r.Iss != "" && r.Iss != v.opts.Issuer {
		return nil, invalid("issuer %q is not %q", r.Iss, v.opts.Issuer)
	}
	aud, err := audiences(r.Aud)
	if err != nil {
		return nil, invalid("%v", err)
	}
	if !slices.Contains(aud, v.opts.Audience) {
		return nil, invalid("token is not meant for %s", v.opts.Audience)
	}
	now := v.opts.Now()
	var exp time.Time
	if r.Exp != nil {
		if exp, err = numericDate(*r.Exp); err != nil {
			return nil, invalid("exp: %v", err)
		}
		if !now.Before(exp) {
			return nil, invalid("token expired")
		}
	}
	if r.Nbf != nil {
		nbf, err := numericDate(*r.Nbf)
		if err != nil {
			return nil, invalid("nbf: %v", err)
		}
		if now.Before(nbf) {
			return nil, invalid("token not valid yet")
		}
	}
	var all map[string]any
	_ = json.Unmarshal(b, &all)
	iss := r.Iss
	if iss == "" {
		iss = v.opts.Issuer
	}
	return &Principal{Issuer: iss, Subject: r.Sub, ClientID: r.ClientID, Scopes: splitScopes(r.Scope), Audience: aud, Expiry: exp, Claims: all}, nil
}
