package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// Postgres is one model whose data lives in a PostgreSQL server. Its sources become
// common table expressions in front of every query, so queries read them by name
// without anything being created on the server. Safe for concurrent use.
type Postgres struct {
	pool *pgxpool.Pool
	// closed is set by Close before the pool closes: a query meeting it is
	// answered ErrClosed (the caller runs it on the reloaded model), not with
	// the pool's own error.
	closed atomic.Bool
	// slots are the model's pgMaxConns connections, given round-robin by
	// client; a query takes one before a connection of the pool (as large), so
	// that the pool never has a query waiting in its own order. closing, closed
	// by Close, sends the queries still waiting for one to the reloaded model.
	slots   *fairSlots
	closing chan struct{}
	env     string // the variable that names the server (dsnEnv), for ConnectError
	prefix  string // WITH "src" AS (…), … — the sources
	columns map[string][]Column
	broken  map[string]string
	// typeNames holds the names of result types pgx does not know (money,
	// timetz, enums, composites, arrays of them), by OID, read from pg_type;
	// arrayDelims, of those that are arrays, the delimiter of their text (byte).
	typeNames   sync.Map
	arrayDelims sync.Map
	checks      map[string]QueryCheck // named query or cell → what its check found (checkQueries)
	// role is what the model's role may still do that ad-hoc SQL must not
	// (checkRole), read when the model opened or at roleAt (PGRoleRecheck
	// reads it again when it could not be read; roleRead, closed when that
	// reading ends, while it runs), under roleMu; unlocked is
	// PGConfig.UnlockedRole.
	roleMu   sync.Mutex
	role     roleCheck
	roleAt   time.Time
	roleRead chan struct{}
	unlocked bool
	// searchPath is the model's schema as SET LOCAL search_path takes it
	// (pgSearchPath); "" for the server's default.
	searchPath string
}

// PGConfig configures the PostgreSQL models.
type PGConfig struct {
	// Typed, when set, gives the text a named query runs as (its parameters
	// cast to their declared types, still written @name) and maps a 1-based
	// position in it back to the query's SQL, with the parameter whose cast
	// holds the position ("" for none): the check when the model opens
	// prepares that text, so that it finds what every call would.
	Typed func(q *catalog.Query) (text string, orig func(pos int) (int, string))
	// ConnectTimeout bounds ProbePostgres, the one connection a PostgreSQL
	// package's load tries before it opens the package's models; zero means
	// 10 s.
	ConnectTimeout time.Duration
	// UnlockedRole serves ad-hoc SQL on a model whose role may still call
	// what ad-hoc SQL must not (checkRole): its problem is then a warning
	// (PGRoleWarning), for a managed PostgreSQL where no one may revoke
	// from PUBLIC. The server's -pg-unlocked-role.
	UnlockedRole bool
}

// PGConnectTimeout is PGConfig.ConnectTimeout's default.
const PGConnectTimeout = 10 * time.Second

// pgAsText are the built-in types whose values are asked for in PostgreSQL's text
// format and returned as that text, because pgx decodes them into Go structs that
// JSON would show field by field (an interval as {Microseconds, Days, Months,
// Valid}, a range as {Lower, Upper, LowerType: 105, …}, a bit string as base64
// bytes and its length, a tid as {BlockNumber, OffsetNumber, Valid}), into bytes
// (XML as base64) or into a number ("char": 114 for "r"). Types pgx does not know
// (money, enums, composites) come as text anyway.
var pgAsText = map[uint32]bool{
	pgtype.QCharOID: true, pgtype.QCharArrayOID: true, pgtype.TIDOID: true, pgtype.TIDArrayOID: true,
	pgtype.IntervalOID: true, pgtype.IntervalArrayOID: true,
	pgtype.TimeOID: true, pgtype.TimeArrayOID: true,
	pgtype.TimetzOID: true, pgtype.TimetzArrayOID: true,
	pgtype.BitOID: true, pgtype.BitArrayOID: true, pgtype.VarbitOID: true, pgtype.VarbitArrayOID: true,
	pgtype.XMLOID: true, pgtype.XMLArrayOID: true,
	pgtype.JSONPathOID: true, pgtype.JSONPathArrayOID: true,
	pgtype.Int4rangeOID: true, pgtype.Int4rangeArrayOID: true, pgtype.Int8rangeOID: true, pgtype.Int8rangeArrayOID: true,
	pgtype.NumrangeOID: true, pgtype.NumrangeArrayOID: true, pgtype.DaterangeOID: true, pgtype.DaterangeArrayOID: true,
	pgtype.TsrangeOID: true, pgtype.TsrangeArrayOID: true, pgtype.TstzrangeOID: true, pgtype.TstzrangeArrayOID: true,
	pgtype.Int4multirangeOID: true, pgtype.Int4multirangeArrayOID: true, pgtype.Int8multirangeOID: true, pgtype.Int8multirangeArrayOID: true,
	pgtype.NummultirangeOID: true, pgtype.NummultirangeArrayOID: true, pgtype.DatemultirangeOID: true, pgtype.DatemultirangeArrayOID: true,
	pgtype.TsmultirangeOID: true, pgtype.TsmultirangeArrayOID: true, pgtype.TstzmultirangeOID: true, pgtype.TstzmultirangeArrayOID: true,
	pgtype.PointOID: true, pgtype.LsegOID: true, pgtype.PathOID: true, pgtype.BoxOID: true, pgtype.PolygonOID: true,
	pgtype.LineOID: true, pgtype.CircleOID: true,
	pgtype.PointArrayOID: true, pgtype.LsegArrayOID: true, pgtype.PathArrayOID: true, pgtype.BoxArrayOID: true,
	pgtype.PolygonArrayOID: true, pgtype.LineArrayOID: true, pgtype.CircleArrayOID: true,
}

