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
// use), in order, as PlaceholderSpans finds them.
func Placeholders(sql, engine string) []Placeholder {
	var out []Placeholder
	seen := map[string]bool{}
	for _, sp := range PlaceholderSpans(sql, engine) {
		if !seen[sp.Name] {
			seen[sp.Name] = true
			out = append(out, Placeholder{Name: sp.Name, Pos: utf8.RuneCountInString(sql[:sp.Start]) + 1})
		}
	}
	return out
}

// Span is a named placeholder in SQL text: the bytes [Start, End) of sql, and
// its name without its sign.
type Span struct {
	Start, End int
	Name       string
}

// PlaceholderSpans returns every use of a named placeholder in sql, in order:
// $name in DuckDB, @name in PostgreSQL, outside strings ('…', E'…' with
// backslash escapes, dollar-quoted $tag$…$tag$), quoted names and comments (--
// and /* */, which nest). A name starts with an ASCII letter or _, then ASCII
// letters, digits and _ ($1 and ? are not named). On PostgreSQL an @name whose
// @ ends one of PostgreSQL's built-in operators ending in @ (pgOperatorBefore)
// is that operator before a name, whether or not the SQL has parameters:
// tags <@ARRAY['a'], tsv @@to_tsquery('a'). This is the one reading of
// placeholders: binding values (the PostgreSQL engine puts $1, $2, … in their
// place), casting them and the checks when a model loads all use it.
func PlaceholderSpans(sqlText, engine string) []Span {
	named, _ := Spans(sqlText, engine)
	return named
}

// PositionalSpans returns every positional placeholder ($1, $2, …) in sql,
// outside strings, quoted names and comments as PlaceholderSpans reads them, each
// with its digits as Name. A named query or notebook cell may hold none: no call
// gives a value by position, and on PostgreSQL the server's own $1, $2, … (one
// per @name) would take their place.
func PositionalSpans(sqlText, engine string) []Span {
	_, positional := Spans(sqlText, engine)
	return positional
}

// Spans reads sqlText once for both PlaceholderSpans (out) and PositionalSpans
// (positional), for a caller that needs both.
func Spans(sqlText, engine string) (out, positional []Span) {
	return lex(sqlText, engine, nil)
}

// CodeOnly returns sqlText with its string literals ('…', E'…' with backslash
// escapes, dollar-quoted $tag$…$tag$) and comments (-- to the line's end,
// /* */, which nest) blanked out, read as Spans reads them: each of their
// bytes a space but a line break, so every offset of the text stays. What is
// left is what the SQL calls and names, not what it quotes; a quoted name
// ("…") is a name, and stays. One not closed runs to the end.
func CodeOnly(sqlText, engine string) string {
	b := []byte(sqlText)
	lex(sqlText, engine, func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' && b[k] != '\r' {
				b[k] = ' '
			}
		}
	})
	return string(b)
}

