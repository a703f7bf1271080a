package schemagen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// tagSpec is a parsed mcp tag.
type tagSpec struct {
	values   map[string]string // key=value items
	order    []string          // keys in the order written, for error messages
	required bool
	optional bool
	nullable bool
}

// valueKeys are the mcp tag keys that take a value.
var valueKeys = map[string]bool{
	"enum": true, "default": true, "const": true, "title": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// parseTag splits an mcp tag into its items. Items are separated by ';' and a value
// may contain a literal ';' written as `\;`.
func parseTag(tag string) (*tagSpec, error) {
	spec := &tagSpec{values: map[string]string{}}
	for _, item := range splitEscaped(tag, ';') {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, hasValue := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !hasValue {
			var flag *bool
			switch k {
			case "required":
				flag = &spec.required
			case "optional":
				flag = &spec.optional
			case "nullable":
				flag = &spec.nullable
			default:
				if valueKeys[k] {
					return nil, fmt.Errorf("%q needs a value (%s=…)", k, k)
				}
				return nil, fmt.Errorf("unknown item %q", k)
			}
			if *flag {
				return nil, fmt.Errorf("%q given twice", k)
			}
			*flag = true
			continue
		}
		if !valueKeys[k] {
			switch k {
			case "required", "optional", "nullable":
				return nil, fmt.Errorf("%q is a flag and takes no value", k)
			}
			return nil, fmt.Errorf("unknown key %q", k)
		}
		if _, dup := spec.values[k]; dup {
			return nil, fmt.Errorf("%q given twice", k)
		}
		spec.values[k] = v
		spec.order = append(spec.order, k)
	}
	if spec.required && spec.optional {
		return nil, errors.New(`"required" and "optional" both given`)
	}
	return spec, nil
}

// splitEscaped splits s at each sep not preceded by a backslash and turns each
// escaped separator into a plain one. Other backslashes are kept as written.
func splitEscaped(s string, sep byte) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == sep:
			cur.WriteByte(sep)
			i++
		case s[i] == sep:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(out, cur.String())
}

// applyTag sets the keywords of spec on n, a schema for Go type t (pointers already
// removed). Values are checked against the schema's JSON type.
func applyTag(n *node, t reflect.Type, spec *tagSpec) error {
	jt := n.primaryType()
	for _, k := range spec.order {
		v := spec.values[k]
		if err := applyItem(n, t, jt, k, v); err != nil {
			return fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	if lo, hi := n.ann.minimum, n.ann.maximum; spec.values["minimum"] != "" && spec.values["maximum"] != "" {
		l, _ := strconv.ParseFloat(lo, 64)
		h, _ := strconv.ParseFloat(hi, 64)
		if l > h {
			return fmt.Errorf("minimum %s is greater than maximum %s", lo, hi)
		}
	}
	if err := checkOrder(n.ann.minLength, n.ann.maxLength, "minLength", "maxLength"); err != nil {
		return err
	}
	return checkOrder(n.ann.minItems, n.ann.maxItems, "minItems", "maxItems")
}

func checkOrder(lo, hi, loName, hiName string) error {
	if lo == "" || hi == "" {
		return nil
	}
	l, _ := strconv.Atoi(lo)
	h, _ := strconv.Atoi(hi)
	if l > h {
		return fmt.Errorf("%s %d is greater than %s %d", loName, l, hiName, h)
	}
	return nil
}

func applyItem(n *node, t reflect.Type, jt, k, v string) error {
	// only checks that a keyword suits the schema's type; an unknown type (a
	// reference, a user schema, {}) accepts every keyword.
	only := func(types ...string) error {
		if jt == "" {
			return nil
		}
		for _, want := range types {
			if jt == want {
				return nil
			}
		}
		return fmt.Errorf("applies to %s values, not %s", strings.Join(types, " or "), jt)
	}
	var err error
	switch k {
	case "title":
		n.ann.title = v
	case "format":
		n.ann.format = v
	case "pattern":
		if err = only("string"); err != nil {
			return err
		}
		if _, err = regexp.Compile(v); err != nil {
			return fmt.Errorf("bad regular expression: %w", err)
		}
		n.ann.pattern = v
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		v = strings.TrimSpace(v)
		if err = only("integer", "number"); err != nil {
			return err
		}
		if !isJSONNumber(v) {
			return errors.New("not a finite JSON number")
		}
		switch k {
		case "minimum":
			n.ann.minimum = v
		case "maximum":
			n.ann.maximum = v
		case "exclusiveMinimum":
			n.ann.exclusiveMinimum = v
		default:
			n.ann.exclusiveMaximum = v
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		if k == "minItems" || k == "maxItems" {
			err = only("array")
		} else {
			err = only("string")
		}
		if err != nil {
			return err
		}
		c, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || c < 0 {
			return errors.New("not a non-negative integer")
		}
		s := itoa(c)
		switch k {
		case "minLength":
			n.ann.minLength = s
		case "maxLength":
			n.ann.maxLength = s
		case "minItems":
			n.ann.minItems = s
		default:
			n.ann.maxItems = s
		}
	case "default":
		n.ann.defaultV, err = typedValue(t, jt, v)
	case "const":
		n.ann.constV, err = typedValue(t, jt, v)
	case "enum":
		if v == "" {
			return errors.New("empty enum (use const= for a single empty string)")
		}
		var vals []json.RawMessage
		for _, s := range splitEscaped(v, '|') {
			tv, err := typedValue(t, jt, s)
			if err != nil {
				return fmt.Errorf("value %q: %w", s, err)
			}
			vals = append(vals, tv)
		}
		n.ann.enum = vals
	}
	return err
}

// typedValue converts tag text to a JSON value of the schema's type: strings are
// taken literally, numbers and booleans are parsed (integers within the range of
// the Go type), and any other type needs the value written as JSON.
func typedValue(t reflect.Type, jt, s string) (json.RawMessage, error) {
	switch jt {
	case "string":
		return appendString(nil, s), nil
	case "boolean":
		if s != "true" && s != "false" {
			return nil, errors.New(`not "true" or "false"`)
		}
		return json.RawMessage(s), nil
	case "integer":
		bits := 64
		if t != nil && isInteger(t.Kind()) {
			bits = t.Bits()
		}
		if t != nil && isUnsigned(t.Kind()) {
			u, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return nil, fmt.Errorf("not an unsigned %d-bit integer", bits)
			}
			return strconv.AppendUint(nil, u, 10), nil
		}
		i, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("not a %d-bit integer", bits)
		}
		return strconv.AppendInt(nil, i, 10), nil
	case "number":
		bits := 64
		if t != nil && t.Kind() == reflect.Float32 {
			bits = 32
		}
		if !isJSONNumber(s) {
			return nil, errors.New("not a finite JSON number")
		}
		if _, err := strconv.ParseFloat(s, bits); err != nil {
			return nil, fmt.Errorf("out of range for a %d-bit float", bits)
		}
		return json.RawMessage(s), nil
	}
	if !json.Valid([]byte(s)) {
		return nil, errors.New("not valid JSON (values for this type are written as JSON)")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// isJSONNumber reports whether s is a JSON number literal with a finite float64 value.
func isJSONNumber(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || !json.Valid([]byte(s)) {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0)
}

func isUnsigned(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return isUnsigned(k)
}
