package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/auth/authtest"
	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

const testAudience = "https://reports.example/mcp"

// connectWithToken opens a session (2025-11-25, so that there is a session id) with
// a fixed bearer token.
func connectWithToken(ctx context.Context, base, token string) (*mcp.ClientSession, *streamable.ClientTransport, error) {
	tr, err := streamable.NewClient(base+"/mcp", &streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "auth-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"}).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		return nil, nil, err
	}
	return cs, tr, nil
}

func TestAuthRequired(t *testing.T) {
	bin := buildServer(t)
	ti := authtest.NewIssuer(t)
	p := startServer(t, bin, "-data", t.TempDir(), "-auth-issuer", ti.URL, "-auth-audience", testAudience)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// No token: 401 naming the metadata, which names the issuer and the scopes.
	resp, err := http.Post(p.base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ch := auth.BearerChallenge(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode != 401 || ch["resource_metadata"] != "https://reports.example/.well-known/oauth-protected-resource/mcp" || ch["scope"] != scopeRead {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}
	var prm auth.ProtectedResourceMetadata
	resp, err = http.Get(p.base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if prm.Resource != testAudience || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != ti.URL {
		t.Fatalf("metadata %+v", prm)
	}
	// The inbox, which has no login, is not served.
	if resp, err := http.Get(p.base + "/"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("inbox with auth: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}

	// Tokens for another audience or of the wrong kind are refused.
	for name, tok := range map[string]string{
		"other audience": ti.Token("alice", "https://other.example/mcp", scopeRead),
		"tampered":       ti.Token("alice", testAudience, scopeRead)[:20] + "x" + ti.Token("alice", testAudience, scopeRead)[21:],
	} {
		if _, _, err := connectWithToken(ctx, p.base, tok); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: connect error %v, want HTTP 401", name, err)
		}
	}

	// A read token lists reports but cannot change a lifecycle status (403, step-up).
	cs, _, err := connectWithToken(ctx, p.base, ti.Token("alice", testAudience, scopeRead))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: reports.ToolList, Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
		t.Fatalf("list with a read token: %v %v", err, res)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: reports.ToolUpdateStatus, Arguments: json.RawMessage(`{"reportId":"ci-main-nightly","lifecycleStatus":"dismissed"}`)})
	var se *streamable.StatusError
	if !errors.As(err, &se) || se.StatusCode != 403 || !strings.Contains(se.Body, "insufficient_scope") {
		t.Fatalf("update with a read token: %v, want HTTP 403 insufficient_scope", err)
	}

	// A write token can; and a session of alice's is not bob's.
	w, wt, err := connectWithToken(ctx, p.base, ti.Token("alice", testAudience, scopeRead+" "+scopeWrite))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.CallTool(ctx, &mcp.CallToolParams{Name: reports.ToolUpdateStatus, Arguments: json.RawMessage(`{"reportId":"ci-main-nightly","lifecycleStatus":"dismissed"}`)})
	if err != nil || res.IsError {
		t.Fatalf("update with a write token: %v %+v", err, res)
	}
	sid := wt.SessionID()
	if sid == "" {
		t.Fatal("no session id")
	}
	req, _ := http.NewRequest("POST", p.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", w.ProtocolVersion())
	req.Header.Set("Authorization", "Bearer "+ti.Token("bob", testAudience, scopeRead+" "+scopeWrite))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("alice's session with bob's token: %d, want 404", resp.StatusCode)
	}
}
