package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// compiledSchema is a JSON Schema compiled once, at registration (a tool's input or
// output schema, an elicitation's requested schema), by
// github.com/santhosh-tekuri/jsonschema/v6.
type compiledSchema struct {
	schema *jsonschema.Schema
}

// schemaURL names the one resource of every compiled schema; references resolve
// within it.
const schemaURL = "urn:wiremcp:schema"

// noLoader refuses every reference outside the schema document: a schema, whoever
// wrote it (a peer's outputSchema reaches the client), never makes the validator
// read a file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference to %s: only references within the schema are resolved", url)
}

// compileToolSchema compiles a tool's input or output schema. The root must be an
// object schema ("type": "object"). Without "$schema" the dialect is 2020-12, as MCP
// specifies; "format" is asserted; "pattern" uses Go's regexp syntax (RE2), and a
// pattern it cannot compile is an error here, never a silent pass.
func compileToolSchema(raw []byte) (*compiledSchema, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("a tool schema must be a JSON object")
	}
	if obj["type"] != "object" {
		return nil, errors.New(`a tool schema must have "type": "object" at its root`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{schema: s}, nil
}

// decodeJSON decodes one JSON document in the form the validator takes
// (numbers as json.Number, so that no digit is lost).
func decodeJSON(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// validateJSON validates a JSON document. The error names the failing locations.
func (c *compiledSchema) validateJSON(data []byte) error {
	v, err := decodeJSON(data)
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	err = c.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return errors.New(describeValidation(ve))
}

// describeValidation renders the innermost failures as "at /path: message; …":
// duplicates dropped, at most five.
func describeValidation(ve *jsonschema.ValidationError) string {
	seen := map[string]bool{}
	var uniq []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := "/" + strings.Join(escapePointer(e.InstanceLocation), "/")
		msg := leafMessage(e)
		if p := "at " + loc + ": " + msg; !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	walk(ve)
	if len(uniq) > 5 {
		uniq = append(uniq[:5], fmt.Sprintf("and %d more", len(uniq)-5))
	}
	return strings.Join(uniq, "; ")
}

// leafMessage says what failed: in plain words and plain numbers for the bounds and
// formats a model most often gets wrong (what is accepted, then what was sent), in
// the validator's own words for the rest.
func leafMessage(e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s (got %s)", ratString(k.Want), ratString(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s (got %s)", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s (got %s)", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s (got %s)", ratString(k.Want), ratString(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s (got %s)", ratString(k.Want), ratString(k.Got))
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", jsonText(k.Got), k.Want)
	}
	if out := e.BasicOutput(); out != nil && out.Error != nil {
		return out.Error.String()
	}
	return "invalid"
}

// ratString writes r as a plain decimal number.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// jsonText writes v, a value of the instance, as JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// escapePointer escapes the tokens of a JSON Pointer (RFC 6901).
func escapePointer(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
	}
	return out
}
