package catalog

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseModel reads a model file. A model is a sequence of blocks; each block is a run
// of "--" comment lines holding one annotation, followed by one SQL statement:
//
//	-- Sales of the web shop.                    (a first comment run without an
//	                                             annotation describes the model)
//	-- Orders placed in the shop, one per row.
//	-- @source orders
//	SELECT * FROM 'data/orders.csv';
//
//	-- Revenue per month of one year.
//	-- @query revenue_by_month
//	-- @param year INTEGER the calendar year
//	SELECT month(ordered_at) AS month, sum(amount) AS revenue
//	FROM orders WHERE year(ordered_at) = $year GROUP BY 1 ORDER BY 1;
//
// The other comment lines of a run are the object's description. A source's SQL is a
// SELECT whose file paths are relative to the package folder; a query's SQL reads the
// model's sources by name and its parameters as $name (DuckDB) or @name (PostgreSQL).
// The statement itself is judged by the engine when the model is opened.
func ParseModel(text string) (*Model, error) {
	m := &Model{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	type block struct {
		kind, name string
		desc       []string
		params     []Param
		body       []string
		line       int
		first      int // the file's line of body[0]
	}
	var blocks []*block
	var cur *block
	var pendingComments []string
	sawCode := false
	seen := map[string]int{}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "--") {
			// Gather the whole comment run.
			run := []string{}
			j := i
			for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "--"); j++ {
				run = append(run, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[j]), "--")))
			}
			hasAnn := false
			for _, r := range run {
				if strings.HasPrefix(r, "@source") || strings.HasPrefix(r, "@query") {
					hasAnn = true
				}
			}
			if !hasAnn {
				if cur != nil {
					// A comment inside a statement belongs to the statement.
					if len(cur.body) == 0 {
						cur.first = i + 1
					}
					cur.body = append(cur.body, lines[i:j]...)
				} else if !sawCode {
					pendingComments = append(pendingComments, run...)
				}
				i = j - 1
				continue
			}
			b := &block{line: i + 1}
			for k, r := range run {
				switch {
				case strings.HasPrefix(r, "@source ") || strings.HasPrefix(r, "@query "):
					if b.kind != "" {
						return nil, fmt.Errorf("line %d: two annotations in one comment block; put a statement between them", i+k+1)
					}
					kind, rest, _ := strings.Cut(r, " ")
					b.kind, b.name = kind[1:], strings.TrimSpace(rest)
					if !sqlIdent.MatchString(b.name) {
						return nil, fmt.Errorf("line %d: %s name %q must match %s", i+k+1, b.kind, b.name, sqlIdent)
					}
					if prev, ok := seen[b.name]; ok {
						return nil, fmt.Errorf("line %d: the name %q is already used on line %d", i+k+1, b.name, prev)
					}
					seen[b.name] = i + k + 1
				case r == "@source" || r == "@query":
					return nil, fmt.Errorf("line %d: want \"%s NAME\"", i+k+1, r)
				case r == "@param" || strings.HasPrefix(r, "@param "):
					decl := strings.TrimSpace(strings.TrimPrefix(r, "@param"))
					name, rest := decl, ""
					if k := strings.IndexAny(decl, " \t"); k >= 0 {
						name, rest = decl[:k], decl[k:]
					}
					typ, desc, ok := paramType(rest)
					if !sqlIdent.MatchString(name) || !ok {
						return nil, fmt.Errorf("line %d: want \"@param NAME TYPE [description]\"", i+k+1)
					}
					for _, p := range b.params {
						if p.Name == name {
							return nil, fmt.Errorf("line %d: the parameter %q is declared twice in one @query block", i+k+1, name)
						}
					}
					b.params = append(b.params, Param{Name: name, Type: typ, Description: desc})
				case strings.HasPrefix(r, "@"):
					return nil, fmt.Errorf("line %d: unknown annotation %q (want @source, @query or @param)", i+k+1, strings.Fields(r)[0])
				default:
					if r != "" {
						b.desc = append(b.desc, r)
					}
				}
			}
			if b.kind == "" {
				return nil, fmt.Errorf("line %d: @param outside a @query block", i+1)
			}
			if b.kind == "source" && len(b.params) > 0 {
				return nil, fmt.Errorf("line %d: a source takes no parameters", i+1)
			}
			if cur == nil && len(blocks) == 0 && len(pendingComments) > 0 {
				m.Description = joinDesc(pendingComments)
			}
			blocks = append(blocks, b)
			cur = b
			i = j - 1
			continue
		}
		if line != "" {
			sawCode = true
			if cur == nil {
				return nil, fmt.Errorf("line %d: SQL before any @source or @query annotation", i+1)
			}
		}
		if cur != nil {
			if len(cur.body) == 0 {
				cur.first = i + 1
			}
			cur.body = append(cur.body, lines[i])
		}
	}
	for _, b := range blocks {
		joined := strings.Join(b.body, "\n")
		sql := strings.TrimSpace(joined)
		sql = strings.TrimSpace(strings.TrimSuffix(sql, ";"))
		if sql == "" {
			return nil, fmt.Errorf("line %d: %s %q has no SQL", b.line, b.kind, b.name)
		}
		line, col := startOf(joined, b.first)
		switch b.kind {
		case "source":
			m.Sources = append(m.Sources, &Source{Name: b.name, Description: joinDesc(b.desc), SQL: sql, Line: line, Col: col})
		case "query":
			m.Queries = append(m.Queries, &Query{Name: b.name, Description: joinDesc(b.desc), SQL: sql, Params: b.params, Line: line, Col: col})
		}
	}
	if len(m.Sources) == 0 {
		return nil, fmt.Errorf("no @source: a model defines at least one source")
	}
	return m, nil
}

