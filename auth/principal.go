package auth

import (
	"context"
	"net/http"
	"slices"
	"strconv"
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
// the subject, or the client id when the token has no subject. Distinct principals
// have distinct keys: each part is quoted, and a subject never takes the form of a
// client id.
func (p *Principal) Key() string {
	if p.Subject == "" {
		return "iss=" + strconv.Quote(p.Issuer) + " client=" + strconv.Quote(p.ClientID)
	}
	return "iss=" + strconv.Quote(p.Issuer) + " sub=" + strconv.Quote(p.Subject)
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal the middleware put in ctx, or nil.
//
// An http.Handler behind RequireBearer finds the principal of its request. An MCP
// handler (a tool, resource or prompt handler of package mcp) finds the principal
// of the context its connection was started with: on a stateless request, that
// request's; in a Streamable HTTP or HTTP+SSE session, the principal of the
// request that opened the session (initialize, or the GET of the event stream),
// when the program passes the ConnectFunc's context to mcp.Server.Connect. With
// SessionOwner every later request of the session has the same issuer and subject,
// but its token may carry other scopes and another expiry (a client that stepped
// up): per-request scope checks belong in ResourceServerOptions (Scopes,
// MethodScopes, ToolScopes), which sees every request.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// SessionOwner maps a request that went through RequireBearer to the key of its
// principal (Principal.Key), and a request without one to "". It has the shape of
// streamable.HandlerOptions.SessionOwner and sse.HandlerOptions.SessionOwner: a
// Streamable HTTP or HTTP+SSE session opened by one principal then refuses
// requests carrying another principal's token (404, as for an unknown session).
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
