package catalog

import (
	"fmt"
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
					f := strings.Fields(strings.TrimPrefix(r, "@param"))
					if len(f) < 2 || !sqlIdent.MatchString(f[0]) {
						return nil, fmt.Errorf("line %d: want \"@param NAME TYPE [description]\"", i+k+1)
					}
					b.params = append(b.params, Param{Name: f[0], Type: strings.ToUpper(f[1]), Description: strings.Join(f[2:], " ")})
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
