package engine

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDuckProcFatalEndsProcess: a query process whose query was answered with
// one of DuckDB's INTERNAL (or FATAL) errors is ended, not kept idle: its
// database is invalidated ("database has been invalidated because of a previous
// fatal error") and would fail every later query. The caller gets the error;
// the next query gets a new process.
func TestDuckProcFatalEndsProcess(t *testing.T) {
	p := openProc(t, nil, DuckConfig{Worker: workerAs("-fatal")})
	ctx := context.Background()
	if res, err := p.Query(ctx, "SELECT count(*) FROM items", nil, testLimits); err != nil || cell(res, 0, 0) != "3" {
		t.Fatalf("before: %v %+v", err, res)
	}
	before := p.pids()
	if len(before) != 1 {
		t.Fatalf("query processes: %v", before)
	}
	_, err := p.Query(ctx, fatalTrigger, nil, testLimits)
	var se *SQLError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Message, "INTERNAL Error") {
		t.Fatalf("the INTERNAL error: %T %v", err, err)
	}
	if strings.Contains(se.Message, "Stack Trace") || strings.Contains(se.Message, "duckdb::") {
		t.Errorf("the error shows DuckDB's stack trace: %q", se.Message)
	}
	if left := p.pids(); len(left) != 0 {
		t.Errorf("the process whose database was invalidated is kept: %v", left)
	}
	if alive(before[0]) {
		t.Errorf("process %d still runs", before[0])
	}
	for range 2 {
		res, err := p.Query(ctx, "SELECT count(*) FROM items", nil, testLimits)
		if err != nil || cell(res, 0, 0) != "3" {
			t.Fatalf("after: %v %+v", err, res)
		}
	}
	if after := p.pids(); len(after) != 1 || slices.Contains(after, before[0]) {
		t.Errorf("query processes after: %v (before: %v)", after, before)
	}
}

// TestDuckFatalReopens: with queries in the server's process (-isolate=false),
// a query answered with DuckDB's FATAL error of an invalidated database (here
// invalidated by checkpoint('system'), which the gate refuses in a query) gets
// that error, and the model's database is opened again, locked down as before:
// the next queries run.
func TestDuckFatalReopens(t *testing.T) {
	d := openTestDuck(t)
	ctx := context.Background()
	old := d.db
	if _, err := d.db.Exec("SELECT * FROM checkpoint('system')"); err == nil || !strings.Contains(err.Error(), "INTERNAL Error") {
		t.Fatalf("checkpoint('system'): %v", err)
	}
	_, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits)
	var se *SQLError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "database has been invalidated") {
		t.Fatalf("on the invalidated database: %T %v", err, err)
	}
	for range 2 {
		res, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits)
		if err != nil || res.Rows[0][0] != int64(3) {
			t.Fatalf("after: %v %+v", err, res)
		}
	}
	if d.db == old {
		t.Error("the database was not opened again")
	}
	res, err := d.Query(ctx, "SELECT current_setting('lock_configuration'), current_setting('enable_external_access'), current_setting('access_mode')", nil, testLimits)
	if err != nil || cell(res, 0, 0) != "true" || cell(res, 0, 1) != "false" || cell(res, 0, 2) != `"read_only"` {
		t.Errorf("reopened, not locked down: %v %+v", err, res)
	}
	if _, err := d.Query(ctx, "SELECT * FROM read_text('/etc/hostname')", nil, testLimits); err == nil || !strings.Contains(err.Error(), "package folder") {
		t.Errorf("reopened, a file outside the package: %v", err)
	}
}

func TestDuckFatal(t *testing.T) {
	for msg, want := range map[string]bool{
		"INTERNAL Error: Internal system catalog does not have storage":                           true,
		"FATAL Error: Failed: database has been invalidated because of a previous fatal error. …": true,
		"Binder Error: Referenced column \"x\" not found":                                         false,
		"Invalid Input Error: INTERNAL Error: from the error() function":                          false,
	} {
		if got := duckFatal(&SQLError{Engine: "duckdb", Message: msg}); got != want {
			t.Errorf("%q: %v", msg, got)
		}
	}
	if duckFatal(&SQLError{Engine: "postgres", Message: "INTERNAL Error: x"}) || duckFatal(errors.New("INTERNAL Error: x")) {
		t.Error("not DuckDB's")
	}
}

