package uritemplate

import "strings"

// searchBudget is the work a split search may do per byte of the URI and per
// expression of the template: it stops (no match) after
// max(searchMinSteps, searchBudget × (len(uri)+1) × (number of expressions))
// units, a unit being one place where a value may end (or one option of an
// optional expression), one byte compared or re-encoded at a later place of a
// variable, or one byte of the URI for each complete split checked. Each unit
// takes a time bounded by the template's size, so Match's time for a template
// with repeated variables is at most linear in that product, whatever the URI.
const (
	searchBudget   = 8
	searchMinSteps = 4096 // so that short URIs of intricate templates are read
)

// searchStats is what one split search spent; tests read it.
type searchStats struct {
	steps, limit int
	gaveUp       bool // the budget ran out before a split was found
}

// splitSearch backtracks over the splits of a URI for a template that uses a
// variable more than once, which a regular expression cannot check (Go's
// regexp has no backreferences). It reads the parts before the query in the
// order a backtracking regular expression would (earlier values as long as
// they can be, an optional expression present before absent), taking for each
// value only the characters Expand writes for its operator (as the loose pass
// does). At a later place of a variable it takes exactly the text Expand writes
// there for the value the first place gave, or nothing when the first place did
// not have it. The query string is read as the passes read it. The first
// complete split whose values give the URI back is the one.
type splitSearch struct {
	t       *Template
	m       *matcher
	uri     string
	empties bool // a {var} or {+var} may be empty
	lead    byte // the query string's first character, 0 without a query part
	runs    [2][]int
	idx     []int
	bound   []binding // by the variable's index in t.vars
	result  map[string]string
	searchStats
}

// binding is what the first place of a variable gave in the split being tried.
type binding struct {
	state    int8 // unbound, present or absent
	raw      string
	reserved bool   // raw was read in a '+' or '#' expression
	other    string // the value as the other kind of expression writes it
	hasOther bool
}

const (
	unbound int8 = iota
	present
	absent
)

// search returns the first split of uri whose values are consistent and expand
// to uri, within the budget. empties lets a {var} or {+var} value be empty,
// once no split without such an empty value gave uri back (as Match tries the
// empty patterns after the others); the two searches share the budget.
func (t *Template) search(uri string, empties bool) (map[string]string, bool, searchStats) {
	m := t.m
	exprs := 0
	for _, p := range t.parts {
		if p.expr != nil {
			exprs++
		}
	}
	s := &splitSearch{
		t: t, m: m, uri: uri,
		idx:   make([]int, 2*(len(m.groups)+1)),
		bound: make([]binding, len(t.vars)),
	}
	s.limit = max(searchMinSteps, searchBudget*(len(uri)+1)*max(exprs, 1))
	if m.tail > 0 {
		s.idx = append(s.idx, -1, -1)
		s.lead = '?'
		if t.parts[m.end].expr.op == opQueryCnt {
			s.lead = '&'
		}
	}
	s.idx[0], s.idx[1] = 0, len(uri)
	s.part(0, 0, 0)
	if s.result == nil && !s.gaveUp && empties {
		s.empties = true
		s.part(0, 0, 0)
	}
	return s.result, s.result != nil, s.searchStats
}

// spend counts n units of work and reports whether the budget is spent.
func (s *splitSearch) spend(n int) bool {
	s.steps += n
	if s.steps > s.limit {
		s.gaveUp = true
	}
	return s.gaveUp
}

// run returns, for each position of the URI, where the longest value an
// expression of that kind may hold that starts there ends: unreserved
// characters and upper-case triplets of the other bytes, and for '+' and '#'
// also the reserved characters and every upper-case triplet.
func (s *splitSearch) run(reserved bool) []int {
	k := 0
	if reserved {
		k = 1
	}
	if s.runs[k] == nil {
		u := s.uri
		r := make([]int, len(u)+1)
		r[len(u)] = len(u)
		for p := len(u) - 1; p >= 0; p-- {
			c := u[p]
			switch {
			case isUnreserved(c) || reserved && isReserved(c):
				r[p] = r[p+1]
			case c == '%' && p+2 < len(u) && isUpperHex(u[p+1]) && isUpperHex(u[p+2]) &&
				(reserved || !isUnreserved(unhex(u[p+1])<<4|unhex(u[p+2]))):
				r[p] = r[p+3]
			default:
				r[p] = p
			}
		}
		s.runs[k] = r
	}
	return s.runs[k]
}

func isUpperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

// part reads the parts from pi on at pos; gi is the capture group of the next
// variable.
func (s *splitSearch) part(pi, gi, pos int) bool {
	if s.spend(1) {
		return false
	}
	if pi == s.m.end {
		return s.finish(pos)
	}
	p := s.t.parts[pi]
	if p.expr == nil {
		if !strings.HasPrefix(s.uri[pos:], p.lit) {
			return false
		}
		return s.part(pi+1, gi, pos+len(p.lit))
	}
	return s.expr(pi, 0, gi, pos)
}

