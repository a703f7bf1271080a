package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/wiremcp/wiremcp/mcp/internal/jschema"
)

// Flat arguments. Most typed tools take a struct of plain fields, and their input
// schema is a flat object: "type": "object", "properties" whose schemas are about
// one scalar each, "required", perhaps "additionalProperties". For those, a call's
// arguments are validated and decoded member by member, without building the
// generic tree of the whole object first (a map, and its strings, per call).
//
// It is the same judgement: such a schema accepts an object exactly when every
// member it has is valid against its property's schema and every required member
// is there (with only declared members, additionalProperties never applies), and
// each property schema is compiled and applied on its own; each member is set
// with the decoder the tree path uses for its field. Anything the fast path does
// not handle — an undeclared member, a member whose field decoder defers to
// encoding/json, an invalid value, a missing required member — sends the call down
// the generic path, which produces every result and error as before.

// flatArgs validates and decodes the arguments of one typed tool.
type flatArgs struct {
	props    map[string]*flatProp
	required uint64 // bits of the required properties
}

type flatProp struct {
	bit    uint64
	schema *jschema.Schema
	field  treeField
}

// Keywords a flat schema may have at its root, and in a property's schema. Every
// keyword of a property schema must apply to the value alone (no references, no
// subschemas): annotations and scalar assertions.
var (
	flatRootKeywords = map[string]bool{
		"$schema": true, "type": true, "properties": true, "required": true, "additionalProperties": true,
		"title": true, "description": true, "$comment": true, "examples": true, "default": true,
	}
	flatPropKeywords = map[string]bool{
		"type": true, "title": true, "description": true, "$comment": true, "examples": true, "default": true,
		"deprecated": true, "readOnly": true, "writeOnly": true, "enum": true, "const": true, "format": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"minLength": true, "maxLength": true, "pattern": true,
	}
	flatTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true}
)

// newFlatArgs returns the fast path for arguments of type t under the input schema
// raw, or nil when the schema is not flat, t is not a struct with a field for every
// property, or a field needs encoding/json. (A member naming a field the schema does
// not declare goes down the generic path.)
func newFlatArgs(raw json.RawMessage, t reflect.Type) *flatArgs {
	if t.Kind() != reflect.Struct {
		return nil
	}
	doc, err := decodeValue(raw)
	if err != nil {
		return nil
	}
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil
	}
	for k, v := range root {
		if !flatRootKeywords[k] {
			return nil
		}
		if k == "additionalProperties" {
			if _, isBool := v.(bool); !isBool {
				return nil
			}
		}
	}
	props, ok := root["properties"].(map[string]any)
	if !ok || len(props) == 0 || len(props) > 64 {
		return nil
	}
	fields, ok := structFields(t)
	if !ok {
		return nil
	}
	fa := &flatArgs{props: make(map[string]*flatProp, len(props))}
	bit := uint64(1)
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			return nil
		}
		typ, _ := ps["type"].(string)
		if !flatTypes[typ] {
			return nil
		}
		sub := make(map[string]any, len(ps)+1)
		for k, v := range ps {
			if !flatPropKeywords[k] {
				return nil
			}
			sub[k] = v
		}
		if d, ok := root["$schema"]; ok {
			sub["$schema"] = d // the same dialect as in place
		}
		s, err := jschema.Compile(sub)
		if err != nil {
			return nil
		}
		f, ok := fields[name]
		if !ok {
			return nil
		}
		fa.props[name] = &flatProp{bit: bit, schema: s, field: f}
		bit <<= 1
	}
	if req, ok := root["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return nil
		}
		for _, r := range list {
			name, _ := r.(string)
			p := fa.props[name]
			if p == nil {
				return nil
			}
			fa.required |= p.bit
		}
	}
	return fa
}

// decode validates args and sets v (a settable struct holding its zero value)
// from them. It reports false when the generic path must judge the arguments; v
// may then be partly set. args come from a message the jsonrpc decoder accepted:
// valid JSON without duplicate members.
func (fa *flatArgs) decode(args []byte, v reflect.Value) bool {
	if d := skipSpace(args, 0); d >= len(args) || args[d] != '{' {
		return false
	}
	var seen uint64
	ok := true
	eachMember(args, func(key, value []byte) bool {
		p := fa.props[string(key)]
		if p == nil {
			ok = false
			return false
		}
		x, err := decodeValue(value)
		if err != nil || p.schema.Validate(x) != nil || !p.field.decode(v.Field(p.field.index), x) {
			ok = false
			return false
		}
		seen |= p.bit
		return true
	})
	return ok && seen&fa.required == fa.required
}
