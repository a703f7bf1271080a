package jschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// This file checks Compile and Validate against github.com/santhosh-tekuri/jsonschema/v6
// used as an oracle: both must accept or reject each schema of diffCases, and both must
// give the same verdict on each instance. The corpus is written for this test.

// diffCase is a schema with instances to validate against it. Instances are JSON texts;
// most cases mix valid and invalid ones (a few schemas, like true, cannot). A case whose
// schema is expected to be rejected still lists instances: if both implementations
// accept the schema, they are compared.
type diffCase struct {
	name      string
	schema    string
	instances []string
}

// Dialect URIs, spliced into schemas with %s via sch.
const (
	d4    = "http://json-schema.org/draft-04/schema#"
	d6    = "http://json-schema.org/draft-06/schema#"
	d7    = "http://json-schema.org/draft-07/schema#"
	d2019 = "https://json-schema.org/draft/2019-09/schema"
	d2020 = "https://json-schema.org/draft/2020-12/schema"
)

// sch replaces each %s in format by dialect.
func sch(dialect, format string) string {
	return strings.ReplaceAll(format, "%s", dialect)
}

// jsonArray renders items as a JSON array.
func jsonArray(items ...string) string {
	return "[" + strings.Join(items, ",") + "]"
}

// intSeq returns the JSON texts of the integers from..to, followed by extra.
func intSeq(from, to int, extra ...string) []string {
	var s []string
	for i := from; i <= to; i++ {
		s = append(s, strconv.Itoa(i))
	}
	return append(s, extra...)
}

// objSeq returns n distinct objects, followed by extra.
func objSeq(n int, extra ...string) []string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, fmt.Sprintf(`{"id":%d,"tags":["t%d",%d],"ok":%v}`, i, i%7, i%3, i%2 == 0))
	}
	return append(s, extra...)
}

// strSeq returns n distinct strings, followed by extra.
func strSeq(n int, extra ...string) []string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, strconv.Quote(fmt.Sprintf("s%03d", i)))
	}
	return append(s, extra...)
}

// nestedItemsSchema nests depth "items" around leaf.
func nestedItemsSchema(depth int, leaf string) string {
	s := leaf
	for i := 0; i < depth; i++ {
		s = `{"type":"array","items":` + s + `}`
	}
	return s
}

// nestedArray nests depth arrays around leaf.
func nestedArray(depth int, leaf string) string {
	return strings.Repeat("[", depth) + leaf + strings.Repeat("]", depth)
}

// deepTree returns a chain of depth tree nodes whose innermost value is leaf.
func deepTree(depth int, leaf string) string {
	s := `{"value":` + leaf + `}`
	for i := 0; i < depth; i++ {
		s = fmt.Sprintf(`{"value":%d,"children":[{"value":%d},%s]}`, i, -i, s)
	}
	return s
}

// deepList returns a linked list of n nodes ending with last as the final "next".
func deepList(n int, last string) string {
	s := last
	for i := n; i > 0; i-- {
		s = fmt.Sprintf(`{"v":%d,"next":%s}`, i, s)
	}
	return s
}

var nonStrings = []string{`1`, `2.5`, `true`, `null`, `{}`, `[]`, `["x"]`, `{"a":"b"}`}

// formatCase builds a case asserting format with the given string instances plus
// non-string instances, which every format accepts.
func formatCase(format string, values ...string) diffCase {
	var inst []string
	for _, v := range values {
		inst = append(inst, strconv.Quote(v))
	}
	return diffCase{
		name:      "format/" + format,
		schema:    `{"format":` + strconv.Quote(format) + `}`,
		instances: append(inst, nonStrings...),
	}
}

