package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// mockServer stands in for the suite's mock servers: it offers the tools the client
// scenarios call and reports what the client sent on seen.
func mockServer(t *testing.T, seen chan<- string) string {
	t.Helper()
	checkNoLeaks(t)
	s := mcp.NewServer(mcp.Implementation{Name: "mock", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{
		Name: "add_numbers", Description: "Add two numbers together",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen <- "add_numbers " + string(req.Params.Arguments)
		return mcp.TextResult("ok"), nil
	})
	s.AddTool(&mcp.Tool{
		Name: "test_client_elicitation_defaults", Description: "Elicits a form with defaults",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message: "Test client default value handling - please accept with defaults",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},` +
				`"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},` +
				`"verified":{"type":"boolean","default":true},"nickname":{"type":"string"}},"required":[]}`),
		})
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		seen <- "elicitation " + string(b)
		return mcp.TextResult("ok"), nil
	})
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	return ts.URL + "/mcp"
}

func TestScenarios(t *testing.T) {
	tests := []struct {
		scenario string
		want     []string // what the mock server saw, in order
	}{
		{"initialize", nil},
		{"tools_call", []string{`add_numbers {"a":5,"b":3}`}},
		{"elicitation-sep1034-client-defaults", []string{
			`elicitation {"action":"accept","content":{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}}`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			seen := make(chan string, 8)
			url := mockServer(t, seen)
			protocolVersion = mcp.Revision20251125
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := scenarios[tc.scenario](ctx, url); err != nil {
				t.Fatalf("scenario %s: %v", tc.scenario, err)
			}
			close(seen)
			var got []string
			for s := range seen {
				got = append(got, s)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("the server saw (-want +got):\n%s", d)
			}
		})
	}
}

// Every scenario the CI script runs has a flow, and unknown names have none.
func TestScenarioNames(t *testing.T) {
	for _, name := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "json-schema-2020-12-preservation",
		"request-metadata", "sep-2322-client-request-state", "http-standard-headers", "http-custom-headers",
		"http-invalid-tool-headers", "json-schema-ref-no-deref"} {
		if scenarios[name] == nil {
			t.Errorf("no flow for scenario %q", name)
		}
	}
	for _, name := range []string{"auth/metadata-default", "auth/iss-normalized", "auth/2025-03-26-oauth-endpoint-fallback", "auth/client-credentials-jwt"} {
		if scenarios[name] == nil {
			t.Errorf("no flow for scenario %q", name)
		}
	}
	for _, name := range []string{"auth/dpop", "auth/wif-jwt-bearer", "no-such-scenario"} {
		if scenarios[name] != nil {
			t.Errorf("scenario %q has a flow, but this program does not implement it", name)
		}
	}
}

// checkNoLeaks fails the test if, once every other cleanup has run, goroutines running
// wiremcp code remain. Goroutines end asynchronously after connections close, so it
// polls (bounded) instead of looking once.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		deadline := time.After(5 * time.Second)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			leaked := false
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "wiremcp/wiremcp/") && !strings.Contains(g, "checkNoLeaks") && !strings.Contains(g, "testing.tRunner") {
					leaked = true
				}
			}
			if !leaked {
				return
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Errorf("goroutines left running:\n%s", stacks)
				return
			}
		}
	})
}
