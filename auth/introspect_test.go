package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestIntrospectionVerifier(t *testing.T) {
	exp := time.Now().Add(time.Hour).Unix()
	answers := map[string]string{
		"good":      fmt.Sprintf(`{"active":true,"scope":"mcp:read","client_id":"c1","sub":"u1","aud":["%s"],"iss":"https://as","exp":%d}`, testAudience, exp),
		"inactive":  `{"active":false}`,
		"other-aud": fmt.Sprintf(`{"active":true,"aud":"https://other","exp":%d}`, exp),
		"no-aud":    fmt.Sprintf(`{"active":true,"exp":%d}`, exp),
		"expired":   fmt.Sprintf(`{"active":true,"aud":"%s","exp":%d}`, testAudience, time.Now().Add(-time.Hour).Unix()),
		"other-iss": fmt.Sprintf(`{"active":true,"aud":"%s","iss":"https://evil"}`, testAudience),
		"refresh":   fmt.Sprintf(`{"active":true,"aud":"%s","token_type":"refresh_token"}`, testAudience),
		"not-json":  `hello`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != "rs" || secret != "s%3Acret" {
			w.WriteHeader(401)
			return
		}
		if r.FormValue("token_type_hint") != "access_token" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answers[r.FormValue("token")])
	}))
	defer srv.Close()
	v, err := NewIntrospectionVerifier(&IntrospectionVerifierOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "s:cret", Audience: testAudience, Issuer: "https://as"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), "good")
	if err != nil || p.Subject != "u1" || p.ClientID != "c1" || !p.HasScopes("mcp:read") || p.Issuer != "https://as" {
		t.Fatalf("good: %+v %v", p, err)
	}
	for _, tok := range []string{"inactive", "other-aud", "no-aud", "expired", "other-iss", "refresh"} {
		if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", tok, err)
		}
	}
	if _, err := v.Verify(context.Background(), "not-json"); err == nil || errors.Is(err, ErrInvalidToken) {
		t.Errorf("broken endpoint: %v, want an error other than ErrInvalidToken", err)
	}
}
