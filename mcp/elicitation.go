package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Elicitation modes.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// ElicitParams are the params of elicitation/create.
type ElicitParams struct {
	// Mode is "form" (the default when empty) or "url" (2025-11-25+).
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema (form mode) is a flat object schema of primitive properties:
	// string (with minLength, maxLength, format email|uri|date|date-time), number or
	// integer (minimum, maximum), boolean, and the single- and multi-select enum forms.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL and ElicitationID are required in URL mode.
	URL           string `json:"url,omitempty"`
	ElicitationID string `json:"elicitationId,omitempty"`
	Meta          Meta   `json:"_meta,omitempty"`
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    Meta           `json:"_meta,omitempty"`
}

// ElicitationCompleteParams are the params of notifications/elicitation/complete.
type ElicitationCompleteParams struct {
	ElicitationID string `json:"elicitationId"`
}

// validateElicitSchema checks that a form-mode requestedSchema stays inside the
// restricted subset the specification allows: a flat object whose properties are
// primitive or enum schemas. It returns an error naming the first offending property.
func validateElicitSchema(raw json.RawMessage) error {
	if len(raw) == 0 {
		return fmt.Errorf("form-mode elicitation needs a requestedSchema")
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("requestedSchema is not a JSON object: %w", err)
	}
	if s.Type != "object" {
		return fmt.Errorf(`requestedSchema must have "type": "object"`)
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			return fmt.Errorf("requestedSchema requires %q, which is not a property", r)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := validateElicitProperty(s.Properties[name]); err != nil {
			return fmt.Errorf("requestedSchema property %q: %w", name, err)
		}
	}
	return nil
}

func validateElicitProperty(raw json.RawMessage) error {
	var p struct {
		Type   string            `json:"type"`
		Format string            `json:"format"`
		Enum   []json.RawMessage `json:"enum"`
		OneOf  []json.RawMessage `json:"oneOf"`
		Items  *struct {
			Type  string            `json:"type"`
			Enum  []string          `json:"enum"`
			AnyOf []json.RawMessage `json:"anyOf"`
		} `json:"items"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if len(p.Properties) > 0 {
		return fmt.Errorf("nested objects are not allowed")
	}
	switch p.Type {
	case "string":
		switch p.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return fmt.Errorf("string format %q is not allowed (email, uri, date, date-time)", p.Format)
		}
		for _, e := range p.Enum {
			var s string
			if json.Unmarshal(e, &s) != nil {
				return fmt.Errorf("enum values must be strings")
			}
		}
		return nil
	case "number", "integer", "boolean":
		if len(p.Enum) > 0 || len(p.OneOf) > 0 {
			return fmt.Errorf("enums must be of type string")
		}
		return nil
	case "array":
		if p.Items == nil {
			return fmt.Errorf("a multi-select array needs items")
		}
		if (p.Items.Type == "string" && len(p.Items.Enum) > 0) || len(p.Items.AnyOf) > 0 {
			return nil
		}
		return fmt.Errorf("arrays must be multi-select enums of strings")
	case "":
		return fmt.Errorf("missing type")
	}
	return fmt.Errorf("type %q is not allowed (string, number, integer, boolean, array of enum)", p.Type)
}
