package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

type treeInner struct {
	N    int        `json:"n"`
	Next *treeInner `json:"next,omitempty"`
}

// treeArgs covers every kind the tree decoder handles.
type treeArgs struct {
	S       string            `json:"s"`
	B       bool              `json:"b"`
	I       int               `json:"i"`
	I8      int8              `json:"i8"`
	U16     uint16            `json:"u16"`
	F32     float32           `json:"f32"`
	F64     float64           `json:"f64"`
	P       *string           `json:"p"`
	PP      **int             `json:"pp"`
	L       []string          `json:"l"`
	A       [2]int            `json:"a"`
	M       map[string]int    `json:"m"`
	Any     any               `json:"any"`
	Inner   treeInner         `json:"inner"`
	Nested  []map[string]*int `json:"nested"`
	Renamed string            `json:"other_name,omitempty"`
	NoTag   string
	BadTag  string `json:"a\"b"` // not a valid name: the field name is used
	Skipped string `json:"-"`
	Dash    string `json:"-,"`
	hidden  string
}

func treeDecode(t *testing.T, doc string, v any) bool {
	t.Helper()
	tree, err := decodeValue([]byte(doc))
	if err != nil {
		t.Fatalf("%s: decodeValue: %v", doc, err)
	}
	d := newTreeDecoder(reflect.TypeOf(v).Elem())
	if d == nil {
		t.Fatalf("no tree decoder for %T", v)
	}
	return d(reflect.ValueOf(v).Elem(), tree)
}

// TestTreeDecoderMatchesEncodingJSON decodes each document both ways: where the
// tree decoder succeeds its result must equal encoding/json's, and it must
// succeed on the documents it is meant for (fast) and give up on the others.
func TestTreeDecoderMatchesEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		fast bool
	}{
		{`{}`, true},
		{`null`, true},
		{`{"s":"héllo \"x\"","b":true,"i":-42,"i8":127,"u16":65535,"f32":1.5,"f64":-2.5e300}`, true},
		{`{"p":"x","pp":7,"l":["a","b"],"a":[1,2,3],"m":{"k":1,"l":-2}}`, true},
		{`{"a":[9]}`, true},
		{`{"l":[]}`, true},
		{`{"l":null,"m":null,"p":null,"any":null,"inner":null,"s":null,"i":null}`, true},
		{`{"any":{"x":[1,"two",true,null,{"y":2.5}]}}`, true},
		{`{"any":12345678901234567890}`, true},
		{`{"inner":{"n":1,"next":{"n":2,"next":{"n":3}}}}`, true},
		{`{"nested":[{"a":1,"b":null},{}]}`, true},
		{`{"other_name":"r","NoTag":"n","BadTag":"t","-":"d"}`, true},
		{`{"unknown":1}`, false},          // ignored by encoding/json: it decides
		{`{"S":"folded"}`, false},         // matches s case-insensitively
		{`{"Skipped":"x"}`, false},        // a field encoding/json ignores
		{`{"hidden":"x"}`, false},         // unexported
		{`{"i8":128}`, false},             // overflow: encoding/json's error
		{`{"u16":-1}`, false},             // negative into unsigned
		{`{"i":1.5}`, false},              // fraction into an int
		{`{"i":1e2}`, false},              // exponent into an int
		{`{"f32":1e39}`, false},           // float32 overflow
		{`{"s":1}`, false},                // type mismatch
		{`{"b":"true"}`, false},           // type mismatch
		{`{"l":"x"}`, false},              // string into a slice
		{`{"m":[1]}`, false},              // array into a map
		{`{"inner":[]}`, false},           // array into a struct
		{`[1,2]`, false},                  // array into the top-level struct
		{`{"pp":"x"}`, false},             // mismatch behind pointers
		{`{"nested":[{"a":"x"}]}`, false}, // mismatch deep inside
	} {
		var got, want treeArgs
		ok := treeDecode(t, tc.doc, &got)
		werr := json.Unmarshal([]byte(tc.doc), &want)
		if ok != tc.fast {
			t.Errorf("%s: tree decoder ok = %v, want %v", tc.doc, ok, tc.fast)
		}
		if !ok {
			continue
		}
		if werr != nil {
			t.Errorf("%s: tree decoder succeeded where encoding/json fails: %v", tc.doc, werr)
			continue
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(treeArgs{})); diff != "" {
			t.Errorf("%s: tree decoder differs from encoding/json (-json +tree):\n%s", tc.doc, diff)
		}
	}
}