// pgTextArrays are pgAsText's array types, with the delimiter PostgreSQL writes
// between their elements (box's is ';'): their text becomes a JSON array of the
// elements' text (pgArray).
var pgTextArrays = map[uint32]byte{
	pgtype.QCharArrayOID: ',', pgtype.TIDArrayOID: ',',
	pgtype.IntervalArrayOID: ',', pgtype.TimeArrayOID: ',', pgtype.TimetzArrayOID: ',',
	pgtype.BitArrayOID: ',', pgtype.VarbitArrayOID: ',', pgtype.XMLArrayOID: ',', pgtype.JSONPathArrayOID: ',',
	pgtype.Int4rangeArrayOID: ',', pgtype.Int8rangeArrayOID: ',', pgtype.NumrangeArrayOID: ',',
	pgtype.DaterangeArrayOID: ',', pgtype.TsrangeArrayOID: ',', pgtype.TstzrangeArrayOID: ',',
	pgtype.Int4multirangeArrayOID: ',', pgtype.Int8multirangeArrayOID: ',', pgtype.NummultirangeArrayOID: ',',
	pgtype.DatemultirangeArrayOID: ',', pgtype.TsmultirangeArrayOID: ',', pgtype.TstzmultirangeArrayOID: ',',
	pgtype.PointArrayOID: ',', pgtype.LsegArrayOID: ',', pgtype.PathArrayOID: ',', pgtype.BoxArrayOID: ';',
	pgtype.PolygonArrayOID: ',', pgtype.LineArrayOID: ',', pgtype.CircleArrayOID: ',',
}

// pgFormats asks for the text format of pgAsText's types.
var pgFormats = func() pgx.QueryResultFormatsByOID {
	f := pgx.QueryResultFormatsByOID{}
	for oid := range pgAsText {
		f[oid] = pgx.TextFormatCode
	}
	return f
}()

// pgMaxConns caps the connections one model holds.
const pgMaxConns = 4

// pgMaxMessage is the longest message the server reads from PostgreSQL for
// a query whose byte budget is budget: 6 bytes per byte of the budget, as a
// row's binary form may take 6 times its JSON (an int8[] of zeros: 12 bytes
// an element, "0," in JSON), so a longer row cannot fit the budget; and 64
// KiB more for the row's frame and a small budget's columns and errors. At
// most 1 GiB, pgx's own limit (a budget of math.MaxInt: a source's check).
func pgMaxMessage(budget int) int {
	const most = 1 << 30
	if budget > (most-64<<10)/6 {
		return most
	}
	return 6*budget + 64<<10
}

// pgReleaseTimeout bounds the end of a query's transaction (pgEnd), after
// which the connection is closed; a variable for the tests.
var pgReleaseTimeout = 5 * time.Second

// ErrBadDSN is OpenPostgres's error for a connection string pgx cannot read. It
// does not quote the string, which may hold a password.
var ErrBadDSN = errors.New("postgres: the connection string cannot be read (its value is not shown: it may hold a password)")

// DSNReadable reports whether dsn is a connection string pgx reads (an empty
// one is not).
func DSNReadable(dsn string) bool {
	if dsn == "" {
		return false
	}
	_, err := pgxpool.ParseConfig(dsn)
	return err == nil
}