// lex reads sqlText for Spans, and gives literal (when not nil) the bytes
// [from, to) of each string literal and comment.
func lex(sqlText, engine string, literal func(from, to int)) (out, positional []Span) {
	skipped := func(from, to int) int {
		if literal != nil {
			literal(from, to)
		}
		return to
	}
	sigil := byte('$')
	if engine == EnginePostgres {
		sigil = '@'
	}
	n := len(sqlText)
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
	identStart := func(c byte) bool { return letter(c) || c >= 0x80 }
	identCont := func(c byte) bool { return identStart(c) || isDigit(c) || c == '$' }
	// quoted returns the offset after the string or name opened by q at i (the
	// end of the text when it is not closed).
	quoted := func(i int, q byte, backslash bool) int {
		for j := i + 1; j < n; j++ {
			switch c := sqlText[j]; {
			case c == '\\' && backslash:
				j++
			case c == q:
				if j+1 < n && sqlText[j+1] == q {
					j++
					continue
				}
				return j + 1
			}
		}
		return n
	}
	for i := 0; i < n; {
		c := sqlText[i]
		switch {
		case (c == 'e' || c == 'E') && i+1 < n && sqlText[i+1] == '\'':
			i = skipped(i, quoted(i+1, '\'', true))
		case c == '\'':
			i = skipped(i, quoted(i, c, false))
		case c == '"':
			i = quoted(i, c, false)
		case c == '-' && i+1 < n && sqlText[i+1] == '-':
			j := strings.IndexAny(sqlText[i:], "\n\r")
			if j < 0 {
				skipped(i, n)
				return out, positional
			}
			i = skipped(i, i+j)
		case c == '/' && i+1 < n && sqlText[i+1] == '*':
			depth, j := 0, i
			for j < n {
				switch {
				case strings.HasPrefix(sqlText[j:], "/*"):
					depth++
					j += 2
				case strings.HasPrefix(sqlText[j:], "*/"):
					depth--
					j += 2
				default:
					j++
				}
				if depth == 0 {
					break
				}
			}
			i = skipped(i, min(j, n))
		case identStart(c):
			// A name (a $ or @ inside it starts nothing), taken whole.
			i++
			for i < n && identCont(sqlText[i]) {
				i++
			}
		case c == '$':
			// $tag$…$tag$ (the tag may be empty, and starts with no digit).
			j := i + 1
			if j < n && identStart(sqlText[j]) {
				for j < n && (identStart(sqlText[j]) || isDigit(sqlText[j])) {
					j++
				}
			}
			if j < n && sqlText[j] == '$' {
				tag := sqlText[i : j+1]
				end := n
				if k := strings.Index(sqlText[j+1:], tag); k >= 0 {
					end = j + 1 + k + len(tag)
				}
				i = skipped(i, end)
				continue
			}
			if sigil == '$' && j > i+1 && asciiName(sqlText[i+1:j]) {
				out = append(out, Span{i, j, sqlText[i+1 : j]})
			}
			if j == i+1 && j < n && isDigit(sqlText[j]) {
				for j < n && isDigit(sqlText[j]) {
					j++
				}
				positional = append(positional, Span{i, j, sqlText[i+1 : j]})
			}
			i = max(j, i+1)
		case c == '@' && sigil == '@' && i+1 < n && letter(sqlText[i+1]):
			j := i + 1
			for j < n && (letter(sqlText[j]) || isDigit(sqlText[j])) {
				j++
			}
			if !pgOperatorBefore(sqlText[:i]) {
				out = append(out, Span{i, j, sqlText[i+1 : j]})
			}
			i = j
		default:
			i++
		}
	}
	return out, positional
}

// pgOperatorBefore reports whether an @ right after before ends one of the
// operators PostgreSQL (15, without extensions) defines whose name ends in @,
// so that the @ and the name after it are that operator and a name, not a
// parameter: <@ (contained by), @@ and @@@ (text search match; an @@ before
// a name is also the centre of a box), ^@ (starts with) and @-@ (length). So
// the @ follows <, @ or ^, or the two characters @-.
//
// PostgreSQL's lexer reads every run of operator characters as one operator,
// so =@x, -@x or ||@x would be the operators =@, -@ and ||@, which do not
// exist: there the @name is a parameter (as $1 it is one token apart from
// the operator before it), the reading an author who leaves out a space
// means. A run ending in another operator ending in @ (tags <<@x, a ^@@x) is
// read as the operator too: PostgreSQL refuses it as an operator that does
// not exist, and the author writes a space before the @name.
func pgOperatorBefore(before string) bool {
	if before == "" {
		return false
	}
	switch before[len(before)-1] {
	case '<', '@', '^':
		return true
	}
	return strings.HasSuffix(before, "@-")
}

