package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/bindings/reports"
)

// Scopes of the reports server when it requires tokens (-auth-issuer): every MCP
// request needs scopeRead; changing a report's lifecycle status needs scopeWrite too.
const (
	scopeRead  = "reports:read"
	scopeWrite = "reports:write"
)

// authConfig is the -auth-* flags: with an issuer, /mcp accepts only JWT access
// tokens (RFC 9068) of that issuer for that audience.
type authConfig struct {
	issuer   string // the authorization server's issuer identifier
	audience string // this server's canonical resource URI, e.g. https://reports.example.com/mcp
}

func (c authConfig) enabled() bool { return c.issuer != "" }

func (c authConfig) check() error {
	if c.issuer == "" && c.audience == "" {
		return nil
	}
	if c.issuer == "" || c.audience == "" {
		return fmt.Errorf("-auth-issuer and -auth-audience go together")
	}
	u, err := url.Parse(c.audience)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("-auth-audience %q is not an http(s) URL", c.audience)
	}
	return nil
}

// protectMCP puts the MCP handler behind bearer-token checks and serves the
// protected resource metadata on mux. It returns the handler for /mcp.
func protectMCP(mux *http.ServeMux, mcpHandler http.Handler, c authConfig, log *slog.Logger) (http.Handler, error) {
	v, err := auth.NewJWTVerifier(&auth.JWTVerifierOptions{Issuer: c.issuer, Audience: c.audience})
	if err != nil {
		return nil, err
	}
	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
		Resource:             c.audience,
		AuthorizationServers: []string{c.issuer},
		ScopesSupported:      []string{scopeRead, scopeWrite},
		ResourceName:         "Reports",
	})
	log.Info("MCP requires bearer tokens", "issuer", c.issuer, "audience", c.audience, "metadata", prm)
	return auth.RequireBearer(mcpHandler, &auth.ResourceServerOptions{
		Verifier:            v,
		ResourceMetadataURL: prm,
		Scopes:              []string{scopeRead},
		ToolScopes:          map[string][]string{reports.ToolUpdateStatus: {scopeWrite}},
		Logger:              log,
	}), nil
}
