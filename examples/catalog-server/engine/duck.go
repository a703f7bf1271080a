package engine

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/rivo/uniseg"
	"golang.org/x/text/width"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// duckMaxConns caps the connections, and so the queries running at once, of one
// DuckDB model database.
const duckMaxConns = 8

// DuckConfig bounds a DuckDB model database.
type DuckConfig struct {
	Threads     int    // worker threads per model database; zero means DefaultThreads
	MemoryLimit string // DuckDB memory_limit; empty means DefaultMemoryLimit
	// TempLimit is DuckDB's max_temp_directory_size: the most a database may
	// spill to its temporary folder; empty means DefaultTempLimit.
	TempLimit string
	// Worker, when set, makes OpenDuckProc's command for a query process: a
	// program that calls ServeDuckWorker on its standard input and output. Each
	// process opens the model's database on its own (Threads and MemoryLimit
	// apply to each).
	Worker func() *exec.Cmd
	// Loader, when set, makes the command of a load process (loadproc.go):
	// the same program as Worker's. Building the model's database and
	// checking its named queries and notebook cells then run DuckDB in a
	// process of their own, one per model load, which a crash of DuckDB ends
	// instead of the server, stopped past loadLimit or twice the memory limit
	// (as a query process is). Without it they run in this process.
	Loader func() *exec.Cmd
	// Processes, when set, caps the query processes running queries at once
	// over every model that shares it (each model has its own cap of
	// duckMaxConns as well); nil means the models' caps alone.
	Processes *ProcessLimit
	// Log, when set, is where a query or load process's troubles are logged
	// (a crash, an answer that could not be read), one line each, at most
	// workerNotesPerMinute a minute; nil means slog.Default().
	Log *slog.Logger
	// CrashDumps adds to the log line of a query or load process that crashed what it
	// wrote (its first 2 KiB and last 8 KiB: the Go runtime's crash dump).
	CrashDumps bool
	// Typed, when set, gives the text a named query runs as (its parameters
	// cast to their declared types) and maps a 1-based character position in
	// it back to the query's own SQL: the check when a model opens prepares
	// that text, so that it finds what every call would. CastType gives the
	// type a declared type is cast to, "" for a parameter bound uncast, whose
	// type is then not checked. Without them, the SQL is prepared as written
	// and every declared type that is a plain type name is checked.
	Typed    func(q *catalog.Query) (text string, orig func(pos int) int)
	CastType func(t string) string
	// CheckBudget is how long the check of a model's named queries and cells
	// may start new ones when the model opens (checkQueries); zero means
	// queryCheckBudget (2 s). The server leaves it zero; a test sets it to
	// outlast the crashes it makes.
	CheckBudget time.Duration
}

// checkBudget is c.CheckBudget, or queryCheckBudget for zero.
func (c DuckConfig) checkBudget() time.Duration {
	if c.CheckBudget > 0 {
		return c.CheckBudget
	}
	return queryCheckBudget
}

// ProcessLimit caps the query processes running queries at once over the models
// that share it.
type ProcessLimit struct {
	slots *fairSlots // given round-robin by client
}

// NewProcessLimit returns a cap of n (at least 1) running query processes.
func NewProcessLimit(n int) *ProcessLimit {
	return &ProcessLimit{slots: newFairSlots(n)}
}

// Duck is one model opened on DuckDB: a small database file holding one view per
// source, opened read-only. Safe for concurrent use.
type Duck struct {
	// mu guards closed and db. running counts the queries holding one of the model's
	// connections, until DuckDB returns (which may be after their caller was
	// answered): Close marks the model closed, so no query starts on it any
	// more, and closes the database once running is zero. A query meeting a
	// closing model is answered ErrClosed at once; it never waits for the
	// computations Close waits for.
	mu        sync.Mutex
	closed    bool
	running   sync.WaitGroup
	closeOnce sync.Once
	db        *sql.DB     // replaced by reopen
	parser    *duckParser // nil: the gate judges every text
	tmp       string
	memory    string // memory_limit, for MemoryError
	temp      string // max_temp_directory_size, for MemoryError
	columns   map[string][]Column
	broken    map[string]string     // source name → why its view could not be made
	checks    map[string]QueryCheck // named query → what its check found (checkQueries); nil in a query process
	keepWire  bool                  // in a query process: results keep their values' JSON (rowAppender)
	// file and cfg open the database again after DuckDB invalidated it
	// (reopen); nil in a query process, which is ended instead (DuckProc).
	// file names the database open now (a copy after a reopen).
	file       *duckFile
	cfg        DuckConfig
	reopenMu   sync.Mutex // one reopen at a time; guards file, reopened, lastReopen and lastFailed
	reopened   int        // times the database was opened again (or tried to be)
	lastReopen time.Time  // when the database was last opened again
	lastFailed time.Time  // when the last try to open it again failed (zero after a success)
	// inUse counts, under mu, the queries on each database (the current one,
	// and one reopen replaced while queries ran on it); retired holds the
	// spill folder of a replaced one, removed when its last query ends.
	inUse   map[*sql.DB]int
	retired map[*sql.DB]string
	// slots are the model's duckMaxConns connections, given round-robin by
	// client; a query takes one before a connection of db's pool (as large),
	// and gives it back once its connection is back in the pool.
	slots *fairSlots
}

// reopenEvery is how often at most a model's database is opened again: a
// FATAL or INTERNAL error sooner after the last reopen is answered, and the
// database left as it is until one comes later (no reopening in a loop).
const reopenEvery = 10 * time.Second

// reopenRetry is how long after a failed try to open the database again (its
// file could not be linked or copied, or DuckDB did not open it) the next one
// may be made: sooner than reopenEvery, as the database is still unusable, but
// not at every query.
const reopenRetry = time.Second

// OpenDuck builds and opens the database of model m. Sources whose SQL fails are
// reported by Broken and left out; the model still opens.
func OpenDuck(ctx context.Context, m *catalog.Model, cfg DuckConfig) (*Duck, error) {
	cfg = cfg.withDefaults()
	f, err := buildDuckFile(ctx, m, cfg)
	if err != nil {
		return nil, err
	}
	d, err := openDuckFile(ctx, f, cfg)
	if err != nil {
		os.RemoveAll(f.tmp)
		return nil, err
	}
	d.file, d.cfg = f, cfg
	return d, nil
}

// duckFile is the database file of a model: one view per source that loaded,
// in a temporary folder of its own (with DuckDB's spill folder).
type duckFile struct {
	tmp    string // the folder, removed when the model closes
	path   string // the database file in it
	pkgDir string // the package folder, symbolic links resolved
	// spill is DuckDB's spill folder; empty means tmp/spill. Each query
	// process has its own: DuckDB names its spill files after their order, so
	// two DuckDBs sharing a folder overwrite each other's.
	spill   string
	columns map[string][]Column
	broken  map[string]string
	checks  map[string]QueryCheck // named query → what its check found (checkQueries)
}

// buildDuckFile writes the database file of model m.
func buildDuckFile(ctx context.Context, m *catalog.Model, cfg DuckConfig) (*duckFile, error) {
	// The package folder with its symbolic links resolved: file paths are judged
	// against it, as DuckDB judges them against allowed_directories.
	pkgDir, err := filepath.Abs(m.Package.Dir)
	if err == nil {
		pkgDir, err = filepath.EvalSymlinks(pkgDir)
	}
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", modelDirPattern()) // named after this process: RemoveLeftovers
	if err != nil {
		return nil, err
	}
	f := &duckFile{tmp: tmp, path: filepath.Join(tmp, "model.duckdb"), pkgDir: pkgDir}
	b := &Duck{columns: map[string][]Column{}, broken: map[string]string{}}
	if err := b.build(ctx, m, pkgDir, f.path, cfg); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	f.columns, f.broken, f.checks = b.columns, b.broken, b.checks
	return f, nil
}

// DefaultThreads is DuckDB's thread count for a model whose DuckConfig gives
// none (the server's -threads default).
const DefaultThreads = 2

// DefaultMemoryLimit is DuckDB's memory limit for a model whose DuckConfig gives
// none (the server's -memory-limit default).
const DefaultMemoryLimit = "512MB"

// DefaultTempLimit is the most a model's DuckDB database (each query process's,
// with query processes) may spill to disk, for a DuckConfig that gives none (the
// server's -temp-limit default). DuckDB's own default is 90% of the free disk
// space: one query could fill the temporary folder's disk.
const DefaultTempLimit = "1GB"

