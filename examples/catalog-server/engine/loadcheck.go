package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// QueryCheck is what the engine found wrong with a named query of a model, or
// a notebook cell that runs against it, when the model opened (its SQL does not
// prepare, a parameter's type is unknown, a parameter is used and not declared
// or declared and not used).
type QueryCheck struct {
	Problems []string
	// Refuse, when not empty, says why no call may run it: checking it when
	// the model loaded crashed DuckDB, or needed more memory than the load may
	// hold ("checking it crashed DuckDB (SIGSEGV: segmentation violation)"),
	// which running it would do again (with queries in the server's process,
	// to the server). A check that only ran out of the load's time is not a
	// refusal: a call has its own time limit.
	Refuse string
	// Unchecked says Refuse is there because the check never ran: the
	// model's load process had crashed maxLoadCrashes times before it, and
	// the load stopped checking. Whether running it would crash DuckDB is
	// unknown, so calls are refused as for a crash, until the model loads
	// with fewer crashes.
	Unchecked bool
}

// Bounds of the check when a model opens (DuckDB: checkQueries; PostgreSQL:
// Postgres.checkQueries): each named query, then each cell of the notebooks
// that run against the model, is prepared (parsed and bound to the model's
// sources, not run), at most maxCheckedQueries of them in all, none started
// once queryCheckBudget has passed; those left over are counted under the key
// "" of the checks. queryCheckBudget is a variable for the tests
// (DuckConfig.CheckBudget sets it for a model of DuckDB).
const maxCheckedQueries = 256

var queryCheckBudget = 2 * time.Second

// CellKey is the key of a notebook cell in the checks: its notebook's name and
// its own (no named query's name holds a /).
func CellKey(nb *catalog.Notebook, cell *catalog.Query) string {
	return nb.Name + "/" + cell.Name
}

