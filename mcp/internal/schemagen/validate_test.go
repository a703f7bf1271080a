package schemagen

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile compiles a generated schema with jsonschema/v6 as draft 2020-12, with format
// and content assertions on, failing the test if it does not compile.
func compile(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, schema)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatalf("AddResource: %v", err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, schema)
	}
	return s
}

func validate(s *jsonschema.Schema, instance string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestSchemasValidate compiles each schema and checks hand-written instances against
// it: the valid ones must pass and each invalid one must fail.
func TestSchemasValidate(t *testing.T) {
	tests := []struct {
		name    string
		typ     reflect.Type
		opts    *Options
		valid   []string
		invalid []string
	}{
		{"basic", reflect.TypeFor[basic](), nil,
			[]string{`{"s":"x","b":true,"i":-3,"i8":1,"u":0,"u64":9,"f32":1.5,"f64":-2}`},
			[]string{
				`{"s":"x","b":true,"i":-3,"i8":1,"u":0,"u64":9,"f32":1.5}`,           // missing f64
				`{"s":1,"b":true,"i":-3,"i8":1,"u":0,"u64":9,"f32":1.5,"f64":-2}`,    // s not a string
				`{"s":"x","b":true,"i":1.5,"i8":1,"u":0,"u64":9,"f32":1.5,"f64":-2}`, // i not an integer
				`{"s":"x","b":true,"i":1,"i8":1,"u":-1,"u64":9,"f32":1.5,"f64":-2}`,  // u negative
				`{"s":"x","b":"no","i":1,"i8":1,"u":1,"u64":9,"f32":1.5,"f64":-2}`,   // b not boolean
				`[]`,
			}},
		{"tags", reflect.TypeFor[tagged](), nil,
			[]string{
				`{"color":"green","level":2,"ratio":0,"count":10,"name":"abc","tags":["a"],"flag":true,"pipe":"a|b","spaced":"ab","nenum":null}`,
				`{"color":"red","level":3,"ratio":1.4,"count":0,"name":"a","tags":["a","b","c"],"flag":true,"pipe":"c","spaced":"abc","opt":"","extra":[],"nenum":"y"}`,
			},
			[]string{
				`{"color":"pink","level":2,"ratio":0,"count":10,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":4,"ratio":0,"count":10,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":1.5,"count":10,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":-1,"count":10,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":11,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"ABC","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abcdefghijklmnopqrstu","tags":["a"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":[],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a","b","c","d"],"flag":true,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a"],"flag":false,"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a"],"pipe":"c","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a"],"flag":true,"pipe":"a","spaced":"ab"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"a"}`,
				`{"color":"red","level":2,"ratio":0,"count":1,"name":"abc","tags":["a"],"flag":true,"pipe":"c","spaced":"ab","nenum":"z"}`,
			}},
		{"pointers", reflect.TypeFor[pointers](), nil,
			[]string{`{"preq":null,"n":null}`, `{"p":"a","po":"b","pp":1,"preq":2,"n":"x","ns":null}`},
			[]string{`{"n":"x"}`, `{"preq":1,"n":"x","po":null}`, `{"preq":1,"n":"x","p":3}`}},
		{"specials", reflect.TypeFor[specials](), nil,
			[]string{`{"t":"2025-01-02T03:04:05Z","raw":[1,{}],"num":3.5,"any":null,"addr":"::1","dur":5,"q":"7"}`},
			[]string{
				`{"t":"yesterday","raw":1,"num":3.5,"any":null,"addr":"::1","dur":5,"q":"7"}`,
				`{"t":"2025-01-02T03:04:05Z","raw":1,"num":"3.5","any":null,"addr":"::1","dur":5,"q":"7"}`,
				`{"t":"2025-01-02T03:04:05Z","raw":1,"num":3.5,"any":null,"addr":"::1","dur":5,"q":7}`,
			}},
		{"collections", reflect.TypeFor[collections](), nil,
			[]string{`{"bytes":"aGk=","ints":[1],"arr":["a","b","c"],"arrb":[0,255],"map":{"x":1},"intkey":{"1":true},"nested":[[1.5]]}`},
			[]string{
				`{"bytes":"not base64!","ints":[1],"arr":["a","b","c"],"arrb":[0,255],"map":{},"intkey":{},"nested":[]}`,
				`{"bytes":"","ints":[1],"arr":["a","b"],"arrb":[0,255],"map":{},"intkey":{},"nested":[]}`,
				`{"bytes":"","ints":[1],"arr":["a","b","c"],"arrb":[0,255],"map":{"x":"1"},"intkey":{},"nested":[]}`,
				`{"bytes":"","ints":[1],"arr":["a","b","c"],"arrb":[0,255],"map":{},"intkey":{},"nested":[],"mapptr":{"k":{}}}`,
			}},
		{"recursive", reflect.TypeFor[tree](), nil,
			[]string{`{"root":null,"other":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}}`},
			[]string{`{"other":{"name":"a","children":[{"name":"b","children":[{}]}]}}`, `{"root":{"name":1},"other":{"name":"x"}}`}},
		{"recursive root", reflect.TypeFor[Node](), nil,
			[]string{`{"name":"a","children":[{"name":"b","children":[]}]}`},
			[]string{`{"name":"a","children":[{"children":[]}]}`}},
		{"mutual", reflect.TypeFor[mutual](), nil,
			[]string{`{"a":{"b":{"a":{"b":{}}}},"b":{}}`},
			[]string{`{"a":{"b":{"a":{"b":1}}},"b":{}}`}},
		{"strict", reflect.TypeFor[strict](), &Options{StrictObjects: true},
			[]string{`{"in":{"a":"","b":""},"m":{"any":1}}`},
			[]string{`{"in":{"a":"","b":"","c":""},"m":{}}`, `{"in":{"a":"","b":""},"m":{},"z":1}`}},
		{"overrides", reflect.TypeFor[overrides](), nil,
			[]string{`{"d":"abc","n":null,"c":null,"t":null}`, `{"d":"abc","c":true,"t":"2025-01-01T00:00:00Z"}`},
			[]string{`{"d":"ab"}`, `{"d":"abc","c":false}`, `{"d":"abc","n":"nope"}`}},
		{"schemer", reflect.TypeFor[custom](), nil,
			[]string{`{"id":"123e4567-e89b-12d3-a456-426614174000","null":null}`},
			[]string{
				`{"id":"not-a-uuid"}`, // fails format
				`{"id":"123E4567-E89B-12D3-A456-426614174000","null":null}`, // fails pattern
				`{"id":"123e4567-e89b-12d3-a456-426614174000","opt":null}`,  // omitempty pointer is not nullable
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema, err := For(tc.typ, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			s := compile(t, schema)
			for _, in := range tc.valid {
				if err := validate(s, in); err != nil {
					t.Errorf("valid instance rejected: %s\n%v", in, err)
				}
			}
			for _, in := range tc.invalid {
				if err := validate(s, in); err == nil {
					t.Errorf("invalid instance accepted: %s", in)
				}
			}
		})
	}
}

// TestAgreesWithEncodingJSON checks that whatever encoding/json writes for a value
// validates against the schema of its type: zero values (nil pointers, slices and
// maps) and populated ones.
func TestAgreesWithEncodingJSON(t *testing.T) {
	s := "x"
	one := 1
	pone := &one
	ts := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	values := []any{
		basic{S: "a", U: 3, F64: 1.25},
		names{Plain: "p", Skipped: "gone"},
		pointers{},
		pointers{P: &s, PO: &s, PP: &pone, PReq: &one, NS: []string{"a"}},
		collections{},
		collections{Bytes: []byte("hi"), Ints: []int{1}, Map: map[string]int{"k": 1}, IntKey: map[int]bool{-5: true}, MapPtr: map[string]*basic{"b": {}}},
		specials{T: ts, Raw: json.RawMessage(`{"a":[1]}`), Num: "12", Any: []any{1, "x"}, Dur: time.Second, Q: 42},
		outer{},
		outer{Inner: Inner{A: "a", B: "shadowed"}, PtrInner: &PtrInner{C: "c"}, B: 2},
		conflict{ConflictA: ConflictA{X: "a"}, ConflictB: ConflictB{X: "b"}, Y: "y"},
		tagWins{},
		embedKinds{},
		embedKinds{hiddenInner: hiddenInner{X: 1}, MyString: "m", Tagged: &Inner{}, PtrInner: &PtrInner{C: "c"}},
		tree{},
		tree{Root: &Node{Name: "r", Children: []*Node{{Name: "c"}}}},
		mutual{A: A{B: &B{A: &A{}}}},
		nullables{},
		nullables{S: []int{1}, M: map[string]int{}, B: []byte{1}},
		GenNode[int]{V: 1, Next: &GenNode[int]{V: 2}},
	}
	for _, v := range values {
		typ := reflect.TypeOf(v)
		t.Run(typ.String(), func(t *testing.T) {
			schema, err := For(typ, &Options{NullableCollections: true, StrictObjects: true})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(compile(t, schema), string(data)); err != nil {
				t.Errorf("encoding/json output %s does not validate against %s:\n%v", data, schema, err)
			}
		})
	}
}

func TestTagErrors(t *testing.T) {
	tests := []struct {
		name     string
		typ      reflect.Type
		contains string
	}{
		{"unknown key", reflect.TypeFor[struct {
			F string `mcp:"minlength=1"`
		}](), `unknown key "minlength"`},
		{"unknown flag", reflect.TypeFor[struct {
			F string `mcp:"requried"`
		}](), `unknown item "requried"`},
		{"flag with value", reflect.TypeFor[struct {
			F string `mcp:"required=true"`
		}](), "takes no value"},
		{"value key without value", reflect.TypeFor[struct {
			F string `mcp:"enum"`
		}](), "needs a value"},
		{"duplicate key", reflect.TypeFor[struct {
			F string `mcp:"format=a;format=b"`
		}](), "given twice"},
		{"duplicate flag", reflect.TypeFor[struct {
			F string `mcp:"nullable;nullable"`
		}](), "given twice"},
		{"required and optional", reflect.TypeFor[struct {
			F string `mcp:"required;optional"`
		}](), "both given"},
		{"int enum not a number", reflect.TypeFor[struct {
			F int `mcp:"enum=1|two"`
		}](), `value "two"`},
		{"int8 enum out of range", reflect.TypeFor[struct {
			F int8 `mcp:"enum=1|200"`
		}](), "8-bit"},
		{"uint negative default", reflect.TypeFor[struct {
			F uint16 `mcp:"default=-1"`
		}](), "unsigned 16-bit"},
		{"bool default", reflect.TypeFor[struct {
			F bool `mcp:"default=yes"`
		}](), `"true" or "false"`},
		{"float const NaN", reflect.TypeFor[struct {
			F float64 `mcp:"const=NaN"`
		}](), "finite"},
		{"float32 out of range", reflect.TypeFor[struct {
			F float32 `mcp:"default=1e39"`
		}](), "32-bit"},
		{"minimum not a number", reflect.TypeFor[struct {
			F int `mcp:"minimum=abc"`
		}](), "finite JSON number"},
		{"minimum on string", reflect.TypeFor[struct {
			F string `mcp:"minimum=1"`
		}](), "applies to integer or number values, not string"},
		{"minLength on int", reflect.TypeFor[struct {
			F int `mcp:"minLength=1"`
		}](), "not integer"},
		{"minItems on string", reflect.TypeFor[struct {
			F string `mcp:"minItems=1"`
		}](), "applies to array"},
		{"negative maxLength", reflect.TypeFor[struct {
			F string `mcp:"maxLength=-1"`
		}](), "non-negative"},
		{"bad pattern", reflect.TypeFor[struct {
			F string `mcp:"pattern=(["`
		}](), "bad regular expression"},
		{"minimum above maximum", reflect.TypeFor[struct {
			F int `mcp:"minimum=5;maximum=1"`
		}](), "greater than maximum"},
		{"minLength above maxLength", reflect.TypeFor[struct {
			F string `mcp:"minLength=5;maxLength=1"`
		}](), "greater than maxLength"},
		{"slice default not JSON", reflect.TypeFor[struct {
			F []int `mcp:"default=1,2"`
		}](), "not valid JSON"},
		{"empty enum", reflect.TypeFor[struct {
			F string `mcp:"enum="`
		}](), "empty enum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := For(tc.typ, nil)
			if err == nil {
				t.Fatalf("For succeeded with %s, want an error", got)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "F" || !strings.Contains(fe.Struct, "struct") {
				t.Errorf("error %q: want a FieldError naming the struct and field F", err)
			}
			if !strings.Contains(err.Error(), "mcp tag") || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not mention %q", err, tc.contains)
			}
		})
	}
}

func TestFieldErrorNamesStruct(t *testing.T) {
	_, err := For(reflect.TypeFor[struct {
		In badTag `json:"in"`
	}](), nil)
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("want a FieldError, got %v", err)
	}
	if fe.Struct != "schemagen.badTag" || fe.Field != "Limit" {
		t.Errorf("FieldError names %s.%s, want schemagen.badTag.Limit", fe.Struct, fe.Field)
	}
	if want := "schemagen: schemagen.badTag.Limit: mcp tag: maximum=x: not a finite JSON number"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

type badTag struct {
	Limit int `json:"limit" mcp:"maximum=x"`
}
