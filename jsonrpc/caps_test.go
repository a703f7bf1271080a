package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

func batchOf(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, i)
	}
	b.WriteByte(']')
	return b.String()
}

func TestDecodeMaxBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		lim  *jsonrpc.Limits
		ok   bool
	}{
		{"default, at the cap", 1000, nil, true},
		{"default, over the cap", 1001, nil, false},
		{"38,000", 38000, nil, false},
		{"lower cap", 11, &jsonrpc.Limits{MaxBatch: 10}, false},
		{"no cap", 1001, &jsonrpc.Limits{MaxBatch: -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := jsonrpc.Decode([]byte(batchOf(tc.n)), tc.lim)
			if tc.ok {
				if b, ok := msg.(jsonrpc.Batch); err != nil || !ok || len(b) != tc.n {
					t.Fatalf("Decode: %T %v", msg, err)
				}
				return
			}
			e := jsonrpc.AsError(err)
			if e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, "batch holds at most") {
				t.Fatalf("Decode: %v, want an Invalid Request naming the batch cap", err)
			}
		})
	}
}

// A result over MaxResponseSize is replaced by an error naming the limit; in a batch,
// the results add up.
func TestConnMaxResponseSize(t *testing.T) {
	checkLeaks(t)
	_, peer := serve(t, &jsonrpc.ConnOptions{MaxResponseSize: 100, Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var n int
		fmt.Sscan(req.Method, &n)
		return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`), nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"100"}`)
	if got := peer.recv(); !strings.Contains(got, `"result":"xxx`) {
		t.Fatalf("a result at the limit: %s", got)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"101"}`)
	want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: a response of 101 bytes exceeds the limit of 100 bytes"}}`
	if d := cmp.Diff(want, peer.recv()); d != "" {
		t.Fatalf("a result over the limit (-want +got):\n%s", d)
	}
	// Three results of 40 bytes: the first two fit (80), the third would not.
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"40"},{"jsonrpc":"2.0","id":2,"method":"40"},{"jsonrpc":"2.0","id":3,"method":"40"}]`)
	b, ok := peer.recvMsg().(jsonrpc.Batch)
	if !ok || len(b) != 3 {
		t.Fatalf("batch reply: %#v", b)
	}
	errs := 0
	for _, m := range b {
		if r := m.(*jsonrpc.Response); r.Error != nil {
			errs++
			if r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "exceeds the limit of 100 bytes") {
				t.Errorf("error %v", r.Error)
			}
		}
	}
	if errs != 1 {
		t.Errorf("%d results replaced, want 1", errs)
	}
}
