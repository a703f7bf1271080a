package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// pgCheckGrace is how long past queryCheckBudget the check of a PostgreSQL
// model may take in all (connection, transaction, the last prepare) before its
// context ends it; statement_timeout bounds each prepare at queryCheckBudget.
const pgCheckGrace = time.Second

// pgCheckBegun, when set (by tests), is called with the check's transaction
// once it is set up.
var pgCheckBegun func(ctx context.Context, tx pgx.Tx)

// checkQueries prepares each named query of m, then each cell of the
// package's notebooks that run against m, as a call sends it: a named query's
// parameters cast to their declared types (pc.Typed) and written $1, $2, …
// (pgBind), a cell as written; the statement alone first (one statement, its
// syntax: the gate of query), then capped as a subquery behind the sources'
// common table expressions (a query, the names it reads). It uses one
// connection, in one read-only transaction with the model's search_path and a
// statement_timeout, rolled back; nothing is executed (the extended protocol's
// Parse and Describe; then, for a statement that prepares, EXPLAIN without
// ANALYZE of its generic plan, for a row lock: pgLocksRows). It stops at the
// bounds of DuckDB's check (maxCheckedQueries, queryCheckBudget). Undeclared
// placeholders are the catalog's own check (catalog.ParamProblems): an error
// about one is not said again.
func (p *Postgres) checkQueries(ctx context.Context, m *catalog.Model, pc PGConfig) map[string]QueryCheck {
	out := queryChecks{}
	add := out.add
	cells := modelCells(m)
	total := len(m.Queries) + len(cells)
	if total == 0 {
		return out
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, queryCheckBudget+pgCheckGrace)
	defer cancel()
	conn, err := p.pool.Acquire(cctx)
	if err != nil {
		add("", pgUnchecked(len(m.Queries), len(cells), 0, "PostgreSQL could not be reached", err))
		return out
	}
	defer conn.Release()
	tx, err := p.begin(cctx, conn.Conn(), queryCheckBudget)
	if err != nil {
		add("", pgUnchecked(len(m.Queries), len(cells), 0, "the check's transaction could not begin", err))
		return out
	}
	// Ended as a call's transaction is (pgEnd): rolled back, and any
	// session-level advisory lock released in the same server session, or
	// the connection closed.
	defer pgEnd(ctx, tx)
	if pgCheckBegun != nil {
		pgCheckBegun(cctx, tx)
	}
	// A prepared statement's plan is the generic one (pgLocksRows): its
	// parameters stay parameters, not values folded into the plan.
	if _, err := tx.Exec(cctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
		add("", pgUnchecked(len(m.Queries), len(cells), 0, "the check's transaction could not begin", err))
		return out
	}
	if _, err := tx.Exec(cctx, "SAVEPOINT load_check"); err != nil {
		add("", pgUnchecked(len(m.Queries), len(cells), 0, "the check's transaction could not begin", err))
		return out
	}
	for i := 0; i < total; i++ {
		if i >= maxCheckedQueries || time.Since(start) > queryCheckBudget || cctx.Err() != nil {
			add("", uncheckedProblem(len(m.Queries), len(cells), i, queryCheckBudget))
			break
		}
		q, key := (*catalog.Query)(nil), ""
		if i < len(m.Queries) {
			q = m.Queries[i]
			key = q.Name
		} else {
			q = cells[i-len(m.Queries)]
			key = CellKey(q.Notebook, q)
		}
		if msg := textProblem(q.SQL, q.Line, q.Col, "no call can run it"); msg != "" {
			add(key, msg)
			continue
		}
		msg, unread, stop := p.checkOne(cctx, tx, q, pc)
		if unread != "" {
			add("", unread)
		}
		if stop != nil {
			if cctx.Err() != nil || pgTimedOut(stop) {
				add("", uncheckedProblem(len(m.Queries), len(cells), i, queryCheckBudget))
			} else {
				add("", pgUnchecked(len(m.Queries), len(cells), i, "the connection to PostgreSQL failed", stop))
			}
			break
		}
		if msg != "" {
			add(key, msg)
		}
	}
	return out
}

