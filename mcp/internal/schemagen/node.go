package schemagen

import (
	"encoding/json"
	"strconv"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// node is one schema under construction. Keywords are kept in typed fields so the
// writer can emit them in a fixed, readable order (type, annotations, then the
// structural keywords) instead of the sorted order a map would give.
type node struct {
	ref     string   // "$ref"
	raw     []member // verbatim user schema (a Schemer), top-level members in order
	rawBool string   // a verbatim boolean schema: "true" or "false"
	anyOf   []*node
	types   []string // "type": one name is written as a string, several as an array
	ann     annotations

	items     *node
	isStruct  bool // always write "properties", even when empty
	props     []property
	required  []string
	addl      *node // "additionalProperties" as a schema
	addlFalse bool  // "additionalProperties": false
}

type property struct {
	name   string
	schema *node
}

// member is one top-level keyword of a verbatim schema, or one serialized annotation.
type member struct {
	key string
	val []byte
}

// annotations are the keywords the mcp and description tags (and a few Go types) set.
// Empty strings and nil slices mean "absent". Numeric keywords hold JSON number text.
type annotations struct {
	title, description                 string
	format, contentEncoding, pattern   string
	enum                               []json.RawMessage
	constV, defaultV                   json.RawMessage
	minimum, maximum                   string
	exclusiveMinimum, exclusiveMaximum string
	minLength, maxLength               string
	minItems, maxItems                 string
}

// members serializes the annotations in the order they are written.
func (a *annotations) members() []member {
	var out []member
	str := func(k, v string) {
		if v != "" {
			out = append(out, member{k, appendString(nil, v)})
		}
	}
	num := func(k, v string) {
		if v != "" {
			out = append(out, member{k, []byte(v)})
		}
	}
	str("title", a.title)
	str("description", a.description)
	str("format", a.format)
	str("contentEncoding", a.contentEncoding)
	if a.enum != nil {
		b := []byte{'['}
		for i, v := range a.enum {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
		out = append(out, member{"enum", append(b, ']')})
	}
	if a.constV != nil {
		out = append(out, member{"const", a.constV})
	}
	if a.defaultV != nil {
		out = append(out, member{"default", a.defaultV})
	}
	num("minimum", a.minimum)
	num("exclusiveMinimum", a.exclusiveMinimum)
	num("maximum", a.maximum)
	num("exclusiveMaximum", a.exclusiveMaximum)
	num("minLength", a.minLength)
	num("maxLength", a.maxLength)
	str("pattern", a.pattern)
	num("minItems", a.minItems)
	num("maxItems", a.maxItems)
	return out
}

// primaryType is the single non-null JSON type n declares, or "" when n declares
// none or several (a reference, a verbatim schema, the empty schema).
func (n *node) primaryType() string {
	if n.raw != nil || n.ref != "" || n.anyOf != nil || n.rawBool != "" {
		return ""
	}
	t := ""
	for _, s := range n.types {
		if s == "null" {
			continue
		}
		if t != "" {
			return ""
		}
		t = s
	}
	return t
}

// isEmpty reports whether n is the empty schema {} (accepts everything).
func (n *node) isEmpty() bool {
	return n.ref == "" && n.raw == nil && n.rawBool == "" && n.anyOf == nil &&
		n.types == nil && n.items == nil && !n.isStruct && n.props == nil &&
		n.addl == nil && !n.addlFalse && n.ann.empty()
}

// empty reports whether no annotation is set.
func (a *annotations) empty() bool {
	return a.title == "" && a.description == "" && a.format == "" && a.contentEncoding == "" &&
		a.pattern == "" && a.enum == nil && a.constV == nil && a.defaultV == nil &&
		a.minimum == "" && a.maximum == "" && a.exclusiveMinimum == "" && a.exclusiveMaximum == "" &&
		a.minLength == "" && a.maxLength == "" && a.minItems == "" && a.maxItems == ""
}

// nullable returns a schema that also accepts null: a "null" type is added where n
// names its types, and otherwise n is wrapped in anyOf with {"type":"null"}, moving
// title, description and default to the wrapper.
func nullable(n *node) *node {
	if n.isEmpty() || n.rawBool == "true" {
		return n
	}
	if n.primaryType() != "" {
		for _, t := range n.types {
			if t == "null" {
				return n
			}
		}
		n.types = append(n.types, "null")
		if n.ann.constV != nil {
			n.ann.enum = []json.RawMessage{n.ann.constV}
			n.ann.constV = nil
		}
		if n.ann.enum != nil {
			n.ann.enum = append(n.ann.enum, json.RawMessage("null"))
		}
		return n
	}
	outer := &node{anyOf: []*node{n, {types: []string{"null"}}}}
	outer.ann.title, n.ann.title = n.ann.title, ""
	outer.ann.description, n.ann.description = n.ann.description, ""
	outer.ann.defaultV, n.ann.defaultV = n.ann.defaultV, nil
	return outer
}

// appendJSON writes n as compact JSON.
func (n *node) appendJSON(b []byte) []byte {
	if n.rawBool != "" {
		if n.ann.empty() {
			return append(b, n.rawBool...)
		}
		// A boolean schema with annotations becomes an object: true is {}, false is {"not":{}}.
		if n.rawBool == "false" {
			n.raw = []member{{"not", []byte("{}")}}
		} else {
			n.raw = []member{}
		}
		n.rawBool = ""
	}
	if n.raw != nil {
		return appendMerged(b, n.raw, n.ann.members())
	}
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
	}
	if n.ref != "" {
		key("$ref")
		b = appendString(b, n.ref)
	}
	if len(n.types) == 1 {
		key("type")
		b = appendString(b, n.types[0])
	} else if len(n.types) > 1 {
		key("type")
		b = append(b, '[')
		for i, t := range n.types {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	for _, m := range n.ann.members() {
		key(m.key)
		b = append(b, m.val...)
	}
	if n.items != nil {
		key("items")
		b = n.items.appendJSON(b)
	}
	if n.isStruct || n.props != nil {
		key("properties")
		b = append(b, '{')
		for i, p := range n.props {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, p.name)
			b = append(b, ':')
			b = p.schema.appendJSON(b)
		}
		b = append(b, '}')
	}
	if len(n.required) > 0 {
		key("required")
		b = append(b, '[')
		for i, r := range n.required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	if n.addl != nil {
		key("additionalProperties")
		b = n.addl.appendJSON(b)
	} else if n.addlFalse {
		key("additionalProperties")
		b = append(b, "false"...)
	}
	if n.anyOf != nil {
		key("anyOf")
		b = append(b, '[')
		for i, s := range n.anyOf {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendMerged writes the members of a verbatim schema, with each override replacing
// the member of the same name in place and the others appended at the end.
func appendMerged(b []byte, raw, overrides []member) []byte {
	b = append(b, '{')
	used := make([]bool, len(overrides))
	first := true
	write := func(m member) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.val...)
	}
	for _, m := range raw {
		for i, o := range overrides {
			if o.key == m.key {
				m = o
				used[i] = true
				break
			}
		}
		write(m)
	}
	for i, o := range overrides {
		if !used[i] {
			write(o)
		}
	}
	return append(b, '}')
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does; HTML characters are left alone.
func appendString(b []byte, s string) []byte { return jsonrpc.AppendString(b, s, false) }

// itoa formats the integer annotations.
func itoa(n int) string { return strconv.Itoa(n) }
