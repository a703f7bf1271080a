package auth

import (
	"context"
	"crypto"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkJWTVerify measures one verification of a valid access token, keys cached.
func BenchmarkJWTVerify(b *testing.B) {
	testKeys(b)
	ti := newTestIssuer(b, map[string]crypto.Signer{"rsa": testRSA, "ec": testEC, "ed": testEd})
	v := newVerifier(b, ti)
	for _, tc := range []struct {
		alg, kid string
		key      crypto.Signer
	}{{"RS256", "rsa", testRSA}, {"PS256", "rsa", testRSA}, {"ES256", "ec", testEC}, {"EdDSA", "ed", testEd}} {
		tok := mustSign(b, tc.key, tc.alg, tc.kid, ti.claims())
		b.Run(tc.alg, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRequireBearer measures the middleware around a no-op handler with a
// per-tool scope table (so the body is read), token check stubbed out.
func BenchmarkRequireBearer(b *testing.B) {
	h := RequireBearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), &ResourceServerOptions{
		Verifier: stubVerifier{}, Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"w": {"x"}},
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "https://rs/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok-mcp")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