var diffCases = []diffCase{
	// ---- type ----
	{"type/null", `{"type":"null"}`, []string{`null`, `0`, `false`, `""`, `[]`, `{}`, `"null"`}},
	{"type/boolean", `{"type":"boolean"}`, []string{`true`, `false`, `0`, `1`, `"true"`, `null`, `[]`}},
	{"type/object", `{"type":"object"}`, []string{`{}`, `{"a":1}`, `[]`, `"{}"`, `null`, `0`}},
	{"type/array", `{"type":"array"}`, []string{`[]`, `[1,[2]]`, `{}`, `"[]"`, `null`, `{"0":1}`}},
	{"type/number", `{"type":"number"}`, []string{`0`, `-1.5`, `1e300`, `12345678901234567890123`, `1.0`, `"1"`, `true`, `null`, `[1]`}},
	{"type/string", `{"type":"string"}`, []string{`""`, `"x"`, `"\u0000"`, `1`, `null`, `["a"]`, `{"a":"b"}`}},
	{"type/integer", `{"type":"integer"}`, []string{`1`, `-7`, `0`, `-0`, `1.0`, `0.0`, `1.5`, `1e2`, `1.5e2`, `1e-2`, `0.1e1`, `1e400`, `9007199254740993`, `12345678901234567890.000`, `"1"`, `true`, `null`}},
	{"type/array-of-types", `{"type":["integer","string"]}`, []string{`1`, `2.0`, `"a"`, `1.5`, `null`, `[]`, `true`}},
	{"type/null-or-object", `{"type":["null","object"]}`, []string{`null`, `{}`, `[]`, `0`, `""`}},
	{"type/array-or-boolean", `{"type":["array","boolean"]}`, []string{`[]`, `false`, `{}`, `0`}},
	{"type/number-or-integer", `{"type":["number","integer"]}`, []string{`1`, `1.5`, `"1"`}},
	{"type/d4-integer", sch(d4, `{"$schema":"%s","type":"integer"}`), []string{`1`, `1.0`, `1.5`, `-3`, `"1"`}},
	{"type/d7-integer", sch(d7, `{"$schema":"%s","type":"integer"}`), []string{`1`, `1.0`, `1.5`, `1e3`}},
	{"type/d7-no-fragment", `{"$schema":"http://json-schema.org/draft-07/schema","type":"string"}`, []string{`"a"`, `1`}},
	{"type/explicit-2020", sch(d2020, `{"$schema":"%s","type":"object"}`), []string{`{}`, `[]`}},
	{"type/with-minLength", `{"type":"string","minLength":2}`, []string{`"ab"`, `"a"`, `12`, `null`}},

	// ---- enum / const ----
	{"enum/mixed", `{"enum":[1,"1",true,null,[1,2],{"a":1}]}`, []string{`1`, `1.0`, `"1"`, `true`, `false`, `null`, `[1,2]`, `[1,2.0]`, `[2,1]`, `[1]`, `{"a":1}`, `{"a":1.0}`, `{"a":1,"b":2}`, `{}`, `0`, `2`}},
	{"enum/numbers", `{"enum":[0,2.5,-1e3]}`, []string{`0`, `-0`, `0.0`, `2.50`, `-1000`, `-1000.0`, `2.4`, `"0"`, `false`}},
	{"enum/false", `{"enum":[false]}`, []string{`false`, `0`, `null`, `""`, `true`}},
	{"enum/empty-string-or-null", `{"enum":["",null]}`, []string{`""`, `null`, `" "`, `0`, `false`, `[]`}},
	{"enum/empty", `{"enum":[]}`, []string{`1`, `null`, `{}`}},
	{"enum/nested-objects", `{"enum":[{"a":[1,{"b":null}]},[{"x":"y"}]]}`, []string{`{"a":[1,{"b":null}]}`, `{"a":[1.0,{"b":null}]}`, `{"a":[1,{"b":null,"c":1}]}`, `[{"x":"y"}]`, `[{"x":"y"},{}]`, `{"a":[{"b":null},1]}`}},
	{"const/one", `{"const":1}`, []string{`1`, `1.0`, `1.00e0`, `10e-1`, `0.1e1`, `"1"`, `true`, `2`, `[1]`}},
	{"const/zero", `{"const":0}`, []string{`0`, `-0`, `0.0`, `0e10`, `false`, `null`, `"0"`, `[]`}},
	{"const/deep-object", `{"const":{"a":[1,{"b":null}],"c":"x"}}`, []string{`{"a":[1,{"b":null}],"c":"x"}`, `{"c":"x","a":[1,{"b":null}]}`, `{"c":"x","a":[1.0,{"b":null}]}`, `{"a":[1,{"b":null}],"c":"x","d":1}`, `{"a":[1,{"b":null}]}`, `{"a":[1,{"b":false}],"c":"x"}`, `{"a":[1,{}],"c":"x"}`}},
	{"const/array", `{"const":[1,[2,3],{}]}`, []string{`[1,[2,3],{}]`, `[1.0,[2.0,3],{}]`, `[1,[3,2],{}]`, `[1,[2,3]]`, `[1,[2,3],{"a":1}]`, `[1,[2,3],[]]`, `{"0":1}`}},
	{"const/null", `{"const":null}`, []string{`null`, `0`, `false`, `""`, `{}`, `[]`}},
	{"const/false", `{"const":false}`, []string{`false`, `0`, `null`, `true`, `[false]`}},
	{"const/unicode-string", `{"const":"é"}`, []string{`"é"`, `"\u00e9"`, `"e\u0301"`, `"E"`}},
	{"const/big-number", `{"const":9007199254740993}`, []string{`9007199254740993`, `9007199254740992`, `9007199254740993.0`, `9.007199254740993e15`}},

	// ---- multipleOf ----
	{"multipleOf/int", `{"multipleOf":3}`, []string{`0`, `9`, `10`, `-9`, `9.0`, `4.5`, `"9"`, `9007199254740993`, `9007199254740992`, `1e400`, `3e400`, `true`}},
	{"multipleOf/0.01", `{"multipleOf":0.01}`, []string{`19.99`, `0.075`, `0.07`, `1`, `1e-2`, `100.001`, `0.1`, `-4.01`, `0`, `123456789.12`, `123456789.123`}},
	{"multipleOf/0.1", `{"multipleOf":0.1}`, []string{`0.3`, `0.35`, `1.1`, `7`, `-0.7`, `0.30000000000000004`}},
	{"multipleOf/1.5", `{"multipleOf":1.5}`, []string{`4.5`, `3`, `4`, `-1.5`, `0`, `1.5e1`}},
	{"multipleOf/big", `{"multipleOf":1e10}`, []string{`1e20`, `12345678900000000000`, `10000000001`, `1.5e10`, `-3e10`}},
	{"multipleOf/tiny", `{"multipleOf":0.0001}`, []string{`0.0075`, `0.00001`, `123.4567`, `1e-5`, `5`}},
	{"multipleOf/integer-type", `{"type":"integer","multipleOf":2}`, []string{`4`, `4.0`, `3`, `2.5`, `-8`}},
	{"multipleOf/0.5-float", `{"multipleOf":0.5}`, []string{`1e308`, `2.5`, `2.25`, `1.7976931348623157e308`}},

	// ---- numeric ranges ----
	{"maximum", `{"maximum":10}`, []string{`10`, `10.0`, `10.0001`, `-100`, `11`, `"100"`, `null`}},
	{"minimum", `{"minimum":-2.5}`, []string{`-2.5`, `-2.6`, `0`, `-3`, `"x"`, `[]`}},
	{"exclusiveMaximum", `{"exclusiveMaximum":10}`, []string{`9.999`, `10`, `10.0`, `11`, `"11"`}},
	{"exclusiveMinimum", `{"exclusiveMinimum":0}`, []string{`0`, `-0`, `0.0000001`, `1e-300`, `-1e-300`, `false`}},
	{"range/combined", `{"minimum":1,"exclusiveMaximum":5}`, []string{`1`, `0.999`, `4.999`, `5`, `3`}},
	{"maximum/big-exact", `{"maximum":9007199254740992}`, []string{`9007199254740992`, `9007199254740993`, `9007199254740991`, `9007199254740992.5`}},
	{"minimum/huge", `{"minimum":1e308}`, []string{`1e309`, `1e307`, `2e308`, `1e308`, `-1e309`}},
	{"exclusiveMinimum/tiny", `{"exclusiveMinimum":1e-320}`, []string{`0`, `1e-320`, `2e-320`, `1e-400`}},
	{"maximum-and-exclusiveMaximum", `{"maximum":5,"exclusiveMaximum":5}`, []string{`5`, `4.9`, `6`}},
	{"d4/exclusiveMaximum-true", sch(d4, `{"$schema":"%s","maximum":10,"exclusiveMaximum":true}`), []string{`10`, `9.5`, `11`, `10.0`}},
	{"d4/exclusiveMinimum-true", sch(d4, `{"$schema":"%s","minimum":0,"exclusiveMinimum":true}`), []string{`0`, `0.1`, `-1`}},
	{"d4/exclusive-false", sch(d4, `{"$schema":"%s","maximum":3,"exclusiveMaximum":false,"minimum":1,"exclusiveMinimum":false}`), []string{`1`, `3`, `0`, `4`, `2`}},
	{"d6/exclusive-numeric", sch(d6, `{"$schema":"%s","exclusiveMinimum":1,"exclusiveMaximum":3}`), []string{`1`, `2`, `3`, `2.999`}},
	{"d7/maximum", sch(d7, `{"$schema":"%s","maximum":1.5,"minimum":-1.5}`), []string{`1.5`, `1.51`, `-1.5`, `-1.51`}},

	// ---- strings ----
	{"maxLength/code-points", `{"maxLength":2}`, []string{`"ab"`, `"abc"`, `"😀😀"`, `"😀😀😀"`, `"\ud83d\ude00\ud83d\ude00"`, `"é"`, `"e\u0301e"`, `"日本"`, `"日本語"`, `""`, `123`, `["a","b","c"]`}},
	{"minLength/code-points", `{"minLength":2}`, []string{`"😀"`, `"😀a"`, `"a"`, `""`, `"日本"`, `"e\u0301"`, `1`, `null`}},
	{"length/zero", `{"minLength":0,"maxLength":0}`, []string{`""`, `"a"`, `" "`, `0`}},
	{"maxLength/float-integer", `{"maxLength":2.0}`, []string{`"ab"`, `"abc"`}},
	{"pattern/unanchored", `{"pattern":"b+"}`, []string{`"abbbc"`, `"ac"`, `""`, `"B"`, `123`, `null`}},
	{"pattern/anchored", `{"pattern":"^[a-z]+[0-9]*$"}`, []string{`"abc"`, `"abc123"`, `"ABC"`, `"abc-1"`, `"abc\n"`, `""`}},
	{"pattern/unicode-class", `{"pattern":"^\\p{L}+$"}`, []string{`"héllo"`, `"日本語"`, `"abc1"`, `""`}},
	{"pattern/dot-code-point", `{"pattern":"^.{2}$"}`, []string{`"😀😀"`, `"😀"`, `"ab"`, `"abc"`}},
	{"pattern/escapes", `{"pattern":"^\\d{3}-\\d{4}$"}`, []string{`"555-1234"`, `"5555-1234"`, `"555-12345"`, `"abc-defg"`}},
	{"pattern/alternation", `{"pattern":"cat|dog"}`, []string{`"hotdog"`, `"category"`, `"cow"`}},

	// ---- arrays ----
	{"maxItems", `{"maxItems":2}`, []string{`[]`, `[1,2]`, `[1,2,3]`, `"abc"`, `{"a":1,"b":2,"c":3}`}},
	{"minItems", `{"minItems":1}`, []string{`[]`, `[null]`, `{}`, `""`}},
	{"uniqueItems/basic", `{"uniqueItems":true}`, []string{`[1,2,3]`, `[1,2,1]`, `[1,1.0]`, `[1,true]`, `[0,false]`, `[null,null]`, `[null,false]`, `["a","A"]`, `[[1],[1.0]]`, `[[1,2],[2,1]]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[{"a":1},{"a":2}]`, `[{"a":[1,{"b":2}]},{"a":[1.0,{"b":2.0}]}]`, `[{},[]]`, `[-1,1]`, `[]`, `"aa"`, `{"a":1,"b":1}`}},
	{"uniqueItems/false", `{"uniqueItems":false}`, []string{`[1,1]`, `[{},{}]`}},
	{"uniqueItems/large", `{"uniqueItems":true}`, []string{
		jsonArray(intSeq(0, 44)...),
		jsonArray(intSeq(0, 44, `1.0`)...),
		jsonArray(intSeq(0, 44, `-1`, `-44`)...),
		jsonArray(intSeq(0, 44, `44`)...),
		jsonArray(objSeq(45)...),
		jsonArray(objSeq(45, `{"ok":true,"tags":["t0",0],"id":0.0}`)...),
		jsonArray(objSeq(45, `{"ok":true,"tags":["t0",0],"id":0.5}`)...),
		jsonArray(strSeq(50)...),
		jsonArray(strSeq(50, `"s049"`)...),
		jsonArray(strSeq(50, `[1,2]`, `[1,2.0]`)...),
		jsonArray(strSeq(50, `[1,2]`, `[2,1]`, `null`, `false`, `0`, `""`)...),
	}},
	{"uniqueItems/with-items", `{"items":{"type":"integer"},"uniqueItems":true}`, []string{`[1,2]`, `[1,1]`, `[1,"1"]`}},
	{"contains/basic", `{"contains":{"type":"integer"}}`, []string{`[]`, `["a"]`, `["a",1]`, `[1.0]`, `[1.5]`, `{}`, `"x"`}},
	{"contains/minContains-0", `{"contains":{"type":"integer"},"minContains":0}`, []string{`[]`, `["a"]`, `[1]`, `[1,1,1]`}},
	{"contains/min-max", `{"contains":{"const":1},"minContains":2,"maxContains":3}`, []string{`[1]`, `[1,1]`, `[1,1,1]`, `[1,1,1,1]`, `[1,2,1.0]`, `[2,2]`, `[]`}},
	{"contains/maxContains", `{"contains":{"type":"string"},"maxContains":1}`, []string{`[]`, `["a"]`, `["a","b"]`, `[1,2,"a"]`}},
	{"contains/minContains-0-maxContains-0", `{"contains":{"type":"integer"},"minContains":0,"maxContains":0}`, []string{`[]`, `["a"]`, `[1]`}},
	{"contains/maxContains-without-contains", `{"maxContains":1}`, []string{`[1,2,3]`, `[]`}},
	{"contains/minContains-without-contains", `{"minContains":2}`, []string{`[]`, `[1]`}},
	{"contains/false", `{"contains":false}`, []string{`[]`, `[1]`, `"x"`, `{}`}},
	{"contains/true", `{"contains":true}`, []string{`[]`, `[null]`}},
	{"contains/2019-minContains", sch(d2019, `{"$schema":"%s","contains":{"type":"string"},"minContains":2}`), []string{`["a"]`, `["a","b"]`, `[1,"a",2]`}},
	{"contains/d7", sch(d7, `{"$schema":"%s","contains":{"minimum":5}}`), []string{`[1,6]`, `[1]`, `[]`, `["x"]`}},
	{"contains/d7-minContains-ignored", sch(d7, `{"$schema":"%s","contains":{"minimum":5},"minContains":0}`), []string{`[]`, `[6]`, `[1]`}},
	{"contains/d6", sch(d6, `{"$schema":"%s","contains":{"const":"x"}}`), []string{`["x"]`, `["y"]`}},

	// ---- objects ----
	{"maxProperties", `{"maxProperties":2}`, []string{`{}`, `{"a":1,"b":2}`, `{"a":1,"b":2,"c":3}`, `[1,2,3]`, `"abc"`}},
	{"minProperties", `{"minProperties":1}`, []string{`{}`, `{"a":null}`, `[]`, `""`}},
	{"required", `{"required":["a","b"]}`, []string{`{"a":1,"b":null}`, `{"a":1}`, `{}`, `[]`, `"a"`, `{"a":1,"b":2,"c":3}`, `["a","b"]`}},
	{"required/empty", `{"required":[]}`, []string{`{}`, `{"a":1}`}},
	{"required/special-names", `{"required":["","__proto__","a b","~/"]}`, []string{`{"":1,"__proto__":2,"a b":3,"~/":4}`, `{"__proto__":1,"a b":2,"~/":3}`, `{"":1,"a b":2,"~/":3}`}},
	{"properties/basic", `{"properties":{"a":{"type":"integer"},"b":{"type":"string"}}}`, []string{`{"a":1,"b":"x"}`, `{"a":"x"}`, `{}`, `{"c":1}`, `[1]`, `"a"`}},
	{"properties/false", `{"properties":{"a":false}}`, []string{`{}`, `{"a":null}`, `{"b":1}`}},
	{"properties/escaped-names", `{"properties":{"a/b":{"type":"integer"},"c~d":{"type":"string"},"":{"type":"null"}}}`, []string{`{"a/b":1,"c~d":"x","":null}`, `{"a/b":"x"}`, `{"c~d":1}`, `{"":0}`}},
	{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"},"[0-9]":{"type":"integer"}}}`, []string{`{"x-a":"s"}`, `{"x-a":1}`, `{"x-1":"s"}`, `{"a1":2}`, `{"a1":"z"}`, `{"y":null}`, `[1]`}},
	{"additionalProperties/false", `{"properties":{"a":true},"patternProperties":{"^b":true},"additionalProperties":false}`, []string{`{"a":1}`, `{"bcd":1}`, `{"c":1}`, `{}`, `[1]`, `{"a":1,"ab":2}`}},
	{"additionalProperties/schema", `{"properties":{"a":true},"additionalProperties":{"type":"boolean"}}`, []string{`{"a":1,"b":true}`, `{"b":1}`, `{"a":"x"}`}},
	{"additionalProperties/alone", `{"additionalProperties":{"type":"number"}}`, []string{`{"a":1}`, `{"a":"x"}`, `{}`, `["x"]`}},
	{"propertyNames/maxLength", `{"propertyNames":{"maxLength":3}}`, []string{`{"abc":1}`, `{"abcd":1}`, `{}`, `[]`, `"abcd"`}},
	{"propertyNames/pattern", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, []string{`{"abc":1}`, `{"aB":1}`, `{"":1}`}},
	{"propertyNames/false", `{"propertyNames":false}`, []string{`{}`, `{"a":1}`, `[1]`}},
	{"propertyNames/enum", `{"propertyNames":{"enum":["a","b"]}}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `{"c":1}`}},
	{"dependentRequired", `{"dependentRequired":{"a":["b","c"],"d":[]}}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":1}`, `{"a":1,"b":1,"c":1}`, `{"b":1}`, `{"d":1}`, `[]`, `["a"]`}},
	{"dependentSchemas", `{"dependentSchemas":{"credit":{"required":["billing"]},"x":false}}`, []string{`{}`, `{"credit":1}`, `{"credit":1,"billing":2}`, `{"x":1}`, `{"billing":1}`, `["credit"]`}},
	{"dependentRequired/2019", sch(d2019, `{"$schema":"%s","dependentRequired":{"a":["b"]}}`), []string{`{"a":1}`, `{"a":1,"b":2}`}},
	{"dependencies/d7", sch(d7, `{"$schema":"%s","dependencies":{"a":["b"],"c":{"required":["d"]},"e":true,"f":false}}`), []string{`{}`, `{"a":1}`, `{"a":1,"b":1}`, `{"c":1}`, `{"c":1,"d":1}`, `{"e":1}`, `{"f":1}`, `["a"]`}},
	{"dependencies/d4", sch(d4, `{"$schema":"%s","dependencies":{"a":["b"],"c":{"properties":{"d":{"type":"integer"}}}}}`), []string{`{"a":1,"b":1}`, `{"a":1}`, `{"c":1,"d":2}`, `{"c":1,"d":"x"}`, `{"d":"x"}`}},
	{"dependencies/2020-compat", `{"dependencies":{"a":["b"]}}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `{}`}},

	// ---- applicators ----
	{"allOf", `{"allOf":[{"type":"integer"},{"minimum":2}]}`, []string{`2`, `1`, `"x"`, `2.5`}},
	{"allOf/with-base", `{"properties":{"a":{"type":"string"}},"allOf":[{"required":["a"]},{"properties":{"a":{"maxLength":2}}}]}`, []string{`{"a":"xy"}`, `{"a":"xyz"}`, `{}`, `{"a":1}`}},
	{"anyOf", `{"anyOf":[{"type":"string"},{"minimum":10}]}`, []string{`"x"`, `11`, `9`, `true`}},
	{"anyOf/all-fail", `{"anyOf":[{"type":"string","maxLength":1},{"type":"array"}]}`, []string{`"ab"`, `"a"`, `[]`, `1`}},
	{"oneOf", `{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []string{`1`, `3`, `2.5`, `1.5`, `"x"`}},
	{"oneOf/one-true", `{"oneOf":[true,false,false]}`, []string{`1`, `null`}},
	{"oneOf/two-true", `{"oneOf":[true,true]}`, []string{`1`, `null`}},
	{"oneOf/objects", `{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, []string{`{"a":1}`, `{"b":1}`, `{"a":1,"b":1}`, `{}`}},
	{"not", `{"not":{"type":"string"}}`, []string{`1`, `"x"`, `null`}},
	{"not/true", `{"not":true}`, []string{`1`, `null`, `{}`}},
	{"not/false", `{"not":false}`, []string{`1`, `null`}},
	{"not/not", `{"not":{"not":{"minimum":3}}}`, []string{`3`, `2`, `"x"`}},
	{"if-then-else", `{"if":{"type":"integer"},"then":{"minimum":0},"else":{"type":"string"}}`, []string{`5`, `-5`, `"x"`, `1.5`, `null`}},
	{"if/only", `{"if":{"const":1}}`, []string{`1`, `2`, `"x"`}},
	{"then/without-if", `{"then":false}`, []string{`1`, `{}`}},
	{"else/without-if", `{"else":false}`, []string{`1`, `{}`}},
	{"if-then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":1}`, `{"b":1}`}},
	{"if-else", `{"if":{"type":"string"},"else":{"type":"number"}}`, []string{`"x"`, `1`, `null`}},
	{"if/false", `{"if":false,"then":false,"else":{"type":"integer"}}`, []string{`1`, `"x"`}},
	{"if/true", `{"if":true,"then":{"type":"string"},"else":false}`, []string{`"x"`, `1`}},
	{"if-then-else/d7", sch(d7, `{"$schema":"%s","if":{"properties":{"k":{"const":"n"}}},"then":{"properties":{"v":{"type":"number"}}},"else":{"properties":{"v":{"type":"string"}}}}`), []string{`{"k":"n","v":1}`, `{"k":"n","v":"x"}`, `{"k":"s","v":"x"}`, `{"k":"s","v":1}`, `{"v":1}`}},

	// ---- items ----
	{"prefixItems", `{"prefixItems":[{"type":"integer"},{"type":"string"}]}`, []string{`[]`, `[1]`, `[1,"a"]`, `[1,"a",null]`, `["a"]`, `[1,2]`, `{}`}},
	{"prefixItems/items-false", `{"prefixItems":[{"type":"integer"}],"items":false}`, []string{`[]`, `[1]`, `[1,2]`, `["a"]`}},
	{"items/schema", `{"items":{"type":"integer"}}`, []string{`[]`, `[1,2]`, `[1,"a"]`, `{"0":"a"}`}},
	{"items/false", `{"items":false}`, []string{`[]`, `[1]`, `"x"`}},
	{"prefixItems/items-schema", `{"prefixItems":[true,{"type":"string"}],"items":{"type":"boolean"}}`, []string{`[1,"a",true]`, `[1,"a",1]`, `[1,2]`, `[1]`}},
	{"items/d7-array", sch(d7, `{"$schema":"%s","items":[{"type":"integer"},{"type":"string"}]}`), []string{`[1,"a",3]`, `["a"]`, `[1,1]`, `[]`}},
	{"items/d7-additionalItems-false", sch(d7, `{"$schema":"%s","items":[{"type":"integer"}],"additionalItems":false}`), []string{`[1]`, `[1,2]`, `[]`}},
	{"items/d7-additionalItems-schema", sch(d7, `{"$schema":"%s","items":[{}],"additionalItems":{"type":"string"}}`), []string{`[1,"a"]`, `[1,2]`, `[1]`}},
	{"items/d7-additionalItems-with-items-schema", sch(d7, `{"$schema":"%s","items":{"type":"integer"},"additionalItems":false}`), []string{`[1,2,3]`, `[1,"a"]`}},
	{"items/d7-additionalItems-alone", sch(d7, `{"$schema":"%s","additionalItems":false}`), []string{`[1,2]`, `[]`}},
	{"items/d7-schema", sch(d7, `{"$schema":"%s","items":{"type":"string"}}`), []string{`["a"]`, `[1]`}},
	{"items/d4-array", sch(d4, `{"$schema":"%s","items":[{"type":"integer"}],"additionalItems":{"type":"boolean"}}`), []string{`[1,true]`, `[1,1]`, `["a"]`}},
	{"items/2019-array", sch(d2019, `{"$schema":"%s","items":[{"type":"integer"}],"additionalItems":false}`), []string{`[1]`, `[1,2]`, `["a"]`}},
	{"items/2020-additionalItems-ignored", `{"prefixItems":[true],"additionalItems":false}`, []string{`[1,2]`, `[1]`}},

	// ---- unevaluatedProperties ----
	{"unevaluatedProperties/properties", `{"properties":{"a":true},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `{}`, `[1]`}},
	{"unevaluatedProperties/allOf", `{"allOf":[{"properties":{"a":true}}],"properties":{"b":true},"unevaluatedProperties":false}`, []string{`{"a":1,"b":1}`, `{"a":1,"c":1}`, `{}`}},
	{"unevaluatedProperties/anyOf", `{"anyOf":[{"properties":{"a":true},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `{"a":1,"c":1}`, `{"b":1,"c":1}`, `{}`}},
	{"unevaluatedProperties/oneOf", `{"oneOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":"x"}`, `{"b":1}`, `{"a":1,"b":1}`, `{"a":"x","b":1}`, `{"b":1,"c":1}`}},
	{"unevaluatedProperties/if-then-else", `{"if":{"properties":{"kind":{"const":"x"}},"required":["kind"]},"then":{"properties":{"x":true}},"else":{"properties":{"y":true}},"unevaluatedProperties":false}`, []string{`{"kind":"x","x":1}`, `{"kind":"x","y":1}`, `{"y":1}`, `{"kind":"z","y":1}`, `{"kind":"x"}`, `{}`}},
	{"unevaluatedProperties/if-without-then", `{"if":{"properties":{"a":{"type":"string"}}},"unevaluatedProperties":false}`, []string{`{"a":"x"}`, `{"a":1}`, `{}`}},
	{"unevaluatedProperties/ref", `{"$defs":{"base":{"properties":{"a":true}}},"$ref":"#/$defs/base","properties":{"b":true},"unevaluatedProperties":false}`, []string{`{"a":1,"b":1}`, `{"a":1,"c":1}`, `{}`}},
	{"unevaluatedProperties/in-ref-target", `{"$defs":{"closed":{"properties":{"a":true},"unevaluatedProperties":false}},"$ref":"#/$defs/closed","properties":{"b":true}}`, []string{`{"a":1}`, `{"a":1,"b":1}`, `{"b":1}`}},
	{"unevaluatedProperties/dependentSchemas", `{"properties":{"a":true},"dependentSchemas":{"a":{"properties":{"b":true}}},"unevaluatedProperties":false}`, []string{`{"a":1,"b":1}`, `{"b":1}`, `{"a":1}`, `{"a":1,"c":1}`}},
	{"unevaluatedProperties/nested-cannot-see-sibling", `{"properties":{"a":true},"allOf":[{"unevaluatedProperties":false}]}`, []string{`{"a":1}`, `{}`}},
	{"unevaluatedProperties/schema", `{"properties":{"a":true},"unevaluatedProperties":{"type":"string"}}`, []string{`{"a":1,"b":"x"}`, `{"a":1,"b":2}`, `{"c":"x"}`}},
	{"unevaluatedProperties/patternProperties", `{"patternProperties":{"^x":true},"unevaluatedProperties":false}`, []string{`{"xa":1}`, `{"ya":1}`}},
	{"unevaluatedProperties/additionalProperties", `{"additionalProperties":{"type":"integer"},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":"x"}`, `{}`}},
	{"unevaluatedProperties/not-not", `{"not":{"not":{"properties":{"a":true}}},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{}`}},
	{"unevaluatedProperties/nested-true", `{"allOf":[{"unevaluatedProperties":true}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{}`}},
	{"unevaluatedProperties/failing-branch", `{"anyOf":[{"properties":{"a":{"type":"string"}}},true],"unevaluatedProperties":false}`, []string{`{"a":"x"}`, `{"a":1}`, `{}`}},
	{"unevaluatedProperties/nested-objects", `{"properties":{"child":{"properties":{"x":true},"unevaluatedProperties":false}},"unevaluatedProperties":false}`, []string{`{"child":{"x":1}}`, `{"child":{"y":1}}`, `{"child":{},"z":1}`, `{}`}},
	{"unevaluatedProperties/propertyNames", `{"propertyNames":{"maxLength":1},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{}`}},
	{"unevaluatedProperties/recursive-ref", `{"$ref":"#/$defs/node","$defs":{"node":{"properties":{"name":true,"next":{"$ref":"#/$defs/node","unevaluatedProperties":false}}}},"unevaluatedProperties":false}`, []string{`{"name":"a","next":{"name":"b","next":{}}}`, `{"name":"a","next":{"nam":"b"}}`, `{"x":1}`}},
	{"unevaluatedProperties/2019-allOf", sch(d2019, `{"$schema":"%s","allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`), []string{`{"a":1}`, `{"b":1}`}},
	{"unevaluatedProperties/dynamicRef", `{"$id":"https://example.com/derived","$ref":"base","$defs":{"ext":{"$dynamicAnchor":"ext","properties":{"z":true}},"base":{"$id":"base","properties":{"a":true},"allOf":[{"$dynamicRef":"#ext"}],"unevaluatedProperties":false,"$defs":{"defaultExt":{"$dynamicAnchor":"ext"}}}}}`, []string{`{"a":1,"z":1}`, `{"z":1}`, `{"a":1,"b":1}`, `{}`}},

	// ---- unevaluatedItems ----
	{"unevaluatedItems/prefixItems", `{"prefixItems":[{"type":"string"}],"unevaluatedItems":false}`, []string{`["a"]`, `["a",1]`, `[]`, `[1]`, `{}`}},
	{"unevaluatedItems/items", `{"prefixItems":[true],"items":{"type":"integer"},"unevaluatedItems":false}`, []string{`[1,2]`, `["a","b"]`, `[]`}},
	{"unevaluatedItems/items-true", `{"items":true,"unevaluatedItems":false}`, []string{`[1,"a",null]`, `[]`}},
	{"unevaluatedItems/allOf", `{"allOf":[{"prefixItems":[true,true]}],"unevaluatedItems":false}`, []string{`[1,2]`, `[1,2,3]`, `[1]`}},
	{"unevaluatedItems/anyOf", `{"anyOf":[{"prefixItems":[{"const":"a"}]},{"prefixItems":[true,{"const":"b"}]}],"unevaluatedItems":false}`, []string{`["a"]`, `["a","b"]`, `["x","b"]`, `["a","c"]`, `["x","b","c"]`}},
	{"unevaluatedItems/oneOf", `{"oneOf":[{"prefixItems":[{"type":"string"}]},{"prefixItems":[{"type":"integer"},true]}],"unevaluatedItems":false}`, []string{`["a"]`, `["a",1]`, `[1,2]`, `[1,2,3]`}},
	{"unevaluatedItems/if-then-else", `{"if":{"prefixItems":[{"const":"x"}]},"then":{"prefixItems":[true,{"type":"integer"}]},"else":{"prefixItems":[true,true,true]},"unevaluatedItems":false}`, []string{`["x",1]`, `["x",1,2]`, `["y",1,2]`, `["y",1,2,3]`, `["x","s"]`}},
	{"unevaluatedItems/ref", `{"$defs":{"two":{"prefixItems":[true,true]}},"$ref":"#/$defs/two","unevaluatedItems":false}`, []string{`[1,2]`, `[1,2,3]`}},
	{"unevaluatedItems/contains", `{"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`, []string{`["a",1]`, `["a",true]`, `[1,2]`, `[true]`, `["a","b"]`}},
	{"unevaluatedItems/contains-false", `{"prefixItems":[true],"contains":{"const":"x"},"unevaluatedItems":false}`, []string{`[1,"x"]`, `[1,"x","y"]`, `["x","x","x"]`}},
	{"unevaluatedItems/nested", `{"prefixItems":[{"prefixItems":[true],"unevaluatedItems":false}],"unevaluatedItems":false}`, []string{`[[1]]`, `[[1,2]]`, `[[1],2]`, `[]`}},
	{"unevaluatedItems/schema", `{"unevaluatedItems":{"type":"string"}}`, []string{`["a","b"]`, `["a",1]`, `[]`}},
	{"unevaluatedItems/nested-cannot-see-sibling", `{"prefixItems":[true],"allOf":[{"unevaluatedItems":false}]}`, []string{`[1]`, `[]`}},
	{"unevaluatedItems/not", `{"not":{"not":{"prefixItems":[true]}},"unevaluatedItems":false}`, []string{`[1]`, `[]`}},
	{"unevaluatedItems/2019-items-array", sch(d2019, `{"$schema":"%s","items":[{"type":"integer"}],"unevaluatedItems":false}`), []string{`[1]`, `[1,2]`, `[]`}},
	{"unevaluatedItems/2019-additionalItems", sch(d2019, `{"$schema":"%s","items":[true],"additionalItems":{"type":"string"},"unevaluatedItems":false}`), []string{`[1,"a"]`, `[1,2]`}},
	{"unevaluatedItems/2019-contains", sch(d2019, `{"$schema":"%s","contains":{"type":"string"},"unevaluatedItems":false}`), []string{`["a"]`, `[]`}},
	{"unevaluatedItems/dependentSchemas", `{"dependentSchemas":{"a":{"properties":{"b":{"prefixItems":[true],"unevaluatedItems":false}}}}}`, []string{`{"a":1,"b":[1]}`, `{"a":1,"b":[1,2]}`, `{"b":[1,2]}`}},

	// ---- boolean schemas ----
	{"bool/true-root", `true`, []string{`1`, `null`, `{}`, `[]`, `"x"`}},
	{"bool/false-root", `false`, []string{`1`, `null`, `{}`, `[]`, `"x"`}},
	{"bool/nested", `{"properties":{"yes":true,"no":false},"items":false}`, []string{`{"yes":1}`, `{"no":1}`, `[]`, `[1]`}},
	{"bool/allOf", `{"allOf":[true,false]}`, []string{`1`, `{}`}},
	{"bool/anyOf", `{"anyOf":[false,true]}`, []string{`1`, `{}`}},
	{"bool/empty-object", `{}`, []string{`1`, `null`, `{"a":[]}`}},

	// ---- $ref ----
	{"ref/defs", `{"$defs":{"pos":{"type":"integer","minimum":0}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, []string{`{"n":1}`, `{"n":-1}`, `{"n":"x"}`, `{}`}},
	{"ref/definitions", `{"definitions":{"s":{"type":"string"}},"items":{"$ref":"#/definitions/s"}}`, []string{`["a","b"]`, `["a",1]`}},
	{"ref/root-tree", `{"type":"object","required":["value"],"properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#"}}}}`, []string{
		`{"value":1}`, `{"value":1,"children":[{"value":2,"children":[]}]}`, `{"value":1,"children":[{"children":[]}]}`,
		`{"value":1,"children":[{"value":2,"children":[{"value":"x"}]}]}`, deepTree(25, `7`), deepTree(25, `"deep"`),
	}},
	{"ref/linked-list", `{"$defs":{"node":{"type":"object","required":["v"],"properties":{"v":{"type":"integer"},"next":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/node"}]}},"additionalProperties":false}},"$ref":"#/$defs/node"}`, []string{
		`{"v":1,"next":null}`, `{"v":1,"next":{"v":2}}`, `{"v":1,"next":{"v":2,"x":1}}`, deepList(30, `null`), deepList(30, `{"v":"x"}`), `{"next":null}`,
	}},
	{"ref/pointer-escaping", `{"$defs":{"a/b":{"type":"integer"},"c~d":{"type":"string"},"e%f":{"type":"boolean"},"g h":{"type":"null"},"~1":{"const":"t"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"},"z":{"$ref":"#/$defs/e%25f"},"w":{"$ref":"#/$defs/g%20h"},"v":{"$ref":"#/$defs/~01"}}}`, []string{
		`{"x":1,"y":"s","z":true,"w":null,"v":"t"}`, `{"x":"s"}`, `{"y":1}`, `{"z":1}`, `{"w":1}`, `{"v":"u"}`,
	}},
	{"ref/pointer-into-properties", `{"properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"}}}`, []string{`{"b":1}`, `{"b":"x"}`}},
	{"ref/pointer-into-array", `{"allOf":[{"type":["integer","object"]}],"properties":{"x":{"$ref":"#/allOf/0"}}}`, []string{`{"x":1}`, `{"x":"a"}`, `5`}},
	{"ref/2020-siblings-apply", `{"$defs":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/s","maxLength":2}}}`, []string{`{"x":"ab"}`, `{"x":"abc"}`, `{"x":1}`}},
	{"ref/d7-siblings-ignored", sch(d7, `{"$schema":"%s","definitions":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/s","maxLength":2}}}`), []string{`{"x":"ab"}`, `{"x":"abc"}`, `{"x":1}`}},
	{"ref/d7-root-ref-siblings-ignored", sch(d7, `{"$schema":"%s","definitions":{"i":{"type":"integer"}},"$ref":"#/definitions/i","minimum":100}`), []string{`5`, `500`, `"x"`}},
	{"ref/d4-siblings-ignored", sch(d4, `{"$schema":"%s","definitions":{"i":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/i","minimum":100}}}`), []string{`{"x":5}`, `{"x":"a"}`}},
	{"ref/2019-siblings-apply", sch(d2019, `{"$schema":"%s","$defs":{"i":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/i","minimum":100}}}`), []string{`{"x":5}`, `{"x":500}`}},
	{"ref/id-relative", `{"$id":"http://example.com/schemas/root.json","$defs":{"item":{"$id":"item.json","type":"integer"}},"items":{"$ref":"item.json"}}`, []string{`[1,2]`, `[1,"a"]`}},
	{"ref/id-absolute-ref", `{"$id":"http://example.com/schemas/root.json","$defs":{"item":{"$id":"item.json","type":"integer"}},"items":{"$ref":"http://example.com/schemas/item.json"}}`, []string{`[1,2]`, `[1,"a"]`}},
	{"ref/id-dot-dot", `{"$id":"http://example.com/a/b/root.json","$defs":{"x":{"$id":"../c/x.json","type":"string"}},"properties":{"p":{"$ref":"http://example.com/a/c/x.json"},"q":{"$ref":"../c/x.json"}}}`, []string{`{"p":"s","q":"t"}`, `{"p":1}`, `{"q":1}`}},
	{"ref/id-nested-scopes", `{"$id":"http://example.com/root","$defs":{"a":{"$id":"folder/","$defs":{"b":{"$id":"b.json","type":"boolean"}}}},"properties":{"x":{"$ref":"folder/b.json"}}}`, []string{`{"x":true}`, `{"x":1}`}},
	{"ref/id-ref-resolves-against-inner-base", `{"$id":"http://example.com/root.json","$defs":{"inner":{"$id":"http://example.com/nested/inner.json","properties":{"y":{"$ref":"leaf.json"}}},"leaf":{"$id":"http://example.com/nested/leaf.json","type":"string"},"wrongLeaf":{"$id":"http://example.com/leaf.json","type":"integer"}},"properties":{"x":{"$ref":"nested/inner.json"}}}`, []string{`{"x":{"y":"s"}}`, `{"x":{"y":1}}`}},
	{"ref/relative-root-id", `{"$id":"/schemas/root","$defs":{"a":{"$id":"a","type":"integer"}},"$ref":"a"}`, []string{`1`, `"x"`}},
	{"ref/anchor", `{"$defs":{"x":{"$anchor":"num","type":"number"}},"properties":{"v":{"$ref":"#num"}}}`, []string{`{"v":1}`, `{"v":"x"}`}},
	{"ref/anchor-in-other-resource", `{"$id":"http://example.com/root.json","$defs":{"a":{"$id":"other.json","$defs":{"b":{"$anchor":"B","type":"string"}}}},"$ref":"other.json#B"}`, []string{`"s"`, `1`}},
	{"ref/d7-id-anchor", sch(d7, `{"$schema":"%s","definitions":{"a":{"$id":"#foo","type":"integer"}},"properties":{"x":{"$ref":"#foo"}}}`), []string{`{"x":1}`, `{"x":"a"}`}},
	{"ref/d4-id-anchor", sch(d4, `{"$schema":"%s","definitions":{"a":{"id":"#foo","type":"integer"}},"properties":{"x":{"$ref":"#foo"}}}`), []string{`{"x":1}`, `{"x":"a"}`}},
	{"ref/d6-id", sch(d6, `{"$schema":"%s","$id":"http://example.com/d6.json","definitions":{"s":{"$id":"s.json","type":"string"}},"items":{"$ref":"s.json"}}`), []string{`["a"]`, `[1]`}},
	{"ref/d7-id-base-change", sch(d7, `{"$schema":"%s","$id":"http://example.com/root.json","definitions":{"b":{"$id":"http://example.com/other/b.json","definitions":{"c":{"type":"null"}},"allOf":[{"$ref":"#/definitions/c"}]}},"properties":{"p":{"$ref":"other/b.json"}}}`), []string{`{"p":null}`, `{"p":1}`}},
	// In draft-07 "$id" beside "$ref" is ignored too, so "other/b.json" is not defined.
	{"ref/d7-id-beside-ref-ignored", sch(d7, `{"$schema":"%s","$id":"http://example.com/root.json","definitions":{"b":{"$id":"http://example.com/other/b.json","definitions":{"c":{"type":"null"}},"$ref":"#/definitions/c"}},"properties":{"p":{"$ref":"other/b.json"}}}`), []string{`{"p":null}`, `{"p":1}`}},
	{"ref/chain", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/c"},"c":{"type":"null"}},"$ref":"#/$defs/a"}`, []string{`null`, `0`}},
	{"ref/to-boolean-schemas", `{"$defs":{"no":false,"yes":true},"properties":{"a":{"$ref":"#/$defs/no"},"b":{"$ref":"#/$defs/yes"}}}`, []string{`{"b":1}`, `{"a":1}`, `{}`}},
	{"ref/pointer-through-embedded-resource", `{"$id":"http://example.com/root.json","$defs":{"inner":{"$id":"inner.json","$defs":{"t":{"type":"integer"}}}},"$ref":"inner.json#/$defs/t"}`, []string{`1`, `"x"`}},
	{"ref/urn-id", `{"$id":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed","$defs":{"b":{"type":"boolean"}},"properties":{"x":{"$ref":"#/$defs/b"},"y":{"$ref":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/b"}}}`, []string{`{"x":true,"y":false}`, `{"x":1}`, `{"y":1}`}},
	{"ref/embedded-other-dialect", `{"$defs":{"old":{"$id":"http://example.com/old.json","$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":false}},"$ref":"http://example.com/old.json"}`, []string{`[1]`, `[1,2]`, `["a"]`}},
	{"ref/mutual-recursion", `{"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"type":"array","items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, []string{`{"b":[{"b":[]},{}]}`, `{"b":[{"b":[1]}]}`, `{"b":{}}`}},

	// ---- $dynamicRef / $recursiveRef ----
	{"dynamicRef/strict-tree", `{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`, []string{
		`{"children":[{"data":1}]}`, `{"children":[{"daat":1}]}`, `{"data":1,"extra":1}`, `{"children":[{"children":[{"bad":1}]}]}`, `{"children":[{"children":[{}]}]}`, `{"children":"x"}`, `[]`,
	}},
	{"dynamicRef/tree", `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, []string{`{"children":[{"daat":1}]}`, `{"children":[1]}`, `{"children":[{"children":[{}]}]}`}},
	{"dynamicRef/target-is-plain-anchor", `{"$id":"https://example.com/list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"item":{"$anchor":"item","type":"integer"}}}`, []string{`[1,2]`, `["a"]`}},
	{"dynamicRef/override-from-outer", `{"$id":"https://example.com/strings","$ref":"list","$defs":{"str":{"$dynamicAnchor":"item","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"default":{"$dynamicAnchor":"item"}}}}}`, []string{`["a","b"]`, `[1]`, `[]`}},
	{"dynamicRef/no-outer-anchor", `{"$id":"https://example.com/outer-none","$ref":"list","$defs":{"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"default":{"$dynamicAnchor":"item","type":"integer"}}}}}`, []string{`[1,2]`, `["a"]`}},
	{"dynamicRef/initial-target-not-dynamic", `{"$id":"https://example.com/outer2","$dynamicAnchor":"item","type":["array","string"],"$ref":"inner","$defs":{"inner":{"$id":"inner","items":{"$dynamicRef":"#item"},"$defs":{"i":{"$anchor":"item","type":"integer"}}}}}`, []string{`[1]`, `["a"]`, `"s"`}},
	{"dynamicRef/same-resource", `{"$id":"https://example.com/d-same","$defs":{"x":{"$dynamicAnchor":"foo","type":"integer"}},"items":{"$dynamicRef":"#foo"}}`, []string{`[1]`, `["a"]`}},
	{"dynamicRef/no-id", `{"$defs":{"x":{"$dynamicAnchor":"foo","type":"string"}},"properties":{"a":{"$dynamicRef":"#foo"}}}`, []string{`{"a":"s"}`, `{"a":1}`}},
	{"dynamicRef/pointer", `{"$defs":{"x":{"type":"string"}},"properties":{"a":{"$dynamicRef":"#/$defs/x"}}}`, []string{`{"a":"s"}`, `{"a":1}`}},
	{"recursiveRef/strict-tree", sch(d2019, `{"$schema":"%s","$id":"https://example.com/strict-tree2","$recursiveAnchor":true,"$ref":"tree2","unevaluatedProperties":false,"$defs":{"tree2":{"$id":"https://example.com/tree2","$recursiveAnchor":true,"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`), []string{
		`{"children":[{"data":1}]}`, `{"children":[{"daat":1}]}`, `{"data":1,"extra":1}`, `{"children":[{"children":[{"bad":1}]}]}`, `{"children":[{"children":[{}]}]}`,
	}},
	{"recursiveRef/no-anchor", sch(d2019, `{"$schema":"%s","$id":"https://example.com/r2","type":"object","properties":{"next":{"$recursiveRef":"#"},"v":{"type":"integer"}}}`), []string{`{"v":1,"next":{"v":2}}`, `{"next":{"v":"x"}}`, `{"next":1}`}},
	{"recursiveRef/target-without-anchor", sch(d2019, `{"$schema":"%s","$id":"https://example.com/strict-tree3","$recursiveAnchor":true,"$ref":"tree3","unevaluatedProperties":false,"$defs":{"tree3":{"$id":"https://example.com/tree3","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`), []string{`{"children":[{"daat":1}]}`, `{"daat":1}`, `{"children":[{"children":[1]}]}`}},

	// ---- formats ----
	formatCase("date-time", "2024-02-29T12:30:00Z", "2023-02-29T12:30:00Z", "2024-01-01T25:00:00Z", "2024-01-01 12:00:00Z", "2024-01-01T12:00:00+05:30", "2024-01-01T12:00:00.123456Z", "2024-01-01T12:00:00", "1998-12-31T23:59:60Z", "1998-12-31T15:59:60-08:00", "2024-01-01T12:00:60Z", "2024-01-01t12:00:00z", "2024-13-01T00:00:00Z", "2024-01-01T12:00:00+24:00", "", "not a date"),
	formatCase("date", "2024-02-29", "2023-02-29", "2024-1-01", "2024-13-01", "20240101", "2024-04-31", "0000-01-01", "2024-01-01T00:00:00Z", ""),
	formatCase("time", "12:30:00Z", "12:30:00+01:00", "12:30:00", "24:00:00Z", "12:60:00Z", "23:59:60Z", "12:30:00.5Z", "12:30Z", "1:30:00Z", "12:30:00-25:00"),
	formatCase("duration", "P1D", "PT1H30M", "P1Y2M3DT4H5M6S", "P4W", "P", "PT", "1D", "P1H", "P1D2Y", "P1W2D", "P0.5D", "PT36H", "P1DT"),
	formatCase("email", "a@example.com", "a.b+c@ex-ample.org", "plainaddress", "a..b@example.com", ".a@example.com", "a.@example.com", "a@-example.com", "a@[127.0.0.1]", "a@[IPv6:::1]", `"quoted"@example.com`, "a@b", "a b@example.com", "a@@example.com"),
	formatCase("hostname", "example.com", "a-b.example", "-a.com", "a-.com", "a_b.com", strings.Repeat("a", 63)+".com", strings.Repeat("a", 64)+".com", "xn--bcher-kva.example", "localhost", "a..b", "", "192.168.0.1"),
	formatCase("ipv4", "192.168.0.1", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "a.b.c.d", "1.2.3.4 ", "::1"),
	formatCase("ipv6", "::1", "::", "2001:db8::8a2e:370:7334", "12345::", "1:2:3:4:5:6:7:8:9", "::ffff:192.168.0.1", "fe80::1%eth0", "1.2.3.4", ":::", "1::2::3", "2001:DB8::1"),
	formatCase("uri", "https://example.com/path?q=1#frag", "urn:isbn:0451450523", "/relative/path", "example.com", "http://[::1]:80/", "mailto:a@b.com", "http://exa mple.com", "http://[::1/", "ftp://ftp.example.com/file.txt", "#frag"),
	formatCase("uri-reference", "/relative", "#frag", "", "http://example.com", "//example.com/x", `\\server\share`, "../a/b?c=d", "http://[::1/"),
	formatCase("uuid", "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "123e4567-e89b-12d3-a456-4266141740", "{123e4567-e89b-12d3-a456-426614174000}", "00000000-0000-0000-0000-000000000000"),
	formatCase("regex", "^[a-z]+$", "(", "[a-", "a{2,1}", `\d+`, "", "a**"),
	formatCase("json-pointer", "", "/a/b", "/a~1b", "/a~0b", "/a~2b", "a/b", "/~", "/", "//", "#/a"),
	formatCase("relative-json-pointer", "0", "1/a", "2#", "/a", "01", "-1", "0##", "10/a~1b", ""),
	formatCase("uri-template", "http://example.com/{id}", "http://example.com/dictionary/{term:1}/{term}", "{+path}/here", "http://example.com/{id", "http://example.com/}{"),
	formatCase("unknown-format-x", "anything", ""),
	{"format/with-type", `{"type":"string","format":"date"}`, []string{`"2024-01-01"`, `"x"`, `20240101`}},
	{"format/d7-date-time", sch(d7, `{"$schema":"%s","format":"date-time"}`), []string{`"2024-01-01T00:00:00Z"`, `"2024-01-01"`, `1`}},
	{"format/d4-ipv4", sch(d4, `{"$schema":"%s","properties":{"ip":{"format":"ipv4"},"host":{"format":"hostname"},"mail":{"format":"email"}}}`), []string{`{"ip":"1.2.3.4","host":"a.b","mail":"a@b.c"}`, `{"ip":"1.2.3"}`, `{"host":"-x"}`, `{"mail":"x"}`}},
	{"format/2019-uuid", sch(d2019, `{"$schema":"%s","format":"uuid"}`), []string{`"123e4567-e89b-12d3-a456-426614174000"`, `"x"`}},
	{"format/in-items", `{"items":{"format":"ipv4"}}`, []string{`["1.2.3.4",5]`, `["1.2.3.4","x"]`}},

	// ---- nested deep structures ----
	{"deep/nested-items", nestedItemsSchema(20, `{"type":"integer"}`), []string{nestedArray(20, `1`), nestedArray(20, `"x"`), nestedArray(19, `1`), nestedArray(20, ``), nestedArray(21, `1`)}},
	{"deep/config", `{
		"type":"object",
		"required":["name","servers"],
		"additionalProperties":false,
		"properties":{
			"name":{"type":"string","pattern":"^[a-z][a-z0-9-]*$","maxLength":32},
			"version":{"type":"string","pattern":"^\\d+\\.\\d+\\.\\d+$"},
			"servers":{
				"type":"array","minItems":1,"uniqueItems":true,
				"items":{
					"type":"object",
					"required":["host","port"],
					"properties":{
						"host":{"anyOf":[{"format":"hostname"},{"format":"ipv4"}]},
						"port":{"type":"integer","minimum":1,"maximum":65535},
						"tls":{"type":"boolean","default":false},
						"tags":{"type":"array","items":{"enum":["primary","backup","canary"]}}
					},
					"additionalProperties":false
				}
			},
			"limits":{"type":"object","additionalProperties":{"type":"number","exclusiveMinimum":0}}
		}
	}`, []string{
		`{"name":"svc","servers":[{"host":"example.com","port":443,"tls":true,"tags":["primary"]}]}`,
		`{"name":"svc","version":"1.2.3","servers":[{"host":"10.0.0.1","port":80},{"host":"b.example","port":8080}],"limits":{"rps":10.5}}`,
		`{"name":"Svc","servers":[{"host":"example.com","port":443}]}`,
		`{"name":"svc","servers":[]}`,
		`{"name":"svc","servers":[{"host":"example.com","port":0}]}`,
		`{"name":"svc","servers":[{"host":"example.com","port":443},{"port":443,"host":"example.com"}]}`,
		`{"name":"svc","servers":[{"host":"-bad-","port":443}]}`,
		`{"name":"svc","servers":[{"host":"example.com","port":443,"tags":["primary","gold"]}]}`,
		`{"name":"svc","servers":[{"host":"example.com","port":443}],"limits":{"rps":0}}`,
		`{"name":"svc","servers":[{"host":"example.com","port":443}],"extra":1}`,
		`{"name":"svc","version":"1.2","servers":[{"host":"example.com","port":443}]}`,
	}},
	{"deep/tool-input", `{
		"type":"object",
		"properties":{
			"query":{"type":"string","minLength":1},
			"filters":{
				"type":"array",
				"items":{
					"type":"object",
					"oneOf":[
						{"properties":{"op":{"const":"eq"},"field":{"type":"string"},"value":{"type":["string","number","boolean","null"]}},"required":["op","field","value"]},
						{"properties":{"op":{"enum":["and","or"]},"args":{"type":"array","minItems":2,"items":{"$ref":"#/properties/filters/items"}}},"required":["op","args"]}
					],
					"unevaluatedProperties":false
				}
			},
			"page":{"type":"object","properties":{"size":{"type":"integer","maximum":100},"cursor":{"type":["string","null"]}},"dependentRequired":{"cursor":["size"]}}
		},
		"required":["query"]
	}`, []string{
		`{"query":"x"}`,
		`{"query":"x","filters":[{"op":"eq","field":"a","value":1}]}`,
		`{"query":"x","filters":[{"op":"and","args":[{"op":"eq","field":"a","value":null},{"op":"or","args":[{"op":"eq","field":"b","value":true},{"op":"eq","field":"c","value":"s"}]}]}]}`,
		`{"query":"x","filters":[{"op":"and","args":[{"op":"eq","field":"a","value":null}]}]}`,
		`{"query":"x","filters":[{"op":"and","args":[{"op":"eq","field":"a","value":[1]},{"op":"eq","field":"b","value":1}]}]}`,
		`{"query":"x","filters":[{"op":"eq","field":"a","value":1,"extra":true}]}`,
		`{"query":"","filters":[]}`,
		`{"query":"x","page":{"cursor":"abc"}}`,
		`{"query":"x","page":{"cursor":"abc","size":10}}`,
		`{"query":"x","page":{"size":101}}`,
	}},
	{"deep/tree-depth", `{"$defs":{"t":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/t"},"maxItems":2}},"unevaluatedProperties":false}},"$ref":"#/$defs/t"}`, []string{deepTree(30, `1`), deepTree(30, `1.5`), `{"value":1,"children":[{},{},{}]}`, `{"value":1,"children":[{"value":2,"x":1}]}`}},

	// ---- more edges: exact numbers, dialect-specific keywords, base URIs ----
	{"uniqueItems/big-integers", `{"uniqueItems":true}`, []string{`[9007199254740992,9007199254740993]`, `[9007199254740993,9007199254740993.0]`, `[1e400,1e400]`, `[1e400,2e400]`, `[0.1,0.10000000000000001]`}},
	{"enum/big-integer", `{"enum":[9007199254740993,1e400]}`, []string{`9007199254740993`, `9007199254740992`, `1e400`, `10e399`, `1.0000000000000001e400`}},
	{"multipleOf/0.3", `{"multipleOf":0.3}`, []string{`0.9`, `0.6`, `1`, `3`, `2.7000000000000002`}},
	{"multipleOf/1e-300", `{"multipleOf":1e-300}`, []string{`1`, `1e-300`, `1e-301`, `3.5e-299`}},
	{"maxItems/exponent", `{"maxItems":1e1}`, []string{jsonArray(intSeq(1, 10)...), jsonArray(intSeq(1, 11)...)}},
	{"propertyNames/type-number", `{"propertyNames":{"type":"number"}}`, []string{`{}`, `{"1":1}`}},
	{"propertyNames/minimum", `{"propertyNames":{"minimum":5}}`, []string{`{"1":1}`, `{}`}},
	{"additionalProperties/ignores-allOf", `{"allOf":[{"properties":{"a":true}}],"additionalProperties":false}`, []string{`{"a":1}`, `{}`}},
	{"items/d7-empty-array", sch(d7, `{"$schema":"%s","items":[],"additionalItems":false}`), []string{`[]`, `[1]`}},
	{"ref/hash-in-subresource", `{"$id":"http://example.com/root","$defs":{"sub":{"$id":"sub","type":"object","properties":{"self":{"$ref":"#"},"n":{"type":"integer"}}}},"type":["object","array"],"$ref":"sub"}`, []string{`{"self":{"n":1}}`, `{"self":{"n":"x"}}`, `{"self":[]}`, `[]`}},
	{"ref/pointer-relative-to-subresource", `{"$id":"http://example.com/root","$defs":{"x":{"type":"string"},"sub":{"$id":"sub","$defs":{"x":{"type":"integer"}},"properties":{"v":{"$ref":"#/$defs/x"}}}},"$ref":"sub"}`, []string{`{"v":1}`, `{"v":"s"}`}},
	{"ref/anchor-per-resource", `{"$id":"http://example.com/root","$defs":{"a":{"$anchor":"t","type":"string"},"sub":{"$id":"sub","$defs":{"a":{"$anchor":"t","type":"integer"}},"properties":{"v":{"$ref":"#t"}}}},"properties":{"w":{"$ref":"#t"},"s":{"$ref":"sub"}}}`, []string{`{"w":"x","s":{"v":1}}`, `{"w":1}`, `{"s":{"v":"x"}}`}},
	{"ref/id-beside-ref-changes-base", `{"$id":"http://example.com/root.json","properties":{"p":{"$id":"http://example.com/dir/","$ref":"leaf.json"}},"$defs":{"l":{"$id":"http://example.com/dir/leaf.json","type":"string"},"l2":{"$id":"http://example.com/leaf.json","type":"integer"}}}`, []string{`{"p":"s"}`, `{"p":1}`}},
	{"ref/absolute-with-pointer", `{"$id":"http://example.com/root.json","$defs":{"x":{"type":"boolean"}},"items":{"$ref":"http://example.com/root.json#/$defs/x"}}`, []string{`[true]`, `[1]`}},
	{"ref/percent-encoded-unicode", `{"$defs":{"é":{"type":"null"}},"properties":{"a":{"$ref":"#/$defs/%C3%A9"}}}`, []string{`{"a":null}`, `{"a":1}`}},
	{"ref/percent-encoded-slash", `{"$defs":{"a/b":{"type":"null"},"a":{"$defs":{"b":{"type":"string"}}}},"properties":{"a":{"$ref":"#/$defs/a%2Fb"}}}`, []string{`{"a":null}`, `{"a":"s"}`}},
	{"ref/d4-id-base", sch(d4, `{"$schema":"%s","id":"http://example.com/root.json","definitions":{"a":{"id":"a.json","type":"integer"}},"items":{"$ref":"a.json"}}`), []string{`[1]`, `["a"]`}},
	{"ref/d4-dollar-id-not-keyword", sch(d4, `{"$schema":"%s","definitions":{"a":{"$id":"#foo","type":"integer"}},"properties":{"x":{"$ref":"#foo"}}}`), []string{`{"x":1}`, `{"x":"a"}`}},
	{"ref/d7-anchor-not-keyword", sch(d7, `{"$schema":"%s","definitions":{"a":{"$anchor":"foo","type":"integer"}},"properties":{"x":{"$ref":"#foo"}}}`), []string{`{"x":1}`, `{"x":"a"}`}},
	{"ref/d7-pointer-to-defs", sch(d7, `{"$schema":"%s","$defs":{"a":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`), []string{`{"x":1}`, `{"x":"a"}`}},
	{"ref/2020-id-not-keyword", `{"definitions":{"a":{"id":"http://example.com/a.json","type":"integer"}},"properties":{"x":{"$ref":"http://example.com/a.json"}}}`, []string{`{"x":1}`}},
	{"ignored/d7-2020-keywords", sch(d7, `{"$schema":"%s","unevaluatedProperties":false,"unevaluatedItems":false,"prefixItems":[{"type":"string"}],"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":false},"minContains":5,"$dynamicRef":"#x"}`), []string{`{"a":1}`, `[1,2]`, `1`}},
	{"ignored/2019-2020-keywords", sch(d2019, `{"$schema":"%s","prefixItems":[{"type":"string"}],"$dynamicRef":"#/$defs/no","$defs":{"no":false}}`), []string{`[1]`, `1`}},
	{"ignored/d6-if", sch(d6, `{"$schema":"%s","if":true,"then":false,"else":false,"contains":{"type":"string"}}`), []string{`1`, `["a"]`, `[1]`}},
	{"ignored/d4-draft6-keywords", sch(d4, `{"$schema":"%s","const":1,"contains":{"type":"string"},"propertyNames":{"maxLength":1},"exclusiveMinimum":false,"minimum":0,"if":{"type":"number"},"then":false}`), []string{`2`, `[1]`, `{"long":1}`, `-1`}},
	{"schema-error/2020-recursiveAnchor-bool", `{"$recursiveAnchor":true,"properties":{"a":{"$recursiveRef":"#/$defs/no"}},"$defs":{"no":false}}`, []string{`{"a":1}`, `1`}},
	{"recursiveRef/root-anchor-false", sch(d2019, `{"$schema":"%s","$id":"https://example.com/rf","$recursiveAnchor":false,"$ref":"rt","unevaluatedProperties":false,"$defs":{"rt":{"$id":"rt","$recursiveAnchor":true,"properties":{"data":true,"kids":{"items":{"$recursiveRef":"#"}}}}}}`), []string{`{"kids":[{"x":1}]}`, `{"x":1}`, `{"kids":[{"kids":["a"]}]}`}},
	{"format/date-time-more", `{"format":"date-time"}`, []string{`"1998-12-31T23:59:60+01:00"`, `"1998-12-31T22:59:60Z"`, `"2024-01-01T12:00:00.Z"`, `"2024-01-01T12:00:00.123+05:30"`, `"2024-01-01T12:00:00+0530"`, `"2024-01-01T12:00:00+05:30:00"`, `"2024-001T12:00:00Z"`, `"+2024-01-01T12:00:00Z"`}},
	{"format/time-more", `{"format":"time"}`, []string{`"23:59:60+00:00"`, `"22:59:60Z"`, `"12:30:00.123+05:30"`, `"12:30:00.Z"`, `"12:30:00+05"`, `"123000Z"`}},
	{"format/duration-more", `{"format":"duration"}`, []string{`"P1M"`, `"PT1M"`, `"PT1.5S"`, `"P1Y1W"`, `"P1DT1H1M1S"`, `"PT1H1S"`, `"P1Y1D"`, `"p1d"`}},
	{"format/ip-more", `{"properties":{"v4":{"format":"ipv4"},"v6":{"format":"ipv6"}}}`, []string{`{"v4":"1.2.3.04"}`, `{"v4":"127.0.0.1\n"}`, `{"v4":"1.2.3.4"}`, `{"v6":"::ffff:1.2.3.256"}`, `{"v6":"1:2:3:4:5:6:7:8"}`, `{"v6":"1:2:3:4:5:6:7::"}`, `{"v6":":1:2::"}`, `{"v6":"fe80::"}`, `{"v6":"1:2:3:4:5:6:1.2.3.4"}`, `{"v6":"::1 "}`}},
	{"format/hostname-more", `{"format":"hostname"}`, []string{`"a.b.c.d.e"`, `"ex ample.com"`, `"exa$mple.com"`, `"` + strings.Repeat("abcdefgh.", 28) + `com"`}},
	{"format/uri-more", `{"properties":{"uri":{"format":"uri"},"ref":{"format":"uri-reference"},"ptr":{"format":"json-pointer"},"rel":{"format":"relative-json-pointer"},"re":{"format":"regex"}}}`, []string{`{"uri":"http://example.com/a%20b"}`, `{"uri":"http://example.com:8080"}`, `{"uri":"http://example.com:port"}`, `{"ref":"http://exa mple.com"}`, `{"ref":"a%zz"}`, `{"ptr":"/a~"}`, `{"ptr":"/a~01"}`, `{"rel":"0/"}`, `{"rel":"1/a/b"}`, `{"rel":"0#/a"}`, `{"re":"\\p{Foo}"}`, `{"re":"\\p{Greek}"}`, `{"re":"(?i)abc"}`}},
	{"schema-error/prefixItems-empty", `{"prefixItems":[]}`, []string{`[]`}},
	{"schema-error/type-empty-array", `{"type":[]}`, []string{`1`}},
	{"schema-error/d4-enum-empty", sch(d4, `{"$schema":"%s","enum":[]}`), []string{`1`}},
	{"schema-error/d4-required-empty", sch(d4, `{"$schema":"%s","required":[]}`), []string{`{}`}},
	{"schema-error/id-with-fragment-2020", `{"$defs":{"a":{"$id":"#foo","type":"integer"}},"properties":{"x":{"$ref":"#foo"}}}`, []string{`{"x":1}`, `{"x":"a"}`}},
	{"schema-error/minimum-string", `{"minimum":"5"}`, []string{`1`}},
	{"schema-error/dynamicAnchor-invalid", `{"$dynamicAnchor":"#x"}`, []string{`1`}},
	{"schema-error/anyOf-empty", `{"anyOf":[]}`, []string{`1`}},
	{"schema-error/oneOf-empty", `{"oneOf":[]}`, []string{`1`}},
	{"schema-error/required-non-string", `{"required":["a",1]}`, []string{`{"a":1}`}},
	{"schema-error/dependentRequired-duplicate", `{"dependentRequired":{"a":["b","b"]}}`, []string{`{"a":1,"b":1}`}},
	{"schema-error/type-array-bad-member", `{"type":["string",5]}`, []string{`"a"`}},
	{"schema-error/id-number", `{"$id":5}`, []string{`1`}},
	{"schema-error/id-bad-uri", `{"$id":"http://exa mple.com/x"}`, []string{`1`}},
	{"schema-error/anchor-empty", `{"$anchor":""}`, []string{`1`}},
	{"schema-error/minProperties-negative", `{"minProperties":-1}`, []string{`{}`}},
	{"schema-error/maxItems-string", `{"maxItems":"1"}`, []string{`[]`}},
	{"schema-error/uniqueItems-string", `{"uniqueItems":"true"}`, []string{`[1,1]`}},
	{"schema-error/pattern-number", `{"pattern":5}`, []string{`"5"`}},
	{"schema-error/patternProperties-value", `{"patternProperties":{"a":5}}`, []string{`{"a":1}`}},
	{"schema-error/propertyNames-number", `{"propertyNames":5}`, []string{`{"a":1}`}},
	{"schema-error/additionalProperties-string", `{"additionalProperties":"no"}`, []string{`{"a":1}`}},
	{"schema-error/if-number", `{"if":5}`, []string{`1`}},
	{"schema-error/comment-number", `{"$comment":5}`, []string{`1`}},
	{"schema-error/title-number", `{"title":5}`, []string{`1`}},
	{"schema-error/examples-object", `{"examples":{"a":1}}`, []string{`1`}},
	{"schema-error/deprecated-string", `{"deprecated":"yes"}`, []string{`1`}},
	{"schema-error/defs-array", `{"$defs":[]}`, []string{`1`}},
	{"schema-error/definitions-value-2020", `{"definitions":{"a":5}}`, []string{`1`}},
	{"schema-error/dependencies-value-2020", `{"dependencies":{"a":5}}`, []string{`{"a":1}`}},
	{"schema-error/schema-number", `{"$schema":5}`, []string{`1`}},
	{"schema-error/d4-type-any", sch(d4, `{"$schema":"%s","type":"any"}`), []string{`1`}},
	{"schema-error/d6-examples-object", sch(d6, `{"$schema":"%s","examples":{"a":1}}`), []string{`1`}},
	{"schema-error/contentMediaType-number", `{"contentMediaType":5}`, []string{`"x"`}},
	{"schema-ok/d4-maxLength-float", sch(d4, `{"$schema":"%s","maxLength":1.0}`), []string{`"a"`, `"ab"`}},
	{"schema-ok/d7-required-empty", sch(d7, `{"$schema":"%s","required":[]}`), []string{`{}`}},
	{"schema-ok/annotations", `{"title":"t","description":"d","default":{"x":1},"examples":[1,"a"],"deprecated":true,"readOnly":false,"writeOnly":false,"$comment":"c","contentMediaType":"application/json","contentEncoding":"base64"}`, []string{`1`, `"not base64"`}},
	{"format/iri-idn", `{"properties":{"iri":{"format":"iri"},"iriref":{"format":"iri-reference"},"idnemail":{"format":"idn-email"},"idnhost":{"format":"idn-hostname"}}}`, []string{`{"iri":"http://例え.jp/パス"}`, `{"iri":"/relative"}`, `{"iriref":"/パス"}`, `{"idnemail":"用户@例子.广告"}`, `{"idnhost":"例え.jp"}`, `{"idnemail":"ok@例え.jp"}`}},
	{"format/d7-uuid-duration", sch(d7, `{"$schema":"%s","properties":{"u":{"format":"uuid"},"d":{"format":"duration"}}}`), []string{`{"u":"123e4567-e89b-12d3-a456-426614174000"}`, `{"u":"x"}`, `{"d":"P1D"}`, `{"d":"x"}`}},
	{"format/d4-date-uri-reference", sch(d4, `{"$schema":"%s","properties":{"d":{"format":"date"},"r":{"format":"uri-reference"}}}`), []string{`{"d":"2024-01-01"}`, `{"d":"x"}`, `{"r":"#a"}`, `{"r":"\\\\x"}`}},
	{"const/escapes", `{"const":"a\u0000b\"c\\d"}`, []string{`"a\u0000b\"c\\d"`, `"a\u0000b\"c\\\\d"`, `"ab\"c\\d"`}},
	{"enum/nested-numbers", `{"enum":[{"a":[1e0,{"b":2.50}]}]}`, []string{`{"a":[1,{"b":2.5}]}`, `{"a":[1,{"b":25e-1}]}`, `{"a":[1,{"b":2.51}]}`}},
	{"unevaluatedProperties/ref-to-additionalProperties", `{"$defs":{"open":{"additionalProperties":true}},"$ref":"#/$defs/open","unevaluatedProperties":false}`, []string{`{"a":1}`, `{}`}},
	{"unevaluatedProperties/oneOf-failing-sibling", `{"oneOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":true,"a":{"type":"integer"}},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":"x"}`, `{"b":1,"a":2}`, `{"b":1,"a":"x"}`}},
	{"unevaluatedProperties/dependentSchemas-inner", `{"dependentSchemas":{"a":{"properties":{"b":true},"unevaluatedProperties":false}},"properties":{"a":true}}`, []string{`{"a":1,"b":1}`, `{"a":1,"b":1,"c":1}`, `{"c":1}`}},
	{"dynamicRef/three-levels", `{"$id":"https://example.com/l1","$ref":"l2","$defs":{"s":{"$dynamicAnchor":"v","type":"string"},"l2":{"$id":"l2","$ref":"l3","$defs":{"n":{"$dynamicAnchor":"v","type":"number"}},"l3":{"$id":"l3","type":"array","items":{"$dynamicRef":"#v"},"$defs":{"d":{"$dynamicAnchor":"v"}}}}}}`, []string{`["a"]`, `[1]`, `[]`}},
	{"dynamicRef/deep-strict-tree", `{"$id":"https://example.com/strict-tree-deep","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"https://example.com/tree-deep","$dynamicAnchor":"node","type":"object","properties":{"value":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`, []string{deepTree(20, `1`), strings.Replace(deepTree(20, `1`), `{"value":1}`, `{"value":1,"x":2}`, 1)}},
	{"schema-ok/id-empty-fragment", `{"$id":"http://example.com/root.json#","$defs":{"a":{"type":"integer"}},"$ref":"http://example.com/root.json#/$defs/a"}`, []string{`1`, `"a"`}},

	// ---- schemas that are invalid (or suspected invalid) ----
	{"schema-error/type-nonsense", `{"type":"nonsense"}`, []string{`1`}},
	{"schema-error/type-number", `{"type":5}`, []string{`1`}},
	{"schema-error/type-duplicate", `{"type":["string","string"]}`, []string{`"a"`, `1`}},
	{"schema-error/minLength-negative", `{"minLength":-1}`, []string{`""`}},
	{"schema-error/minLength-string", `{"minLength":"3"}`, []string{`"ab"`}},
	{"schema-error/minLength-fraction", `{"minLength":1.5}`, []string{`"ab"`, `"a"`}},
	{"schema-error/maxContains-negative", `{"contains":true,"maxContains":-1}`, []string{`[1]`}},
	{"schema-error/required-string", `{"required":"a"}`, []string{`{}`, `{"a":1}`}},
	{"schema-error/required-duplicate", `{"required":["a","a"]}`, []string{`{}`, `{"a":1}`}},
	{"schema-error/pattern", `{"pattern":"("}`, []string{`"("`}},
	{"schema-error/patternProperties", `{"patternProperties":{"(":{}}}`, []string{`{}`}},
	{"schema-error/ref-missing", `{"$ref":"#/$defs/missing"}`, []string{`1`}},
	{"schema-error/ref-missing-anchor", `{"$ref":"#nope"}`, []string{`1`}},
	{"schema-error/ref-bad-pointer", `{"properties":{"x":{"type":"string"}},"$ref":"#/properties/x/y"}`, []string{`1`}},
	{"schema-error/ref-number", `{"$ref":5}`, []string{`1`}},
	{"schema-error/schema-unknown", `{"$schema":"https://example.com/unknown","type":"string"}`, []string{`1`}},
	{"schema-error/properties-array", `{"properties":[]}`, []string{`{}`}},
	{"schema-error/properties-value", `{"properties":{"a":5}}`, []string{`{"a":1}`}},
	{"schema-error/defs-value", `{"$defs":{"x":5}}`, []string{`1`}},
	{"schema-error/enum-number", `{"enum":5}`, []string{`5`}},
	{"schema-error/multipleOf-zero", `{"multipleOf":0}`, []string{`1`}},
	{"schema-error/multipleOf-negative", `{"multipleOf":-2}`, []string{`4`}},
	{"schema-error/items-array-2020", `{"items":[{"type":"integer"}]}`, []string{`[1]`, `["a"]`}},
	{"schema-error/allOf-empty", `{"allOf":[]}`, []string{`1`}},
	{"schema-error/allOf-object", `{"allOf":{"type":"string"}}`, []string{`1`}},
	{"schema-error/dependentRequired-string", `{"dependentRequired":{"a":"b"}}`, []string{`{"a":1}`}},
	{"schema-error/exclusiveMinimum-bool-2020", `{"minimum":1,"exclusiveMinimum":true}`, []string{`1`}},
	{"schema-error/d4-exclusiveMaximum-number", sch(d4, `{"$schema":"%s","exclusiveMaximum":5}`), []string{`5`}},
	{"schema-error/d4-exclusiveMinimum-without-minimum", sch(d4, `{"$schema":"%s","exclusiveMinimum":true}`), []string{`5`}},
	{"schema-error/d4-boolean-subschema", sch(d4, `{"$schema":"%s","properties":{"a":false}}`), []string{`{"a":1}`, `{}`}},
	{"schema-error/anchor-invalid", `{"$defs":{"x":{"$anchor":"1bad"}}}`, []string{`1`}},
	{"schema-error/format-number", `{"format":5}`, []string{`1`}},
	{"schema-error/root-number", `5`, []string{`1`}},
	{"schema-error/root-string", `"string"`, []string{`1`}},
	{"schema-ok/unknown-keywords", `{"foo":5,"x-bar":{"type":"string"},"type":"integer"}`, []string{`1`, `"x"`}},
	{"schema-ok/enum-duplicates", `{"enum":[1,1]}`, []string{`1`, `2`}},
}

// oracleBugs are instances on which santhosh-tekuri/jsonschema v6.0.3 contradicts the
// JSON Schema specification. They are kept out of diffCases; TestDifferentialOracleBugs
// checks Validate against the verdict the specification requires instead.
var oracleBugs = []struct {
	name, schema, instance string
	valid                  bool
	reason                 string
}{
	{"format/email-empty-local-part", `{"format":"email"}`, `"@example.com"`, false,
		`RFC 5321 Mailbox: Local-part = Dot-string / Quoted-string, Dot-string = Atom *("." Atom), Atom = 1*atext: never empty`},
	{"format/uri-template-query-expansion", `{"format":"uri-template"}`, `"http://example.com/search{?q,lang}"`, true,
		`RFC 6570 form-style query expansion {?q,lang}; santhosh parses the template as a URL, '?' cuts the expression and it reports an unclosed brace`},
	{"2020/recursiveRef-is-not-a-keyword", `{"properties":{"a":{"$recursiveRef":"#/$defs/no"}},"$defs":{"no":false}}`, `{"a":1}`, true,
		`2020-12 replaced $recursiveRef by $dynamicRef: in a 2020-12 schema it is an unknown keyword (an annotation), yet santhosh applies it`},
	{"format/hostname-trailing-dot", `{"format":"hostname"}`, `"example.com."`, false,
		`RFC 1123 host names (as RFC 952 amends them) are labels joined by dots, with no empty last label; santhosh strips one trailing dot first`},
	{"format/idn-email-without-at", `{"format":"idn-email"}`, `"no-at"`, false,
		`idn-email is RFC 6531 Mailbox, which has an "@"; santhosh has no idn-email format and passes every string`},
	{"format/idn-hostname-leading-hyphen", `{"format":"idn-hostname"}`, `"-例え.jp"`, false,
		`RFC 5891/5890 labels cannot begin with a hyphen; santhosh has no idn-hostname format and passes every string`},
	{"format/idn-hostname-underscore", `{"format":"idn-hostname"}`, `"a_b.例え"`, false,
		`"_" is DISALLOWED in IDNA labels (RFC 5892); santhosh has no idn-hostname format and passes every string`},
	{"format/idn-hostname-empty-label", `{"format":"idn-hostname"}`, `"例え..jp"`, false,
		`an empty label is no hostname (RFC 1123 / RFC 5890); santhosh has no idn-hostname format and passes every string`},
}

func TestDifferentialOracleBugs(t *testing.T) {
	for _, b := range oracleBugs {
		t.Run(b.name, func(t *testing.T) {
			ours, err := compileOurs(decodeJSON(t, "schema", b.schema))
			if err != nil {
				t.Fatalf("Compile(%s): %v", b.schema, err)
			}
			err = validateOurs(ours, decodeJSON(t, "instance", b.instance))
			if (err == nil) != b.valid {
				t.Errorf("SPEC MISMATCH\n  schema:   %s\n  instance: %s\n  ours: %s, spec: %s (%s)\n  our error: %v",
					b.schema, b.instance, verdict(err), map[bool]string{true: "valid", false: "invalid"}[b.valid], b.reason, err)
			}
			if theirs, err := compileOracle(decodeJSON(t, "schema", b.schema)); err == nil {
				if (theirs.Validate(decodeJSON(t, "instance", b.instance)) == nil) == b.valid {
					t.Logf("santhosh now agrees with the specification: move %q back to diffCases", b.name)
				}
			}
		})
	}
}

// decodeJSON decodes text into the generic form both implementations take.
func decodeJSON(t testing.TB, what, text string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatalf("corpus: %s is not JSON: %v\n%s", what, err, text)
	}
	return v
}

// compileOracle compiles doc with santhosh-tekuri/jsonschema, asserting formats.
func compileOracle(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///s.json")
}

// compileOurs calls Compile, turning a panic into an error.
func compileOurs(doc any) (s *Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("PANIC in Compile: %v", r)
		}
	}()
	return Compile(doc)
}

