package mcp

import (
	"testing"
)

func TestParamsMemberCaseIsExact(t *testing.T) {
	w := rawPeer(t, newTestServer())
	w.initialize("2025-11-25")
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","Arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","\u0041rguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"Level":"info"}}`,
	} {
		r := w.roundTrip(line)
		if errCode(t, r) != -32602 {
			t.Errorf("%s: %v", line, r)
		}
	}
	// Exact names, nested wrong-case keys inside arguments (the tool's business) and
	// unknown members are fine.
	r := w.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","Message":"y"},"extra":{"a":[1,{"b":"}"}]}}}`)
	if r["result"] == nil {
		t.Errorf("valid call refused: %v", r)
	}
}
