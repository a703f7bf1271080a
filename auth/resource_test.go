package auth

import (
	"context"
	"crypto"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

// stubVerifier accepts "tok-<scopes>" and fails "down".
type stubVerifier struct{}

func (stubVerifier) Verify(_ context.Context, tok string) (*Principal, error) {
	if tok == "down" {
		return nil, errors.New("issuer unreachable")
	}
	s, ok := strings.CutPrefix(tok, "tok-")
	if !ok {
		return nil, invalid("unknown token")
	}
	// Scopes are joined by "+", and ":" is written "." (b64token has no colon).
	return &Principal{Issuer: "https://as", Subject: "alice", Scopes: strings.Split(strings.ReplaceAll(s, ".", ":"), "+")}, nil
}

func TestRequireBearer(t *testing.T) {
	var seen *Principal
	var seenAuth, seenBody string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = PrincipalFrom(r.Context())
		seenAuth = r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		seenBody = string(b)
		w.WriteHeader(204)
	})
	h := RequireBearer(next, &ResourceServerOptions{
		Verifier:            stubVerifier{},
		ResourceMetadataURL: "https://rs/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"mcp"},
		MethodScopes:        map[string][]string{"resources/read": {"files:read"}},
		ToolScopes:          map[string][]string{"update_report": {"reports:write"}},
		MaxBodyBytes:        1024,
	})
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	}
	rm := `resource_metadata="https://rs/.well-known/oauth-protected-resource/mcp"`
	for _, tc := range []struct {
		name, auth, body string
		status           int
		challenge        string
	}{
		{"no token", "", call("x"), 401, `Bearer scope="mcp", ` + rm},
		{"basic scheme", "Basic YTpi", call("x"), 401, `Bearer error="invalid_token", error_description="malformed bearer token", scope="mcp", ` + rm},
		{"bad token chars", "Bearer a b", call("x"), 401, `Bearer error="invalid_token", error_description="malformed bearer token", scope="mcp", ` + rm},
		{"unknown token", "Bearer nope", call("x"), 401, `Bearer error="invalid_token", error_description="the access token is not valid", scope="mcp", ` + rm},
		{"verifier down", "Bearer down", call("x"), 503, ""},
		{"missing base scope", "Bearer tok-other", call("x"), 403, `Bearer error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="mcp", ` + rm},
		{"plain tool", "Bearer tok-mcp", call("list_reports"), 204, ""},
		{"lowercase scheme", "bearer tok-mcp", call("list_reports"), 204, ""},
		{"write tool without scope", "Bearer tok-mcp", call("update_report"), 403, `Bearer error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="mcp reports:write", ` + rm},
		{"write tool with scope", "Bearer tok-mcp+reports.write", call("update_report"), 204, ""},
		{"method scope", "Bearer tok-mcp", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}`, 403, `Bearer error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="mcp files:read", ` + rm},
		{"batch needs the union", "Bearer tok-mcp+files.read", `[{"jsonrpc":"2.0","id":1,"method":"resources/read"},` + call("update_report") + `]`, 403, `Bearer error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="mcp files:read reports:write", ` + rm},
		{"duplicate name smuggling", "Bearer tok-mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_reports","name":"update_report"}}`, 400, ""},
		{"duplicate method smuggling", "Bearer tok-mcp", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"update_report"}}`, 400, ""},
		{"case-variant name is not the name", "Bearer tok-mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"update_report","name":"list_reports"}}`, 204, ""},
		{"not JSON", "Bearer tok-mcp", `{"jsonrpc":`, 400, ""},
		{"trailing data", "Bearer tok-mcp", call("x") + call("update_report"), 400, ""},
		{"too large", "Bearer tok-mcp", call(strings.Repeat("a", 2000)), 413, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen, seenAuth, seenBody = nil, "", ""
			req := httptest.NewRequest("POST", "https://rs/mcp", strings.NewReader(tc.body))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d (%s)", rec.Code, tc.status, rec.Body)
			}
			if diff := cmp.Diff(tc.challenge, rec.Header().Get("WWW-Authenticate")); diff != "" {
				t.Errorf("WWW-Authenticate (-want +got):\n%s", diff)
			}
			if tc.status == 204 {
				if seen == nil || seen.Subject != "alice" {
					t.Errorf("principal in context: %+v", seen)
				}
				if seenAuth != "" {
					t.Errorf("the token reached the handler: %q", seenAuth)
				}
				if seenBody != tc.body {
					t.Errorf("body reached the handler as %q", seenBody)
				}
			} else if seen != nil {
				t.Errorf("the handler ran")
			}
		})
	}
}

// TestOperationsAgreesWithDecoder: for bodies the JSON-RPC decoder accepts, the
// middleware reads the same method and tool name; bodies it refuses are refused.
func TestOperationsAgreesWithDecoder(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"b","name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x","method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"m\u0065thod":"tools/call","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"a"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		ops, err := operations([]byte(body))
		msg, derr := jsonrpc.Decode([]byte(body), nil)
		req, isReq := msg.(*jsonrpc.Request)
		if derr != nil || !isReq {
			continue // the transport refuses it; whatever the middleware did, nothing runs
		}
		if err != nil {
			continue // refused by the middleware: nothing runs either
		}
		name, _ := jsonrpc.StringMember(req.Params, "name")
		got := operation{req.Method, name}
		if req.Method != "tools/call" {
			got.name = ops[0].name
		}
		if len(ops) != 1 || ops[0] != got {
			t.Errorf("%s: middleware read %+v, decoder %+v", body, ops, got)
		}
	}
}

func TestRequireBearerWithJWT(t *testing.T) {
	testKeys(t)
	ti := newTestIssuer(t, map[string]crypto.Signer{"rsa": testRSA, "ec": testEC, "ed": testEd})
	h := RequireBearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }),
		&ResourceServerOptions{Verifier: newVerifier(t, ti), ResourceMetadataURL: "https://rs/prm"})
	for name, tok := range hostileTokens(t, ti) {
		req := httptest.NewRequest("POST", "https://rs/mcp", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 401 {
			t.Errorf("%s: status %d, want 401", name, rec.Code)
		}
	}
	req := httptest.NewRequest("POST", "https://rs/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+mustSign(t, testEd, "EdDSA", "ed", ti.claims()))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 204 {
		t.Errorf("good token: status %d", rec.Code)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	mux := http.NewServeMux()
	u := MountProtectedResourceMetadata(mux, &ProtectedResourceMetadata{Resource: "https://rs.example/mcp", AuthorizationServers: []string{"https://as"}, ScopesSupported: []string{"mcp"}})
	if u != "https://rs.example/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("URL %q", u)
	}
	want := `{"resource":"https://rs.example/mcp","authorization_servers":["https://as"],"scopes_supported":["mcp"],"bearer_methods_supported":["header"]}`
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 || rec.Body.String() != want || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s %q", p, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
}
