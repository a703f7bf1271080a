package jschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on one validation, so that a hostile schema (a server's output schema
// reaches a client) cannot hang or overflow it: nested schema evaluations, and
// schema evaluations in all. A reference that comes back to a schema already being
// applied to the same value ({"$ref": "#"}) fails at once.
const (
	maxEvalDepth = 4096
	maxEvalSteps = 2_000_000
)

// state is one validation. The first pass runs with explain off and stops at the
// first failure; only an invalid instance is validated again with explain on, to
// collect every failure with its location.
type state struct {
	dynamic bool
	explain bool
	errs    []Detail
	loc     []string    // instance location (explain only)
	scope   []*resource // dynamic scope (dynamic only)
	depth   int
	steps   int
	// exhausted: a bound was hit, so the verdict is "invalid" for that
	// reason alone (see Schema.Validate).
	exhausted bool
	level     int       // instance nesting depth of the value being evaluated
	active    []refStep // reference targets being applied, innermost last
}

// refStep is a reference target being applied to the value at level.
type refStep struct {
	n     *node
	level int
}

// evaluated is what a schema evaluated of an object or array, for
// unevaluatedProperties and unevaluatedItems. nil means nothing.
type evaluated struct {
	allProps bool
	props    map[string]bool
	items    int // elements [0, items) were evaluated
	allItems bool
	itemSet  map[int]bool // single elements (contains)
}

func (e *evaluated) merge(o *evaluated) *evaluated {
	if o == nil {
		return e
	}
	if e == nil {
		e = &evaluated{}
	}
	e.allProps = e.allProps || o.allProps
	e.allItems = e.allItems || o.allItems
	for k := range o.props {
		if e.props == nil {
			e.props = map[string]bool{}
		}
		e.props[k] = true
	}
	if o.items > e.items {
		e.items = o.items
	}
	for i := range o.itemSet {
		if e.itemSet == nil {
			e.itemSet = map[int]bool{}
		}
		e.itemSet[i] = true
	}
	return e
}

func (e *evaluated) hasProp(k string) bool {
	return e != nil && (e.allProps || e.props[k])
}

func (e *evaluated) hasItem(i int) bool {
	return e != nil && (e.allItems || i < e.items || e.itemSet[i])
}

// fail records a failure at the current location (explain mode).
func (st *state) fail(format string, args ...any) {
	st.errs = append(st.errs, Detail{InstanceLocation: st.location(), Message: fmt.Sprintf(format, args...)})
}

func (st *state) location() string {
	if len(st.loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range st.loc {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

func (st *state) push(tok string) {
	if st.explain {
		st.loc = append(st.loc, tok)
	}
}

func (st *state) pop() {
	if st.explain {
		st.loc = st.loc[:len(st.loc)-1]
	}
}

// child evaluates a member or element of the instance.
func (st *state) child(n *node, v any, tok string) bool {
	st.push(tok)
	st.level++
	ok, _ := st.eval(n, v, false)
	st.level--
	st.pop()
	return ok
}

// follow applies a reference target to the current value, failing when that
// target is already being applied to it (a loop that would never end).
func (st *state) follow(n *node, v any, track bool) (bool, *evaluated) {
	for i := len(st.active) - 1; i >= 0 && st.active[i].level == st.level; i-- {
		if st.active[i].n == n {
			if st.explain {
				st.fail("schema references loop without reaching a value")
			}
			return false, nil
		}
	}
	st.active = append(st.active, refStep{n, st.level})
	ok, ev := st.eval(n, v, track)
	st.active = st.active[:len(st.active)-1]
	return ok, ev
}

// quiet evaluates a subschema whose failure is not itself an error (a branch of
// anyOf, oneOf, not, if).
func (st *state) quiet(n *node, v any, track bool) (bool, *evaluated) {
	explain := st.explain
	st.explain = false
	ok, ev := st.eval(n, v, track)
	st.explain = explain
	return ok, ev
}

// eval validates v against n. With track it also returns what n evaluated of v
// (for the unevaluated* keywords of a schema that applies n in place).
func (st *state) eval(n *node, v any, track bool) (bool, *evaluated) {
	if n.isBool {
		if !n.boolVal {
			if st.explain {
				st.fail("no value is allowed here (false schema)")
			}
			return false, nil
		}
		return true, nil // a boolean schema has no keywords, so it evaluates nothing
	}
	if st.depth >= maxEvalDepth || st.steps >= maxEvalSteps {
		st.exhausted = true
		return false, nil
	}
	st.depth++
	st.steps++
	pushed := st.dynamic && (len(st.scope) == 0 || st.scope[len(st.scope)-1] != n.res)
	if pushed {
		st.scope = append(st.scope, n.res)
	}
	ok, ev := st.evalObject(n, v, track)
	if pushed {
		st.scope = st.scope[:len(st.scope)-1]
	}
	st.depth--
	return ok, ev
}

// evalObject is eval for an object schema.
func (st *state) evalObject(n *node, v any, track bool) (bool, *evaluated) {
	needEv := track || n.unevalProps != nil || n.unevalItems != nil
	var ev *evaluated
	valid := true

	// In-place applicators that refer elsewhere.
	if n.ref != nil {
		ok, e := st.follow(n.ref, v, needEv)
		if !ok {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
		ev = ev.merge(e)
	}
	if n.dynRef != nil {
		ok, e := st.follow(st.dynamicTarget(n.dynRef), v, needEv)
		if !ok {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
		ev = ev.merge(e)
	}

	if n.types != 0 && !typeOK(n.types, v) {
		if !st.explain {
			return false, nil
		}
		valid = false
		st.fail("got %s, want %s", typeName(v), typeNames(n.types))
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			if !st.explain {
				return false, nil
			}
			valid = false
			st.fail("value must be one of %s", brief(n.enum))
		}
	}
	if n.hasConst && !equal(v, n.constV) {
		if !st.explain {
			return false, nil
		}
		valid = false
		st.fail("value must be %s", brief(n.constV))
	}

	switch x := v.(type) {
	case json.Number:
		if !st.number(n, string(x)) {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
	case string:
		if !st.str(n, x) {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
	case []any:
		ok, e := st.array(n, x, needEv)
		if !ok {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
		ev = ev.merge(e)
	case map[string]any:
		ok, e := st.object(n, x, needEv)
		if !ok {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
		ev = ev.merge(e)
	}

	// In-place applicators.
	for _, s := range n.allOf {
		ok, e := st.eval(s, v, needEv)
		if !ok {
			if !st.explain {
				return false, nil
			}
			valid = false
		}
		ev = ev.merge(e)
	}
	if n.anyOf != nil {
		matched := false
		for _, s := range n.anyOf {
			ok, e := st.quiet(s, v, needEv)
			if ok {
				matched = true
				ev = ev.merge(e)
				if !needEv {
					break
				}
			}
		}
		if !matched {
			if !st.explain {
				return false, nil
			}
			valid = false
			st.anyOfFailure(n.anyOf, v)
		}
	}
	if n.oneOf != nil {
		first, second := -1, -1
		var firstEv *evaluated
		for i, s := range n.oneOf {
			ok, e := st.quiet(s, v, needEv)
			if !ok {
				continue
			}
			if first < 0 {
				first, firstEv = i, e
			} else {
				second = i
				break
			}
		}
		switch {
		case first < 0:
			if !st.explain {
				return false, nil
			}
			valid = false
			st.fail("does not match any of the oneOf schemas")
		case second >= 0:
			if !st.explain {
				return false, nil
			}
			valid = false
			st.fail("matches oneOf schemas %d and %d; exactly one must match", first, second)
		default:
			ev = ev.merge(firstEv)
		}
	}
	if n.not != nil {
		if ok, _ := st.quiet(n.not, v, false); ok {
			if !st.explain {
				return false, nil
			}
			valid = false
			st.fail("must not match the \"not\" schema")
		}
	}
	if n.ifS != nil {
		ok, e := st.quiet(n.ifS, v, needEv)
		branch := n.elseS
		if ok {
			ev = ev.merge(e)
			branch = n.thenS
		}
		if branch != nil {
			ok, e := st.eval(branch, v, needEv)
			if !ok {
				if !st.explain {
					return false, nil
				}
				valid = false
			}
			ev = ev.merge(e)
		}
	}
	if len(n.depSchemas) > 0 {
		if obj, isObj := v.(map[string]any); isObj {
			for _, d := range n.depSchemas {
				if _, has := obj[d.name]; !has {
					continue
				}
				ok, e := st.eval(d.schema, v, needEv)
				if !ok {
					if !st.explain {
						return false, nil
					}
					valid = false
				}
				ev = ev.merge(e)
			}
		}
	}

	// unevaluated* see everything above, and only count when it all held.
	if n.unevalItems != nil && valid {
		if arr, ok := v.([]any); ok {
			for i, e := range arr {
				if ev.hasItem(i) {
					continue
				}
				if !st.child(n.unevalItems, e, strconv.Itoa(i)) {
					if !st.explain {
						return false, nil
					}
					valid = false
					if n.unevalItems.isBool {
						st.errs = st.errs[:len(st.errs)-1]
						st.push(strconv.Itoa(i))
						st.fail("unevaluated item not allowed")
						st.pop()
					}
				}
			}
			if ev == nil {
				ev = &evaluated{}
			}
			ev.allItems = true
		}
	}
	if n.unevalProps != nil && valid {
		if obj, ok := v.(map[string]any); ok {
			for _, k := range st.keys(obj) {
				if ev.hasProp(k) {
					continue
				}
				if !st.child(n.unevalProps, obj[k], k) {
					if !st.explain {
						return false, nil
					}
					valid = false
					if n.unevalProps.isBool {
						st.errs = st.errs[:len(st.errs)-1]
						st.fail("unevaluated property %q not allowed", k)
					}
				}
			}
			if ev == nil {
				ev = &evaluated{}
			}
			ev.allProps = true
		}
	}
	if !track {
		ev = nil
	}
	return valid, ev
}

// keys returns the members of obj, sorted when explaining (stable messages).
func (st *state) keys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	if st.explain {
		sort.Strings(keys)
	}
	return keys
}

// anyOfFailure explains a failed anyOf: the branch's own failures when there is
// one branch whose type fits, else one summary.
func (st *state) anyOfFailure(branches []*node, v any) {
	fit := -1
	for i, s := range branches {
		if s.isBool || s.types == 0 || typeOK(s.types, v) {
			if fit >= 0 {
				fit = -2
				break
			}
			fit = i
		}
	}
	if fit >= 0 {
		st.eval(branches[fit], v, false)
		return
	}
	st.fail("does not match any of the anyOf schemas")
}

// dynamicTarget resolves a $dynamicRef or $recursiveRef in the current dynamic scope.
func (st *state) dynamicTarget(d *dynRef) *node {
	switch {
	case d.recursive:
		if !d.static.res.recursive {
			return d.static
		}
		for _, r := range st.scope {
			if r.recursive && r.root != nil {
				return r.root
			}
		}
	case d.anchor != "":
		for _, r := range st.scope {
			if t := r.dynNodes[d.anchor]; t != nil {
				return t
			}
		}
	}
	return d.static
}

func typeOK(bits uint8, v any) bool {
	switch x := v.(type) {
	case nil:
		return bits&typeNull != 0
	case bool:
		return bits&typeBoolean != 0
	case map[string]any:
		return bits&typeObject != 0
	case []any:
		return bits&typeArray != 0
	case string:
		return bits&typeString != 0
	case json.Number:
		return bits&typeNumber != 0 || (bits&typeInteger != 0 && isIntegral(string(x)))
	}
	return false
}

func (st *state) number(n *node, s string) bool {
	ok := true
	if n.multipleOf != nil && !isMultiple(s, n.multipleOf) {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("%s is not a multiple of %s", s, n.multipleOf.text)
	}
	if n.maximum != nil && cmpNum(s, n.maximum) > 0 {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("must be <= %s but found %s", n.maximum.text, s)
	}
	if n.exclusiveMaximum != nil && cmpNum(s, n.exclusiveMaximum) >= 0 {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("must be < %s but found %s", n.exclusiveMaximum.text, s)
	}
	if n.minimum != nil && cmpNum(s, n.minimum) < 0 {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("must be >= %s but found %s", n.minimum.text, s)
	}
	if n.exclusiveMinimum != nil && cmpNum(s, n.exclusiveMinimum) <= 0 {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("must be > %s but found %s", n.exclusiveMinimum.text, s)
	}
	return ok
}

func (st *state) str(n *node, s string) bool {
	ok := true
	if n.maxLength >= 0 || n.minLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.maxLength >= 0 && l > n.maxLength {
			if !st.explain {
				return false
			}
			ok = false
			st.fail("length must be <= %d but found %d", n.maxLength, l)
		}
		if n.minLength >= 0 && l < n.minLength {
			if !st.explain {
				return false
			}
			ok = false
			st.fail("length must be >= %d but found %d", n.minLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("%s does not match pattern %q", brief(s), n.pattern.String())
	}
	if n.format != nil && !n.format(s) {
		if !st.explain {
			return false
		}
		ok = false
		st.fail("%s is not a valid %s", brief(s), n.formatName)
	}
	return ok
}

func (st *state) array(n *node, arr []any, needEv bool) (bool, *evaluated) {
	ok := true
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		if !st.explain {
			return false, nil
		}
		ok = false
		st.fail("must have at most %d items but has %d", n.maxItems, len(arr))
	}
	if n.minItems >= 0 && len(arr) < n.minItems {
		if !st.explain {
			return false, nil
		}
		ok = false
		st.fail("must have at least %d items but has %d", n.minItems, len(arr))
	}
	if n.uniqueItems {
		if i, j := duplicate(arr); i >= 0 {
			if !st.explain {
				return false, nil
			}
			ok = false
			st.fail("items at %d and %d are equal", i, j)
		}
	}
	var ev *evaluated
	for i, s := range n.prefixItems {
		if i >= len(arr) {
			break
		}
		if !st.child(s, arr[i], strconv.Itoa(i)) {
			if !st.explain {
				return false, nil
			}
			ok = false
		}
	}
	if needEv && len(n.prefixItems) > 0 {
		ev = &evaluated{items: min(len(n.prefixItems), len(arr))}
	}
	if n.items != nil {
		for i := len(n.prefixItems); i < len(arr); i++ {
			if !st.child(n.items, arr[i], strconv.Itoa(i)) {
				if !st.explain {
					return false, nil
				}
				ok = false
			}
		}
		if needEv {
			ev = ev.merge(&evaluated{allItems: true})
		}
	}
	if n.contains != nil {
		matches := 0
		var set map[int]bool
		for i, e := range arr {
			st.level++
			m, _ := st.quiet(n.contains, e, false)
			st.level--
			if m {
				matches++
				if needEv && n.draft >= draft2020 {
					if set == nil {
						set = map[int]bool{}
					}
					set[i] = true
				}
			}
		}
		minC := n.minContains
		if n.draft < draft2019 {
			minC = 1
		}
		if matches < minC {
			if !st.explain {
				return false, nil
			}
			ok = false
			if matches == 0 {
				st.fail("no item matches the contains schema")
			} else {
				st.fail("%d items match the contains schema, at least %d must", matches, minC)
			}
		}
		if n.maxContains >= 0 && n.draft >= draft2019 && matches > n.maxContains {
			if !st.explain {
				return false, nil
			}
			ok = false
			st.fail("%d items match the contains schema, at most %d may", matches, n.maxContains)
		}
		if set != nil {
			ev = ev.merge(&evaluated{itemSet: set})
		}
	}
	return ok, ev
}

// duplicate returns the indexes of two equal elements, or -1, -1.
func duplicate(arr []any) (int, int) {
	if len(arr) <= 16 {
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if equal(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string][]int, len(arr))
	var buf []byte
	for j, e := range arr {
		buf = hashKey(buf[:0], e)
		for _, i := range seen[string(buf)] {
			if equal(arr[i], e) {
				return i, j
			}
		}
		seen[string(buf)] = append(seen[string(buf)], j)
	}
	return -1, -1
}

func (st *state) object(n *node, obj map[string]any, needEv bool) (bool, *evaluated) {
	ok := true
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		if !st.explain {
			return false, nil
		}
		ok = false
		st.fail("must have at most %d properties but has %d", n.maxProps, len(obj))
	}
	if n.minProps >= 0 && len(obj) < n.minProps {
		if !st.explain {
			return false, nil
		}
		ok = false
		st.fail("must have at least %d properties but has %d", n.minProps, len(obj))
	}
	for _, r := range n.required {
		if _, has := obj[r]; !has {
			if !st.explain {
				return false, nil
			}
			ok = false
			st.fail("missing property %q", r)
		}
	}
	for _, d := range n.depRequired {
		if _, has := obj[d.name]; !has {
			continue
		}
		for _, r := range d.required {
			if _, has := obj[r]; !has {
				if !st.explain {
					return false, nil
				}
				ok = false
				st.fail("missing property %q (required when %q is present)", r, d.name)
			}
		}
	}
	var ev *evaluated
	if !st.explain && !needEv && n.patternProps == nil && n.additionalProps == nil && n.propertyNames == nil {
		// Only "properties": look the declared names up instead of ranging over
		// the instance.
		for _, p := range n.propList {
			if val, has := obj[p.name]; has {
				st.level++
				good, _ := st.eval(p.schema, val, false)
				st.level--
				if !good {
					return false, nil
				}
			}
		}
		return ok, nil
	}
	if n.props != nil || n.patternProps != nil || n.additionalProps != nil || n.propertyNames != nil {
		if needEv {
			ev = &evaluated{allProps: n.additionalProps != nil}
		}
		check := func(k string, val any) bool {
			matched := false
			if s, has := n.props[k]; has {
				matched = true
				if !st.child(s, val, k) {
					return false
				}
			}
			for _, pp := range n.patternProps {
				if pp.re.MatchString(k) {
					matched = true
					if !st.child(pp.schema, val, k) {
						return false
					}
				}
			}
			if matched && ev != nil && !ev.allProps {
				if ev.props == nil {
					ev.props = map[string]bool{}
				}
				ev.props[k] = true
			}
			if !matched && n.additionalProps != nil && !st.child(n.additionalProps, val, k) {
				if st.explain && n.additionalProps.isBool {
					st.errs = st.errs[:len(st.errs)-1]
					st.fail("additional property %q not allowed", k)
				}
				return false
			}
			if n.propertyNames != nil {
				st.level++
				good, _ := st.quiet(n.propertyNames, k, false)
				st.level--
				if !good {
					if st.explain {
						st.fail("property name %q does not match the propertyNames schema", k)
					}
					return false
				}
			}
			return true
		}
		if st.explain {
			for _, k := range st.keys(obj) {
				if !check(k, obj[k]) {
					ok = false
				}
			}
		} else {
			for k, val := range obj {
				if !check(k, val) {
					return false, nil
				}
			}
		}
	}
	return ok, ev
}

// brief renders a value for a message, shortened.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