// withDefaults returns c with DefaultThreads for a Threads below 1,
// DefaultMemoryLimit for an empty MemoryLimit and DefaultTempLimit for an empty
// TempLimit. OpenDuck, OpenDuckProc and a query process apply it once; what
// they call reads the fields as they are.
func (c DuckConfig) withDefaults() DuckConfig {
	if c.Threads <= 0 {
		c.Threads = DefaultThreads
	}
	if c.MemoryLimit == "" {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.TempLimit == "" {
		c.TempLimit = DefaultTempLimit
	}
	return c
}

// openDuckFile opens the database file f read-only, locked down, for queries.
func openDuckFile(ctx context.Context, f *duckFile, cfg DuckConfig) (*Duck, error) {
	db, err := openDuckDB(ctx, f, cfg)
	if err != nil {
		return nil, err
	}
	d := &Duck{tmp: f.tmp, memory: cfg.MemoryLimit, temp: cfg.TempLimit, columns: f.columns, broken: f.broken, checks: f.checks, db: db, slots: newFairSlots(duckMaxConns)}
	d.parser, _ = processParser() // without it (an error) the gate judges every text
	return d, nil
}

// openDuckDB opens the database file f read-only, locked down, with cfg's
// threads, memory limit and spill limit.
func openDuckDB(ctx context.Context, f *duckFile, cfg DuckConfig) (*sql.DB, error) {
	q := url.Values{}
	q.Set("access_mode", "READ_ONLY")
	q.Set("threads", strconv.Itoa(cfg.Threads))
	q.Set("memory_limit", cfg.MemoryLimit)
	spill := f.spill
	if spill == "" {
		spill = filepath.Join(f.tmp, "spill")
	}
	q.Set("temp_directory", spill)
	// DuckDB's defaults for these are under the server user's home directory,
	// which a query could read back (current_setting, duckdb_settings, the error
	// of which_secret or duckdb_extensions). Neither is used: extensions cannot
	// load and no secret can be stored.
	q.Set("secret_directory", filepath.Join(f.tmp, "secrets"))
	q.Set("extension_directory", filepath.Join(f.tmp, "extensions"))
	// Nothing may be installed or stored anyway (INSTALL, LOAD and CREATE SECRET
	// are statements, refused); these say so in the settings too.
	q.Set("allow_community_extensions", "false")
	q.Set("allow_persistent_secrets", "false")
	db, err := sql.Open("duckdb", f.path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// At most duckMaxConns queries of the model run at once (each holds its rows,
	// up to the byte budget); the others wait for a connection within their time
	// limit, for their turn in Duck.slots, as many as the pool's connections, so
	// that the pool never has a query waiting in its own order.
	db.SetMaxOpenConns(duckMaxConns)
	if err := lockDown(ctx, db, f.pkgDir, cfg.TempLimit); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// duckFatal reports whether err is one of DuckDB's FATAL or INTERNAL errors
// (its message starts with the type, as "INTERNAL Error: …"). After one DuckDB
// may have invalidated the database ("FATAL Error: Failed: database has been
// invalidated because of a previous fatal error"), and every later query on it
// fails until it is opened again: a query process is ended (DuckProc.Query),
// and in the server's process the model's database is opened again (reopen).
func duckFatal(err error) bool {
	var se *SQLError
	if !errors.As(err, &se) || se.Engine != "duckdb" {
		return false
	}
	return strings.HasPrefix(se.Message, "FATAL Error") || strings.HasPrefix(se.Message, "INTERNAL Error")
}

// reopen opens the model's database again in place of old, after a query on
// old failed with one of DuckDB's FATAL or INTERNAL errors, so that the next
// queries do not fail with "database has been invalidated". The queries still
// running on old keep their connections (DuckDB holds the old database until
// they close); old is closed for new ones. Nothing happens when another query
// reopened it already, the model is closing, it is a query process's, the
// last reopen was less than reopenEvery ago, or the last try failed less than
// reopenRetry ago.
//
// The caller waits for it: the file holds views alone, so opening it takes
// milliseconds (at most duckStartLimit), and the queries after it find the
// database ready. The previous database file is removed once the new one is
// open (on Unix a file still open stays readable; elsewhere it goes with the
// model's folder), and its spill folder when its last query ends: a model
// keeps one database file and one spill folder, however often it is reopened.
func (d *Duck) reopen(old *sql.DB) {
	d.reopenMu.Lock()
	defer d.reopenMu.Unlock()
	if d.file == nil {
		return
	}
	d.mu.Lock()
	current, closed := d.db, d.closed
	d.mu.Unlock()
	if closed || current != old || !d.lastReopen.IsZero() && time.Since(d.lastReopen) < reopenEvery ||
		!d.lastFailed.IsZero() && time.Since(d.lastFailed) < reopenRetry {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), duckStartLimit)
	defer cancel()
	// duckdb-go opens a file through DuckDB's instance cache, by path: the
	// invalidated database stays the one at the file's path until the last
	// query on it ends. The new one opens the file under another name (a hard
	// link, or a copy: it holds the views alone), and spills to a folder of its
	// own (DuckDB names its spill files after their order, and two databases
	// sharing a folder overwrite each other's).
	d.reopened++
	prev := *d.file
	if prev.spill == "" {
		prev.spill = filepath.Join(prev.tmp, "spill")
	}
	f := prev
	f.path = filepath.Join(f.tmp, fmt.Sprintf("model-%d.duckdb", d.reopened))
	f.spill = filepath.Join(f.tmp, fmt.Sprintf("spill-%d", d.reopened))
	if err := linkOrCopy(prev.path, f.path); err != nil {
		// The next query fails as this one did, and tries again if it comes
		// reopenRetry or more after this try.
		d.lastFailed = time.Now()
		return
	}
	db, err := openDuckDB(ctx, &f, d.cfg)
	if err != nil {
		os.Remove(f.path)
		d.lastFailed = time.Now()
		return
	}
	d.lastReopen, d.lastFailed = time.Now(), time.Time{}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		db.Close()
		return
	}
	d.db = db
	d.file = &f
	idle := d.inUse[old] == 0
	if !idle {
		if d.retired == nil {
			d.retired = map[*sql.DB]string{}
		}
		d.retired[old] = prev.spill
	}
	d.mu.Unlock()
	old.Close()
	os.Remove(prev.path)
	if idle {
		os.RemoveAll(prev.spill)
	}
}

// use counts a query on db (the database it took from d.db) until release;
// under d.mu.
func (d *Duck) use(db *sql.DB) {
	if d.inUse == nil {
		d.inUse = map[*sql.DB]int{}
	}
	d.inUse[db]++
}

// release ends a query's use of db; the last query on a database reopen
// replaced removes its spill folder (its connection closed, DuckDB closed it).
func (d *Duck) release(db *sql.DB) {
	d.mu.Lock()
	d.inUse[db]--
	spill, retired := "", false
	if d.inUse[db] == 0 {
		delete(d.inUse, db)
		spill, retired = d.retired[db]
		delete(d.retired, db)
	}
	d.mu.Unlock()
	if retired {
		os.RemoveAll(spill)
	}
}

// lockDown limits file access to the package folder pkgDir (DuckDB resolves
// symbolic links before it compares a path with allowed_directories, so a link out
// of the folder is refused), turns extension loading off and locks the
// configuration. The settings are global: set once, then locked for every
// connection.
//
// It also keeps the metadata of the Parquet files queries read (their footers:
// schema, row groups, statistics) between queries: a model's queries read the
// same files again and again, and without it each query parses each file's
// footer when it is prepared and again when it runs. DuckDB checks a file's
// modification time before it uses what it kept, so a file written again is
// read afresh (TestDuckParquetChanged).
//
// And it caps what DuckDB may spill to its temporary folder at tempLimit
// (max_temp_directory_size; DuckDB's default is 90% of the disk's free space).
// Set at run time: DuckDB 1.5.6 shows the value when it is given as the
// database opens, but does not hold spilling to it (TestDuckTempLimit).
func lockDown(ctx context.Context, db *sql.DB, pkgDir, tempLimit string) error {
	for _, s := range []string{
		"SET GLOBAL parquet_metadata_cache = true",
		"SET GLOBAL max_temp_directory_size = " + quoteLit(tempLimit),
		"SET GLOBAL allowed_directories = [" + quoteLit(pkgDir+string(filepath.Separator)) + "]",
		"SET GLOBAL enable_external_access = false",
		"SET GLOBAL autoinstall_known_extensions = false",
		"SET GLOBAL autoload_known_extensions = false",
		"SET GLOBAL lock_configuration = true",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	return nil
}

// build writes the views of m into a new database file at path, and checks
// m's named queries and notebook cells, on a loadConn (in a load process when
// cfg.Loader is set). It runs under the same file-access limits as queries
// run: making a view reads its files (to learn the columns), and a source must
// not read, or show the columns of, a file outside the package.
func (d *Duck) build(ctx context.Context, m *catalog.Model, pkgDir, path string, cfg DuckConfig) (err error) {
	conn, err := openLoad(ctx, pkgDir, path, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			conn.abandon()
		}
	}()
	for _, s := range m.Sources {
		if msg := textProblem(s.SQL, s.Line, s.Col, "its view cannot be built"); msg != "" {
			d.broken[s.Name] = filepath.Base(m.File) + ": " + msg
			continue
		}
		conn.doing("building the view of source " + s.Name)
		body, err := conn.viewBody(ctx, s.SQL)
		var le *LoadError
		switch {
		case errors.As(err, &le):
			// DuckDB's process crashed on it: not asked again.
		case err == nil:
			if err = conn.exec(ctx, "CREATE VIEW "+quoteIdent(s.Name)+" AS "+body); err != nil && !errors.As(err, &le) {
				err = sourceError(ctx, conn, s, filepath.Base(m.File), pkgDir, body, err)
			}
		default:
			if se := (*SQLError)(nil); errors.As(err, &se) {
				err = &sourceLoadError{se: se, text: inFile(se, s.SQL, s.Line, s.Col, filepath.Base(m.File))}
			}
		}
		if err != nil {
			if f := conn.failed(); f != nil {
				return f // out of time, or too many crashes: the model does not open
			}
			d.broken[s.Name] = err.Error()
		}
	}
	// Each view's columns on their own: one whose answer is larger than the
	// server reads (LoadError "answer": the types of a file with very many
	// keys) makes only its source broken.
	for _, s := range m.Sources {
		if _, bad := d.broken[s.Name]; bad {
			continue
		}
		conn.doing("reading the columns of the view of source " + s.Name)
		rows, err := conn.rows(ctx, 2, "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position", s.Name)
		var le *LoadError
		if err != nil && conn.failed() == nil && errors.As(err, &le) {
			d.broken[s.Name] = err.Error()
			// Not served, as a source whose view was not made.
			if err := conn.exec(ctx, "DROP VIEW "+quoteIdent(s.Name)); err != nil && conn.failed() != nil {
				return conn.failed()
			}
			continue
		}
		if err != nil {
			return err
		}
		for _, r := range rows {
			d.columns[s.Name] = append(d.columns[s.Name], Column{Name: r[0], Type: r[1]})
		}
	}
	d.checks = checkQueries(ctx, conn, m, cfg)
	return conn.finish(ctx)
}

// linkOrCopy makes the file dst hold src's contents: a hard link, or a copy
// where one cannot be made.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Columns returns the columns of each source that opened, by source name.
func (d *Duck) Columns() map[string][]Column { return d.columns }

// Broken returns, by source name, why a source's view could not be made.
func (d *Duck) Broken() map[string]string { return d.broken }

// QueryChecks returns, by named query, what DuckDB found wrong with it when the
// model opened (checkQueries); under "" the queries left unchecked.
func (d *Duck) QueryChecks() map[string]QueryCheck { return d.checks }

// Discard removes the model's files (its database file and DuckDB's temporary
// folder) without waiting for running queries: a process that stops without
// waiting for a computation leaves nothing behind. The database stays open for
// the queries still on it (on Unix a removed file stays readable while open;
// spilling to disk then fails), so it is for a process about to exit.
func (d *Duck) Discard() { os.RemoveAll(d.tmp) }

// Close closes the database (waiting for running queries, including those
// still computing after their caller was answered) and removes its file.
// Queries that start meanwhile get ErrClosed. A second call returns once the
// first has closed the database.
func (d *Duck) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	var err error
	d.closeOnce.Do(func() {
		d.running.Wait()
		d.mu.Lock()
		db := d.db
		d.mu.Unlock()
		err = db.Close()
		os.RemoveAll(d.tmp)
	})
	return err
}

