package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"request", &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "sum", Params: json.RawMessage(`{"a":1}`)},
			`{"jsonrpc":"2.0","id":1,"method":"sum","params":{"a":1}}`},
		{"string id", &jsonrpc.Request{ID: jsonrpc.StringID("a\"b"), Method: "m"},
			`{"jsonrpc":"2.0","id":"a\"b","method":"m"}`},
		{"notification", &jsonrpc.Request{Method: "note", Params: json.RawMessage(`[1,2]`)},
			`{"jsonrpc":"2.0","method":"note","params":[1,2]}`},
		{"header is not encoded", &jsonrpc.Request{Method: "n", Header: map[string][]string{"X": {"y"}}},
			`{"jsonrpc":"2.0","method":"n"}`},
		{"params compacted", &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "m", Params: json.RawMessage("{ \"a b\" : [ 1 ,\n 2 ],\r\n\t\"c\": \"x\\\" y\" }")},
			`{"jsonrpc":"2.0","id":2,"method":"m","params":{"a b":[1,2],"c":"x\" y"}}`},
		{"method escaped", &jsonrpc.Request{Method: "a\"\\\n\r\t\b\f\x01\u2028é\xff"},
			`{"jsonrpc":"2.0","method":"a\"\\\n\r\t\b\f\u0001\u2028` + "é" + `\ufffd"}`},
		{"result", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`{"x":[true]}`)},
			`{"jsonrpc":"2.0","id":1,"result":{"x":[true]}}`},
		{"result scalar", &jsonrpc.Response{ID: jsonrpc.StringID("r"), Result: json.RawMessage(` 19 `)},
			`{"jsonrpc":"2.0","id":"r","result":19}`},
		{"no result is null", &jsonrpc.Response{ID: jsonrpc.Int64ID(1)},
			`{"jsonrpc":"2.0","id":1,"result":null}`},
		{"absent id is null", &jsonrpc.Response{Error: jsonrpc.ErrParse},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"error with data", &jsonrpc.Response{ID: jsonrpc.NullID, Error: &jsonrpc.Error{Code: 7, Message: "m\n", Data: json.RawMessage("{\"d\":\n1}")}},
			`{"jsonrpc":"2.0","id":null,"error":{"code":7,"message":"m\n","data":{"d":1}}}`},
		{"invalid", &jsonrpc.Invalid{ID: jsonrpc.Int64ID(3), Err: jsonrpc.ErrInvalidRequest},
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"invalid null id", &jsonrpc.Invalid{ID: jsonrpc.NullID, Err: jsonrpc.ErrInvalidRequest},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"batch", jsonrpc.Batch{
			&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`7`)},
			&jsonrpc.Invalid{ID: jsonrpc.NullID, Err: jsonrpc.ErrInvalidRequest},
			&jsonrpc.Request{Method: "n"},
		}, `[{"jsonrpc":"2.0","id":1,"result":7},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},{"jsonrpc":"2.0","method":"n"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix:")
			got, err := jsonrpc.Encode(prefix, tt.msg)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if diff := cmp.Diff("prefix:"+tt.want, string(got)); diff != "" {
				t.Errorf("Encode mismatch (-want +got):\n%s", diff)
			}
			if strings.ContainsAny(string(got), "\n\r") {
				t.Errorf("Encode output holds a raw line break: %q", got)
			}
			if !json.Valid(got[len(prefix):]) {
				t.Errorf("Encode output is not valid JSON: %s", got)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		msg  jsonrpc.Message
	}{
		{"nil message", nil},
		{"nil request", (*jsonrpc.Request)(nil)},
		{"nil response", (*jsonrpc.Response)(nil)},
		{"request with null id", &jsonrpc.Request{ID: jsonrpc.NullID, Method: "m"}},
		{"string params", &jsonrpc.Request{Method: "m", Params: json.RawMessage(`"x"`)}},
		{"invalid params", &jsonrpc.Request{Method: "m", Params: json.RawMessage(`{"a":}`)}},
		{"duplicate in params", &jsonrpc.Request{Method: "m", Params: json.RawMessage(`{"a":1,"a":2}`)}},
		{"invalid UTF-8 in params", &jsonrpc.Request{Method: "m", Params: json.RawMessage("[\"\xff\"]")}},
		{"trailing data in result", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`1 2`)}},
		{"result and error", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`1`), Error: jsonrpc.ErrInternal}},
		{"invalid error data", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: &jsonrpc.Error{Code: 1, Data: json.RawMessage(`{`)}}},
		{"invalid without error", &jsonrpc.Invalid{ID: jsonrpc.NullID}},
		{"empty batch", jsonrpc.Batch{}},
		{"nested batch", jsonrpc.Batch{jsonrpc.Batch{&jsonrpc.Request{Method: "m"}}}},
		{"nil in batch", jsonrpc.Batch{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("keep")
			got, err := jsonrpc.Encode(dst, tt.msg)
			if err == nil {
				t.Fatalf("Encode = %s, want an error", got)
			}
			if string(got) != "keep" {
				t.Errorf("Encode returned %q on error, want dst unchanged", got)
			}
		})
	}
}

// TestEncodeDecode checks that what Encode writes Decode reads back unchanged.
func TestEncodeDecode(t *testing.T) {
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(-5), Method: "a/b", Params: json.RawMessage(`{"x":"\u00e9\n"}`)},
		&jsonrpc.Request{Method: "notify"},
		&jsonrpc.Response{ID: jsonrpc.StringID("s"), Result: json.RawMessage(`[null]`)},
		&jsonrpc.Response{ID: jsonrpc.NullID, Error: &jsonrpc.Error{Code: -32603, Message: "x", Data: json.RawMessage(`"d"`)}},
	}
	for _, m := range msgs {
		b, err := jsonrpc.Encode(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonrpc.Decode(b, nil)
		if err != nil {
			t.Fatalf("Decode(%s): %v", b, err)
		}
		if diff := cmp.Diff(m, got, cmpID); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", b, diff)
		}
	}
}

func TestEncodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race (sync.Pool drops items)")
	}
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(12), Result: json.RawMessage(`{"content":[{"type":"text","text":"hello"}]}`)}
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := jsonrpc.Encode(buf[:0], resp); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Encode into a large enough buffer: %v allocs, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		if _, err := jsonrpc.Encode(nil, resp); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Errorf("Encode into nil: %v allocs, want 1 (one sized buffer)", allocs)
	}
}

func TestValid(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":[1,"x",null]}`: true,
		` 1 `:                true,
		`{"a":1,"a":2}`:      false,
		`[1,]`:               false,
		"\"\xff\"":           false,
		`[[[]]]`:             true,
		`[[[[]]]]`:           false, // over the depth of 3 below
	} {
		if got := jsonrpc.Valid([]byte(in), 3); got != want {
			t.Errorf("Valid(%q, 3) = %v, want %v", in, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	sentinels := map[int64]*jsonrpc.Error{
		-32700: jsonrpc.ErrParse,
		-32600: jsonrpc.ErrInvalidRequest,
		-32601: jsonrpc.ErrMethodNotFound,
		-32602: jsonrpc.ErrInvalidParams,
		-32603: jsonrpc.ErrInternal,
	}
	for code, s := range sentinels {
		if s.Code != code {
			t.Errorf("sentinel %v has code %d, want %d", s, s.Code, code)
		}
		e := jsonrpc.NewError(code, "other text", nil)
		wrapped := fmt.Errorf("while doing x: %w", e)
		if !errors.Is(wrapped, s) {
			t.Errorf("errors.Is(%v, sentinel %d) = false", wrapped, code)
		}
		for other, o := range sentinels {
			if other != code && errors.Is(wrapped, o) {
				t.Errorf("error %d matches sentinel %d", code, other)
			}
		}
		got := jsonrpc.AsError(wrapped)
		if got.Code != code || got.Message != "while doing x: other text" {
			t.Errorf("AsError(%v) = %d %q", wrapped, got.Code, got.Message)
		}
	}
	e := jsonrpc.NewError(-32001, "custom", json.RawMessage(`{"k": 1}`))
	if string(e.Data) != `{"k": 1}` {
		t.Errorf("NewError with raw data: Data = %s, want it kept as is", e.Data)
	}
	got := jsonrpc.AsError(fmt.Errorf("ctx: %w", e))
	if got.Code != -32001 || string(got.Data) != `{"k": 1}` {
		t.Errorf("AsError lost code or data: %+v", got)
	}
	if got := jsonrpc.AsError(errors.New("boom")); got.Code != jsonrpc.CodeInternalError || got.Message != "boom" {
		t.Errorf("AsError(plain) = %+v, want -32603 boom", got)
	}
	if jsonrpc.AsError(nil) != nil {
		t.Errorf("AsError(nil) != nil")
	}
}

// AppendString skips plain runs of bytes: every special byte must be caught at
// every offset, written as encoding/json writes it (with and without HTML escaping).
func TestAppendStringSpecialBytes(t *testing.T) {
	for _, special := range []string{`"`, `\`, "\x00", "\x1f", "\n", "\x7f", "é", "\xff", "\u2028", "<", ">", "&", "=", "?", "%", "'"} {
		for n := 0; n < 24; n++ {
			s := strings.Repeat("a", n) + special + strings.Repeat("b", 24-n)
			for _, html := range []bool{false, true} {
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(html)
				if err := enc.Encode(s); err != nil {
					t.Fatal(err)
				}
				if got := string(jsonrpc.AppendString(nil, s, html)); got != strings.TrimSuffix(want.String(), "\n") {
					t.Errorf("%q (escapeHTML %v): got %s, want %s", s, html, got, want.String())
				}
			}
		}
	}
}
