package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// modelEngine is a model opened on its engine. Safe for concurrent use.
type modelEngine interface {
	Query(ctx context.Context, sql string, params map[string]any, lim engine.Limits) (*engine.Result, error)
	Columns() map[string][]engine.Column
	Broken() map[string]string
	Close() error
}

// Config holds the server's limits.
type Config struct {
	DefaultRowLimit int           // rows when a call gives no rowLimit; zero means 1000
	MaxRowLimit     int           // the largest rowLimit a call may ask for; zero means 10000
	ByteBudget      int           // JSON bytes of columns and rows per result; zero means 4 MiB
	QueryTimeout    time.Duration // per query; zero means 30s
	PageSize        int           // items per list page; zero means 100
	// MaxQueriesPerClient is each client's share of queries running or
	// waiting at once (clientShares); zero means defaultQueriesPerClient,
	// negative no share. Calls without a client (stdio) are not counted.
	MaxQueriesPerClient int
	// ClientHeader names a header a trusted reverse proxy sets to the client's
	// address (X-Forwarded-For); empty means the request's remote address.
	ClientHeader string
	// DSNEnv lists the environment variables a PostgreSQL package's manifest
	// may name in dsnEnv: names, or prefixes ending in "*"; nil means
	// defaultDSNEnv. A manifest naming any other is refused (dsnEnvAllowed).
	DSNEnv []string
	Duck   engine.DuckConfig
	PG     engine.PGConfig
	// SkipEngines loads the catalog without opening engines (no columns, no queries):
	// for listing benchmarks over synthetic catalogs.
	SkipEngines bool
}

func (c *Config) fill() {
	// The load-time check of named queries prepares them as calls run them.
	if c.Duck.Typed == nil {
		c.Duck.Typed = duckTypedText
		c.Duck.CastType = duckCastType
	}
	if c.PG.Typed == nil {
		c.PG.Typed = pgTypedText
	}
	if c.DefaultRowLimit <= 0 {
		c.DefaultRowLimit = 1000
	}
	if c.MaxRowLimit <= 0 {
		c.MaxRowLimit = 10000
	}
	if c.DefaultRowLimit > c.MaxRowLimit {
		c.DefaultRowLimit = c.MaxRowLimit
	}
	if c.ByteBudget <= 0 {
		c.ByteBudget = 4 << 20
	}
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = 30 * time.Second
	}
	if c.PageSize <= 0 {
		c.PageSize = 100
	}
	if c.MaxQueriesPerClient == 0 {
		c.MaxQueriesPerClient = defaultQueriesPerClient
	}
	if c.DSNEnv == nil {
		c.DSNEnv = []string{defaultDSNEnv}
	}
	if c.Duck.Worker != nil && c.Duck.Processes == nil {
		c.Duck.Processes = engine.NewProcessLimit(defaultQueryProcesses)
	}
}

// defaultDSNEnv is the environment variables a manifest's dsnEnv may name
// unless -dsn-env says otherwise: those the operator set for the catalog.
const defaultDSNEnv = "CATALOG_*"

// dsnEnvAllowed reports whether a manifest may read the environment variable
// name: it is one of allowed, or begins with one ending in "*" (the rest).
func dsnEnvAllowed(name string, allowed []string) bool {
	for _, a := range allowed {
		if prefix, ok := strings.CutSuffix(a, "*"); ok && strings.HasPrefix(name, prefix) || a == name {
			return true
		}
	}
	return false
}

// allowedDSNEnv says which variables manifests may name, for a refusal.
func allowedDSNEnv(allowed []string) string {
	if len(allowed) == 0 {
		return "none"
	}
	return strings.Join(allowed, ", ")
}

// defaultQueryProcesses is how many query processes run queries at once over all
// models (-isolate, the default), unless -max-query-processes says otherwise.
const defaultQueryProcesses = 16

// snapshot is one loaded catalog with its engines. It is never changed once
// published; a reload publishes a new one.
type snapshot struct {
	cat     *catalog.Catalog
	engines map[*catalog.Model]modelEngine
	broken  map[*catalog.Model]string // model → why its engine did not open
	// checks holds what the engine found wrong with named queries when their
	// model opened, by query path (and, by model path, the queries it left
	// unchecked), each said in full ("retail/shop/sales.sql: query q (line
	// 12): …").
	checks map[string][]string
	// stamps summarises each package's files as they were before the catalog was
	// read (dirStamps): a model of a package whose stamp a reload finds unchanged
	// keeps its engine.
	stamps map[string]string
}

