// Package authtest is an authorization server for tests of resource servers: it
// publishes RFC 8414 metadata and an Ed25519 JWKS on a loopback httptest.Server and
// signs RFC 9068 access tokens, so that auth.NewJWTVerifier can verify them.
package authtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Issuer signs access tokens with one Ed25519 key (kid "k1").
type Issuer struct {
	// URL is the issuer identifier, the base URL of its metadata and JWKS.
	URL string
	key ed25519.PrivateKey
}

// NewIssuer starts an Issuer; it stops at the end of the test.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &Issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		x := base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
		json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": x}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.URL = srv.URL
	return is
}

// Token returns an access token for subject sub, audience aud and the
// space-separated scope, valid for five minutes.
func (is *Issuer) Token(sub, aud, scope string) string {
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(map[string]string{"alg": "EdDSA", "kid": "k1", "typ": "at+jwt"})
	now := time.Now().Unix()
	c, _ := json.Marshal(map[string]any{"iss": is.URL, "sub": sub, "aud": aud, "scope": scope, "exp": now + 300, "iat": now, "client_id": "c", "jti": sub})
	in := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	return in + "." + enc.EncodeToString(ed25519.Sign(is.key, []byte(in)))
}