// serialized is the part of json_serialize_sql's answer the gate reads.
type serialized struct {
	Error        bool              `json:"error"`
	ErrorType    string            `json:"error_type"`
	ErrorMessage string            `json:"error_message"`
	Position     string            `json:"position"`
	Statements   []json.RawMessage `json:"statements"`
}

// writeWords are the statements that change data or the database; the parser
// naming one as where it stopped makes a syntax error a refusal.
var writeWords = map[string]bool{"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true,
	"COPY": true, "CREATE": true, "DROP": true, "ALTER": true, "TRUNCATE": true, "ATTACH": true,
	"DETACH": true, "INSTALL": true, "LOAD": true}

// wordNear returns the word (letters, upper-cased) at byte offset pos of sqlText
// when it is one of writeWords, else the word before it: where DuckDB's parser
// reports a statement inside a query (at it, or at the word after it).
func wordNear(sqlText string, pos int) string {
	if pos < 0 || pos > len(sqlText) {
		return ""
	}
	letter := func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
	end := pos
	for end < len(sqlText) && letter(sqlText[end]) {
		end++
	}
	if w := strings.ToUpper(sqlText[pos:end]); writeWords[w] {
		return w
	}
	i := pos
	for i > 0 && (sqlText[i-1] == ' ' || sqlText[i-1] == '\t' || sqlText[i-1] == '\n' || sqlText[i-1] == '\r') {
		i--
	}
	start := i
	for start > 0 && letter(sqlText[start-1]) {
		start--
	}
	return strings.ToUpper(sqlText[start:i])
}

// firstWord returns the first keyword of a statement, for messages only: the
// first run of letters after its leading white space and comments.
func firstWord(sqlText string) string {
	s := skipSpaceAndComments(sqlText)
	f := strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') })
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(f[0])
}

// article is "an" before a word that starts with a vowel sound (INSERT, UPDATE,
// ALTER, EXPLAIN), "a" before the rest (USE among them).
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOU", rune(word[0])) && word != "USE" {
		return "an"
	}
	return "a"
}

// skipSpaceAndComments returns s after its leading white space and comments, as
// DuckDB's and PostgreSQL's lexers read them (a line comment ends at \n or \r);
// "" when a comment runs to the end of s.
func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "--"):
			j := strings.IndexAny(s, "\n\r")
			if j < 0 {
				return ""
			}
			s = s[j:]
		case strings.HasPrefix(s, "/*"):
			rest, closed := afterComment(s)
			if !closed {
				return ""
			}
			s = rest
		default:
			return s
		}
	}
}

// afterComment returns s after the block comment it starts with, and false
// (with "") when the comment does not close; DuckDB's and PostgreSQL's block
// comments nest (/* a /* b */ c */ is one comment).
func afterComment(s string) (string, bool) {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return s[i+1:], true
			}
		}
	}
	return "", false
}

// gateQuery is the gate's question to DuckDB's parser: the text's statements,
// as the parser reads them, written out as JSON (or why it cannot).
const gateQuery = "SELECT json_serialize_sql($1::VARCHAR)::VARCHAR"

// errUncounted is the gate's answer for a text whose first statement is a
// SELECT that json_serialize_sql cannot write out: not refused, but its
// statements are not counted (the text's own prepare refuses more than one).
var errUncounted = errors.New("duckdb: the gate could not count the statements")

// gate asks DuckDB's parser, on the query's connection dc, whether sqlText is
// exactly one SELECT statement, and when it is not, says what it is. It
// returns errUncounted when it cannot tell how many statements there are.
func gate(ctx context.Context, dc *duckdb.Conn, sqlText string) error {
	s, err := serialize(ctx, dc, sqlText)
	if err != nil {
		return err
	}
	if s.Error {
		if s.ErrorType == "serialization" {
			// The parser read a SELECT that json_serialize_sql cannot write out
			// (a cast to a type with parameters, as STRUCT(e ENUM('a', 'b'))). It
			// checks each statement's kind before writing it, so the first
			// statement is a SELECT; Prepare takes exactly one statement, and
			// Query checks the prepared statement's kind: the query is judged
			// there.
			return errUncounted
		}
		if s.ErrorType == "parser" && strings.Contains(s.ErrorMessage, "locking clause") {
			// DuckDB's grammar reads FOR UPDATE / FOR SHARE … and refuses it.
			return &RefusedError{Reason: rowLocksReason + " (DuckDB's parser: " + s.ErrorMessage + ")", Rule: ruleNoLocks}
		}
		if s.ErrorType == "parser" {
			pos, _ := strconv.Atoi(s.Position)
			if strings.Contains(s.ErrorMessage, "CTE needs a SELECT") {
				// A writable CTE (WITH d AS (DELETE … RETURNING *) …).
				return &RefusedError{Reason: "each WITH query must be a SELECT; nothing may change data (DuckDB's parser: " + s.ErrorMessage + ")"}
			}
			if w := wordNear(sqlText, pos); writeWords[w] {
				// The parser stopped at or just after a statement inside the query
				// (INSERT … RETURNING in a subquery): say it is not allowed.
				return &RefusedError{Reason: fmt.Sprintf("DuckDB's parser stops at %s inside the query; nothing may change data (DuckDB's parser: %s at character %d)", w, s.ErrorMessage, pos+1)}
			}
			if s.Position == "" {
				// An error of the parser's transformer (Unsupported comparison
				// "~~*" for ANY/ALL subquery) has no position: none is given,
				// rather than character 1.
				return &SQLError{Engine: "duckdb", Message: "Parser Error: " + s.ErrorMessage + operatorNote(s.ErrorMessage)}
			}
			return &SQLError{Engine: "duckdb", Message: "Parser Error: " + s.ErrorMessage, Position: pos + 1}
		}
		if s.ErrorType == "not implemented" && !strings.HasPrefix(s.ErrorMessage, "Only SELECT statements") {
			// A query DuckDB reads but does not run (ROWS FROM, IS OF, named
			// and positional parameters mixed): its own message, not a
			// refusal that tells the caller to send the SELECT it sent.
			return &SQLError{Engine: "duckdb", Message: "Not implemented Error: " + s.ErrorMessage}
		}
		if strings.HasPrefix(s.ErrorMessage, "Only SELECT statements") && pivotExpanded(sqlText) {
			// One statement whose PIVOT has no IN list: the parser added the
			// statement that reads the pivot column's values before it.
			return &RefusedError{Reason: pivotNoInReason}
		}
		kind := firstWord(sqlText)
		if strings.HasPrefix(s.ErrorMessage, "Only SELECT statements") && (kind == "SELECT" || kind == "FROM" || kind == "VALUES") {
			// A statement that starts with one of these words is a SELECT: the
			// one json_serialize_sql refused comes after it.
			return &RefusedError{Reason: "the SQL holds more than one statement, and one after the first is not a query; send exactly one"}
		}
		return &RefusedError{Reason: fmt.Sprintf("DuckDB's parser reads this as %s %s statement, not a query", article(kind), kind)}
	}
	switch n := len(s.Statements); {
	case n == 0:
		return &RefusedError{Reason: "the SQL holds no statement"}
	case n > 1:
		return &RefusedError{Reason: fmt.Sprintf("the SQL holds %d statements; send exactly one", n)}
	}
	if mayCallStateful(sqlText) {
		var stmt any
		if err := json.Unmarshal(s.Statements[0], &stmt); err != nil {
			return fmt.Errorf("duckdb: reading the parser's answer: %w", err)
		}
		if call := statefulCall(stmt); call != "" {
			// A macro of DuckDB's that calls one of the functions: said as
			// that function is, naming both.
			target, shown := statefulTarget(call), call
			if !strings.EqualFold(target, call) {
				shown = fmt.Sprintf("%s (a DuckDB macro that calls %s)", call, target)
			}
			if watchFunctions[strings.ToLower(target)] {
				return &RefusedError{Reason: fmt.Sprintf("the query calls %s, which shows what other queries of the model did (the files they read, their memory and spill files); queries may only read the model's data", shown)}
			}
			if folderFunctions[strings.ToLower(target)] {
				return &RefusedError{Reason: folderReason(shown)}
			}
			if waitsIdle(target) {
				return &RefusedError{Reason: waitsIdleReason(shown)}
			}
			return &RefusedError{Reason: fmt.Sprintf("the query calls %s, which changes the server's state (logging, profiling, checkpoints, the random seed, tables) or runs SQL held in a string; queries may only read", shown)}
		}
	}
	return nil
}

// anyAllOps are the names DuckDB's parser gives LIKE and ILIKE in its messages.
var anyAllOps = map[string]string{`"~~"`: "LIKE", `"~~*"`: "ILIKE", `"!~~"`: "NOT LIKE", `"!~~*"`: "NOT ILIKE"}

// operatorNote says, for DuckDB's message about an operator ANY or ALL cannot
// take, which operator it names and what to write instead; "" for others.
func operatorNote(msg string) string {
	rest, ok := strings.CutPrefix(msg, "Unsupported comparison ")
	if !ok {
		return ""
	}
	op, _, _ := strings.Cut(rest, " ")
	name := anyAllOps[op]
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" (%s is %s: with ANY or ALL over a list, only =, <>, <, >, <= and >= work; write one %s per value, joined with OR for ANY or AND for ALL)", op, name, name)
}

// statementBody returns sqlText without what follows its statement — empty
// statements, comments, spaces ("SELECT 1; -- all") — and false when it cannot
// tell. A cut at a semicolon is taken only if DuckDB's parser
// (json_serialize_sql, on the query's connection dc) reads what is before it as
// exactly the statement it reads in the whole text, the same syntax tree to the
// last node and position: a semicolon inside a string, a quoted name or a comment
// (which may open a comment that closes later) cuts out a different statement, or
// none. It tries the last 16 semicolons at most, leftmost first.
func statementBody(ctx context.Context, dc *duckdb.Conn, sqlText string) (string, bool) {
	whole, ok := serializeOne(ctx, dc, sqlText)
	if !ok {
		return "", false
	}
	var cuts []int
	for i, tries := len(sqlText), 0; tries < 16; tries++ {
		if i = strings.LastIndexByte(sqlText[:i], ';'); i < 0 {
			break
		}
		cuts = append(cuts, i)
	}
	for k := len(cuts) - 1; k >= 0; k-- {
		body := sqlText[:cuts[k]]
		if st, ok := serializeOne(ctx, dc, body); ok && bytes.Equal(st, whole) {
			return body, true
		}
	}
	return "", false
}

