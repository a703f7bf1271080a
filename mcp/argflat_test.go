package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

type flatPlain struct {
	Message string  `json:"message" description:"the text"`
	Count   int     `json:"count,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`
	Loud    bool    `json:"loud,omitempty"`
}

type flatSmall struct {
	N8  int8    `json:"n8"`
	U16 uint16  `json:"u16,omitempty"`
	F32 float32 `json:"f32,omitempty"`
	S   string  `json:"s,omitempty" mcp:"minLength=2;maxLength=5;pattern=^[a-z]+$"`
	E   string  `json:"e,omitempty" mcp:"enum=x|y"`
	D   string  `json:"d,omitempty" mcp:"format=date"`
}

type flatNested struct {
	Tags []string `json:"tags"`
}

type flatPointer struct {
	P *string `json:"p,omitempty"`
}

// flatTools registers typed tools whose handlers report the arguments they got,
// and returns them with whether each should have a flat fast path.
func flatTools(t testing.TB) (*Server, map[string]bool) {
	s := NewServer(Implementation{Name: "flat", Version: "1"}, nil)
	report := func(in any) (*CallToolResult, any, error) {
		return TextResult(fmt.Sprintf("%#v", in)), nil, nil
	}
	AddTool(s, &Tool{Name: "plain"}, func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
		return report(in)
	})
	AddTool(s, &Tool{Name: "small"}, func(ctx context.Context, req *CallToolRequest, in flatSmall) (*CallToolResult, any, error) {
		return report(in)
	})
	AddTool(s, &Tool{Name: "strict", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer","minimum":1}},"required":["message"],"additionalProperties":false}`)},
		func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
			return report(in)
		})
	AddTool(s, &Tool{Name: "draft7", InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer","exclusiveMaximum":10},"ratio":{"type":"number"},"loud":{"type":"boolean"}}}`)},
		func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
			return report(in)
		})
	// A pointer field is flat (its schema is the element's); not flat: a nested
	// array, an extra keyword at the root, a property the struct does not have, a
	// union type.
	AddTool(s, &Tool{Name: "nested"}, func(ctx context.Context, req *CallToolRequest, in flatNested) (*CallToolResult, any, error) {
		return report(in)
	})
	AddTool(s, &Tool{Name: "pointer"}, func(ctx context.Context, req *CallToolRequest, in flatPointer) (*CallToolResult, any, error) {
		if in.P == nil {
			return report("nil")
		}
		return report(*in.P)
	})
	AddTool(s, &Tool{Name: "minprops", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"minProperties":1}`)},
		func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
			return report(in)
		})
	AddTool(s, &Tool{Name: "missingfield", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"other":{"type":"string"}}}`)},
		func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
			return report(in)
		})
	AddTool(s, &Tool{Name: "union", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":["string","null"]}}}`)},
		func(ctx context.Context, req *CallToolRequest, in flatPlain) (*CallToolResult, any, error) {
			return report(in)
		})
	return s, map[string]bool{"plain": true, "small": true, "strict": true, "draft7": true,
		"nested": false, "pointer": true, "minprops": false, "missingfield": false, "union": false}
}

var flatArgsCases = []string{
	`{"message":"hi"}`, `{"message":"hi","count":3,"ratio":0.5,"loud":true}`, `{}`, ``, `null`,
	`{"message":"a\"b\\u00e9\n"}`, `{"message":5}`, `{"message":null}`, `{"message":"x","count":1.0}`,
	`{"message":"x","count":1.5}`, `{"message":"x","count":1e2}`, `{"message":"x","count":99999999999999999999}`,
	`{"message":"x","count":-0}`, `{"message":"x","ratio":1e400}`, `{"message":"x","extra":1}`,
	`{"Message":"x"}`, `{"mess\u0061ge":"x"}`, `{"message":"x","loud":"true"}`, `{"count":0}`,
	`{"n8":127}`, `{"n8":128}`, `{"n8":-129}`, `{"n8":1,"u16":65536}`, `{"n8":1,"u16":-1}`, `{"n8":1,"f32":3.4e39}`,
	`{"n8":1,"s":"abc"}`, `{"n8":1,"s":"a"}`, `{"n8":1,"s":"ABC"}`, `{"n8":1,"e":"x"}`, `{"n8":1,"e":"z"}`,
	`{"n8":1,"d":"2026-11-25"}`, `{"n8":1,"d":"2026-13-45"}`, `{"tags":["a"]}`, `{"tags":null}`, `{"p":"x"}`, `{"p":null}`,
	`[]`, `"s"`, `{"message":"x","count":10}`, `{"message":"x","count":9}`, `{"message":"x","count":0}`,
}

