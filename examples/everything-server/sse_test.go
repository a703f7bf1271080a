package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
)

// endpointsServer serves the everything server's HTTP endpoints (/mcp and /sse)
// on 127.0.0.1 and shuts them down, with a leak check, when the test ends.
func endpointsServer(t *testing.T) string {
	t.Helper()
	checkNoLeaks(t)
	srv := newServer(nil)
	e := newEndpoints(srv, false, nil)
	ts := httptest.NewServer(e.mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		ts.Close()
		srv.Close()
	})
	return ts.URL
}

// TestLegacySSEEndpoint drives /sse with the library's HTTP+SSE client: a
// 2024-11-05 session whose tool results arrive on the event stream.
func TestLegacySSEEndpoint(t *testing.T) {
	base := endpointsServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tr, err := sse.NewClient(ctx, base+"/sse", nil)
	if err != nil {
		t.Fatalf("sse.NewClient: %v", err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "sse-test", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: mcp.Revision20241105}).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if v := cs.ProtocolVersion(); v != mcp.Revision20241105 {
		t.Errorf("negotiated %q, want %q", v, mcp.Revision20241105)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatalf("test_simple_text: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("test_simple_text: %d content blocks, want 1", len(res.Content))
	}
	if got, want := res.Content[0].(*mcp.TextContent).Text, "This is a simple text response for testing."; got != want {
		t.Errorf("test_simple_text = %q, want %q", got, want)
	}
	// Audio content does not exist in 2024-11-05: the session's revision governs
	// what the legacy transport carries.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_audio_content", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatalf("test_audio_content: %v", err)
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok || len(res.Content) != 1 {
		t.Errorf("test_audio_content under 2024-11-05: %#v, want one text block", res.Content)
	}
}

// TestLegacySSEEndpointEvent reads the raw stream: the first event is
// "endpoint" and names /sse with a sessionId, on the same origin.
func TestLegacySSEEndpointEvent(t *testing.T) {
	base := endpointsServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /sse: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	var event, data string
	for i := 0; i < 10 && sc.Scan(); i++ {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event:"); ok {
			event = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = strings.TrimSpace(v)
		}
		if line == "" && event != "" {
			break
		}
	}
	if event != "endpoint" {
		t.Fatalf("first event %q, want endpoint", event)
	}
	if !strings.HasPrefix(data, "/sse?sessionId=") && !strings.HasPrefix(data, base+"/sse?sessionId=") {
		t.Errorf("endpoint event data %q, want /sse?sessionId=…", data)
	}
}

// TestLegacySSEEndpointSecurityDefaults checks that /sse refuses what /mcp
// refuses: a foreign Origin and, on this loopback listener, a foreign Host.
func TestLegacySSEEndpointSecurityDefaults(t *testing.T) {
	base := endpointsServer(t)
	cases := []struct {
		name, path, header, value string
	}{
		{"origin sse", "/sse", "Origin", "http://evil.example.com"},
		{"origin mcp", "/mcp", "Origin", "http://evil.example.com"},
		{"host sse", "/sse", "Host", "evil.example.com"},
		{"host mcp", "/mcp", "Host", "evil.example.com"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			method, body := http.MethodGet, ""
			if tc.path == "/mcp" {
				method = http.MethodPost
				body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
			}
			req, _ := http.NewRequestWithContext(ctx, method, base+tc.path, strings.NewReader(body))
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			if tc.header == "Host" {
				req.Host = tc.value
			} else {
				req.Header.Set(tc.header, tc.value)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s with %s %q: HTTP %d, want 403", method, tc.path, tc.header, tc.value, resp.StatusCode)
			}
		})
	}
}
