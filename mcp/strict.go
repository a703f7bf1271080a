package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// encoding/json matches member names case-insensitively, so {"NAME": …} would fill
// the Name field of a params struct. The jsonrpc decoder already rejects wrong-case
// JSON-RPC members and duplicates; checkMemberCase extends the exact-case rule to the
// members of params, so that two parsers can never read one message differently. It
// reads the members with the jsonrpc decoder's own scanner (jsonrpc.Members).

var fieldNames sync.Map // reflect.Type → map[string]string (lower-case → exact, and exact → exact)

// jsonNames returns the lower-cased json member names of struct type t (and of its
// embedded structs), mapped to their exact spelling.
func jsonNames(t reflect.Type) map[string]string {
	if v, ok := fieldNames.Load(t); ok {
		return v.(map[string]string)
	}
	names := map[string]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			names[strings.ToLower(name)] = name
			names[name] = name
		}
	}
	walk(t)
	fieldNames.Store(t, names)
	return names
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
		if _, ok := names[string(key)]; ok { // exact name: no allocation
			return true
		}
		if exact, ok := names[strings.ToLower(string(key))]; ok && exact != string(key) {
			bad = fmt.Errorf("member %q: member names are case-sensitive (the field is %q)", key, exact)
			return false
		}
		return true
	})
	return bad
}