// checkQueries prepares each named query of m on conn (the connection that
// built the model's views), and each type its parameters declare, and then each
// cell of the package's notebooks that run against m, and says what DuckDB
// finds wrong. Nothing runs: duckdb-go's Prepare refuses more than one
// statement (PrepareContext would run all but the last).
func checkQueries(ctx context.Context, conn loadConn, m *catalog.Model, cfg DuckConfig) map[string]QueryCheck {
	out := queryChecks{}
	add := out.add
	cells := modelCells(m)
	total := len(m.Queries) + len(cells)
	types := map[string]string{} // declared type → why DuckDB does not know it ("" it does)
	start := time.Now()
	for i := 0; i < total; i++ {
		if le := (*LoadError)(nil); errors.As(conn.failed(), &le) {
			// DuckDB's load process ran out of the model's time, or crashed
			// too often: what is left is not checked.
			if le.Kind != "crashes" {
				add("", fmt.Sprintf("%s were not checked when it loaded (%s); they are judged when they run", uncheckedCount(len(m.Queries), len(cells), i), le.stopped()))
				break
			}
			// After maxLoadCrashes crashes, what is left may crash DuckDB
			// too, which with queries in the server's process ends the
			// server: refused until the model loads with fewer crashes.
			add("", fmt.Sprintf("%s were not checked when it loaded (%s), so calls of them are refused: fix or remove the named queries, notebook cells or sources that crashed DuckDB (their problems say so), then save the files to load the model again", uncheckedCount(len(m.Queries), len(cells), i), le.stopped()))
			why := fmt.Sprintf("its check did not run: the model's load process had crashed %d times before it (%s), and the load stopped checking", maxLoadCrashes, le.Detail)
			for j := i; j < total; j++ {
				key := ""
				if j < len(m.Queries) {
					key = m.Queries[j].Name
				} else {
					c := cells[j-len(m.Queries)]
					key = CellKey(c.Notebook, c)
				}
				q := out[key]
				q.Refuse, q.Unchecked = why, true
				out[key] = q
			}
			break
		}
		if i >= maxCheckedQueries || time.Since(start) > cfg.checkBudget() || ctx.Err() != nil {
			add("", uncheckedProblem(len(m.Queries), len(cells), i, cfg.checkBudget()))
			break
		}
		if i >= len(m.Queries) {
			c := cells[i-len(m.Queries)]
			conn.doing("checking the notebook cell " + CellKey(c.Notebook, c))
			msg, err := checkCell(ctx, conn, c)
			if msg != "" {
				add(CellKey(c.Notebook, c), msg)
			}
			out.refuse(CellKey(c.Notebook, c), err)
			continue
		}
		q := m.Queries[i]
		conn.doing("checking the named query " + q.Name)
		badType := false
		for _, p := range q.Params {
			t := p.Type
			if cfg.CastType != nil {
				if t = cfg.CastType(p.Type); t == "" {
					continue // bound uncast: its type is never used
				}
			}
			why, seen := types[t]
			if !seen {
				why = checkType(ctx, conn, t)
				types[t] = why
			}
			if why != "" {
				badType = true
				add(q.Name, fmt.Sprintf("@param %s %s: DuckDB does not know the type %s (%s), so no call can run the query; write a DuckDB type (INTEGER, DOUBLE, VARCHAR, DATE, TIMESTAMP, BOOLEAN, …)", p.Name, p.Type, p.Type, why))
			}
		}
		// The text every call runs, its parameters cast to their types (unless
		// a type is unknown, said above: then the SQL as written, for what else
		// may be wrong with it).
		if msg := textProblem(q.SQL, q.Line, q.Col, "no call can run it"); msg != "" {
			add(q.Name, msg)
			continue
		}
		text, orig := q.SQL, func(pos int) int { return pos }
		if cfg.Typed != nil && !badType {
			text, orig = cfg.Typed(q)
		}
		if ps := catalog.PositionalSpans(q.SQL, catalog.EngineDuckDB); len(ps) > 0 {
			// Told where it is (DuckDB's prepare would say only that named and
			// positional parameters do not mix, or number it without a place).
			at := ""
			if l, c := catalog.FilePosition(q.SQL, q.Line, q.Col, utf8.RuneCountInString(q.SQL[:ps[0].Start])+1); l > 0 {
				at = fmt.Sprintf(" (line %d, column %d)", l, c)
			}
			add(q.Name, fmt.Sprintf("the SQL uses the positional placeholder $%s%s, which no call can give a value (values are given by name), so every call is refused: a named query's parameters are $name, each declared with an @param line", ps[0].Name, at))
			continue
		}
		names, err := conn.prepare(ctx, text)
		if loadStopped(conn, err) {
			// DuckDB's load process crashed on it, or the load ran out of
			// time: said as it is (not as SQL that does not prepare).
			add(q.Name, err.Error())
			out.refuse(q.Name, err)
			continue
		}
		if err != nil {
			if se := (*SQLError)(nil); errors.As(err, &se) && se.Position > 0 {
				c := *se
				c.Position = orig(se.Position)
				err = &c
			}
			add(q.Name, queryProblem(q, err))
			continue
		}
		used := make([]catalog.Placeholder, 0, len(names))
		at := placeholderPositions(q.SQL)
		for _, n := range names {
			if n == "" || strings.Trim(n, "0123456789") == "" {
				add(q.Name, fmt.Sprintf("the SQL uses a placeholder without a name (? or $%s): a named query's parameters are $name, each declared with an @param line", n))
				continue
			}
			used = append(used, catalog.Placeholder{Name: n, Pos: at[catalog.ParamKey(n, catalog.EngineDuckDB)]})
		}
		for _, msg := range catalog.ParamProblems(q, used, catalog.EngineDuckDB) {
			add(q.Name, msg)
		}
	}
	return out
}

// placeholderPositions returns where sqlText first writes each of its named
// placeholders, by catalog.ParamKey: DuckDB reads $Ab and $ab as one
// parameter, and names it as the text it prepared first writes it, which may
// be another spelling than q.SQL's (the declared name, in the text with casts).
func placeholderPositions(sqlText string) map[string]int {
	at := map[string]int{}
	for _, ph := range catalog.Placeholders(sqlText, catalog.EngineDuckDB) {
		k := catalog.ParamKey(ph.Name, catalog.EngineDuckDB)
		if _, seen := at[k]; !seen {
			at[k] = ph.Pos
		}
	}
	return at
}