// checkOne prepares q (a named query, or a cell when q.Notebook is set) on tx,
// inside the savepoint "load_check", which it rolls back to, and reads whether
// its plan locks rows (pgLocksRows); it says what is wrong with q ("" nothing),
// why its row locks could not be read (unread, "" when they were: a note of
// the model's, no fault of q's), or returns why the check cannot go on (the
// connection or the time is gone).
func (p *Postgres) checkOne(ctx context.Context, tx pgx.Tx, q *catalog.Query, pc PGConfig) (msg, unread string, stop error) {
	cell := q.Notebook != nil
	text, orig := q.SQL, func(pos int) (int, string) { return pos, "" }
	bound := &pgBound{text: text}
	if !cell {
		// A call gives every declared parameter a value, so its SQL is bound.
		if pc.Typed != nil {
			text, orig = pc.Typed(q)
		}
		bound = pgBind(text, nil)
	}
	pg := tx.Conn().PgConn()
	rollback := func() error {
		_, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT load_check")
		return err
	}
	body, err := pgGateBody(bound, pg)
	if err == nil {
		if _, perr := pg.Prepare(ctx, "", bound.text, nil); perr != nil {
			err = pgGateErr(bound, perr)
			// Any other error is judged on the full statement, after the
			// failed transaction is rolled back.
			if rerr := rollback(); rerr != nil && err == nil {
				return "", "", rerr
			}
		}
	}
	locks := false
	if err == nil {
		full := p.prefix + pgWrapOpen + body + "\n) AS q LIMIT 1"
		// The unnamed statement of the extended protocol, as a call's: no
		// name that a server session keeps past the transaction.
		if sd, perr := pg.Prepare(ctx, "", full, nil); perr != nil {
			err = p.pgErr(perr, full, bound)
		} else {
			var why error
			locks, why, stop = pgLocksRows(ctx, tx, full, len(sd.ParamOIDs))
			if stop != nil {
				return "", "", stop
			}
			if why != nil {
				unread = fmt.Sprintf("%s: whether it locks rows (FOR UPDATE, FOR SHARE: refused in every call's read-only transaction) was not checked when the model loaded (PostgreSQL: %v); a call that locks rows is refused when it runs", pgCheckedName(q), why)
			}
		}
	}
	// Also after a prepare that went well: its parse analysis locked the
	// tables it names (ACCESS SHARE) until the savepoint is rolled back.
	if rerr := rollback(); rerr != nil {
		return "", "", rerr
	}
	if locks {
		return RowLocksProblem, unread, nil
	}
	if err == nil {
		return "", unread, nil
	}
	what := "a named query"
	if cell {
		what = "a notebook cell"
	}
	var re *RefusedError
	var se *SQLError
	switch {
	case errors.As(err, &re):
		if re.Reason == pgSeveralStatements {
			return "the SQL holds more than one statement; " + what + " is exactly one SELECT", unread, nil
		}
		return "the SQL is not a query, so every call is refused: " + re.Reason, unread, nil
	case errors.As(err, &se):
		pos, param := orig(se.Position)
		if staticallyTold(q, pos, se.Message) {
			return "", unread, nil
		}
		c := *se
		c.Position = pos
		c.Message = "PostgreSQL: " + se.Message
		if param != "" {
			for _, pr := range q.Params {
				if pr.Name == param {
					c.Message += fmt.Sprintf(" (in the cast of @%s to its declared type %s, which every call makes)", param, pr.Type)
				}
			}
		}
		return "the SQL does not prepare: " + inFile(&c, q.SQL, q.Line, q.Col, ""), unread, nil
	}
	return "", unread, err
}

// pgCheckPrefix begins the name of the statement pgLocksRows prepares
// (PREPARE, SQL-level) to read a plan; random bytes end it (pgCheckName).
const pgCheckPrefix = "catalog_load_check_"

// pgCheckName is a name for the statement pgLocksRows prepares: 16 random hex
// digits after pgCheckPrefix. A prepared statement lives for the server
// session, which behind a transaction-pooling pgbouncer other clients share;
// a fixed name, left prepared in a session by one of them (or by a check
// whose deallocation failed), would fail every PREPARE ("already exists").
func pgCheckName() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24)
	return pgCheckPrefix + hex.EncodeToString(b[:])
}

// pgDeallocTimeout bounds the DEALLOCATE of pgLocksRows's statement, on a
// context the check's own deadline does not end.
const pgDeallocTimeout = 2 * time.Second

