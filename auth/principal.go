package auth

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Principal is the verified identity behind an access token.
type Principal struct {
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// Subject is the resource owner ("sub"); empty for some machine tokens.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id").
	ClientID string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Audience lists the resources the token is meant for ("aud").
	Audience []string
	// Expiry is when the token stops being valid; zero when it does not say.
	Expiry time.Time
	// Claims holds the token's claims (JWT) or the introspection response, raw.
	Claims map[string]any
}

// HasScopes reports whether p holds every scope in want.
func (p *Principal) HasScopes(want ...string) bool {
	for _, w := range want {
		if !slices.Contains(p.Scopes, w) {
			return false
		}
	}
	return true
}

// Key identifies the principal for binding state (sessions) to it: the issuer and
// the subject, or the client id when the token has no subject.
func (p *Principal) Key() string {
	who := p.Subject
	if who == "" {
		who = "client:" + p.ClientID
	}
	return p.Issuer + " " + who
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal the middleware put in ctx, or nil.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// SessionOwner maps a request that went through RequireBearer to the key of its
// principal (Principal.Key), and a request without one to "". It has the shape of
// streamable.HandlerOptions.SessionOwner: a Streamable HTTP session opened by one
// principal then refuses requests carrying another principal's token.
func SessionOwner(r *http.Request) string {
	if p := PrincipalFrom(r.Context()); p != nil {
		return p.Key()
	}
	return ""
}

// splitScopes splits a space-delimited scope string (RFC 6749 section 3.3).
func splitScopes(s string) []string {
	return strings.Fields(s)
}
