package engine

import "strings"

// pivotNoInReason is the refusal's reason for one statement with a PIVOT that
// has no IN list: DuckDB's parser turns it into a statement that reads the
// pivot column's distinct values (CREATE TYPE … AS ENUM (SELECT DISTINCT …))
// followed by the query, so the text is no longer one SELECT. With the values
// listed, the same PIVOT is one query, inside a SELECT or as a statement of
// its own.
const pivotNoInReason = "DuckDB runs a PIVOT without an IN list as two statements (it reads the pivot column's distinct values first), which a query here cannot be; list the values: ON col IN (…)"

// pivotExpanded reports whether sqlText, which DuckDB's parser reads as more
// than one statement or as one that is not a SELECT, is one statement with a
// PIVOT in it that DuckDB expanded: it holds the word PIVOT (or PIVOT_WIDER),
// starts as a query does, and has no semicolon but ones followed only by
// spaces, comments and more semicolons. It only chooses the refusal's reason.
func pivotExpanded(sqlText string) bool {
	words := sqlWords(sqlText)
	if !words["PIVOT"] && !words["PIVOT_WIDER"] {
		return false
	}
	switch firstWord(sqlText) {
	case "SELECT", "FROM", "VALUES", "PIVOT", "PIVOT_WIDER":
	case "WITH":
		// WITH … DELETE (or another statement after the WITH) is that statement.
		for w := range writeWords {
			if words[w] {
				return false
			}
		}
	default:
		return false
	}
	i := strings.IndexByte(sqlText, ';')
	if i < 0 {
		return true
	}
	for rest, n := sqlText[i:], 0; n < len(sqlText); n++ {
		rest = skipSpaceAndComments(rest)
		if rest == "" {
			return true
		}
		if rest[0] != ';' {
			return false
		}
		rest = rest[1:]
	}
	return false
}

// sqlWords returns the runs of letters, digits and underscores in sqlText,
// upper-cased (strings and comments too: it only chooses a message).
func sqlWords(sqlText string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(sqlText, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		words[strings.ToUpper(w)] = true
	}
	return words
}
