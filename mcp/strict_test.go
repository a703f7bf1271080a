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
		// Case variants by Unicode folding, which encoding/json matches too: ſ
		// (U+017F) for s, the Kelvin sign (U+212A) for k.
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","argument\u017f":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"ta\u017f\u212a":{}}}`,
	} {
		r := w.roundTrip(line)
		if errCode(t, r) != -32602 {
			t.Errorf("%s: %v", line, r)
		}
	}
	// Exact names, nested wrong-case keys inside arguments and unknown members are
	// valid params. The arguments are the tool's business: a typed tool refuses a
	// case variant of an argument's name with an isError result
	// (TestTypedToolArgumentCase), not a protocol error.
	r := w.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","Message":"y"},"extra":{"a":[1,{"b":"}"}]}}}`)
	if res, _ := r["result"].(map[string]any); res == nil || res["isError"] != true {
		t.Errorf("want the tool's isError result: %v", r)
	}
	r = w.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","other":"y"},"extra":{"a":[1,{"b":"}"}]}}}`)
	if res, _ := r["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Errorf("valid call refused: %v", r)
	}
}
