// Package engine runs read-only queries against a catalog model, on DuckDB (data
// files read in place) or PostgreSQL (data in a server), and returns honest results:
// column names and types, rows, whether a limit cut them, and how long it took.
//
// Every query goes through the same gate, layer after layer:
//   - the engine's own parser must see exactly one statement, and a query (SELECT,
//     or WITH … SELECT) taking no row locks;
//   - DuckDB: the database holding the model's views is opened read-only, file access
//     is limited to the package folder (a symbolic link judged by where it points,
//     when the views are built and when a query runs), extensions cannot be
//     installed or loaded, and the configuration is locked; memory and threads are
//     capped;
//   - PostgreSQL: the query runs in a READ ONLY transaction, wrapped as a subquery,
//     where PostgreSQL refuses row locks before running anything;
//   - every query has a deadline that interrupts the engine (DuckDB's interrupt,
//     PostgreSQL's statement_timeout and cancellation).
package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// Column is one column of a result or a source.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Result is what a query returned.
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// RowCount is len(Rows): the rows returned, not the rows the query would produce.
	RowCount int `json:"rowCount"`
	// Truncated is true when the query had more rows than were returned.
	Truncated bool `json:"truncated"`
	// TruncatedBy says which limit cut the result: "rowLimit" or "byteBudget".
	TruncatedBy string  `json:"truncatedBy,omitempty"`
	RowLimit    int     `json:"rowLimit"`
	ByteBudget  int     `json:"byteBudget"`
	ElapsedMs   float64 `json:"elapsedMs"`
	// Hint says what to do when the result is cut before its first row (set
	// by the server, not the engine).
	Hint string `json:"hint,omitempty"`

	wire *wireCells // in a query process: the JSON of Rows' values
}

// ModelQueries is how many queries of one model run at once: the connections
// (or query processes) of a DuckDB model, and the connections of a PostgreSQL
// model. The others wait for one within their time limit, given them
// round-robin by client (Limits.Client).
var ModelQueries = map[string]int{catalog.EngineDuckDB: duckMaxConns, catalog.EnginePostgres: pgMaxConns}

// Limits bound one query.
type Limits struct {
	RowLimit   int           // rows returned at most (must be > 0)
	ByteBudget int           // JSON bytes of the columns and rows returned at most (must be > 0)
	Timeout    time.Duration // the query is stopped after this long (must be > 0)
	// Done, when set, is called exactly once, when the query no longer holds
	// anything of the engine's (a connection, a query process's slot), whatever
	// the answer: for DuckDB in this process (Duck) that can be after Query
	// returned, when DuckDB goes on computing past the query's answer (a
	// calculation it cannot interrupt) on the query's connection; for query
	// processes and PostgreSQL, whose queries are stopped by then, when Query
	// returns. A caller counting a client's queries releases its count there.
	Done func()
	// Client is who sent the query (over HTTP, the client the server counts
	// shares by; "" is one client, such as stdio's). Queries waiting for one
	// of a model's connections, or of the server's query processes, are given
	// them round-robin by client (fairSlots), not in the order they came.
	Client string
	// Group is the group Client belongs to ("" for none): the clients of one
	// group take their turns as one client would, and share its turn among
	// them (fairSlots). The server groups the /64s of one IPv6 /48.
	Group string
}

// done calls l.Done when it is set.
func (l Limits) done() {
	if l.Done != nil {
		l.Done()
	}
}

// ErrClosed is returned by a query on a model that was closed (the catalog was
// reloaded between finding the model and running the query): try again.
var ErrClosed = errors.New("the model was reloaded while the query was starting; call again")

// RefusedError says a statement was not run because it is not a single read-only
// query.
type RefusedError struct {
	Reason string
	// Rule is the rule the statement broke, told to the caller after Reason; empty
	// means the one-read-only-query rule.
	Rule string
	// AtRun says the statement was refused while it ran, for what it opened,
	// wrote or would return (a file outside the package, a write PostgreSQL
	// refused, columns past the byte budget), which its parameters' values may
	// decide; otherwise the refusal follows from the SQL's text alone (its
	// statements, their kinds, the functions it names, its characters).
	AtRun bool
}

// rowLocksReason is the reason given for a query with a row-locking clause.
const rowLocksReason = "row locks are not allowed: drop FOR UPDATE (or FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE)"

