//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/wiremcp/wiremcp/internal/nodetest"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The TypeScript tests drive the server with the official MCP TypeScript SDK client
// (tsclient/client.mjs) over stateless Streamable HTTP and stdio, and with the MCP
// Inspector CLI over HTTP; both packages are pinned in tsclient/package.json.
//
// Node is WIREMCP_NODE when set, else node on PATH; npm (for `npm ci` when
// tsclient/node_modules lacks the pinned packages) is WIREMCP_NPM, else npm on PATH.
// Without them the tests skip, unless CI=true, where they fail.

const tsDir = "tsclient"

// tsSetup returns the node binary, installing the pinned packages if needed.
func tsSetup(t *testing.T) string {
	t.Helper()
	return nodetest.Setup(t, tsDir, 20, 0, "the TypeScript tests")
}

// runNode runs node with args in dir, in a process group of its own that is gone
// when it returns, and returns stdout and stderr.
func runNode(t *testing.T, node, dir string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	pgid := cmd.Process.Pid
	err := cmd.Wait()
	if kerr := syscall.Kill(-pgid, 0); !errors.Is(kerr, syscall.ESRCH) {
		t.Errorf("processes of %v are still running after it exited", args)
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return stdout.String(), stderr.String(), err
}

type tsSummary struct {
	OK              bool     `json:"ok"`
	Transport       string   `json:"transport"`
	SDK             string   `json:"sdk"`
	ProtocolVersion *string  `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Projects        []string `json:"projects"`
	Orders          struct {
		RowCount int      `json:"rowCount"`
		Columns  []string `json:"columns"`
		Samples  int      `json:"samples"`
	} `json:"orders"`
	SearchFirst  string `json:"searchFirst"`
	Aggregate    []any  `json:"aggregate"`
	NamedRows    int    `json:"namedRows"`
	UnknownModel struct {
		IsError    bool   `json:"isError"`
		Suggestion string `json:"suggestion"`
	} `json:"unknownModel"`
	CopyRefused  bool     `json:"copyRefused"`
	Templates    []string `json:"templates"`
	ModelSources []string `json:"modelSources"`
	Resources    int      `json:"resources"`
}

func TestTSClient(t *testing.T) {
	node := tsSetup(t)
	dir := sampleDir(t)
	svc := newTestService(t, dir, Config{})
	want := direct(t, dir, "SELECT count(*), sum(quantity) FROM 'DIR/retail/shop/data/orders.parquet'")
	check := func(t *testing.T, out, stderr string, transport string) {
		var sum tsSummary
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &sum); err != nil {
			t.Fatalf("summary %q: %v\nstderr: %s", out, err, stderr)
		}
		if strings.Contains(stderr, "transport error") || strings.Contains(stderr, "level=WARN") || strings.Contains(stderr, "level=ERROR") {
			t.Errorf("stderr of a successful run: %s", stderr)
		}
		checks := []struct {
			name      string
			want, got any
		}{
			{"ok", true, sum.OK},
			{"transport", transport, sum.Transport},
			{"tools", []string{"describe", "execute_query", "list_catalog", "search_catalog"}, sum.Tools},
			{"projects", []string{"project climate", "project operations", "project retail"}, sum.Projects},
			{"orders rowCount", sampleOrders, sum.Orders.RowCount},
			{"orders columns", []string{"order_id:BIGINT", "customer_id:BIGINT", "product_id:BIGINT", "quantity:BIGINT", "unit_price:DOUBLE", "ordered_at:TIMESTAMP"}, sum.Orders.Columns},
			{"orders samples", sampleRows, sum.Orders.Samples},
			{"search", "retail/shop/sales/revenue_by_month", sum.SearchFirst},
			{"aggregate", normalize(want)[0], normalize([][]any{sum.Aggregate})[0]},
			{"named query rows", 12, sum.NamedRows},
			{"unknown model", true, sum.UnknownModel.IsError},
			{"suggestion", "retail/shop/sales", sum.UnknownModel.Suggestion},
			{"COPY refused", true, sum.CopyRefused},
			{"templates", len(templates) + 1, len(sum.Templates)},
			{"model sources", []string{"orders", "customers", "products"}, sum.ModelSources},
			{"resources listed", len(svc.Catalog().Entries()), sum.Resources},
		}
		for _, c := range checks {
			if d := cmp.Diff(c.want, c.got); d != "" {
				t.Errorf("%s over %s (-want +got):\n%s", c.name, transport, d)
			}
		}
		protocol := "(not exposed by the SDK's stdio transport)"
		if sum.ProtocolVersion != nil {
			protocol = *sum.ProtocolVersion
		}
		t.Logf("SDK %s over %s, protocol %s", sum.SDK, transport, protocol)
	}
	t.Run("http", func(t *testing.T) {
		ts := startHTTP(t, svc)
		out, stderr, err := runNode(t, node, tsDir, "client.mjs", "--transport", "http", "--url", ts.URL+"/mcp")
		if err != nil {
			t.Fatalf("client.mjs: %v\n%s", err, stderr)
		}
		check(t, out, stderr, "http")
	})
	t.Run("stdio", func(t *testing.T) {
		bin := buildServer(t)
		out, stderr, err := runNode(t, node, tsDir, "client.mjs", "--transport", "stdio", "--server", bin, "--catalog", dir)
		if err != nil {
			t.Fatalf("client.mjs: %v\n%s", err, stderr)
		}
		check(t, out, stderr, "stdio")
	})
}

// TestInspectorCLI discovers, describes and queries with the MCP Inspector CLI.
func TestInspectorCLI(t *testing.T) {
	node := tsSetup(t)
	dir := sampleDir(t)
	ts := startHTTP(t, newTestService(t, dir, Config{}))
	// The CLI looks for its own package.json relative to the working directory, so
	// it runs from its build folder.
	cliDir, err := filepath.Abs(filepath.Join(tsDir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build"))
	if err != nil {
		t.Fatal(err)
	}
	inspect := func(args ...string) map[string]any {
		t.Helper()
		out, stderr, err := runNode(t, node, cliDir, append([]string{"index.js", ts.URL + "/mcp", "--transport", "http"}, args...)...)
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("inspector %v: output %q: %v", args, out, err)
		}
		return v
	}
	tools := inspect("--method", "tools/list")["tools"].([]any)
	if len(tools) != 4 {
		t.Errorf("tools/list: %v", tools)
	}
	structured := func(v map[string]any) map[string]any {
		sc, _ := v["structuredContent"].(map[string]any)
		if sc == nil || v["isError"] == true {
			t.Fatalf("tool result %v", v)
		}
		return sc
	}
	items := structured(inspect("--method", "tools/call", "--tool-name", "list_catalog", "--tool-arg", "path=retail"))["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["path"] != "retail/shop" {
		t.Errorf("list_catalog retail: %v", items)
	}
	d := structured(inspect("--method", "tools/call", "--tool-name", "describe", "--tool-arg", "path=climate/stations/weather/readings"))
	if d["rowCount"] != float64(sampleReadings) {
		t.Errorf("describe readings: %v", d["rowCount"])
	}
	res := structured(inspect("--method", "tools/call", "--tool-name", "execute_query", "--tool-arg", "path=climate/stations/weather", "sql=SELECT count(DISTINCT station_id) AS n FROM readings"))
	if rows := res["rows"].([]any); len(rows) != 1 || rows[0].([]any)[0] != float64(sampleStations) {
		t.Errorf("execute_query: %v", res)
	}
	tmpl := inspect("--method", "resources/templates/list")["resourceTemplates"].([]any)
	if len(tmpl) != len(templates)+1 {
		t.Errorf("templates: %v", tmpl)
	}
	rr := inspect("--method", "resources/read", "--uri", "catalog://query/retail/shop/sales/top_customers")["contents"].([]any)
	if len(rr) != 1 || !strings.Contains(rr[0].(map[string]any)["text"].(string), `"name": "region"`) {
		t.Errorf("resources/read: %v", rr)
	}
}
