package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// cmpID compares IDs by their raw token (ID has only unexported fields).
var cmpID = cmp.Comparer(func(a, b jsonrpc.ID) bool { return a == b })

func rawID(t *testing.T, tok string) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.RawID([]byte(tok))
	if err != nil {
		t.Fatalf("RawID(%s): %v", tok, err)
	}
	return id
}

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want jsonrpc.Message
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"sum","params":{"a":1}}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "sum", Params: json.RawMessage(`{"a":1}`)}},
		{"request positional params", `{"jsonrpc":"2.0","id":"x","method":"sum","params":[1,2]}`,
			&jsonrpc.Request{ID: rawID(t, `"x"`), Method: "sum", Params: json.RawMessage(`[1,2]`)}},
		{"request without params", `{"jsonrpc":"2.0","id":7,"method":"ping"}`,
			&jsonrpc.Request{ID: rawID(t, "7"), Method: "ping"}},
		{"notification", `{"jsonrpc":"2.0","method":"note","params":{}}`,
			&jsonrpc.Request{Method: "note", Params: json.RawMessage(`{}`)}},
		{"members in any order", `{"params":[],"method":"m","id":2,"jsonrpc":"2.0"}`,
			&jsonrpc.Request{ID: rawID(t, "2"), Method: "m", Params: json.RawMessage(`[]`)}},
		{"whitespace everywhere", " \t\r\n{ \"jsonrpc\" : \"2.0\" ,\n\"id\" : 3 , \"method\" : \"m\" , \"params\" : { \"a\" : [ 1 , 2 ] } } \n",
			&jsonrpc.Request{ID: rawID(t, "3"), Method: "m", Params: json.RawMessage(`{ "a" : [ 1 , 2 ] }`)}},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"x":[true,false,null]}}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "m"}},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"a\/b\u00e9\n\ud83d\ude00"}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "a/b\u00e9\n\U0001F600"}},
		{"escaped member names are names", `{"jsonr\u0070c":"2\u002e0","\u0069d":1,"meth\u006fd":"m"}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "m"}},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: ""}},
		{"result object", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`,
			&jsonrpc.Response{ID: rawID(t, "1"), Result: json.RawMessage(`{"ok":true}`)}},
		{"result scalar", `{"jsonrpc":"2.0","id":"a","result":19}`,
			&jsonrpc.Response{ID: rawID(t, `"a"`), Result: json.RawMessage(`19`)}},
		{"result null", `{"jsonrpc":"2.0","id":1,"result":null}`,
			&jsonrpc.Response{ID: rawID(t, "1"), Result: json.RawMessage(`null`)}},
		{"error with data", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"k": [1]}}}`,
			&jsonrpc.Response{ID: rawID(t, "1"), Error: &jsonrpc.Error{Code: -32602, Message: "bad", Data: json.RawMessage(`{"k": [1]}`)}}},
		{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			&jsonrpc.Response{ID: jsonrpc.NullID, Error: &jsonrpc.Error{Code: -32700, Message: "Parse error"}}},
		{"error without id (MCP 2025-11-25)", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
			&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "Parse error"}}},
		{"error unknown members ignored", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","x":1}}`,
			&jsonrpc.Response{ID: rawID(t, "1"), Error: &jsonrpc.Error{Code: 1, Message: "m"}}},
		{"error code extremes", `{"jsonrpc":"2.0","id":1,"error":{"code":-9223372036854775808,"message":""}}`,
			&jsonrpc.Response{ID: rawID(t, "1"), Error: &jsonrpc.Error{Code: -1 << 63, Message: ""}}},
		{"result null id", `{"jsonrpc":"2.0","id":null,"result":{}}`,
			&jsonrpc.Response{ID: jsonrpc.NullID, Result: json.RawMessage(`{}`)}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"result":1}]`,
			jsonrpc.Batch{
				&jsonrpc.Request{ID: rawID(t, "1"), Method: "a"},
				&jsonrpc.Request{Method: "n"},
				&jsonrpc.Response{ID: rawID(t, "2"), Result: json.RawMessage(`1`)},
			}},
		{"same key in different objects", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"a":1},"b":{"a":2}}}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "m", Params: json.RawMessage(`{"a":{"a":1},"b":{"a":2}}`)}},
		{"keys differing only by case are distinct", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"A":2}}`,
			&jsonrpc.Request{ID: rawID(t, "1"), Method: "m", Params: json.RawMessage(`{"a":1,"A":2}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonrpc.Decode([]byte(tt.in), nil)
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpID); diff != "" {
				t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestIDRoundTrip checks that an id comes back byte-identical in the reply.
func TestIDRoundTrip(t *testing.T) {
	for _, tok := range []string{`1`, `"1"`, `-7`, `9007199254740993`, `1e3`, `1.5`, `0`, `-0`,
		`"\u0031"`, `"a\"b"`, `123456789012345678901234567890`, `1E+2`, `""`} {
		t.Run(tok, func(t *testing.T) {
			msg, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":`+tok+`,"method":"m"}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			req := msg.(*jsonrpc.Request)
			if got := req.ID.Raw(); got != tok {
				t.Errorf("ID.Raw() = %s, want %s", got, tok)
			}
			out, err := jsonrpc.Encode(nil, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"jsonrpc":"2.0","id":` + tok + `,"result":{}}`
			if diff := cmp.Diff(want, string(out)); diff != "" {
				t.Errorf("reply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIDAbsentVersusNull(t *testing.T) {
	n, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"m"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := n.(*jsonrpc.Request).ID; !id.IsAbsent() || id.IsNull() {
		t.Errorf("notification id: absent=%v null=%v, want absent", id.IsAbsent(), id.IsNull())
	}
	r, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := r.(*jsonrpc.Response).ID; id.IsAbsent() || !id.IsNull() {
		t.Errorf("null id: absent=%v null=%v, want null", id.IsAbsent(), id.IsNull())
	}
	a, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := a.(*jsonrpc.Response).ID; !id.IsAbsent() {
		t.Errorf("missing id decoded as %s, want absent", id)
	}
}

// malformed describes one bad frame and what Decode must say about it.
type malformed struct {
	name string
	in   string
	code int64  // expected error code
	id   string // Invalid.ID raw token ("" absent: no reply); "-" when no *Invalid is returned
}

func checkMalformed(t *testing.T, tests []malformed, lim *jsonrpc.Limits) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := jsonrpc.Decode([]byte(tt.in), lim)
			if err == nil {
				t.Fatalf("Decode(%q) = %#v, want error %d", tt.in, msg, tt.code)
			}
			var e *jsonrpc.Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%q) error %v is not an *Error", tt.in, err)
			}
			if e.Code != tt.code {
				t.Errorf("Decode(%q) code = %d (%s), want %d", tt.in, e.Code, e.Message, tt.code)
			}
			switch tt.code {
			case jsonrpc.CodeParseError:
				if !errors.Is(err, jsonrpc.ErrParse) {
					t.Errorf("error does not match ErrParse")
				}
			case jsonrpc.CodeInvalidRequest:
				if !errors.Is(err, jsonrpc.ErrInvalidRequest) {
					t.Errorf("error does not match ErrInvalidRequest")
				}
			}
			if tt.id == "-" {
				if msg != nil {
					t.Errorf("Decode(%q) returned message %#v with the error, want nil", tt.in, msg)
				}
				return
			}
			inv, ok := msg.(*jsonrpc.Invalid)
			if !ok {
				t.Fatalf("Decode(%q) message = %#v, want *Invalid", tt.in, msg)
			}
			if inv.ID.Raw() != tt.id {
				t.Errorf("Invalid.ID = %s, want %q", inv.ID, tt.id)
			}
			if inv.Err != e {
				t.Errorf("Invalid.Err = %v, want the returned error %v", inv.Err, e)
			}
		})
	}
}

