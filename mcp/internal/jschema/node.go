package jschema

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// node is one compiled schema. Absent keywords are nil, or -1 for counts.
type node struct {
	res     *resource
	draft   draft
	isBool  bool
	boolVal bool

	ref    *node
	dynRef *dynRef

	types    uint8
	enum     []any
	hasEnum  bool
	constV   any
	hasConst bool

	multipleOf, maximum, minimum, exclusiveMaximum, exclusiveMinimum *numLit

	maxLength, minLength int
	pattern              *regexp.Regexp
	format               formatChecker
	formatName           string

	maxItems, minItems       int
	uniqueItems              bool
	prefixItems              []*node
	items                    *node // elements after prefixItems
	contains                 *node
	minContains, maxContains int

	maxProps, minProps int
	required           []string
	props              map[string]*node
	propList           []dependency // props in name order, schema set
	patternProps       []patternProp
	additionalProps    *node
	propertyNames      *node
	depRequired        []dependency
	depSchemas         []dependency

	allOf, anyOf, oneOf []*node
	not                 *node
	ifS, thenS, elseS   *node

	unevalItems, unevalProps *node
}

type patternProp struct {
	re     *regexp.Regexp
	schema *node
}

type dependency struct {
	name     string
	required []string
	schema   *node
}

// dynRef is a $dynamicRef (or 2019-09 $recursiveRef): static is where it points
// on its own; when anchor is set (or recursive), the outermost resource of the
// dynamic scope that declares the same dynamic anchor wins.
type dynRef struct {
	static    *node
	anchor    string
	recursive bool
}

// JSON types as bits.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
	typeNone = 1 << 7 // "type": [] — nothing is valid
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "integer": typeInteger, "string": typeString,
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		if isIntegral(string(x)) {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

func typeNames(bits uint8) string {
	var names []string
	for _, n := range []string{"null", "boolean", "object", "array", "number", "integer", "string"} {
		if bits&typeBits[n] != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

// numLit is a number from the schema.
type numLit struct {
	text  string
	f     float64
	i     int64 // when isInt
	isInt bool
	rat   *big.Rat // nil when the exponent is too large to expand
}

func newNumLit(s string) *numLit {
	n := &numLit{text: s}
	n.f, _ = strconv.ParseFloat(s, 64)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		n.i, n.isInt = i, true
	}
	n.rat, _ = ratOf(s)
	return n
}

// maxExponent bounds the exponents expanded into exact rationals: a peer's
// "1e999999999" must not allocate a billion digits.
const maxExponent = 400

// ratOf parses a JSON number exactly, unless its exponent is beyond maxExponent.
func ratOf(s string) (*big.Rat, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64) // ±Inf on overflow, which still orders right
	return f
}

// isIntegral reports whether a JSON number has no fractional part (1.0 does not).
func isIntegral(s string) bool {
	if strings.IndexAny(s, ".eE") < 0 {
		return true
	}
	if r, ok := ratOf(s); ok {
		return r.IsInt()
	}
	f := parseFloat(s)
	return f == math.Trunc(f)
}

// cmpNum compares a JSON number with a schema number.
func cmpNum(s string, lit *numLit) int {
	f := parseFloat(s)
	switch {
	case f < lit.f:
		return -1
	case f > lit.f:
		return 1
	}
	if s == lit.text || lit.rat == nil {
		return 0
	}
	r, ok := ratOf(s)
	if !ok {
		return 0
	}
	return r.Cmp(lit.rat)
}

// isMultiple reports whether the JSON number s is a multiple of lit.
func isMultiple(s string, lit *numLit) bool {
	if lit.isInt {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i%lit.i == 0
		}
	}
	if lit.rat != nil {
		if r, ok := ratOf(s); ok {
			return new(big.Rat).Quo(r, lit.rat).IsInt()
		}
	}
	q := parseFloat(s) / lit.f
	return !math.IsInf(q, 0) && q == math.Trunc(q)
}

// numEqual compares two JSON numbers by value.
func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	if parseFloat(a) != parseFloat(b) {
		return false
	}
	ra, ok1 := ratOf(a)
	rb, ok2 := ratOf(b)
	if !ok1 || !ok2 {
		return true // equal as far as float64 can tell
	}
	return ra.Cmp(rb) == 0
}

// equal is JSON equality: numbers by value, objects regardless of member order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numEqual(string(x), string(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// hashKey appends a key that equal values share (numbers by their float64 value,
// so values with the same key still need equal to tell them apart).
func hashKey(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if x {
			return append(b, 't')
		}
		return append(b, 'f')
	case string:
		b = append(b, 's')
		b = strconv.AppendInt(b, int64(len(x)), 10)
		b = append(b, ':')
		return append(b, x...)
	case json.Number:
		b = append(b, 'd')
		return strconv.AppendFloat(b, parseFloat(string(x)), 'g', -1, 64)
	case []any:
		b = append(b, '[')
		for _, e := range x {
			b = hashKey(b, e)
			b = append(b, ',')
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b = hashKey(b, k)
			b = hashKey(b, x[k])
		}
		return append(b, '}')
	}
	return append(b, '?')
}
