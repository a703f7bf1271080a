package jsonrpc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

var benchRequest = []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","n":[1,2,3]},"_meta":{"progressToken":"abc"}}}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if _, err := jsonrpc.Decode(benchRequest, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStdlib is the yardstick: encoding/json into a comparable struct,
// without the strictness (no duplicate or case checks).
func BenchmarkDecodeStdlib(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	for b.Loop() {
		if err := json.Unmarshal(benchRequest, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	b.ReportAllocs()
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(12), Result: json.RawMessage(`{"content":[{"type":"text","text":"hello, world"}],"isError":false}`)}
	buf := make([]byte, 0, 512)
	for b.Loop() {
		var err error
		if buf, err = jsonrpc.Encode(buf[:0], resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripMemory measures one Call (client → server handler → reply)
// over the in-process memory transport.
func BenchmarkRoundTripMemory(b *testing.B) {
	a, z := memory.NewPair()
	server := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return req.Params, nil
	})})
	client := jsonrpc.NewConn(z, nil)
	defer server.Close()
	defer client.Close()
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello, world"}}`)
	ctx := context.Background()
	var res json.RawMessage
	b.ReportAllocs()
	for b.Loop() {
		if err := client.Call(ctx, "tools/call", params, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// large64k is a tools/call request carrying a 64 KiB plain string, the payload of the
// benchmark harness's stdio-64k case.
var large64k = []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` +
	strings.Repeat("abcdefgh", 8192) + `"}}}`)

// BenchmarkDecode64K: decoding a request whose params hold a 64 KiB string (the
// scanner validates every byte of it).
func BenchmarkDecode64K(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(large64k)))
	for b.Loop() {
		if _, err := jsonrpc.Decode(large64k, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendString64K: encoding a 64 KiB string as a JSON string.
func BenchmarkAppendString64K(b *testing.B) {
	s := strings.Repeat("abcdefgh", 8192)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	buf := make([]byte, 0, len(s)+16)
	for b.Loop() {
		buf = jsonrpc.AppendString(buf[:0], s, true)
	}
}