// runBoth runs a tool call with and without the flat fast path and returns both
// encoded results (errors included).
func runBoth(t testing.TB, st *serverTool, name, args string) (flat, generic string) {
	rev := lookupRevision("2025-06-18")
	run := func(st *serverTool) string {
		p := &CallToolParams{Name: name, Arguments: json.RawMessage(args)}
		res, err := runTool(context.Background(), nil, rev, st, p)
		if err != nil {
			return "error: " + err.Error()
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	plain := *st
	plain.flat = nil
	return run(st), run(&plain)
}

func TestFlatArgs(t *testing.T) {
	s, want := flatTools(t)
	for name, isFlat := range want {
		st := s.tools[name]
		if (st.flat != nil) != isFlat {
			t.Errorf("tool %s: flat fast path = %v, want %v", name, st.flat != nil, isFlat)
		}
		for _, args := range flatArgsCases {
			flat, generic := runBoth(t, st, name, args)
			if flat != generic {
				t.Errorf("tool %s, arguments %s:\nflat    %s\ngeneric %s", name, args, flat, generic)
			}
		}
	}
	// The fast path does take the plain calls.
	for name, args := range map[string]string{"plain": `{"message":"hi","count":3}`, "small": `{"n8":1,"s":"abc","d":"2026-11-25"}`,
		"strict": `{"message":"hi","count":2}`, "draft7": `{"message":"m","count":9,"ratio":1,"loud":false}`} {
		req := &CallToolRequest{Params: &CallToolParams{Name: name, Arguments: json.RawMessage(args)}}
		if !s.tools[name].flat(req) || req.typed == nil {
			t.Errorf("tool %s: the fast path declined %s", name, args)
		}
	}
	// And declines what it must leave to the generic path.
	for name, args := range map[string]string{"plain": `{"message":"hi","extra":1}`, "strict": `{"message":"hi","count":0}`,
		"small": `{"n8":1000}`, "draft7": `{"message":"m","count":10}`} {
		req := &CallToolRequest{Params: &CallToolParams{Name: name, Arguments: json.RawMessage(args)}}
		if s.tools[name].flat(req) {
			t.Errorf("tool %s: the fast path took %s", name, args)
		}
	}
}

// FuzzFlatArgs: for any arguments the jsonrpc decoder would pass on, every tool
// gives the same result with and without the flat fast path.
func FuzzFlatArgs(f *testing.F) {
	for _, a := range flatArgsCases {
		f.Add(a)
	}
	s, want := flatTools(f)
	f.Fuzz(func(t *testing.T, args string) {
		// Arguments come from a message the jsonrpc decoder accepted: valid JSON
		// without duplicate members.
		if !jsonrpc.Valid([]byte(args), jsonrpc.DefaultMaxDepth) {
			return
		}
		for name := range want {
			flat, generic := runBoth(t, s.tools[name], name, args)
			if flat != generic {
				t.Errorf("tool %s, arguments %s:\nflat    %s\ngeneric %s", name, args, flat, generic)
			}
		}
	})
}

func TestStructFields(t *testing.T) {
	fields, ok := structFields(reflect.TypeFor[flatPlain]())
	if !ok || len(fields) != 4 || fields["message"].index != 0 || fields["loud"].index != 3 {
		t.Errorf("structFields(flatPlain) = %v, %v", fields, ok)
	}
	type embedded struct{ flatPlain }
	if _, ok := structFields(reflect.TypeFor[embedded]()); ok {
		t.Error("structFields accepted an embedded struct")
	}
	type withString struct {
		N int `json:"n,string"`
	}
	if _, ok := structFields(reflect.TypeFor[withString]()); ok {
		t.Error(`structFields accepted the ",string" option`)
	}
}
