package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Loading a model in a process of its own.
//
// Building a model's database runs DuckDB on the catalog's content: making a
// source's view reads its files (to learn the columns, sampling CSV and JSON
// files to freeze their readers: freezeReaders), and the check of its named
// queries and notebook cells prepares them (computing their constant
// expressions). In the server's process a crash of DuckDB there (a deeply
// nested JSON value overflows its stack) ends the server, a calculation DuckDB
// cannot interrupt holds the load for as long as it computes, and what a
// function builds is not counted by DuckDB's memory limit.
//
// With DuckConfig.Loader set, every step of a model's load that asks DuckDB
// something runs in a load process: this program started again as a worker
// (ServeDuckWorker, serveLoad), with the query processes' environment, memory
// settings and watchdog (launchWorker, runningMaxRSS). The server keeps the
// logic (what to ask, what the answers mean); the load process owns the
// database being built and answers one step at a time (a statement, a query's
// rows, a prepare, a source's view SQL: rewritePaths, whose syntax tree, 20 to
// 32 bytes per byte of SQL, stays in the load process), so the server always
// knows which source, named query or notebook cell DuckDB was busy with when
// its process crashed, ran out of memory or of time. Such a step fails with a
// LoadError:
//   - building a source's view: the source is broken (Duck.Broken), the
//     others load;
//   - checking a named query or cell: it is told as the query's problem
//     (QueryChecks), the others are checked; after a crash or a stop for
//     memory, calls of it are refused (QueryCheck.Refuse);
//   - past loadLimit, or after maxLoadCrashes crashes while the views were
//     built: the model does not open (its error says which step); after
//     maxLoadCrashes crashes while queries were checked, those left unchecked
//     are refused (QueryCheck.Unchecked).
//
// An answer too large, or that does not read as an answer (Kind "answer",
// "unreadable"), is no crash: the process is ended and the step fails with
// that, without counting toward maxLoadCrashes.
//
// After a crash the next step starts a new load process on the same database
// file: DuckDB replays what the crashed one wrote (each view is committed as
// it is made). The last step closes the database, so its file is whole.

// loadLimit is how long the load of one model (its views built, its named
// queries and notebook cells checked) may take in its load process; past it
// the process is killed and the model reported (LoadError). Writing the file
// at the end has duckStartLimit more. A variable for the tests.
var loadLimit = 30 * time.Second

// maxLoadCrashes is how many times a model's load process may crash (or be
// stopped for its memory) before the load gives up: each crash costs a new
// process, and a catalog whose every source crashes DuckDB must not start one
// per source.
const maxLoadCrashes = 8

// loadAnswerHead is the most bytes a load step's answer may take beyond 32
// per byte of the step's SQL (roundTrip): its rows of strings, such as the
// columns' names and types of a view. The same as a query's (maxAnswerHead):
// more is an answer too large (LoadError "answer"), and a view whose columns
// were larger could not be described to a client or queried with SELECT *
// anyway. A variable for the tests.
var loadAnswerHead int64 = maxAnswerHead

// LoadError says a step of a model's load did not finish in its load process:
// DuckDB crashed, held more memory than it may, answered more than the server
// reads, or the load ran out of time, or the process could not be started.
type LoadError struct {
	Kind   string        // "crash", "memory", "answer" (too large), "unreadable", "time", "crashes" (too many), "start"
	What   string        // the step: "building the view of source t"
	Detail string        // how it ended: the crash's signal, the memory held, the steps that crashed; for "answer", its size; for "unreadable", what was read
	Limit  time.Duration // for "time": loadLimit
	Bytes  int64         // for "answer": the most bytes the server reads of that step's answer
	Ended  bool          // for "unreadable": the process was ended (its output could not be read on)
}

// stopped says why the load stopped after e, for what it left unchecked.
func (e *LoadError) stopped() string {
	switch e.Kind {
	case "time":
		return fmt.Sprintf("the load ran out of its %s", e.Limit)
	case "crashes":
		return fmt.Sprintf("DuckDB crashed %d times", maxLoadCrashes)
	}
	return "its load process failed"
}

