package engine

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestDuckPositionBeyondFirstLine: an error DuckDB reports on a later line of a
// multi-line query keeps its position (the character offset in the whole
// statement), as one on the first line does — also when DuckDB shows the line cut
// short with "...", and counted in characters, not bytes, nor the columns on
// screen DuckDB places its caret by (a tab none, a CJK character or an emoji two).
func TestDuckPositionBeyondFirstLine(t *testing.T) {
	d := openTestDuck(t)
	for _, sql := range []string{
		"SELECT name\nFROM items\nWHERE nme = 'x'",
		"SELECT name,\n       nme\nFROM items",
		"SELECT 'é' AS e,\n  'ü' AS u, nme FROM items",
		"\tSELECT\tnme\tFROM\titems",
		"SELECT name,\n\t\tnme\nFROM items",
		"SELECT 'é', 'ü', '日本語', nme FROM items",
		"SELECT '😀😀', nme FROM items",
		"SELECT 1 AS x,\n  '日本' AS y, nme FROM items",
		"SELECT 'e\u0301', '\u200b', 'ｱ', '👍🏽', nme FROM items",
		"SELECT name\nFROM items\nWHERE name <> '日本" + strings.Repeat("x", 150) + "' AND price > 0 AND nme = 'x' AND id > 0 AND name <> '" + strings.Repeat("y", 150) + "'",
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

// TestDuckBusy: a query that cannot get one of the model's connections within its
// time limit (all held by other queries) is told the server is busy, not that it
// ran too long; once a connection is free, queries run again.
func TestDuckBusy(t *testing.T) {
	d := openTestDuck(t)
	ctx := context.Background()
	var held []*sql.Conn
	for range duckMaxConns {
		c, err := d.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	_, err := d.Query(ctx, "SELECT count(*) FROM items", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 200 * time.Millisecond})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("with every connection held: %v", err)
	}
	// A query that gets a connection late in its time limit and then runs out of
	// it is told it waited most of the limit for a connection, not only that it
	// ran too long.
	go func() { time.Sleep(700 * time.Millisecond); held[0].Close() }()
	_, err = d.Query(ctx, "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: time.Second})
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Busy() || te.Waited < 600*time.Millisecond || !strings.Contains(err.Error(), "waiting for a connection") {
		t.Fatalf("started late, then out of time: %v (%+v)", err, te)
	}
	if res, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits); err != nil || res.Rows[0][0] != int64(3) {
		t.Fatalf("after one connection was freed: %v %+v", err, res)
	}
	for _, c := range held[1:] {
		c.Close()
	}
}