// OpenPostgres connects to dsn, reads the columns of m's sources and checks
// m's named queries and the notebook cells that run against it (checkQueries).
func OpenPostgres(ctx context.Context, m *catalog.Model, dsn string, pc PGConfig) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes the string, a password hidden only where it
		// could parse it: the caller says which setting is wrong instead.
		return nil, ErrBadDSN
	}
	cfg.MaxConns = pgMaxConns
	cfg.ConnConfig.RuntimeParams["application_name"] = "wiremcp-catalog-server"
	// Statements are prepared unnamed (Parse and Describe, then Bind and
	// Execute: two round trips, as a statement pgx's default mode has not
	// cached yet; a repeated named query costs one more than from that
	// cache). pgx's default caches named prepared statements per
	// connection, which a transaction-pooling pgbouncer (before 1.21's
	// max_prepared_statements) does not carry from one transaction to the
	// next: "prepared statement … already exists" / "does not exist".
	// Nothing is set at connection start but what pgbouncer passes on
	// (application_name): each statement runs in a READ ONLY transaction
	// (begin), not under default_transaction_read_only, a startup
	// parameter pgbouncer refuses ("unsupported startup parameter").
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	// The model's schema is set by each query's transaction (begin: SET
	// LOCAL, a statement, which needs no set_config, revoked from the role
	// (pgRisks), and which a connection pooler such as pgbouncer passes on,
	// where it refuses or drops a search_path startup parameter). A schema
	// that is no list of names is the catalog's fault, told for every source.
	searchPath, err := pgSearchPath(m.Package.Schema)
	if err != nil {
		return nil, &SourcesError{All: []error{&SQLError{Message: filepath.Base(filepath.Dir(m.File)) + "'s manifest.json: " + err.Error()}}}
	}
	// Messages past the per-query bound (SetMaxBodyLen) are told apart by
	// their type (pgTap): only a row is a byte-budget truncation.
	cfg.ConnConfig.BuildFrontend = newTappedFrontend
	// A query's transaction is rolled back, which ends everything it did except
	// session-level advisory locks (pg_advisory_lock): pgEnd releases them with
	// the rollback, or closes the connection, which the pool then drops. Nothing
	// more is sent when a connection goes back to the pool (no AfterRelease):
	// behind a transaction-pooling pgbouncer it would be a transaction of its
	// own, in whatever server session is idle, maybe another application's.
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		registerJSON(c.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	p := &Postgres{pool: pool, slots: newFairSlots(pgMaxConns), closing: make(chan struct{}), env: m.Package.DSNEnv, columns: map[string][]Column{}, broken: map[string]string{}, unlocked: pc.UnlockedRole, searchPath: searchPath}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Each source is tried with the ones before it that work (a source may read an
	// earlier one); one that fails is left out of the prefix, so it cannot break
	// queries that do not use it.
	var ctes []string
	var all []error // every source's failure, in the file's order
	std := true     // standard_conforming_strings, on unless the server says otherwise
	if c, err := pool.Acquire(cctx); err == nil {
		std = c.Conn().PgConn().ParameterStatus("standard_conforming_strings") != "off"
		c.Release()
	}
	for _, s := range m.Sources {
		if msg := textProblem(s.SQL, s.Line, s.Col, "it cannot be queried"); msg != "" {
			p.broken[s.Name] = filepath.Base(m.File) + ": " + msg
			// The server's own check of the SQL: the catalog's, as
			// PostgreSQL's syntax errors are (only an edit fixes it).
			all = append(all, &SQLError{Message: p.broken[s.Name]})
			continue
		}
		// The source's statement without what follows its last token: a
		// semicolon with a comment after it ("SELECT …;\n-- note") would end
		// the CTE early.
		body := s.SQL
		if b, ok := pgStatementBody(body, std); ok && strings.TrimSpace(b) != "" {
			body = b
		}
		cte := quoteIdent(s.Name) + " AS (\n" + body + "\n)"
		p.prefix = "WITH " + strings.Join(append(ctes, cte), ",\n") + "\n"
		// No row comes back: the budget only bounds the columns' names and
		// types, which a wide table's take more than 1 KiB of (a call's own
		// budget still bounds them).
		res, err := p.Query(cctx, "SELECT * FROM "+quoteIdent(s.Name)+" LIMIT 0", nil, Limits{RowLimit: 1, ByteBudget: math.MaxInt, Timeout: 10 * time.Second})
		if err != nil {
			p.broken[s.Name] = err.Error()
			all = append(all, err)
			continue
		}
		ctes = append(ctes, cte)
		p.columns[s.Name] = res.Columns
	}
	p.prefix = ""
	if len(ctes) > 0 {
		p.prefix = "WITH " + strings.Join(ctes, ",\n") + "\n"
	}
	if len(p.broken) == len(m.Sources) {
		pool.Close()
		if len(all) == 0 { // a model without sources, which the catalog does not load
			all = []error{&SQLError{Message: "the model has no source"}}
		}
		// Every failure wrapped: the caller tells a catalog's SQL error, which
		// no retry changes, from a server that could not be reached — for
		// each source, as one source may fail for each reason.
		return nil, &SourcesError{All: all}
	}
	// The role's check has its own time limit: the sources' may be used up.
	rctx, rcancel := context.WithTimeout(ctx, pgRoleTimeout)
	p.role, p.roleAt = checkRole(rctx, pool, pgRisks, pc.UnlockedRole), time.Now()
	rcancel()
	p.checks = p.checkQueries(ctx, m, pc)
	return p, nil
}

// SourcesError is a PostgreSQL model none of whose sources could be read:
// it says the first source's failure (in the file's order) and wraps each.
type SourcesError struct {
	All []error // never empty
}

func (e *SourcesError) Error() string {
	return "postgres: no source of the model could be read (" + e.All[0].Error() + ")"
}

// Unwrap returns every source's failure.
func (e *SourcesError) Unwrap() []error { return e.All }

// QueryChecks returns, by named query (and by CellKey for a notebook cell),
// what PostgreSQL found wrong with it when the model opened (checkQueries);
// under "" the queries left unchecked.
func (p *Postgres) QueryChecks() map[string]QueryCheck { return p.checks }

// Columns returns the columns of each readable source, by name.
func (p *Postgres) Columns() map[string][]Column { return p.columns }

// Broken returns, by source name, why a source could not be read.
func (p *Postgres) Broken() map[string]string { return p.broken }

// Close closes the pool; it waits for the connections in use (running queries) to
// be released.
func (p *Postgres) Close() error {
	if !p.closed.Swap(true) {
		close(p.closing)
	}
	p.pool.Close()
	return nil
}

// Query runs one read-only query. Parameters are written @name in the SQL
// (catalog.PlaceholderSpans), and bound by position (pgBind) when params has
// values; without them the SQL runs as written.
func (p *Postgres) Query(ctx context.Context, sqlText string, params map[string]any, lim Limits) (*Result, error) {
	defer lim.done() // the query has stopped (cancelled, its connection back) when Query returns
	if err := checkText(sqlText); err != nil {
		return nil, err
	}
	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	res, err := p.query(qctx, sqlText, params, lim)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var busy *BusyError
		if errors.As(err, &busy) {
			return nil, err
		}
		var pe *pgconn.PgError
		if errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, &TimeoutError{Limit: lim.Timeout}
		}
		if errors.As(err, &pe) && pe.Code == "57014" {
			if !strings.Contains(pe.Message, "user request") {
				return nil, &TimeoutError{Limit: lim.Timeout} // statement_timeout
			}
			// A cancel request the server did not send (it sends one only
			// when qctx ends, seen above): from the query itself
			// (pg_cancel_backend(pg_backend_pid())) or another session.
			return nil, &SQLError{Engine: "postgres", SQLState: pe.Code, Message: pe.Message + " (a cancel request the server did not send: from the query itself, pg_cancel_backend, or from another session of the database; the query did not run out of time)"}
		}
		if tooLong := (*pgproto3.ExceededMaxBodyLenErr)(nil); errors.As(err, &tooLong) {
			return nil, pgTooLong(0, tooLong, lim)
		}
		if ce := connError(err, p.env, lim.Timeout, false); ce != nil {
			return nil, ce
		}
		return nil, err
	}
	return res.finish(start), nil
}

