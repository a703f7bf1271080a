package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/wiremcp/wiremcp/auth"
)

// staticVerifier accepts two fixed tokens (a real server uses auth.JWTVerifier or
// auth.IntrospectionVerifier).
type staticVerifier map[string][]string

func (v staticVerifier) Verify(_ context.Context, tok string) (*auth.Principal, error) {
	scopes, ok := v[tok]
	if !ok {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	return &auth.Principal{Issuer: "https://as.example.com", Subject: "alice", Scopes: scopes}, nil
}

func ExampleRequireBearer() {
	mux := http.NewServeMux()
	prm := auth.MountProtectedResourceMetadata(mux, &auth.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://as.example.com"},
		ScopesSupported:      []string{"reports:read", "reports:write"},
	})
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", auth.PrincipalFrom(r.Context()).Subject)
	})
	mux.Handle("/mcp", auth.RequireBearer(mcpHandler, &auth.ResourceServerOptions{
		Verifier:            staticVerifier{"read-token": {"reports:read"}, "write-token": {"reports:read", "reports:write"}},
		ResourceMetadataURL: prm,
		Scopes:              []string{"reports:read"},
		ToolScopes:          map[string][]string{"update_report": {"reports:write"}},
	}))

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_report","arguments":{}}}`
	for _, tok := range []string{"", "read-token", "write-token"} {
		req := httptest.NewRequest("POST", "https://mcp.example.com/mcp", strings.NewReader(call))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(strings.TrimSpace(fmt.Sprint(rec.Code, " ", rec.Header().Get("WWW-Authenticate"))))
		if rec.Code == 200 {
			fmt.Println(rec.Body)
		}
	}
	// Output:
	// 401 Bearer scope="reports:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 403 Bearer error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="reports:read reports:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200
	// hello alice
}
