// Package auth is MCP authorization over HTTP (OAuth 2.1): the resource server side
// that protects an MCP endpoint, and the client side that obtains tokens for one.
// It uses only the standard library; packages mcp and transport never import it,
// so a program that does not use it does not link it.
//
// # Resource server
//
// RequireBearer wraps any http.Handler (a streamable.Handler, an sse.Handler, a
// gateway): requests without a valid bearer token get 401 with a WWW-Authenticate
// challenge naming the protected resource metadata (RFC 9728), tokens without the
// scopes a request needs get 403 insufficient_scope, and the verified Principal
// reaches handlers through the request context (PrincipalFrom). Tokens are checked
// by a Verifier: JWTVerifier (RFC 9068 JWT access tokens against the issuer's JWKS)
// or IntrospectionVerifier (RFC 7662). MountProtectedResourceMetadata serves the
// metadata at the path-suffixed and the root well-known URLs. SessionOwner binds
// Streamable HTTP sessions to their principal (streamable.HandlerOptions
// .SessionOwner).
//
//	v, _ := auth.NewJWTVerifier(&auth.JWTVerifierOptions{
//		Issuer:   "https://as.example.com",
//		Audience: "https://mcp.example.com/mcp",
//	})
//	mux := http.NewServeMux()
//	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
//		Resource:             "https://mcp.example.com/mcp",
//		AuthorizationServers: []string{"https://as.example.com"},
//		ScopesSupported:      []string{"reports:read", "reports:write"},
//	})
//	h := streamable.NewHandler(connect, &streamable.HandlerOptions{SessionOwner: auth.SessionOwner})
//	mux.Handle("/mcp", auth.RequireBearer(h, &auth.ResourceServerOptions{
//		Verifier:            v,
//		ResourceMetadataURL: prm,
//		Scopes:              []string{"reports:read"},
//		ToolScopes:          map[string][]string{"update_report": {"reports:write"}},
//	}))
package auth
