package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
)

// wireRowsCases are rows of the values the engines hand a rowAppender: every
// JSON kind, text JSON escapes (HTML characters, control characters, invalid
// UTF-8, U+2028), JSON the engine passes through (json.RawMessage, compacted
// by Marshal), numbers past 2^53, and rows of no value.
var wireRowsCases = [][]any{
	{int64(1), int64(-9007199254740993), 0.1, math.MaxFloat64, true, nil},
	{"plain", "<a href=\"x\">&amp;</a>", "tab\tnew\nline\x01", "bad \xff utf-8", "line\u2028sep", "ü€😀"},
	{json.RawMessage(` { "b" : [1, 2.50, "x"] , "a":null } `), json.RawMessage(`12345678901234567890`)},
	{[]any{int64(1), "two", []any{}}, map[string]any{"z": int64(1), "a": []any{nil, 2.5}, "<": ">"}},
	{new(big.Int).Lsh(big.NewInt(1), 100), time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC).Format(time.RFC3339Nano)},
	{},
	{""},
	{int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)},
}

// TestRowAppenderCountsMarshal: a row counts against the byte budget as the
// bytes json.Marshal writes for it and a newline, though the appender encodes
// its values one by one; and with keep, the values' JSON it keeps is
// json.Marshal's of each value.
func TestRowAppenderCountsMarshal(t *testing.T) {
	for _, keep := range []bool{false, true} {
		a := rowAppender{lim: Limits{RowLimit: 1000, ByteBudget: math.MaxInt}, res: newResult(Limits{}), keep: keep}
		want := 0
		for _, row := range wireRowsCases {
			b, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			want += len(b) + 1
			if more, err := a.add(row); !more || err != nil {
				t.Fatalf("add %v: %v %v", row, more, err)
			}
			if a.bytes != want {
				t.Fatalf("keep %v: after %v counted %d bytes, json.Marshal %d", keep, row, a.bytes, want)
			}
		}
		if (a.res.wire != nil) != keep {
			t.Fatalf("keep %v: kept %v", keep, a.res.wire)
		}
	}
	// Nil, which Marshal writes as null.
	a := rowAppender{lim: Limits{RowLimit: 10, ByteBudget: 100}, res: newResult(Limits{})}
	a.add(nil)
	if a.bytes != len("null\n") {
		t.Errorf("a nil row counted %d bytes", a.bytes)
	}
	// An unsupported value fails the row as Marshal fails it.
	_, want := json.Marshal([]any{math.Inf(1)})
	if _, err := a.add([]any{math.Inf(1)}); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("an infinity: %v, json.Marshal: %v", err, want)
	}
}

// TestRowAppenderBudgetExact: a row that fits the budget exactly is kept, one
// byte more is not (and, with keep, leaves no trace of its values).
func TestRowAppenderBudgetExact(t *testing.T) {
	row := []any{int64(12), "ab"} // [12,"ab"] and a newline: 10 bytes
	for _, keep := range []bool{false, true} {
		for budget, rows := range map[int]int{19: 1, 20: 2, 29: 2, 30: 3} {
			a := rowAppender{lim: Limits{RowLimit: 1000, ByteBudget: budget}, res: newResult(Limits{}), keep: keep}
			for {
				if more, err := a.add(row); err != nil || !more {
					break
				}
			}
			if len(a.res.Rows) != rows || a.res.TruncatedBy != "byteBudget" {
				t.Errorf("keep %v budget %d: %d rows, truncated by %q; want %d", keep, budget, len(a.res.Rows), a.res.TruncatedBy, rows)
			}
			if keep {
				if w := a.res.wire; w.rows != rows || len(w.cells) != rows*len(`12"ab"`) {
					t.Errorf("budget %d: kept %d rows, %q", budget, w.rows, w.cells)
				}
			}
		}
	}
}

// answerRoundTrip writes ans's frame and reads it back as the server does.
func answerRoundTrip(t *testing.T, ans workerAnswer) workerAnswer {
	t.Helper()
	frame, err := appendAnswer([]byte("prefix"), ans)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(frame, []byte("prefix")) {
		t.Fatal("appendAnswer lost what it appended to")
	}
	r := bufio.NewReader(bytes.NewReader(frame[len("prefix"):]))
	rep, err := readAnswer(r, func() (int64, int64) { return 1 << 20, 1 << 20 })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("readAnswer left bytes of the frame")
	}
	return rep
}

