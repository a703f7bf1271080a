package mcp

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDecodeValueMatchesJSONSchemaLoader(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e+10`, `12345678901234567890123`, `"s"`,
		`{"a":[1,{"b":null,"c":"\u00e9\n"}],"d":"ünï","e":-0.0,"f":[],"g":{}}`,
		` { "k" : [ true , false ] } `, `"bad \xff"`,
	} {
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
		got, gerr := decodeValue([]byte(doc))
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: errors differ: %v vs %v", doc, werr, gerr)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", doc, d)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `tru`, `01x`, `"\x01"`, `{} {}`, `1 2`, `--1`, `1.`, `.5`} {
		if _, err := decodeValue([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `"x"`, `-1e9`, `[true,null]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		got, gerr := decodeValue(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: errors differ: %v vs %v", data, werr, gerr)
		}
		if werr == nil && !cmp.Equal(want, got) {
			t.Fatalf("%q: values differ", data)
		}
	})
}