func (p *Postgres) query(ctx context.Context, sqlText string, params map[string]any, lim Limits) (_ *Result, qerr error) {
	if p.closed.Load() {
		return nil, ErrClosed
	}
	// The query's turn for a connection comes round-robin by client; then
	// the pool has one free (a query gives its connection back before its
	// turn).
	if err := p.slots.acquireIn(ctx, lim.Group, lim.Client, p.closing); err != nil {
		if err == ErrClosed {
			return nil, ErrClosed
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, &BusyError{Limit: lim.Timeout, Conns: pgMaxConns}
		}
		return nil, err
	}
	defer p.slots.release()
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		if p.closed.Load() {
			return nil, ErrClosed
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && p.pool.Stat().AcquiredConns() >= pgMaxConns {
			return nil, &BusyError{Limit: lim.Timeout, Conns: pgMaxConns}
		}
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer conn.Release()
	// A message past the bound that is not a row (an error message quoting
	// a long value) is told as what it is (pgTooLong).
	pc := conn.Conn().PgConn()
	defer func() {
		tooLong := (*pgproto3.ExceededMaxBodyLenErr)(nil)
		if qerr != nil && errors.As(qerr, &tooLong) {
			qerr = pgTooLong(tappedType(pc, tooLong.ActualBodyLen), tooLong, lim)
		}
	}()
	// pgx would read a message of any length (up to 1 GiB) into memory: a
	// row (one DataRow message) longer than pgMaxMessage cannot fit the byte
	// budget, so the reading stops at its header and the connection closes.
	conn.Conn().PgConn().Frontend().SetMaxBodyLen(pgMaxMessage(lim.ByteBudget))
	tx, err := p.begin(ctx, conn.Conn(), lim.Timeout)
	if err != nil {
		return nil, err
	}
	defer pgEnd(ctx, tx)
	// A named query's parameters (@name) become $1, $2, … and their values are
	// bound by position; positions and messages in errors are mapped back to
	// the SQL as given (@name). Ad-hoc SQL has no parameters: an @ in it is
	// PostgreSQL's.
	bound := &pgBound{text: sqlText}
	if len(params) > 0 {
		bound = pgBind(sqlText, params)
	}
	// Layer 1: PostgreSQL's parser must see one statement. The unnamed prepared
	// statement of the extended protocol refuses several. It is given the
	// caller's text as sent (empty statements and comments after it count for
	// nothing; the parameters as $n), so that a syntax error's position is
	// about that text.
	//
	// The cap below wraps the statement alone: what follows its last token —
	// semicolons, comments, spaces ("SELECT 1;; -- all") — would end the
	// subquery early or leave it open, and the query be refused as not a query.
	body, err := pgGateBody(bound, tx.Conn().PgConn())
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "SAVEPOINT gate"); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if _, err := tx.Conn().PgConn().Prepare(ctx, "", bound.text, nil); err != nil {
		if err := pgGateErr(bound, err); err != nil {
			return nil, err
		}
	}
	// The gate leaves nothing behind: not the failed state, nor the locks its
	// parse analysis took (RowShareLock for a locking clause on a table).
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT gate"); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// Layer 2: the statement must be a query: inside a subquery PostgreSQL's
	// grammar accepts nothing else, and data-modifying WITH is refused there.
	// The subquery is capped at the rows the result can hold (one more proves
	// truncation): the server neither computes nor sends the rows past them (pgx
	// would read and drop them all when the rows close).
	full := p.prefix + pgWrapOpen + body + "\n) AS q LIMIT " + strconv.Itoa(lim.RowLimit+1)
	rows, err := tx.Query(ctx, full, append([]any{pgFormats}, bound.args...)...)
	if err != nil {
		return nil, p.fail(ctx, tx, err, full, bound)
	}
	defer rows.Close()
	res := newResult(lim)
	fds := rows.FieldDescriptions()
	types := make([]string, len(fds))
	tm := tx.Conn().TypeMap()
	var unnamed []uint32
	mods := make([]string, len(fds))
	// Arrays pgx decodes come flat, whatever their dimensions: one of two or
	// more dimensions is read again with them (pgArrayDims).
	arrays := make([]bool, len(fds))
	for i, fd := range fds {
		mods[i] = pgTypeMod(fd.DataTypeOID, fd.TypeModifier)
		if t, ok := tm.TypeForOID(fd.DataTypeOID); ok {
			types[i] = t.Name
			_, arrays[i] = t.Codec.(*pgtype.ArrayCodec)
		} else if name, ok := p.typeNames.Load(fd.DataTypeOID); ok {
			types[i] = name.(string)
		} else {
			types[i] = fmt.Sprintf("oid %d", fd.DataTypeOID)
			unnamed = append(unnamed, fd.DataTypeOID)
			res.Columns = append(res.Columns, Column{Name: fd.Name, Type: types[i]})
			continue
		}
		res.Columns = append(res.Columns, Column{Name: fd.Name, Type: types[i] + mods[i]})
	}
	if len(unnamed) > 0 {
		fds = slices.Clone(fds) // read after the rows close, when pgconn may reuse them
	}
	colBytes, err := checkColumns(res.Columns, lim.ByteBudget)
	if err != nil {
		rows.Close()
		return nil, err
	}
	app := rowAppender{lim: lim, res: res, bytes: colBytes}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, p.fail(ctx, tx, err, full, bound)
		}
		raw := rows.RawValues()
		row := make([]any, len(vals))
		for i, v := range vals {
			switch oid := fds[i].DataTypeOID; {
			case raw[i] == nil:
				row[i] = nil
			case fds[i].Format == pgx.TextFormatCode && (pgAsText[oid] || p.isTextArray(oid)):
				row[i] = p.fromText(oid, raw[i])
			case arrays[i] && pgManyDims(fds[i].Format, raw[i]):
				row[i] = pgJSONValue(pgArrayDims(tm, fds[i], raw[i], v), types[i])
			default:
				row[i] = pgJSONValue(v, types[i])
			}
		}
		more, err := app.add(row)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		tooLong := (*pgproto3.ExceededMaxBodyLenErr)(nil)
		if !errors.As(err, &tooLong) {
			return nil, p.fail(ctx, tx, err, full, bound)
		}
		if typ := tappedType(pc, tooLong.ActualBodyLen); typ != 'D' {
			return nil, pgTooLong(typ, tooLong, lim)
		}
		// A row that cannot fit: the rows before it are the answer, as for
		// any row past the budget (pgconn closed the connection, which the
		// pool then drops). The columns' types are named all the same, on
		// another connection (the query's turn holds one for it).
		res.Truncated, res.TruncatedBy = true, "byteBudget"
		tx.Rollback(context.WithoutCancel(ctx)) // before the pool has the connection
		tx = nil
		conn.Release()
		if len(unnamed) > 0 {
			if c, err := p.pool.Acquire(ctx); err == nil {
				defer c.Release() // after the rollback below
				if t, err := p.begin(ctx, c.Conn(), lim.Timeout); err == nil {
					tx = t
					defer t.Rollback(context.WithoutCancel(ctx))
				}
			}
		}
	}
	if len(unnamed) > 0 {
		if tx != nil {
			p.nameTypes(ctx, tx, unnamed, res.Columns)
		}
		for i, fd := range fds {
			if slices.Contains(unnamed, fd.DataTypeOID) {
				res.Columns[i].Type += mods[i]
			}
		}
		p.arraysFromText(res, fds, unnamed)
		// Named, the columns take other bytes, and the arrays' values too.
		if err := rebudget(res, lim); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// begin begins the read-only transaction a statement runs in on conn, with
// statement_timeout set to timeout and search_path to the model's schema
// for the transaction only; the caller rolls it back.
func (p *Postgres) begin(ctx context.Context, conn *pgx.Conn, timeout time.Duration) (pgx.Tx, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// SET LOCAL is a statement, not a call of set_config: it works for a role
	// set_config was revoked from (pgRisks).
	setup := fmt.Sprintf("SET LOCAL statement_timeout = %d", max(timeout.Milliseconds(), 1))
	if p.searchPath != "" {
		setup += "; SET LOCAL search_path TO " + p.searchPath
	}
	if _, err := tx.Exec(ctx, setup); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return tx, nil
}

// pgSearchPath returns schema, a manifest's list of schemas as PostgreSQL's
// search_path reads it ("hr, public", names quoted or not; unquoted ones
// folded to lower case), as SET LOCAL search_path TO takes it: each name
// quoted. "" for "".
func pgSearchPath(schema string) (string, error) {
	if strings.TrimSpace(schema) == "" {
		return "", nil
	}
	bad := func(why string) error {
		return fmt.Errorf("the schema %q is not a list of schema names as PostgreSQL's search_path reads them (%s): write names separated by commas, a name with other characters than lower-case letters, digits and _ in double quotes (\"Sales\", with \"\" for a double quote in it)", schema, why)
	}
	var names []string
	s := schema
	for {
		s = strings.TrimLeft(s, " \t\n\r\f")
		var name string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return "", bad("a double quote is not closed")
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			name, s = b.String(), s[i:]
			if name == "" {
				return "", bad("an empty quoted name")
			}
		} else {
			i := strings.IndexAny(s, ", \t\n\r\f\"")
			if i < 0 {
				i = len(s)
			}
			name, s = asciiLower(s[:i]), s[i:]
			if name == "" {
				return "", bad("an empty name")
			}
		}
		if strings.ContainsRune(name, 0) {
			return "", bad("a name holds a zero byte")
		}
		names = append(names, quoteIdent(name))
		s = strings.TrimLeft(s, " \t\n\r\f")
		if s == "" {
			break
		}
		if s[0] != ',' {
			return "", bad("names must be separated by commas")
		}
		s = s[1:]
	}
	return strings.Join(names, ", "), nil
}