func TestTreeDecoderTopLevelKinds(t *testing.T) {
	var m map[string]any
	if !treeDecode(t, `{"a":[1,{"b":2}]}`, &m) {
		t.Fatal("map[string]any: tree decoder gave up")
	}
	if diff := cmp.Diff(map[string]any{"a": []any{1.0, map[string]any{"b": 2.0}}}, m); diff != "" {
		t.Errorf("map[string]any (-want +got):\n%s", diff)
	}
	type named map[string]string
	var n named
	if !treeDecode(t, `{"k":"v"}`, &n) || n["k"] != "v" {
		t.Errorf("named map: got %v", n)
	}
	var a any
	if !treeDecode(t, `"s"`, &a) || a != "s" {
		t.Errorf("any: got %#v", a)
	}
}

type customArg struct{ v string }

func (c *customArg) UnmarshalJSON(b []byte) error { c.v = string(b); return nil }

type textKey string

func (k *textKey) UnmarshalText(b []byte) error { *k = textKey("k:" + string(b)); return nil }

type embedded struct{ X int }

// TestTreeDecoderLeavesTypesToEncodingJSON lists the types whose decoding only
// encoding/json knows.
func TestTreeDecoderLeavesTypesToEncodingJSON(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[struct{ T time.Time }](),
		reflect.TypeFor[struct{ C customArg }](),
		reflect.TypeFor[struct{ C *customArg }](),
		reflect.TypeFor[struct{ embedded }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct{ B []byte }](),
		reflect.TypeFor[map[int]string](),
		reflect.TypeFor[map[textKey]string](),
		reflect.TypeFor[struct{ S fmt.Stringer }](),
		reflect.TypeFor[struct{ C chan int }](),
		// Two fields with one name (built here, since vet rightly refuses it in source).
		reflect.StructOf([]reflect.StructField{
			{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
			{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
		}),
		reflect.TypeFor[json.RawMessage](),
	} {
		if newTreeDecoder(typ) != nil {
			t.Errorf("%v: got a tree decoder, want none (encoding/json decides)", typ)
		}
	}
	if newTreeDecoder(reflect.TypeFor[treeInner]()) == nil {
		t.Errorf("a recursive struct got no tree decoder")
	}
}

// TestTypedToolFallsBackToEncodingJSON: arguments the tree decoder leaves to
// encoding/json reach the handler exactly as encoding/json decodes them, and
// its errors are reported as before.
func TestTypedToolFallsBackToEncodingJSON(t *testing.T) {
	type args struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	var got args
	s := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *CallToolRequest, in args) (*CallToolResult, any, error) {
			got = in
			return TextResult("ok"), nil, nil
		})
	st := s.tools["t"]
	for _, tc := range []struct {
		doc  string
		want args
		err  string
	}{
		{`{"name":"a","count":2}`, args{"a", 2}, ""},
		{`{"NAME":"b","Count":3}`, args{"b", 3}, ""},
		{`{"name":"c","count":"x"}`, args{}, `json: cannot unmarshal string into Go struct field args.count of type int`},
	} {
		got = args{}
		tree, err := decodeValue([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.handler(context.Background(), &CallToolRequest{
			Params: &CallToolParams{Name: "t", Arguments: json.RawMessage(tc.doc)}, args: tree})
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if tc.err != "" {
			text := res.Content[0].(*TextContent).Text
			if !res.IsError || !strings.Contains(text, tc.err) {
				t.Errorf("%s: result %v %q, want an error with %q", tc.doc, res.IsError, text, tc.err)
			}
			continue
		}
		if res.IsError || got != tc.want {
			t.Errorf("%s: handler got %+v (isError %v), want %+v", tc.doc, got, res.IsError, tc.want)
		}
	}
}

func FuzzTreeDecoder(f *testing.F) {
	for _, s := range []string{
		`{"s":"x","i":1,"l":["a"],"m":{"k":2},"any":[1,{"a":null}]}`,
		`{"inner":{"n":1,"next":{"n":2}}}`, `{"f32":3.4e38,"u16":7}`, `{"pp":null}`,
	} {
		f.Add([]byte(s))
	}
	dec := newTreeDecoder(reflect.TypeFor[treeArgs]())
	f.Fuzz(func(t *testing.T, data []byte) {
		// Arguments reach the tree decoder only from messages the jsonrpc decoder
		// accepted: no duplicate member names (encoding/json decodes every duplicate,
		// reporting an error a dropped one causes; the value tree keeps the last).
		if !jsonrpc.Valid(data, 0) {
			return
		}
		tree, err := decodeValue(data)
		if err != nil {
			return
		}
		var got, want treeArgs
		if !dec(reflect.ValueOf(&got).Elem(), tree) {
			return
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%q: tree decoder succeeded where encoding/json fails: %v", data, err)
		}
		if !cmp.Equal(want, got, cmp.AllowUnexported(treeArgs{})) {
			t.Fatalf("%q: tree decoder differs from encoding/json:\n%s", data, cmp.Diff(want, got, cmp.AllowUnexported(treeArgs{})))
		}
	})
}
