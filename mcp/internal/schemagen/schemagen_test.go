package schemagen

import (
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type basic struct {
	S   string  `json:"s"`
	B   bool    `json:"b"`
	I   int     `json:"i"`
	I8  int8    `json:"i8"`
	U   uint    `json:"u"`
	U64 uint64  `json:"u64"`
	F32 float32 `json:"f32"`
	F64 float64 `json:"f64"`
}

type names struct {
	Plain     string
	Renamed   string `json:"renamed"`
	Skipped   string `json:"-"`
	Dash      string `json:"-,"`
	hidden    string //nolint:unused // checks that unexported fields are skipped
	OptEmpty  string `json:"opt,omitempty"`
	OptZero   int    `json:"optz,omitzero"`
	BadName   string `json:"bad\"name"`
	OnlyOpts  string `json:",omitempty"`
	Described string `json:"d" description:"Has \"quotes\" and\nnewline"`
}

type pointers struct {
	P    *string  `json:"p"`
	PO   *string  `json:"po,omitempty"`
	PP   **int    `json:"pp"`
	PReq *int     `json:"preq" mcp:"required"`
	N    string   `json:"n" mcp:"nullable"`
	NS   []string `json:"ns,omitempty" mcp:"nullable"`
}

type collections struct {
	Bytes  []byte            `json:"bytes"`
	Ints   []int             `json:"ints"`
	Arr    [3]string         `json:"arr"`
	ArrB   [2]byte           `json:"arrb"`
	Map    map[string]int    `json:"map"`
	IntKey map[int]bool      `json:"intkey"`
	Nested [][]float64       `json:"nested"`
	MapPtr map[string]*basic `json:"mapptr,omitempty"`
}

type specials struct {
	T    time.Time       `json:"t"`
	Raw  json.RawMessage `json:"raw"`
	Num  json.Number     `json:"num"`
	Any  any             `json:"any"`
	Addr netip.Addr      `json:"addr"` // encoding.TextMarshaler
	Dur  time.Duration   `json:"dur"`
	Q    int             `json:"q,string"`
}

// Inner and Outer exercise embedding.
type Inner struct {
	A string `json:"a"`
	B string `json:"b"`
}

type PtrInner struct {
	C string `json:"c"`
}

type outer struct {
	Inner
	*PtrInner
	B     int   `json:"b"`     // shadows Inner.B
	Named Inner `json:"named"` // a named field, not promoted
}

type hiddenInner struct {
	X int `json:"x"`
}
type MyString string
type embedKinds struct {
	hiddenInner        // unexported struct type: its exported fields are promoted
	MyString           // embedded non-struct: a member named after the type
	Tagged      *Inner `json:"tagged"` // a json name stops promotion
	*PtrInner          // promoted through a pointer: not required
}

type ConflictA struct{ X string }
type ConflictB struct{ X string }
type conflict struct {
	ConflictA
	ConflictB
	Y string
}

type TaggedA struct {
	X string `json:"X"`
}
type tagWins struct {
	ConflictA
	TaggedA
}

// uuid describes itself.
type uuid [16]byte

func (uuid) JSONSchema() json.RawMessage {
	return json.RawMessage(`{ "type": "string", "format": "uuid" }`)
}

type custom struct {
	ID   uuid  `json:"id" description:"The id" mcp:"pattern=^[0-9a-f-]+$"`
	Opt  *uuid `json:"opt,omitempty"`
	Null *uuid `json:"null"`
}

type tagged struct {
	Color  string   `json:"color" mcp:"enum=red|green|blue;default=red"`
	Level  int8     `json:"level" mcp:"enum=1|2|3"`
	Ratio  float64  `json:"ratio" mcp:"minimum=0;exclusiveMaximum=1.5"`
	Count  uint     `json:"count" mcp:"maximum=10"`
	Name   string   `json:"name" mcp:"minLength=1;maxLength=20;pattern=^[a-z]+\\;?$;format=hostname;title=Name"`
	Tags   []string `json:"tags" mcp:"minItems=1;maxItems=3"`
	Flag   bool     `json:"flag,omitempty" mcp:"required;const=true"`
	Opt    string   `json:"opt" mcp:"optional"`
	Pipe   string   `json:"pipe" mcp:"enum=a\\|b|c"`
	Extra  []int    `json:"extra,omitempty" mcp:"default=[1,2]"`
	NEnum  *string  `json:"nenum" mcp:"enum=x|y"`
	Spaced string   `json:"spaced" mcp:" minLength = 2 ; "`
}

// Node is recursive through a slice.
type Node struct {
	Name     string  `json:"name"`
	Children []*Node `json:"children,omitempty"`
}

// Tree refers to Node, which refers to itself.
type tree struct {
	Root  *Node `json:"root"`
	Other Node  `json:"other"`
}

// A and B are mutually recursive; neither is the root.
type A struct {
	B *B `json:"b,omitempty"`
}
type B struct {
	A *A `json:"a,omitempty"`
}
type mutual struct {
	A A `json:"a"`
	B B `json:"b"`
}

type strict struct {
	In Inner          `json:"in"`
	M  map[string]int `json:"m"`
}

type nullables struct {
	S  []int          `json:"s"`
	M  map[string]int `json:"m"`
	SO []int          `json:"so,omitempty"`
	B  []byte         `json:"b"`
}

type describedUUID struct{}

func (describedUUID) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"description":"from type","type":"string"}`)
}

type overrides struct {
	D describedUUID `json:"d" description:"from tag" mcp:"minLength=3"`
	N *uuid         `json:"n" description:"maybe" mcp:"title=T;default=\"x\""`
	C *bool         `json:"c" mcp:"const=true"`
	T *time.Time    `json:"t,omitempty" mcp:"nullable"`
}

type StringList []string
type empty struct{}

func TestFor(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		opts *Options
		want string
	}{
		{"basic", reflect.TypeFor[basic](), nil,
			`{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},"u":{"type":"integer","minimum":0},"u64":{"type":"integer","minimum":0},"f32":{"type":"number"},"f64":{"type":"number"}},"required":["s","b","i","i8","u","u64","f32","f64"]}`},
		{"pointer to struct root", reflect.TypeFor[**basic](), nil,
			`{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},"u":{"type":"integer","minimum":0},"u64":{"type":"integer","minimum":0},"f32":{"type":"number"},"f64":{"type":"number"}},"required":["s","b","i","i8","u","u64","f32","f64"]}`},
		{"names", reflect.TypeFor[names](), nil,
			`{"type":"object","properties":{"Plain":{"type":"string"},"renamed":{"type":"string"},"-":{"type":"string"},"opt":{"type":"string"},"optz":{"type":"integer"},"BadName":{"type":"string"},"OnlyOpts":{"type":"string"},"d":{"type":"string","description":"Has \"quotes\" and\nnewline"}},"required":["Plain","renamed","-","BadName","d"]}`},
		{"pointers", reflect.TypeFor[pointers](), nil,
			`{"type":"object","properties":{"p":{"type":["string","null"]},"po":{"type":"string"},"pp":{"type":["integer","null"]},"preq":{"type":["integer","null"]},"n":{"type":["string","null"]},"ns":{"type":["array","null"],"items":{"type":"string"}}},"required":["preq","n"]}`},
		{"collections", reflect.TypeFor[collections](), nil,
			`{"type":"object","properties":{"bytes":{"type":"string","contentEncoding":"base64"},"ints":{"type":"array","items":{"type":"integer"}},"arr":{"type":"array","minItems":3,"maxItems":3,"items":{"type":"string"}},"arrb":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"integer","minimum":0}},"map":{"type":"object","additionalProperties":{"type":"integer"}},"intkey":{"type":"object","additionalProperties":{"type":"boolean"}},"nested":{"type":"array","items":{"type":"array","items":{"type":"number"}}},"mapptr":{"type":"object","additionalProperties":{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},"u":{"type":"integer","minimum":0},"u64":{"type":"integer","minimum":0},"f32":{"type":"number"},"f64":{"type":"number"}},"required":["s","b","i","i8","u","u64","f32","f64"]}}},"required":["bytes","ints","arr","arrb","map","intkey","nested"]}`},
		{"specials", reflect.TypeFor[specials](), nil,
			`{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"raw":{},"num":{"type":"number"},"any":{},"addr":{"type":"string"},"dur":{"type":"integer"},"q":{"type":"string"}},"required":["t","raw","num","any","addr","dur","q"]}`},
		{"embedding", reflect.TypeFor[outer](), nil,
			`{"type":"object","properties":{"a":{"type":"string"},"c":{"type":"string"},"b":{"type":"integer"},"named":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}},"required":["a","b","named"]}`},
		{"embedded kinds", reflect.TypeFor[embedKinds](), nil,
			`{"type":"object","properties":{"x":{"type":"integer"},"MyString":{"type":"string"},"tagged":{"type":["object","null"],"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]},"c":{"type":"string"}},"required":["x","MyString"]}`},
		{"conflicting embedded names are dropped", reflect.TypeFor[conflict](), nil,
			`{"type":"object","properties":{"Y":{"type":"string"}},"required":["Y"]}`},
		{"tagged embedded name wins", reflect.TypeFor[tagWins](), nil,
			`{"type":"object","properties":{"X":{"type":"string"}},"required":["X"]}`},
		{"schemer", reflect.TypeFor[custom](), nil,
			`{"type":"object","properties":{"id":{"type":"string","format":"uuid","description":"The id","pattern":"^[0-9a-f-]+$"},"opt":{"type":"string","format":"uuid"},"null":{"anyOf":[{"type":"string","format":"uuid"},{"type":"null"}]}},"required":["id"]}`},
		{"tags", reflect.TypeFor[tagged](), nil,
			`{"type":"object","properties":{` +
				`"color":{"type":"string","enum":["red","green","blue"],"default":"red"},` +
				`"level":{"type":"integer","enum":[1,2,3]},` +
				`"ratio":{"type":"number","minimum":0,"exclusiveMaximum":1.5},` +
				`"count":{"type":"integer","minimum":0,"maximum":10},` +
				`"name":{"type":"string","title":"Name","format":"hostname","minLength":1,"maxLength":20,"pattern":"^[a-z]+;?$"},` +
				`"tags":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string"}},` +
				`"flag":{"type":"boolean","const":true},` +
				`"opt":{"type":"string"},` +
				`"pipe":{"type":"string","enum":["a|b","c"]},` +
				`"extra":{"type":"array","default":[1,2],"items":{"type":"integer"}},` +
				`"nenum":{"type":["string","null"],"enum":["x","y",null]},` +
				`"spaced":{"type":"string","minLength":2}},` +
				`"required":["color","level","ratio","count","name","tags","flag","pipe","spaced"]}`},
		{"recursive root", reflect.TypeFor[Node](), nil,
			`{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`},
		{"recursive defs", reflect.TypeFor[tree](), nil,
			`{"type":"object","properties":{"root":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]},"other":{"$ref":"#/$defs/Node"}},"required":["other"],"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"]}}}`},
		{"mutual recursion", reflect.TypeFor[mutual](), nil,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}},"required":["a","b"],"$defs":{"A":{"type":"object","properties":{"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}}}}}`},
		{"strict objects", reflect.TypeFor[strict](), &Options{StrictObjects: true},
			`{"type":"object","properties":{"in":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false},"m":{"type":"object","additionalProperties":{"type":"integer"}}},"required":["in","m"],"additionalProperties":false}`},
		{"nullable collections", reflect.TypeFor[nullables](), &Options{NullableCollections: true},
			`{"type":"object","properties":{"s":{"type":["array","null"],"items":{"type":"integer"}},"m":{"type":["object","null"],"additionalProperties":{"type":"integer"}},"so":{"type":"array","items":{"type":"integer"}},"b":{"type":["string","null"],"contentEncoding":"base64"}},"required":["s","m","b"]}`},
		{"overrides and nullable wrapping", reflect.TypeFor[overrides](), nil,
			`{"type":"object","properties":{"d":{"description":"from tag","type":"string","minLength":3},"n":{"title":"T","description":"maybe","default":"x","anyOf":[{"type":"string","format":"uuid"},{"type":"null"}]},"c":{"type":["boolean","null"],"enum":[true,null]},"t":{"type":["string","null"],"format":"date-time"}},"required":["d"]}`},
		{"map root", reflect.TypeFor[map[string]StringList](), nil,
			`{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}`},
		{"empty struct", reflect.TypeFor[empty](), &Options{StrictObjects: true},
			`{"type":"object","properties":{},"additionalProperties":false}`},
		{"non-object root allowed", reflect.TypeFor[[]string](), &Options{AllowNonObjectRoot: true},
			`{"type":"array","items":{"type":"string"}}`},
		{"any root allowed", reflect.TypeFor[any](), &Options{AllowNonObjectRoot: true}, `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := For(tc.typ, tc.opts)
			if err != nil {
				t.Fatalf("For: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s", diff)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON: %s", got)
			}
			again, _ := For(tc.typ, tc.opts)
			if string(again) != string(got) {
				t.Errorf("output not deterministic:\n%s\n%s", got, again)
			}
		})
	}
}

func TestForType(t *testing.T) {
	got, err := ForType[empty](nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"type":"object","properties":{}}` {
		t.Errorf("ForType[empty] = %s", got)
	}
}

type rootSchemer struct{}

func (*rootSchemer) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
}

type boolSchemer int

func (boolSchemer) JSONSchema() json.RawMessage { return json.RawMessage(`false`) }

type withBool struct {
	No  boolSchemer `json:"no"`
	Doc boolSchemer `json:"doc" description:"never valid"`
}

func TestSchemerForms(t *testing.T) {
	got, err := For(reflect.TypeFor[rootSchemer](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"object","properties":{"x":{"type":"string"}}}`; string(got) != want {
		t.Errorf("pointer-receiver Schemer root: got %s, want %s", got, want)
	}
	got, err = For(reflect.TypeFor[withBool](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"object","properties":{"no":false,"doc":{"not":{},"description":"never valid"}},"required":["no","doc"]}`; string(got) != want {
		t.Errorf("boolean Schemer: got %s, want %s", got, want)
	}
}

type badSchemer struct{}

func (badSchemer) JSONSchema() json.RawMessage { return json.RawMessage(`[1]`) }

type dupSchemer struct{}

func (dupSchemer) JSONSchema() json.RawMessage { return json.RawMessage(`{"a":1,"a":2}`) }

func TestErrors(t *testing.T) {
	type chanField struct {
		C chan int `json:"c"`
	}
	type nestedBad struct {
		In struct {
			F func() `json:"f"`
		} `json:"in"`
	}
	type badKey struct {
		M map[[2]int]string `json:"m"`
	}
	tests := []struct {
		name     string
		typ      reflect.Type
		opts     *Options
		is       error  // errors.Is target, if any
		field    string // FieldError.Field, if a FieldError is expected
		contains string
	}{
		{"string root", reflect.TypeFor[string](), nil, ErrNotObject, "", "string"},
		{"slice root", reflect.TypeFor[[]int](), nil, ErrNotObject, "", ""},
		{"non-object schemer root", reflect.TypeFor[uuid](), nil, ErrNotObject, "", ""},
		{"chan field", reflect.TypeFor[chanField](), nil, ErrUnsupportedType, "C", "chan int"},
		{"nested func field", reflect.TypeFor[nestedBad](), nil, ErrUnsupportedType, "F", "func()"},
		{"bad map key", reflect.TypeFor[badKey](), nil, ErrUnsupportedType, "M", "map key"},
		{"complex root", reflect.TypeFor[complex128](), &Options{AllowNonObjectRoot: true}, ErrUnsupportedType, "", ""},
		{"schemer not an object", reflect.TypeFor[struct {
			X badSchemer `json:"x"`
		}](), nil, nil, "X", "not a JSON object"},
		{"schemer duplicate member", reflect.TypeFor[struct {
			X dupSchemer `json:"x"`
		}](), nil, nil, "X", `duplicate member "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := For(tc.typ, tc.opts)
			if err == nil {
				t.Fatalf("For succeeded with %s, want an error", got)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			var fe *FieldError
			if tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
				t.Errorf("error %q: want a FieldError for field %s", err, tc.field)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not mention %q", err, tc.contains)
			}
		})
	}
	if _, err := For(nil, nil); err == nil {
		t.Error("For(nil) succeeded")
	}
}

func TestPointerLoopRoot(t *testing.T) {
	// `type P *P` is legal Go; For must stop rather than loop.
	type P *P
	if _, err := For(reflect.TypeFor[P](), &Options{AllowNonObjectRoot: true}); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("For(type P *P) = %v, want ErrUnsupportedType", err)
	}
}

func TestDefNameCollision(t *testing.T) {
	type Node struct { // a second type called Node, declared in this function
		Next *Node `json:"next,omitempty"`
	}
	type both struct {
		X Node  `json:"x"`
		Y *Node `json:"y,omitempty"`
		Z Node2 `json:"z"`
	}
	got, err := For(reflect.TypeFor[both](), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"x":{"$ref":"#/$defs/Node"},"y":{"$ref":"#/$defs/Node"},"z":{"type":"object","properties":{"local":{"$ref":"#/$defs/Node_2"}},"required":["local"]}},"required":["x","z"],"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}},"Node_2":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node_2"}}},"required":["name"]}}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Node2 holds the package-level Node, to collide with a function-local Node.
type Node2 struct {
	Local Node `json:"local"`
}

// Generic types have brackets in their names; def names must not.
type GenNode[T any] struct {
	V    T           `json:"v"`
	Next *GenNode[T] `json:"next,omitempty"`
}

func TestGenericDefName(t *testing.T) {
	type holder struct {
		N GenNode[string] `json:"n"`
	}
	got, err := For(reflect.TypeFor[holder](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"$ref":"#/$defs/GenNode_string_"`) {
		t.Errorf("unexpected def name in %s", got)
	}
}

func TestAppendString(t *testing.T) {
	tests := map[string]string{
		"plain":      `"plain"`,
		"q\"b\\":     `"q\"b\\"`,
		"\x00\x1f\t": `"\u0000\u001f\t"`,
		"\xff":       `"\ufffd"`,
		"é\u2028":    `"é\u2028"`,
		"<&>":        `"<&>"`,
	}
	for in, want := range tests {
		got := string(appendString(nil, in))
		if got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("appendString(%q) = %s: not JSON: %v", in, got, err)
		}
	}
}