// modelCells returns the cells of m's package's notebooks that run against m,
// in order.
func modelCells(m *catalog.Model) []*catalog.Query {
	var cells []*catalog.Query
	if m.Package != nil {
		for _, nb := range m.Package.Notebooks {
			for _, c := range nb.Cells {
				if c.Model == m {
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// uncheckedProblem says that the named queries and cells from the i-th on (of
// queries named queries, then cells notebook cells) were not checked, the
// check having stopped at its bounds (budget its time).
func uncheckedProblem(queries, cells, i int, budget time.Duration) string {
	bound := fmt.Sprintf("the check stops after %d queries or %s per model", maxCheckedQueries, budget)
	if cells > 0 {
		bound += ", named queries first"
	}
	return fmt.Sprintf("%s were not checked when it loaded (%s); they are judged when they run", uncheckedCount(queries, cells, i), bound)
}

// uncheckedCount says how many of a model's queries and cells, from the i-th on
// (named queries first), were not checked.
func uncheckedCount(queries, cells, i int) string {
	if cells == 0 {
		return fmt.Sprintf("%d of the model's %d named queries", queries-i, queries)
	}
	return fmt.Sprintf("%d of the model's %d named queries and %d notebook cells (of the notebooks that run against it)", queries+cells-i, queries, cells)
}

// queryChecks collects what a model's check found, by query (CellKey for a
// cell; "" for the model).
type queryChecks map[string]QueryCheck

func (c queryChecks) add(name, msg string) {
	q := c[name]
	q.Problems = append(q.Problems, msg)
	c[name] = q
}

// refuse marks the query name as one no call may run when err, what its check
// ended with, is a crash of DuckDB or a stop for memory (LoadError.refusal).
func (c queryChecks) refuse(name string, err error) {
	le := (*LoadError)(nil)
	if !errors.As(err, &le) || le.refusal() == "" {
		return
	}
	q := c[name]
	q.Refuse = le.refusal()
	c[name] = q
}

// checkCell prepares the notebook cell c, as it runs (as written: a cell takes
// no parameters), and says what is wrong with it ("" nothing); loadErr is the
// LoadError the prepare ended with (DuckDB's load process crashed on it, or the
// load ran out of time), else nil. A named parameter ($x) is told by the
// catalog's own check (catalog.ParamProblems).
func checkCell(ctx context.Context, conn loadConn, c *catalog.Query) (msg string, loadErr error) {
	if msg := textProblem(c.SQL, c.Line, c.Col, "no call can run it"); msg != "" {
		return msg, nil
	}
	names, err := conn.prepare(ctx, c.SQL)
	if loadStopped(conn, err) {
		return err.Error(), err
	}
	if err != nil {
		msg := queryProblem(c, err)
		return strings.Replace(msg, "a named query is", "a notebook cell is", 1), nil
	}
	for _, n := range names {
		if n == "" || strings.Trim(n, "0123456789") == "" {
			return fmt.Sprintf("the SQL uses a placeholder without a name (? or $%s), but a notebook cell takes no parameters: write the value into the cell", n), nil
		}
	}
	return "", nil
}

// textProblem says why sql, the SQL of a source, named query or notebook cell
// that starts at line, col of its file, can be given to no engine as written
// (a NUL character, or bytes that are not UTF-8: what checkText refuses when a
// call sends such SQL, said the same way), with the file's line and column and
// what follows (what: "no call can run it"); "" when it can. The load says it
// in place of the engine's error, which for bytes that are not UTF-8 is empty
// (a source) or says nothing of where (a query).
func textProblem(sql string, line, col int, what string) string {
	re, at := textFault(sql)
	if re == nil {
		return ""
	}
	where := ""
	if l, c := catalog.FilePosition(sql, line, col, at); l > 0 {
		where = fmt.Sprintf(" (line %d, column %d)", l, c)
	}
	fix := "the file is saved as UTF-8 text"
	if re.Rule == ruleText {
		fix = "the NUL character is removed from the file"
	}
	return fmt.Sprintf("%s%s; %s until %s", re.Reason, where, what, fix)
}

// typeName is the form of a type checkType asks DuckDB about: a name with a
// precision or two and list brackets (DECIMAL(5,2), INTEGER[3]); nothing else is
// put into SQL text.
var typeName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\(\d+(?:,\d+)?\))?(?:\[\d*\])*$`)

// checkType says why DuckDB does not know the SQL type t ("" when it does, or
// when t is not of typeName's form: such a type is not checked).
func checkType(ctx context.Context, conn loadConn, t string) string {
	if !typeName.MatchString(t) {
		return ""
	}
	_, err := conn.prepare(ctx, "SELECT CAST(NULL AS "+t+")")
	if err == nil {
		return ""
	}
	var se *SQLError
	if errors.As(err, &se) {
		first, _, _ := strings.Cut(se.Message, "\n")
		return first
	}
	return err.Error()
}

// prepareNames prepares text on conn, without running it, and returns the names
// of its parameters, in order; an error says why it does not prepare, or that
// it is not a query.
func prepareNames(conn *sql.Conn, text string) ([]string, error) {
	var names []string
	err := conn.Raw(func(dc any) error {
		st, err := dc.(*duckdb.Conn).Prepare(text)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				if pivotExpanded(text) {
					return errors.New(pivotNoInReason + "; a named query is exactly one SELECT")
				}
				return errors.New("the SQL holds more than one statement; a named query is exactly one SELECT")
			}
			return withPosition(duckErr(err), text)
		}
		defer st.Close()
		stmt := st.(*duckdb.Stmt)
		if ty, err := stmt.StatementType(); err == nil && ty != duckdb.STATEMENT_TYPE_SELECT {
			return fmt.Errorf("DuckDB prepares it as %s %s statement, not a query; a named query is one SELECT (or WITH … SELECT)", article(firstWord(text)), firstWord(text))
		}
		for i := 1; i <= stmt.NumInput(); i++ {
			n, err := stmt.ParamName(i)
			if err != nil {
				return duckErr(err)
			}
			names = append(names, n)
		}
		return nil
	})
	return names, err
}

// queryProblem says why q's SQL does not prepare, with the line and column in
// its file of the position DuckDB gives (a row-locking clause:
// RowLocksProblem).
func queryProblem(q *catalog.Query, err error) string {
	var se *SQLError
	if !errors.As(err, &se) {
		return "the SQL does not prepare: " + err.Error()
	}
	if strings.HasPrefix(se.Message, "Parser Error: ") && strings.Contains(se.Message, "locking clause") {
		// DuckDB's grammar reads FOR UPDATE / FOR SHARE … and refuses it, as
		// the gate of each call does (RefusedError.RowLocks): said as a call says it.
		return RowLocksProblem
	}
	return "the SQL does not prepare: " + inFile(se, q.SQL, q.Line, q.Col, "")
}

// inFile is the engine's error se about sql, which starts at line, col of its
// file (named file, when not empty), with its position given as the file's
// line and column. DuckDB's excerpt of the SQL ("LINE n:" and a caret) is
// replaced by one of sql's line at the position, numbered as the file's line;
// without a position, its lines are numbered as the file's.
func inFile(se *SQLError, sql string, line, col int, file string) string {
	l, c := catalog.FilePosition(sql, line, col, se.Position)
	if file != "" {
		file += " "
	}
	if l == 0 {
		msg := fileLines(se.Message, line)
		if file != "" && line > 0 {
			return fmt.Sprintf("%s(its SQL from line %d): %s", file, line, msg)
		}
		return msg
	}
	msg := se.Message
	if m := duckExcerpt(msg); m != nil {
		msg = strings.TrimRight(msg[:m[0]], "\n ")
	}
	return fmt.Sprintf("%sline %d, column %d: %s\n\n%s", file, l, c, msg, excerpt(sql, se.Position, l))
}

// excerpt shows the line of sql holding the character at pos (1-based) as
// "LINE n: …" (n the file's line), with a caret under that character; a long
// line is cut to about 100 characters around it, as DuckDB cuts its own.
func excerpt(sql string, pos, fileLine int) string {
	rs := []rune(sql)
	at := min(max(pos-1, 0), len(rs))
	start, end := at, at
	for start > 0 && rs[start-1] != '\n' {
		start--
	}
	for end < len(rs) && rs[end] != '\n' {
		end++
	}
	before, after := "", ""
	if at-start > 60 {
		start, before = at-60, "..."
	}
	if end-at > 60 {
		end, after = at+60, "..."
	}
	head := fmt.Sprintf("LINE %d: %s", fileLine, before)
	var caret strings.Builder
	caret.WriteString(strings.Repeat(" ", utf8.RuneCountInString(head)))
	for _, r := range rs[start:at] {
		if r == '\t' {
			caret.WriteRune('\t')
		} else {
			caret.WriteString(strings.Repeat(" ", max(duckWidth(r), 0)))
		}
	}
	return head + string(rs[start:end]) + after + "\n" + caret.String() + "^"
}

// fileLines renumbers the "LINE n:" of DuckDB's excerpt of a text starting at
// line first of its file to the file's lines, keeping the caret below under
// the same character.
func fileLines(msg string, first int) string {
	if first <= 1 {
		return msg
	}
	return renumberLines(msg, func(n int) int { return n + first - 1 })
}

// sourceError is why the source s did not load, placed in the author's own
// text: err is DuckDB's error for the view made of s's SQL as the server
// rewrote it (paths made absolute, CSV readers frozen) behind "CREATE VIEW …
// AS ", whose position and excerpt would point into that. The source's own SQL
// is prepared again with only its file names written as absolute paths
// (withAbsolutePaths), and a position in it mapped back to the author's text;
// when that prepares (the error came from the rewriting), the view's error is
// given without the wrapper's excerpt.
func sourceError(ctx context.Context, conn loadConn, s *catalog.Source, file, pkgDir, body string, err error) error {
	text, edits := withAbsolutePaths(s.SQL, pkgDir)
	if _, perr := conn.prepare(ctx, text); perr != nil {
		if loadStopped(conn, perr) {
			return perr
		}
		var se *SQLError
		if errors.As(perr, &se) {
			out := *se
			out.Position = authorPos(edits, se.Position)
			return &sourceLoadError{se: &out, text: inFile(&out, s.SQL, s.Line, s.Col, file)}
		}
	}
	err = duckErr(err)
	var se *SQLError
	if !errors.As(err, &se) {
		return err
	}
	out := *se
	wrapper := "CREATE VIEW " + quoteIdent(s.Name) + " AS "
	out.Message = strings.Replace(out.Message, "LINE 1: "+wrapper, "LINE 1: ", 1)
	if out.Message != se.Message {
		// The caret line under it moves left by the wrapper's width.
		out.Message = caretLeft.ReplaceAllStringFunc(out.Message, func(c string) string {
			spaces := len(c) - 2
			return "\n" + strings.Repeat(" ", max(spaces-utf8.RuneCountInString(wrapper), 0)) + "^"
		})
	}
	out.Position = 0
	if body == s.SQL && se.Position > utf8.RuneCountInString(wrapper) {
		out.Position = se.Position - utf8.RuneCountInString(wrapper)
	}
	return &sourceLoadError{se: &out, text: inFile(&out, s.SQL, s.Line, s.Col, file)}
}

// pathEdit is one string literal withAbsolutePaths rewrote: at its content's
// offset in the author's text, from old to new characters.
type pathEdit struct{ at, old, new int }

// withAbsolutePaths returns text with each string literal ('…') that names a
// file of the package folder pkgDir by a relative path (as rewritePaths judges
// paths) written as its absolute path, and the edits made, in order. Comments
// and quoted names are left as they are.
func withAbsolutePaths(text, pkgDir string) (string, []pathEdit) {
	var b strings.Builder
	var edits []pathEdit
	runes := 0 // characters of text before i
	last := 0  // bytes of text copied to b
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			runes += utf8.RuneCountInString(text[i : i+j])
			i += j
		case strings.HasPrefix(text[i:], "/*"):
			rest, ok := afterComment(text[i:])
			if !ok {
				rest = ""
			}
			j := len(text) - len(rest)
			runes += utf8.RuneCountInString(text[i:j])
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(text) {
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j, len(text))
			content := strings.ReplaceAll(text[i+1:end], "''", "'")
			if c == '\'' && end < len(text) && !filepath.IsAbs(content) && looksLikeFile(content) {
				if abs, err := inside(pkgDir, content); err == nil {
					b.WriteString(text[last : i+1])
					quoted := strings.ReplaceAll(abs, "'", "''")
					b.WriteString(quoted)
					last = end
					edits = append(edits, pathEdit{at: runes + 1, old: utf8.RuneCountInString(text[i+1 : end]), new: utf8.RuneCountInString(quoted)})
				}
			}
			runes += utf8.RuneCountInString(text[i:min(end+1, len(text))])
			i = end + 1
		default:
			_, n := utf8.DecodeRuneInString(text[i:])
			runes++
			i += n
		}
	}
	b.WriteString(text[min(last, len(text)):])
	return b.String(), edits
}

// authorPos maps a position (1-based, in characters) in withAbsolutePaths's
// result back to the author's text: after an edited literal, by the
// characters it grew; inside one, to its first character.
func authorPos(edits []pathEdit, pos int) int {
	if pos <= 0 {
		return pos
	}
	delta := 0
	for _, e := range edits {
		at := e.at + delta // the literal's content, 0-based, in the result
		switch {
		case pos-1 < at:
			return pos - delta
		case pos-1 < at+e.new:
			return e.at + 1
		}
		delta += e.new - e.old
	}
	return pos - delta
}

var caretLeft = regexp.MustCompile(`\n *\^`)

// sourceLoadError is a source's SQL error placed in its model's file.
type sourceLoadError struct {
	se   *SQLError
	text string
}

func (e *sourceLoadError) Error() string { return "duckdb error at " + e.text }
func (e *sourceLoadError) Unwrap() error { return e.se }

// loadStopped says err (from a step of a load on conn) ends the load's work
// rather than saying something of the SQL: a LoadError, or a load that can no
// longer go on.
func loadStopped(conn loadConn, err error) bool {
	var le *LoadError
	return err != nil && (errors.As(err, &le) || conn.failed() != nil)
}
