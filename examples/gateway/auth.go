package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/wiremcp/wiremcp/auth"
)

// authConfig is the -auth-* flags: with an issuer, every route accepts only JWT
// access tokens (RFC 9068) of that issuer for that audience, carrying the scopes.
type authConfig struct {
	issuer   string // the authorization server's issuer identifier
	audience string // the gateway's canonical resource URI, e.g. https://gw.example.com/mcp
	scope    string // space-separated scopes every request needs
}

func (c authConfig) enabled() bool { return c.issuer != "" }

func (c authConfig) check() error {
	if c.issuer == "" && c.audience == "" && c.scope == "" {
		return nil
	}
	if c.issuer == "" || c.audience == "" {
		return fmt.Errorf("-auth-issuer and -auth-audience go together (and -auth-scope needs them)")
	}
	u, err := url.Parse(c.audience)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("-auth-audience %q is not an http(s) URL", c.audience)
	}
	return nil
}

// protect puts the gateway behind bearer-token checks and serves the protected
// resource metadata (RFC 9728) beside it. The HTML pages have no login of their
// own, so with tokens required they answer only requests that carry one, as every
// route does; the client's token is never forwarded to an upstream (the gateway
// sends only the credentials its configuration names).
func protect(g http.Handler, c authConfig, log *slog.Logger) (http.Handler, error) {
	v, err := auth.NewJWTVerifier(&auth.JWTVerifierOptions{Issuer: c.issuer, Audience: c.audience})
	if err != nil {
		return nil, err
	}
	scopes := strings.Fields(c.scope)
	mux := http.NewServeMux()
	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
		Resource:             c.audience,
		AuthorizationServers: []string{c.issuer},
		ScopesSupported:      scopes,
		ResourceName:         "MCP gateway",
	})
	mux.Handle("/", auth.RequireBearer(g, &auth.ResourceServerOptions{
		Verifier:            v,
		ResourceMetadataURL: prm,
		Scopes:              scopes,
		Logger:              log,
	}))
	log.Info("the gateway requires bearer tokens", "issuer", c.issuer, "audience", c.audience, "metadata", prm)
	return mux, nil
}