// pgLocksRows reports whether the plan of full, which takes params
// parameters, locks rows (a LockRows step: FOR UPDATE, FOR NO KEY UPDATE, FOR
// SHARE or FOR KEY SHARE on a table, also in a subquery or a WITH query),
// which PostgreSQL refuses in the read-only transaction of every call, but not
// in a prepare. It prepares full under a name of its own (pgCheckName) with
// the SQL-level PREPARE, in the check's transaction tx (so in one server
// session, also behind pgbouncer, which renames protocol-level named
// statements from 1.21 on), reads EXPLAIN of an EXECUTE of it, rolls back to
// the savepoint load_check and deallocates it. EXPLAIN without ANALYZE plans
// and runs nothing, and the plan is the generic one (plan_cache_mode, set by
// checkQueries): the NULLs given for the parameters are not folded into it
// (with $1 NULL, "$1 IS NOT NULL AND a IN (SELECT … FOR UPDATE)" would plan
// without the subquery). A locking clause PostgreSQL ignores (on a model's
// source, a WITH query) or a WITH query no one reads has no such step and
// locks nothing: calls run. A plan that cannot be read (a NULL a parameter's
// domain refuses) is why (locks false: unknown, not "no lock"); stop is why
// the check cannot go on (the connection, the time, a failed deallocation,
// after which the connection is closed: the pool drops it, and the session
// its statement).
func pgLocksRows(ctx context.Context, tx pgx.Tx, full string, params int) (locks bool, why, stop error) {
	pg := tx.Conn().PgConn()
	name := pgCheckName()
	failed := func(err error) (bool, error, error) {
		var pe *pgconn.PgError
		if ctx.Err() != nil || !errors.As(err, &pe) || pgTimedOut(err) {
			return false, nil, err
		}
		return false, errors.New(pe.Message), nil
	}
	// The extended protocol's Execute of a PREPARE statement: one statement
	// (full prepared as the unnamed statement already), its $n its own.
	if res := pg.ExecParams(ctx, "PREPARE "+name+" AS "+full, nil, nil, nil, nil).Read(); res.Err != nil {
		return failed(res.Err) // not prepared: nothing to deallocate
	}
	sql := "EXPLAIN (FORMAT JSON) EXECUTE " + name
	if params > 0 {
		sql += "(" + strings.Repeat("NULL, ", params-1) + "NULL)"
	}
	res := pg.ExecParams(ctx, sql, nil, nil, nil, nil).Read()
	// The statement outlives the transaction (a prepared statement is not
	// transactional): deallocated after the savepoint is rolled back to (a
	// failed EXPLAIN leaves the transaction aborted), on a context of its
	// own, so that a check out of time does not leave it behind.
	if derr := pgCleanUp(ctx, pg, "ROLLBACK TO SAVEPOINT load_check; DEALLOCATE "+name, pgDeallocTimeout); derr != nil {
		return false, nil, fmt.Errorf("the check's prepared statement could not be deallocated: %w", derr)
	}
	if res.Err != nil {
		return failed(res.Err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return false, fmt.Errorf("EXPLAIN returned %d rows", len(res.Rows)), nil
	}
	locks, err := hasLockRows(res.Rows[0][0])
	if err != nil {
		return false, fmt.Errorf("EXPLAIN's plan could not be read: %w", err), nil
	}
	return locks, nil, nil
}

// pgCheckedName names q, a named query or a notebook cell, in a note of its
// model's check.
func pgCheckedName(q *catalog.Query) string {
	if q.Notebook != nil {
		return fmt.Sprintf("cell %s of notebook %s (line %d)", q.Name, q.Notebook.Name, q.Line)
	}
	return fmt.Sprintf("query %s (line %d)", q.Name, q.Line)
}

// pgTimedOut says whether err is PostgreSQL's statement_timeout.
func pgTimedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// pgParamNamed finds the parameters PostgreSQL's messages name, as
// pgBound.message writes them (parameter @name).
var pgParamNamed = regexp.MustCompile(`parameter @([A-Za-z_][A-Za-z0-9_]*)`)

// staticallyTold says whether PostgreSQL's error msg at pos (1-based, in
// q.SQL) is about a placeholder q does not declare (a cell declares none):
// its position falls in one, or the message names it. The catalog's own check
// lists such a placeholder already (catalog.ParamProblems), and no call runs
// with it.
func staticallyTold(q *catalog.Query, pos int, msg string) bool {
	declared := map[string]bool{}
	if q.Notebook == nil {
		for _, p := range q.Params {
			declared[p.Name] = true
		}
	}
	undeclared := map[string]bool{}
	for _, sp := range catalog.PlaceholderSpans(q.SQL, catalog.EnginePostgres) {
		if declared[sp.Name] {
			continue
		}
		undeclared[sp.Name] = true
		at := utf8.RuneCountInString(q.SQL[:sp.Start]) + 1
		if pos >= at && pos < at+sp.End-sp.Start {
			return true
		}
	}
	for _, m := range pgParamNamed.FindAllStringSubmatch(msg, -1) {
		if undeclared[m[1]] {
			return true
		}
	}
	return false
}

// pgUnchecked says that the named queries and cells from the i-th on (of
// queries named queries, then cells notebook cells) were not checked, because
// of what happened (err).
func pgUnchecked(queries, cells, i int, what string, err error) string {
	return fmt.Sprintf("%s were not checked when it loaded: %s (%v); they are judged when they run", uncheckedCount(queries, cells, i), what, err)
}
