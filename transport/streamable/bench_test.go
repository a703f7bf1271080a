package streamable

import (
	"encoding/json"
	"testing"
)

// BenchmarkRoundTrip measures one call (client Conn → HTTP → server Conn → back) on
// an established session, sequentially and from 8 goroutines.
func BenchmarkRoundTrip(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts HandlerOptions
	}{
		{"json", HandlerOptions{JSONResponse: true}},
		{"adaptive", HandlerOptions{}},
		{"sse", HandlerOptions{AlwaysSSE: true}},
		{"stateless-json", HandlerOptions{Stateless: true, JSONResponse: true}},
	} {
		for _, par := range []int{1, 8} {
			name := mode.name
			if par > 1 {
				name += "-par8"
			}
			b.Run(name, func(b *testing.B) {
				s := newTestServer(b, &mode.opts)
				c := newTestClient(b, s.url, &ClientOptions{DisableGETStream: true})
				c.initialize(b, b.Context())
				params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)
				b.ReportAllocs()
				b.ResetTimer()
				if par == 1 {
					for i := 0; i < b.N; i++ {
						var out json.RawMessage
						if err := c.conn.Call(b.Context(), "echo", params, &out); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				b.SetParallelism(par)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						var out json.RawMessage
						if err := c.conn.Call(b.Context(), "echo", params, &out); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