// validateOurs calls Validate, turning a panic into an error (which is then no
// *ValidationError, so it is reported).
func validateOurs(s *Schema, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC in Validate: %v", r)
		}
	}()
	return s.Validate(v)
}

func verdict(err error) string {
	if err == nil {
		return "valid"
	}
	return "invalid"
}

func compiled(err error) string {
	if err == nil {
		return "accepted"
	}
	return "rejected"
}

// oneLine shortens s for messages.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// checkInstance validates inst with both implementations and reports a difference.
func checkInstance(t testing.TB, schemaText string, ours *Schema, theirs *jsonschema.Schema, inst string, vOurs, vTheirs any) {
	t.Helper()
	gotErr := validateOurs(ours, vOurs)
	wantErr := theirs.Validate(vTheirs)
	if (gotErr == nil) != (wantErr == nil) {
		t.Errorf("VERDICT MISMATCH\n  schema:   %s\n  instance: %s\n  ours: %s, santhosh: %s\n  our error: %v\n  santhosh error: %v",
			oneLine(schemaText), oneLine(inst), verdict(gotErr), verdict(wantErr), gotErr, wantErr)
		return
	}
	if gotErr != nil {
		ve, ok := gotErr.(*ValidationError)
		if !ok || ve == nil || len(ve.Details) == 0 || ve.Error() == "" {
			t.Errorf("BAD ERROR (want a non-empty *ValidationError)\n  schema:   %s\n  instance: %s\n  our error: %T %v",
				oneLine(schemaText), oneLine(inst), gotErr, gotErr)
		}
	}
}