// Service is the catalog being served: the current snapshot, swapped on reload.
type Service struct {
	cfg Config
	log *slog.Logger
	dir string
	cur atomic.Pointer[snapshot]
	mu  sync.Mutex // serialises reloads
	old sync.WaitGroup
	// closing holds the engines replaced by reloads whose Close has not
	// returned yet (it waits for the queries still running on them).
	closing sync.Map // modelEngine → struct{}
	subs    []func(old, new *catalog.Catalog)
	shares  *clientShares // each client's queries at once
}

// NewService loads dir and opens its engines.
func NewService(ctx context.Context, dir string, cfg Config, log *slog.Logger) (*Service, error) {
	cfg.fill()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{cfg: cfg, log: log, dir: dir, shares: newClientShares(cfg.MaxQueriesPerClient)}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// OnReload registers fn to run after each successful reload (with the catalog
// before and after), before Reload returns. Register before the catalog is
// watched, or a reload may come between what fn's owner read and fn's first call.
func (s *Service) OnReload(fn func(old, new *catalog.Catalog)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, fn)
}

// Catalog returns the current catalog.
func (s *Service) Catalog() *catalog.Catalog { return s.cur.Load().cat }

func (s *Service) snap() *snapshot { return s.cur.Load() }

// Reload reads the directory again and publishes the result; the previous
// snapshot's engines close once their running queries finish.
func (s *Service) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A model file or manifest broken by an edit keeps the version loaded before.
	var prev *catalog.Catalog
	old := s.cur.Load()
	if old != nil {
		prev = old.cat
	}
	// Stamped before the files are read: a file changed while they are read makes
	// the next reload see its package changed (never the reverse).
	stamps := dirStamps(s.dir)
	cat, err := catalog.LoadAfter(s.dir, prev)
	if err != nil {
		return err
	}
	sn := &snapshot{cat: cat, engines: map[*catalog.Model]modelEngine{}, broken: map[*catalog.Model]string{}, stamps: stamps, checks: map[string][]string{}}
	logs := logBudget{log: s.log}
	// The engines of models whose package's files did not change since they were
	// opened are kept: opening a model (a DuckDB database built, its files
	// sniffed) costs tens of milliseconds, and one changed file reopened every
	// model of the catalog.
	reuse := map[string]modelEngine{}
	if old != nil {
		for m, e := range old.engines {
			pk := m.Package.Project.Name + "/" + m.Package.Name
			if st, ok := old.stamps[pk]; ok && st == stamps[pk] {
				reuse[pk+"/"+m.Name] = e
			}
		}
	}
	kept := map[modelEngine]bool{}
	if !s.cfg.SkipEngines {
		for _, p := range cat.Projects {
			for _, pkg := range p.Packages {
				for _, m := range pkg.Models {
					e, ok := reuse[p.Name+"/"+pkg.Name+"/"+m.Name]
					for _, msg := range sn.addParamChecks(m) {
						if !ok { // told when the model opens, not at every reload
							logs.warn("named query", "problem", msg)
						}
					}
					if ok {
						kept[e] = true
					} else {
						if e, err = s.open(ctx, m); err != nil {
							sn.broken[m] = err.Error()
							logs.warn("model did not open", "model", pkg.Project.Name+"/"+pkg.Name+"/"+m.Name, "err", err)
							continue
						}
						for _, name := range slices.Sorted(maps.Keys(e.Broken())) {
							logs.warn("source did not load", "source", pkg.Project.Name+"/"+pkg.Name+"/"+m.Name+"/"+name, "err", e.Broken()[name])
						}
					}
					sn.engines[m] = e
					for _, msg := range sn.addChecks(m, e) {
						if !ok { // told when the model opens, not at every reload
							logs.warn("named query", "problem", msg)
						}
					}
					// The column index for search: set before the catalog is published.
					cols := e.Columns()
					for _, src := range m.Sources {
						if ent := cat.Lookup(p.Name + "/" + pkg.Name + "/" + m.Name + "/" + src.Name); ent != nil {
							for _, c := range cols[src.Name] {
								ent.Columns = append(ent.Columns, c.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, d := range cat.Diagnostics {
		logs.warn("catalog", "diagnostic", d)
	}
	logs.done()
	if hint := emptyCatalogHint(s.dir, cat); hint != "" {
		s.log.Warn("the catalog has no packages", "dir", s.dir, "hint", hint)
	}
	s.cur.Store(sn)
	if old != nil {
		for _, e := range old.engines {
			if !kept[e] {
				s.closing.Store(e, struct{}{})
				s.old.Go(func() {
					defer s.closing.Delete(e)
					e.Close() // waits for the queries still running on it
				})
			}
		}
		for _, fn := range s.subs {
			fn(old.cat, cat)
		}
	}
	return nil
}

// maxLoggedProblems is how many lines about the catalog's problems (files
// skipped, sources and models that did not load, named queries' problems) one
// load logs at most; a last line counts those left out, which describe lists
// (the problems of the catalog, its projects, packages and models).
const maxLoggedProblems = 100

// logBudget logs at most maxLoggedProblems warnings, then counts.
type logBudget struct {
	log     *slog.Logger
	n, left int
}

func (b *logBudget) warn(msg string, args ...any) {
	if b.n++; b.n > maxLoggedProblems {
		b.left++
		return
	}
	b.log.Warn(msg, args...)
}

func (b *logBudget) done() {
	if b.left > 0 {
		b.log.Warn("more problems in the catalog than are logged", "notLogged", b.left, "hint", "describe the catalog (an empty path), its projects, packages and models to read them all")
	}
}

// queryChecker is an engine that checks its model's named queries when it
// opens (DuckDB and PostgreSQL).
type queryChecker interface {
	QueryChecks() map[string]engine.QueryCheck
}

// addChecks records what the engine e of model m found wrong with m's named
// queries and with the notebook cells that run against m, and returns it, each
// problem said in full.
func (sn *snapshot) addChecks(m *catalog.Model, e modelEngine) []string {
	qc, ok := e.(queryChecker)
	if !ok {
		return nil
	}
	checks := qc.QueryChecks()
	ppath := m.Package.Project.Name + "/" + m.Package.Name
	mpath := ppath + "/" + m.Name
	file := mpath + ".sql"
	var all []string
	if len(m.Problems) == 0 { // else the model's previous version: told once, for the file
		for _, q := range m.Queries {
			for _, p := range checks[q.Name].Problems {
				msg := fmt.Sprintf("%s: query %s (line %d): %s", file, q.Name, q.Line, packageRelative(m, p))
				sn.checks[mpath+"/"+q.Name] = append(sn.checks[mpath+"/"+q.Name], msg)
				all = append(all, msg)
			}
		}
	}
	for _, nb := range m.Package.Notebooks {
		for _, c := range nb.Cells {
			if c.Model != m {
				continue
			}
			for _, p := range checks[engine.CellKey(nb, c)].Problems {
				msg := fmt.Sprintf("%s/%s: %s (line %d): %s", ppath, filepath.Base(nb.File), c.Name, c.Line, packageRelative(m, p))
				cpath := ppath + "/" + nb.Name + "/" + c.Name
				sn.checks[cpath] = append(sn.checks[cpath], msg)
				all = append(all, msg)
			}
		}
	}
	if len(m.Problems) == 0 {
		for _, p := range checks[""].Problems {
			msg := file + ": " + p
			sn.checks[mpath] = append(sn.checks[mpath], msg)
			all = append(all, msg)
		}
	}
	return all
}

// addParamChecks records what is wrong with the parameters m's named queries
// declare that the server itself finds, whatever the engine (a list of a type
// it does not cast, uncastList), and returns it, each problem said in full.
func (sn *snapshot) addParamChecks(m *catalog.Model) []string {
	if len(m.Problems) > 0 {
		return nil // the model's previous version: told once, for the file
	}
	mpath := m.Package.Project.Name + "/" + m.Package.Name + "/" + m.Name
	var all []string
	for _, q := range m.Queries {
		for _, p := range q.Params {
			if why := uncastList(m.Package.Engine, p); why != "" {
				msg := fmt.Sprintf("%s.sql: query %s (line %d): %s", mpath, q.Name, q.Line, why)
				sn.checks[mpath+"/"+q.Name] = append(sn.checks[mpath+"/"+q.Name], msg)
				all = append(all, msg)
			}
		}
	}
	return all
}

// modelProblems lists what is wrong with model m: its file (when its previous
// version is served) and its named queries.
func (sn *snapshot) modelProblems(m *catalog.Model) []string {
	if m == nil || m.Package == nil {
		return nil
	}
	out := slices.Clone(m.Problems)
	mpath := m.Package.Project.Name + "/" + m.Package.Name + "/" + m.Name
	out = append(out, sn.checks[mpath]...)
	for _, q := range m.Queries {
		out = append(out, q.Problems...)
		out = append(out, sn.checks[mpath+"/"+q.Name]...)
	}
	return out
}

func (s *Service) open(ctx context.Context, m *catalog.Model) (modelEngine, error) {
	switch m.Package.Engine {
	case catalog.EnginePostgres:
		if !dsnEnvAllowed(m.Package.DSNEnv, s.cfg.DSNEnv) {
			return nil, fmt.Errorf("dsnEnv names the environment variable %s, which this server does not let a manifest read (it lets manifests read %s): rename the variable to one of those, or have the server's operator allow it with -dsn-env. Without that rule a manifest could read any variable of the server's environment", m.Package.DSNEnv, allowedDSNEnv(s.cfg.DSNEnv))
		}
		dsn := os.Getenv(m.Package.DSNEnv)
		if dsn == "" {
			return nil, fmt.Errorf("the environment variable %s (dsnEnv in the manifest) is empty: set it to a PostgreSQL connection string", m.Package.DSNEnv)
		}
		pg, err := engine.OpenPostgres(ctx, m, dsn, s.cfg.PG)
		if errors.Is(err, engine.ErrBadDSN) {
			return nil, fmt.Errorf("the environment variable %s (dsnEnv in the manifest) does not hold a PostgreSQL connection string PostgreSQL's driver can read (its value is not shown: it may hold a password); set it to a URL such as postgres://reader@db.internal:5432/hr or to key=value pairs", m.Package.DSNEnv)
		}
		return pg, err
	default:
		if s.cfg.Duck.Worker != nil {
			return engine.OpenDuckProc(ctx, m, s.cfg.Duck)
		}
		return engine.OpenDuck(ctx, m, s.cfg.Duck)
	}
}

// Close closes the engines of the current snapshot and waits for those of earlier
// ones to close. The engines close at once, each as soon as its running queries
// end: one model still computing holds up no other.
func (s *Service) Close() {
	defer s.old.Wait()
	var wg sync.WaitGroup
	if sn := s.cur.Load(); sn != nil {
		for _, e := range sn.engines {
			wg.Go(func() { e.Close() })
		}
	}
	wg.Wait()
}

// Discard removes the files of every engine not yet closed (current ones, and
// replaced ones still closing), for a process that stops without waiting for
// the computations still running on them.
func (s *Service) Discard() {
	discard := func(e any) {
		if d, ok := e.(interface{ Discard() }); ok {
			d.Discard()
		}
	}
	if sn := s.cur.Load(); sn != nil {
		for _, e := range sn.engines {
			discard(e)
		}
	}
	s.closing.Range(func(e, _ any) bool {
		discard(e)
		return true
	})
}

// Watch reloads the catalog whenever its directory changes, until ctx ends.
func (s *Service) Watch(ctx context.Context, every time.Duration) {
	catalog.Watch(ctx, s.dir, every, func() {
		if err := s.Reload(ctx); err != nil {
			s.log.Warn("reload failed; still serving the previous catalog", "err", err)
			return
		}
		s.log.Info("catalog reloaded", "dir", s.dir)
	})
}

// dirStamps summarises the files of the catalog in dir: per package path
// ("project/package") the names, sizes and modification times of the files under
// its folder, and per project the same of the files directly in its folder
// (project.json). dir may be a symbolic link to the catalog folder.
func dirStamps(dir string) map[string]string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	b := map[string]*strings.Builder{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
		key := parts[0]
		switch {
		case len(parts) == 1 && !d.IsDir():
			return nil // beside the projects
		case len(parts) >= 2 && (d.IsDir() || len(parts) == 3):
			key += "/" + parts[1]
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if b[key] == nil {
			b[key] = &strings.Builder{}
		}
		fmt.Fprintf(b[key], "%s\x00%d\x00%d\x00%s\n", rel, info.Size(), info.ModTime().UnixNano(), info.Mode())
		return nil
	})
	out := make(map[string]string, len(b))
	for k, v := range b {
		out[k] = v.String()
	}
	return out
}

// emptyCatalogHint says, for a catalog without a single package, what the folder
// looks like instead (a package or project folder given as the catalog, say), or
// how a catalog is laid out; "" when the catalog has a package.
func emptyCatalogHint(dir string, cat *catalog.Catalog) string {
	for _, p := range cat.Projects {
		if len(p.Packages) > 0 {
			return ""
		}
	}
	const layout = "a catalog is DIR/PROJECT/PACKAGE/manifest.json, with the package's models (.sql) and notebooks (.md) beside the manifest"
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		return dir + " is a package folder (it holds manifest.json): give -catalog the folder two levels up; " + layout
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", "manifest.json")); len(m) > 0 {
		return dir + " is a project folder (" + filepath.Base(filepath.Dir(m[0])) + " holds manifest.json): give -catalog its parent folder; " + layout
	}
	return layout
}