// RowLocksProblem says what is wrong with a named query or a notebook cell
// whose SQL locks rows: found by the load check when its model opens
// (PostgreSQL's plan, DuckDB's parser), and
// said again by each call (RefusedError.RowLocks).
const RowLocksProblem = "the SQL locks rows (FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE or FOR KEY SHARE), which this read-only endpoint refuses, so every call is refused: the catalog's file must drop the locking clause"

// RowLocks says whether the statement was refused for a row-locking clause.
func (e *RefusedError) RowLocks() bool { return e.Rule == ruleNoLocks }

// Rules a RefusedError may name.
const (
	ruleOneQuery = "Only one read-only query is allowed: a single SELECT (or WITH … SELECT) statement over the model's sources."
	ruleNoLocks  = "This endpoint is read-only: queries take no row locks; remove the locking clause and call again."
	ruleFiles    = "A query may read only files inside its package folder (a symbolic link counts as the file it points to, and URLs are never read): query the model's sources by name instead."
	ruleText     = "Send the SQL without NUL characters and call again."
	ruleUTF8     = "Send the SQL as UTF-8 text and call again."
	ruleSmaller  = "Ask for less: fewer or shorter columns (left(col, 100)), or fewer rows."
)

// checkText refuses SQL holding a NUL character: DuckDB reads its SQL as a C string
// and would silently run only the text before it (a query cut short, its filters
// dropped), and PostgreSQL's protocol ends a query's text at the first NUL. It
// refuses SQL that is not UTF-8 text too.
func checkText(sqlText string) error {
	if re, _ := textFault(sqlText); re != nil {
		return re
	}
	return nil
}