// serializeOne returns DuckDB's syntax tree (json_serialize_sql) of the one
// statement in text, and false when text is not exactly one statement the
// parser can write out.
func serializeOne(ctx context.Context, dc *duckdb.Conn, text string) (json.RawMessage, bool) {
	s, err := serialize(ctx, dc, text)
	if err != nil || s.Error || len(s.Statements) != 1 {
		return nil, false
	}
	return s.Statements[0], true
}

// serialize asks DuckDB's parser, on the connection dc, what text is
// (json_serialize_sql: its statements, or where and why it does not parse).
func serialize(ctx context.Context, dc *duckdb.Conn, text string) (serialized, error) {
	var s serialized
	rows, err := dc.QueryContext(ctx, gateQuery, []driver.NamedValue{{Ordinal: 1, Value: text}})
	if err != nil {
		return s, duckErr(err)
	}
	vals := make([]driver.Value, 1)
	err = rows.Next(vals)
	rows.Close()
	if err != nil {
		return s, duckErr(err)
	}
	raw, _ := vals[0].(string)
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return s, fmt.Errorf("duckdb: reading the parser's answer: %w", err)
	}
	return s, nil
}

// Query runs one read-only query with named parameters ($name in the SQL).
func (d *Duck) Query(ctx context.Context, sqlText string, params map[string]any, lim Limits) (*Result, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		lim.done()
		return nil, ErrClosed
	}
	d.running.Add(1)
	db := d.db
	d.use(db)
	d.mu.Unlock()
	handed := false // to the query's goroutine, which calls running.Done and lim.Done
	defer func() {
		if !handed {
			d.release(db)
			lim.done()
			d.running.Done()
		}
	}()
	if err := checkText(sqlText); err != nil {
		return nil, err
	}
	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	// Judging: the text by itself must be exactly one statement, and the engine
	// must prepare it, capped as a subquery, as one SELECT. The first is asked of
	// the process's parser (splitting a text into statements, nothing planned);
	// the second is the query's own prepare. The caller's text alone being one
	// statement keeps the subquery's parentheses the caller's: a text such as
	// "SELECT 1) t, (SELECT 1" is not a statement by itself, though capped it
	// would prepare. Any other answer goes to the gate (json_serialize_sql),
	// which says what the text is — several statements, a PRAGMA, a syntax error
	// and where — before anything else is prepared.
	one := d.parser != nil && d.parser.oneStatement(qctx, sqlText)
	// The query needs one of the model's duckMaxConns connections: running out of
	// time waiting for one means the model is busy, not that the query is slow.
	// Its turn comes round-robin by client (slots); then the pool has one free.
	connStart := time.Now()
	if err := d.slots.acquireIn(qctx, lim.Group, lim.Client, nil); err != nil {
		return nil, d.startErr(ctx, qctx, lim, time.Since(connStart), err)
	}
	slotHeld := true
	defer func() {
		if slotHeld {
			d.slots.release()
		}
	}()
	conn, err := db.Conn(qctx)
	if err != nil && qctx.Err() == nil {
		// Closed meanwhile, replaced by reopen: the query runs on the new one.
		d.mu.Lock()
		cur := d.db
		if cur != db {
			d.use(cur)
		}
		d.mu.Unlock()
		if cur != db {
			d.release(db)
			db = cur
			conn, err = db.Conn(qctx)
		}
	}
	waited := time.Since(connStart) // the wait for a connection
	if err != nil {
		return nil, d.startErr(ctx, qctx, lim, waited, err)
	}
	res := newResult(lim)
	// The query runs on a goroutine of its own, which holds the connection and
	// counts as running (Close waits for it) until DuckDB returns: DuckDB
	// stops a query between pieces of work, not inside one (a long function call,
	// the constant expressions it computes while preparing), and the caller is
	// answered at its limit all the same. lim.Done is called then, not with the
	// answer; and before the answer when DuckDB returns in time, so that the
	// caller's count is given back when Query returns (a client's next query is
	// not refused because the count of its last one was still held).
	handed, slotHeld = true, false
	done := make(chan error, 1)
	go func() {
		defer d.running.Done()
		var err error
		// The answer once everything is given back: a query answered with it
		// has had lim.Done called when Query returns.
		defer func() { done <- err }()
		defer lim.done() // before running.Done: Close returns after it
		defer d.release(db)
		defer d.slots.release() // once the connection is back in the pool
		defer conn.Close()
		err = conn.Raw(func(dc any) error { return d.run(qctx, dc.(*duckdb.Conn), one, sqlText, params, lim, res) })
	}()
	running := false
	select {
	case err = <-done:
	case <-qctx.Done():
		// duckdb-go interrupts the query now; between pieces of work DuckDB
		// stops within milliseconds, and its own answer is the one to give.
		grace := time.NewTimer(stopGrace)
		select {
		case err = <-done:
		case <-grace.C:
			err, running = qctx.Err(), true
		}
		grace.Stop()
	}
	if err != nil {
		if duckFatal(err) {
			d.reopen(db)
		}
		var me *MemoryError
		if errors.As(err, &me) {
			me.Limit = d.memory
			if me.Spilled {
				me.TempLimit = d.temp
			}
		}
		err = d.ctxErr(ctx, qctx, lim, withPosition(err, sqlText))
		if te, ok := err.(*TimeoutError); ok {
			te.Waited, te.Running, te.Slots = waited, running, duckMaxConns
		}
		return nil, err
	}
	return res.finish(start), nil
}

// stopGrace is how long a query whose time is up (or whose caller went away)
// has to stop once duckdb-go has interrupted it, before the caller is answered
// without it.
const stopGrace = 250 * time.Millisecond

// run judges, prepares and runs one query on dc, appending its rows to res.
func (d *Duck) run(qctx context.Context, dc *duckdb.Conn, one bool, sqlText string, params map[string]any, lim Limits, res *Result) error {
	gated, uncounted := false, false
	runGate := func() error {
		gated = true
		err := gate(qctx, dc, sqlText)
		if err == errUncounted {
			uncounted, err = true, nil
			if mayCallStateful(sqlText) {
				// Without the syntax tree, the calls cannot be read.
				return &RefusedError{Reason: "DuckDB's json_serialize_sql cannot write out this SELECT (a cast to a type with parameters), so the functions it calls cannot be checked, and its text names one that changes the server's state, runs SQL from a string or sleeps; send the query without that cast or without that name"}
			}
		}
		return err
	}
	if !one {
		if err := runGate(); err != nil {
			return err
		}
	}
	// Prepare (without a context) refuses more than one statement outright,
	// where PrepareContext would run all but the last.
	//
	// duckdb-go materialises a result whole before the first row is read (and
	// outside DuckDB's memory_limit), so the query runs capped at the rows a
	// result can hold (one more proves truncation): rows past them are never
	// computed. What the cap cannot prepare (an error in the SQL) is prepared
	// as sent, so the error and its position are about the caller's text.
	capText := sqlText // what the cap wraps: the statement, without what follows it
	st, err := dc.Prepare(capped(capText, lim.RowLimit+1))
	if err != nil && strings.Contains(err.Error(), "Parser Error") && strings.Contains(sqlText, ";") {
		// A comment or an empty statement after the statement's semicolon
		// ("…; -- all"): the cap wraps the statement without it.
		if body, ok := statementBody(qctx, dc, sqlText); ok {
			if st2, err2 := dc.Prepare(capped(body, lim.RowLimit+1)); err2 == nil {
				st, err, capText = st2, nil, body
			}
		}
	}
	if err != nil {
		if !gated {
			if err := runGate(); err != nil {
				return err
			}
		}
		if uncounted && mayHoldPragma(sqlText) {
			// Preparing the text as sent splits it into statements first, and
			// splitting evaluates a PRAGMA's arguments (with no deadline):
			// uncounted, a text that could hold one is not prepared.
			return &RefusedError{Reason: "DuckDB's json_serialize_sql cannot write out this SELECT (a cast to a type with parameters), so it cannot count its statements, and the text could hold a PRAGMA; send exactly one SELECT, without the word pragma or without that cast"}
		}
		if st, err = dc.Prepare(sqlText); err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				// duckdb-go's Prepare takes one statement; the gate counts
				// them, except in a SELECT it could not serialize.
				if pivotExpanded(sqlText) {
					return &RefusedError{Reason: pivotNoInReason}
				}
				return &RefusedError{Reason: "the SQL holds more than one statement; send exactly one"}
			}
			return duckErr(err)
		}
		// The text prepares as sent but not under the cap: run as sent, nothing
		// would bound its rows (duckdb-go holds a whole result before the first
		// row is read).
		st.Close()
		return &RefusedError{Reason: "DuckDB prepares this SQL as sent but not as a subquery under the row limit (an empty statement before it, such as a leading semicolon, or a comment or an empty statement after it that the server could not cut off); send the statement alone, without a semicolon before it"}
	}
	defer func() { st.Close() }()
	stmt := st.(*duckdb.Stmt)
	// The cap's subquery renames duplicate column names (a second customer_id
	// is customer_id_1): where a name could be such a rename, the statement
	// as sent gives the names (prepared only, nothing runs; not when uncounted
	// and it could hold a PRAGMA, see above).
	//
	// A prepare cannot be interrupted and computes the text's constant
	// expressions: once the query's time is up, no second one starts.
	if err := qctx.Err(); err != nil {
		return err
	}
	var sentNames []string
	if mayBeRenamed(stmt) && !(uncounted && mayHoldPragma(capText)) {
		if duckPrepareAgain != nil {
			duckPrepareAgain()
		}
		sentNames = statementNames(dc, capText)
	}
	// duckdb-go decodes a JSON column into float64 numbers, which changes
	// every integer past 2^53: such columns are read as their text instead,
	// and decoded here with the digits kept.
	// The columns' types as DuckDB writes them, from the statement as sent
	// (the one below reads JSON, TIME and TIME_NS as VARCHAR).
	shown, repl, cols, bad := columnTypes(stmt)
	if bad != nil {
		return bad
	}
	var jsonCols map[int]string
	if len(repl) > 0 {
		if err := qctx.Err(); err != nil {
			return err
		}
		if duckPrepareAgain != nil {
			duckPrepareAgain()
		}
		if st2, err := dc.Prepare(cappedText(capText, lim.RowLimit+1, repl)); err == nil {
			st.Close()
			st, stmt, jsonCols = st2, st2.(*duckdb.Stmt), cols
		}
	}
	ty, err := stmt.StatementType()
	if err != nil {
		return duckErr(err)
	}
	if ty != duckdb.STATEMENT_TYPE_SELECT {
		return &RefusedError{Reason: fmt.Sprintf("DuckDB prepares this as %s %s statement, not a query", article(firstWord(sqlText)), firstWord(sqlText))}
	}
	args, err := bindArgs(stmt, params)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(qctx, args)
	if err != nil {
		return duckErr(unwrapLines(err, true))
	}
	defer rows.Close()
	names := rows.Columns()
	if len(sentNames) == len(names) {
		names = sentNames
	}
	types := make([]string, len(names))
	for i, n := range names {
		if tn, ok := rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
			types[i] = tn.ColumnTypeDatabaseTypeName(i)
		}
		if t, ok := jsonCols[i]; ok {
			types[i] = t
		}
		// types[i] is what duckValue converts the values by; the column's
		// type is shown as DuckDB writes it.
		col := Column{Name: n, Type: types[i]}
		if i < len(shown) && shown[i] != "" {
			col.Type = shown[i]
		}
		res.Columns = append(res.Columns, col)
	}
	colBytes, err := checkColumns(res.Columns, lim.ByteBudget)
	if err != nil {
		return err
	}
	app := rowAppender{lim: lim, res: res, bytes: colBytes, keep: d.keepWire}
	vals := make([]driver.Value, len(names))
	for {
		if err := qctx.Err(); err != nil {
			return err
		}
		if err := rows.Next(vals); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return duckErr(unwrapLines(err, true))
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			if text, ok := v.(string); ok && jsonCols[i] == "JSON" {
				// DuckDB's JSON reads more than JSON (NaN, Infinity, a comma
				// after the last element) and keeps the text as given: such a
				// value comes back as its text, a string, as inside a list.
				var jv any
				if jsonKeepNumbers([]byte(text), &jv) != nil {
					jv = text
				}
				row[i] = jv
				continue
			}
			row[i] = duckValue(v, types[i])
		}
		more, err := app.add(row)
		if err != nil || !more {
			return err
		}
	}
}

