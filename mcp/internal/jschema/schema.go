// Package jschema is the JSON Schema validator of package mcp: it compiles a schema
// once and validates instances in the generic form mcp decodes JSON into
// (map[string]any, []any, json.Number, string, bool, nil).
//
// Dialects: 2020-12 (the default, as MCP specifies for schemas without "$schema"),
// 2019-09, draft-07, draft-06 and draft-04, chosen by "$schema" at the root of each
// schema resource. Every keyword of their validation and applicator vocabularies is
// applied, "format" is asserted for the formats in format.go (unknown formats are
// annotations), and references resolve within the document: "$ref" by URI, JSON
// Pointer or anchor, "$id" scoping, "$dynamicRef" and 2019-09's "$recursiveRef".
// There is no network access: a reference outside the document is a compile error.
// "pattern" uses Go's regexp syntax (RE2); a pattern it cannot compile is a compile
// error, never a silent pass.
//
// A Schema is immutable once compiled and safe for concurrent use. Validating a valid
// instance against a schema without unevaluated* keywords allocates nothing.
package jschema

import (
	"strings"
)

// Schema is a compiled schema.
type Schema struct {
	root    *node
	dynamic bool // $dynamicRef or $recursiveRef occur: track the dynamic scope
}

// Validate reports whether v is valid. It returns nil or a *ValidationError.
func (s *Schema) Validate(v any) error {
	st := state{dynamic: s.dynamic}
	ok, _ := st.eval(s.root, v, false)
	if st.exhausted { // even when "valid": a "not" may have turned a cut-off into a pass
		return &ValidationError{Details: []Detail{{Message: errTooComplex}}}
	}
	if ok {
		return nil
	}
	// Again, explaining: every failing keyword adds a Detail.
	st = state{dynamic: s.dynamic, explain: true}
	st.eval(s.root, v, false)
	if len(st.errs) == 0 { // cannot happen: the verdict does not depend on explain
		st.errs = append(st.errs, Detail{Message: "invalid"})
	}
	return &ValidationError{Details: st.errs}
}

const errTooComplex = "schema too complex to evaluate against this value (references nest too deeply or branch too much)"

// ValidationError lists why an instance is invalid, innermost failures first.
type ValidationError struct {
	Details []Detail
}

// Detail is one failed keyword.
type Detail struct {
	// InstanceLocation is the JSON Pointer of the failing value ("" for the root).
	InstanceLocation string
	Message          string
}

// Error renders the details as "at /path: message; at /other: message".
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, d := range e.Details {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// String renders d as "at /path: message" ("at /" for the root).
func (d Detail) String() string {
	loc := d.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return "at " + loc + ": " + d.Message
}
