package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRESTTypeScriptSDKClient lists and calls the bridged demo API's tools with the
// official TypeScript SDK client (tsclient/rest.mjs).
func TestRESTTypeScriptSDKClient(t *testing.T) {
	node := nodeSetup(t, 20, 0)
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	root := "e0000001-0000-4000-8000-000000000002"
	out := runNode(t, node, "rest.mjs", "--url", tg.srv.URL+"/mcp/kb", "--project", p1, "--entity", root)
	var got struct {
		OK                 bool           `json:"ok"`
		Tools              []string       `json:"tools"`
		ProjectSlugs       []string       `json:"projectSlugs"`
		ProjectsPagination map[string]any `json:"projectsPagination"`
		GraphRoot          string         `json:"graphRoot"`
		GraphEdges         int            `json:"graphEdges"`
		BadEnumIsError     bool           `json:"badEnumIsError"`
		BadEnumText        string         `json:"badEnumText"`
		MissingIsError     bool           `json:"missingIsError"`
		MissingCode        string         `json:"missingCode"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	want := []string{"get_entity", "get_entity_graph", "list_projects", "list_quotable_blocks", "list_search_performance", "search_entities"}
	if diff := cmp.Diff(want, got.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"atlas-notes", "psymetric"}, got.ProjectSlugs); diff != "" {
		t.Errorf("projects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"page": 1.0, "limit": 2.0, "total": 3.0, "hasMore": true}, got.ProjectsPagination); diff != "" {
		t.Errorf("pagination (-want +got):\n%s", diff)
	}
	if !got.OK || got.GraphRoot != root || got.GraphEdges == 0 || !got.BadEnumIsError || !strings.Contains(got.BadEnumText, "concept") ||
		!got.MissingIsError || got.MissingCode != "NOT_FOUND" {
		t.Errorf("summary: %+v", got)
	}
}

// TestRESTInspectorCLI lists and calls the bridged tools with the MCP Inspector CLI.
func TestRESTInspectorCLI(t *testing.T) {
	node := nodeSetup(t, 22, 19)
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cli := filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(filepath.Join(tsDir, cli)); err != nil {
		t.Fatalf("inspector launcher not found: %v", err)
	}
	t.Setenv("MCP_CATALOG_PATH", filepath.Join(t.TempDir(), "mcp.json"))
	inspect := func(args ...string) map[string]any {
		t.Helper()
		out := runNode(t, node, append([]string{cli, "--cli", tg.srv.URL + "/mcp/kb", "--transport", "http"}, args...)...)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("inspector output %q: %v", out, err)
		}
		return v
	}
	var names []string
	for _, tool := range inspect("--method", "tools/list")["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if len(names) != 6 || !slices.Contains(names, "list_search_performance") {
		t.Errorf("tools/list: %v", names)
	}
	res := inspect("--method", "tools/call", "--tool-name", "search_entities", "--tool-arg", "projectId="+p2, "--tool-arg", "entityType=concept")
	sc, _ := res["structuredContent"].(map[string]any)
	data, _ := sc["data"].([]any)
	if res["isError"] == true || len(data) == 0 {
		t.Fatalf("tools/call: %v", res)
	}
	for _, e := range data {
		if e := e.(map[string]any); e["projectId"] != p2 || e["entityType"] != "concept" {
			t.Errorf("entity %v", e)
		}
	}
	// An isError result makes the Inspector exit with status 5 after printing it.
	before := b.calls.Load()
	cmd := exec.Command(node, cli, "--cli", tg.srv.URL+"/mcp/kb", "--transport", "http", "--method", "tools/call",
		"--tool-name", "list_search_performance", "--tool-arg", "projectId="+p1, "--tool-arg", "dateStart=02/20/2025")
	cmd.Dir = tsDir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	var bad map[string]any
	if jerr := json.Unmarshal(out, &bad); jerr != nil || err == nil {
		t.Fatalf("invalid date: exit %v, output %q", err, out)
	}
	if bad["isError"] != true || !strings.Contains(string(out), "/dateStart") {
		t.Errorf("invalid date: %v", bad)
	}
	if b.calls.Load() != before {
		t.Error("the API was called with an invalid date")
	}
}