// asciiName reports whether s is a name of ASCII letters, digits and _ (a
// parameter's name can be no other), starting with no digit.
func asciiName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// ParamProblems compares the parameters q declares with the placeholders its
// SQL uses (names, as given by the engine's parser, or by Placeholders), and
// says what does not match: a parameter used and not declared, one declared
// and never used, in a package of engine. Positions (1-based characters of
// q.SQL) give the file's line and column.
//
// On DuckDB names are compared as DuckDB compares them, without regard to
// case: $ab is the parameter declared Ab (ParamKey). Two parameters whose
// names differ only in case are told by ParamCaseClash.
func ParamProblems(q *Query, used []Placeholder, engine string) []string {
	var out []string
	sign := ParamSign(engine)
	declared := map[string]bool{}
	for _, p := range q.Params {
		declared[ParamKey(p.Name, engine)] = true
	}
	inSQL := map[string]bool{}
	for _, u := range used {
		inSQL[ParamKey(u.Name, engine)] = true
		if declared[ParamKey(u.Name, engine)] {
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
	if engine == EnginePostgres {
		// DuckDB's own prepare names these when the model loads.
		for _, sp := range PositionalSpans(q.SQL, engine) {
			at := ""
			if l, c := FilePosition(q.SQL, q.Line, q.Col, utf8.RuneCountInString(q.SQL[:sp.Start])+1); l > 0 {
				at = fmt.Sprintf(" (line %d, column %d)", l, c)
			}
			out = append(out, fmt.Sprintf("the SQL uses the positional placeholder $%s%s, which no call can give a value (values are given by name), so every call is refused: name it (@name in the SQL) and declare it with an @param line", sp.Name, at))
		}
	}
	for _, p := range q.Params {
		if !inSQL[ParamKey(p.Name, engine)] {
			// The server binds only the parameters the SQL uses (DuckDB refuses
			// a value the statement does not use), on both engines.
			effect := "calls must give a value that is ignored"
			msg := fmt.Sprintf("@param %s is declared but the SQL never uses %s%s, so %s: use it in the SQL, or remove the @param line", p.Name, sign, p.Name, effect)
			if engine == EnginePostgres {
				if op := operatorGlued(q.SQL, p.Name); op != "" {
					msg += fmt.Sprintf(" (the SQL has %s%s, which is PostgreSQL's operator %s before the name %s; for the parameter write a space before it: %s @%s)", op, p.Name, op, p.Name, op[:len(op)-1], p.Name)
				}
			}
			out = append(out, msg)
		}
	}
	return out
}

// operatorGlued returns the operator ending in @ (<@, @@, ^@, @-@) that sqlText
// writes right before the name, as in "id<@lim", or "" when there is none. It is a
// hint for a declared parameter the SQL seems not to use, so it does not skip
// strings and comments.
func operatorGlued(sqlText, name string) string {
	for i := 0; ; {
		k := strings.Index(sqlText[i:], "@"+name)
		if k < 0 {
			return ""
		}
		at := i + k
		end := at + 1 + len(name)
		i = at + 1
		if end < len(sqlText) {
			if c := sqlText[end]; c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
				continue // a longer name
			}
		}
		if at >= 2 && sqlText[at-2:at] == "@-" {
			return "@-@"
		}
		if at >= 1 {
			switch c := sqlText[at-1]; c {
			case '<', '@', '^':
				return string(c) + "@"
			}
		}
	}
}

// ParamSign is how parameters are written in the SQL of a package of engine.
func ParamSign(engine string) string {
	if engine == EnginePostgres {
		return "@"
	}
	return "$"
}

// ParamKey is the parameter name as the engine tells names apart: DuckDB
// compares them without regard to case ($Ab and $AB are one parameter),
// PostgreSQL's @name as the server binds it exactly.
func ParamKey(name, engine string) string {
	if engine == EnginePostgres {
		return name
	}
	return strings.ToLower(name)
}

// ParamCaseClash returns the first two parameters q declares whose names differ
// only in case, in a package of engine DuckDB (which reads $Ab and $AB as one
// parameter, bound to one value: the value of one would reach the other's
// uses, cast to the other's type), and ok false when there are none or the
// engine is PostgreSQL (whose @Ab and @AB the server binds apart).
func ParamCaseClash(q *Query, engine string) (a, b Param, ok bool) {
	if engine == EnginePostgres {
		return Param{}, Param{}, false
	}
	seen := map[string]Param{}
	for _, p := range q.Params {
		k := ParamKey(p.Name, engine)
		if first, dup := seen[k]; dup {
			return first, p, true
		}
		seen[k] = p
	}
	return Param{}, Param{}, false
}

// CaseClashProblem says what is wrong with a query that declares the
// parameters a and b, whose names differ only in case (ParamCaseClash), for
// the check when the model loads.
func CaseClashProblem(a, b Param) string {
	return fmt.Sprintf("@param %s and @param %s differ only in case, and DuckDB reads $%s and $%s as one parameter, so no call can run the query: rename one of them (in its @param line and where the SQL uses it)", a.Name, b.Name, a.Name, b.Name)
}