// ctxErr turns the failure of a query whose deadline passed into a TimeoutError,
// and one whose caller went away into the caller's context error.
func (d *Duck) ctxErr(parent, qctx context.Context, lim Limits, err error) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	if errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Limit: lim.Timeout}
	}
	return err
}

// startErr is ctxErr for a query that has not started: its deadline passed while
// it waited for a connection for most of its limit (BusyError). A query whose
// time went mostly before that (DuckDB's parser splitting a long text, which it
// cannot be interrupted in) is told it ran out of time, not that the model was
// busy.
func (d *Duck) startErr(parent, qctx context.Context, lim Limits, waited time.Duration, err error) error {
	if parent.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
		if waited < lim.Timeout/2 {
			return &TimeoutError{Limit: lim.Timeout, Waited: waited, Slots: duckMaxConns}
		}
		return &BusyError{Limit: lim.Timeout, Conns: duckMaxConns}
	}
	return d.ctxErr(parent, qctx, lim, err)
}

// bindArgs matches params to the statement's named parameters, and reports
// missing ones. A parameter the statement does not use is not bound (a named
// query may declare one its SQL does not use; PostgreSQL's pgx drops them too).
func bindArgs(stmt *duckdb.Stmt, params map[string]any) ([]driver.NamedValue, error) {
	n := stmt.NumInput()
	var args []driver.NamedValue
	for i := 1; i <= n; i++ {
		name, err := stmt.ParamName(i)
		if err != nil {
			return nil, duckErr(err)
		}
		if name == "" {
			// A number the SQL skips ("SELECT ?2": DuckDB counts a ?1 it
			// has no name for).
			name = strconv.Itoa(i)
		}
		v, ok := params[name]
		if !ok {
			return nil, &UnboundParamError{Name: "$" + name}
		}
		args = append(args, driver.NamedValue{Name: name, Ordinal: i, Value: v})
	}
	return args, nil
}

// duckPrepareAgain, when set (by tests), is called before a query's text is
// prepared a second time (for the names of its columns, or to read some as
// text).
var duckPrepareAgain func()

// mayBeRenamed reports whether a column name of the capped statement stmt could
// be one the cap's subquery gave a duplicate: X_N (N digits) where X is also a
// column's name (DuckDB compares names without case).
func mayBeRenamed(stmt *duckdb.Stmt) bool {
	n, err := stmt.ColumnCount()
	if err != nil || n < 2 {
		return false
	}
	names := make(map[string]bool, n)
	for i := range n {
		name, err := stmt.ColumnName(i)
		if err != nil {
			return false
		}
		names[strings.ToLower(name)] = true
	}
	for name := range names {
		i := strings.LastIndexByte(name, '_')
		if i > 0 && i < len(name)-1 && strings.Trim(name[i+1:], "0123456789") == "" && names[name[:i]] {
			return true
		}
	}
	return false
}

// statementNames is the column names of sqlText prepared as sent (one statement,
// the cap's subquery's text), nil when it cannot be prepared.
func statementNames(dc *duckdb.Conn, sqlText string) []string {
	st, err := dc.Prepare(sqlText)
	if err != nil {
		return nil
	}
	defer st.Close()
	stmt, ok := st.(*duckdb.Stmt)
	if !ok {
		return nil
	}
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil
	}
	names := make([]string, n)
	for i := range n {
		if names[i], err = stmt.ColumnName(i); err != nil {
			return nil
		}
	}
	return names
}

// capped is sqlText as a subquery of at most n rows. Its first line is the
// wrapper's: the caller's text starts on line 2 (unwrapLines).
func capped(sqlText string, n int) string { return cappedText(sqlText, n, nil) }

// cappedText is capped with columns of the query replaced (SELECT * REPLACE),
// on the same first line, so the caller's text still starts on line 2.
func cappedText(sqlText string, n int, replace []string) string {
	// Semicolons at the end, however many (empty statements, which the parser
	// does not count), are the statement's end, not part of it.
	body := strings.TrimRightFunc(sqlText, func(r rune) bool { return r == ';' || unicode.IsSpace(r) })
	sel := "SELECT * "
	if len(replace) > 0 {
		sel += "REPLACE (" + strings.Join(replace, ", ") + ") "
	}
	return sel + "FROM (\n" + body + "\n) LIMIT " + strconv.Itoa(n)
}

// columnTypes reads the columns of a prepared query once, for two things.
//
// shown is, by column, its type as DuckDB writes it where duckdb-go's name for
// it differs ("" elsewhere, and where DuckDB's cannot be written: duckdb-go's
// name is shown).
//
// repl and cols are for the columns that hold a value duckdb-go does not read
// faithfully, as a whole or inside a LIST, ARRAY, STRUCT, MAP or UNION: JSON
// (decoded into float64 numbers, which changes every integer past 2^53), TIME
// (24:00:00, the end of the day, read as 00:00:00) and TIME_NS (which duckdb-go
// 1.5.6 cannot read at all). repl is the REPLACE items that read them with
// VARCHAR where those types are, and cols by index the type to convert each one
// by — DuckDB's name of the type with JSON, TIME and TIME_NS where they are
// ("JSON", "TIME[]", STRUCT("j" JSON, "n" INTEGER)), which duckValue follows to
// decode JSON's text with the numbers' digits kept, and to keep a time's text.
//
// duckdb-go cannot read two kinds of values at all (duckdb-go 1.5.6): a VARIANT,
// and a MAP whose keys are not plain values (a list, struct, map, array, union,
// BLOB, BIT or UUID: it holds a MAP in a Go map). A VARIANT column is read as
// its JSON (shown as VARIANT, converted as JSON), a MAP column with such keys
// with map_entries (its [{key, value}…], as any MAP is written); such a value
// inside another one is bad: the caller's error, naming the column and what to
// select instead.
func columnTypes(stmt *duckdb.Stmt) (shown, repl []string, cols map[int]string, bad error) {
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil, nil, nil, nil
	}
	shown = make([]string, n)
	cols = map[int]string{}
	named := true // every column whose name was needed could be read
	for i := range n {
		t, err := stmt.ColumnType(i)
		if err != nil {
			continue
		}
		// Only these need their whole type looked up (ColumnTypeInfo builds a
		// whole type description): JSON is VARCHAR with an alias.
		nested := false
		switch t {
		case duckdb.TYPE_TIMESTAMP_TZ, duckdb.TYPE_TIME_TZ:
			shown[i] = duckTypeShown[t]
			continue
		case duckdb.TYPE_VARIANT:
			shown[i] = "VARIANT"
			name, err := stmt.ColumnName(i)
			if err != nil {
				named = false
				continue
			}
			repl = append(repl, "CAST(CAST("+quoteIdent(name)+" AS JSON) AS VARCHAR) AS "+quoteIdent(name))
			cols[i] = "JSON"
			continue
		case duckdb.TYPE_LIST, duckdb.TYPE_ARRAY, duckdb.TYPE_STRUCT, duckdb.TYPE_MAP, duckdb.TYPE_UNION:
			nested = true
		case typeTimeNS:
			// duckdb-go 1.5.6 cannot read a TIME_NS at all: its text, with
			// the nanoseconds.
			shown[i] = "TIME_NS"
		case duckdb.TYPE_ENUM, duckdb.TYPE_VARCHAR, duckdb.TYPE_TIME:
		default:
			continue
		}
		ti, err := stmt.ColumnTypeInfo(i)
		if err != nil {
			continue
		}
		if nested || t == duckdb.TYPE_ENUM {
			shown[i], _ = duckTypeString(ti)
		}
		if nested {
			if what := unreadableIn(ti, true); what != "" {
				name, _ := stmt.ColumnName(i)
				typ := cmp.Or(shown[i], "its type")
				return nil, nil, nil, &SQLError{Message: fmt.Sprintf("the column %s is of type %s, which holds %s: the server cannot read that value (duckdb-go cannot); select CAST(%s AS JSON) or CAST(%s AS VARCHAR) instead%s",
					quoteIdent(name), typ, what, quoteIdent(name), quoteIdent(name), mapEntriesNote(what))}
			}
		}
		if t == duckdb.TYPE_ENUM || !named {
			continue
		}
		if t == duckdb.TYPE_MAP && !mapKeyReadable(ti) {
			// A MAP column whose keys duckdb-go cannot read: its entries.
			d := ti.Details().(*duckdb.MapDetails)
			kg, kc, kj, kok := duckTypeNames(d.Key)
			vg, vc, vj, vok := duckTypeNames(d.Value)
			name, err := stmt.ColumnName(i)
			if err != nil || !kok || !vok {
				named = named && err == nil
				continue
			}
			expr := "map_entries(" + quoteIdent(name) + ")"
			if kj || vj {
				expr = "CAST(" + expr + ` AS STRUCT("key" ` + kc + `, "value" ` + vc + ")[])"
			}
			repl = append(repl, expr+" AS "+quoteIdent(name))
			cols[i] = `STRUCT("key" ` + kg + `, "value" ` + vg + ")[]"
			continue
		}
		guide, cast, asText, ok := duckTypeNames(ti)
		if !ok || !asText {
			continue // nothing to read as text in it, or a type that cannot be written back
		}
		name, err := stmt.ColumnName(i)
		if err != nil {
			named = false
			continue
		}
		repl = append(repl, "CAST("+quoteIdent(name)+" AS "+cast+") AS "+quoteIdent(name))
		cols[i] = guide
	}
	if !named {
		return shown, nil, nil, nil
	}
	return shown, repl, cols, nil
}

