package engine

import (
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"
	"weak"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// pgTap reads a connection's stream from PostgreSQL as its frontend does and
// keeps the type and length of the last pgTapKept messages longer than
// pgTapFloor: pgproto3's ExceededMaxBodyLenErr gives a message's length, not
// its type, and only a row (DataRow) past the bound is a byte-budget
// truncation; an error message quoting a long value is an error.
type pgTap struct {
	r io.Reader
	// Read's state (one reader at a time: pgconn's): the header bytes read
	// so far, and the bytes of the current message's body still to skip.
	hdr  [5]byte
	nhdr int
	skip int

	mu   sync.Mutex
	long [pgTapKept]pgTapMsg // a ring, next the oldest
	next int
}

type pgTapMsg struct {
	typ byte
	n   int // body length
}

// pgTapFloor is the length past which a message is kept: the bound is never
// below it (pgMaxMessage(0)).
const pgTapFloor = 64 << 10

// pgTapKept is how many long messages a connection's tap keeps: the frontend
// stops at the first one past the bound, which its read-ahead has just seen.
const pgTapKept = 8

func (t *pgTap) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	for p := b[:n]; len(p) > 0; {
		if t.skip > 0 {
			d := min(t.skip, len(p))
			t.skip -= d
			p = p[d:]
			continue
		}
		c := copy(t.hdr[t.nhdr:], p)
		t.nhdr += c
		p = p[c:]
		if t.nhdr < len(t.hdr) {
			break
		}
		t.nhdr = 0
		body := int(int32(binary.BigEndian.Uint32(t.hdr[1:]))) - 4
		if body > pgTapFloor {
			t.mu.Lock()
			t.long[t.next] = pgTapMsg{t.hdr[0], body}
			t.next = (t.next + 1) % pgTapKept
			t.mu.Unlock()
		}
		t.skip = max(body, 0)
	}
	return n, err
}

// typeOf returns the type of the latest kept message whose body is n bytes
// long, or 0.
func (t *pgTap) typeOf(n int) byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range pgTapKept {
		if m := t.long[(t.next-1-i+2*pgTapKept)%pgTapKept]; m.n == n {
			return m.typ
		}
	}
	return 0
}

// pgTaps finds a frontend's tap; an entry goes when its frontend is
// collected, so a connection that failed while it started leaves nothing.
var pgTaps sync.Map // weak.Pointer[pgproto3.Frontend] → *pgTap

// newTappedFrontend is the model connections' pgconn.BuildFrontendFunc: the
// frontend pgconn builds, reading through a pgTap.
func newTappedFrontend(r io.Reader, w io.Writer) *pgproto3.Frontend {
	t := &pgTap{r: r}
	f := pgproto3.NewFrontend(t, w)
	k := weak.Make(f)
	pgTaps.Store(k, t)
	runtime.AddCleanup(f, func(k weak.Pointer[pgproto3.Frontend]) { pgTaps.Delete(k) }, k)
	return f
}

// tappedType returns the type of the message of n bytes that conn's frontend
// refused to read, or 0 when it is not known.
func tappedType(conn *pgconn.PgConn, n int) byte {
	if t, ok := pgTaps.Load(weak.Make(conn.Frontend())); ok {
		return t.(*pgTap).typeOf(n)
	}
	return 0
}

// pgTooLong is the error for a message from PostgreSQL of type typ (0: not
// known) past the bound a query's byte budget sets (pgMaxMessage), other
// than a row.
func pgTooLong(typ byte, e *pgproto3.ExceededMaxBodyLenErr, lim Limits) error {
	size := fmt.Sprintf("of %d bytes, more than the server reads for a byte budget of %d bytes (%d bytes)", e.ActualBodyLen, lim.ByteBudget, e.MaxExpectedBodyLen)
	switch typ {
	case 'E':
		// PostgreSQL refused the query: its message quotes a long value
		// (a cast of a long string, a function's error).
		return &SQLError{Engine: "postgres", Message: "PostgreSQL answered with an error message " + size + ", so its text is not shown: the query failed; an error message this long usually quotes a long value (a failed cast of a long string): try the query on shorter values, or with a larger byte budget"}
	case 'D':
		return &RefusedError{Reason: "PostgreSQL's answer holds a row " + size, Rule: ruleSmaller, AtRun: true}
	}
	what := "a message"
	switch typ {
	case 'N':
		what = "a notice"
	case 'T':
		what = "a description of the columns"
	case 0:
	default:
		what = fmt.Sprintf("a message of type %q", string(rune(typ)))
	}
	return &RefusedError{Reason: "PostgreSQL's answer holds " + what + " " + size + " (it may be an error message), so the answer cannot be read", Rule: ruleSmaller, AtRun: true}
}
