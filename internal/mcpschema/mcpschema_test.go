package mcpschema

import "testing"

func TestValidateCatchesBadMessages(t *testing.T) {
	s := ForTest(t, "2025-11-25")
	good := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"a","version":"1"}}}`
	if err := s.ValidateResponse("initialize", []byte(good)); err != nil {
		t.Fatalf("valid initialize result rejected: %v", err)
	}
	bad := []struct{ method, msg string }{
		{"initialize", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}`},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1]}}`},
		{"ping", `{"jsonrpc":"1.0","id":1,"result":{}}`},
		{"ping", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`},
	}
	for _, b := range bad {
		if err := s.ValidateResponse(b.method, []byte(b.msg)); err == nil {
			t.Errorf("%s: invalid message accepted: %s", b.method, b.msg)
		}
	}
	if err := s.ValidateServerMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}`)); err == nil {
		t.Error("bad log level accepted")
	}
	if err := s.ValidateServerMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}`)); err != nil {
		t.Errorf("good log message rejected: %v", err)
	}
}