// mapKeyReadable reports whether duckdb-go reads the keys of the MAP type ti:
// plain values it can compare (duckdb-go 1.5.6 refuses a list, struct, map,
// array, union, BLOB, BIT or GEOMETRY key, and fails on a UUID one).
func mapKeyReadable(ti duckdb.TypeInfo) bool {
	d, ok := ti.Details().(*duckdb.MapDetails)
	if !ok {
		return true
	}
	switch d.Key.InternalType() {
	case duckdb.TYPE_LIST, duckdb.TYPE_STRUCT, duckdb.TYPE_MAP, duckdb.TYPE_ARRAY, duckdb.TYPE_UNION,
		duckdb.TYPE_BLOB, duckdb.TYPE_BIT, duckdb.TYPE_GEOMETRY, duckdb.TYPE_UUID, duckdb.TYPE_VARIANT:
		return false
	}
	return true
}

// unreadableIn says what in the type ti duckdb-go cannot read where it is ("a
// VARIANT inside another value", "a MAP whose keys are INTEGER[] inside
// another value"), "" when nothing; top is ti as a column's type, where a
// VARIANT and a MAP's keys are read otherwise (columnTypes).
func unreadableIn(ti duckdb.TypeInfo, top bool) string {
	inner := func(ts ...duckdb.TypeInfo) string {
		for _, t := range ts {
			if w := unreadableIn(t, false); w != "" {
				return w
			}
		}
		return ""
	}
	switch d := ti.Details().(type) {
	case *duckdb.ListDetails:
		return inner(d.Child)
	case *duckdb.ArrayDetails:
		return inner(d.Child)
	case *duckdb.MapDetails:
		if !top && !mapKeyReadable(ti) {
			k, _ := duckTypeString(d.Key)
			return "a MAP whose keys are " + cmp.Or(k, "not plain values") + " inside another value"
		}
		return inner(d.Key, d.Value)
	case *duckdb.StructDetails:
		for _, e := range d.Entries {
			if w := inner(e.Info()); w != "" {
				return w
			}
		}
	case *duckdb.UnionDetails:
		for _, m := range d.Members {
			if w := inner(m.Type); w != "" {
				return w
			}
		}
	case nil:
		if !top && ti.InternalType() == duckdb.TYPE_VARIANT {
			return "a VARIANT inside another value"
		}
	}
	return ""
}

// mapEntriesNote is the rest of the advice for a value holding what (from
// unreadableIn).
func mapEntriesNote(what string) string {
	if strings.HasPrefix(what, "a MAP") {
		return ", or select the map itself as a column (it comes back as [{key, value}…]) or its map_entries(…)"
	}
	return ", or select the VARIANT itself as a column (it comes back as its JSON)"
}

// duckTypeNames writes the type ti as DuckDB names it (as duckdb-go's
// ColumnTypeDatabaseTypeName does: INTEGER, DECIMAL(18,3), VARCHAR[], INTEGER[3],
// STRUCT("a" DATE), MAP(VARCHAR, BIGINT), UNION("i" INTEGER), ENUM), twice: with
// JSON, TIME and TIME_NS where such a value is (guide), and with VARCHAR there
// (cast, a type to cast to; an ENUM is cast to VARCHAR too, its values read the
// same as text, since its name does not say its values). asText says whether a
// JSON, TIME or TIME_NS value is in it; ok is false for a type that holds one
// this cannot write (a type without a name).
func duckTypeNames(ti duckdb.TypeInfo) (guide, cast string, asText, ok bool) {
	if ti.InternalType() == duckdb.TYPE_VARCHAR && ti.Alias() == "JSON" {
		return "JSON", "VARCHAR", true, true
	}
	if ti.InternalType() == duckdb.TYPE_TIME {
		return "TIME", "VARCHAR", true, true
	}
	if ti.InternalType() == typeTimeNS {
		return "TIME_NS", "VARCHAR", true, true
	}
	switch d := ti.Details().(type) {
	case *duckdb.DecimalDetails:
		s := fmt.Sprintf("DECIMAL(%d,%d)", d.Width, d.Scale)
		return s, s, false, true
	case *duckdb.EnumDetails:
		return "ENUM", "VARCHAR", false, true
	case *duckdb.ListDetails:
		g, c, j, ok := duckTypeNames(d.Child)
		return g + "[]", c + "[]", j, ok
	case *duckdb.ArrayDetails:
		g, c, j, ok := duckTypeNames(d.Child)
		return fmt.Sprintf("%s[%d]", g, d.Size), fmt.Sprintf("%s[%d]", c, d.Size), j, ok
	case *duckdb.MapDetails:
		kg, kc, kj, kok := duckTypeNames(d.Key)
		vg, vc, vj, vok := duckTypeNames(d.Value)
		return "MAP(" + kg + ", " + vg + ")", "MAP(" + kc + ", " + vc + ")", kj || vj, kok && vok
	case *duckdb.StructDetails:
		fields := make([]namedType, len(d.Entries))
		for i, e := range d.Entries {
			fields[i] = namedType{e.Name(), e.Info()}
		}
		return namedTypes("STRUCT", fields)
	case *duckdb.UnionDetails:
		members := make([]namedType, len(d.Members))
		for i, m := range d.Members {
			members[i] = namedType{m.Name, m.Type}
		}
		return namedTypes("UNION", members)
	case nil:
		if name, ok := duckPrimitiveNames[ti.InternalType()]; ok {
			return name, name, false, true
		}
	}
	return "", "", false, false
}

// namedType is a field of a STRUCT or a member of a UNION.
type namedType struct {
	name string
	ti   duckdb.TypeInfo
}

// namedTypes is duckTypeNames for a STRUCT or UNION (kind) of the named types.
func namedTypes(kind string, types []namedType) (guide, cast string, asText, ok bool) {
	var g, c []string
	for _, nt := range types {
		fg, fc, fj, fok := duckTypeNames(nt.ti)
		if !fok {
			return "", "", false, false
		}
		name := quoteIdent(nt.name) + " "
		g, c, asText = append(g, name+fg), append(c, name+fc), asText || fj
	}
	return kind + "(" + strings.Join(g, ", ") + ")", kind + "(" + strings.Join(c, ", ") + ")", asText, true
}

// duckPrimitiveNames are the names of DuckDB's types without parameters, as
// DuckDB's SQL and duckdb-go's type names write them.
var duckPrimitiveNames = map[duckdb.Type]string{
	duckdb.TYPE_BOOLEAN: "BOOLEAN", duckdb.TYPE_TINYINT: "TINYINT", duckdb.TYPE_SMALLINT: "SMALLINT",
	duckdb.TYPE_INTEGER: "INTEGER", duckdb.TYPE_BIGINT: "BIGINT", duckdb.TYPE_HUGEINT: "HUGEINT",
	duckdb.TYPE_UTINYINT: "UTINYINT", duckdb.TYPE_USMALLINT: "USMALLINT", duckdb.TYPE_UINTEGER: "UINTEGER",
	duckdb.TYPE_UBIGINT: "UBIGINT", duckdb.TYPE_UHUGEINT: "UHUGEINT", duckdb.TYPE_FLOAT: "FLOAT",
	duckdb.TYPE_DOUBLE: "DOUBLE", duckdb.TYPE_DATE: "DATE", duckdb.TYPE_TIME: "TIME", duckdb.TYPE_TIME_TZ: "TIMETZ",
	duckdb.TYPE_TIMESTAMP: "TIMESTAMP", duckdb.TYPE_TIMESTAMP_S: "TIMESTAMP_S", duckdb.TYPE_TIMESTAMP_MS: "TIMESTAMP_MS",
	duckdb.TYPE_TIMESTAMP_NS: "TIMESTAMP_NS", duckdb.TYPE_TIMESTAMP_TZ: "TIMESTAMPTZ", duckdb.TYPE_INTERVAL: "INTERVAL",
	duckdb.TYPE_VARCHAR: "VARCHAR", duckdb.TYPE_BLOB: "BLOB", duckdb.TYPE_UUID: "UUID", duckdb.TYPE_BIT: "BIT",
	duckdb.TYPE_BIGNUM: "BIGNUM", duckdb.TYPE_GEOMETRY: "GEOMETRY", typeTimeNS: "TIME_NS",
}

// typeTimeNS is DuckDB's TIME_NS (DUCKDB_TYPE_TIME_NS in duckdb.h), which
// duckdb-go 1.5.6 has no name for and cannot read: columnTypes reads it as
// its text.
const typeTimeNS duckdb.Type = 39

// unwrapLines renumbers the "LINE n:" of a DuckDB error about a capped statement
// to the lines of the caller's text.
func unwrapLines(err error, wrapped bool) error {
	var de *duckdb.Error
	if !wrapped || !errors.As(err, &de) {
		return err
	}
	out := *de
	// A long message costs no more than a cut one.
	out.Msg = renumberLines(cutMessage(de.Msg), func(n int) int { return max(n-1, 1) })
	return &out
}

