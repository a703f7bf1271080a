package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

var Members = jsonrpc.Members

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		obj   string
		names []string
		vals  []string
		ok    bool
	}{
		{"empty", ` { } `, nil, nil, true},
		{"nested", ` { "a" : {"x":[1,2,{"y":"}"}]}, "b\"c":"v,}", "d": true , "e":null}`,
			[]string{"a", `b"c`, "d", "e"}, []string{`{"x":[1,2,{"y":"}"}]}`, `"v,}"`, `true`, `null`}, true},
		{"escaped name", `{"\u0041rguments":1}`, []string{"Arguments"}, []string{"1"}, true},
		{"duplicate", `{"a":1,"a":2}`, []string{"a", "a"}, []string{"1", "2"}, false},
		{"nested duplicate", `{"a":{"x":1,"x":2}}`, []string{"a"}, []string{`{"x":1,"x":2}`}, false},
		{"not an object", `[1]`, nil, nil, false},
		{"trailing data", `{"a":1} x`, []string{"a"}, []string{"1"}, false},
		{"truncated", `{"a":`, nil, nil, false},
		{"bad utf-8", "{\"a\":\"\xff\"}", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var names, vals []string
			ok := jsonrpc.Members([]byte(tc.obj), func(n, v []byte) bool {
				names = append(names, string(n))
				vals = append(vals, string(v))
				return true
			})
			if ok != tc.ok {
				t.Errorf("Members reported %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.names, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.vals, vals); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
	// fn can stop early.
	n := 0
	jsonrpc.Members([]byte(`{"a":1,"b":2,"c":3}`), func(_, _ []byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn called %d times after asking to stop at 2", n)
	}
}

// FuzzMembers: whatever Members accepts, encoding/json reads as an object with the
// same member names and values, in the same order.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[true,null,{"c":"d"}]}`, `{"\u0041":"x"}`, `{"a":1,"a":2}`, `[1]`, `{"a":{"b":{"c":{}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		var names, vals []string
		ok := Members(obj, func(n, v []byte) bool {
			names = append(names, string(n))
			vals = append(vals, string(v))
			return true
		})
		if !ok {
			return
		}
		if !json.Valid(obj) {
			t.Fatalf("Members accepted %q, which encoding/json rejects", obj)
		}
		dec := json.NewDecoder(bytes.NewReader(obj))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("%q: first token %v %v", obj, tok, err)
		}
		for i := 0; dec.More(); i++ {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if i >= len(names) || tok != names[i] || !bytes.Equal(raw, []byte(vals[i])) {
				t.Fatalf("%q: member %d is %q: %s for encoding/json; Members gave %q %q", obj, i, tok, raw, names, vals)
			}
		}
	})
}

func TestElements(t *testing.T) {
	for _, tc := range []struct {
		name string
		arr  string
		vals []string
		ok   bool
	}{
		{"empty", ` [ ] `, nil, true},
		{"values", ` [ {"x":[1,2,{"y":"]"}]}, "v,]" , true,null, -1.5e3 ,[]]`,
			[]string{`{"x":[1,2,{"y":"]"}]}`, `"v,]"`, `true`, `null`, `-1.5e3`, `[]`}, true},
		{"one", `[1]`, []string{"1"}, true},
		{"nested duplicate", `[{"x":1,"x":2}]`, []string{`{"x":1,"x":2}`}, false},
		{"duplicate in a later element", `[1,{"x":1,"x":2}]`, []string{"1", `{"x":1,"x":2}`}, false},
		{"not an array", `{"a":1}`, nil, false},
		{"trailing comma", `[1,]`, []string{"1"}, false},
		{"leading comma", `[,1]`, nil, false},
		{"missing comma", `[1 2]`, []string{"1"}, false},
		{"trailing data", `[1] x`, []string{"1"}, false},
		{"truncated", `[1,`, []string{"1"}, false},
		{"bad utf-8", "[\"\xff\"]", nil, false},
		{"too deep", `[` + strings.Repeat("[", jsonrpc.DefaultMaxDepth) + strings.Repeat("]", jsonrpc.DefaultMaxDepth) + `]`, nil, false},
		{"deepest allowed", `[` + strings.Repeat("[", jsonrpc.DefaultMaxDepth-1) + strings.Repeat("]", jsonrpc.DefaultMaxDepth-1) + `]`,
			[]string{strings.Repeat("[", jsonrpc.DefaultMaxDepth-1) + strings.Repeat("]", jsonrpc.DefaultMaxDepth-1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vals []string
			ok := jsonrpc.Elements([]byte(tc.arr), func(v []byte) bool {
				vals = append(vals, string(v))
				return true
			})
			if ok != tc.ok {
				t.Errorf("Elements reported %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.vals, vals); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
	// fn can stop early.
	n := 0
	jsonrpc.Elements([]byte(`[1,2,3]`), func(_ []byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn called %d times after asking to stop at 2", n)
	}
}

// FuzzElements: whatever Elements accepts, encoding/json reads as an array with the
// same element values, in the same order.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"b",[true,null,{"c":"d"}]]`, `["\u0041"]`, `[{"a":1,"a":2}]`, `{}`, `[[[[]]]]`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, arr []byte) {
		var vals []string
		ok := jsonrpc.Elements(arr, func(v []byte) bool {
			vals = append(vals, string(v))
			return true
		})
		if !ok {
			return
		}
		if !json.Valid(arr) {
			t.Fatalf("Elements accepted %q, which encoding/json rejects", arr)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(arr, &raws); err != nil {
			t.Fatalf("%q: %v", arr, err)
		}
		if len(raws) != len(vals) {
			t.Fatalf("%q: encoding/json reads %d elements, Elements gave %q", arr, len(raws), vals)
		}
		for i, raw := range raws {
			if !bytes.Equal(raw, []byte(vals[i])) {
				t.Fatalf("%q: element %d is %s for encoding/json; Elements gave %q", arr, i, raw, vals[i])
			}
		}
	})
}
