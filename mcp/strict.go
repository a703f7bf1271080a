package mcp

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// encoding/json matches member names case-insensitively, so {"NAME": …} would fill
// the Name field of a params struct. The jsonrpc decoder already rejects wrong-case
// JSON-RPC members and duplicates; checkMemberCase extends the exact-case rule to the
// members of params, so that two parsers can never read one message differently.

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
	eachTopLevelKey(data, func(key []byte) bool {
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

// eachTopLevelKey calls fn with the member names of the JSON object in data, until fn
// returns false.
func eachTopLevelKey(data []byte, fn func([]byte) bool) {
	eachMember(data, func(key, _ []byte) bool { return fn(key) })
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index of the closing quote of the string starting at i, in
// input the jsonrpc decoder has validated: the first quote not escaped by an odd run
// of backslashes.
func scanString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j <= len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, escaped
		}
		q := j + k
		if bytes.IndexByte(b[j:q], '\\') >= 0 {
			escaped = true
		}
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q, escaped
		}
		j = q + 1
	}
	return -1, escaped
}

// skipValue returns the index just past the JSON value starting at i.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, _ := scanString(b, i)
			if end < 0 {
				return -1
			}
			i = end + 1
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
