package auth

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/internal/ssetest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// peopleVerifier accepts the tokens "alice", "bob" and "machine" (a client token
// without subject).
type peopleVerifier struct{}

func (peopleVerifier) Verify(_ context.Context, tok string) (*Principal, error) {
	switch tok {
	case "alice", "bob":
		return &Principal{Issuer: "https://as", Subject: tok, ClientID: "app", Scopes: []string{"mcp"}}, nil
	case "machine":
		return &Principal{Issuer: "https://as", ClientID: "alice", Scopes: []string{"mcp"}}, nil
	}
	return nil, invalid("unknown")
}

func TestPrincipalKeyDistinct(t *testing.T) {
	ps := []*Principal{
		{Issuer: "https://as", Subject: "alice"},
		{Issuer: "https://as", ClientID: "alice"},
		{Issuer: "https://as", Subject: "client:alice"},
		{Issuer: "https://as", Subject: "x sub=y"},
		{Issuer: "https://as sub=x", Subject: "y"},
		{Issuer: "https://as2", Subject: "alice"},
	}
	seen := map[string]int{}
	for i, p := range ps {
		if j, dup := seen[p.Key()]; dup {
			t.Errorf("%+v and %+v share the key %q", ps[j], p, p.Key())
		}
		seen[p.Key()] = i
	}
	same := &Principal{Issuer: "https://as", Subject: "alice", ClientID: "other", Scopes: []string{"more"}}
	if same.Key() != ps[0].Key() {
		t.Errorf("the same subject with other scopes and client: %q != %q", same.Key(), ps[0].Key())
	}
}

// TestPrincipalReachesMCPHandlers: behind RequireBearer, a tool handler finds the
// principal in its context, in a Streamable HTTP session, on a stateless request
// and in an HTTP+SSE session; and with SessionOwner a session of Alice's refuses
// Bob's requests on both transports.
func TestPrincipalReachesMCPHandlers(t *testing.T) {
	leaktest.Check(t)
	var mu sync.Mutex
	var seen []string
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			who := "nobody"
			if p := PrincipalFrom(ctx); p != nil {
				who = p.Subject
			}
			mu.Lock()
			seen = append(seen, who)
			mu.Unlock()
			return mcp.TextResult(who), nil
		})
	connect := func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, tr)
		return err
	}
	sh := streamable.NewHandler(connect, &streamable.HandlerOptions{SessionOwner: SessionOwner})
	ssh := sse.NewHandler(connect, &sse.HandlerOptions{SessionOwner: SessionOwner})
	rs := &ResourceServerOptions{Verifier: peopleVerifier{}, ResourceMetadataURL: "https://rs/prm"}
	mux := http.NewServeMux()
	mux.Handle("/mcp", RequireBearer(sh, rs))
	mux.Handle("/sse", RequireBearer(ssh, rs))
	ts := httptest.NewServer(mux)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sh.Shutdown(ctx)
		ssh.Shutdown(ctx)
		ts.CloseClientConnections()
		ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	call := func(cs *mcp.ClientSession) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: json.RawMessage(`{}`)})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("whoami: %v %+v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}

	// Streamable HTTP, stateful (2025-11-25) and stateless (2026-07-28).
	for _, rev := range []string{mcp.Revision20251125, mcp.Revision20260728} {
		tr, err := streamable.NewClient(ts.URL+"/mcp", &streamable.ClientOptions{Header: bearer("alice")})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: rev}).Connect(ctx, tr)
		if err != nil {
			tr.Close()
			t.Fatalf("%s: connect: %v", rev, err)
		}
		if who := call(cs); who != "alice" {
			t.Errorf("%s: the tool handler saw %q, want alice", rev, who)
		}
		if sid := tr.SessionID(); rev == mcp.Revision20251125 {
			if sid == "" {
				t.Fatal("no session id")
			}
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
			req.Header = bearer("bob")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", rev)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 404 {
				t.Errorf("Bob's call in Alice's session: %d, want 404", resp.StatusCode)
			}
		}
		cs.Close()
	}

	// HTTP+SSE: Alice's session answers her, refuses Bob and a client token whose
	// client_id is "alice".
	tr, err := sse.NewClient(ctx, ts.URL+"/sse", &sse.ClientOptions{Header: bearer("alice")})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2024-11-05"}).Connect(ctx, tr)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	defer cs.Close()
	if who := call(cs); who != "alice" {
		t.Errorf("SSE: the tool handler saw %q, want alice", who)
	}
	// A second stream of Alice's, read raw, gives a session id to try others with.
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/sse", nil)
	req.Header = bearer("alice")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	endpoint := ssetest.Endpoint(t, bufio.NewReader(stream.Body))
	for _, tok := range []string{"bob", "machine", "alice"} {
		req, err := http.NewRequest("POST", ts.URL+endpoint, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = bearer(tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		want := 404
		if tok == "alice" {
			want = 202
		}
		if resp.StatusCode != want {
			t.Errorf("POST with %s's token to Alice's SSE session: %d, want %d", tok, resp.StatusCode, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, who := range seen {
		if who != "alice" {
			t.Errorf("a tool call ran as %q", who)
		}
	}
}