// TestWithoutStackTrace: the frames of DuckDB's stack trace (the program's path,
// addresses) are left out of an error's message; the error and DuckDB's note
// after the frames stay, and a message without a trace is unchanged.
func TestWithoutStackTrace(t *testing.T) {
	const trace = "INTERNAL Error: Internal system catalog does not have storage\n\nStack Trace:\n\n" +
		"/srv/catalog-server(duckdb::Exception::ToJSON(duckdb::ExceptionType, std::string const&)+0x5b) [0x1bcae4b]\n" +
		"/lib/x86_64-linux-gnu/libc.so.6(+0x1098ec) [0x7f99b77278ec]\n\n" +
		"This error signals an assertion failure within DuckDB.\nFor more information, see https://duckdb.org/docs/stable/dev/internal_errors"
	for in, want := range map[string]string{
		trace: "INTERNAL Error: Internal system catalog does not have storage\n\nThis error signals an assertion failure within DuckDB.\nFor more information, see https://duckdb.org/docs/stable/dev/internal_errors",
		"INTERNAL Error: x\n\nStack Trace:\n\n/srv/catalog-server(+0x1) [0x1]\n": "INTERNAL Error: x",
		"Binder Error: column \"Stack Trace:\" not found":                        "Binder Error: column \"Stack Trace:\" not found",
		"Parser Error: syntax error":                                             "Parser Error: syntax error",
	} {
		if got := withoutStackTrace(in); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestDuckFatalReopenCleansUp: a reopened model keeps one database file and
// no spill folder of a database it replaced (each reopen used to add a copy
// and a folder that stayed until the model closed), and a second FATAL error
// within reopenEvery of a reopen is answered without opening the database
// again (no reopening in a loop); one later reopens it.
func TestDuckFatalReopenCleansUp(t *testing.T) {
	d := openTestDuck(t)
	ctx := context.Background()
	files := func() []string {
		var out []string
		ents, _ := os.ReadDir(d.tmp)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".duckdb") || strings.HasPrefix(e.Name(), "spill") {
				out = append(out, e.Name())
			}
		}
		return out
	}
	invalidate := func() { invalidateDuck(t, d) }
	works := func() bool {
		res, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits)
		return err == nil && res.Rows[0][0] == int64(3)
	}
	// The first database's spill folder, as if a query had spilled.
	if err := os.MkdirAll(filepath.Join(d.tmp, "spill"), 0o700); err != nil {
		t.Fatal(err)
	}
	invalidate()
	if works() || !works() {
		t.Fatal("the invalidated database was not opened again")
	}
	if got := files(); !slices.Equal(got, []string{"model-1.duckdb"}) {
		t.Errorf("after a reopen: %q, want the new database alone", got)
	}
	// Again at once: answered, not reopened.
	invalidate()
	old := d.db
	if works() || works() || d.db != old {
		t.Errorf("a second FATAL error within %s reopened the database", reopenEvery)
	}
	// Later: reopened, the copy before it removed.
	d.reopenMu.Lock()
	d.lastReopen = time.Now().Add(-reopenEvery)
	d.reopenMu.Unlock()
	if works() || !works() {
		t.Fatal("not opened again after reopenEvery")
	}
	if got := files(); !slices.Equal(got, []string{"model-2.duckdb"}) {
		t.Errorf("after two reopens: %q, want the new database alone", got)
	}
}

// TestDuckReopenRetriesAfterFailure: a try to open an invalidated database
// again that fails (here: its file is gone, so no copy can be made) does not
// hold the next tries off for reopenEvery, only for reopenRetry; then the
// database is opened again.
func TestDuckReopenRetriesAfterFailure(t *testing.T) {
	d := openTestDuck(t)
	ctx := context.Background()
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	invalidateDuck(t, d)
	works := func() bool {
		res, err := d.Query(ctx, "SELECT count(*) FROM items", nil, testLimits)
		return err == nil && res.Rows[0][0] == int64(3)
	}
	file := d.file.path
	if err := os.Rename(file, file+".aside"); err != nil {
		t.Fatal(err)
	}
	if works() || works() {
		t.Fatal("a query on the invalidated database worked")
	}
	if d.reopened != 1 || d.db != db {
		t.Fatalf("after a failed try and a query right after it: %d tries, database replaced: %v; want 1 try, not replaced", d.reopened, d.db != db)
	}
	if err := os.Rename(file+".aside", file); err != nil {
		t.Fatal(err)
	}
	d.reopenMu.Lock()
	d.lastFailed = time.Now().Add(-reopenRetry)
	d.reopenMu.Unlock()
	if works() || !works() {
		t.Fatalf("not opened again %s after a failed try (%d tries)", reopenRetry, d.reopened)
	}
}

// TestWorkerQueryHookTestOnly: no file of the server's program assigns
// workerQueryHook; only this package's tests do.
func TestWorkerQueryHookTestOnly(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	isHook := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
				continue
			case *ast.Ident:
				return x.Name == "workerQueryHook"
			case *ast.SelectorExpr: // engine.workerQueryHook, were it reachable so
				return x.Sel.Name == "workerQueryHook"
			}
			return false
		}
	}
	found := 0
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					for _, l := range x.Lhs {
						if isHook(l) {
							t.Errorf("%s assigns workerQueryHook", fset.Position(l.Pos()))
						}
					}
				case *ast.UnaryExpr:
					if x.Op == token.AND && isHook(x.X) {
						t.Errorf("%s takes the address of workerQueryHook", fset.Position(x.Pos()))
					}
				case *ast.ValueSpec:
					for i, name := range x.Names {
						if name.Name == "workerQueryHook" {
							found++
							if i < len(x.Values) {
								t.Errorf("%s declares workerQueryHook with a value", fset.Position(name.Pos()))
							}
						}
					}
				}
				return true
			})
		}
	}
	if found != 1 {
		t.Errorf("workerQueryHook declared %d times in the package's files, want once (has it been renamed?)", found)
	}
}

// invalidateDuck invalidates the database d's queries run on, as a DuckDB
// INTERNAL error does (checkpoint('system'), which the gate refuses in a query).
func invalidateDuck(t *testing.T, d *Duck) {
	t.Helper()
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if _, err := db.Exec("SELECT * FROM checkpoint('system')"); err == nil || !strings.Contains(err.Error(), "INTERNAL Error") {
		t.Fatalf("checkpoint('system'): %v", err)
	}
}
