package mcp

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp/internal/schemagen"
)

// encoding/json matches member names case-insensitively, so {"NAME": …} would fill
// the Name field of a params struct. The jsonrpc decoder already rejects wrong-case
// JSON-RPC members and duplicates; checkMemberCase extends the exact-case rule to the
// members of params, and checkArgumentCase to every member of a typed tool's
// arguments that decodes into a struct field, so that two parsers can never read one
// message differently (for arguments: the input schema, which matches names exactly,
// and encoding/json, which fills In). Both read the members with the jsonrpc
// decoder's own scanner (jsonrpc.Members, jsonrpc.Elements).

var fieldNames sync.Map // reflect.Type → *memberNames

// memberNames is what the exact-case rule needs to know of a struct type's json
// members.
type memberNames struct {
	// exact maps each json name to the type its value is walked with by
	// checkArgumentCase (checkedType of the field's type; nil: nothing to walk).
	exact map[string]reflect.Type
	// folded maps each json name, folded as encoding/json folds names, to the name.
	folded map[string]string
}

// jsonNames returns the json member names of struct type t, those of its embedded
// structs included, by encoding/json's rules (schemagen.Members). It is cached.
func jsonNames(t reflect.Type) *memberNames {
	if v, ok := fieldNames.Load(t); ok {
		return v.(*memberNames)
	}
	ms := schemagen.Members(t)
	n := &memberNames{exact: make(map[string]reflect.Type, len(ms)), folded: make(map[string]string, len(ms))}
	for _, m := range ms {
		n.exact[m.Name] = checkedType(m.Type)
		f := string(foldName(nil, []byte(m.Name)))
		if _, dup := n.folded[f]; !dup { // "a" and "A" may both be members
			n.folded[f] = m.Name
		}
	}
	v, _ := fieldNames.LoadOrStore(t, n)
	return v.(*memberNames)
}

// variant returns the json name that key equals except for case, the name
// encoding/json would fill from it. It reports false when key is a json name
// itself, or equals none of them in any case.
func (n *memberNames) variant(key []byte) (string, bool) {
	if _, ok := n.exact[string(key)]; ok { // an exact name: no allocation
		return "", false
	}
	var buf [64]byte
	exact, ok := n.folded[string(foldName(buf[:0], key))]
	return exact, ok
}

// foldName appends name to dst folded as encoding/json folds member names before
// matching them (ASCII letters upper-cased, any other rune replaced by the smallest
// rune of its case-folding set), so that two names fold alike exactly when
// bytes.EqualFold reports them equal: "ſort" (U+017F) and "Sort" fill a field named
// "sort" too.
func foldName(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(name[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		dst = utf8.AppendRune(dst, r)
		i += size
	}
	return dst
}

// checkMemberCase reports a top-level member of data whose name equals one of v's
// json names except for case.
func checkMemberCase(data []byte, v any) error {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	names := jsonNames(t)
	var bad error
	jsonrpc.Members(data, func(key, _ []byte) bool {
		if exact, ok := names.variant(key); ok {
			bad = fmt.Errorf("member %q: member names are case-sensitive (the field is %q)", key, exact)
			return false
		}
		return true
	})
	return bad
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkedType returns t when JSON decoded by encoding/json into a value of type t
// can fill the fields of a struct: t is a struct, or a chain of pointers, slices,
// arrays and maps ending in one, and none of them decodes itself (a json.Unmarshaler
// such as json.RawMessage, or an encoding.TextUnmarshaler, which takes no object or
// array). Otherwise, for interfaces and scalars, it returns nil.
func checkedType(t reflect.Type) reflect.Type {
	var seen []reflect.Type // a chain that comes back (type L []L) holds no struct
	for u := t; !slices.Contains(seen, u); u = u.Elem() {
		pu := reflect.PointerTo(u)
		if pu.Implements(jsonUnmarshaler) || pu.Implements(textUnmarshaler) ||
			u.Implements(jsonUnmarshaler) || u.Implements(textUnmarshaler) {
			return nil
		}
		switch u.Kind() {
		case reflect.Struct:
			return t
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			seen = append(seen, u)
		default:
			return nil
		}
	}
	return nil
}

// checkArgumentCase reports the first member of the JSON value data, at any depth,
// that encoding/json would decode into a struct field whose json name it equals only
// except for case; t is checkedType of the type data decodes into. It walks data
// alongside t: pointers are dereferenced; the members of an object decoded into a
// struct are checked, and the value of a member with an exact name is walked with
// the field's type; the elements of an array are walked with a slice's or array's
// element type, and the values of an object decoded into a map with the map's
// element type (its keys are free); anything else (interfaces, json.RawMessage,
// scalars) is not looked into. A value of another JSON type than t expects is left
// to encoding/json. Arguments the scanner cannot read are refused, since their
// members could not be checked: from the wire that is only arguments nested deeper
// than jsonrpc.DefaultMaxDepth, which a connection whose Limits.MaxDepth is raised
// may pass on (the scanner also refuses malformed JSON and repeated members, which
// the jsonrpc decoder has refused already). For arguments with exact names it
// allocates nothing; t's names are cached.
func checkArgumentCase(data []byte, t reflect.Type) error {
	if err := walkArgumentCase(data, t); err != nil {
		return err // a *argCaseError, its path complete
	}
	return nil
}

// argCaseError is checkArgumentCase's refusal. Each level of the walk adds its step
// of the path as the error comes back up, so that the walk itself builds nothing.
type argCaseError struct {
	steps  []argStep // innermost first
	member string    // the member whose name is a case variant
	exact  string    // the argument's name; "" when the value could not be read
}

// argStep is one step of a path in the arguments.
type argStep struct {
	kind byte   // '.': a struct member; '[': a map key; '#': an array index
	name string // the member's name or the key
	idx  int    // the element's index
}

func (e *argCaseError) step(s argStep) *argCaseError {
	e.steps = append(e.steps, s)
	return e
}

// path writes the path to the value that holds the member, and name after it, as in
// "filter.rows[2].name" or "byCity[Paris].min".
func (e *argCaseError) path(name string) string {
	var b []byte
	for i := len(e.steps) - 1; i >= 0; i-- {
		switch s := e.steps[i]; s.kind {
		case '.':
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.name...)
		case '[':
			b = append(b, '[')
			b = append(b, s.name...)
			b = append(b, ']')
		default:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.idx), 10)
			b = append(b, ']')
		}
	}
	if name != "" {
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, name...)
	}
	return string(b)
}

