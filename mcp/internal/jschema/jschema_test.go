package jschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// doc decodes JSON into the generic form Compile and Validate take.
func doc(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func mustCompile(t testing.TB, s string) *Schema {
	t.Helper()
	sc, err := Compile(doc(t, s))
	if err != nil {
		t.Fatalf("Compile(%s): %v", s, err)
	}
	return sc
}

// TestVerdicts covers keyword behaviour the differential test cannot pin down on
// its own (cases where the expected verdict follows from the specification).
func TestVerdicts(t *testing.T) {
	tests := []struct {
		schema string
		valid  []string
		bad    []string
	}{
		{`{"type":"integer"}`, []string{`1`, `1.0`, `-0`, `1e2`, `12345678901234567890`}, []string{`1.5`, `"1"`, `1e-2`}},
		{`{"multipleOf":0.01}`, []string{`19.99`, `0.07`, `1e2`, `0`}, []string{`0.075`, `1e-3`}},
		{`{"multipleOf":3}`, []string{`9`, `-6`, `9.0`}, []string{`10`, `1e999999999`}},
		{`{"maximum":9007199254740993}`, []string{`9007199254740993`, `9007199254740992`}, []string{`9007199254740994`}},
		{`{"exclusiveMinimum":0}`, []string{`1e-400`, `0.1`}, []string{`0`, `-0`, `-1e-400`}},
		{`{"const":1}`, []string{`1`, `1.0`, `1e0`, `10e-1`}, []string{`"1"`, `2`, `true`}},
		{`{"enum":[{"a":[1,2]},null]}`, []string{`{"a":[1.0,2]}`, `null`}, []string{`{"a":[2,1]}`, `{"a":[1,2],"b":1}`, `false`}},
		{`{"minLength":2,"maxLength":2}`, []string{`"é!"`, `"😀😀"`, `5`}, []string{`"😀"`, `"abc"`}},
		{`{"uniqueItems":true}`, []string{`[1,2,"1"]`, `[{"a":1},{"a":2}]`, `[[1],[1,2]]`},
			[]string{`[1,1.0]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,2.0]`}},
		{`{"contains":{"const":1},"minContains":2,"maxContains":3}`, []string{`[1,1]`, `[1,1,1,2]`}, []string{`[1]`, `[1,1,1,1]`, `[]`}},
		{`{"contains":{"const":1},"minContains":0}`, []string{`[]`, `[2]`}, nil},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, []string{`["a"]`, `[]`}, []string{`["a",1]`, `[1]`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`}, []string{`["a",1]`}},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":5,"exclusiveMaximum":true}`, []string{`4.9`}, []string{`5`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/s","type":"integer","definitions":{"s":{"type":"string"}}}`, []string{`"x"`}, []string{`1`}},
		{`{"$ref":"#/$defs/s","maxLength":1,"$defs":{"s":{"type":"string"}}}`, []string{`"x"`}, []string{`"xy"`, `1`}},
		{`{"properties":{"a/b":{"type":"string"},"c~d":{"$ref":"#/properties/a~1b"}}}`, []string{`{"a/b":"x","c~d":"y"}`}, []string{`{"c~d":1}`}},
		{`{"$defs":{"p%":{"type":"string"}},"$ref":"#/$defs/p%25"}`, []string{`"x"`}, []string{`1`}},
		{`{"$id":"http://example.com/root.json","$defs":{"a":{"$id":"item.json","type":"string"}},"items":{"$ref":"item.json"}}`, []string{`["x"]`}, []string{`[1]`}},
		{`{"$defs":{"a":{"$anchor":"name","type":"string"}},"$ref":"#name"}`, []string{`"x"`}, []string{`1`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#name","type":"string"}},"$ref":"#name"}`, []string{`"x"`}, []string{`1`}},
		{`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}},"v":{"type":"integer"}}}`,
			[]string{`{"v":1,"kids":[{"v":2,"kids":[]}]}`}, []string{`{"kids":[{"kids":[{"v":"x"}]}]}`}},
		{`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{}`}, []string{`{"a":1,"b":2}`}},
		{`{"allOf":[true],"unevaluatedProperties":false}`, []string{`{}`}, []string{`{"a":1}`}},
		{`{"anyOf":[{"properties":{"a":true},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`,
			[]string{`{"a":1,"b":2}`, `{"b":1}`}, []string{`{"a":1,"c":2}`}},
		{`{"if":{"properties":{"k":{"const":"x"}}},"then":{"properties":{"x":true}},"else":{"properties":{"y":true}},"unevaluatedProperties":false}`,
			// A failed "if" evaluates nothing: "k" is then unevaluated.
			[]string{`{"k":"x","x":1}`}, []string{`{"k":"x","y":1}`, `{"k":"z","y":1}`}},
		{`{"prefixItems":[true],"contains":{"type":"string"},"unevaluatedItems":false}`, []string{`[1,"a","b"]`}, []string{`[1,"a",2]`}},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","contains":{"type":"string"},"unevaluatedItems":false}`, nil, []string{`["a"]`, `[]`}},
		{`{"dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`, []string{`{"a":1,"b":1}`, `{"b":1}`, `{"c":1,"d":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}`, []string{`{"a":1,"b":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{`{"propertyNames":{"maxLength":2}}`, []string{`{"ab":1}`, `[]`}, []string{`{"abc":1}`}},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []string{`1`, `2.5`, `true`}, []string{`3`}},
		{`{"not":{"type":"string"}}`, []string{`1`}, []string{`"s"`}},
		{`{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":{"type":"integer"}}`, []string{`{"x-a":"s","b":1}`}, []string{`{"x-a":1}`, `{"b":"s"}`}},
		{`{"pattern":"b+"}`, []string{`"abbc"`, `3`}, []string{`"ac"`}},
		{`true`, []string{`1`, `null`}, nil},
		{`false`, nil, []string{`1`, `null`}},
		{`{"type":["string","null"]}`, []string{`null`, `"s"`}, []string{`1`}},
	}
	for _, tc := range tests {
		s := mustCompile(t, tc.schema)
		for _, in := range tc.valid {
			if err := s.Validate(doc(t, in)); err != nil {
				t.Errorf("%s: %s rejected: %v", tc.schema, in, err)
			}
		}
		for _, in := range tc.bad {
			err := s.Validate(doc(t, in))
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Details) == 0 {
				t.Errorf("%s: %s accepted (err %v)", tc.schema, in, err)
			}
		}
	}
}

// TestDynamicRef is the extensible-tree pattern: a generic tree whose nodes are
// re-bound to a stricter node schema by $dynamicRef.
func TestDynamicRef(t *testing.T) {
	s := mustCompile(t, `{
		"$id": "https://example.com/strict-tree",
		"$dynamicAnchor": "node",
		"$ref": "tree",
		"unevaluatedProperties": false,
		"$defs": {"tree": {
			"$id": "https://example.com/tree",
			"$dynamicAnchor": "node",
			"type": "object",
			"properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
		}}
	}`)
	if err := s.Validate(doc(t, `{"children":[{"data":1,"children":[]}]}`)); err != nil {
		t.Errorf("valid strict tree rejected: %v", err)
	}
	// The misspelt member is deep down: only the dynamic binding to strict-tree
	// (with its unevaluatedProperties) catches it.
	if err := s.Validate(doc(t, `{"children":[{"daat":1}]}`)); err == nil {
		t.Error("unevaluated member in a child accepted: $dynamicRef did not bind to the outer schema")
	}
	// The same tree on its own stays lenient.
	loose := mustCompile(t, `{
		"$id": "https://example.com/tree",
		"$dynamicAnchor": "node",
		"type": "object",
		"properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
	}`)
	if err := loose.Validate(doc(t, `{"children":[{"daat":1}]}`)); err != nil {
		t.Errorf("plain tree rejected an extra member: %v", err)
	}
	// 2019-09 $recursiveRef, same idea.
	rec := mustCompile(t, `{
		"$schema": "https://json-schema.org/draft/2019-09/schema",
		"$id": "https://example.com/strict",
		"$recursiveAnchor": true,
		"$ref": "tree",
		"unevaluatedProperties": false,
		"$defs": {"tree": {"$id": "https://example.com/tree", "$recursiveAnchor": true,
			"properties": {"data": true, "children": {"items": {"$recursiveRef": "#"}}}}}
	}`)
	if err := rec.Validate(doc(t, `{"children":[{"daat":1}]}`)); err == nil {
		t.Error("$recursiveRef did not bind to the outer schema")
	}
	if err := rec.Validate(doc(t, `{"children":[{"data":1}]}`)); err != nil {
		t.Errorf("valid recursive tree rejected: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, s := range []string{
		`{"type":"nonsense"}`, `{"type":5}`, `{"type":["string","string"]}`, `{"minLength":-1}`, `{"minLength":"3"}`,
		`{"minLength":1.5}`, `{"required":"a"}`, `{"required":["a","a"]}`, `{"pattern":"("}`, `{"pattern":"(?=x)"}`,
		`{"patternProperties":{"(":{}}}`, `{"$ref":"#/$defs/missing"}`, `{"$ref":"#nowhere"}`,
		`{"$ref":"https://example.com/elsewhere.json"}`, `{"$schema":"https://example.com/unknown"}`, `{"$schema":5}`,
		`{"properties":[]}`, `{"properties":{"a":5}}`, `{"enum":5}`, `{"allOf":[]}`, `{"anyOf":{}}`, `{"not":5}`,
		`{"items":5}`, `{"multipleOf":0}`, `{"multipleOf":-1}`, `{"maximum":"1"}`, `{"uniqueItems":1}`,
		`{"dependentRequired":{"a":"b"}}`, `{"$anchor":"1bad"}`, `{"$id":"#frag"}`, `5`, `"s"`, `null`,
		`{"$defs":{"a":{"$id":"http://x/a"},"b":{"$id":"http://x/a"}}}`,
	} {
		if _, err := Compile(doc(t, s)); err == nil {
			t.Errorf("Compile(%s) succeeded", s)
		}
	}
}

func TestErrorDetails(t *testing.T) {
	s := mustCompile(t, `{"type":"object","required":["name","age"],"additionalProperties":false,
		"properties":{"name":{"type":"string","minLength":2},"age":{"type":"integer","minimum":0},
		"tags":{"type":"array","items":{"type":"string"}}}}`)
	err := s.Validate(doc(t, `{"name":"x","tags":["a",7],"extra":true}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	want := []string{
		`at /: missing property "age"`,
		`at /: additional property "extra" not allowed`,
		`at /name: length must be >= 2 but found 1`,
		`at /tags/1: got integer, want string`,
	}
	var got []string
	for _, d := range ve.Details {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("details:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err.Error() != strings.Join(want, "; ") {
		t.Errorf("Error() = %q", err.Error())
	}
	// Pointer escaping in locations.
	s = mustCompile(t, `{"properties":{"a/b~":{"type":"string"}}}`)
	if err := s.Validate(doc(t, `{"a/b~":1}`)); err == nil || !strings.Contains(err.Error(), "at /a~1b~0: ") {
		t.Errorf("got %v", err)
	}
}

// TestReferenceLoop: a schema that refers to itself without consuming the
// instance fails cleanly instead of overflowing the stack.
func TestReferenceLoop(t *testing.T) {
	for _, sch := range []string{`{"$ref":"#"}`, `{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`} {
		s := mustCompile(t, sch)
		if err := s.Validate(doc(t, `{}`)); err == nil || !strings.Contains(err.Error(), "loop") {
			t.Errorf("%s: got %v", sch, err)
		}
	}
}

// TestBranchingReferences: a small schema whose references branch at every
// level would take 2^40 steps; the step bound fails it quickly instead, while a
// linked list deeper than the branching schema still validates.
func TestBranchingReferences(t *testing.T) {
	var defs []string
	for i := 0; i < 40; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d","minimum":1},{"$ref":"#/$defs/d%d","minimum":2}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"string"}`)
	s := mustCompile(t, `{"$ref":"#/$defs/d0","$defs":{`+strings.Join(defs, ",")+`}}`)
	if err := s.Validate(doc(t, `0`)); err == nil || !strings.Contains(err.Error(), "too complex") {
		t.Errorf("got %v", err)
	}
	list := mustCompile(t, `{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#"}},"required":["v"]}`)
	deep := strings.Repeat(`{"v":1,"next":`, 300) + `{"v":2}` + strings.Repeat(`}`, 300)
	if err := list.Validate(doc(t, deep)); err != nil {
		t.Errorf("deep list: %v", err)
	}
	bad := strings.Repeat(`{"v":1,"next":`, 300) + `{"v":"x"}` + strings.Repeat(`}`, 300)
	if err := list.Validate(doc(t, bad)); err == nil || !strings.Contains(err.Error(), "/next/next/") {
		t.Errorf("deep bad list: %v", err)
	}
}

// TestHugeNumbers: exponents from a peer are not expanded into huge rationals.
func TestHugeNumbers(t *testing.T) {
	s := mustCompile(t, `{"multipleOf":0.1,"maximum":1e308,"enum":[1e999999999, 5]}`)
	if err := s.Validate(doc(t, `1e999999999`)); err == nil {
		t.Error("1e999999999 accepted though above maximum")
	}
	u := mustCompile(t, `{"uniqueItems":true}`)
	if err := u.Validate(doc(t, `[1e999999999, 2e999999999]`)); err == nil {
		t.Error("two infinities (as float64) reported unique")
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"text":{"type":"string","maxLength":100},"n":{"type":"integer","minimum":0},
		"tags":{"type":"array","items":{"enum":["a","b"]}}},"required":["text"],"additionalProperties":false}`)
	v := doc(t, `{"text":"hello","n":3,"tags":["a","b"]}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := s.Validate(v); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Validate allocated %v times per run", n)
	}
}

func TestConcurrentValidate(t *testing.T) {
	s := mustCompile(t, `{"$id":"https://e.com/s","$dynamicAnchor":"n","properties":{"k":{"items":{"$dynamicRef":"#n"}}},"unevaluatedProperties":false}`)
	good, bad := doc(t, `{"k":[{"k":[]}]}`), doc(t, `{"k":[{"x":1}]}`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				if s.Validate(good) != nil || s.Validate(bad) == nil {
					t.Error("verdict changed under concurrency")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkValidateToolArgs compares this validator with the one mcp used
// before (santhosh-tekuri/jsonschema/v6) on a typical tool input.
func BenchmarkValidateToolArgs(b *testing.B) {
	const schema = `{"type":"object","properties":{"text":{"type":"string","maxLength":1000},"count":{"type":"integer","minimum":1},
		"mode":{"enum":["fast","slow"]}},"required":["text"],"additionalProperties":false}`
	v := doc(b, `{"text":"hello world, 16","count":3,"mode":"fast"}`)
	b.Run("jschema", func(b *testing.B) {
		s := mustCompile(b, schema)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("santhosh", func(b *testing.B) {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("mem:///s.json", doc(b, schema)); err != nil {
			b.Fatal(err)
		}
		s, err := c.Compile("mem:///s.json")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzCompile feeds arbitrary schemas: Compile and Validate must not panic, and
// when both validators compile the schema they must agree on a few instances.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		`{"$defs":{"n":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/n"}]}},"items":{"$ref":"#/$defs/n"}}`,
		`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`,
		`{"$id":"https://e.com/s","$dynamicAnchor":"n","properties":{"k":{"items":{"$dynamicRef":"#n"}}}}`,
		`{"prefixItems":[{"const":1}],"contains":{"minimum":2},"maxContains":1,"uniqueItems":true}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[true],"additionalItems":{"type":"integer"},"dependencies":{"a":["b"]}}`,
		`{"patternProperties":{"^x":{"format":"date"}},"propertyNames":{"maxLength":3},"multipleOf":0.5}`,
	} {
		f.Add(s)
	}
	instances := []string{`null`, `true`, `0`, `1.5`, `"ab"`, `"2024-02-29"`, `[]`, `[1,2,2]`, `[1,"x",3]`, `{}`,
		`{"a":"x"}`, `{"a":1,"b":null}`, `{"x1":"2024-13-01"}`, `{"k":[{"k":[]},{"z":1}]}`, `[null,[null]]`}
	var docs []any
	for _, in := range instances {
		docs = append(docs, doc(f, in))
	}
	f.Fuzz(func(t *testing.T, schema string) {
		d, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
		if err != nil {
			return
		}
		ours, err := compileOurs(d)
		if err != nil {
			if strings.HasPrefix(err.Error(), "PANIC") {
				t.Fatal(err)
			}
			return
		}
		theirs, oerr := compileOracle(d)
		for i, v := range docs {
			err := validateOurs(ours, v)
			if err != nil && strings.HasPrefix(err.Error(), "PANIC") {
				t.Fatalf("%s on %s: %v", schema, instances[i], err)
			}
			if oerr == nil && (err == nil) != (theirs.Validate(v) == nil) {
				t.Fatalf("%s on %s: ours %v, santhosh valid=%v", schema, instances[i], err, theirs.Validate(v) == nil)
			}
		}
	})
}