// asciiLower folds A-Z in s to a-z, as PostgreSQL folds an unquoted name in
// a UTF-8 database: other letters ("Ärger", the Kelvin sign) stay as written.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// pgEnd ends tx, the transaction a caller's statement ran in: rolled back,
// and the session-level advisory locks the statement took (pg_advisory_lock,
// which a rollback keeps) released, in one message of the simple protocol, so
// in the same server session even behind a transaction-pooling pgbouncer,
// which gives the session to another client once the transaction ends. The
// locks are gone when Query returns. It waits at most
// pgReleaseTimeout (a hung network, a paused pgbouncer), on a context ctx's end
// does not end; when it fails the connection is closed, which the pool drops:
// the server session ends (a pgbouncer closes the server connection of a
// client that leaves in a transaction), and its locks with it.
func pgEnd(ctx context.Context, tx pgx.Tx) {
	if pgEndBegun != nil {
		pgEndBegun()
	}
	pgCleanUp(ctx, tx.Conn().PgConn(), "ROLLBACK; SELECT pg_advisory_unlock_all()", pgReleaseTimeout)
}

// pgCleanUp runs sql (its statements in one message of the simple protocol,
// so in one server session) on pg within limit, on a context that the end of
// ctx does not end; when that fails, it closes the connection (within limit
// too): the pool drops it, and the server session its state.
//
// pgx, when a read fails (limit reached), closes the connection in the
// background and keeps the socket open for up to 15 s (a cancel request on a
// connection of its own, a Terminate, then a wait for the server to close
// first), so pgCleanUp closes the socket itself: a server session that got
// none or part of sql waits for the rest and never closes first, and lived on
// with its advisory locks for those 15 s, directly and through pgbouncer,
// which closes the server connection only when the client's goes
// (TestPostgresEndCut).
func pgCleanUp(ctx context.Context, pg *pgconn.PgConn, sql string, limit time.Duration) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	defer cancel()
	_, err := pg.Exec(cctx, sql).ReadAll()
	if err != nil {
		xctx, xcancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
		defer xcancel()
		pg.Close(xctx) // nothing more when pgx's background close has begun
		pg.Conn().Close()
	}
	return err
}

// pgEndBegun, when set (by tests), is called as pgEnd begins.
var pgEndBegun func()

// pgGateBody is the statement of bound's text that the cap wraps
// (pgStatementBody), or why there is none.
func pgGateBody(bound *pgBound, conn *pgconn.PgConn) (string, error) {
	body, ok := pgStatementBody(bound.text, conn.ParameterStatus("standard_conforming_strings") != "off")
	if !ok {
		body = bound.text // a token left open: PostgreSQL's parser says where
	}
	if strings.TrimSpace(body) == "" {
		return "", &RefusedError{Reason: "the SQL holds no statement"}
	}
	return body, nil
}