// textFault is checkText's refusal of sqlText (nil when it has none), and the
// character (1-based) it is about.
func textFault(sqlText string) (*RefusedError, int) {
	if i := strings.IndexByte(sqlText, 0); i >= 0 {
		at := utf8.RuneCountInString(sqlText[:i]) + 1
		return &RefusedError{Reason: fmt.Sprintf("the SQL holds a NUL character (\\u0000) at character %d; the engine would read only the text before it", at), Rule: ruleText}, at
	}
	// Text that is not UTF-8 (a catalog file in another encoding) is not read
	// the same by every engine, nor by a query process, which gets its SQL as
	// JSON (the bytes replaced by U+FFFD): DuckDB fails it without a message.
	if !utf8.ValidString(sqlText) {
		i := 0
		for i < len(sqlText) {
			r, n := utf8.DecodeRuneInString(sqlText[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		at := utf8.RuneCountInString(sqlText[:i]) + 1
		return &RefusedError{Reason: fmt.Sprintf("the SQL is not UTF-8 text: byte 0x%02X at character %d is not a character in UTF-8", sqlText[i], at), Rule: ruleUTF8}, at
	}
	return nil, 0
}

func (e *RefusedError) Error() string {
	rule := e.Rule
	if rule == "" {
		rule = ruleOneQuery
	}
	return "refused: " + e.Reason + ". " + rule
}

// SQLError is an error the engine reported for a statement, with its position.
type SQLError struct {
	Engine   string // "duckdb" or "postgres"; "" for the server's own check of the SQL
	Message  string // the engine's message, unchanged
	Position int    // 1-based character offset in the statement, 0 if unknown
	SQLState string // PostgreSQL's SQLSTATE code ("42703"); empty for DuckDB
}

func (e *SQLError) Error() string {
	if e.Engine == "" {
		return e.Message // the server's own words, which say where
	}
	where := ""
	if e.Position > 0 {
		where = fmt.Sprintf(" at character %d", e.Position)
	}
	if e.SQLState != "" {
		where += " (SQLSTATE " + e.SQLState + ")"
	}
	return fmt.Sprintf("%s error%s: %s", e.Engine, where, e.Message)
}

// UnboundParamError says the statement uses a parameter that was given no value.
// The caller knows where a value could come from and says so.
type UnboundParamError struct {
	Name string // as written in the SQL: "$year"
}

func (e *UnboundParamError) Error() string {
	return fmt.Sprintf("parameter %s has no value", e.Name)
}

// TimeoutError says a query ran out of time and was stopped.
type TimeoutError struct {
	Limit time.Duration
	// Waited is how much of Limit went by before the query started, waiting for
	// one of its model's connections; Busy says it was most of it.
	Waited time.Duration
	// What the query waited for when Busy: one of Slots connections (or query
	// processes) of its model, or, with Server, one of the Slots query processes
	// the server runs at once over all its models (ProcessLimit). Slots 0: not
	// known.
	Slots  int
	Server bool
	// Advice, when set, is what to change in this query (Shape.TimeoutAdvice):
	// Error then says what happened only, and the caller gives the advice.
	Advice string
	// Running says the engine had not stopped when the caller was answered: it
	// was inside one piece of work it cannot be interrupted in (a long function
	// call, or a query's constant expressions computed while it was prepared),
	// and finishes it in the background on one of the model's connections.
	Running bool
}

// Busy reports whether the query spent most of its time limit waiting for a
// connection, its model (or the server) busy with other queries: calling again
// later may do.
func (e *TimeoutError) Busy() bool { return e.Waited >= e.Limit/2 }

// BusyWith says what the query of a Busy TimeoutError waited for: "waiting for
// a connection: the model was busy …".
func (e *TimeoutError) BusyWith() string {
	switch {
	case e.Server:
		if e.Slots == 1 {
			return "waiting for a query process: the only one the server runs at a time, over all its models, was running another query"
		}
		return fmt.Sprintf("waiting for a query process: all %d that the server runs at once, over all its models, were running other queries", e.Slots)
	case e.Slots > 0:
		return fmt.Sprintf("waiting its turn: this model runs %d queries at once, and other queries of it held them all", e.Slots)
	}
	return "waiting for a connection: the model was busy with other queries"
}

func (e *TimeoutError) Error() string {
	if e.Busy() {
		what := "was stopped at"
		if e.Running {
			what = "ran past"
		}
		msg := fmt.Sprintf("the query %s the %s limit, %s of which it spent %s. ", what, e.Limit, e.Waited.Round(time.Millisecond), e.BusyWith())
		if e.Running {
			msg += "The engine cannot stop it inside the calculation it is in, so it finishes that in the background. "
		}
		return msg + "Call again shortly; if it still runs out of time, ask for less work (aggregate, filter with WHERE, or query a smaller source)"
	}
	if e.Running {
		msg := fmt.Sprintf("the query ran longer than the %s limit; the engine cannot stop it inside the calculation it is in (a long function call, or constant expressions it computes before running), so it finishes that in the background", e.Limit)
		if e.Advice != "" {
			return msg
		}
		return msg + ". Ask for less work: smaller ranges and lists, aggregate (GROUP BY with count/sum/avg) instead of reading raw rows, filter with WHERE, or query a smaller source"
	}
	msg := fmt.Sprintf("the query ran longer than the %s limit and was stopped", e.Limit)
	if e.Advice != "" {
		return msg
	}
	return msg + ". Ask for less work: aggregate (GROUP BY with count/sum/avg) instead of reading raw rows, filter with WHERE, or query a smaller source"
}

// MemoryError says a query needed more memory than its model may use and was
// stopped.
type MemoryError struct {
	Limit  string // the model's memory limit, as configured
	Detail string // the engine's message, its first line
	// Advice, when set, is what to change in this query (Shape.MemoryAdvice):
	// Error then says what happened only, and the caller gives the advice.
	Advice string
	// Spilled says the query also filled the disk space its model may spill to
	// (DuckDB's max_temp_directory_size), TempLimit.
	Spilled   bool
	TempLimit string
}

func (e *MemoryError) Error() string {
	msg := fmt.Sprintf("the query needed more memory than this model may use (%s) and was stopped (%s)", e.Limit, e.Detail)
	if e.Spilled {
		msg = fmt.Sprintf("the query needed more memory than this model may use (%s) and more disk space to spill to than it may use (%s), and was stopped (%s)", e.Limit, e.TempLimit, e.Detail)
	}
	if e.Advice != "" {
		return msg
	}
	return msg + ". Ask for less work: aggregate (GROUP BY with count/sum/avg) instead of reading raw rows, filter with WHERE, select fewer or smaller columns"
}

// BusyError says a query did not start within its time limit because every
// connection of its model was running another query the whole time.
type BusyError struct {
	Limit time.Duration
	Conns int
	// What the Conns are: empty for the connections of a model; the query
	// processes of the model or of the server (-isolate).
	What string
	// Server says the Conns are the query processes the server runs at once
	// over all its models (ProcessLimit), not the model's own.
	Server bool
}

// ConnsWhat is what the Conns are, in words: What, or the connections of
// this model when What is empty.
func (e *BusyError) ConnsWhat() string {
	if e.What == "" {
		return "connections of this model"
	}
	return e.What
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("the server is busy: all %d %s were running other queries for the whole %s limit, so this query did not start. Try again shortly", e.Conns, e.ConnsWhat(), e.Limit)
}

// rowAppender accumulates rows under a row limit and a byte budget, which the
// result's columns take their share of first (bytes starts at checkColumns's
// count). A row counts as the bytes json.Marshal writes for it, and a newline: its values
// encoded one by one (by one json.Encoder, as Marshal encodes each element of
// a slice), one comma between two, and the brackets. With keep (a query
// process) the values' JSON stays in res.wire, the bytes the query's answer
// carries to the server.
type rowAppender struct {
	lim   Limits
	res   *Result
	bytes int
	keep  bool

	buf bytes.Buffer // the rows' values, as JSON one after another
	enc *json.Encoder
}

// add appends a row of JSON-ready values and reports whether more may follow.
// It is called with at most RowLimit+1 rows: the extra one only proves truncation.
func (a *rowAppender) add(row []any) (more bool, err error) {
	if len(a.res.Rows) >= a.lim.RowLimit {
		a.res.Truncated, a.res.TruncatedBy = true, "rowLimit"
		return false, nil
	}
	if a.enc == nil {
		a.enc = json.NewEncoder(&a.buf)
		if a.keep {
			a.res.wire = &wireCells{}
		}
	}
	w := a.res.wire
	start, nLens := a.buf.Len(), 0
	if w != nil {
		nLens = len(w.lens)
		w.lens = binary.AppendUvarint(w.lens, uint64(len(row)))
	}
	for _, v := range row {
		mark := a.buf.Len()
		if err := a.enc.Encode(v); err != nil {
			return false, err
		}
		a.buf.Truncate(a.buf.Len() - 1) // Encode ends each value with a newline
		if w != nil {
			w.lens = binary.AppendUvarint(w.lens, uint64(a.buf.Len()-mark))
		}
	}
	size := a.buf.Len() - start + 2 // the values and the brackets
	switch {
	case row == nil:
		size = len("null")
	case len(row) > 1:
		size += len(row) - 1 // the commas
	}
	if a.bytes+size+1 > a.lim.ByteBudget {
		a.res.Truncated, a.res.TruncatedBy = true, "byteBudget"
		a.buf.Truncate(start)
		if w != nil {
			w.lens = w.lens[:nLens]
		}
		return false, nil
	}
	a.bytes += size + 1
	a.res.Rows = append(a.res.Rows, row)
	if w == nil {
		a.buf.Reset()
	} else {
		w.cells = a.buf.Bytes()
		w.rows++
	}
	return true, nil
}

// wireCells is the JSON of a result's values as a query process encoded them
// (rowAppender with keep), for its answer (appendAnswer): every value's length
// (uvarint), each row's after its count of values, and the values one after
// another.
type wireCells struct {
	rows  int
	lens  []byte
	cells []byte
}

// checkColumns refuses a result whose columns alone — their names and types, as
// JSON — take more than the byte budget its rows may: the budget bounds an
// answer only if its head is bounded too (a query of nested STRUCTs with long
// field names answered 12 MB under a 4 MB budget). It returns the bytes the
// columns take, which the rows' share of the budget is short of
// (rowAppender.bytes starts there): the columns and the rows together stay
// within the budget.
func checkColumns(cols []Column, budget int) (int, error) {
	b, err := json.Marshal(cols)
	if err != nil {
		return 0, err
	}
	if len(b) > budget {
		return 0, &RefusedError{Reason: fmt.Sprintf("the result's columns alone (their names and types) take %d bytes of JSON, more than the byte budget of %d", len(b), budget),
			Rule: "Select fewer columns, or name long or nested ones shorter (AS) and unpack STRUCTs into columns of simple types.", AtRun: true}
	}
	return len(b), nil
}

func newResult(lim Limits) *Result {
	return &Result{Rows: [][]any{}, Columns: []Column{}, RowLimit: lim.RowLimit, ByteBudget: lim.ByteBudget}
}

func (r *Result) finish(start time.Time) *Result {
	r.RowCount = len(r.Rows)
	r.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return r
}