// TestAnswerFrame: a result crosses the frame with every value the JSON
// json.Marshal writes for it, whether the rows came through a rowAppender
// with keep (a query process) or not; the rest of the result, OK and errors
// cross as they are.
func TestAnswerFrame(t *testing.T) {
	res := newResult(Limits{RowLimit: 1000, ByteBudget: 1 << 20})
	res.Columns = []Column{{Name: "a", Type: "BIGINT"}, {Name: "<b>", Type: "VARCHAR"}}
	res.Truncated, res.TruncatedBy, res.ElapsedMs = true, "rowLimit", 1.5
	kept := *res
	a := rowAppender{lim: Limits{RowLimit: 1000, ByteBudget: math.MaxInt}, res: &kept, keep: true}
	for _, row := range wireRowsCases {
		a.add(row)
	}
	plain := *res
	plain.Rows = wireRowsCases
	plain.RowCount = len(plain.Rows)
	want, _ := json.Marshal(&plain)
	for name, r := range map[string]*Result{"kept": &kept, "not kept": &plain} {
		r.RowCount = len(r.Rows)
		if r.wire == nil != (name == "not kept") {
			t.Fatalf("%s: wire %v", name, r.wire)
		}
		rep := answerRoundTrip(t, workerAnswer{Result: r})
		if rep.Result == nil || rep.Error != nil || rep.OK {
			t.Fatalf("%s: %+v", name, rep)
		}
		for _, row := range rep.Result.Rows {
			for _, v := range row {
				if _, ok := v.(*json.RawMessage); !ok {
					t.Fatalf("%s: a value of type %T", name, v)
				}
			}
		}
		rep.Result.RowCount = len(rep.Result.Rows)
		got, _ := json.Marshal(rep.Result)
		if string(got) != string(want) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
	}
	empty := newResult(Limits{RowLimit: 5, ByteBudget: 5})
	rep := answerRoundTrip(t, workerAnswer{Result: empty})
	if got, _ := json.Marshal(rep.Result); !strings.Contains(string(got), `"rows":[]`) {
		t.Errorf("no rows: %s", got)
	}
	if rep := answerRoundTrip(t, workerAnswer{OK: true}); !rep.OK || rep.Result != nil || rep.Error != nil {
		t.Errorf("ok: %+v", rep)
	}
	we := toWire(&SQLError{Engine: "duckdb", Message: "no such column \"nme\"", Position: 8})
	if rep := answerRoundTrip(t, workerAnswer{Error: we}); rep.Error == nil || *rep.Error != *we {
		t.Errorf("error: %+v", rep.Error)
	}
}

// TestReadAnswerRefuses: a frame past the limits, cut short, or whose rows do
// not add up is an error (the worker is taken as broken), never a panic or a
// result.
func TestReadAnswerRefuses(t *testing.T) {
	res := newResult(Limits{RowLimit: 10, ByteBudget: 100})
	res.Columns = []Column{{Name: "a", Type: "INTEGER"}}
	a := rowAppender{lim: Limits{RowLimit: 10, ByteBudget: 100}, res: res, keep: true}
	a.add([]any{int64(12)})
	a.add([]any{"x"})
	good, err := appendAnswer(nil, workerAnswer{Result: res})
	if err != nil {
		t.Fatal(err)
	}
	read := func(frame []byte, maxHead, maxBody int64) error {
		_, err := readAnswer(bytes.NewReader(frame), func() (int64, int64) { return maxHead, maxBody })
		return err
	}
	if err := read(good, 1<<20, 1<<20); err != nil {
		t.Fatal(err)
	}
	headLen := int(binary.BigEndian.Uint32(good))
	bodyLen := len(good) - frameLens - headLen
	if err := read(good, int64(headLen)-1, 1<<20); err == nil {
		t.Error("a head past the limit was read")
	}
	if err := read(good, 1<<20, int64(bodyLen)-1); err == nil {
		t.Error("a body past the limit was read")
	}
	for n := range len(good) {
		if err := read(good[:n], 1<<20, 1<<20); err == nil {
			t.Errorf("a frame cut to %d bytes was read", n)
		}
	}
	body := good[frameLens+headLen:]
	for name, b := range map[string][]byte{
		"more rows than lengths":   append([]byte{9, 1, 1}, body[2:]...),
		"a value past the body":    {1, 2, 1, 9, 'x'},
		"bytes past the values":    {1, 2, 1, 1, 'x', 'y'},
		"lengths past the rows":    {1, 3, 1, 1, 1, 'x'},
		"no rows but lengths":      {0, 1, 1},
		"a length that is no uvar": {1, 2, 1, 0xff},
	} {
		frame := binary.BigEndian.AppendUint32(nil, uint32(headLen))
		frame = binary.BigEndian.AppendUint32(frame, uint32(len(b)))
		frame = append(frame, good[frameLens:frameLens+headLen]...)
		if err := read(append(frame, b...), 1<<20, 1<<20); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	// Rows without a result.
	ok, _ := appendAnswer(nil, workerAnswer{OK: true})
	binary.BigEndian.PutUint32(ok[4:], 1)
	if err := read(append(ok, 0), 1<<20, 1<<20); err == nil {
		t.Error("rows without a result were read")
	}
}

// FuzzReadAnswer: whatever a worker writes, reading it ends in an answer or
// an error, and an answer's values are slices of what was written.
func FuzzReadAnswer(f *testing.F) {
	res := newResult(Limits{RowLimit: 10, ByteBudget: 100})
	a := rowAppender{lim: Limits{RowLimit: 10, ByteBudget: 100}, res: res, keep: true}
	a.add([]any{int64(12), "x"})
	good, _ := appendAnswer(nil, workerAnswer{Result: res})
	f.Add(good)
	ok, _ := appendAnswer(nil, workerAnswer{OK: true})
	f.Add(ok)
	f.Fuzz(func(t *testing.T, frame []byte) {
		rep, err := readAnswer(bytes.NewReader(frame), func() (int64, int64) { return 1 << 16, 1 << 16 })
		if err != nil || rep.Result == nil {
			return
		}
		for _, row := range rep.Result.Rows {
			for _, v := range row {
				if !bytes.Contains(frame, *v.(*json.RawMessage)) {
					t.Fatalf("a value %q not in the frame", v)
				}
			}
		}
	})
}