// pgGateErr is what the gate's prepare of bound's text alone failing with err
// says: several statements are refused, a syntax error is told at its
// position in the SQL as given; nil for other errors (an unknown relation that
// is one of the sources), which are judged on the full statement.
func pgGateErr(bound *pgBound, err error) error {
	var bareErr *pgconn.PgError
	if !errors.As(err, &bareErr) || pgLostState(bareErr.Code) {
		return err
	}
	if bareErr.Code == "42601" && strings.Contains(bareErr.Message, "multiple commands") {
		return &RefusedError{Reason: pgSeveralStatements}
	}
	if bareErr.Code == "42601" {
		return &SQLError{Engine: "postgres", Message: bound.message(bareErr.Message), Position: bound.position(int(bareErr.Position)), SQLState: bareErr.Code}
	}
	return nil
}

const pgSeveralStatements = "PostgreSQL's parser finds more than one statement; send exactly one"

// pgStatementBody returns sqlText up to the end of its last token, without
// what follows it: spaces, comments and semicolons (empty statements), read as
// PostgreSQL's lexer reads them — strings ('…', E'…' with backslash escapes,
// and '…' with them too when std, standard_conforming_strings, is off), quoted
// names, dollar-quoted strings ($tag$…$tag$), nested block comments and line
// comments — so that a semicolon or a comment mark inside one of them is not
// taken for one outside. What precedes the statement stays: a syntax error's
// position is about the caller's text. It returns false when a string, a
// quoted name or a block comment is left open (PostgreSQL's parser then says
// where). PostgreSQL's own parse of the whole text (one statement) and of the
// capped body (one query) still judge the SQL: this only decides where the cap
// closes.
func pgStatementBody(sqlText string, std bool) (string, bool) {
	identStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }
	identCont := func(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '$' }
	// quoted returns the offset after the string or name that starts with the
	// quote q at i, or -1 when it is not closed; a doubled quote is one, and a
	// backslash escapes the next byte when backslash.
	quoted := func(i int, q byte, backslash bool) int {
		for j := i + 1; j < len(sqlText); j++ {
			switch c := sqlText[j]; {
			case c == '\\' && backslash:
				j++
			case c == q:
				if j+1 < len(sqlText) && sqlText[j+1] == q {
					j++
					continue
				}
				return j + 1
			}
		}
		return -1
	}
	end, i, n := 0, 0, len(sqlText)
	for i < n {
		c := sqlText[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ';':
			i++
			continue
		case strings.HasPrefix(sqlText[i:], "--"):
			if j := strings.IndexAny(sqlText[i:], "\n\r"); j >= 0 {
				i += j
			} else {
				i = n
			}
			continue
		case strings.HasPrefix(sqlText[i:], "/*"):
			rest, closed := afterComment(sqlText[i:])
			if !closed {
				return "", false
			}
			i = n - len(rest)
			continue
		case c == '\'' || c == '"':
			i = quoted(i, c, c == '\'' && !std)
		case identStart(c):
			j := i + 1
			for j < n && identCont(sqlText[j]) {
				j++
			}
			if j == i+1 && (c == 'E' || c == 'e') && j < n && sqlText[j] == '\'' {
				j = quoted(j, '\'', true) // E'…': backslash escapes
			}
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < n && (identCont(sqlText[j]) && sqlText[j] != '$' || sqlText[j] == '.') {
				j++
			}
			i = j
		case c == '$':
			j := i + 1
			for j < n && identCont(sqlText[j]) && sqlText[j] != '$' && (j > i+1 || !(sqlText[j] >= '0' && sqlText[j] <= '9')) {
				j++
			}
			if j < n && sqlText[j] == '$' {
				// $tag$…$tag$ (the tag may be empty); $1 is a parameter.
				tag := sqlText[i : j+1]
				k := strings.Index(sqlText[j+1:], tag)
				if k < 0 {
					return "", false
				}
				i = j + 1 + k + len(tag)
			} else {
				i++
			}
		default:
			i++
		}
		if i < 0 {
			return "", false
		}
		end = i
	}
	return sqlText[:end], true
}

// isTextArray says whether oid is an array type pgx does not know (of enums,
// composites, money), as read from pg_type by an earlier query.
func (p *Postgres) isTextArray(oid uint32) bool {
	_, ok := p.arrayDelims.Load(oid)
	return ok
}

// fromText is the JSON value of a column read in PostgreSQL's text format (a type
// of pgAsText, or one pgx does not know): a JSON array of its elements' text for
// an array type, else the text.
func (p *Postgres) fromText(oid uint32, raw []byte) any {
	d, ok := pgTextArrays[oid]
	if !ok {
		var v any
		if v, ok = p.arrayDelims.Load(oid); ok {
			d = v.(byte)
		}
	}
	if ok {
		if a, ok := pgArray(string(raw), d); ok {
			return a
		}
	}
	return string(raw)
}

// arraysFromText makes the values of array types met for the first time (unnamed,
// now read from pg_type) JSON arrays, as fromText does for the next queries.
func (p *Postgres) arraysFromText(res *Result, fds []pgconn.FieldDescription, unnamed []uint32) {
	var cols []int
	for i, fd := range fds {
		if _, ok := p.arrayDelims.Load(fd.DataTypeOID); ok && fd.Format == pgx.TextFormatCode && slices.Contains(unnamed, fd.DataTypeOID) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return
	}
	for _, row := range res.Rows {
		for _, i := range cols {
			if s, ok := row[i].(string); ok {
				row[i] = p.fromText(fds[i].DataTypeOID, []byte(s))
			}
		}
	}
}

