package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestPgTapTypes: the tap keeps the type of each message longer than
// pgTapFloor, whatever the sizes of the reads that bring the stream.
func TestPgTapTypes(t *testing.T) {
	var stream bytes.Buffer
	msg := func(typ byte, n int) {
		stream.WriteByte(typ)
		binary.Write(&stream, binary.BigEndian, int32(n+4))
		stream.Write(make([]byte, n))
	}
	msg('T', 30)
	msg('D', pgTapFloor+10)
	msg('C', 12)
	msg('E', pgTapFloor+20)
	msg('Z', 1)
	for _, r := range []func() *pgTap{
		func() *pgTap { return &pgTap{r: iotest.OneByteReader(bytes.NewReader(stream.Bytes()))} },
		func() *pgTap { return &pgTap{r: iotest.HalfReader(bytes.NewReader(stream.Bytes()))} },
		func() *pgTap { return &pgTap{r: bytes.NewReader(stream.Bytes())} },
	} {
		tap := r()
		buf := make([]byte, 7000)
		for {
			if _, err := tap.Read(buf); err != nil {
				break
			}
		}
		if tap.typeOf(pgTapFloor+10) != 'D' || tap.typeOf(pgTapFloor+20) != 'E' || tap.typeOf(30) != 0 || tap.nhdr != 0 || tap.skip != 0 {
			t.Errorf("types %q %q %q, state %d %d", tap.typeOf(pgTapFloor+10), tap.typeOf(pgTapFloor+20), tap.typeOf(30), tap.nhdr, tap.skip)
		}
	}
}

// TestPostgresLongErrorMessage: an error message from PostgreSQL longer than
// the bound a byte budget sets (it quotes the long value a cast failed on)
// is an SQL error that says so. Before, it was taken for a row too long for
// the budget: the rows before it came back, truncated, and the error was
// lost (with no rows before it, an empty answer).
func TestPostgresLongErrorMessage(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	lim := Limits{RowLimit: 1000, ByteBudget: 1000, Timeout: 10 * time.Second}
	for _, q := range []string{
		"SELECT CASE WHEN i < 3 THEN 'ok' ELSE (repeat('x', 100000) || i)::int::text END AS v FROM generate_series(1, 5) i",
		"SELECT (repeat('x', 100000))::int AS v",
	} {
		res, err := p.Query(ctx, q, nil, lim)
		var se *SQLError
		if !errors.As(err, &se) || !strings.Contains(se.Message, "PostgreSQL answered with an error message of") {
			t.Errorf("%s: %v %+v, want the SQL error", q, err, res)
		}
	}
	if res, err := p.Query(ctx, "SELECT 1 AS one", nil, testLimits); err != nil || len(res.Rows) != 1 {
		t.Errorf("after: %v", err)
	}
}

// TestPostgresTruncatedRowTypesNamed: when a row past the bound cuts the
// answer, the columns' types pgx does not know are named all the same.
// Before, they stayed "oid 16390".
func TestPostgresTruncatedRowTypesNamed(t *testing.T) {
	p := openTestPG(t)
	execPG(t, "CREATE TYPE shop.zz_mood AS ENUM ('a', 'b')")
	lim := Limits{RowLimit: 10, ByteBudget: 1000, Timeout: 10 * time.Second}
	res, err := p.Query(context.Background(), "SELECT e, x FROM (VALUES (1, 'a'::shop.zz_mood, 'small'), (2, 'b'::shop.zz_mood, repeat('x', 200000))) v(i, e, x) ORDER BY i", nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 2 || res.Columns[0].Type != "zz_mood" || len(res.Rows) != 1 || res.TruncatedBy != "byteBudget" {
		t.Errorf("columns %+v rows %v truncated by %q", res.Columns, res.Rows, res.TruncatedBy)
	}
}
