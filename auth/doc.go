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
// Streamable HTTP and HTTP+SSE sessions to their principal (streamable
// .HandlerOptions.SessionOwner, sse.HandlerOptions.SessionOwner).
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
//
// # Client
//
// Transport is an http.RoundTripper for the *http.Client of a Streamable HTTP or SSE
// client transport (streamable.ClientOptions.HTTPClient, sse.ClientOptions
// .HTTPClient). On a 401 it discovers the protected resource metadata (from the
// challenge, else the path-suffixed, else the root well-known URL) and the
// authorization server's metadata (RFC 8414 or OpenID discovery, issuer compared
// exactly), gets client credentials (pre-registered for that issuer, a Client ID
// Metadata Document, or dynamic registration with application_type), runs the
// authorization code flow with PKCE S256, the resource indicator (RFC 8707), state
// and the RFC 9207 iss check, and sends the request again with the token. It
// refreshes expired tokens, steps up on 403 insufficient_scope with the union of
// scopes (a bounded number of times), and can be a machine client with the client
// credentials grant. Registrations and tokens are kept per authorization server in a
// TokenStore (MemoryStore, or FileStore for command-line tools); Loopback receives
// the redirect on 127.0.0.1.
//
//	lb, _ := auth.NewLoopback("")
//	defer lb.Close()
//	tr, _ := auth.NewTransport(&auth.ClientOptions{
//		RedirectURI: lb.RedirectURI(),
//		Authorize: lb.Authorizer(func(u string) error {
//			fmt.Fprintln(os.Stderr, "Open", u)
//			return nil
//		}),
//	})
//	t, _ := streamable.NewClient("https://mcp.example.com/mcp",
//		&streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
package auth
