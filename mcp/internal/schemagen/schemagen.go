package schemagen

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Options configures For. The zero value (or nil) gives the defaults described on
// each field.
type Options struct {
	// AllowNonObjectRoot permits a root type whose schema is not an object (a
	// string, a slice, …). By default For fails with ErrNotObject, because MCP
	// tool input and output schemas must have "type": "object" at the root.
	AllowNonObjectRoot bool

	// StrictObjects adds "additionalProperties": false to every object derived
	// from a struct, so unknown members are rejected. By default it is left out
	// and unknown members are allowed. Maps are never affected.
	StrictObjects bool

	// NullableCollections lets slice and map fields that have no omitempty or
	// omitzero option also be null, which is what encoding/json writes for a nil
	// slice or map. Set it for output schemas, where a handler returning a nil
	// slice would otherwise fail validation. By default such fields are plain
	// arrays and objects.
	NullableCollections bool
}

// Schemer is implemented by types that describe their own JSON Schema. For uses the
// returned JSON verbatim (it must be a JSON object or boolean); tags on a field of
// such a type may still add keywords. The method is called on the zero value.
type Schemer interface {
	JSONSchema() json.RawMessage
}

// ErrNotObject is returned (wrapped) when the root schema is not an object and
// Options.AllowNonObjectRoot is not set.
var ErrNotObject = errors.New("schemagen: root type does not describe a JSON object")

// ErrUnsupportedType is returned (wrapped) for a Go type that has no JSON form:
// channels, functions, complex numbers, unsafe pointers, and maps whose keys are
// not strings, integers or encoding.TextMarshaler.
var ErrUnsupportedType = errors.New("schemagen: unsupported type")

// FieldError reports a problem with one struct field: a bad mcp tag, or a field
// type that has no schema. It is a programmer error, meant to surface when a tool
// is registered.
type FieldError struct {
	Struct string // the struct type, package-qualified (e.g. "main.Args")
	Field  string // the Go field name
	Err    error
}

// Error formats the error as "schemagen: pkg.Struct.Field: problem".
func (e *FieldError) Error() string {
	return fmt.Sprintf("schemagen: %s.%s: %v", e.Struct, e.Field, e.Err)
}

// Unwrap returns the underlying problem, so errors.Is(err, ErrUnsupportedType) works.
func (e *FieldError) Unwrap() error { return e.Err }

// ForType is For(reflect.TypeFor[T](), opts).
func ForType[T any](opts *Options) (json.RawMessage, error) {
	return For(reflect.TypeFor[T](), opts)
}