// refusal says why no call may run a named query or notebook cell whose check
// ended with e ("" when a call may run it): DuckDB crashed on it, or it needed
// more memory than the load may hold, which running it would do again. Out of
// the load's time is no refusal: a call has its own time limit.
func (e *LoadError) refusal() string {
	switch e.Kind {
	case "crash":
		return "checking it crashed DuckDB (" + e.Detail + ")"
	case "memory":
		return "checking it needed more memory than a model's load may use (" + e.Detail + ")"
	}
	return ""
}

func (e *LoadError) Error() string {
	switch e.Kind {
	case "crash":
		return fmt.Sprintf("DuckDB crashed (%s) while %s; the load runs in a process of its own, so the server kept running. Change what this reads or computes (a deeply nested JSON value or expression, a huge constant), then save the file to load it again", e.Detail, e.What)
	case "answer":
		return fmt.Sprintf("DuckDB's answer while %s was larger than the server reads of one step of a load: %s, past %s. Such an answer is the names and types of a view's columns: a file with very many columns or keys, or deeply nested objects, gives types too large to serve. DuckDB did not crash, and the server kept running. Read fewer or flatter columns (name the ones needed in the SELECT, or give read_json a columns option), then save the file to load it again", e.What, e.Detail, mib(e.Bytes))
	case "unreadable":
		how := "DuckDB did not crash, and the server kept running"
		if e.Ended {
			how = "DuckDB did not crash: the load process was ended, the load went on with a new one, and the server kept running"
		}
		return fmt.Sprintf("the model's load process sent what does not read as an answer while %s (%s). %s. This is a fault of the server, not of the catalog: tell the server's operator if it happens again", e.What, e.Detail, how)
	case "memory":
		return fmt.Sprintf("DuckDB needed more memory than a model's load may use while %s (%s) and was stopped; the server kept running. Change what this reads or computes (a huge constant string or list), then save the file to load it again", e.What, e.Detail)
	case "time":
		return fmt.Sprintf("loading the model took longer than its %s limit: DuckDB was still %s, and was stopped (the server kept running). Make that step cheaper (a slow constant expression, a huge file sampled), then save the file to load it again", e.Limit, e.What)
	case "crashes":
		return fmt.Sprintf("DuckDB crashed %d times while loading the model (%s), so the load gave up; the server kept running. Fix those sources, then save the files to load the model again", maxLoadCrashes, e.Detail)
	}
	return "the model's load process " + e.Detail + ". This is a fault of the server, not of the catalog: tell the server's operator"
}

// loadConn is the DuckDB connection a model is built and checked on: in the
// server's process (localLoad) or in a load process (procLoad). Its errors are
// the engine's (duckErr's).
type loadConn interface {
	exec(ctx context.Context, query string) error
	// rows returns a query's rows of width values each, each value scanned
	// into a string. A row of another width (a load process's answer of
	// another shape) is an error, never handed to the caller.
	rows(ctx context.Context, width int, query string, args ...string) ([][]string, error)
	// prepare prepares text without running it and returns its parameters'
	// names (prepareNames).
	prepare(ctx context.Context, text string) ([]string, error)
	// viewBody returns a source's SELECT as its view is made of it
	// (rewritePaths: its file paths absolute, its readers frozen). It is one
	// step: in a load process the syntax tree is read and walked there, and
	// only the rewritten SQL comes back to the server.
	viewBody(ctx context.Context, sqlText string) (string, error)
	// doing names the step the next calls belong to ("building the view of
	// source t"), for a LoadError.
	doing(what string)
	// failed is the error every later call fails with, once the load cannot
	// go on (out of time, too many crashes); nil until then.
	failed() error
	// finish closes the database, its file whole; abandon closes it on a
	// failed build.
	finish(ctx context.Context) error
	abandon()
}

