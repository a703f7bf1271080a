package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wiremcp/wiremcp/auth"
)

// authConfig is the -auth-* flags: with an issuer, every route accepts only JWT
// access tokens (RFC 9068) of that issuer for that audience, carrying the scopes.
type authConfig struct {
	issuer   string // the authorization server's issuer identifier
	audience string // the gateway's canonical resource URI, e.g. https://gw.example.com/mcp
	scope    string // space-separated scopes every request needs
	// toolScopes (-auth-tool-scope SERVER/TOOL=SCOPES): server name → tool name on
	// /mcp/SERVER → the scopes a tools/call of it needs on top of scope.
	toolScopes map[string]map[string][]string
	// maxBody and maxBodyPerClient, set by tests only, are RequireBearer's
	// MaxBodyBytes and MaxBodyBytesInFlightPerClient (zero: auth's defaults).
	maxBody, maxBodyPerClient int64
}

func (c authConfig) enabled() bool { return c.issuer != "" }

// addToolScope parses one -auth-tool-scope value, SERVER/TOOL=SCOPES.
func (c *authConfig) addToolScope(v string) error {
	target, scopes, ok := strings.Cut(v, "=")
	server, tool, ok2 := strings.Cut(target, "/")
	fields := strings.Fields(scopes)
	if !ok || !ok2 || server == "" || tool == "" || len(fields) == 0 {
		return fmt.Errorf("%q is not SERVER/TOOL=SCOPES", v)
	}
	if c.toolScopes == nil {
		c.toolScopes = map[string]map[string][]string{}
	}
	if c.toolScopes[server] == nil {
		c.toolScopes[server] = map[string][]string{}
	}
	for _, s := range fields {
		if !slices.Contains(c.toolScopes[server][tool], s) {
			c.toolScopes[server][tool] = append(c.toolScopes[server][tool], s)
		}
	}
	return nil
}

func (c authConfig) check() error {
	if c.issuer == "" && c.audience == "" && c.scope == "" && len(c.toolScopes) == 0 {
		return nil
	}
	if c.issuer == "" || c.audience == "" {
		return fmt.Errorf("-auth-issuer and -auth-audience go together (and -auth-scope and -auth-tool-scope need them)")
	}
	u, err := url.Parse(c.audience)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("-auth-audience %q is not an http(s) URL", c.audience)
	}
	return nil
}

// scopesSupported is every scope the flags name, for the protected resource
// metadata: those of -auth-scope, then those of -auth-tool-scope, sorted.
func (c authConfig) scopesSupported() []string {
	out := strings.Fields(c.scope)
	var extra []string
	for _, tools := range c.toolScopes {
		for _, ss := range tools {
			for _, s := range ss {
				if !slices.Contains(out, s) && !slices.Contains(extra, s) {
					extra = append(extra, s)
				}
			}
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// protect puts the gateway behind bearer-token checks and serves the protected
// resource metadata (RFC 9728) beside it. The HTML pages have no login of their
// own, so with tokens required they answer only requests that carry one, as every
// route does; the client's token is never forwarded to an upstream (the gateway
// sends only the credentials its configuration names). The configuration's CORS
// allow-list applies before the token check. A tools/call of a tool named
// in -auth-tool-scope needs its scopes too, on /mcp/SERVER (and its SSE route) and
// on /mcp/all under the tool's name there.
func protect(g *Gateway, c authConfig, log *slog.Logger) (http.Handler, error) {
	v, err := auth.NewJWTVerifier(&auth.JWTVerifierOptions{Issuer: c.issuer, Audience: c.audience})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
		Resource:             c.audience,
		AuthorizationServers: []string{c.issuer},
		ScopesSupported:      c.scopesSupported(),
		ResourceName:         "MCP gateway",
	})
	// One RequireBearer for every route, so that its body caps count every body it
	// reads (one built per request would count only its own); the tool scopes of
	// the route are looked up per request.
	bearer := auth.RequireBearer(g, &auth.ResourceServerOptions{
		Verifier:            v,
		ResourceMetadataURL: prm,
		Scopes:              strings.Fields(c.scope),
		ToolScopesFor: func(r *http.Request) map[string][]string {
			return c.toolScopesOf(g, r.URL.Path)
		},
		MaxBodyBytes:                  c.maxBody,
		MaxBodyBytesInFlightPerClient: c.maxBodyPerClient,
		Logger:                        log,
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// CORS comes first: a preflight carries no token (the allow-list answers
		// it), and a browser client can read a 401 or 403 only with CORS headers.
		if g.cors(w, r) {
			return
		}
		bearer.ServeHTTP(w, r)
	}))
	log.Info("the gateway requires bearer tokens", "issuer", c.issuer, "audience", c.audience, "metadata", prm)
	return mux, nil
}

// toolScopesOf returns the tool scopes of the MCP endpoint at path: those given for
// its server, or on /mcp/all those of every server under the tools' names there.
// It routes as Gateway.ServeHTTP does (a server named "all" wins over /mcp/all).
func (c authConfig) toolScopesOf(g *Gateway, path string) map[string][]string {
	rest, ok := strings.CutPrefix(path, g.opts.Prefix+"/mcp/")
	if !ok {
		return nil
	}
	name, _, _ := strings.Cut(rest, "/")
	g.mu.RLock()
	rt, all := g.servers[name], g.all
	g.mu.RUnlock()
	if rt != nil || name != "all" || all == nil {
		return c.toolScopes[name]
	}
	out := map[string][]string{}
	for server, tools := range c.toolScopes {
		for _, m := range all.mappingFor(server) {
			if m.Kind == "tool" && tools[m.Name] != nil {
				out[m.All] = tools[m.Name]
			}
		}
	}
	return out
}
