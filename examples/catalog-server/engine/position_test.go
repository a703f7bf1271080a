package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDuckPositionBeyondFirstLine: an error DuckDB reports on a later line of a
// multi-line query keeps its position (the character offset in the whole
// statement), as one on the first line does — also when DuckDB shows the line cut
// short with "...", and counted in characters, not bytes.
func TestDuckPositionBeyondFirstLine(t *testing.T) {
	d := openTestDuck(t)
	for _, sql := range []string{
		"SELECT name\nFROM items\nWHERE nme = 'x'",
		"SELECT name,\n       nme\nFROM items",
		"SELECT 'é' AS e,\n  'ü' AS u, nme FROM items",
		"SELECT name\nFROM items\nWHERE name <> '" + strings.Repeat("x", 150) + "' AND price > 0 AND nme = 'x' AND id > 0 AND name <> '" + strings.Repeat("y", 150) + "'",
	} {
		_, err := d.Query(context.Background(), sql, nil, testLimits)
		var se *SQLError
		want := utf8.RuneCountInString(sql[:strings.Index(sql, "nme")]) + 1
		if !errors.As(err, &se) || se.Position != want {
			t.Errorf("%q: position %d, want %d (%v)", sql, positionOf(se), want, err)
		}
	}
}

func positionOf(se *SQLError) int {
	if se == nil {
		return -1
	}
	return se.Position
}
