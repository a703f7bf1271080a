package jsonrpc_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// checkStable decodes data and, when that yields a message, checks that encoding it
// and decoding the encoding again is stable: the second encoding equals the first.
func checkStable(t *testing.T, data []byte) jsonrpc.Message {
	msg, err := jsonrpc.Decode(data, nil)
	if err != nil {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			t.Fatalf("Decode error %v is not an *Error", err)
		}
		if e.Code != jsonrpc.CodeParseError && e.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("Decode error code %d", e.Code)
		}
		if msg == nil {
			return nil
		}
		if _, ok := msg.(*jsonrpc.Invalid); !ok {
			t.Fatalf("Decode returned %T with an error", msg)
		}
	}
	enc1, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		t.Fatalf("Encode(Decode(%q)): %v", data, err)
	}
	if bytes.ContainsAny(enc1, "\r\n") {
		t.Fatalf("Encode output holds a line break: %q", enc1)
	}
	msg2, err := jsonrpc.Decode(enc1, &jsonrpc.Limits{MaxSize: 1 << 30})
	if err != nil {
		t.Fatalf("Decode(Encode(Decode(%q))) = %q: %v", data, enc1, err)
	}
	enc2, err := jsonrpc.Encode(nil, msg2)
	if err != nil {
		t.Fatalf("second Encode: %v", err)
	}
	if !bytes.Equal(enc1, enc2) {
		t.Fatalf("unstable:\n input %q\n first %q\nsecond %q", data, enc1, enc2)
	}
	return msg
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2]}}`,
		`{"jsonrpc":"2.0","method":"n"}`,
		`{"jsonrpc":"2.0","id":"x","result":{"k":"v"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}`,
		`{"jsonrpc":"2.0","error":{"code":-1,"message":""}}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"m\u00e9\n"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"},1,[]]`,
		`[]`, `{`, `"x"`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStable(t, data)
	})
}

func FuzzBatch(f *testing.F) {
	for _, s := range [][2]string{
		{`{"jsonrpc":"2.0","id":1,"method":"a"}`, `{"jsonrpc":"2.0","method":"b"}`},
		{`{"foo":"boo"}`, `1`},
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`},
		{`[]`, `{"jsonrpc":"2.0","method":"n","params":"bad"}`},
		{`{"jsonrpc":"2.0","id":"\u0031","method":"m","params":[{"a":{"b":null}}]}`, `true`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		msg := checkStable(t, []byte("["+a+","+b+"]"))
		batch, ok := msg.(jsonrpc.Batch)
		if !ok {
			return
		}
		if len(batch) == 0 {
			t.Fatalf("empty batch decoded from %q and %q", a, b)
		}
		for _, e := range batch {
			switch e := e.(type) {
			case *jsonrpc.Request, *jsonrpc.Response:
			case *jsonrpc.Invalid:
				if e.Err == nil || e.Err.Code != jsonrpc.CodeInvalidRequest {
					t.Fatalf("invalid element with error %v", e.Err)
				}
			default:
				t.Fatalf("batch element of type %T", e)
			}
		}
	})
}
