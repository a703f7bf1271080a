// Package schemagen derives JSON Schemas (draft 2020-12, plain JSON) from Go types,
// for MCP tool input and output schemas.
//
//	type Args struct {
//		City  string `json:"city" description:"City name" mcp:"minLength=1"`
//		Units string `json:"units,omitempty" mcp:"enum=metric|imperial;default=metric"`
//		Days  int    `json:"days,omitempty" mcp:"minimum=1;maximum=14"`
//	}
//	schema, err := schemagen.ForType[Args](nil)
//	// {"type":"object","properties":{"city":{"type":"string","description":"City name","minLength":1},
//	//  "units":{"type":"string","enum":["metric","imperial"],"default":"metric"},
//	//  "days":{"type":"integer","minimum":1,"maximum":14}},"required":["city"]}
//
// # Types
//
// The schema describes what encoding/json writes for the type:
//
//   - bool → boolean; string → string; signed integers → integer; unsigned integers →
//     integer with "minimum": 0; floats → number; json.Number → number.
//   - []byte → string with "contentEncoding": "base64"; other slices → array with
//     items; [N]T → array with items, minItems N and maxItems N.
//   - maps with string, integer or encoding.TextMarshaler keys → object with
//     additionalProperties describing the values.
//   - structs → object with properties in field order and required (below);
//     additionalProperties is left out unless Options.StrictObjects is set.
//   - pointers → the pointed-to type; interfaces, json.RawMessage and other
//     json.Marshaler types → {} (anything); time.Time → string with "format":
//     "date-time"; other encoding.TextMarshaler types → string.
//   - a type implementing Schemer → its JSONSchema() result, verbatim.
//   - channels, functions, complex numbers and unsafe pointers → ErrUnsupportedType.
//
// The root must describe an object (a struct, a map, or a Schemer whose schema has
// "type": "object") unless Options.AllowNonObjectRoot is set: MCP requires it.
//
// # Struct fields
//
// Field names and visibility follow encoding/json: the json tag names a member, "-"
// skips it, unexported fields are skipped, and fields of embedded structs without a
// json name are promoted (shallowest wins, then a tagged field, otherwise a
// conflicting name is dropped). The ",string" option makes the member a string.
//
// A field is required unless its json tag has omitempty or omitzero, or it is a
// pointer, or it is promoted through an embedded pointer (a nil embedded pointer
// drops its fields). A pointer field without omitempty/omitzero is also nullable,
// because encoding/json writes a nil pointer as null; with omitempty it is not.
// Slices and maps are nullable only with Options.NullableCollections.
//
// # Tags
//
// `description:"…"` sets "description". `mcp:"…"` holds ';'-separated items (write a
// literal ';' inside a value as `\;`):
//
//	enum=a|b|c              enumerated values; a literal '|' is `\|`
//	default=v, const=v      one value
//	minimum=, maximum=, exclusiveMinimum=, exclusiveMaximum=   numbers (integer and number fields)
//	minLength=, maxLength=, pattern=                           strings (pattern must compile with regexp)
//	minItems=, maxItems=                                       arrays
//	format=, title=                                            any field
//	required, optional      override the omitempty/pointer rule
//	nullable                also accept null
//
// Values of enum, default and const take the field's JSON type: strings literally,
// integers parsed within the range of the Go type, numbers as JSON numbers, booleans
// as true or false, and anything else written as JSON. A bad tag is a *FieldError
// naming the struct and field. A keyword that does not suit the field's type (say
// minLength on an integer) is an error too; on a field whose schema has no single
// type (an interface, a Schemer, a recursive reference) every keyword is accepted.
//
// # Recursive types
//
// A named type that refers to itself (directly or through other types) is written
// once under "$defs" at the root, named after the Go type, and referred to with
// "$ref": "#/$defs/Name"; a reference to the root type itself is "$ref": "#". Other
// types are written inline wherever they occur.
//
// # Output
//
// The result is compact JSON with a fixed key order, so equal types give identical
// bytes. For does no caching; callers that need a schema more than once keep it.
package schemagen