// For returns a JSON Schema (2020-12) for values of type t as encoding/json writes
// them, as compact JSON with properties in struct field order. See the package
// documentation for the mapping. For is safe for concurrent use; it does no caching.
func For(t reflect.Type, opts *Options) (json.RawMessage, error) {
	if t == nil {
		return nil, errors.New("schemagen: nil type")
	}
	g := &generator{
		inProgress: map[reflect.Type]bool{},
		recursive:  map[reflect.Type]bool{},
		defNames:   map[reflect.Type]string{},
		defs:       map[reflect.Type]*node{},
		usedNames:  map[string]bool{},
	}
	if opts != nil {
		g.opts = *opts
	}
	root, err := derefType(t)
	if err != nil {
		return nil, err
	}
	g.root = root
	n, err := g.gen(root)
	if err != nil {
		return nil, err
	}
	if !g.opts.AllowNonObjectRoot && !isObjectSchema(n) {
		return nil, fmt.Errorf("%w: %s", ErrNotObject, t)
	}
	b := make([]byte, 0, 256)
	b = n.appendJSON(b)
	if len(g.defOrder) > 0 {
		// Only generated objects and arrays refer to definitions, so the root ends in '}'.
		b = b[:len(b)-1]
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"$defs":{`...)
		for i, dt := range g.defOrder {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, g.defNames[dt])
			b = append(b, ':')
			b = g.defs[dt].appendJSON(b)
		}
		b = append(b, "}}"...)
	}
	return b, nil
}

// isObjectSchema reports whether n has "type": "object".
func isObjectSchema(n *node) bool {
	if n.raw != nil {
		for _, m := range n.raw {
			if m.key == "type" {
				return string(m.val) == `"object"`
			}
		}
		return false
	}
	return len(n.types) == 1 && n.types[0] == "object"
}

var (
	schemerType   = reflect.TypeFor[Schemer]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	numberType    = reflect.TypeFor[json.Number]()
)

// generator holds the state of one For call.
type generator struct {
	opts       Options
	root       reflect.Type
	inProgress map[reflect.Type]bool   // named types whose schema is being built
	recursive  map[reflect.Type]bool   // named types found to refer to themselves
	defNames   map[reflect.Type]string // $defs member names
	defs       map[reflect.Type]*node  // finished definitions of recursive types
	defOrder   []reflect.Type
	usedNames  map[string]bool
}

// derefType removes pointer levels. A bounded loop: `type P *P` never ends otherwise.
func derefType(t reflect.Type) (reflect.Type, error) {
	for i := 0; t.Kind() == reflect.Pointer; i++ {
		if i == 8 {
			return nil, fmt.Errorf("%w: %s (too many pointer levels)", ErrUnsupportedType, t)
		}
		t = t.Elem()
	}
	return t, nil
}

// implements reports whether values of t, or pointers to them, implement iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(iface))
}

// gen builds the schema for t, which has no pointer levels.
func (g *generator) gen(t reflect.Type) (*node, error) {
	if t.Kind() != reflect.Interface && implements(t, schemerType) {
		return userSchema(t)
	}
	switch t {
	case timeType:
		return &node{types: []string{"string"}, ann: annotations{format: "date-time"}}, nil
	case rawType:
		return &node{}, nil
	case numberType:
		return &node{types: []string{"number"}}, nil
	}
	if t.Kind() != reflect.Interface {
		if implements(t, marshalerType) {
			return &node{}, nil // unknown custom encoding: anything goes
		}
		if implements(t, textMarshType) {
			return &node{types: []string{"string"}}, nil
		}
	}

	// A named composite type may refer to itself; such types go in $defs.
	named := t.Name() != ""
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
	default:
		named = false
	}
	if named {
		if _, ok := g.defs[t]; ok {
			return g.refTo(t), nil
		}
		if g.inProgress[t] {
			g.recursive[t] = true
			return g.refTo(t), nil
		}
		g.inProgress[t] = true
		defer delete(g.inProgress, t)
	}
	n, err := g.genKind(t)
	if err != nil || !named || !g.recursive[t] || t == g.root {
		return n, err
	}
	g.defs[t] = n
	g.defOrder = append(g.defOrder, t)
	return g.refTo(t), nil
}

// refTo returns a fresh reference node for t: "#" for the root type, otherwise a
// member of $defs named after the type.
func (g *generator) refTo(t reflect.Type) *node {
	if t == g.root {
		return &node{ref: "#"}
	}
	name, ok := g.defNames[t]
	if !ok {
		base := defName(t)
		name = base
		for i := 2; g.usedNames[name]; i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		g.usedNames[name] = true
		g.defNames[t] = name
	}
	return &node{ref: "#/$defs/" + name}
}

// defName makes a $defs member name from a type name, keeping it free of characters
// that would need escaping in a JSON pointer or URI fragment.
func defName(t reflect.Type) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, t.Name())
}

// userSchema calls JSONSchema on the zero value of t and checks the result.
func userSchema(t reflect.Type) (*node, error) {
	var s Schemer
	if t.Implements(schemerType) {
		s = reflect.New(t).Elem().Interface().(Schemer)
	} else {
		s = reflect.New(t).Interface().(Schemer)
	}
	raw := bytes.TrimSpace(s.JSONSchema())
	switch string(raw) {
	case "true", "false":
		return &node{rawBool: string(raw)}, nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		return nil, fmt.Errorf("schemagen: %s.JSONSchema: %w", t, err)
	}
	return &node{raw: members}, nil
}

// objectMembers splits a JSON object into its top-level members, compacted, in order.
func objectMembers(raw []byte) ([]member, error) {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, errors.New("not a JSON object or boolean")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, err
	}
	members := []member{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // json.Valid guarantees object keys here
		if seen[key] {
			return nil, fmt.Errorf("duplicate member %q", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return nil, err
		}
		members = append(members, member{key, buf.Bytes()})
	}
	return members, nil
}

// genKind builds the schema for t by its kind.
func (g *generator) genKind(t reflect.Type) (*node, error) {
	switch t.Kind() {
	case reflect.Bool:
		return &node{types: []string{"boolean"}}, nil
	case reflect.String:
		return &node{types: []string{"string"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &node{types: []string{"integer"}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &node{types: []string{"integer"}, ann: annotations{minimum: "0"}}, nil
	case reflect.Float32, reflect.Float64:
		return &node{types: []string{"number"}}, nil
	case reflect.Interface:
		return &node{}, nil
	case reflect.Slice:
		// encoding/json writes []byte as a base64 string unless the element type
		// has its own encoding.
		if et := t.Elem(); et.Kind() == reflect.Uint8 && !implements(et, marshalerType) && !implements(et, textMarshType) {
			return &node{types: []string{"string"}, ann: annotations{contentEncoding: "base64"}}, nil
		}
		return g.array(t)
	case reflect.Array:
		n, err := g.array(t)
		if err != nil {
			return nil, err
		}
		n.ann.minItems, n.ann.maxItems = itoa(t.Len()), itoa(t.Len())
		return n, nil
	case reflect.Map:
		kt := t.Key()
		switch kt.Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !implements(kt, textMarshType) {
				return nil, fmt.Errorf("%w: %s (map key type)", ErrUnsupportedType, t)
			}
		}
		vt, err := derefType(t.Elem())
		if err != nil {
			return nil, err
		}
		vn, err := g.gen(vt)
		if err != nil {
			return nil, err
		}
		return &node{types: []string{"object"}, addl: vn}, nil
	case reflect.Struct:
		return g.object(t)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupportedType, t)
}

func (g *generator) array(t reflect.Type) (*node, error) {
	et, err := derefType(t.Elem())
	if err != nil {
		return nil, err
	}
	items, err := g.gen(et)
	if err != nil {
		return nil, err
	}
	return &node{types: []string{"array"}, items: items}, nil
}

// object builds the schema of a struct: one property per JSON member.
func (g *generator) object(t reflect.Type) (*node, error) {
	n := &node{types: []string{"object"}, isStruct: true, addlFalse: g.opts.StrictObjects}
	for _, f := range structFields(t) {
		p, required, err := g.property(f)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, &FieldError{Struct: f.owner.String(), Field: f.sf.Name, Err: err}
		}
		n.props = append(n.props, property{f.name, p})
		if required {
			n.required = append(n.required, f.name)
		}
	}
	return n, nil
}

// property builds the schema of one struct field and decides whether it is required:
// a field is required unless it has omitempty or omitzero, is a pointer, or is
// promoted through an embedded pointer; the mcp tag's required and optional flags
// override that.
func (g *generator) property(f field) (*node, bool, error) {
	ft := f.sf.Type
	isPtr := ft.Kind() == reflect.Pointer
	bt, err := derefType(ft)
	if err != nil {
		return nil, false, err
	}
	var n *node
	if f.quoted {
		n = &node{types: []string{"string"}} // ",string": the value is JSON text in a string
	} else if n, err = g.gen(bt); err != nil {
		return nil, false, err
	}
	if d := f.sf.Tag.Get("description"); d != "" {
		n.ann.description = d
	}
	spec, err := parseTag(f.sf.Tag.Get("mcp"))
	if err != nil {
		return nil, false, fmt.Errorf("mcp tag: %w", err)
	}
	if err := applyTag(n, bt, spec); err != nil {
		return nil, false, fmt.Errorf("mcp tag: %w", err)
	}
	required := !f.omit && !isPtr && !f.viaPtr
	switch {
	case spec.required:
		required = true
	case spec.optional:
		required = false
	}
	// encoding/json writes a nil pointer (and a nil slice or map) as null unless
	// the field is omitted when empty.
	null := spec.nullable || (isPtr && !f.omit)
	if g.opts.NullableCollections && !f.omit && !f.quoted && (bt.Kind() == reflect.Slice || bt.Kind() == reflect.Map) {
		null = true
	}
	if null {
		n = nullable(n)
	}
	return n, required, nil
}
