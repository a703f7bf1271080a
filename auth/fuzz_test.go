package auth

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzParseChallenges: the parser never panics, and whatever it accepts renders
// back (FormatChallenge) into a header it parses to the same parameters.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/y", scope="a b"`,
		`Basic realm="a, b", Bearer error="invalid_token"`,
		`Negotiate abc+/==, Bearer`, `Bearer realm="a\"b"`, `Bearer scope=`, `,,,`, `Bearer x=y,`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseChallenges([]string{s})
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Token68 != "" || !isTokenString(c.Scheme) {
				continue
			}
			var ps [][2]string
			for k, v := range c.Params {
				if v != "" && isTokenString(k) && !hasCtl(v) {
					ps = append(ps, [2]string{k, v})
				}
			}
			again, err := ParseChallenges([]string{FormatChallenge(c.Scheme, ps...)})
			if err != nil || len(again) != 1 {
				t.Fatalf("re-parse of %q: %v %v", FormatChallenge(c.Scheme, ps...), again, err)
			}
			for _, p := range ps {
				if again[0].Params[strings.ToLower(p[0])] != p[1] {
					t.Fatalf("param %q: %q != %q", p[0], again[0].Params[p[0]], p[1])
				}
			}
		}
	})
}

func isTokenString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return s != ""
}

func hasCtl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// FuzzJWTVerify: any string given as a token is refused with ErrInvalidToken, or
// accepted only when it is a validly signed token; it never panics.
func FuzzJWTVerify(f *testing.F) {
	testKeys(f)
	ti := newTestIssuer(f, map[string]crypto.Signer{"rsa": testRSA, "ec": testEC, "ed": testEd})
	v, err := NewJWTVerifier(&JWTVerifierOptions{Issuer: ti.url, Audience: testAudience, HTTPClient: ti.srv.Client()})
	if err != nil {
		f.Fatal(err)
	}
	for _, tok := range []string{
		mustSign(f, testRSA, "RS256", "rsa", ti.claims()),
		mustSign(f, testEC, "ES256", "ec", ti.claims()),
		mustSign(f, testEd, "EdDSA", "ed", ti.claims()),
		"a.b.c", "", "eyJhbGciOiJub25lIn0.e30.",
	} {
		f.Add(tok)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := v.Verify(context.Background(), tok)
		if err != nil && !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("error without ErrInvalidToken: %v", err)
		}
		if err == nil && (p == nil || p.Issuer != ti.url) {
			t.Fatalf("accepted %q as %+v", tok, p)
		}
	})
}

// FuzzParseJWKS: the JWKS decoder never panics and returns only usable keys.
func FuzzParseJWKS(f *testing.F) {
	testKeys(f)
	for _, k := range []crypto.Signer{testRSA, testEC, testEd} {
		b, _ := json.Marshal(map[string]any{"keys": []any{publicJWK(k, "k")}})
		f.Add(b)
	}
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := parseJWKS(b)
		if err != nil {
			return
		}
		for _, k := range keys {
			if k.key == nil {
				t.Fatalf("a key without key material: %+v", k)
			}
		}
	})
}