// rebudget applies the byte budget again to a result whose columns or values
// changed after its rows were read (rowAppender): the columns first, then the
// rows that fit after them.
func rebudget(res *Result, lim Limits) error {
	used, err := checkColumns(res.Columns, lim.ByteBudget)
	if err != nil {
		return err
	}
	for r, row := range res.Rows {
		b, err := json.Marshal(row)
		if err == nil && used+len(b)+1 > lim.ByteBudget {
			res.Rows = res.Rows[:r]
			res.Truncated, res.TruncatedBy = true, "byteBudget"
			return nil
		}
		used += len(b) + 1
	}
	return nil
}

// jsonKeepNumbers decodes JSON keeping its numbers' digits (json.Number): pgx's
// json and jsonb decoding, which by default makes every number a float64 and so
// changed integers past 2^53 (12345678901234567890 came back as
// 12345678901234567000). A key given twice in a json value (PostgreSQL's json type
// keeps both) keeps its last value, as jsonb does: MCP's JSON may not hold the
// same key twice.
//
// A number common JSON parsers cannot read (wideNumber: 1e999) becomes the
// string of its text, wherever it is in the value.
func jsonKeepNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if p, ok := v.(*any); ok {
		*p = narrowNumbers(*p)
	}
	return nil
}

// narrowNumbers turns the numbers of a decoded JSON value that wideNumber
// finds too wide into strings, in place.
func narrowNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return jsonNumber(string(x))
	case []any:
		for i, e := range x {
			x[i] = narrowNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = narrowNumbers(e)
		}
	}
	return v
}

// registerJSON makes a connection decode json, jsonb and arrays of them with
// jsonKeepNumbers.
func registerJSON(tm *pgtype.Map) {
	j := &pgtype.Type{Name: "json", OID: pgtype.JSONOID, Codec: &pgtype.JSONCodec{Marshal: json.Marshal, Unmarshal: jsonKeepNumbers}}
	jb := &pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID, Codec: &pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: jsonKeepNumbers}}
	tm.RegisterType(j)
	tm.RegisterType(jb)
	tm.RegisterType(&pgtype.Type{Name: "_json", OID: pgtype.JSONArrayOID, Codec: &pgtype.ArrayCodec{ElementType: j}})
	tm.RegisterType(&pgtype.Type{Name: "_jsonb", OID: pgtype.JSONBArrayOID, Codec: &pgtype.ArrayCodec{ElementType: jb}})
}

// nameTypes names the columns whose types pgx does not know (money, timetz, an
// enum, a composite, an array of one: "_mood"), as pg_type does, instead of
// "oid 16388"; names are kept for the model's next queries. A failed look-up
// leaves the OIDs.
func (p *Postgres) nameTypes(ctx context.Context, tx pgx.Tx, oids []uint32, cols []Column) {
	// An array type has the category 'A' and its element type; its text separates
	// elements by the element type's delimiter.
	rows, err := tx.Query(ctx, `SELECT t.oid, t.typname, t.typcategory = 'A' AND e.oid IS NOT NULL, coalesce(e.typdelim::text, ',')
		FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem WHERE t.oid = ANY($1)`, oids)
	if err != nil {
		return
	}
	names := map[uint32]string{}
	for rows.Next() {
		var oid uint32
		var name, delim string
		var array bool
		if rows.Scan(&oid, &name, &array, &delim) == nil {
			names[oid] = name
			if array && len(delim) == 1 {
				p.arrayDelims.Store(oid, delim[0])
			}
			p.typeNames.Store(oid, name)
		}
	}
	rows.Close()
	for i, c := range cols {
		var oid uint32
		if _, err := fmt.Sscanf(c.Type, "oid %d", &oid); err == nil && names[oid] != "" {
			cols[i].Type = names[oid]
		}
	}
}

// fail explains why the full statement failed. PostgreSQL refuses a row-locking
// clause that would lock rows of a table (FOR UPDATE, FOR NO KEY UPDATE, FOR
// SHARE, FOR KEY SHARE) in a read-only transaction before the executor runs,
// with the same SQLSTATE as a write; the plan tells the two apart: a LockRows
// step is a row lock. (A locking clause PostgreSQL ignores, on a WITH query such
// as a model's source, has no such step and locks nothing.)
func (p *Postgres) fail(ctx context.Context, tx pgx.Tx, err error, full string, bound *pgBound) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "25006" {
		if locks, lerr := planLocksRows(ctx, tx, full, bound.args); lerr == nil && locks {
			return &RefusedError{Reason: rowLocksReason + " (PostgreSQL: " + pe.Message + ")", Rule: ruleNoLocks}
		}
	}
	return p.pgErr(err, full, bound)
}

// planLocksRows reports whether PostgreSQL's plan for full has a LockRows step.
// EXPLAIN without ANALYZE plans the statement and runs nothing.
func planLocksRows(ctx context.Context, tx pgx.Tx, full string, args []any) (bool, error) {
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT gate"); err != nil {
		return false, err
	}
	var plan []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+full, args...).Scan(&plan); err != nil {
		return false, err
	}
	return hasLockRows(plan)
}