func TestDifferential(t *testing.T) {
	names := map[string]bool{}
	nInstances := 0
	for _, tc := range diffCases {
		if names[tc.name] {
			t.Fatalf("corpus: duplicate case name %q", tc.name)
		}
		names[tc.name] = true
		nInstances += len(tc.instances)
		t.Run(tc.name, func(t *testing.T) {
			ours, oursErr := compileOurs(decodeJSON(t, "schema", tc.schema))
			theirs, theirsErr := compileOracle(decodeJSON(t, "schema", tc.schema))
			if (oursErr == nil) != (theirsErr == nil) {
				t.Errorf("COMPILE MISMATCH\n  schema: %s\n  ours: %s, santhosh: %s\n  our error: %v\n  santhosh error: %v",
					oneLine(tc.schema), compiled(oursErr), compiled(theirsErr), oursErr, theirsErr)
				return
			}
			if oursErr != nil {
				return
			}
			for _, inst := range tc.instances {
				checkInstance(t, tc.schema, ours, theirs, inst,
					decodeJSON(t, "instance", inst), decodeJSON(t, "instance", inst))
			}
		})
	}
	t.Logf("%d schema cases, %d instances", len(diffCases), nInstances)
}

// fuzzSchemaNames picks the diffCases the fuzzer validates random instances against.
var fuzzSchemaNames = []string{
	"type/integer",
	"enum/mixed",
	"const/deep-object",
	"multipleOf/0.01",
	"maximum/big-exact",
	"maxLength/code-points",
	"uniqueItems/basic",
	"contains/min-max",
	"dependentRequired",
	"oneOf",
	"if-then-else",
	"prefixItems/items-schema",
	"additionalProperties/false",
	"unevaluatedProperties/if-then-else",
	"unevaluatedProperties/anyOf",
	"unevaluatedItems/anyOf",
	"unevaluatedItems/contains",
	"ref/root-tree",
	"dynamicRef/strict-tree",
	"recursiveRef/strict-tree",
	"deep/tool-input",
	"format/date-time",
	"format/ipv6",
}

