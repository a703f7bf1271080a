package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func benchConnect(b *testing.B, url string) *mcp.ClientSession {
	tr, err := streamable.NewClient(url, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125}).Connect(b.Context(), tr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkRESTBridge measures one get_entity call of the demo API through the
// gateway's bridge (our client over Streamable HTTP → gateway → API, validation and
// result shaping included) against the same GET sent to the API directly (what the
// bridge adds to a call) and, when WIREMCP_OPENAPI_MCP_SERVER names the
// openapi-mcp-server program of the npm package @ivotoby/openapi-mcp-server, against
// that OpenAPI-to-MCP server over Streamable HTTP on the same API with the same client
// (what a user might run instead).
//
//	go test -run '^$' -bench RESTBridge -count 5 ./examples/gateway
func BenchmarkRESTBridge(b *testing.B) {
	kb := startKB(b, nil)
	entity := "e0000001-0000-4000-8000-000000000002"
	b.Run("direct", func(b *testing.B) {
		client := &http.Client{}
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest(http.MethodGet, kb.srv.URL+"/api/entities/"+entity, nil)
			req.Header.Set("x-project-id", p1)
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v map[string]any
			if resp.StatusCode != 200 || json.Unmarshal(body, &v) != nil {
				b.Fatalf("%s: %s", resp.Status, body)
			}
		}
	})
	b.Run("openapi-mcp-server", func(b *testing.B) {
		bin := os.Getenv("WIREMCP_OPENAPI_MCP_SERVER")
		if bin == "" {
			b.Skip("WIREMCP_OPENAPI_MCP_SERVER is unset (npm install @ivotoby/openapi-mcp-server@1.16.1 and point it at node_modules/.bin/openapi-mcp-server)")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		cmd := exec.Command(bin, "--transport", "http", "--host", "127.0.0.1", "--port", port,
			"--api-base-url", kb.srv.URL, "--openapi-spec", kb.srv.URL+"/openapi.json", "--operation", "get")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		url := "http://127.0.0.1:" + port + "/mcp"
		deadline := time.Now().Add(15 * time.Second)
		for {
			c, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("openapi-mcp-server did not listen: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cs := benchConnect(b, url)
		// Its tool takes the header and path parameters by their names.
		args, _ := json.Marshal(map[string]any{"x-project-id": p1, "id": entity})
		ctx := b.Context()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-entity", Arguments: args})
			if err != nil || res.IsError || len(res.Content) == 0 {
				b.Fatalf("%v %v", err, res)
			}
		}
	})
	b.Run("bridge", func(b *testing.B) {
		tg := startGateway(b, `{"servers": {"kb": {"rest": {"baseUrl": "`+kb.srv.URL+`", "openapi": "`+kb.srv.URL+`/openapi.json"}}}}`)
		cs := benchConnect(b, tg.srv.URL+"/mcp/kb")
		args, _ := json.Marshal(map[string]any{"projectId": p1, "entityId": entity})
		ctx := b.Context()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_entity", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		}
	})
}