func (e *argCaseError) Error() string {
	if e.exact == "" {
		where := "the arguments"
		if len(e.steps) > 0 {
			where = strconv.Quote(e.path(""))
		}
		return fmt.Sprintf("member names of %s cannot be checked: not well-formed JSON, a member repeated, or nested deeper than %d levels", where, jsonrpc.DefaultMaxDepth)
	}
	return fmt.Sprintf("member %q: member names are case-sensitive (the argument is %q)", e.path(e.member), e.path(e.exact))
}

func walkArgumentCase(data []byte, t reflect.Type) *argCaseError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var first byte
	for _, c := range data {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			first = c
			break
		}
	}
	var err *argCaseError
	var ok bool
	switch t.Kind() {
	case reflect.Struct:
		if first != '{' {
			return nil // null, or a value encoding/json refuses itself
		}
		names := jsonNames(t)
		ok = jsonrpc.Members(data, func(key, value []byte) bool {
			if vt, exact := names.exact[string(key)]; exact {
				if vt != nil {
					if err = walkArgumentCase(value, vt); err != nil {
						err.step(argStep{kind: '.', name: string(key)})
					}
				}
				return err == nil
			}
			if name, found := names.variant(key); found {
				err = &argCaseError{member: string(key), exact: name}
				return false
			}
			return true // an unknown member: the schema's business
		})
	case reflect.Map:
		if first != '{' {
			return nil
		}
		elem := t.Elem()
		ok = jsonrpc.Members(data, func(key, value []byte) bool {
			if err = walkArgumentCase(value, elem); err != nil {
				err.step(argStep{kind: '[', name: string(key)})
			}
			return err == nil
		})
	case reflect.Slice, reflect.Array:
		if first != '[' {
			return nil
		}
		elem, i := t.Elem(), 0
		n := -1 // the elements encoding/json decodes: all, or an array's length
		if t.Kind() == reflect.Array {
			n = t.Len()
		}
		ok = jsonrpc.Elements(data, func(value []byte) bool {
			if n < 0 || i < n {
				if err = walkArgumentCase(value, elem); err != nil {
					err.step(argStep{kind: '#', idx: i})
				}
			}
			i++
			return err == nil
		})
	default:
		return nil
	}
	if err == nil && !ok {
		err = &argCaseError{}
	}
	return err
}
