package jschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type draft int

const (
	draft4    draft = 4
	draft6    draft = 6
	draft7    draft = 7
	draft2019 draft = 2019
	draft2020 draft = 2020
)

// draftOf maps a "$schema" value to its dialect.
func draftOf(s string) (draft, bool) {
	s = strings.TrimSuffix(s, "#")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	switch s {
	case "json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-04/schema":
		return draft4, true
	}
	return 0, false
}

// rootURI is the base URI of a document without an absolute "$id".
const rootURI = "mem:///schema.json"

// resource is a schema resource: the document root or a subschema with "$id".
type resource struct {
	uri       string // absolute, without fragment
	path      string // JSON Pointer of its root within the document
	anchors   map[string]string
	dynamic   map[string]bool // names of its $dynamicAnchors
	recursive bool            // 2019-09: "$recursiveAnchor": true at its root

	// Filled in only when the document uses $dynamicRef or $recursiveRef.
	root     *node
	dynNodes map[string]*node // by $dynamicAnchor name
}

// location is what the indexing pass records for every subschema it finds.
type location struct {
	res   *resource
	draft draft
	value any
}

type compiler struct {
	doc       any
	resources map[string]*resource
	locs      map[string]*location // by document JSON Pointer
	nodes     map[string]*node     // compiled, by document JSON Pointer
	dynamic   bool
}

// Compile compiles a schema document in generic form (see the package comment).
func Compile(doc any) (*Schema, error) {
	c := &compiler{doc: doc, resources: map[string]*resource{}, locs: map[string]*location{}, nodes: map[string]*node{}}
	root := &resource{uri: rootURI}
	c.resources[rootURI] = root
	if err := c.index(doc, "", root, draft2020); err != nil {
		return nil, err
	}
	n, err := c.compile("")
	if err != nil {
		return nil, err
	}
	if c.dynamic {
		if err := c.compileDynamic(); err != nil {
			return nil, err
		}
	}
	return &Schema{root: n, dynamic: c.dynamic}, nil
}

