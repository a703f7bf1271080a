package mcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/mcp/internal/jschema"
)

// compiledSchema is a JSON Schema compiled once, at registration.
type compiledSchema struct {
	schema *jschema.Schema
}

// compileToolSchema compiles a tool's input or output schema. The root must be an
// object schema ("type": "object"). Without "$schema" the dialect is 2020-12; a
// "$schema" naming a dialect the validator does not know is an error.
func compileToolSchema(raw []byte) (*compiledSchema, error) {
	doc, err := decodeValue(raw)
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
	s, err := jschema.Compile(doc)
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

// validate validates a value decoded by decodeValue.
func (c *compiledSchema) validate(v any) error {
	err := c.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return errors.New(describeValidation(ve))
}

// describeValidation renders the failures as "at /path: message; …": duplicates
// dropped, at most five.
func describeValidation(ve *jschema.ValidationError) string {
	seen := map[string]bool{}
	var uniq []string
	for _, d := range ve.Details {
		if p := d.String(); !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	if len(uniq) > 5 {
		uniq = append(uniq[:5], fmt.Sprintf("and %d more", len(uniq)-5))
	}
	return strings.Join(uniq, "; ")
}