const (
	parse   = jsonrpc.CodeParseError
	invalid = jsonrpc.CodeInvalidRequest
)

func TestDecodeNotJSON(t *testing.T) {
	checkMalformed(t, []malformed{
		{"empty", ``, parse, "-"},
		{"only whitespace", " \n\t", parse, "-"},
		{"truncated object", `{"jsonrpc":"2.0","id":1`, parse, "-"},
		{"truncated string", `{"jsonrpc":"2.`, parse, "-"},
		{"garbage", `hello`, parse, "-"},
		{"trailing data", `{"jsonrpc":"2.0","method":"m"} x`, parse, "-"},
		{"two messages", `{"jsonrpc":"2.0","method":"m"}{"jsonrpc":"2.0","method":"m"}`, parse, "-"},
		{"trailing comma in object", `{"jsonrpc":"2.0","method":"m",}`, parse, "-"},
		{"trailing comma in array", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}`, parse, "-"},
		{"single quotes", `{'jsonrpc':'2.0'}`, parse, "-"},
		{"unquoted key", `{jsonrpc:"2.0"}`, parse, "-"},
		{"missing colon", `{"jsonrpc" "2.0"}`, parse, "-"},
		{"leading zero", `{"jsonrpc":"2.0","id":01,"method":"m"}`, parse, "-"},
		{"bare fraction", `{"jsonrpc":"2.0","id":1.,"method":"m"}`, parse, "-"},
		{"bare exponent", `{"jsonrpc":"2.0","id":1e,"method":"m"}`, parse, "-"},
		{"plus sign", `{"jsonrpc":"2.0","id":+1,"method":"m"}`, parse, "-"},
		{"NaN", `{"jsonrpc":"2.0","id":1,"result":NaN}`, parse, "-"},
		{"bad literal", `{"jsonrpc":"2.0","id":1,"result":tru}`, parse, "-"},
		{"bad escape", `{"jsonrpc":"2.0","id":1,"method":"\x"}`, parse, "-"},
		{"short unicode escape", `{"jsonrpc":"2.0","id":1,"method":"\u12"}`, parse, "-"},
		{"raw control character in string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\nb\"}", parse, "-"},
		{"byte order mark", "\ufeff{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", parse, "-"},
		{"comment", `{"jsonrpc":"2.0","method":"m"/*x*/}`, parse, "-"},
		{"unclosed array", `[{"jsonrpc":"2.0","method":"m"}`, parse, "-"},
		// A frame that is both invalid and broken further on is a parse error.
		{"invalid then broken", `{"jsonrpc":"1.0","id":1,"method":"m",`, parse, "-"},
		{"broken batch element", `[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":]`, parse, "-"},
	}, nil)
}

func TestDecodeInvalidUTF8(t *testing.T) {
	checkMalformed(t, []malformed{
		{"in method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xffb\"}", parse, "-"},
		{"in params string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[\"\xc3\"]}", parse, "-"},
		{"in member name", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"\xed\xa0\x80\":1}}", parse, "-"},
		{"overlong encoding", "{\"jsonrpc\":\"2.0\",\"id\":\"\xc0\xaf\",\"method\":\"m\"}", parse, "-"},
		{"outside strings", "{\"jsonrpc\":\"2.0\",\xff\"method\":\"m\"}", parse, "-"},
	}, nil)
}

func TestDecodeVersion(t *testing.T) {
	checkMalformed(t, []malformed{
		{"missing", `{"id":1,"method":"m"}`, invalid, "1"},
		{"1.0", `{"jsonrpc":"1.0","id":1,"method":"m"}`, invalid, "1"},
		{"number", `{"jsonrpc":2.0,"id":1,"method":"m"}`, invalid, "1"},
		{"2.00", `{"jsonrpc":"2.00","id":1,"method":"m"}`, invalid, "1"},
		{"null", `{"jsonrpc":null,"id":"a","method":"m"}`, invalid, `"a"`},
		{"on a response", `{"jsonrpc":"3.0","id":1,"result":{}}`, invalid, "null"},
	}, nil)
}

func TestDecodeMemberCase(t *testing.T) {
	checkMalformed(t, []malformed{
		{"Method", `{"jsonrpc":"2.0","id":1,"Method":"m"}`, invalid, "null"},
		{"METHOD with method", `{"jsonrpc":"2.0","id":1,"method":"m","METHOD":"x"}`, invalid, "1"},
		{"JSONRPC", `{"JSONRPC":"2.0","id":1,"method":"m"}`, invalid, "1"},
		{"Params", `{"jsonrpc":"2.0","id":1,"method":"m","Params":{}}`, invalid, "1"},
		// An "ID" member means the sender meant a request: answer it (with null).
		{"ID", `{"jsonrpc":"2.0","ID":1,"method":"m"}`, invalid, "null"},
		{"Result", `{"jsonrpc":"2.0","id":1,"Result":{}}`, invalid, "null"},
		{"Error", `{"jsonrpc":"2.0","id":1,"Error":{"code":1,"message":"m"}}`, invalid, "null"},
		{"error Code", `{"jsonrpc":"2.0","id":1,"error":{"Code":1,"code":1,"message":"m"}}`, invalid, "null"},
		{"error MESSAGE", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","MESSAGE":"x"}}`, invalid, "null"},
		{"escaped wrong case", `{"jsonrpc":"2.0","id":1,"method":"m","\u0050arams":{}}`, invalid, "1"},
	}, nil)
}

func TestDecodeDuplicateMembers(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = `"k` + strings.Repeat("x", i) + `":1`
	}
	big := `{` + strings.Join(many, ",") + `,"kxxxxx":2}`
	checkMalformed(t, []malformed{
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, invalid, "1"},
		{"id twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, invalid, "null"},
		{"jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}`, invalid, "1"},
		{"unknown member twice", `{"jsonrpc":"2.0","id":1,"method":"m","x":1,"x":2}`, invalid, "1"},
		{"escaped duplicate", `{"jsonrpc":"2.0","id":1,"method":"m","\u006Dethod":"n"}`, invalid, "1"},
		{"in params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`, invalid, "1"},
		{"deep in params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":{"c":1,"c":1}}]}}`, invalid, "1"},
		{"escaped in params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"\u0061":2}}`, invalid, "1"},
		{"in a large object", `{"jsonrpc":"2.0","id":1,"method":"m","params":` + big + `}`, invalid, "1"},
		{"in result", `{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":1}}`, invalid, "null"},
		{"in error", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`, invalid, "null"},
		{"in error data", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"x":1,"x":2}}}`, invalid, "null"},
		{"notification", `{"jsonrpc":"2.0","method":"m","params":{"a":1,"a":2}}`, invalid, ""},
	}, nil)
}

func TestDecodeRequestShape(t *testing.T) {
	checkMalformed(t, []malformed{
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, invalid, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"m"}`, invalid, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, invalid, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"m"}`, invalid, "null"},
		{"number method", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, invalid, "null"},
		{"null method", `{"jsonrpc":"2.0","id":1,"method":null}`, invalid, "null"},
		{"string params", `{"jsonrpc":"2.0","id":1,"method":"m","params":"bar"}`, invalid, "1"},
		{"number params", `{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, invalid, "1"},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, invalid, "1"},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, invalid, "1"},
		{"request with error", `{"jsonrpc":"2.0","id":1,"method":"m","error":{"code":1,"message":"x"}}`, invalid, "1"},
		// A malformed notification is never answered (absent id).
		{"notification with bad params", `{"jsonrpc":"2.0","method":"m","params":"bar"}`, invalid, ""},
		{"notification with bad version", `{"jsonrpc":"1.0","method":"m"}`, invalid, ""},
		{"empty object", `{}`, invalid, "null"},
		{"foo boo", `{"foo":"boo"}`, invalid, "null"},
	}, nil)
}

func TestDecodeResponseShape(t *testing.T) {
	checkMalformed(t, []malformed{
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, invalid, "null"},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, invalid, "null"},
		{"response with params", `{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`, invalid, "null"},
		{"error not an object", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, invalid, "null"},
		{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, invalid, "null"},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, invalid, "null"},
		{"fractional code", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, invalid, "null"},
		{"exponent code", `{"jsonrpc":"2.0","id":1,"error":{"code":1e3,"message":"x"}}`, invalid, "null"},
		{"huge code", `{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854775808,"message":"x"}}`, invalid, "null"},
		{"string code", `{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}`, invalid, "null"},
		{"number message", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, invalid, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"result":1}`, invalid, "null"},
	}, nil)
}