// reasonableNumbers reports whether every number in v is short and has a modest
// exponent, so exact arithmetic on it stays cheap.
func reasonableNumbers(v any) bool {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if len(s) > 64 {
			return false
		}
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > 400 || e < -400 {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !reasonableNumbers(x) {
				return false
			}
		}
	case map[string]any:
		for _, x := range v {
			if !reasonableNumbers(x) {
				return false
			}
		}
	}
	return true
}

func FuzzDifferential(f *testing.F) {
	byName := map[string]diffCase{}
	for _, tc := range diffCases {
		byName[tc.name] = tc
	}
	type pair struct {
		text   string
		ours   *Schema
		theirs *jsonschema.Schema
	}
	schemas := make([]pair, len(fuzzSchemaNames))
	for i, name := range fuzzSchemaNames {
		tc, ok := byName[name]
		if !ok {
			f.Fatalf("fuzz corpus: no case %q", name)
		}
		theirs, err := compileOracle(decodeJSON(f, "schema", tc.schema))
		if err != nil {
			f.Fatalf("fuzz corpus: santhosh rejects %q: %v", name, err)
		}
		ours, err := compileOurs(decodeJSON(f, "schema", tc.schema))
		if err != nil {
			// Reported by TestDifferential; fuzz the other schemas.
			f.Logf("Compile rejects fuzz schema %q: %v", name, err)
		}
		schemas[i] = pair{tc.schema, ours, theirs}
		for _, inst := range tc.instances {
			if len(inst) <= 256 {
				f.Add(i, []byte(inst))
			}
		}
	}
	f.Fuzz(func(t *testing.T, idx int, data []byte) {
		if len(data) > 4096 {
			t.Skip()
		}
		p := schemas[int(uint(idx)%uint(len(schemas)))]
		if p.ours == nil {
			t.Skip()
		}
		v1, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil || !reasonableNumbers(v1) {
			t.Skip()
		}
		v2, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		checkInstance(t, p.text, p.ours, p.theirs, string(data), v1, v2)
	})
}
