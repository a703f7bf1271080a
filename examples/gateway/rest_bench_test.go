package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

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
// result shaping included) against the same GET sent to the API directly, which is
// what the bridge adds to a call.
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