// expr reads variable vi of the expression parts[pi] and what follows.
func (s *splitSearch) expr(pi, vi, gi, pos int) bool {
	e := s.t.parts[pi].expr
	if vi == len(e.vars) {
		return s.part(pi+1, gi, pos)
	}
	op := e.op
	name := e.vars[vi].name
	id := s.m.ids[gi]
	next := func(end int) bool { return s.expr(pi, vi+1, gi+1, end) }
	switch op {
	case opSimple, opReserved:
		if vi > 0 {
			if !strings.HasPrefix(s.uri[pos:], ",") {
				return false
			}
			pos++
		}
		minLen := 1
		if s.empties {
			minLen = 0
		}
		return s.value(gi, id, op.allowReserved, pos, pos, minLen, next)
	case opParam:
		b := &s.bound[id]
		at := pos + 1 + len(name)
		if (b.state == unbound || b.state == present) && strings.HasPrefix(s.uri[pos:], ";"+name) {
			// ";name=value", then ";name" for an empty value.
			if b.state == unbound || b.raw != "" {
				if strings.HasPrefix(s.uri[at:], "=") && s.value(gi, id, false, at+1, at, 1, next) {
					return true
				}
				if s.gaveUp {
					return false
				}
			}
			if b.state == unbound || b.raw == "" {
				if s.spend(1) {
					return false
				}
				undo := s.bind(id, present, "", false)
				s.idx[2*gi+2], s.idx[2*gi+3] = at, at
				if next(at) {
					return true
				}
				undo()
				if s.gaveUp {
					return false
				}
			}
		}
		if b.state == present || s.spend(1) {
			return false
		}
		undo := s.bind(id, absent, "", false)
		s.idx[2*gi+2], s.idx[2*gi+3] = -1, -1
		if next(pos) {
			return true
		}
		undo()
		return false
	default: // '.', '/', '#': present (at any length), then this and the later ones absent
		lead := op.sep
		if vi == 0 {
			lead = op.first
		}
		if s.bound[id].state != absent && strings.HasPrefix(s.uri[pos:], lead) {
			at := pos + len(lead)
			if s.value(gi, id, op.allowReserved, at, at, 0, next) {
				return true
			}
			if s.gaveUp {
				return false
			}
		}
		if s.spend(1) {
			return false
		}
		var undos []func()
		defer func() {
			for _, u := range undos {
				u()
			}
		}()
		for j := vi; j < len(e.vars); j++ {
			g := gi + j - vi
			jid := s.m.ids[g]
			switch s.bound[jid].state {
			case present:
				return false
			case unbound:
				undos = append(undos, s.bind(jid, absent, "", false))
			}
			s.idx[2*g+2], s.idx[2*g+3] = -1, -1
		}
		if s.part(pi+1, gi+len(e.vars)-vi, pos) {
			undos = nil // keep the bindings of the split found
			return true
		}
		return false
	}
}

// value reads the value of capture group gi (variable id) starting at start,
// the group starting at groupStart, at least minLen bytes long, and goes on
// with next at its end.
func (s *splitSearch) value(gi, id int, reserved bool, start, groupStart, minLen int, next func(int) bool) bool {
	b := &s.bound[id]
	switch b.state {
	case absent:
		return false
	case present:
		want := s.text(b, reserved)
		if len(want) < minLen || len(want) > len(s.uri)-start || s.spend(1+len(want)) ||
			s.uri[start:start+len(want)] != want {
			return false
		}
		end := start + len(want)
		s.idx[2*gi+2], s.idx[2*gi+3] = groupStart, end
		return next(end)
	}
	run := s.run(reserved)[start]
	for end := run; end >= start+minLen; end-- {
		if end > start && (s.uri[end-1] == '%' || end-2 >= start && s.uri[end-2] == '%') {
			continue // inside a triplet
		}
		if s.spend(1) {
			return false
		}
		undo := s.bind(id, present, s.uri[start:end], reserved)
		s.idx[2*gi+2], s.idx[2*gi+3] = groupStart, end
		if next(end) {
			return true
		}
		undo()
		if s.gaveUp {
			return false
		}
	}
	return false
}

// bind records the first place of a variable and returns what undoes it. A
// variable an earlier place bound keeps that binding (nothing to undo).
func (s *splitSearch) bind(id int, state int8, raw string, reserved bool) func() {
	if s.bound[id].state != unbound {
		return func() {}
	}
	s.bound[id] = binding{state: state, raw: raw, reserved: reserved}
	return func() { s.bound[id] = binding{} }
}

// text is how Expand writes the bound value in an expression of the given kind.
func (s *splitSearch) text(b *binding, reserved bool) string {
	if reserved == b.reserved {
		// Both places must hold what Expand writes for the same value.
		return b.raw
	}
	if !b.hasOther {
		s.spend(len(b.raw))
		v, ok := unescape(b.raw, b.reserved)
		if !ok {
			v = ""
		}
		var sb strings.Builder
		encode(&sb, v, reserved)
		b.other, b.hasOther = sb.String(), true
	}
	return b.other
}

// finish reads the query string, if any, from pos and checks the split.
func (s *splitSearch) finish(pos int) bool {
	if s.spend(len(s.uri) + 1) {
		return false
	}
	rest := s.uri[pos:]
	if t := s.m.tail; t > 0 {
		s.idx[2*t], s.idx[2*t+1] = -1, -1
		if rest != "" {
			if rest[0] != s.lead || strings.IndexByte(rest, '#') >= 0 {
				return false
			}
			s.idx[2*t], s.idx[2*t+1] = pos, len(s.uri)
		}
	} else if rest != "" {
		return false
	}
	if v, ok := s.m.values(s.uri, s.idx); ok && s.t.givesBack(v, s.uri) {
		s.result = v
		return true
	}
	return false
}
