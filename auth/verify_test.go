package auth

import (
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func newVerifier(tb testing.TB, ti *testIssuer) *JWTVerifier {
	tb.Helper()
	v, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: ti.url, Audience: testAudience, HTTPClient: ti.srv.Client()})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func TestJWTVerifierAccepts(t *testing.T) {
	testKeys(t)
	ti := newTestIssuer(t, map[string]crypto.Signer{"rsa": testRSA, "ec": testEC, "ed": testEd})
	v := newVerifier(t, ti)
	for _, tc := range []struct {
		alg, kid string
		key      crypto.Signer
	}{
		{"RS256", "rsa", testRSA}, {"PS256", "rsa", testRSA}, {"ES256", "ec", testEC}, {"EdDSA", "ed", testEd},
		{"ES256", "", testEC}, // no kid: every key that fits the algorithm is tried
	} {
		t.Run(tc.alg+"/"+tc.kid, func(t *testing.T) {
			p, err := v.Verify(context.Background(), mustSign(t, tc.key, tc.alg, tc.kid, ti.claims()))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if p.Subject != "user-1" || p.ClientID != "client-1" || p.Issuer != ti.url || !p.HasScopes("mcp:read", "mcp:write") || p.HasScopes("admin") {
				t.Fatalf("principal %+v", p)
			}
		})
	}
	if n := ti.jwksCalls.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1 (cached)", n)
	}
	// aud as an array, scopes as scp.
	p, err := v.Verify(context.Background(), mustSign(t, testRSA, "RS256", "rsa", ti.claims("aud", []string{"other", testAudience}, "scope", nil, "scp", []string{"a", "b"})))
	if err != nil || !p.HasScopes("a", "b") {
		t.Fatalf("array aud / scp: %v %+v", err, p)
	}
	// scp as a space-delimited string, as some issuers send it.
	p, err = v.Verify(context.Background(), mustSign(t, testRSA, "RS256", "rsa", ti.claims("scope", nil, "scp", "a b")))
	if err != nil || !p.HasScopes("a", "b") || p.HasScopes("a b") {
		t.Fatalf("scp string: %v %+v", err, p)
	}
	if _, err := v.Verify(context.Background(), mustSign(t, testRSA, "RS256", "rsa", ti.claims("scope", nil, "scp", 7))); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("scp number: %v, want ErrInvalidToken", err)
	}
	// Within the leeway.
	if _, err := v.Verify(context.Background(), mustSign(t, testRSA, "RS256", "rsa", ti.claims("exp", time.Now().Unix()-5, "nbf", time.Now().Unix()+5))); err != nil {
		t.Fatalf("within leeway: %v", err)
	}
}

func TestJWTVerifierKeyRotation(t *testing.T) {
	testKeys(t)
	ti := newTestIssuer(t, map[string]crypto.Signer{"k1": testRSA})
	now := time.Now()
	clock := func() time.Time { return now }
	v, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: ti.url, Audience: testAudience, HTTPClient: ti.srv.Client(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := v.Verify(ctx, mustSign(t, testRSA, "RS256", "k1", ti.claims())); err != nil {
		t.Fatal(err)
	}
	// Unknown kids: one refetch, then none until MinRefreshInterval passed.
	now = now.Add(2 * time.Second)
	for i := 0; i < 5; i++ {
		if _, err := v.Verify(ctx, mustSign(t, testEC, "ES256", "made-up", ti.claims())); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := ti.jwksCalls.Load(); n != 2 {
		t.Fatalf("JWKS fetched %d times after unknown kids, want 2", n)
	}
	// The issuer rotates in a new key; after the interval, its first token refetches.
	ti.addKey("k2", testEC)
	now = now.Add(31 * time.Second)
	if _, err := v.Verify(ctx, mustSign(t, testEC, "ES256", "k2", ti.claims())); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if n := ti.jwksCalls.Load(); n != 3 {
		t.Fatalf("JWKS fetched %d times after rotation, want 3", n)
	}
}

// TestJWTVerifierIssuerDown: without keys, a JWKS that cannot be fetched is an
// error other than ErrInvalidToken (503), not fetched again for 5 seconds; once
// keys were fetched, they stay in use past CacheTTL while the issuer is down.
func TestJWTVerifierIssuerDown(t *testing.T) {
	testKeys(t)
	ti := newTestIssuer(t, map[string]crypto.Signer{"k1": testRSA})
	now := time.Now()
	v, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: ti.url, Audience: testAudience, HTTPClient: ti.srv.Client(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok := mustSign(t, testRSA, "RS256", "k1", ti.claims())
	ti.jwksFail.Store(true)
	for i := 0; i < 3; i++ {
		if _, err := v.Verify(ctx, tok); err == nil || errors.Is(err, ErrInvalidToken) {
			t.Fatalf("issuer down, no keys: %v, want an error other than ErrInvalidToken", err)
		}
	}
	if n := ti.jwksCalls.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times within 5 s of a failure, want 1", n)
	}
	now = now.Add(6 * time.Second)
	ti.jwksFail.Store(false)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("issuer back: %v", err)
	}
	// Past CacheTTL with the issuer down: the keys fetched before still serve.
	ti.jwksFail.Store(true)
	now = now.Add(2 * time.Hour)
	later := ti.claims("exp", now.Unix()+300)
	if _, err := v.Verify(ctx, mustSign(t, testRSA, "RS256", "k1", later)); err != nil {
		t.Fatalf("stale keys while the issuer is down: %v", err)
	}
	if n := ti.jwksCalls.Load(); n != 3 {
		t.Fatalf("JWKS fetched %d times, want 3 (the refresh was tried)", n)
	}
	if _, err := v.Verify(ctx, mustSign(t, testRSA2, "RS256", "k1", later)); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("another key's signature with stale keys: %v", err)
	}
}