var duckPos = regexp.MustCompile(`^LINE (\d+): `)

// ExcerptLine returns the index in lines (an error message split at "\n") of
// DuckDB's own excerpt of the SQL ("LINE n: …"), or -1 for none. DuckDB puts
// its excerpt and the caret line under it (spaces, then "^") last in its
// message: a line that starts "LINE n: " elsewhere — in a value the message
// quotes ('1\nLINE 2: x'), or in a string literal of the SQL — is not it.
func ExcerptLine(lines []string) int {
	last := len(lines) - 1
	for last >= 0 && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last < 1 || strings.Trim(lines[last], " \t") != "^" || !duckPos.MatchString(lines[last-1]) {
		return -1
	}
	return last - 1
}

// duckExcerpt is duckPos's submatch indexes in msg at DuckDB's own excerpt of
// the SQL (ExcerptLine), or nil for none.
func duckExcerpt(msg string) []int {
	lines := strings.Split(msg, "\n")
	i := ExcerptLine(lines)
	if i < 0 {
		return nil
	}
	at := 0
	for _, l := range lines[:i] {
		at += len(l) + 1
	}
	m := duckPos.FindStringSubmatchIndex(lines[i])
	for k := range m {
		m[k] += at
	}
	return m
}

// renumberLines renumbers the "LINE n:" of DuckDB's excerpt in msg (its own,
// ExcerptLine: not a line of a value it quotes) to "LINE to(n):" (unwrapLines,
// fileLines). The caret line below points at a column of the line as shown:
// it is kept under the same character, spaces put before it when the prefix
// got longer (LINE 9 → 10) and taken off when it got shorter (LINE 10 → 9; a
// line starting with as many spaces).
func renumberLines(msg string, to func(n int) int) string {
	lines := strings.Split(msg, "\n")
	i := ExcerptLine(lines)
	if i < 0 {
		return msg
	}
	m := duckPos.FindStringSubmatch(lines[i])
	n, _ := strconv.Atoi(m[1])
	prefix := fmt.Sprintf("LINE %d: ", to(n))
	lines[i] = prefix + lines[i][len(m[0]):]
	switch d := len(prefix) - len(m[0]); {
	case d > 0:
		lines[i+1] = strings.Repeat(" ", d) + lines[i+1]
	case d < 0 && strings.HasPrefix(lines[i+1], strings.Repeat(" ", -d)):
		lines[i+1] = lines[i+1][-d:]
	}
	return strings.Join(lines, "\n")
}

// duckErr keeps DuckDB's message and finds the position it marks ("LINE n:" and a
// caret under the offending character).
func duckErr(err error) error {
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return err
	}
	msg := cutMessage(de.Msg)
	if de.Type == duckdb.ErrorTypeOutOfMemory {
		// DuckDB's advice (SET memory_limit, threads, …) is for its owner: the
		// configuration is locked. Duck.Query fills in the limit.
		first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
		// Out of spill space too (max_temp_directory_size): its next line
		// names the setting.
		return &MemoryError{Detail: first, Spilled: strings.Contains(msg, "max_temp_directory_size")}
	}
	if de.Type == duckdb.ErrorTypePermission {
		// The file-access check: a path outside the package folder, a link out
		// of it, a URL.
		first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
		return &RefusedError{Reason: "DuckDB did not open a file: " + first, Rule: ruleFiles, AtRun: true}
	}
	pos := 0
	if m := duckExcerpt(msg); m != nil {
		// The caret line follows the LINE line. On the first line of a statement
		// shown whole, the caret's column is the character offset.
		shown, caret, found := strings.Cut(msg[m[1]:], "\n")
		if found && msg[m[2]:m[3]] == "1" && !strings.Contains(msg, "...") {
			if i := strings.IndexByte(caret, '^'); i >= 0 {
				if n, ok := caretRunes(shown, i-len("LINE 1: ")); ok {
					pos = n + 1
				}
			}
		}
	}
	return &SQLError{Engine: "duckdb", Message: cutMessage(withoutStackTrace(strings.TrimSpace(msg))), Position: max(pos, 0)}
}

// maxEngineMessage is the most of an engine's error message (in bytes) a
// query's error keeps: a message can hold what the query made
// (error(repeat('y', 17000000)) is a 17 MB message), which a query process
// would have to send whole, past what the server reads of an answer. The
// caller's error is cut shorter still (8 KiB, errorResult).
const maxEngineMessage = 64 << 10

// cutMessage keeps the start of msg and its last lines (DuckDB's excerpt of the
// SQL and its caret: positions are read from them) when it is longer than
// maxEngineMessage, saying how many bytes were left out between.
func cutMessage(msg string) string {
	if len(msg) <= maxEngineMessage {
		return msg
	}
	const tail = 8 << 10
	i := maxEngineMessage - tail - 64
	for i > 0 && !utf8.RuneStart(msg[i]) {
		i--
	}
	j := len(msg) - tail
	for j < len(msg) && !utf8.RuneStart(msg[j]) {
		j++
	}
	return msg[:i] + fmt.Sprintf("… (%d more bytes not shown) …", j-i) + msg[j:]
}

// withoutStackTrace drops the "Stack Trace:" section DuckDB puts in its INTERNAL
// errors — a frame per line, each naming the server's program by its path and
// addresses in it, nothing a caller can act on — and keeps what comes before and
// after it (the error, DuckDB's note on what such an error means).
func withoutStackTrace(msg string) string {
	i := strings.Index(msg, "Stack Trace:")
	if i < 0 || (i > 0 && msg[i-1] != '\n') {
		return msg
	}
	head := strings.TrimRight(msg[:i], " \t\n")
	rest := strings.TrimLeft(msg[i+len("Stack Trace:"):], " \t\n")
	// The frames end at the first blank line.
	tail, at := "", 0
	for line := range strings.Lines(rest) {
		at += len(line)
		if strings.TrimSpace(line) == "" {
			tail = strings.TrimSpace(rest[at:])
			break
		}
	}
	if tail == "" {
		return head
	}
	return head + "\n\n" + tail
}

// caretRunes turns the column at which DuckDB's message puts its caret under a
// line of SQL it shows into a character offset in that line. DuckDB steps
// through the line by grapheme cluster (duckGraphemes: a letter and its marks, a
// flag's two regional indicators, a Hangul syllable of jamo, an emoji family
// joined by ZWJ), each as wide on screen as its first character (duckWidth): a
// tab moves the caret not at all, a CJK character or an emoji two columns, a
// flag one. The caret marks the first cluster that starts at its column (past
// those of no width); false when none does (the column falls inside a wide
// character, or past the line).
func caretRunes(shown string, col int) (int, bool) {
	w, n := 0, 0
	for _, g := range duckGraphemes(shown) {
		r, _ := utf8.DecodeRuneInString(g)
		cw := duckWidth(r)
		if w == col && cw > 0 {
			return n, true
		}
		if w > col {
			return 0, false
		}
		w += cw
		n += utf8.RuneCountInString(g)
	}
	return n, w == col && col >= 0
}

// duckGraphemes splits s into grapheme clusters as DuckDB's utf8proc does:
// Unicode's extended grapheme clusters (uniseg, Unicode 15.0), joined where
// Unicode 15.1's rule GB9c does not break an Indic conjunct (a consonant, a
// virama, a consonant: क्ष is one cluster).
func duckGraphemes(s string) []string {
	var out []string
	state := -1
	for s != "" {
		var g string
		g, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		if n := len(out); n > 0 && conjunctJoins(out[n-1], g) {
			out[n-1] += g
			continue
		}
		out = append(out, g)
	}
	return out
}

// conjunctJoins reports whether GB9c joins the clusters prev and next: next
// starts with a consonant (Indic_Conjunct_Break=Consonant) and prev ends with a
// consonant followed by marks and joiners (Extend) and at least one virama
// (Linker).
func conjunctJoins(prev, next string) bool {
	r, _ := utf8.DecodeRuneInString(next)
	if !inCBConsonant(r) {
		return false
	}
	linked := false
	for prev != "" {
		r, n := utf8.DecodeLastRuneInString(prev)
		switch {
		case inCBLinker(r):
			linked = true
		case r == 0x200d || unicode.In(r, unicode.Mn, unicode.Me):
		default:
			return linked && inCBConsonant(r)
		}
		prev = prev[:len(prev)-n]
	}
	return false
}

// inCBLinker reports whether r is a virama of Indic_Conjunct_Break=Linker.
func inCBLinker(r rune) bool {
	switch r {
	case 0x094d, 0x09cd, 0x0acd, 0x0b4d, 0x0c4d, 0x0d4d:
		return true
	}
	return false
}

// inCBConsonant reports whether r is a consonant of Indic_Conjunct_Break (the
// scripts of inCBLinker's viramas: Devanagari, Bengali, Gujarati, Oriya,
// Telugu, Malayalam).
func inCBConsonant(r rune) bool {
	return unicode.Is(inCBConsonants, r)
}

var inCBConsonants = &unicode.RangeTable{R16: []unicode.Range16{
	{0x0915, 0x0939, 1}, {0x0958, 0x095f, 1}, {0x0978, 0x097f, 1},
	{0x0995, 0x09a8, 1}, {0x09aa, 0x09b0, 1}, {0x09b2, 0x09b6, 4}, {0x09b7, 0x09b9, 1},
	{0x09dc, 0x09dd, 1}, {0x09df, 0x09f0, 0x11}, {0x09f1, 0x09f1, 1},
	{0x0a95, 0x0aa8, 1}, {0x0aaa, 0x0ab0, 1}, {0x0ab2, 0x0ab3, 1}, {0x0ab5, 0x0ab9, 1}, {0x0af9, 0x0af9, 1},
	{0x0b15, 0x0b28, 1}, {0x0b2a, 0x0b30, 1}, {0x0b32, 0x0b33, 1}, {0x0b35, 0x0b39, 1},
	{0x0b5c, 0x0b5d, 1}, {0x0b5f, 0x0b71, 0x12},
	{0x0c15, 0x0c28, 1}, {0x0c2a, 0x0c39, 1}, {0x0c58, 0x0c5a, 1},
	{0x0d15, 0x0d3a, 1},
}}