func TestDecodeNotAMessage(t *testing.T) {
	checkMalformed(t, []malformed{
		{"number", `1`, invalid, "null"},
		{"string", `"x"`, invalid, "null"},
		{"null", `null`, invalid, "null"},
		{"true", ` true `, invalid, "null"},
		{"empty batch", `[]`, invalid, "null"},
		{"empty batch with space", `[ ]`, invalid, "null"},
	}, nil)
}

func TestDecodeSizeLimit(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":"` + strings.Repeat("a", 100) + `"}}`
	if _, err := jsonrpc.Decode([]byte(msg), &jsonrpc.Limits{MaxSize: len(msg)}); err != nil {
		t.Fatalf("message of exactly MaxSize bytes: %v", err)
	}
	checkMalformed(t, []malformed{{"one byte over", msg, invalid, "-"}}, &jsonrpc.Limits{MaxSize: len(msg) - 1})

	big := `{"jsonrpc":"2.0","id":1,"method":"m","params":["` + strings.Repeat("a", jsonrpc.DefaultMaxSize) + `"]}`
	checkMalformed(t, []malformed{{"default limit", big, invalid, "-"}}, nil)
}

func TestDecodeDepthLimit(t *testing.T) {
	nest := func(n int) string { // params nested so the whole message has depth n
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	if _, err := jsonrpc.Decode([]byte(nest(jsonrpc.DefaultMaxDepth)), nil); err != nil {
		t.Fatalf("depth %d: %v", jsonrpc.DefaultMaxDepth, err)
	}
	if _, err := jsonrpc.Decode([]byte(nest(5)), &jsonrpc.Limits{MaxDepth: 5}); err != nil {
		t.Fatalf("depth 5 with MaxDepth 5: %v", err)
	}
	checkMalformed(t, []malformed{
		{"default limit", nest(jsonrpc.DefaultMaxDepth + 1), invalid, "-"},
		{"very deep", nest(100000), invalid, "-"},
		{"deep unterminated", `{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 1000), invalid, "-"},
	}, nil)
	checkMalformed(t, []malformed{
		{"configured", nest(6), invalid, "-"},
		{"object nesting", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":{"c":{"d":{"e":1}}}}}}`, invalid, "-"},
		{"batch elements count", `[` + nest(5) + `]`, invalid, "-"},
	}, &jsonrpc.Limits{MaxDepth: 5})
}

func TestDecodeBatch(t *testing.T) {
	in := `[
		{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},
		{"jsonrpc":"2.0","method":"notify"},
		{"foo":"boo"},
		1,
		[],
		{"jsonrpc":"2.0","id":"x","method":"m","params":"bad"},
		{"jsonrpc":"2.0","method":"m","params":"bad"},
		{"jsonrpc":"2.0","id":5,"result":{}}
	]`
	got, err := jsonrpc.Decode([]byte(in), nil)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	b, ok := got.(jsonrpc.Batch)
	if !ok {
		t.Fatalf("Decode returned %T, want Batch", got)
	}
	type elem struct {
		Type string
		ID   string
		Code int64
	}
	var summary []elem
	for _, m := range b {
		switch m := m.(type) {
		case *jsonrpc.Request:
			summary = append(summary, elem{"request", m.ID.Raw(), 0})
		case *jsonrpc.Response:
			summary = append(summary, elem{"response", m.ID.Raw(), 0})
		case *jsonrpc.Invalid:
			summary = append(summary, elem{"invalid", m.ID.Raw(), m.Err.Code})
		default:
			t.Fatalf("batch element %T", m)
		}
	}
	want := []elem{
		{"request", "1", 0},
		{"request", "", 0},
		{"invalid", "null", invalid},
		{"invalid", "null", invalid},
		{"invalid", "null", invalid},
		{"invalid", `"x"`, invalid},
		{"invalid", "", invalid},
		{"response", "5", 0},
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("batch mismatch (-want +got):\n%s", diff)
	}
}

// TestDecodeAliases documents that raw members are sub-slices of the input.
func TestDecodeAliases(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`)
	msg, err := jsonrpc.Decode(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := msg.(*jsonrpc.Request).Params
	if &p[0] != &in[len(in)-8] {
		t.Errorf("params do not alias the input")
	}
}

func TestDecodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race (sync.Pool drops items)")
	}
	in := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello","n":[1,2,3]}}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := jsonrpc.Decode(in, nil); err != nil {
			t.Fatal(err)
		}
	})
	// The *Request, the id string and the method string.
	if allocs > 3 {
		t.Errorf("Decode of a request: %v allocs, want at most 3", allocs)
	}
}