// hostileTokens are tokens a verifier must refuse with ErrInvalidToken (so 401),
// without panicking.
func hostileTokens(t *testing.T, ti *testIssuer) map[string]string {
	enc := base64.RawURLEncoding
	b64j := func(v any) string { b, _ := json.Marshal(v); return enc.EncodeToString(b) }
	good := mustSign(t, testRSA, "RS256", "rsa", ti.claims())
	parts := strings.Split(good, ".")
	pubDER, _ := x509.MarshalPKIXPublicKey(&testRSA.PublicKey)
	hsInput := b64j(map[string]string{"alg": "HS256", "kid": "rsa", "typ": "at+jwt"}) + "." + b64j(ti.claims())
	mac := hmac.New(sha256.New, pubDER)
	mac.Write([]byte(hsInput))
	hsInput2 := b64j(map[string]string{"alg": "HS256", "kid": "rsa", "typ": "at+jwt"}) + "." + b64j(ti.claims())
	mac2 := hmac.New(sha256.New, []byte(publicJWK(testRSA, "rsa")["n"]))
	mac2.Write([]byte(hsInput2))
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	tamperedClaims := ti.claims("scope", "admin")
	ecSig := func() string {
		tok := mustSign(t, testEC, "ES256", "ec", ti.claims())
		p := strings.Split(tok, ".")
		sig, _ := enc.DecodeString(p[2])
		// The same signature in ASN.1 DER, which JWS does not use.
		der := append([]byte{0x30, byte(len(sig) + 4), 0x02, 32}, sig[:32]...)
		der = append(append(der, 0x02, 32), sig[32:]...)
		return p[0] + "." + p[1] + "." + enc.EncodeToString(der)
	}()
	return map[string]string{
		"alg none":                            b64j(map[string]string{"alg": "none", "typ": "at+jwt"}) + "." + parts[1] + ".",
		"alg None":                            b64j(map[string]string{"alg": "None", "typ": "at+jwt"}) + "." + parts[1] + ".",
		"HS256 keyed with the public key DER": hsInput + "." + enc.EncodeToString(mac.Sum(nil)),
		"HS256 keyed with the JWK modulus":    hsInput2 + "." + enc.EncodeToString(mac2.Sum(nil)),
		"RS256 header on an EC key": mustSign(t, testEC, "ES256", "ec", ti.claims())[0:0] + func() string {
			tok := mustSign(t, testEC, "ES256", "ec", ti.claims())
			p := strings.Split(tok, ".")
			return b64j(map[string]string{"alg": "RS256", "kid": "ec", "typ": "at+jwt"}) + "." + p[1] + "." + p[2]
		}(),
		"kid path traversal":           mustSign(t, testRSA, "RS256", "../../../../etc/passwd", ti.claims()),
		"kid URL":                      mustSign(t, testRSA, "RS256", "http://127.0.0.1:1/jwks", ti.claims()),
		"signed by another key":        mustSign(t, testRSA2, "RS256", "rsa", ti.claims()),
		"embedded jwk header":          embeddedJWK(t, ti),
		"tampered payload":             parts[0] + "." + b64j(tamperedClaims) + "." + parts[2],
		"wrong audience":               mustSign(t, testRSA, "RS256", "rsa", ti.claims("aud", "https://other.example.com/mcp")),
		"audience with trailing slash": mustSign(t, testRSA, "RS256", "rsa", ti.claims("aud", testAudience+"/")),
		"numeric audience":             mustSign(t, testRSA, "RS256", "rsa", ti.claims("aud", 7)),
		"no audience":                  mustSign(t, testRSA, "RS256", "rsa", ti.claims("aud", nil)),
		"wrong issuer":                 mustSign(t, testRSA, "RS256", "rsa", ti.claims("iss", ti.url+"/")),
		"expired":                      mustSign(t, testRSA, "RS256", "rsa", ti.claims("exp", time.Now().Unix()-3600)),
		"no exp":                       mustSign(t, testRSA, "RS256", "rsa", ti.claims("exp", nil)),
		"exp not a number":             mustSign(t, testRSA, "RS256", "rsa", ti.claims("exp", "tomorrow")),
		"not yet valid":                mustSign(t, testRSA, "RS256", "rsa", ti.claims("nbf", time.Now().Unix()+3600)),
		"ID token type":                func() string { s, _ := signJWT(testRSA, "RS256", "rsa", "JWT", ti.claims()); return s }(),
		"no type":                      func() string { s, _ := signJWT(testRSA, "RS256", "rsa", "", ti.claims()); return s }(),
		"crit header":                  b64j(map[string]any{"alg": "RS256", "kid": "rsa", "typ": "at+jwt", "crit": []string{"exp"}}) + "." + parts[1] + "." + parts[2],
		"two parts":                    parts[0] + "." + parts[1],
		"four parts":                   good + ".x",
		"empty":                        "",
		"oversized":                    parts[0] + "." + strings.Repeat("A", MaxTokenBytes) + "." + parts[2],
		"padded base64":                parts[0] + "=." + parts[1] + "." + parts[2],
		"standard base64 alphabet":     strings.NewReplacer("-", "+", "_", "/").Replace(parts[0]) + "+/." + parts[1] + "." + parts[2],
		"bad base64":                   "!!!." + parts[1] + "." + parts[2],
		"header not JSON":              enc.EncodeToString([]byte("hello")) + "." + parts[1] + "." + parts[2],
		"header JSON array":            enc.EncodeToString([]byte(`["RS256"]`)) + "." + parts[1] + "." + parts[2],
		"deeply nested header":         enc.EncodeToString([]byte(`{"alg":"RS256","x":`+deep+`}`)) + "." + parts[1] + "." + parts[2],
		"deeply nested claims":         parts[0] + "." + enc.EncodeToString([]byte(`{"x":`+deep+`}`)) + "." + parts[2],
		"claims with trailing data":    parts[0] + "." + enc.EncodeToString([]byte(`{}{}`)) + "." + parts[2],
		"ES256 DER signature":          ecSig,
		"empty signature":              parts[0] + "." + parts[1] + ".",
	}
}

