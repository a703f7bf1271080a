package present

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed schemas/*.json
var schemaFS embed.FS

var schemaFiles = map[string]string{
	KindSearchResults: "schemas/patternSearchResults.v1.json",
	KindDetails:       "schemas/patternDetails.v1.json",
	KindNeedsInput:    "schemas/needsInput.v1.json",
	KindToolError:     "schemas/toolError.v1.json",
}

func mustRead(name string) json.RawMessage {
	b, err := schemaFS.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("present: embedded schema %s: %v", name, err))
	}
	return b
}

// Schema returns the JSON Schema (draft 2020-12, with an absolute $id) of a
// payload kind, and whether the kind exists.
func Schema(kind string) (json.RawMessage, bool) {
	name, ok := schemaFiles[kind]
	if !ok {
		return nil, false
	}
	return mustRead(name), true
}

// SearchInputSchema is the inputSchema of search_patterns.
func SearchInputSchema() json.RawMessage { return mustRead("schemas/search_patterns.input.json") }

// GetInputSchema is the inputSchema of get_pattern.
func GetInputSchema() json.RawMessage { return mustRead("schemas/get_pattern.input.json") }

// OutputSchema returns one object schema accepting exactly the given kinds:
// {"type":"object","oneOf":[...]} with each kind's schema embedded whole (each
// keeps its $id, so its internal references still resolve).
func OutputSchema(kinds ...string) json.RawMessage {
	var parts []json.RawMessage
	for _, k := range kinds {
		s, ok := Schema(k)
		if !ok {
			panic("present: unknown payload kind " + k)
		}
		parts = append(parts, s)
	}
	b, err := json.Marshal(map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"oneOf":   parts,
	})
	if err != nil {
		panic(err)
	}
	return b
}
