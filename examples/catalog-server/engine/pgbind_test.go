package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPgBind: each distinct @name becomes $n in order of first use, a repeat
// the same $n; @ in strings, quoted names, comments, dollar quotes and
// operators ending in @ stays; positions map back to the SQL as given.
func TestPgBind(t *testing.T) {
	sql := "SELECT @a, 'x@b', \"@b\", $q$ @b $q$, /* @b */ tags <@ARRAY['a'], @bb, @a -- @b\n, é=@bb"
	b := pgBind(sql, map[string]any{"a": 1, "bb": "two", "b": 3})
	want := "SELECT $1, 'x@b', \"@b\", $q$ @b $q$, /* @b */ tags <@ARRAY['a'], $2, $1 -- @b\n, é=$2"
	if b.text != want {
		t.Errorf("text:\n%s\nwant\n%s", b.text, want)
	}
	if !slices.Equal(b.names, []string{"a", "bb"}) || !slices.Equal(b.args, []any{1, "two"}) {
		t.Errorf("names %q args %v", b.names, b.args)
	}
	// Each character of the text run maps to the one it came from, and a
	// character of $n to its @name's @ (positions in characters, from 1).
	orig, run := []rune(sql), []rune(b.text)
	for _, tc := range []struct{ run, orig string }{{"$2, $1", "@bb, @a"}, {", é=$2", ", é=@bb"}, {"'x@b'", "'x@b'"}, {"ARRAY", "ARRAY"}} {
		r := strings.Index(b.text, tc.run)
		o := strings.Index(sql, tc.orig)
		r, o = len([]rune(b.text[:r]))+1, len([]rune(sql[:o]))+1
		if got := b.position(r); got != o {
			t.Errorf("position of %q: %d (%q), want %d", tc.run, got, string(orig[got-1:]), o)
		}
		if got := b.position(r + 1); tc.run[0] == '$' && got != o {
			t.Errorf("inside %q: %d, want %d", tc.run, got, o)
		}
	}
	if got := b.position(len(run) + 1); got != len(orig)+1 {
		t.Errorf("past the end: %d, want %d", got, len(orig)+1)
	}
	if got := b.message(`syntax error at or near "$2"; could not determine data type of parameter $1; parameter $3`); got != `syntax error at or near "@bb"; could not determine data type of parameter @a; parameter $3` {
		t.Errorf("message: %s", got)
	}
}

// TestPostgresPositionalParams: a query's @name parameters are bound by
// position, so PostgreSQL's <@ and @@ written before a name stay operators in
// a query with parameters; a repeated parameter is one value; an @name in a
// string, a comment or a dollar quote is text; an error's position and message
// are about the SQL as given.
func TestPostgresPositionalParams(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	lim := Limits{RowLimit: 100, ByteBudget: 1 << 20, Timeout: 10 * time.Second}
	res, err := p.Query(ctx, `SELECT sku FROM stock
WHERE ARRAY[left(sku, 3)] <@ARRAY['sku', @other]
  AND to_tsvector('simple', replace(sku, '-', ' ')) @@to_tsquery('simple', @word)
  AND qty BETWEEN @min AND @min + 3
  AND '@min' = '@' || 'min' -- @nope
  AND $d$@nope$d$ <> /* @nope */ ''
ORDER BY sku`, map[string]any{"other": "x", "word": "7", "min": 18}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != "sku-7" {
		t.Errorf("rows: %v", res.Rows)
	}
	// An error after placeholders: its position is the author's.
	sql := "SELECT sku FROM stock WHERE qty > @min AND @label = sku AND qtty > @min"
	_, err = p.Query(ctx, sql, map[string]any{"min": 1, "label": "a"}, lim)
	var se *SQLError
	if want := strings.Index(sql, "qtty") + 1; !errors.As(err, &se) || se.Position != want || !strings.Contains(se.Message, `"qtty"`) {
		t.Errorf("position: %v, want %d", err, want)
	}
	// A syntax error near a parameter, at the gate: named as written.
	sql = "SELECT sku FROM stock WHERE qty > 1 @min"
	_, err = p.Query(ctx, sql, map[string]any{"min": 1}, lim)
	if want := strings.Index(sql, "@min") + 1; !errors.As(err, &se) || se.Position != want || !strings.Contains(se.Message, `"@min"`) || strings.Contains(se.Message, "$1") {
		t.Errorf("syntax error: %v, want position %d", err, want)
	}
	// A parameter whose type PostgreSQL cannot tell: named as written.
	_, err = p.Query(ctx, "SELECT sku FROM stock WHERE @a IS NULL", map[string]any{"a": 1}, lim)
	if !errors.As(err, &se) || !strings.Contains(se.Message, "parameter @a") {
		t.Errorf("unknown type: %v", err)
	}
	// A parameter named as a keyword: $n is one token to PostgreSQL.
	res, err = p.Query(ctx, "SELECT count(*) AS n FROM stock WHERE qty < (CAST(@limit AS integer))", map[string]any{"limit": 10}, lim)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("keyword name: %v %+v", err, res)
	}
	// Ad-hoc SQL (no parameters) runs as written: @ is PostgreSQL's.
	res, err = p.Query(ctx, "SELECT @q.x AS a FROM (SELECT -5 AS x) q", nil, lim)
	if err != nil || res.Rows[0][0] != int32(5) {
		t.Errorf("absolute value: %v %+v", err, res)
	}
}