// compileDynamic compiles what dynamic references may land on: the roots of
// resources and their dynamic anchors.
func (c *compiler) compileDynamic() error {
	done := map[*resource]bool{}
	for {
		var todo []*resource
		for _, r := range c.resources {
			if !done[r] {
				todo = append(todo, r)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		for _, r := range todo {
			done[r] = true
			var err error
			if r.root, err = c.compile(r.path); err != nil {
				return err
			}
			for name := range r.dynamic {
				if r.dynNodes == nil {
					r.dynNodes = map[string]*node{}
				}
				if r.dynNodes[name], err = c.compile(r.anchors[name]); err != nil {
					return err
				}
			}
		}
	}
}

// escapeToken escapes a JSON Pointer reference token.
func escapeToken(s string) string {
	if strings.IndexAny(s, "~/") < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// resolveURI resolves ref against base (both may carry a fragment).
func resolveURI(base, ref string) (string, error) {
	if strings.HasPrefix(ref, "#") {
		return stripFragment(base) + ref, nil
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if r.IsAbs() {
		return ref, nil
	}
	b, err := url.Parse(stripFragment(base))
	if err != nil {
		return "", err
	}
	if b.Opaque != "" {
		return "", fmt.Errorf("cannot resolve %q against %q", ref, base)
	}
	return b.ResolveReference(r).String(), nil
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

var anchorName = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)

// Subschema keywords, by the shape of their value.
var (
	oneSchema  = []string{"not", "if", "then", "else", "additionalProperties", "propertyNames", "contains", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
	schemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaMap  = []string{"$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"}
)

// index walks the document: it records every subschema's resource and dialect,
// the resources by URI and their anchors.
func (c *compiler) index(v any, path string, res *resource, d draft) error {
	m, ok := v.(map[string]any)
	if !ok {
		c.locs[path] = &location{res: res, draft: d, value: v}
		return nil
	}
	if s, ok := m["$schema"]; ok {
		str, ok := s.(string)
		if !ok {
			return fmt.Errorf("%s: $schema must be a string", at(path))
		}
		nd, known := draftOf(str)
		if !known {
			return fmt.Errorf("%s: unknown $schema %q (supported: 2020-12, 2019-09, draft-07, draft-06, draft-04)", at(path), str)
		}
		d = nd
	}
	idKey := "$id"
	if d == draft4 {
		idKey = "id"
	}
	_, hasRef := m["$ref"]
	if id, ok := m[idKey]; ok && !(hasRef && d <= draft7) {
		s, ok := id.(string)
		if !ok {
			return fmt.Errorf("%s: %s must be a string", at(path), idKey)
		}
		if strings.HasPrefix(s, "#") && d <= draft7 {
			if err := addAnchor(res, s[1:], path); err != nil {
				return err
			}
		} else {
			u, err := resolveURI(res.uri, s)
			if err != nil {
				return fmt.Errorf("%s: %s %q: %v", at(path), idKey, s, err)
			}
			if f := u[len(stripFragment(u)):]; f != "" && f != "#" {
				if d >= draft2019 {
					return fmt.Errorf("%s: $id %q must not have a fragment", at(path), s)
				}
				if err := addAnchor(res, f[1:], path); err != nil {
					return err
				}
			}
			u = stripFragment(u)
			if path != "" || u != res.uri {
				if old, dup := c.resources[u]; dup && old.path != path {
					return fmt.Errorf("%s: duplicate %s %q", at(path), idKey, u)
				}
				res = &resource{uri: u, path: path}
				c.resources[u] = res
			}
		}
	}
	if d >= draft2019 {
		if a, ok := m["$anchor"]; ok {
			s, ok := a.(string)
			if !ok || !anchorName.MatchString(s) {
				return fmt.Errorf("%s: invalid $anchor %v", at(path), a)
			}
			if err := addAnchor(res, s, path); err != nil {
				return err
			}
		}
	}
	if d >= draft2020 {
		if a, ok := m["$dynamicAnchor"]; ok {
			s, ok := a.(string)
			if !ok || !anchorName.MatchString(s) {
				return fmt.Errorf("%s: invalid $dynamicAnchor %v", at(path), a)
			}
			if err := addAnchor(res, s, path); err != nil {
				return err
			}
			if res.dynamic == nil {
				res.dynamic = map[string]bool{}
			}
			res.dynamic[s] = true
		}
	}
	if d == draft2019 && path == res.path {
		if b, ok := m["$recursiveAnchor"].(bool); ok && b {
			res.recursive = true
		}
	}
	c.locs[path] = &location{res: res, draft: d, value: v}
	for _, k := range oneSchema {
		if sub, ok := m[k]; ok && isSchema(sub) {
			if err := c.index(sub, path+"/"+k, res, d); err != nil {
				return err
			}
		}
	}
	if sub, ok := m["items"]; ok {
		switch s := sub.(type) {
		case []any:
			for i, e := range s {
				if err := c.index(e, path+"/items/"+strconv.Itoa(i), res, d); err != nil {
					return err
				}
			}
		default:
			if isSchema(s) {
				if err := c.index(s, path+"/items", res, d); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range schemaList {
		if list, ok := m[k].([]any); ok {
			for i, e := range list {
				if err := c.index(e, path+"/"+k+"/"+strconv.Itoa(i), res, d); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range schemaMap {
		if mm, ok := m[k].(map[string]any); ok {
			for name, e := range mm {
				if isSchema(e) {
					if err := c.index(e, path+"/"+k+"/"+escapeToken(name), res, d); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

func addAnchor(res *resource, name, path string) error {
	if res.anchors == nil {
		res.anchors = map[string]string{}
	}
	if old, dup := res.anchors[name]; dup && old != path {
		return fmt.Errorf("%s: duplicate anchor %q", at(path), name)
	}
	res.anchors[name] = path
	return nil
}

// at names a schema location in compile errors.
func at(path string) string {
	return "schema at #" + path
}

// lookup finds the subschema at a document JSON Pointer, indexing it first when
// it is not under a keyword the indexing pass follows (a $ref may point anywhere).
func (c *compiler) lookup(path string) (*location, error) {
	if l, ok := c.locs[path]; ok {
		return l, nil
	}
	// Walk down from the deepest indexed ancestor.
	v := c.doc
	var parent *location = c.locs[""]
	cur := ""
	if path != "" {
		for _, tok := range strings.Split(path[1:], "/") {
			key := strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := v.(type) {
			case map[string]any:
				e, ok := x[key]
				if !ok {
					return nil, fmt.Errorf("no value at #%s", path)
				}
				v = e
			case []any:
				i, err := strconv.Atoi(key)
				if err != nil || i < 0 || i >= len(x) || (len(key) > 1 && key[0] == '0') {
					return nil, fmt.Errorf("no value at #%s", path)
				}
				v = x[i]
			default:
				return nil, fmt.Errorf("no value at #%s", path)
			}
			cur += "/" + tok
			if l, ok := c.locs[cur]; ok {
				parent = l
			}
		}
	}
	if !isSchema(v) {
		return nil, fmt.Errorf("#%s is not a schema", path)
	}
	if err := c.index(v, path, parent.res, parent.draft); err != nil {
		return nil, err
	}
	return c.locs[path], nil
}

// resolveRef finds the document JSON Pointer a reference names.
func (c *compiler) resolveRef(base, ref string) (string, error) {
	u, err := resolveURI(base, ref)
	if err != nil {
		return "", err
	}
	doc := stripFragment(u)
	frag := ""
	if len(u) > len(doc) {
		if frag, err = url.PathUnescape(u[len(doc)+1:]); err != nil {
			return "", err
		}
	}
	res, ok := c.resources[doc]
	if !ok {
		return "", fmt.Errorf("cannot resolve %q: %s is not in this document (references are not fetched)", ref, doc)
	}
	switch {
	case frag == "":
		return res.path, nil
	case frag[0] == '/':
		return res.path + frag, nil
	}
	p, ok := res.anchors[frag]
	if !ok {
		return "", fmt.Errorf("cannot resolve %q: no anchor %q in %s", ref, frag, doc)
	}
	return p, nil
}

// compile compiles the subschema at a document JSON Pointer (once).
func (c *compiler) compile(path string) (*node, error) {
	if n, ok := c.nodes[path]; ok {
		return n, nil
	}
	l, err := c.lookup(path)
	if err != nil {
		return nil, err
	}
	n := &node{res: l.res, draft: l.draft, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minProps: -1, maxProps: -1, minContains: 1, maxContains: -1}
	c.nodes[path] = n // before the keywords: recursive references find it
	switch v := l.value.(type) {
	case bool:
		if l.draft == draft4 {
			return nil, fmt.Errorf("%s: draft-04 has no boolean schemas", at(path))
		}
		n.isBool, n.boolVal = true, v
		return n, nil
	case map[string]any:
		if err := c.keywords(n, v, path); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at(path))
}

// sub compiles the subschema under keyword path elements.
func (c *compiler) sub(path string, elems ...string) (*node, error) {
	for _, e := range elems {
		path += "/" + escapeToken(e)
	}
	return c.compile(path)
}

// keywords compiles the keywords of an object schema.
func (c *compiler) keywords(n *node, m map[string]any, path string) error {
	d := n.draft
	bad := func(k string, want string) error {
		return fmt.Errorf("%s: %s must be %s", at(path), k, want)
	}
	if r, ok := m["$ref"]; ok {
		s, ok := r.(string)
		if !ok {
			return bad("$ref", "a string")
		}
		target, err := c.resolveRef(n.res.uri, s)
		if err != nil {
			return fmt.Errorf("%s: $ref: %v", at(path), err)
		}
		if n.ref, err = c.compile(target); err != nil {
			return err
		}
		if d <= draft7 {
			return nil // siblings of $ref are ignored before 2019-09
		}
	}
	if r, ok := m["$dynamicRef"]; ok && d >= draft2020 {
		s, ok := r.(string)
		if !ok {
			return bad("$dynamicRef", "a string")
		}
		target, err := c.resolveRef(n.res.uri, s)
		if err != nil {
			return fmt.Errorf("%s: $dynamicRef: %v", at(path), err)
		}
		dr := &dynRef{}
		if dr.static, err = c.compile(target); err != nil {
			return err
		}
		u, _ := resolveURI(n.res.uri, s)
		if i := strings.IndexByte(u, '#'); i >= 0 {
			name, _ := url.PathUnescape(u[i+1:])
			// Dynamic only when the static target carries the same $dynamicAnchor.
			if anchorName.MatchString(name) && dr.static.res.dynamic[name] && dr.static.res.anchors[name] == target {
				dr.anchor = name
				c.dynamic = true
			}
		}
		n.dynRef = dr
	}
	if r, ok := m["$recursiveRef"]; ok && d == draft2019 {
		s, ok := r.(string)
		if !ok || s != "#" {
			return bad("$recursiveRef", `"#"`)
		}
		target, err := c.resolveRef(n.res.uri, s)
		if err != nil {
			return fmt.Errorf("%s: $recursiveRef: %v", at(path), err)
		}
		dr := &dynRef{recursive: true}
		if dr.static, err = c.compile(target); err != nil {
			return err
		}
		c.dynamic = true
		n.dynRef = dr
	}

	// Annotations: only their shape is checked.
	for k, want := range annotationShapes {
		if v, ok := m[k]; ok && d >= want.from && !want.ok(v) {
			return bad(k, want.name)
		}
	}
	if d >= draft2020 {
		if a, ok := m["$recursiveAnchor"]; ok {
			if s, ok := a.(string); !ok || !anchorName.MatchString(s) {
				return bad("$recursiveAnchor", "an anchor name in 2020-12 (it was replaced by $dynamicAnchor)")
			}
		}
		if r, ok := m["$recursiveRef"]; ok {
			if _, ok := r.(string); !ok {
				return bad("$recursiveRef", "a string")
			}
		}
	}

	// Validation keywords for any type.
	if t, ok := m["type"]; ok {
		switch x := t.(type) {
		case string:
			b, ok := typeBits[x]
			if !ok {
				return bad("type", "a JSON Schema type name")
			}
			n.types = b
		case []any:
			if len(x) == 0 {
				return bad("type", "a non-empty array")
			}
			seen := uint8(0)
			for _, e := range x {
				s, ok := e.(string)
				b, known := typeBits[s]
				if !ok || !known || seen&b != 0 {
					return bad("type", "an array of distinct JSON Schema type names")
				}
				seen |= b
			}
			n.types = seen
			if seen == 0 {
				n.types = typeNone
			}
		default:
			return bad("type", "a string or an array")
		}
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || (len(list) == 0 && d < draft2019) {
			return bad("enum", "an array")
		}
		n.enum, n.hasEnum = list, true
	}
	if v, ok := m["const"]; ok && d >= draft6 {
		n.constV, n.hasConst = v, true
	}

	// Numbers.
	var err error
	num := func(k string) (*numLit, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		s, ok := v.(json.Number)
		if !ok {
			return nil, bad(k, "a number")
		}
		return newNumLit(string(s)), nil
	}
	if n.multipleOf, err = num("multipleOf"); err != nil {
		return err
	}
	if n.multipleOf != nil && !(n.multipleOf.f > 0) {
		return bad("multipleOf", "greater than 0")
	}
	if n.maximum, err = num("maximum"); err != nil {
		return err
	}
	if n.minimum, err = num("minimum"); err != nil {
		return err
	}
	if d == draft4 {
		for _, k := range []string{"exclusiveMaximum", "exclusiveMinimum"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return bad(k, "a boolean")
			}
			limit := "maximum"
			if k == "exclusiveMinimum" {
				limit = "minimum"
			}
			if _, has := m[limit]; !has {
				return fmt.Errorf("%s: draft-04 %s needs %s", at(path), k, limit)
			}
			if b && k == "exclusiveMaximum" {
				n.exclusiveMaximum, n.maximum = n.maximum, nil
			} else if b {
				n.exclusiveMinimum, n.minimum = n.minimum, nil
			}
		}
	} else {
		if n.exclusiveMaximum, err = num("exclusiveMaximum"); err != nil {
			return err
		}
		if n.exclusiveMinimum, err = num("exclusiveMinimum"); err != nil {
			return err
		}
	}

	// Counts.
	count := func(k string, dst *int) error {
		v, ok := m[k]
		if !ok {
			return nil
		}
		s, ok := v.(json.Number)
		if !ok {
			return bad(k, "a non-negative integer")
		}
		i, ok := countOf(string(s))
		if !ok {
			return bad(k, "a non-negative integer")
		}
		*dst = i
		return nil
	}
	for _, kc := range []struct {
		k   string
		dst *int
		min draft
	}{
		{"maxLength", &n.maxLength, draft4}, {"minLength", &n.minLength, draft4},
		{"maxItems", &n.maxItems, draft4}, {"minItems", &n.minItems, draft4},
		{"maxProperties", &n.maxProps, draft4}, {"minProperties", &n.minProps, draft4},
		{"maxContains", &n.maxContains, draft2019}, {"minContains", &n.minContains, draft2019},
	} {
		if d >= kc.min {
			if err := count(kc.k, kc.dst); err != nil {
				return err
			}
		}
	}

	// Strings.
	if p, ok := m["pattern"]; ok {
		s, ok := p.(string)
		if !ok {
			return bad("pattern", "a string")
		}
		if n.pattern, err = regexp.Compile(s); err != nil {
			return fmt.Errorf("%s: pattern %q is not a regular expression this validator supports: %v", at(path), s, err)
		}
	}
	if f, ok := m["format"]; ok {
		s, ok := f.(string)
		if !ok {
			return bad("format", "a string")
		}
		n.formatName, n.format = s, formats[s]
	}

	// Arrays.
	if b, ok := m["uniqueItems"]; ok {
		v, ok := b.(bool)
		if !ok {
			return bad("uniqueItems", "a boolean")
		}
		n.uniqueItems = v
	}
	if d >= draft2020 {
		if list, ok := m["prefixItems"]; ok {
			if n.prefixItems, err = c.list(path, "prefixItems", list); err != nil {
				return err
			}
		}
		if n.items, err = c.one(m, path, "items"); err != nil {
			return err
		}
	} else if it, ok := m["items"]; ok {
		if list, isList := it.([]any); isList {
			if n.prefixItems, err = c.list(path, "items", list); err != nil {
				return err
			}
			if n.items, err = c.one(m, path, "additionalItems"); err != nil {
				return err
			}
		} else {
			if !isSchema(it) {
				return bad("items", "a schema or an array of schemas")
			}
			if n.items, err = c.sub(path, "items"); err != nil {
				return err
			}
		}
	}
	if d >= draft6 {
		if n.contains, err = c.one(m, path, "contains"); err != nil {
			return err
		}
	}

	// Objects.
	if r, ok := m["required"]; ok {
		list, ok := r.([]any)
		if !ok || (len(list) == 0 && d == draft4) {
			return bad("required", "an array of strings")
		}
		if n.required, err = stringList(list); err != nil {
			return bad("required", "an array of distinct strings")
		}
	}
	if ps, ok := m["properties"]; ok {
		pm, ok := ps.(map[string]any)
		if !ok {
			return bad("properties", "an object")
		}
		n.props = make(map[string]*node, len(pm))
		for _, name := range sortedKeys(pm) {
			if n.props[name], err = c.sub(path, "properties", name); err != nil {
				return err
			}
			n.propList = append(n.propList, dependency{name: name, schema: n.props[name]})
		}
	}
	if ps, ok := m["patternProperties"]; ok {
		pm, ok := ps.(map[string]any)
		if !ok {
			return bad("patternProperties", "an object")
		}
		for _, name := range sortedKeys(pm) {
			re, err := regexp.Compile(name)
			if err != nil {
				return fmt.Errorf("%s: patternProperties %q is not a regular expression this validator supports: %v", at(path), name, err)
			}
			s, err := c.sub(path, "patternProperties", name)
			if err != nil {
				return err
			}
			n.patternProps = append(n.patternProps, patternProp{re: re, schema: s})
		}
	}
	if n.additionalProps, err = c.one(m, path, "additionalProperties"); err != nil {
		return err
	}
	if d >= draft6 {
		if n.propertyNames, err = c.one(m, path, "propertyNames"); err != nil {
			return err
		}
	}
	if d >= draft2019 {
		if dr, ok := m["dependentRequired"]; ok {
			dm, ok := dr.(map[string]any)
			if !ok {
				return bad("dependentRequired", "an object")
			}
			for _, name := range sortedKeys(dm) {
				list, ok := dm[name].([]any)
				if !ok {
					return bad("dependentRequired", "an object of string arrays")
				}
				req, err := stringList(list)
				if err != nil {
					return bad("dependentRequired", "an object of arrays of distinct strings")
				}
				n.depRequired = append(n.depRequired, dependency{name: name, required: req})
			}
		}
		if ds, ok := m["dependentSchemas"]; ok {
			dm, ok := ds.(map[string]any)
			if !ok {
				return bad("dependentSchemas", "an object")
			}
			for _, name := range sortedKeys(dm) {
				if !isSchema(dm[name]) {
					return bad("dependentSchemas", "an object of schemas")
				}
				s, err := c.sub(path, "dependentSchemas", name)
				if err != nil {
					return err
				}
				n.depSchemas = append(n.depSchemas, dependency{name: name, schema: s})
			}
		}
	}
	// "dependencies" was split in 2019-09; it is still applied there, as the
	// 2019-09 and 2020-12 meta-schemas keep describing it for compatibility.
	if ds, ok := m["dependencies"]; ok {
		dm, ok := ds.(map[string]any)
		if !ok {
			return bad("dependencies", "an object")
		}
		for _, name := range sortedKeys(dm) {
			switch x := dm[name].(type) {
			case []any:
				req, err := stringList(x)
				if err != nil || (len(req) == 0 && d == draft4) {
					return bad("dependencies", "an object of schemas or arrays of distinct strings")
				}
				n.depRequired = append(n.depRequired, dependency{name: name, required: req})
			default:
				if !isSchema(x) {
					return bad("dependencies", "an object of schemas or string arrays")
				}
				s, err := c.sub(path, "dependencies", name)
				if err != nil {
					return err
				}
				n.depSchemas = append(n.depSchemas, dependency{name: name, schema: s})
			}
		}
	}

	// Definitions are compiled even when nothing refers to them: a malformed
	// one is an error, as it is for validators that check the meta-schema.
	for _, k := range []string{"$defs", "definitions"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		dm, ok := v.(map[string]any)
		if !ok {
			return bad(k, "an object of schemas")
		}
		for _, name := range sortedKeys(dm) {
			if !isSchema(dm[name]) {
				return bad(k, "an object of schemas")
			}
			if _, err := c.sub(path, k, name); err != nil {
				return err
			}
		}
	}

	// Applicators.
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return bad(k, "a non-empty array of schemas")
		}
		nodes, err := c.list(path, k, list)
		if err != nil {
			return err
		}
		switch k {
		case "allOf":
			n.allOf = nodes
		case "anyOf":
			n.anyOf = nodes
		default:
			n.oneOf = nodes
		}
	}
	if n.not, err = c.one(m, path, "not"); err != nil {
		return err
	}
	if d >= draft7 {
		if n.ifS, err = c.one(m, path, "if"); err != nil {
			return err
		}
		if n.ifS != nil {
			if n.thenS, err = c.one(m, path, "then"); err != nil {
				return err
			}
			if n.elseS, err = c.one(m, path, "else"); err != nil {
				return err
			}
		}
	}
	if d >= draft2019 {
		if n.unevalItems, err = c.one(m, path, "unevaluatedItems"); err != nil {
			return err
		}
		if n.unevalProps, err = c.one(m, path, "unevaluatedProperties"); err != nil {
			return err
		}
	}
	return nil
}

// one compiles the single-schema keyword k, if present.
func (c *compiler) one(m map[string]any, path, k string) (*node, error) {
	v, ok := m[k]
	if !ok {
		return nil, nil
	}
	if !isSchema(v) {
		return nil, fmt.Errorf("%s: %s must be a schema", at(path), k)
	}
	return c.sub(path, k)
}

// list compiles an array of schemas under keyword k.
func (c *compiler) list(path, k string, v any) ([]*node, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be an array of schemas", at(path), k)
	}
	out := make([]*node, len(list))
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: %s must be a non-empty array of schemas", at(path), k)
	}
	for i, e := range list {
		if !isSchema(e) {
			return nil, fmt.Errorf("%s: %s must be an array of schemas", at(path), k)
		}
		var err error
		if out[i], err = c.sub(path, k, strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func stringList(list []any) ([]string, error) {
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || seen[s] {
			return nil, errors.New("not distinct strings")
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countOf parses a non-negative integer keyword value (1.0 counts as 1).
func countOf(s string) (int, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if i < 0 {
			return 0, false
		}
		if i > math.MaxInt32 {
			i = math.MaxInt32
		}
		return int(i), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) {
		return 0, false
	}
	if f > math.MaxInt32 {
		return math.MaxInt32, true
	}
	return int(f), true
}

type shape struct {
	name string
	ok   func(any) bool
	from draft // the first dialect whose meta-schema constrains it
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isBool(v any) bool   { _, ok := v.(bool); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }

// annotationShapes are the annotation keywords whose values the meta-schemas
// constrain.
var annotationShapes = map[string]shape{
	"title":            {"a string", isString, draft4},
	"description":      {"a string", isString, draft4},
	"$comment":         {"a string", isString, draft7},
	"examples":         {"an array", isArray, draft7},
	"readOnly":         {"a boolean", isBool, draft7},
	"writeOnly":        {"a boolean", isBool, draft7},
	"contentMediaType": {"a string", isString, draft7},
	"contentEncoding":  {"a string", isString, draft7},
	"deprecated":       {"a boolean", isBool, draft2019},
}
