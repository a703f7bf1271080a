package mcp

import (
	"strings"
	"testing"
)

// The tool schemas go through github.com/santhosh-tekuri/jsonschema/v6; these cases
// pin down what MCP and this package promise on top of it.
func TestCompileToolSchema(t *testing.T) {
	for _, tc := range []struct {
		name    string
		schema  string
		compile string // substring of the compile error; "" compiles
		valid   []string
		invalid []string
	}{
		{
			name:    "2020-12 by default",
			schema:  `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"items":false}}}`,
			valid:   []string{`{"p":["a"]}`, `{}`},
			invalid: []string{`{"p":[1]}`, `{"p":["a","b"]}`},
		},
		{
			name:    "draft-07 by $schema",
			schema:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}`,
			valid:   []string{`{"p":["a"]}`},
			invalid: []string{`{"p":["a",1]}`},
		},
		{
			name:    "formats asserted",
			schema:  `{"type":"object","properties":{"e":{"type":"string","format":"email"},"d":{"type":"string","format":"date"},"u":{"type":"string","format":"uuid"}}}`,
			valid:   []string{`{"e":"a@example.com","d":"2026-11-26","u":"123e4567-e89b-12d3-a456-426614174000"}`},
			invalid: []string{`{"e":"nope"}`, `{"d":"26/11/2026"}`, `{"u":"123"}`},
		},
		{
			name:    "numbers keep their digits",
			schema:  `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`,
			valid:   []string{`{"n":9007199254740993}`},
			invalid: []string{`{"n":9007199254740994}`, `{"n":1e400}`},
		},
		{
			name:    "local references",
			schema:  `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`,
			valid:   []string{`{"a":"x"}`},
			invalid: []string{`{"a":1}`},
		},
		{name: "file reference refused", schema: `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, compile: "only references within the schema"},
		{name: "network reference refused", schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, compile: "only references within the schema"},
		{name: "bad pattern", schema: `{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=x)"}}}`, compile: "pattern"},
		{name: "root not an object schema", schema: `{"type":"string"}`, compile: `"type": "object"`},
		{name: "not JSON", schema: `{"type":`, compile: "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := compileToolSchema([]byte(tc.schema))
			if tc.compile != "" {
				if err == nil || !strings.Contains(err.Error(), tc.compile) {
					t.Fatalf("compile error %v, want one containing %q", err, tc.compile)
				}
				return
			}
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			for _, v := range tc.valid {
				if err := cs.validateJSON([]byte(v)); err != nil {
					t.Errorf("%s: %v, want valid", v, err)
				}
			}
			for _, v := range tc.invalid {
				if err := cs.validateJSON([]byte(v)); err == nil {
					t.Errorf("%s: valid, want invalid", v)
				}
			}
		})
	}
}

// A validation error names each failing location with the validator's message.
func TestValidationErrorNamesLocations(t *testing.T) {
	cs, err := compileToolSchema([]byte(`{"type":"object","required":["m"],"properties":{"m":{"type":"string"},"n":{"type":"integer","minimum":3},"a/b":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = cs.validateJSON([]byte(`{"n":1,"a/b":2}`))
	if err == nil {
		t.Fatal("invalid document accepted")
	}
	for _, want := range []string{"at /: missing property 'm'", "at /n: must be >= 3 (got 1)", "at /a~1b:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// Bounds and formats are said in plain words and plain numbers: what is accepted, then
// what was sent.
func TestValidationMessages(t *testing.T) {
	cs, err := compileToolSchema([]byte(`{"type":"object","properties":{
		"a":{"type":"integer","maximum":1000000},
		"b":{"type":"number","exclusiveMinimum":0.5},
		"c":{"type":"integer","multipleOf":5},
		"d":{"type":"string","format":"date"},
		"e":{"type":"integer","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`{"a":1000000000000}`: "at /a: must be <= 1000000 (got 1000000000000)",
		`{"b":0.25}`:          "at /b: must be > 0.5 (got 0.25)",
		`{"c":7}`:             "at /c: must be a multiple of 5 (got 7)",
		`{"d":"2025-02-30"}`:  `at /d: "2025-02-30" is not a valid date`,
		`{"e":0}`:             "at /e: must be >= 1 (got 0)",
	} {
		err := cs.validateJSON([]byte(doc))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
