package schemagen

import (
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is one JSON object member of a struct, after embedded structs are flattened.
type field struct {
	name   string
	index  []int
	sf     reflect.StructField
	owner  reflect.Type // the struct type that declares sf
	tagged bool         // the name came from the json tag
	omit   bool         // omitempty or omitzero
	quoted bool         // the ",string" option applies
	viaPtr bool         // reached through an embedded pointer, which may be nil
}

// embedded is a struct type whose fields are promoted into the struct being
// described, found at one depth of the breadth-first walk.
type embedded struct {
	typ    reflect.Type
	index  []int
	viaPtr bool
	count  int // how many times typ is embedded at this depth
}

// structFields lists the JSON members of struct type t in the order encoding/json
// writes them, applying its rules: unexported fields and `json:"-"` are skipped;
// fields of untagged embedded structs are promoted; on a name conflict the shallowest
// field wins, then a tagged one, and otherwise every field of that name is dropped.
func structFields(t reflect.Type) []field {
	var all []field
	seen := map[reflect.Type]bool{}
	level := []embedded{{typ: t, count: 1}}
	for len(level) > 0 {
		var next []embedded
		nextAt := map[reflect.Type]int{}
		for _, e := range level {
			if seen[e.typ] {
				continue
			}
			seen[e.typ] = true
			for i := 0; i < e.typ.NumField(); i++ {
				sf := e.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(e.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					viaPtr := e.viaPtr || sf.Type.Kind() == reflect.Pointer
					if j, ok := nextAt[ft]; ok {
						next[j].count += e.count
						continue
					}
					nextAt[ft] = len(next)
					next = append(next, embedded{typ: ft, index: index, viaPtr: viaPtr, count: e.count})
					continue
				}
				f := field{
					name:   name,
					index:  index,
					sf:     sf,
					owner:  e.typ,
					tagged: name != "",
					viaPtr: e.viaPtr,
				}
				if f.name == "" {
					f.name = sf.Name
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "omitempty", "omitzero":
						f.omit = true
					case "string":
						switch ft.Kind() {
						case reflect.Bool, reflect.String,
							reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64:
							f.quoted = true
						}
					}
				}
				all = append(all, f)
				if e.count > 1 {
					// The same struct reached twice at one depth: both copies of each
					// field conflict, so the field is dropped, as encoding/json does.
					all = append(all, f)
				}
			}
		}
		level = next
	}

	// Pick the dominant field for each name.
	slices.SortStableFunc(all, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return 0
	})
	out := all[:0:0]
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if f, ok := dominant(all[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

// dominant picks the field that wins among fields sharing one name, already sorted
// by depth and then tagged-first. It fails when the shallowest fields tie.
func dominant(fs []field) (field, bool) {
	if len(fs) > 1 && len(fs[0].index) == len(fs[1].index) && fs[0].tagged == fs[1].tagged {
		return field{}, false
	}
	return fs[0], true
}

// validTagName reports whether encoding/json accepts name as a member name from a tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// A Member is one JSON object member of a struct type, as encoding/json decodes it.
type Member struct {
	Name string       // the json tag's name, or the Go field's name
	Type reflect.Type // the type of the field it decodes into
}

// Members lists the JSON members of struct type t by encoding/json's rules (those
// of the schemas For derives: embedded structs flattened, conflicts resolved), in
// field order. The mcp package holds the member names of params and of typed tool
// arguments to their exact case with it.
func Members(t reflect.Type) []Member {
	fs := structFields(t)
	ms := make([]Member, len(fs))
	for i, f := range fs {
		ms[i] = Member{Name: f.name, Type: f.sf.Type}
	}
	return ms
}