func embeddedJWK(t *testing.T, ti *testIssuer) string {
	// The attacker signs with their own key and embeds it in the header; the
	// verifier must only trust the issuer's JWKS.
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]any{"alg": "RS256", "typ": "at+jwt", "jwk": publicJWK(testRSA2, "x")})
	tok := mustSign(t, testRSA2, "RS256", "", ti.claims())
	p := strings.Split(tok, ".")
	return enc.EncodeToString(hdr) + "." + p[1] + "." + p[2]
}

func TestJWTVerifierRefusesHostileTokens(t *testing.T) {
	testKeys(t)
	ti := newTestIssuer(t, map[string]crypto.Signer{"rsa": testRSA, "ec": testEC, "ed": testEd})
	v := newVerifier(t, ti)
	for name, tok := range hostileTokens(t, ti) {
		t.Run(name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), tok)
			if !errors.Is(err, ErrInvalidToken) || p != nil {
				t.Fatalf("Verify = %+v, %v; want ErrInvalidToken", p, err)
			}
		})
	}
}

func TestNewJWTVerifierDropsNoneAndHMAC(t *testing.T) {
	v, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: "https://as", Audience: "https://rs", Algorithms: []string{"none", "HS256", "hs512", "RS256"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.opts.Algorithms) != 1 || v.opts.Algorithms[0] != "RS256" {
		t.Fatalf("algorithms %q, want only RS256", v.opts.Algorithms)
	}
	if _, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: "https://as"}); err == nil {
		t.Fatal("no audience: no error")
	}
}

func TestParseJWKSRefusesBadKeys(t *testing.T) {
	testKeys(t)
	good := publicJWK(testEC, "ec")
	for name, doc := range map[string]string{
		"short RSA":       `{"keys":[{"kty":"RSA","n":"` + base64.RawURLEncoding.EncodeToString(make([]byte, 128)) + `","e":"AQAB"}]}`,
		"point off curve": `{"keys":[{"kty":"EC","crv":"P-256","x":"` + good["x"] + `","y":"` + good["x"] + `"}]}`,
		"private key":     `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + publicJWK(testEd, "")["x"] + `","d":"AAAA"}]}`,
		"encryption key":  `{"keys":[{"kty":"EC","use":"enc","crv":"P-256","x":"` + good["x"] + `","y":"` + good["y"] + `"}]}`,
		"symmetric key":   `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`,
	} {
		keys, err := parseJWKS([]byte(doc))
		if err != nil || len(keys) != 0 {
			t.Errorf("%s: %d keys, %v; want the key skipped", name, len(keys), err)
		}
	}
	for name, doc := range map[string]string{
		"not an object": `[1]`,
		"deep":          `{"keys":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		"too many keys": `{"keys":[` + strings.Repeat(`{},`, maxJWKSKeys) + `{}]}`,
	} {
		if _, err := parseJWKS([]byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
