package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchema is a JSON Schema compiled once, at registration.
type compiledSchema struct {
	schema *jsonschema.Schema
}

var schemaSeq atomic.Int64

// compileToolSchema compiles a tool's input or output schema. The root must be an
// object schema ("type": "object"). Without "$schema" the dialect is 2020-12; a
// "$schema" naming a dialect the validator does not know is an error.
func compileToolSchema(raw json.RawMessage) (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
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
	return compileSchemaDoc(doc)
}

// compileSchemaDoc compiles any schema document (already decoded with jsonschema.UnmarshalJSON).
func compileSchemaDoc(doc any) (*compiledSchema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := fmt.Sprintf("mem:///schema-%d.json", schemaSeq.Add(1))
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{schema: s}, nil
}

// validateJSON validates a JSON document. The error names the failing locations.
func (c *compiledSchema) validateJSON(data []byte) error {
	_, err := c.validateTree(data)
	return err
}

// validateTree is validateJSON that also returns the decoded value (see
// decodeValue), for a caller that decodes it further.
func (c *compiledSchema) validateTree(data []byte) (any, error) {
	v, err := decodeValue(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return v, c.validate(v)
}

// validate validates a value decoded by jsonschema.UnmarshalJSON.
func (c *compiledSchema) validate(v any) error {
	err := c.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return errors.New(describeValidation(ve))
}

// describeValidation renders the leaf errors as "at /path: message; …".
func describeValidation(ve *jsonschema.ValidationError) string {
	out := ve.BasicOutput()
	var parts []string
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", loc, u.Error.String()))
	}
	if len(parts) == 0 && out.Error != nil {
		parts = append(parts, out.Error.String())
	}
	// Keep messages short and stable: drop duplicates, at most five.
	seen := map[string]bool{}
	uniq := parts[:0]
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	if len(uniq) > 5 {
		uniq = append(uniq[:5], fmt.Sprintf("and %d more", len(uniq)-5))
	}
	return strings.Join(uniq, "; ")
}
