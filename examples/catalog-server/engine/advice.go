package engine

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Shape is what DuckDB's parser makes of a query that failed for want of time or
// memory: what the advice given with the failure is about. It is asked for on
// the error path only (QueryShape), never for a query that ran.
type Shape struct {
	// Aggregates: the query calls an aggregate function (DuckDB's own list:
	// count, sum, avg, …) or groups (GROUP BY).
	Aggregates bool
	// Literals counts the constant values in the query (an IN list, VALUES,
	// a list literal); a text too long to parse counts them roughly (its commas).
	Literals int
	// Rows is a range or generate_series call that makes more than
	// manyRangeRows rows, as written ("range(100000000000)").
	Rows string
	// TextBytes is the query's length when it was too long to parse (over
	// maxShapeText), else 0.
	TextBytes int
}

// maxShapeText is the longest query text QueryShape parses; a longer one is
// judged by its length and commas (DuckDB's syntax tree of 3 MB of literals is
// tens of MB of JSON).
const maxShapeText = 64 << 10

// manyRangeRows is the row count past which a range is named as the cause.
const manyRangeRows = 100_000_000

// shapeTimeout bounds QueryShape's parse.
const shapeTimeout = 2 * time.Second

// shapeParser is an in-memory DuckDB database of its own, with nothing in it,
// that may read no file and whose configuration is locked: its only use is
// json_serialize_sql, which parses and runs nothing of the text, and listing
// DuckDB's aggregate functions once.
var shapeParser = sync.OnceValues(func() (*sql.DB, error) {
	q := url.Values{"threads": {"1"}, "memory_limit": {"64MB"}, "enable_external_access": {"false"},
		"autoinstall_known_extensions": {"false"}, "autoload_known_extensions": {"false"}, "lock_configuration": {"true"}}
	db, err := sql.Open("duckdb", "?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	return db, nil
})

// aggregateNames are DuckDB's aggregate functions, by lower-case name.
var aggregateNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{"count_star": true}
	db, err := shapeParser()
	if err != nil {
		return names
	}
	ctx, cancel := context.WithTimeout(context.Background(), shapeTimeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")
	if err != nil {
		return names
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names[n] = true
		}
	}
	return names
})

// QueryShape returns what DuckDB's parser makes of sqlText, and false when it
// cannot say (the text does not parse as one SELECT, or the parser is not
// available). For the advice given with a failed query only.
func QueryShape(ctx context.Context, sqlText string) (Shape, bool) {
	if len(sqlText) > maxShapeText {
		return Shape{TextBytes: len(sqlText), Literals: strings.Count(sqlText, ",") + 1}, true
	}
	db, err := shapeParser()
	if err != nil {
		return Shape{}, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shapeTimeout)
	defer cancel()
	tree, err := parseTreeOn(ctx, db, sqlText)
	if err != nil || tree["error"] == true {
		return Shape{}, false
	}
	aggs := aggregateNames()
	var s Shape
	eachNode(tree, func(n map[string]any) {
		switch {
		case n["type"] == "SELECT_NODE":
			if g, _ := n["group_expressions"].([]any); len(g) > 0 {
				s.Aggregates = true
			}
		case n["class"] == "CONSTANT":
			s.Literals++
		case n["class"] == "FUNCTION":
			name, _ := n["function_name"].(string)
			name = strings.ToLower(name)
			if aggs[name] {
				s.Aggregates = true
			}
			if (name == "range" || name == "generate_series") && s.Rows == "" {
				if args, rows, ok := rangeRows(n); ok && rows.Cmp(big.NewInt(manyRangeRows)) > 0 {
					s.Rows = name + "(" + args + ")"
				}
			}
		}
	})
	return s, true
}

// rangeRows returns the arguments of a range or generate_series call whose
// arguments are integer constants, as written, and how many rows it makes.
func rangeRows(n map[string]any) (string, *big.Int, bool) {
	ch, _ := n["children"].([]any)
	var args []*big.Int
	var text []string
	for _, c := range ch {
		cn, _ := c.(map[string]any)
		if cn == nil || cn["class"] != "CONSTANT" {
			return "", nil, false
		}
		val, _ := cn["value"].(map[string]any)
		v, ok := new(big.Int).SetString(fmt.Sprint(val["value"]), 10)
		if !ok {
			return "", nil, false
		}
		args = append(args, v)
		text = append(text, v.String())
	}
	start, stop, step := big.NewInt(0), (*big.Int)(nil), big.NewInt(1)
	switch len(args) {
	case 1:
		stop = args[0]
	case 2:
		start, stop = args[0], args[1]
	case 3:
		start, stop, step = args[0], args[1], args[2]
	default:
		return "", nil, false
	}
	if step.Sign() <= 0 {
		return "", nil, false
	}
	rows := new(big.Int).Sub(stop, start)
	rows.Quo(rows, step)
	return strings.Join(text, ", "), rows, true
}

// TimeoutAdvice says what to change in a query of this shape that ran out of
// time, or "" when the shape says nothing particular (the general advice
// stands).
func (s Shape) TimeoutAdvice() string {
	switch {
	case s.Rows != "":
		return fmt.Sprintf("%s alone makes more than %d rows for the query to go through: use a smaller range, or a larger step.", s.Rows, manyRangeRows)
	case s.TextBytes > 0 || s.Literals >= manyLiterals:
		return s.listAdvice()
	case s.Aggregates:
		return "The query already aggregates: it reads too many rows to do it in time. Narrow the rows it reads with WHERE (a shorter time span, fewer keys) before it aggregates, aggregate a smaller source, or check that its joins have conditions (a join without one multiplies rows)."
	}
	return ""
}

// MemoryAdvice says what to change in a query of this shape that needed more
// memory than it may use, or "" when the shape says nothing particular.
func (s Shape) MemoryAdvice() string {
	switch {
	case s.TextBytes > 0 || s.Literals >= manyLiterals:
		return s.listAdvice()
	case s.Rows != "":
		return fmt.Sprintf("%s alone makes more than %d rows for the query to hold: use a smaller range, or a larger step.", s.Rows, manyRangeRows)
	case s.Aggregates:
		return "The query already aggregates: what it holds while doing so is too large (many groups, DISTINCT or ORDER BY over many rows, a join that multiplies rows). Filter with WHERE before it aggregates, group by fewer or coarser columns (date_trunc), or count distinct values with approx_count_distinct."
	}
	return ""
}

// manyLiterals is the count of literal values past which a list is named as the
// cause.
const manyLiterals = 1000

func (s Shape) listAdvice() string {
	what := fmt.Sprintf("The query holds %d literal values", s.Literals)
	switch {
	case s.TextBytes > 0 && s.Literals < manyLiterals:
		// Long, but not for its lists (its commas are few): a chain of
		// conditions, say.
		return fmt.Sprintf("The query's text is %d bytes long: DuckDB parses, plans and holds every part of it. Use a shorter query (split it over several), a condition that selects the same rows (IN or BETWEEN in place of a long chain of AND or OR comparisons, LIKE for a pattern), or a join with a source that holds the values.", s.TextBytes)
	case s.TextBytes > 0:
		what = fmt.Sprintf("The query's text is %d bytes long, with about %d values in lists", s.TextBytes, s.Literals)
	}
	return what + ": DuckDB plans and holds each one. Use a shorter list (split it over several queries), a condition that selects the same rows (BETWEEN for a range of values, LIKE for a pattern), or a join with a source that holds the values."
}
