package catalog

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Placeholder is a named parameter a query's SQL uses.
type Placeholder struct {
	Name string // without its sign
	Pos  int    // 1-based character offset of its sign in the SQL
}

// Placeholders returns the named parameters sql uses, each once (at its first
// use), in order: $name in DuckDB, @name in PostgreSQL (as pgx's named
// arguments read them), outside strings ('…', E'…'), quoted names, comments
// (nested block comments too) and dollar-quoted strings ($tag$…$tag$). A
// name starts with a letter or _, then letters, digits and _.
func Placeholders(sql, engine string) []Placeholder {
	sign := byte('$')
	if engine == EnginePostgres {
		sign = '@'
	}
	var out []Placeholder
	seen := map[string]bool{}
	isStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' }
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			rest, ok := afterBlockComment(sql[i:])
			if !ok {
				return out
			}
			i = len(sql) - len(rest)
		case c == '\'' || c == '"':
			// E'…' strings take backslash escapes.
			esc := c == '\'' && i > 0 && (sql[i-1] == 'e' || sql[i-1] == 'E') && (i == 1 || !isPart(sql[i-2]))
			j := i + 1
			for j < len(sql) {
				if esc && sql[j] == '\\' {
					j += 2
					continue
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c { // a doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case c == '$' && (i == 0 || !isPart(sql[i-1])):
			// A dollar quote: $$ or $tag$.
			j := i + 1
			for j < len(sql) && isPart(sql[j]) {
				j++
			}
			if j < len(sql) && sql[j] == '$' && (j == i+1 || isStart(sql[i+1])) {
				tag := sql[i : j+1]
				k := strings.Index(sql[j+1:], tag)
				if k < 0 {
					return out
				}
				i = j + 1 + k + len(tag)
				continue
			}
			if sign == '$' && i+1 < len(sql) && isStart(sql[i+1]) {
				name := sql[i+1 : j]
				if !seen[name] {
					seen[name] = true
					out = append(out, Placeholder{Name: name, Pos: utf8.RuneCountInString(sql[:i]) + 1})
				}
				i = j
				continue
			}
			i++
		case c == sign && sign == '@' && i+1 < len(sql) && isStart(sql[i+1]):
			j := i + 1
			for j < len(sql) && isPart(sql[j]) {
				j++
			}
			name := sql[i+1 : j]
			if !seen[name] {
				seen[name] = true
				out = append(out, Placeholder{Name: name, Pos: utf8.RuneCountInString(sql[:i]) + 1})
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// afterBlockComment returns s after the block comment it starts with (block
// comments nest), and false when it does not close.
func afterBlockComment(s string) (string, bool) {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return s[i+1:], true
			}
		}
	}
	return "", false
}

// ParamProblems compares the parameters q declares with the placeholders its
// SQL uses (names, as given by the engine's parser, or by Placeholders), and
// says what does not match: a parameter used and not declared, one declared
// and never used, in a package of engine. Positions (1-based characters of
// q.SQL) give the file's line and column.
func ParamProblems(q *Query, used []Placeholder, engine string) []string {
	var out []string
	sign := ParamSign(engine)
	declared := map[string]bool{}
	for _, p := range q.Params {
		declared[p.Name] = true
	}
	inSQL := map[string]bool{}
	for _, u := range used {
		inSQL[u.Name] = true
		if declared[u.Name] {
			continue
		}
		at := ""
		if l, c := FilePosition(q.SQL, q.Line, q.Col, u.Pos); l > 0 {
			at = fmt.Sprintf(" (line %d, column %d)", l, c)
		}
		if q.Notebook != nil {
			out = append(out, fmt.Sprintf("the SQL uses the parameter %s%s%s, but a notebook cell takes no parameters: write the value into the cell, or make it a named query of a model", sign, u.Name, at))
			continue
		}
		out = append(out, fmt.Sprintf("the SQL uses the parameter %s%s%s, which no @param line declares, so no call can run it: add \"-- @param %s TYPE\" to its block, or take it out of the SQL", sign, u.Name, at, u.Name))
	}
	for _, p := range q.Params {
		if !inSQL[p.Name] {
			// The server binds only the parameters the SQL uses (DuckDB refuses
			// a value the statement does not use), on both engines.
			effect := "calls must give a value that is ignored"
			out = append(out, fmt.Sprintf("@param %s is declared but the SQL never uses %s%s, so %s: use it in the SQL, or remove the @param line", p.Name, sign, p.Name, effect))
		}
	}
	return out
}

// ParamSign is how parameters are written in the SQL of a package of engine.
func ParamSign(engine string) string {
	if engine == EnginePostgres {
		return "@"
	}
	return "$"
}