// startOf returns the line and column (1-based) in the file of the first
// character of text that is not a space, text starting at the file's line first.
func startOf(text string, first int) (line, col int) {
	lead := text[:len(text)-len(strings.TrimLeftFunc(text, unicode.IsSpace))]
	nl := strings.LastIndexByte(lead, '\n')
	return first + strings.Count(lead, "\n"), utf8.RuneCountInString(lead[nl+1:]) + 1
}

func joinDesc(lines []string) string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// paramType splits what follows a parameter's name on an @param line into its
// type and its description. The type is a name (letters, digits and _; or
// names joined by dots, double-quoted ones too: public.mood), with what its
// parentheses hold if it has any (DECIMAL(10, 2), STRUCT(a INTEGER), ENUM('a',
// 'b'); after white space, only a precision: DECIMAL (10, 2)), the words of
// SQL's longer type names after it (timestamp with time zone, time without time
// zone, double precision, character varying(20), bit varying, an interval's
// fields: interval day to second(3), interval hour), and list
// brackets ([], [3]); the rest is the description, after a comma or a colon if
// one follows the type. The type is kept as written, runs of white space made
// one space (none before a list's brackets).
func paramType(rest string) (typ, desc string, ok bool) {
	s := strings.TrimSpace(rest)
	i := 0
	word := func() string {
		j := i
		for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > i && s[j] >= '0' && s[j] <= '9') {
			j++
		}
		w := s[i:j]
		return w
	}
	skipSpace := func(k int) int {
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		return k
	}
	// parens reads a parenthesised part at s[k] (quotes inside may hold
	// parentheses), returning the index after it, or -1.
	parens := func(k int) int {
		depth := 0
		for ; k < len(s); k++ {
			switch s[k] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					return k + 1
				}
			case '\'', '"':
				q := s[k]
				for k++; k < len(s) && s[k] != q; k++ {
				}
				if k == len(s) {
					return -1
				}
			}
		}
		return -1
	}
	// The name: words or double-quoted names joined by dots (public.mood,
	// "Mood"), as PostgreSQL names a type of its own.
	first := ""
	for {
		if i < len(s) && s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return "", "", false
			}
			first += s[i : i+end+2]
			i += end + 2
		} else {
			w := word()
			if w == "" {
				return "", "", false
			}
			first += w
			i += len(w)
		}
		if i+1 < len(s) && s[i] == '.' && (s[i+1] == '"' || s[i+1] == '_' || s[i+1] >= 'a' && s[i+1] <= 'z' || s[i+1] >= 'A' && s[i+1] <= 'Z') {
			first += "."
			i++
			continue
		}
		break
	}
	// What its parentheses hold: anything right after the name (STRUCT(a
	// INTEGER)), only a precision after white space (DECIMAL (10, 2); "INTEGER
	// (how many)" is an INTEGER and a description).
	afterName := i
	if i < len(s) && s[i] == '(' {
		end := parens(i)
		if end < 0 {
			return "", "", false
		}
		i = end
	} else if k := skipSpace(i); k < len(s) && s[k] == '(' && takesPrecision[strings.ToUpper(first)] {
		if m := precision.FindString(s[k:]); m != "" {
			i = k + len(m)
		}
	}
	// The longer names' further words, each after white space.
	next := func(want ...string) bool {
		k := i
		for _, w := range want {
			k2 := skipSpace(k)
			if k2 == k || !strings.HasPrefix(strings.ToUpper(s[k2:]), w) {
				return false
			}
			k = k2 + len(w)
			if k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9') {
				return false
			}
		}
		i = k
		return true
	}
	switch strings.ToUpper(first) {
	case "TIMESTAMP", "TIME":
		_ = next("WITH", "TIME", "ZONE") || next("WITHOUT", "TIME", "ZONE")
	case "DOUBLE":
		next("PRECISION")
	case "INTERVAL":
		// PostgreSQL's fields, when no precision follows INTERVAL: INTERVAL
		// DAY TO SECOND(3), INTERVAL HOUR TO MINUTE, INTERVAL YEAR.
		if i != afterName {
			break
		}
		for _, to := range [][]string{{"YEAR", "TO", "MONTH"}, {"DAY", "TO", "HOUR"}, {"DAY", "TO", "MINUTE"}, {"DAY", "TO", "SECOND"}, {"HOUR", "TO", "MINUTE"}, {"HOUR", "TO", "SECOND"}, {"MINUTE", "TO", "SECOND"}, {"YEAR"}, {"MONTH"}, {"DAY"}, {"HOUR"}, {"MINUTE"}, {"SECOND"}} {
			if next(to...) {
				if to[len(to)-1] == "SECOND" {
					if m := secondsPrecision.FindString(s[i:]); m != "" {
						i += len(m)
					}
				}
				break
			}
		}
	case "CHARACTER", "CHAR", "BIT":
		if next("VARYING") {
			if k := skipSpace(i); k < len(s) && s[k] == '(' {
				if m := precision.FindString(s[k:]); m != "" {
					i = k + len(m)
				}
			}
		}
	}
	// List brackets: [] or [n] ("INTEGER [1-100] how many" is an INTEGER).
	for {
		m := listBrackets.FindString(s[i:])
		if m == "" {
			break
		}
		i += len(m)
	}
	typ = strings.ReplaceAll(strings.Join(strings.Fields(s[:i]), " "), " [", "[")
	rest = s[i:]
	if r, ok := strings.CutPrefix(rest, ","); ok {
		rest = r // INTEGER, the id
	} else if r, ok := strings.CutPrefix(rest, ":"); ok {
		rest = r
	} else if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false // the type runs into other text: DECIMAL(5,2)x
	}
	return typ, strings.TrimSpace(rest), true
}

// takesPrecision are the types whose precision may follow their name after
// white space (DECIMAL (10, 2)); after another type, "(10) rows" is a
// description.
var takesPrecision = map[string]bool{
	"DECIMAL": true, "NUMERIC": true, "DEC": true, "VARCHAR": true, "CHAR": true, "CHARACTER": true,
	"BPCHAR": true, "BIT": true, "VARBIT": true, "FLOAT": true, "TIME": true, "TIMETZ": true,
	"TIMESTAMP": true, "TIMESTAMPTZ": true, "INTERVAL": true,
}

var (
	// precision is a type's precision after white space: (10), (10, 2).
	precision = regexp.MustCompile(`^\(\s*\d+\s*(?:,\s*\d+\s*)?\)`)
	// secondsPrecision is the precision of an INTERVAL's SECOND field, right
	// after it or after white space: SECOND(3), SECOND (3).
	secondsPrecision = regexp.MustCompile(`^[ \t]*\(\s*\d+\s*\)`)
	// listBrackets are a list type's brackets: [] or [n] right after the type,
	// or [] after white space ("INTEGER [1] see note" is an INTEGER).
	listBrackets = regexp.MustCompile(`^(?:\[\d*\]|[ \t]+\[\])`)
)
