package conformance

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
)

// genDepth bounds recursion when building sample values.
const genDepth = 6

// sampleArgs builds arguments that should satisfy a tool's inputSchema:
// every required property gets a value from const, default, enum, examples
// or its type (respecting simple bounds). It reports false when it cannot
// build a value for some required property.
func sampleArgs(schema json.RawMessage) (map[string]any, bool) {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	v, ok := sampleValue(s, s, 0)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func sampleValue(s, root map[string]any, depth int) (any, bool) {
	if depth > genDepth || s == nil {
		return nil, false
	}
	if ref, ok := s["$ref"].(string); ok {
		target := resolveLocalRef(root, ref)
		if target == nil {
			return nil, false
		}
		return sampleValue(target, root, depth+1)
	}
	if v, ok := s["const"]; ok {
		return v, true
	}
	if v, ok := s["default"]; ok {
		return v, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok {
					if v, ok := sampleValue(am, root, depth+1); ok {
						return v, true
					}
				}
			}
			return nil, false
		}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for k, v := range s {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, a := range all {
			if am, ok := a.(map[string]any); ok {
				for k, v := range am {
					merged[k] = v
				}
			}
		}
		return sampleValue(merged, root, depth+1)
	}
	typ := schemaType(s)
	switch typ {
	case "object", "":
		if typ == "" && s["properties"] == nil {
			return "test", true
		}
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		names := make([]string, 0, len(req))
		for _, r := range req {
			if n, ok := r.(string); ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			ps, _ := props[n].(map[string]any)
			if ps == nil {
				ps = map[string]any{}
			}
			v, ok := sampleValue(ps, root, depth+1)
			if !ok {
				return nil, false
			}
			out[n] = v
		}
		return out, true
	case "string":
		return sampleString(s), true
	case "integer":
		return sampleNumber(s, true), true
	case "number":
		return sampleNumber(s, false), true
	case "boolean":
		return true, true
	case "array":
		n := 0
		if mi, ok := s["minItems"].(float64); ok {
			n = int(mi)
		}
		if n > 10 {
			return nil, false
		}
		items, _ := s["items"].(map[string]any)
		arr := make([]any, 0, n)
		for i := 0; i < n; i++ {
			v, ok := sampleValue(items, root, depth+1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
		return arr, true
	case "null":
		return nil, true
	}
	return nil, false
}

// schemaType returns the first non-null type of s.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	}
	return ""
}

func sampleString(s map[string]any) string {
	switch s["format"] {
	case "email":
		return "test@example.com"
	case "uri", "url":
		return "https://example.com/"
	case "date":
		return "2025-01-02"
	case "date-time":
		return "2025-01-02T03:04:05Z"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	v := "test"
	if mi, ok := s["minLength"].(float64); ok && int(mi) > len(v) {
		v += strings.Repeat("x", int(mi)-len(v))
	}
	if ma, ok := s["maxLength"].(float64); ok && int(ma) < len(v) {
		v = v[:int(ma)]
	}
	return v
}

func sampleNumber(s map[string]any, integer bool) any {
	v := 1.0
	if mi, ok := s["minimum"].(float64); ok && v < mi {
		v = mi
	}
	if mi, ok := s["exclusiveMinimum"].(float64); ok && v <= mi {
		v = mi + 1
	}
	if ma, ok := s["maximum"].(float64); ok && v > ma {
		v = ma
	}
	if ma, ok := s["exclusiveMaximum"].(float64); ok && v >= ma {
		v = ma - 1
	}
	if integer {
		return int64(math.Ceil(v))
	}
	return v
}

// resolveLocalRef follows a "#/…" JSON pointer inside root.
func resolveLocalRef(root map[string]any, ref string) map[string]any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// badArgs builds arguments that violate a tool's inputSchema: a property
// with a declared primitive type receives a value of another type. It
// reports false when the schema constrains nothing it can break.
func badArgs(schema json.RawMessage) (map[string]any, string, bool) {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return nil, "", false
	}
	good, _ := sampleValue(s, s, 0)
	args, _ := good.(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		switch schemaType(ps) {
		case "string", "boolean", "array":
			args[n] = map[string]any{"unexpected": "object"}
			return args, "property " + n + " gets an object", true
		case "integer", "number", "object":
			args[n] = "not-a-number"
			if schemaType(ps) == "object" {
				args[n] = "not-an-object"
			}
			return args, "property " + n + " gets a string", true
		}
	}
	if req, ok := s["required"].([]any); ok && len(req) > 0 {
		if n, ok := req[0].(string); ok {
			delete(args, n)
			return args, "required property " + n + " is missing", true
		}
	}
	return nil, "", false
}
