package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestDuckPositionBeyondFirstLine: an error DuckDB reports on a later line of a
// multi-line query keeps its position (the character offset in the whole
// statement), as one on the first line does — also when DuckDB shows the line cut
// short with "...", and counted in characters, not bytes, nor the columns on
// screen DuckDB places its caret by (a tab none, a CJK character or an emoji two),
// nor its grapheme clusters, each as wide as its first character (a flag's two
// regional indicators one column, a Hangul syllable of jamo two, a letter and its
// spacing mark one, an emoji family joined by ZWJ two, an Indic conjunct one);
// a "\r" alone or "\r\n" ends a line, as DuckDB counts lines. In the server's
// process and in a query process.
func TestDuckPositionBeyondFirstLine(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{})
	for _, sql := range []string{
		"SELECT '🇫🇷' AS a, nosuch FROM items",
		"SELECT '🇫🇷🇩🇪🇫' AS a,\n  '🇯🇵' AS b, nosuch FROM items",
		"SELECT '\u1100\u1161\u11a8', '\u1100\u1161', '한', '\u115f', 'a\u1161', nosuch FROM items",
		"SELECT 1,\n  'क्षि', 'का', 'क्\u200dष', 'ก\u0e33', nosuch FROM items",
		"SELECT '👨\u200d👩\u200d👧', '🏳\ufe0f\u200d🌈', 'a\u200db', '❤\ufe0f', nosuch FROM items",
		"SELECT 'x\u0308\u0308', '\t\u0301', '\u00ad', nosuch FROM items",
		"SELECT 1 AS a,\r  '🇫🇷' AS b, nosuch FROM items",
		"SELECT 1 AS a,\r\n  '👨\u200d👩\u200d👧' AS b,\r\n nosuch FROM items",
		"SELECT name\nFROM items\nWHERE name <> '" + strings.Repeat("🇫🇷क्षि", 30) + "' AND nme = 'x' AND name <> '" + strings.Repeat("👨\u200d👩\u200d👧", 30) + "'",
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
		at := strings.Index(sql, "nme")
		if at < 0 {
			at = strings.Index(sql, "nosuch")
		}
		want := utf8.RuneCountInString(sql[:at]) + 1
		for _, e := range []struct {
			name string
			q    querier
		}{{"in process", d}, {"query process", p}} {
			_, err := e.q.Query(context.Background(), sql, nil, testLimits)
			var se *SQLError
			if !errors.As(err, &se) || se.Position != want {
				t.Errorf("%s: %q: position %d, want %d (%v)", e.name, sql, positionOf(se), want, err)
			}
		}
	}
}

// TestDuckGraphemes: clusters as DuckDB's utf8proc makes them, and the columns
// DuckDB puts its caret at after them.
func TestDuckGraphemes(t *testing.T) {
	for s, want := range map[string][]string{
		"🇫🇷🇩🇪🇫":               {"🇫🇷", "🇩🇪", "🇫"},
		"\u1100\u1161\u11a8x": {"\u1100\u1161\u11a8", "x"},
		"क्षि का":             {"क्षि", " ", "का"},
		"क्ष्म":               {"क्ष्म"},
		"क्":                  {"क्"},
		"क्a":                 {"क्", "a"},
		"a्क":                 {"a्", "क"},
		"👨\u200d👩\u200d👧!":    {"👨\u200d👩\u200d👧", "!"},
		"\t\u0301":            {"\t", "\u0301"},
	} {
		if got := duckGraphemes(s); !slices.Equal(got, want) {
			t.Errorf("%+q: %+q, want %+q", s, got, want)
		}
	}
	// The column after each text DuckDB showed its caret at (TestDuckPositionBeyondFirstLine).
	for s, col := range map[string]int{"🇫🇷": 1, "🇫🇷🇩🇪": 2, "\u1100\u1161\u11a8": 2, "क्षि": 1, "\u0915\u093e": 1,
		"👨\u200d👩\u200d👧": 2, "👍🏽": 2, "\u200b": 0, "a\u200db": 2, "🏳\ufe0f\u200d🌈": 1, "ｱ": 1, "\u0e01\u0e33": 1} {
		if n, ok := caretRunes(s+"x", col); !ok || n != utf8.RuneCountInString(s) {
			t.Errorf("%+q then x at column %d: character %d, %v", s, col, n, ok)
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
	for range duckMaxConns { // every connection's turn held, as by running queries
		if err := d.slots.acquire(ctx, "other", nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.Query(ctx, "SELECT count(*) FROM items", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 200 * time.Millisecond})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("with every connection held: %v", err)
	}
	// A query that gets a connection late in its time limit and then runs out of
	// it is told it waited most of the limit for a connection, not only that it
	// ran too long.
	go func() { time.Sleep(700 * time.Millisecond); d.slots.release() }()
	_, err = d.Query(ctx, "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: time.Second})
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Busy() || te.Waited < 600*time.Millisecond || !strings.Contains(err.Error(), "waiting its turn: this model runs 8 queries at once, and other queries of it held them all") {
		t.Fatalf("started late, then out of time: %v (%+v)", err, te)
	}
	if res, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits); err != nil || res.Rows[0][0] != int64(3) {
		t.Fatalf("after one connection was freed: %v %+v", err, res)
	}
	for range duckMaxConns - 1 {
		d.slots.release()
	}
}