// hasLockRows reports whether plan, the output of EXPLAIN (FORMAT JSON), has a
// LockRows step anywhere (in a subquery's or a WITH query's plan too).
func hasLockRows(plan []byte) (bool, error) {
	var tree any
	if err := json.Unmarshal(plan, &tree); err != nil {
		return false, err
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch n := v.(type) {
		case map[string]any:
			if n["Node Type"] == "LockRows" {
				return true
			}
			for _, c := range n {
				if walk(c) {
					return true
				}
			}
		case []any:
			for _, c := range n {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	return walk(tree), nil
}

// pgWrapOpen opens the subquery that caps the caller's statement.
const pgWrapOpen = "SELECT * FROM (\n"

// pgErr keeps PostgreSQL's message, moves its position into the caller's SQL, and
// turns the read-only and query-only refusals into RefusedErrors. full is the
// statement as it ran (the sources, then the caller's statement wrapped; the
// offset of the caller's text is worked out only for an error with a position),
// bound its parameters as they ran ($n) and were written (@name).
func (p *Postgres) pgErr(err error, full string, bound *pgBound) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pgLostState(pe.Code) {
		return err // a session that ended is not the SQL's fault: Query tells it (connError)
	}
	switch pe.Code {
	case "25006": // read_only_sql_transaction
		return &RefusedError{Reason: "PostgreSQL refused to write in the read-only transaction: " + pe.Message, AtRun: true}
	case "0A000": // feature_not_supported: a data-modifying WITH below the top level
		if strings.Contains(pe.Message, "data-modifying") {
			return &RefusedError{Reason: "PostgreSQL's parser reads this as a data-modifying statement: " + pe.Message}
		}
	case "42601": // syntax error in the wrapped form: the statement is not a query
		return &RefusedError{Reason: notAQuery(full[len(p.prefix+pgWrapOpen):], pe.Message)}
	case "57014":
		return err
	}
	pos := int(pe.Position) - utf8.RuneCountInString(p.prefix+pgWrapOpen)
	if pos < 0 {
		pos = 0
	}
	pos = bound.position(pos)
	msg := bound.message(pe.Message)
	if pe.Detail != "" {
		msg += " (detail: " + bound.message(pe.Detail) + ")"
	}
	if pe.Hint != "" {
		msg += " (hint: " + bound.message(pe.Hint) + ")"
	} else if names := p.closestNames(pe); names != "" {
		msg += " (" + names + ")"
	}
	return &SQLError{Engine: "postgres", Message: msg, Position: pos, SQLState: pe.Code}
}

var (
	pgNoRelation = regexp.MustCompile(`^relation "([^"]+)" does not exist`)
	pgNoColumn   = regexp.MustCompile(`^column "?([^" ]+)"? does not exist`) // "x", or s.x unquoted
)

// closestNames names the model's sources, or their columns, closest to the
// relation or column PostgreSQL did not find (it suggests none for a relation, and
// for a column only when one is close to a name in the query's scope).
func (p *Postgres) closestNames(pe *pgconn.PgError) string {
	var what string
	var names []string
	seen := map[string]bool{}
	switch pe.Code {
	case "42P01": // undefined_table
		m := pgNoRelation.FindStringSubmatch(pe.Message)
		if m == nil {
			return ""
		}
		what = m[1]
		for name := range p.columns {
			names = append(names, name)
		}
		sort.Strings(names)
		if c := catalog.Closest(what, names, 3); len(c) > 0 {
			return "closest sources of the model: " + strings.Join(c, ", ")
		}
		if len(names) == 0 {
			return "" // a source's own check, or a model none of whose sources could be read
		}
		return "the model's sources: " + strings.Join(names[:min(len(names), 10)], ", ")
	case "42703": // undefined_column
		m := pgNoColumn.FindStringSubmatch(pe.Message)
		if m == nil {
			return ""
		}
		what = m[1]
		if i := strings.LastIndexByte(what, '.'); i >= 0 {
			what = what[i+1:]
		}
		for _, cols := range p.columns {
			for _, c := range cols {
				if !seen[c.Name] {
					seen[c.Name] = true
					names = append(names, c.Name)
				}
			}
		}
		sort.Strings(names)
		if c := catalog.Closest(what, names, 3); len(c) > 0 {
			return "closest columns of the model's sources: " + strings.Join(c, ", ")
		}
	}
	return ""
}

// notAQuery says why a statement PostgreSQL parsed on its own is refused inside
// the subquery that caps it: it is not a query. Its first keyword says what it is
// (PostgreSQL's statements each start with their own); msg is PostgreSQL's
// complaint about the wrapped form, kept only when there is no keyword.
func notAQuery(body, msg string) string {
	const only = "only one SELECT (or WITH … SELECT, VALUES, TABLE) runs here"
	kw := strings.ToUpper(pgFirstWord(body))
	switch kw {
	case "":
		return "PostgreSQL's parser does not read this as a query (" + msg + "); " + only
	case "WITH":
		return "this is a WITH statement whose main statement is not a SELECT (a data-modifying statement); " + only
	}
	return fmt.Sprintf("this is %s %s statement; %s", article(kw), kw, only)
}

// pgFirstWord returns the first word of s after spaces and comments, or "" when
// s starts with something else. Unlike firstWord it does not look past other
// characters: a body that starts with one (a parenthesised query PostgreSQL
// refuses in the wrapped form) keeps PostgreSQL's own message in notAQuery.
func pgFirstWord(s string) string {
	s = skipSpaceAndComments(s)
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
		i++
	}
	return s[:i]
}

// pgTypeMod returns a column's type modifier as PostgreSQL writes it after the
// type's name ("(10,2)" for numeric(10,2), "(20)" for varchar(20), "(3)" for
// timestamp(3)), from the modifier of its field description; "" for none.
func pgTypeMod(oid uint32, typmod int32) string {
	if typmod < 0 {
		return ""
	}
	const varhdrsz = 4
	switch oid {
	case pgtype.NumericOID:
		if typmod < varhdrsz {
			return ""
		}
		m := typmod - varhdrsz
		// PostgreSQL 15 and later store a scale from -1000 to 1000 in 11 bits.
		return fmt.Sprintf("(%d,%d)", (m>>16)&0xffff, ((m&0x7ff)^1024)-1024)
	case pgtype.VarcharOID, pgtype.BPCharOID:
		if typmod < varhdrsz {
			return ""
		}
		return fmt.Sprintf("(%d)", typmod-varhdrsz)
	case pgtype.BitOID, pgtype.VarbitOID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID, pgtype.TimetzOID:
		return fmt.Sprintf("(%d)", typmod)
	case pgtype.IntervalOID:
		// The precision is in the low 16 bits (0xffff: none), the fields
		// (YEAR TO MONTH …) above it.
		if p := typmod & 0xffff; p != 0xffff {
			return fmt.Sprintf("(%d)", p)
		}
	}
	return ""
}
