package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// TestMessagesMatchOfficialSchemas runs the scenario, and reads every listed
// resource, with every message the server writes validated against the official
// schema of the negotiated revision (MCP_SCHEMA_DIR, set by CI): tools/list,
// resources and their templates, results and isError results of every tool.
func TestMessagesMatchOfficialSchemas(t *testing.T) {
	if os.Getenv(mcpschema.EnvVar) == "" && os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set (CI=true: the server's messages must be validated against the official schemas)", mcpschema.EnvVar)
	}
	dir := sampleDir(t)
	svc := newTestService(t, dir, Config{})
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		for _, stateless := range []bool{false, true} {
			name := v + "/stdio"
			if stateless {
				name = v + "/http"
			}
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				st, ct := memory.NewPair()
				srv := newMCPServer(svc, "test", stateless)
				if _, err := srv.Connect(ctx, mcpschema.CheckServer(t, st)); err != nil {
					t.Fatal(err)
				}
				cs, err := mcp.NewClient(mcp.Implementation{Name: "catalog-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: v}).Connect(ctx, ct)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if v >= "2025-06-18" {
					scenario(t, cs, dir)
				} else {
					textOnly(t, cs)
				}
				for r, err := range cs.Resources(ctx) {
					if err != nil {
						t.Fatal(err)
					}
					if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
						t.Errorf("read %s: %v", r.URI, err)
					}
				}
				for _, err := range cs.ResourceTemplates(ctx) {
					if err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// textOnly calls each tool, with a success and an error, as a client of a revision
// before structuredContent (2025-06-18): the text block alone carries the result
// (its JSON) or the error.
func textOnly(t *testing.T, cs *mcp.ClientSession) {
	for _, c := range []struct {
		tool string
		args string
		ok   bool
	}{
		{"list_catalog", `{}`, true},
		{"describe", `{"path":"retail/shop/sales/orders"}`, true},
		{"search_catalog", `{"query":"revenue"}`, true},
		{"execute_query", `{"path":"retail/shop/sales","sql":"SELECT count(*) AS n FROM orders"}`, true},
		{"describe", `{"path":"retail/shop/salez"}`, false},
		{"execute_query", `{"path":"retail/shop/sales","sql":"SELEC 1"}`, false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		cancel()
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if res.IsError == c.ok || (c.ok && !json.Valid([]byte(text(res)))) || text(res) == "" {
			t.Errorf("%s %s: isError %v, text %q", c.tool, c.args, res.IsError, text(res))
		}
	}
}