// rowString returns the one value of a query's first row (QueryRow's Scan).
func rowString(ctx context.Context, c loadConn, query string, args ...string) (string, error) {
	rs, err := c.rows(ctx, 1, query, args...)
	if err != nil {
		return "", err
	}
	if len(rs) == 0 {
		return "", sql.ErrNoRows
	}
	return rs[0][0], nil
}

// openLoad opens the database file at path for building model files of the
// package folder pkgDir: in a load process when cfg.Loader is set.
func openLoad(ctx context.Context, pkgDir, path string, cfg DuckConfig) (loadConn, error) {
	if cfg.Loader == nil {
		return openLocalLoad(ctx, pkgDir, path, cfg)
	}
	p := &procLoad{command: cfg.Loader, deadline: time.Now().Add(loadLimit), maxRSS: runningMaxRSS(cfg.MemoryLimit),
		memory: cfg.MemoryLimit, log: cfg.log(), dumps: cfg.CrashDumps, open: workerLoad{Path: path, PkgDir: pkgDir, Threads: cfg.Threads, MemoryLimit: cfg.MemoryLimit, TempLimit: cfg.TempLimit}}
	p.what = "opening the model's database"
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// localLoad is a loadConn in this process.
type localLoad struct {
	db     *sql.DB
	conn   *sql.Conn
	pkgDir string
}

// openLocalLoad opens a new database file at path, held to cfg's limits and
// locked down as queries are: making a view reads its files, and a source
// must not read, or show the columns of, a file outside the package.
func openLocalLoad(ctx context.Context, pkgDir, path string, cfg DuckConfig) (*localLoad, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	// What building reads and prepares (a source's files, the named queries'
	// constant expressions) is held to the model's limits, as queries are.
	for _, set := range []string{
		"SET GLOBAL memory_limit = " + quoteLit(cfg.MemoryLimit),
		"SET GLOBAL threads = " + strconv.Itoa(cfg.Threads),
	} {
		if _, err := db.ExecContext(ctx, set); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %s: %w", set, err)
		}
	}
	if err := lockDown(ctx, db, pkgDir, cfg.TempLimit); err != nil {
		db.Close()
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &localLoad{db: db, conn: conn, pkgDir: pkgDir}, nil
}

func (l *localLoad) exec(ctx context.Context, query string) error {
	_, err := l.conn.ExecContext(ctx, query)
	return duckErr(err)
}

func (l *localLoad) rows(ctx context.Context, width int, query string, args ...string) ([][]string, error) {
	a := make([]any, len(args))
	for i, s := range args {
		a[i] = s
	}
	rows, err := l.conn.QueryContext(ctx, query, a...)
	if err != nil {
		return nil, duckErr(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if len(cols) != width {
		return nil, fmt.Errorf("load: a query of %d columns, not %d", len(cols), width)
	}
	var out [][]string
	for rows.Next() {
		row := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, duckErr(rows.Err())
}

func (l *localLoad) prepare(_ context.Context, text string) ([]string, error) {
	return prepareNames(l.conn, text)
}

func (l *localLoad) viewBody(ctx context.Context, sqlText string) (string, error) {
	return rewritePaths(ctx, l, sqlText, l.pkgDir)
}

func (l *localLoad) doing(string)  {}
func (l *localLoad) failed() error { return nil }

func (l *localLoad) finish(context.Context) error {
	l.conn.Close()
	return l.db.Close()
}

func (l *localLoad) abandon() { l.finish(context.Background()) }

// procLoad is a loadConn whose database is a load process's: each call is a
// step the process answers (serveLoad). Not safe for concurrent use.
type procLoad struct {
	command  func() *exec.Cmd
	open     workerLoad
	deadline time.Time    // the model's loadLimit
	maxRSS   int64        // runningMaxRSS: past it the process is stopped
	memory   string       // the memory limit, for messages
	log      *slog.Logger // where a crash is noted, rate-limited (workerNotes)
	dumps    bool         // DuckConfig.CrashDumps

	w       *duckWorker // nil: the next step starts one
	what    string      // the step under way
	crashes []string    // the steps that crashed
	stop    error       // failed()
}

// loadStep is one step of a load, sent to its process. Texts go as bytes
// (base64 in JSON), byte for byte: a JSON string would replace bytes that are
// not UTF-8.
type loadStep struct {
	Op    string   `json:"op"` // "exec", "rows", "prepare", "view", "close"
	SQL   []byte   `json:"sql,omitempty"`
	Args  [][]byte `json:"args,omitempty"`
	Width int      `json:"width,omitempty"` // for "rows": the values a row has
}

// workerLoad asks a worker to serve a load (serveLoad) on the database file
// at Path, for the package folder PkgDir.
type workerLoad struct {
	Path        string `json:"path"`
	PkgDir      string `json:"pkgDir"`
	Threads     int    `json:"threads"`
	MemoryLimit string `json:"memoryLimit"`
	TempLimit   string `json:"tempLimit"`
}

// start starts a load process and has it open the database.
func (p *procLoad) start(ctx context.Context) error {
	// What the process writes goes nowhere but into its workerCapture
	// (launchWorker), for the one log line of a crash (noteCrash) and the
	// step's error (crashDetail). Before, it went to the server's standard
	// error: a model whose every query crashed DuckDB wrote about 8 KB of the
	// Go runtime's dump per crash there, at each load, past the rate limit.
	w, err := launchWorker(p.command(), p.open.Threads, "", workerOutput{})
	if err != nil {
		p.stop = &LoadError{Kind: "start", Detail: "could not be started (" + err.Error() + ")"}
		return p.stop
	}
	p.w = w
	what := p.what
	p.what = "opening the model's database"
	if len(p.crashes) > 0 {
		p.what = "opening the model's database again, after DuckDB crashed"
	}
	_, err = p.roundTrip(ctx, workerRequest{Load: &p.open}, 0)
	p.what = what
	var le *LoadError
	if err != nil && !errors.As(err, &le) && ctx.Err() == nil {
		p.end()
		p.stop = &LoadError{Kind: "start", Detail: "could not open the model's database: " + err.Error()}
		return p.stop
	}
	return err
}

func (p *procLoad) doing(what string) { p.what = what }
func (p *procLoad) failed() error     { return p.stop }

func (p *procLoad) exec(ctx context.Context, query string) error {
	_, err := p.step(ctx, loadStep{Op: "exec", SQL: []byte(query)})
	return err
}

// rows is the one place a load process's rows are checked for their shape:
// a row of another width than asked (the process's answer is not what was
// asked for) fails the step, told as an answer that does not read, and the
// process is left running.
func (p *procLoad) rows(ctx context.Context, width int, query string, args ...string) ([][]string, error) {
	st := loadStep{Op: "rows", SQL: []byte(query), Width: width}
	for _, a := range args {
		st.Args = append(st.Args, []byte(a))
	}
	ans, err := p.step(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, r := range ans.Strings {
		if len(r) != width {
			return nil, &LoadError{Kind: "unreadable", What: p.what, Detail: fmt.Sprintf("a row of %d values, not %d", len(r), width)}
		}
	}
	return ans.Strings, nil
}

func (p *procLoad) prepare(ctx context.Context, text string) ([]string, error) {
	ans, err := p.step(ctx, loadStep{Op: "prepare", SQL: []byte(text)})
	if err != nil {
		return nil, err
	}
	if len(ans.Strings) != 1 {
		return nil, &LoadError{Kind: "unreadable", What: p.what, Detail: "an answer without the prepared statement's parameters"}
	}
	return ans.Strings[0], nil
}

func (p *procLoad) viewBody(ctx context.Context, sqlText string) (string, error) {
	ans, err := p.step(ctx, loadStep{Op: "view", SQL: []byte(sqlText)})
	if err != nil {
		return "", err
	}
	if len(ans.Strings) != 1 || len(ans.Strings[0]) != 1 {
		return "", &LoadError{Kind: "unreadable", What: p.what, Detail: "an answer without the view's SQL"}
	}
	return ans.Strings[0][0], nil
}

// finish has the load process close the database (a new one, opening it
// again, when the last crashed or ran out of time), with duckStartLimit to do
// it in. A load whose ctx ended is not finished: its file is not used, and no
// process is started to close it.
func (p *procLoad) finish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		p.end()
		return err
	}
	p.stop = nil
	p.deadline = time.Now().Add(duckStartLimit)
	p.what = "writing the model's database"
	_, err := p.step(ctx, loadStep{Op: "close"})
	p.end()
	return err
}

func (p *procLoad) abandon() { p.end() }

// end kills the load process, if one runs.
func (p *procLoad) end() {
	if p.w != nil {
		p.w.kill()
		p.w = nil
	}
}

// step sends st to the load process (starting one if none runs) and returns
// its answer.
func (p *procLoad) step(ctx context.Context, st loadStep) (workerAnswer, error) {
	if p.stop != nil {
		return workerAnswer{}, p.stop
	}
	if p.w == nil {
		if err := p.start(ctx); err != nil {
			return workerAnswer{}, err
		}
	}
	size := len(st.SQL)
	for _, a := range st.Args {
		size += len(a)
	}
	return p.roundTrip(ctx, workerRequest{Step: &st}, size)
}

// roundTrip sends req to the load process and waits for its answer, watching
// its memory, the model's deadline and ctx. A process that ends, or is ended,
// before it answers fails the step with a LoadError (ctx's error when ctx
// ended); an error DuckDB answered is the step's error.
func (p *procLoad) roundTrip(ctx context.Context, req workerRequest, size int) (workerAnswer, error) {
	w := p.w
	// The answer holds rows of strings DuckDB made of the text sent (a syntax
	// tree written as JSON, an error quoting the text): bounded by the text's
	// size, many times over.
	w.maxHead.Store(loadAnswerHead + 32*int64(size))
	if err := w.send(req, p.deadline); err != nil {
		// The process ended (its input closed): its reader tells how.
		select {
		case <-w.exited:
		case <-time.After(time.Second):
		}
	}
	left := time.Until(p.deadline)
	timer := time.NewTimer(max(left, 0))
	defer timer.Stop()
	watch, stopWatch := rssWatch(p.maxRSS)
	defer stopWatch()
	for {
		select {
		case <-watch:
			if rss := residentBytes(w.cmd.Process.Pid); rss > p.maxRSS {
				p.end()
				return workerAnswer{}, p.crashed(&LoadError{Kind: "memory", What: p.what,
					Detail: fmt.Sprintf("its load process held %d MiB, past the %d MiB it may hold with a memory limit of %s", rss>>20, p.maxRSS>>20, p.memory)})
			}
		case ans, ok := <-w.replies:
			if !ok {
				bad := w.badAnswer // set before replies was closed
				p.end()            // waits for the process: its exit status and standard error are complete
				var big *frameTooLarge
				if errors.As(bad, &big) {
					// Not a crash: the process is ended because its output
					// cannot be read past that answer, and the next step
					// starts a new one. The step's own fault (a source's
					// columns), so it is not counted against maxLoadCrashes;
					// loadLimit bounds the restarts.
					limit := big.maxHead
					if big.head <= big.maxHead {
						limit = big.maxBody
					}
					return workerAnswer{}, &LoadError{Kind: "answer", What: p.what, Detail: fmt.Sprintf("%d bytes", big.head+big.body), Bytes: limit}
				}
				if bad != nil {
					// Not a crash either: the process sent what does not
					// read as an answer (a garbled frame), and is ended
					// because nothing after it can be trusted. Told as
					// that, on the step, and not counted against
					// maxLoadCrashes (loadLimit bounds the restarts).
					workerNotes.note(p.log, "a load process's answer could not be read; the process was ended", "pid", w.cmd.Process.Pid, "package", p.open.PkgDir, "while", p.what, "error", bad.Error())
					return workerAnswer{}, &LoadError{Kind: "unreadable", What: p.what, Detail: bad.Error(), Ended: true}
				}
				detail := crashDetail(w.waitErr, w.capture.stderr.String())
				p.noteCrash(w, detail)
				return workerAnswer{}, p.crashed(&LoadError{Kind: "crash", What: p.what, Detail: detail})
			}
			if ans.Error != nil {
				return ans, ans.Error.err()
			}
			return ans, nil
		case <-timer.C:
			p.end()
			p.stop = &LoadError{Kind: "time", What: p.what, Limit: loadLimit}
			return workerAnswer{}, p.stop
		case <-ctx.Done():
			p.end()
			p.stop = ctx.Err()
			return workerAnswer{}, p.stop
		}
	}
}

// noteCrash logs, in one line, that w crashed while p.what (its model's
// problems say the same, with the model), rate-limited with the query
// processes' troubles (workerNotes): each load of a catalog whose every query
// crashes DuckDB would log a line a query. What the process wrote goes into
// the line only with DuckConfig.CrashDumps.
func (p *procLoad) noteCrash(w *duckWorker, detail string) {
	args := []any{"pid", w.cmd.Process.Pid, "package", p.open.PkgDir, "while", p.what, "detail", detail}
	if p.dumps {
		if out := w.capture.dump(); out != "" {
			args = append(args, "output", out)
		}
	}
	workerNotes.note(p.log, "a load process crashed; what it was doing is listed in its model's problems", args...)
}

// crashed counts a crash (or a stop for memory), le, and returns it; at
// maxLoadCrashes the load stops.
func (p *procLoad) crashed(le *LoadError) error {
	p.crashes = append(p.crashes, le.What)
	if len(p.crashes) >= maxLoadCrashes {
		p.stop = &LoadError{Kind: "crashes", Detail: strings.Join(p.crashes, "; ")}
	}
	return le
}

// crashDetail says how a load process ended: the line of its standard error
// that says why it crashed (crashLine: the Go runtime's signal, fatal error or
// panic, the C++ runtime's, DuckDB's), or its exit status.
func crashDetail(waitErr error, stderr string) string {
	if l := crashLine(stderr); l != "" {
		return l
	}
	if waitErr != nil {
		return "its process ended: " + waitErr.Error()
	}
	return "its process ended without answering"
}

// serveLoad serves the steps of a model's load (procLoad) in a load process,
// on a localLoad of the database o names: requests on dec, answers by reply.
// It returns the process's exit code: 0 once the database is closed (or the
// server went away), 1 when it cannot be opened.
func serveLoad(dec *json.Decoder, reply func(workerAnswer) bool, o *workerLoad) int {
	ctx := context.Background()
	l, err := openLocalLoad(ctx, o.PkgDir, o.Path, DuckConfig{Threads: o.Threads, MemoryLimit: o.MemoryLimit, TempLimit: o.TempLimit}.withDefaults())
	if err != nil {
		reply(workerAnswer{Error: toWire(err)})
		return 1
	}
	if !reply(workerAnswer{OK: true}) {
		l.abandon()
		return 0
	}
	for {
		var req workerRequest
		if err := dec.Decode(&req); err != nil || req.Step == nil {
			l.abandon()
			return 0
		}
		st := req.Step
		var ans workerAnswer
		switch st.Op {
		case "exec":
			err = l.exec(ctx, string(st.SQL))
		case "rows":
			args := make([]string, len(st.Args))
			for i, a := range st.Args {
				args[i] = string(a)
			}
			ans.Strings, err = l.rows(ctx, st.Width, string(st.SQL), args...)
		case "prepare":
			var names []string
			names, err = l.prepare(ctx, string(st.SQL))
			ans.Strings = [][]string{names}
		case "view":
			var body string
			body, err = l.viewBody(ctx, string(st.SQL))
			ans.Strings = [][]string{{body}}
		case "close":
			err = l.finish(ctx)
		default:
			err = fmt.Errorf("load: unknown step %q", st.Op)
		}
		if err != nil {
			ans = workerAnswer{Error: toWire(err)}
		} else {
			ans.OK = true
		}
		if !reply(ans) || st.Op == "close" {
			if st.Op != "close" {
				l.abandon()
			}
			return 0
		}
	}
}