// duckWidth is the width DuckDB gives a grapheme cluster starting with r on
// screen when it places the caret of an error message (utf8proc's width of
// r): none for a tab or another control character, a combining mark, a
// zero-width space or joiner, a variation selector or an emoji's skin tone;
// two for a wide or full-width character (CJK, most emoji); one for the rest.
func duckWidth(r rune) int {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x200b && r <= 0x200f, r >= 0x2060 && r <= 0x2064, r == 0xfeff:
		return 0
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef, r >= 0x1f3fb && r <= 0x1f3ff:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// withPosition completes a DuckDB error on a later line of sqlText with its
// position: DuckDB marks it under "LINE n:" with a caret, in the line as shown
// (perhaps cut short with "..." on either side); the position is the character
// offset of the caret in the whole statement.
func withPosition(err error, sqlText string) error {
	var se *SQLError
	if !errors.As(err, &se) || se.Position > 0 || se.Engine != "duckdb" {
		return err
	}
	m := duckExcerpt(se.Message)
	if m == nil {
		return err
	}
	lineNo, _ := strconv.Atoi(se.Message[m[2]:m[3]])
	shown, rest, found := strings.Cut(se.Message[m[1]:], "\n")
	caret := strings.IndexByte(rest, '^')
	if !found || caret < 0 {
		return err
	}
	// The caret's column in the shown line, on screen (the caret line is spaces),
	// then in characters.
	col := caret - len(se.Message[m[0]:m[1]])
	if strings.HasPrefix(shown, "...") {
		shown, col = shown[3:], col-3
	}
	shown = strings.TrimSuffix(shown, "...")
	lines := duckLines(sqlText)
	col, ok := caretRunes(shown, col)
	if lineNo < 1 || lineNo > len(lines) || !ok {
		return err
	}
	line := lines[lineNo-1]
	at := strings.Index(line, shown)
	if at < 0 || strings.Contains(line[at+len(shown):], shown) && shown != "" {
		return err // not found, or not only once: no guess
	}
	before := len(strings.Join(lines[:lineNo-1], "")) + at
	pos := utf8.RuneCountInString(sqlText[:before]) + col + 1
	out := *se
	out.Position = pos
	return &out
}

// duckLines splits sqlText after each line break as DuckDB numbers the lines
// of its messages: "\r\n", "\n", or a "\r" alone.
func duckLines(sqlText string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(sqlText); i++ {
		switch sqlText[i] {
		case '\r':
			if i+1 < len(sqlText) && sqlText[i+1] == '\n' {
				i++
			}
		case '\n':
		default:
			continue
		}
		lines = append(lines, sqlText[start:i+1])
		start = i + 1
	}
	return append(lines, sqlText[start:])
}

// duckValue turns a value read from DuckDB into faithful JSON, also inside lists,
// structs and maps: a DECIMAL keeps its digits wherever it is, a MAP becomes
// [{key, value}…] in the map's own order (duckdb-go gives an OrderedMap, which
// JSON would otherwise get as its debugging text "OrderedMap{1: 2}"), a TIMETZ
// keeps its offset, and a list's elements are converted as its element type.
func duckValue(v any, dbType string) any {
	switch x := v.(type) {
	case duckdb.Decimal:
		// At most 38 digits: never too wide for a JSON number (jsonNumber).
		return json.Number(decimalText(x))
	case duckdb.UUID:
		return formatUUID(x[:])
	case *duckdb.UUID:
		return formatUUID(x[:])
	case duckdb.Interval:
		return duckIntervalText(x)
	case duckdb.OrderedMap:
		return mapPairs(&x, dbType)
	case *duckdb.OrderedMap:
		if x == nil {
			return nil
		}
		return mapPairs(x, dbType)
	case duckdb.Map:
		return jsonValue(map[any]any(x), dbType)
	case []any:
		elem := ""
		if i := strings.LastIndexByte(dbType, '['); i > 0 && strings.HasSuffix(dbType, "]") {
			elem = dbType[:i] // LIST "T[]" and ARRAY "T[n]"
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = duckValue(e, elem)
		}
		return out
	case duckdb.Union:
		// {tag, value}, the value written by its member's type.
		return map[string]any{"tag": x.Tag, "value": duckValue(x.Value, namedArgs(dbType, "UNION")[x.Tag])}
	case map[string]any:
		fields := namedArgs(dbType, "STRUCT")
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = duckValue(e, fields[k])
		}
		return out
	case string:
		if dbType == "JSON" { // inside a nested value that columnTypes reads as text
			var jv any
			if jsonKeepNumbers([]byte(x), &jv) == nil {
				return jv
			}
		}
	case time.Time:
		if dbType == "TIMETZ" {
			if x.Year() == 1 && x.YearDay() == 2 {
				// 24:00:00, the end of the day: duckdb-go gives the next day's
				// midnight.
				return "24:00:00" + duckOffset(x)
			}
			return x.Format("15:04:05.999999") + duckOffset(x)
		}
		if inf := duckInfinity(x); inf != "" {
			return inf
		}
	}
	return jsonValue(v, dbType)
}

// decimalText writes a DECIMAL with its scale's digits, as DuckDB and
// PostgreSQL do: DECIMAL(5,2) 1.50 is 1.50 (duckdb-go's String drops the
// trailing zeros: 1.5).
func decimalText(d duckdb.Decimal) string {
	if d.Value == nil {
		return "0"
	}
	digits := d.Value.String()
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	return ScaledDigits(digits, int(d.Scale), neg)
}

// ScaledDigits writes the decimal whose unscaled value has the decimal digits
// (no sign) with scale of them after the point, and a minus sign if neg:
// "5", 2 → "0.05". The caller leaves neg off for zero.
func ScaledDigits(digits string, scale int, neg bool) string {
	if scale > 0 {
		if len(digits) <= scale { // 0.05: a zero before the point
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// duckIntervalText writes an INTERVAL as DuckDB writes it as text ("1 year 2
// months 3 days 04:05:06.5", "-1 day", "00:00:00"), which DuckDB reads back as
// the same INTERVAL: the months as years and months, the days, then the
// microseconds as a time of day (hours past 24 kept), each part with its own
// sign, a part that is zero left out.
func duckIntervalText(iv duckdb.Interval) string {
	var b strings.Builder
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(n, 10) + " " + unit)
		if n != 1 && n != -1 {
			b.WriteByte('s')
		}
	}
	part(int64(iv.Months/12), "year")
	part(int64(iv.Months%12), "month")
	part(int64(iv.Days), "day")
	if iv.Micros == 0 {
		if b.Len() == 0 {
			return "00:00:00"
		}
		return b.String()
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	u := uint64(iv.Micros) // the magnitude, also of math.MinInt64
	if iv.Micros < 0 {
		b.WriteByte('-')
		u = -u
	}
	h, m, s, f := u/3600e6, u/60e6%60, u/1e6%60, u%1e6
	fmt.Fprintf(&b, "%02d:%02d:%02d", h, m, s)
	if f != 0 {
		b.WriteString(strings.TrimRight(fmt.Sprintf(".%06d", f), "0"))
	}
	return b.String()
}

// duckInfinity names DuckDB's infinite dates and timestamps, which duckdb-go gives
// as the time of their stored value (±(2^63−1) µs, ±(2^31−1) days from 1970), so
// they would read as the years 294247 or 5881580. It returns "" for other times.
func duckInfinity(x time.Time) string {
	switch {
	case x.Equal(time.UnixMicro(math.MaxInt64)), x.Unix() == math.MaxInt32*86400:
		return "infinity"
	case x.Equal(time.UnixMicro(-math.MaxInt64)), x.Unix() == -math.MaxInt32*86400:
		return "-infinity"
	}
	return ""
}

// mapPairs writes a DuckDB MAP of type dbType as [{key, value}…] in its order.
func mapPairs(m *duckdb.OrderedMap, dbType string) []map[string]any {
	kt, vt := "", ""
	if args := typeArgs(dbType, "MAP"); len(args) == 2 {
		kt, vt = args[0], args[1]
	}
	keys, vals := m.Keys(), m.Values()
	out := make([]map[string]any, len(keys))
	for i := range keys {
		out[i] = map[string]any{"key": duckValue(keys[i], kt), "value": duckValue(vals[i], vt)}
	}
	return out
}

// namedArgs returns the type of each field of a STRUCT, or member of a UNION (kind),
// as DuckDB names it (STRUCT("d" DECIMAL(4,2), "l" DATE[])), by name; nil for
// another type. Values inside a struct or union are converted by their own type,
// as a column's are.
func namedArgs(dbType, kind string) map[string]string {
	args := typeArgs(dbType, kind)
	if args == nil {
		return nil
	}
	fields := make(map[string]string, len(args))
	for _, a := range args {
		name, rest := a, ""
		if strings.HasPrefix(a, `"`) {
			// A quoted name; "" inside it is one quote.
			var b strings.Builder
			i := 1
			for i < len(a) {
				if a[i] == '"' {
					if i+1 < len(a) && a[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					break
				}
				b.WriteByte(a[i])
				i++
			}
			name, rest = b.String(), a[min(i+1, len(a)):]
		} else if n, r, ok := strings.Cut(a, " "); ok {
			name, rest = n, r
		}
		fields[name] = strings.TrimSpace(rest)
	}
	return fields
}

// typeArgs splits the arguments of a DuckDB type named kind (KIND(a, b, …)) at
// its top-level commas; nil when dbType is not of that kind.
func typeArgs(dbType, kind string) []string {
	if !strings.HasPrefix(dbType, kind+"(") || !strings.HasSuffix(dbType, ")") {
		return nil
	}
	inner := dbType[len(kind)+1 : len(dbType)-1]
	var args []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case c == '"':
			quoted = !quoted // a "" inside a name toggles twice
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(inner[start:i]))
			start = i + 1
		}
	}
	return append(args, strings.TrimSpace(inner[start:]))
}

func asAnyMap(v any) (map[any]any, bool) {
	switch m := v.(type) {
	case map[any]any:
		return m, true
	case duckdb.Map:
		return map[any]any(m), true
	}
	return nil, false
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLit(s string) string   { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// duckOffset is a TIMETZ's offset as DuckDB reads it back: a sign, hours and
// minutes, and seconds when they are not zero (+00:00, +05:30, -03:00:15); Go's
// Z07:00 writes Z, which DuckDB does not read, and drops the seconds.
func duckOffset(x time.Time) string {
	_, off := x.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := fmt.Sprintf("%s%02d:%02d", sign, off/3600, off/60%60)
	if off%60 != 0 {
		s += fmt.Sprintf(":%02d", off%60)
	}
	return s
}
