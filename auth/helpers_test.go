package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	testKeysOnce sync.Once
	testRSA      *rsa.PrivateKey
	testRSA2     *rsa.PrivateKey
	testEC       *ecdsa.PrivateKey
	testEd       ed25519.PrivateKey
)

func testKeys(tb testing.TB) {
	tb.Helper()
	testKeysOnce.Do(func() {
		var err error
		if testRSA, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if testRSA2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if testEC, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		if _, testEd, err = ed25519.GenerateKey(rand.Reader); err != nil {
			panic(err)
		}
	})
}

// publicJWK renders the public half of key as a JWK.
func publicJWK(key crypto.Signer, kid string) map[string]string {
	enc := base64.RawURLEncoding
	m := map[string]string{"kid": kid, "use": "sig"}
	switch k := key.Public().(type) {
	case *rsa.PublicKey:
		m["kty"] = "RSA"
		m["n"] = enc.EncodeToString(k.N.Bytes())
		m["e"] = enc.EncodeToString(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PublicKey:
		m["kty"] = "EC"
		m["crv"] = "P-256"
		b, _ := k.Bytes()
		m["x"] = enc.EncodeToString(b[1:33])
		m["y"] = enc.EncodeToString(b[33:])
	case ed25519.PublicKey:
		m["kty"] = "OKP"
		m["crv"] = "Ed25519"
		m["x"] = enc.EncodeToString(k)
	}
	return m
}

// testIssuer is an authorization server that publishes metadata and a JWKS.
type testIssuer struct {
	srv       *httptest.Server
	url       string
	mu        sync.Mutex
	jwks      []map[string]string
	jwksCalls atomic.Int32
	jwksFail  atomic.Bool // the JWKS endpoint answers 500
}

func newTestIssuer(tb testing.TB, keys map[string]crypto.Signer) *testIssuer {
	tb.Helper()
	ti := &testIssuer{}
	for kid, k := range keys {
		ti.jwks = append(ti.jwks, publicJWK(k, kid))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": ti.url, "jwks_uri": ti.url + "/jwks", "token_endpoint": ti.url + "/token"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		ti.jwksCalls.Add(1)
		if ti.jwksFail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		ti.mu.Lock()
		defer ti.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"keys": ti.jwks})
	})
	ti.srv = httptest.NewServer(mux)
	ti.url = ti.srv.URL
	tb.Cleanup(ti.srv.Close)
	return ti
}

func (ti *testIssuer) addKey(kid string, k crypto.Signer) {
	ti.mu.Lock()
	ti.jwks = append(ti.jwks, publicJWK(k, kid))
	ti.mu.Unlock()
}

const testAudience = "https://mcp.example.com/mcp"

// claims returns a valid claims set for ti, modified by the given pairs.
func (ti *testIssuer) claims(kv ...any) map[string]any {
	now := time.Now().Unix()
	c := map[string]any{
		"iss": ti.url, "sub": "user-1", "aud": testAudience, "exp": now + 300, "iat": now,
		"client_id": "client-1", "scope": "mcp:read mcp:write", "jti": "j1",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	return c
}

func mustSign(tb testing.TB, key crypto.Signer, alg, kid string, claims any) string {
	tb.Helper()
	tok, err := signJWT(key, alg, kid, "at+jwt", claims)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}
