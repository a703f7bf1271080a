package mcp

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// A treeDecoder sets v (settable, holding its zero value) from x, a value in
// the generic form decodeValue produces, the way encoding/json would decode the
// same JSON into v. It reports false where encoding/json would report an error
// or where it cannot be sure to match encoding/json (a member name that only
// matches a field case-insensitively, say); the caller then decodes the JSON text
// with encoding/json into a fresh value, so every result and every error stays
// exactly encoding/json's.
//
// Typed tool arguments have already been parsed into that generic form to be
// validated against the input schema; decoding the tree spares encoding/json a
// second and third pass over the text (its validity scan and its decoding),
// which is most of the cost of a call with long string arguments.
type treeDecoder func(v reflect.Value, x any) bool

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newTreeDecoder returns the decoder for t, or nil when t (or a type it holds)
// needs something only encoding/json does: its own UnmarshalJSON or
// UnmarshalText, embedded structs, the ",string" option, []byte (base64),
// non-string map keys, non-empty interfaces, or kinds JSON cannot fill.
func newTreeDecoder(t reflect.Type) treeDecoder {
	b := treeBuilder{seen: map[reflect.Type]*treeDecoder{}}
	return b.build(t)
}

type treeBuilder struct {
	seen map[reflect.Type]*treeDecoder // built or being built (recursive types)
}

func customUnmarshal(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || pt.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType)
}

func (b *treeBuilder) build(t reflect.Type) treeDecoder {
	if p, ok := b.seen[t]; ok {
		// A recursive type: the decoder is filled in once built (and if it is
		// not supported, neither is the type that refers to it).
		return func(v reflect.Value, x any) bool { return (*p)(v, x) }
	}
	if customUnmarshal(t) {
		return nil
	}
	p := new(treeDecoder)
	b.seen[t] = p
	d := b.make(t)
	*p = d
	return d
}

func (b *treeBuilder) make(t reflect.Type) treeDecoder {
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case bool:
				v.SetBool(x)
				return true
			}
			return false
		}
	case reflect.String:
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case string:
				v.SetString(x)
				return true
			}
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case json.Number:
				n, err := strconv.ParseInt(string(x), 10, 64)
				if err != nil || v.OverflowInt(n) {
					return false
				}
				v.SetInt(n)
				return true
			}
			return false
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case json.Number:
				n, err := strconv.ParseUint(string(x), 10, 64)
				if err != nil || v.OverflowUint(n) {
					return false
				}
				v.SetUint(n)
				return true
			}
			return false
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case json.Number:
				f, err := strconv.ParseFloat(string(x), bits)
				if err != nil || v.OverflowFloat(f) {
					return false
				}
				v.SetFloat(f)
				return true
			}
			return false
		}
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil
		}
		return func(v reflect.Value, x any) bool {
			if x == nil {
				v.SetZero()
				return true
			}
			g, ok := plainTree(x)
			if ok {
				v.Set(reflect.ValueOf(&g).Elem())
			}
			return ok
		}
	case reflect.Pointer:
		elem := b.build(t.Elem())
		if elem == nil {
			return nil
		}
		et := t.Elem()
		return func(v reflect.Value, x any) bool {
			if x == nil {
				v.SetZero()
				return true
			}
			if v.IsNil() {
				v.Set(reflect.New(et))
			}
			return elem(v.Elem(), x)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64 text in encoding/json
		}
		elem := b.build(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				v.SetZero()
				return true
			case []any:
				s := reflect.MakeSlice(t, len(x), len(x))
				for i, e := range x {
					if !elem(s.Index(i), e) {
						return false
					}
				}
				v.Set(s)
				return true
			}
			return false
		}
	case reflect.Array:
		elem := b.build(t.Elem())
		if elem == nil {
			return nil
		}
		n := t.Len()
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				return true
			case []any:
				// Extra elements are dropped; missing ones stay zero.
				for i := 0; i < n && i < len(x); i++ {
					if !elem(v.Index(i), x[i]) {
						return false
					}
				}
				return true
			}
			return false
		}
	case reflect.Map:
		kt := t.Key()
		if kt.Kind() != reflect.String || customUnmarshal(kt) {
			return nil
		}
		elem := b.build(t.Elem())
		if elem == nil {
			return nil
		}
		et := t.Elem()
		return func(v reflect.Value, x any) bool {
			switch x := x.(type) {
			case nil:
				v.SetZero()
				return true
			case map[string]any:
				if v.IsNil() {
					v.Set(reflect.MakeMapWithSize(t, len(x)))
				}
				for k, e := range x {
					ev := reflect.New(et).Elem()
					if !elem(ev, e) {
						return false
					}
					v.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
				}
				return true
			}
			return false
		}
	case reflect.Struct:
		return b.structDecoder(t)
	}
	return nil
}

type treeField struct {
	index  int
	decode treeDecoder
}

// structFields returns the members of struct type t by JSON name, each with the
// index of its field and the tree decoder of the field's type; false when t needs
// encoding/json (see newTreeDecoder).
func structFields(t reflect.Type) (map[string]treeField, bool) {
	b := treeBuilder{seen: map[reflect.Type]*treeDecoder{}}
	return b.fields(t)
}

func (b *treeBuilder) fields(t reflect.Type) (map[string]treeField, bool) {
	fields := map[string]treeField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false // promoted fields follow rules left to encoding/json
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for _, o := range strings.Split(opts, ",") {
			if o == "string" {
				return nil, false
			}
		}
		if !validTagName(name) {
			name = f.Name
		}
		if _, dup := fields[name]; dup {
			return nil, false // which of the two wins is encoding/json's business
		}
		d := b.build(f.Type)
		if d == nil {
			return nil, false
		}
		fields[name] = treeField{index: i, decode: d}
	}
	return fields, true
}

func (b *treeBuilder) structDecoder(t reflect.Type) treeDecoder {
	fields, ok := b.fields(t)
	if !ok {
		return nil
	}
	return func(v reflect.Value, x any) bool {
		switch x := x.(type) {
		case nil:
			return true
		case map[string]any:
			for k, e := range x {
				f, ok := fields[k]
				if !ok {
					// An unknown member is ignored by encoding/json, unless it
					// matches a field case-insensitively: let it decide.
					return false
				}
				if !f.decode(v.Field(f.index), e) {
					return false
				}
			}
			return true
		}
		return false
	}
}

// validTagName reports whether encoding/json takes name, given in a tag, as
// the member name (otherwise it uses the Go field name): a non-empty run of
// letters, digits and punctuation other than the quote and the backslash.
func validTagName(name string) bool {
	const punct = "!#$%&()*+-./:;<=>?@[]^_{|}~ "
	bad := func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune(punct, c)
	}
	return name != "" && strings.IndexFunc(name, bad) < 0
}

// plainTree converts a generic tree to what encoding/json stores in an
// interface: numbers become float64.
func plainTree(x any) (any, bool) {
	switch x := x.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			g, ok := plainTree(e)
			if !ok {
				return nil, false
			}
			m[k] = g
		}
		return m, true
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			g, ok := plainTree(e)
			if !ok {
				return nil, false
			}
			a[i] = g
		}
		return a, true
	}
	return x, true
}
