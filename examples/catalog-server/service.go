package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

	// open, when set (tests), opens each model instead of the service; real
	// opens the model's engine as the service does. PostgreSQL packages are
	// then not probed (probePG).
	open func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error)
	// The service's delays, each its constant unless a test sets it (fill):
	// retryFirst is pgRetryFirst, restartLimit loadRestartLimit,
	// rebuildFirst goneRetryFirst. The service reads them here only.
	retryFirst   time.Duration
	restartLimit time.Duration
	rebuildFirst time.Duration
	// probe (tests) has PostgreSQL packages probed even with open set.
	probe bool
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
	if c.retryFirst <= 0 {
		c.retryFirst = pgRetryFirst
	}
	if c.restartLimit <= 0 {
		c.restartLimit = loadRestartLimit
	}
	if c.rebuildFirst <= 0 {
		c.rebuildFirst = goneRetryFirst
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
	// refuse holds, by path, the named queries and notebook cells no call may
	// run, and why (engine.QueryCheck.Refuse: checking it when its model
	// loaded crashed DuckDB, or needed more memory than the load may hold, or
	// never ran as the load process had crashed too often: QueryCheck.Unchecked).
	refuse map[string]engine.QueryCheck
	// stamps summarises the files of each package as served (the version its
	// engines were opened for) and of each project, as dirStamps does: what
	// changed between two snapshots (followReloads).
	stamps map[string]string
	// loading holds the packages ("project/package") that have no version
	// served yet: their models answer that they are still loading.
	loading map[string]bool
	// retryAt holds, by package, when the server next tries to open its
	// PostgreSQL models that did not open (pkgState.next).
	retryAt map[string]*atomic.Int64
}

// Service is the catalog being served: the current snapshot, swapped whenever
// the catalog is read again and whenever a package's models finish opening.
//
// Packages load on their own: reading the catalog (Reload, Watch) starts a load
// for each package whose files (or, for PostgreSQL, connection string) changed,
// at most maxParallelLoads at once, and each package is swapped in, all its
// models together, as soon as its own load ends (loads that end close together
// are swapped in by one publish: publishSoon). Until then the package's
// previous version stays served, and a package that has none yet (at start, or
// new) answers that it is still loading. A package that did not change keeps
// its engines, and its failures: a PostgreSQL model that did not open is not
// tried again because another package changed, but in the background, with a
// growing delay (pgRetryFirst … pgRetryMax).
type Service struct {
	cfg Config
	log *slog.Logger
	dir string
	cur atomic.Pointer[snapshot]

	// mu guards the fields down to closed, and serialises reading the catalog
	// and publishing snapshots (never held while a model opens).
	mu      sync.Mutex
	read    *catalog.Catalog            // the catalog as last read
	stamps  map[string]string           // dirStamps taken before that read
	ids     catalog.FileIDs             // the files dirStamps saw last, to tell a file replaced by another
	want    map[string]string           // package path → the version that read found (pkgVersion)
	pkgs    map[string]*catalog.Package // package path → the package as that read found it
	ready   map[string]*pkgState        // package path → its models as opened: the version served
	loading map[string]*pkgLoad         // package path → its load under way (at most one)
	changed chan struct{}               // closed and replaced whenever ready, want or closed change
	held    bool                        // no load starts before startLoads
	closed  bool
	// served holds, by package path, the version the published snapshot
	// serves (what waitFor waits for): ready runs ahead of it until the next
	// publish.
	served map[string]string
	// dirty says ready changed (a load finished) since the last publish;
	// publishSoon publishes it at most every publishEvery. replaced holds the
	// versions it took out of ready, retired once a snapshot without them is
	// published (one per finished load at most: bounded by the packages).
	dirty       bool
	replaced    [][2]*pkgState // {replaced, its successor}
	publishWait *time.Timer    // the publish publishSoon put off, if any
	lastPublish time.Time      // when the last publish ended
	publishCost time.Duration  // how long it took
	publishes   int            // snapshots published (tests)
	// toldDiags holds the catalog's diagnostics the last read found, each
	// keyed with its package's or project's stamp (diagnosticKeys): the
	// next read logs only those not in it.
	toldDiags map[string]bool

	loadCtx   context.Context // the loads' context: ends with Close (or NewService's ctx)
	stopLoads context.CancelFunc
	slots     chan struct{} // a place per load opening models (maxParallelLoads)
	retrySlot chan struct{} // the one place of background retries, taken before slots
	loads     sync.WaitGroup

	old sync.WaitGroup
	// closing holds the engines replaced by reloads whose Close has not
	// returned yet (it waits for the queries still running on them).
	closing sync.Map // modelEngine → struct{}
	subs    []func(old, new *catalog.Catalog)
	shares  *clientShares // each client's queries at once
	// brokenNotes rate-limits the lines about models whose query processes
	// cannot start or open them (Execute): 10 a minute.
	brokenNotes *engine.NoteLimiter
	// connLogged is when a query's PostgreSQL connection error was last
	// logged (Unix nanoseconds): one line per connLogEvery at most.
	connLogged atomic.Int64
}

// connLogEvery is how often at most a query's failure to reach its
// PostgreSQL server is logged with its details (clients see the cause only).
const connLogEvery = 10 * time.Second

// logConnError logs the details of ce (user, database, host), which the
// client that met it is not told: a line per connLogEvery at most, however
// many calls meet the server down.
func (s *Service) logConnError(path string, ce *engine.ConnectError) {
	now, last := time.Now().UnixNano(), s.connLogged.Load()
	if now-last >= int64(connLogEvery) && s.connLogged.CompareAndSwap(last, now) {
		s.log.Warn("a query could not reach its model's PostgreSQL server", "path", path, "err", ce.Err)
	}
}

// maxParallelLoads is how many packages open their models at once. A package
// whose load is slow (a DuckDB model whose check computes for a minute, a
// PostgreSQL server that does not answer) holds one place, and the others load
// beside it; a package whose files change while it loads has its load
// cancelled and loads again (a DuckDB load's process is ended; a load in the
// server's process, without DuckConfig.Loader, keeps its place until DuckDB
// returns), within loadRestartLimit. Background retries of PostgreSQL models hold one place at most
// (retrySlot), so that they never hold up the load of a package that changed.
const maxParallelLoads = 4

// maxParallelPGOpens is how many models of one PostgreSQL package are opened at
// once: each waits on the network, not on this machine. Before them, one
// connection (probePG) finds a server that is down or does not answer, in one
// connect timeout for the whole package. A DuckDB package's models open one
// after the other.
const maxParallelPGOpens = 4

// A PostgreSQL model that did not open is tried again after pgRetryFirst, then
// after twice as long each time, up to pgRetryMax, until it opens or its
// package (or its connection string) changes, which loads it at once.
const (
	pgRetryFirst = 30 * time.Second
	pgRetryMax   = 10 * time.Minute
)

// A DuckDB model whose database file is gone and whose rebuild failed is
// rebuilt again in the background after goneRetryFirst, then after twice as
// long each time, up to goneRetryMax, until it opens or its package changes;
// calls meanwhile start no rebuild of their own (rebuild).
const (
	goneRetryFirst = time.Second
	goneRetryMax   = 5 * time.Minute
)

// pkgState is one version of a package with its models as opened. Never
// changed once it is in Service.ready (but for told, checked, retries, timer,
// since and goneNext, under mu).
type pkgState struct {
	ver     string
	pkg     *catalog.Package       // the version the engines were opened for
	engines map[string]modelEngine // model name → its engine
	broken  map[string]string      // model name → why it did not open
	took    time.Duration
	told    bool        // its problems were logged
	retries int         // how many times its failed models were tried again
	timer   *time.Timer // the next try of its failed PostgreSQL models
	// down is the error of the connection its last load or retry tried
	// before opening models (probePG), when the server could not be reached;
	// "" when it was, or none was tried.
	down string
	// next is when timer fires, in Unix nanoseconds (0: no try scheduled);
	// read without mu by calls to its failed models (retryNote).
	next atomic.Int64
	// goneNext is when the next rebuild of the models whose database file
	// is gone runs, the last having failed (scheduleRebuild), in Unix
	// nanoseconds (0: none scheduled, calls may start one); under mu.
	goneNext int64
	// gone holds the models a call found with their database file gone, with
	// the engine it met (still served until the model opens again); a
	// rebuild opens each of them whose engine is still served. goneTried
	// holds those the last failed rebuild tried: only their calls are told
	// it failed (rebuildFailedError). Under mu.
	gone      map[string]modelEngine
	goneTried map[string]bool
	// final holds the models whose failure no retry changes: the catalog's
	// SQL (a source reading a table that does not exist), which only an edit
	// of the package's files (or a touch, once the table is there) loads again.
	final map[string]bool
	// since, for a version serveDown served, is when the package's chain of
	// cancelled loads began (pkgLoad.since): the try it starts at once is the
	// load of that version, and a change cancels it only within
	// loadRestartLimit of it. Zero once that try started; under mu.
	since time.Time
	// What the versions before this one logged, which publish does not log
	// again (a retry of the same files, a version served while its server is
	// down): toldWhy the failure of each model, toldEng each model's engine
	// (its sources' and named queries' problems), toldParams the problems of
	// the named queries' parameters.
	toldWhy    map[string]string
	toldEng    map[string]modelEngine
	toldParams bool
	// checked is what is wrong with its named queries and notebook cells
	// (checksOf): worked out by the first publish that serves it, and kept
	// for the next ones; under mu.
	checked *pkgChecks
}

// pkgChecks is what is wrong with the named queries and notebook cells of one
// version of a package (pkgState), as a snapshot holds it (snapshot.checks,
// refuse), and by model name the same problems each said in full, for the log:
// params those of the parameters (addParamChecks), found those the model's
// engine found when it opened (addChecks).
type pkgChecks struct {
	checks        map[string][]string
	refuse        map[string]engine.QueryCheck
	params, found map[string][]string
}

// checksOf returns the checks of st, working them out the first time. Called
// with mu held (publish).
func (st *pkgState) checksOf() *pkgChecks {
	if st.checked != nil {
		return st.checked
	}
	pc := &pkgChecks{checks: map[string][]string{}, refuse: map[string]engine.QueryCheck{}, params: map[string][]string{}, found: map[string][]string{}}
	for _, m := range st.pkg.Models {
		pc.params[m.Name] = pc.addParamChecks(m)
		if e := st.engines[m.Name]; e != nil {
			pc.found[m.Name] = pc.addChecks(m, e)
		}
	}
	st.checked = pc
	return pc
}

// toldSoFar says what publish logged of st and of the versions before it
// (pkgState.toldWhy).
func (st *pkgState) toldSoFar() (why map[string]string, eng map[string]modelEngine, params bool) {
	if st.told {
		return st.broken, st.engines, true
	}
	return st.toldWhy, st.toldEng, st.toldParams
}

// loadRestartLimit bounds how long changes to a package's files keep
// cancelling its loads. A change cancels the package's load in progress (and
// the version it finds loads instead) only while the first load of the
// package's chain of cancelled loads started less than loadRestartLimit ago,
// or while the load waits for a place (nothing opened yet); past it the load
// in progress finishes and is swapped in, and the newest version loads right
// after it (a new chain). So a burst of edits, such as copying many files in,
// loads only its last state when it lasts less than loadRestartLimit, and a
// package whose files change more often than its load takes (a data file
// appended every 2 s, a load of 5 s) still has a new version swapped in
// within loadRestartLimit and one load, not never.
const loadRestartLimit = 10 * time.Second

// pkgLoad is a package's load under way.
type pkgLoad struct {
	ver    string
	ctx    context.Context
	cancel context.CancelFunc
	// keep holds the engines a retry keeps (the models that did open); nil
	// for a load of a new version, which opens every model.
	keep    map[string]modelEngine
	retries int
	// since is when the first load of the package's chain of cancelled loads
	// started (loadRestartLimit).
	since time.Time
	// opening is set once the load holds a place and opens models.
	opening atomic.Bool
	// retry says the load is a background retry of the version served
	// (retryIn), not the try serveDown starts, which is the load of an edited
	// version: a change of the package cancels it at any time (restart).
	retry bool
	// superseded says a change cancelled the load (its chain goes on);
	// outrun that a change came past loadRestartLimit and left it to finish,
	// to be swapped in though it is not the version wanted. Under mu.
	superseded, outrun bool
	// gone, for a rebuild, holds the models whose database file is gone
	// that it opens again, with their engines (still served until each
	// opens again).
	gone map[string]modelEngine
}

// restart says whether a change to the package of l, a load in progress of
// another version, cancels it (loadRestartLimit). A background retry of the
// version served always is: the changed version opens every model anew, and
// would otherwise wait for a retry that waits on a server. The try serveDown
// starts is no such retry: it is the load of an edited version, and one
// cancelled at each edit would keep the package unopened for as long as the
// edits go on. Called with mu held.
func (s *Service) restart(l *pkgLoad) bool {
	return l.retry || !l.opening.Load() || time.Since(l.since) < s.cfg.restartLimit
}

// packagePath is the path of pkg in the catalog ("project/package"): its key
// in Service.ready, loading, want and a snapshot's stamps.
func packagePath(pkg *catalog.Package) string {
	return pkg.Project.Name + "/" + pkg.Name
}

// modelPath is the path of m in the catalog ("project/package/model").
func modelPath(m *catalog.Model) string {
	return packagePath(m.Package) + "/" + m.Name
}

// stillLoading is what a model of a package not loaded yet answers.
func stillLoading(key string) string {
	return "its package " + key + " is still loading (its models are being opened, after the server started or the package was added); call again in a few seconds"
}

// pkgVersion says which version of pkg the files stamped stamp make: a
// PostgreSQL package is also a new version when its connection string changes.
func pkgVersion(pkg *catalog.Package, stamp string) string {
	if pkg.Engine != catalog.EnginePostgres {
		return stamp
	}
	sum := sha256.Sum256([]byte(os.Getenv(pkg.DSNEnv)))
	return stamp + "\x00dsn " + hex.EncodeToString(sum[:8])
}

// NewService loads dir and opens its engines; it returns once every package's
// models have opened or failed to (or ctx ends: then with ctx's error).
func NewService(ctx context.Context, dir string, cfg Config, log *slog.Logger) (*Service, error) {
	s, err := openService(ctx, dir, cfg, log)
	if err != nil {
		return nil, err
	}
	s.startLoads()
	if err := s.WaitLoaded(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openService reads the catalog in dir and publishes it, every package still
// loading; startLoads starts opening their models, which stop when ctx ends or
// at Close. In between, its owner registers what follows reloads (OnReload),
// so that no package's swap comes before.
func openService(ctx context.Context, dir string, cfg Config, log *slog.Logger) (*Service, error) {
	cfg.fill()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Model folders of servers killed before they could remove them (SIGKILL,
	// a crash): the ones whose process is gone.
	engine.RemoveLeftovers(log)
	s := &Service{cfg: cfg, log: log, dir: dir, shares: newClientShares(cfg.MaxQueriesPerClient),
		brokenNotes: engine.NewNoteLimiter(10, time.Minute, "lines about models whose query processes cannot start or open them"),
		ready:       map[string]*pkgState{}, loading: map[string]*pkgLoad{}, changed: make(chan struct{}),
		slots: make(chan struct{}, maxParallelLoads), retrySlot: make(chan struct{}, 1), held: true}
	s.loadCtx, s.stopLoads = context.WithCancel(ctx)
	if _, err := s.reread(); err != nil {
		s.stopLoads()
		return nil, err
	}
	return s, nil
}

// startLoads starts the loads openService held back.
func (s *Service) startLoads() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = false
	for key, ver := range s.want {
		if st := s.ready[key]; (st == nil || st.ver != ver) && s.loading[key] == nil && !s.closed {
			s.startLoad(key, s.pkgs[key], ver, nil, 0, time.Now())
		}
	}
}

// OnReload registers fn to run after each snapshot published after the first
// (with the catalog before and after): a read of the catalog, and a package
// swapped in once its models opened. Register before the catalog is watched,
// or a reload may come between what fn's owner read and fn's first call.
func (s *Service) OnReload(fn func(old, new *catalog.Catalog)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, fn)
}

// Catalog returns the current catalog.
func (s *Service) Catalog() *catalog.Catalog { return s.cur.Load().cat }

func (s *Service) snap() *snapshot { return s.cur.Load() }

// Reload reads the directory again, publishes it, and returns once the
// packages this read found changed have been swapped in (their models opened
// or failed to), or ctx ends (with its error; they go on loading). Packages
// loading from earlier reads are not waited for. The engines replaced close
// once their running queries finish.
func (s *Service) Reload(ctx context.Context) error {
	changed, err := s.reread()
	if err != nil {
		return err
	}
	return s.waitFor(ctx, changed)
}

// WaitLoaded returns once every package of the catalog as last read is served
// in that version (or ctx ends, with its error).
func (s *Service) WaitLoaded(ctx context.Context) error {
	s.mu.Lock()
	want := maps.Clone(s.want)
	s.mu.Unlock()
	return s.waitFor(ctx, want)
}

// Loading lists the packages ("project/package") that have no version served
// yet: they answer that they are still loading.
func (s *Service) Loading() []string {
	return slices.Sorted(maps.Keys(s.snap().loading))
}

// waitFor returns once each package of want (path → version) is served in that
// version, or a later read wants another version or none; or when ctx ends or
// the loads stop (Close), with that error.
func (s *Service) waitFor(ctx context.Context, want map[string]string) error {
	for {
		s.mu.Lock()
		pending := false
		for key, ver := range want {
			if s.want[key] == ver && s.served[key] != ver {
				pending = true
				break
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if !pending {
			return nil
		}
		if err := s.loadCtx.Err(); err != nil {
			return err // closed, or NewService's context ended: nothing loads any more
		}
		select {
		case <-ch:
		case <-s.loadCtx.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal tells waitFor that something changed. Called with mu held.
func (s *Service) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// reread reads the catalog, publishes it (each package in the version served:
// a package whose new version is loading keeps its previous one), and starts
// a load for each package not served in the version read. It returns the
// packages this read found changed (not those loading since an earlier read),
// with the version read.
func (s *Service) reread() (map[string]string, error) {
	changed, _, err := s.rereadIf(false)
	return changed, err
}

// rereadIf is reread; when onlyChanged, it reads nothing (read false) if
// no file changed since the catalog was last read (the stamps are the same).
func (s *Service) rereadIf(onlyChanged bool) (changed map[string]string, read bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, errors.New("the catalog service is closed")
	}
	// Stamped before the files are read: a file changed while they are read makes
	// the next reload see its package changed (never the reverse).
	stamps, err := dirStamps(s.dir, &s.ids)
	if err != nil {
		return nil, false, fmt.Errorf("catalog directory: %w", err)
	}
	if onlyChanged && s.read != nil && maps.Equal(stamps, s.stamps) {
		return nil, false, nil
	}
	// A model file or manifest broken by an edit keeps the version read before.
	cat, err := catalog.LoadAfter(s.dir, s.read)
	if err != nil {
		return nil, false, err
	}
	want, pkgs := map[string]string{}, map[string]*catalog.Package{}
	for _, p := range cat.Projects {
		for _, pkg := range p.Packages {
			key := p.Name + "/" + pkg.Name
			want[key], pkgs[key] = pkgVersion(pkg, stamps[key]), pkg
		}
	}
	before := s.want
	s.read, s.stamps, s.want, s.pkgs = cat, stamps, want, pkgs
	for key, l := range s.loading {
		switch {
		case want[key] == l.ver:
		case want[key] == "" || s.restart(l):
			// Gone, or changed again: a load of the new version follows,
			// in the same chain (loadRestartLimit).
			l.superseded = true
			l.cancel()
		default:
			// Changed again past loadRestartLimit: this load finishes and
			// is swapped in, and the new version loads after it.
			l.outrun = true
		}
	}
	var gone []*pkgState
	for key, st := range s.ready {
		if _, ok := want[key]; !ok {
			delete(s.ready, key)
			gone = append(gone, st)
		}
	}
	changed = map[string]string{}
	for key, ver := range want {
		if st := s.ready[key]; st != nil && st.ver == ver {
			continue
		}
		if before[key] != ver || s.held {
			changed[key] = ver // else loading since an earlier read
		}
		switch {
		case s.cfg.SkipEngines:
			s.ready[key] = &pkgState{ver: ver, pkg: pkgs[key], engines: map[string]modelEngine{}, broken: map[string]string{}}
		case s.loading[key] == nil && !s.held:
			s.startLoad(key, pkgs[key], ver, nil, 0, time.Now())
		}
		// else: the load of the version before is cancelled (or, past
		// loadRestartLimit, finishes), and this one starts when it returns.
	}
	// A diagnostic is logged when it first appears, or when the files of its
	// package (or project) changed; not again at each read while it lasts (an
	// edit of another package rereads the whole catalog). Before, a package of
	// 150 bad model files logged 100 lines and a count at every read.
	logs := logBudget{log: s.log}
	keys := diagnosticKeys(cat, stamps)
	for i, d := range cat.Diagnostics {
		if !s.toldDiags[keys[i]] {
			logs.warn("catalog", "diagnostic", d)
		}
	}
	logs.done()
	s.toldDiags = make(map[string]bool, len(keys))
	for _, k := range keys {
		s.toldDiags[k] = true
	}
	if hint := emptyCatalogHint(s.dir, cat); hint != "" {
		s.log.Warn("the catalog has no packages", "dir", s.dir, "hint", hint)
	}
	s.publish()
	for _, st := range gone {
		s.retire(st, nil)
	}
	s.signal()
	return changed, true, nil
}

// diagnosticKeys returns a key for each of cat's Diagnostics: its text with
// the stamp (dirStamps) of the package or project whose problems hold it, so
// that an edit of those files makes it new; the text alone for the others.
func diagnosticKeys(cat *catalog.Catalog, stamps map[string]string) []string {
	owner := map[string]string{} // diagnostic → its package's or project's stamp
	for _, p := range cat.Projects {
		for _, d := range p.Problems {
			owner[d] = stamps[p.Name]
		}
		for _, pkg := range p.Packages {
			stamp := stamps[p.Name+"/"+pkg.Name]
			for _, d := range pkg.Problems {
				owner[d] = stamp
			}
			for _, m := range pkg.Models {
				for _, d := range m.Problems {
					owner[d] = stamp
				}
			}
		}
	}
	keys := make([]string, len(cat.Diagnostics))
	for i, d := range cat.Diagnostics {
		keys[i] = owner[d] + "\x00" + d
	}
	return keys
}

// startLoad opens the models of pkg (version ver) in the background, once one
// of the slots is free; keep holds engines a retry keeps; since is when the
// package's chain of cancelled loads began (pkgLoad.since). It returns the
// load, or nil when it served ver at once (serveDown) and started none.
// Called with mu held.
func (s *Service) startLoad(key string, pkg *catalog.Package, ver string, keep map[string]modelEngine, retries int, since time.Time) *pkgLoad {
	if cur := s.ready[key]; keep == nil && cur != nil && cur.down != "" && pkg.Engine == catalog.EnginePostgres && dsnPart(cur.ver) == dsnPart(ver) {
		s.serveDown(key, pkg, ver, cur, since)
		return nil
	}
	ctx, cancel := context.WithCancel(s.loadCtx)
	l := &pkgLoad{ver: ver, ctx: ctx, cancel: cancel, keep: keep, retries: retries, since: since}
	s.loading[key] = l
	s.loads.Add(1)
	go func() {
		defer s.loads.Done()
		defer cancel()
		if retries > 0 {
			// A background retry takes retrySlot first: retries hold one of
			// the slots at most, and loads of changed packages the others.
			select {
			case s.retrySlot <- struct{}{}:
				defer func() { <-s.retrySlot }()
			case <-ctx.Done():
				s.finish(key, l, nil)
				return
			}
		}
		var st *pkgState
		select {
		case s.slots <- struct{}{}:
			l.opening.Store(true)
			start := time.Now()
			st = s.openPackage(ctx, pkg, keep)
			st.ver, st.took = ver, time.Since(start)
			<-s.slots
		case <-ctx.Done():
		}
		s.finish(key, l, st)
	}()
	return l
}

// serveDown serves ver, a new version of the PostgreSQL package pkg whose
// server the version served, cur, found down (same connection string), at
// once without opening its models: each answers cur's connection error, and
// is tried at once in the background, in the one place of retries (retrySlot).
// So an edit of a package whose server is down does not hold one of the load
// places for a connect timeout, ahead of other packages' loads. That try is
// the load of ver: it carries since, the start of the package's chain of
// cancelled loads, so that steady edits cancel it only within
// loadRestartLimit (pkgState.since). Nothing was tried, so the models'
// connection error is not logged again as a new failure. Called with mu held.
func (s *Service) serveDown(key string, pkg *catalog.Package, ver string, cur *pkgState, since time.Time) {
	st := &pkgState{ver: ver, pkg: pkg, engines: map[string]modelEngine{}, broken: map[string]string{}, down: cur.down, since: since, toldWhy: map[string]string{}}
	for _, m := range pkg.Models {
		st.broken[m.Name] = cur.down
		st.toldWhy[m.Name] = cur.down
	}
	s.ready[key] = st
	s.replaced = append(s.replaced, [2]*pkgState{cur, st})
	s.publishSoon()
	s.signal()
	s.retryIn(key, st, 0)
}

// dsnPart is the connection string's part of a version (pkgVersion).
func dsnPart(ver string) string {
	_, dsn, _ := strings.Cut(ver, "\x00dsn ")
	return dsn
}

// stampOf is the files' stamp of a version (pkgVersion).
func stampOf(ver string) string {
	stamp, _, _ := strings.Cut(ver, "\x00dsn ")
	return stamp
}

// openPackage opens the models of pkg but those of keep, which it keeps.
func (s *Service) openPackage(ctx context.Context, pkg *catalog.Package, keep map[string]modelEngine) *pkgState {
	st := &pkgState{pkg: pkg, engines: map[string]modelEngine{}, broken: map[string]string{}, final: map[string]bool{}}
	var todo []*catalog.Model
	for _, m := range pkg.Models {
		if e := keep[m.Name]; e != nil {
			st.engines[m.Name] = e
		} else {
			todo = append(todo, m)
		}
	}
	workers := 1
	if pkg.Engine == catalog.EnginePostgres {
		workers = min(maxParallelPGOpens, len(todo))
		if err := s.probePG(ctx, pkg, len(todo)); err != nil {
			for _, m := range todo {
				st.broken[m.Name] = err.Error()
			}
			st.down = err.Error()
			return st
		}
	}
	var mu sync.Mutex
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(todo) {
				return
			}
			m := todo[i]
			e, err := s.openModel(ctx, m)
			mu.Lock()
			if err != nil {
				st.broken[m.Name] = err.Error()
				if catalogFault(err) {
					st.final[m.Name] = true
				}
			} else {
				st.engines[m.Name] = e
			}
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return st
}

// probePG connects once to the server of pkg, a PostgreSQL package, before
// n of its models open: a server that refuses the connection, or does not
// answer, fails them all at once with that error (one connect timeout,
// PGConfig.ConnectTimeout, per package and try; not one per model). The
// error says why without the connection string's user, database or host,
// which only the server's log gets. A variable the manifest may not read, or
// one holding no connection string, is not probed: each model says so.
func (s *Service) probePG(ctx context.Context, pkg *catalog.Package, n int) error {
	if s.cfg.open != nil && !s.cfg.probe || n == 0 {
		return nil // tests that open models themselves
	}
	dsn, err := s.packageDSN(pkg)
	if err != nil {
		return nil // each model says why (open)
	}
	err = engine.ProbePostgres(ctx, dsn, pkg.DSNEnv, s.cfg.PG.ConnectTimeout)
	var ce *engine.ConnectError
	if !errors.As(err, &ce) {
		return nil // connected, or the load was cancelled
	}
	name := pkg.Name
	if pkg.Project != nil {
		name = pkg.Project.Name + "/" + name
	}
	s.log.Warn("a PostgreSQL package's server could not be reached; its models did not open", "package", name, "dsnEnv", pkg.DSNEnv, "models", n, "err", ce.Err)
	return ce
}

// catalogFault says err, a model's failure to open, is the catalog's SQL (a
// source that is not a query, or PostgreSQL's error of class 42 — syntax, a
// table or column that does not exist — but 42501, a privilege a GRANT may
// give later; 22 — a value out of range, a bad cast — or 0A000, a feature not
// supported; or the server's own check of the SQL, which has no SQLSTATE): no
// retry opens the model before its files change. Any other error is the
// server's or the network's (57P01 at a restart or failover, 53xxx out of
// resources, 40001, 08xxx, …), and a retry may open the model. An error that
// wraps several (each source's, engine.SourcesError) is the catalog's only
// when each is: a retry may open a source the server failed.
func catalogFault(err error) bool {
	switch e := err.(type) {
	case *engine.RefusedError:
		return true
	case *engine.SQLError:
		code := e.SQLState
		return code == "" || (strings.HasPrefix(code, "42") && code != "42501") || strings.HasPrefix(code, "22") || code == "0A000"
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, w := range errs {
			if !catalogFault(w) {
				return false
			}
		}
		return len(errs) > 0
	}
	if w := errors.Unwrap(err); w != nil {
		return catalogFault(w)
	}
	return false
}

// openModel opens m's engine (or Config.open's, in tests).
func (s *Service) openModel(ctx context.Context, m *catalog.Model) (modelEngine, error) {
	if s.cfg.open != nil {
		return s.cfg.open(ctx, m, s.open)
	}
	return s.open(ctx, m)
}

// finish swaps in the package a load opened, if it is still the version
// wanted, and starts the load of a newer one.
func (s *Service) finish(key string, l *pkgLoad, st *pkgState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.signal()
	if s.loading[key] == l {
		delete(s.loading, key)
	}
	stopped := s.closed || s.loadCtx.Err() != nil
	cur := s.ready[key]
	_, wanted := s.want[key]
	switch {
	case st == nil:
	case stopped || l.ctx.Err() != nil || !wanted || (s.want[key] != l.ver && !l.outrun) || (l.keep != nil && cur == nil):
		// Superseded or stopped: nothing of it is served.
		s.discard(st, l.keep, !stopped)
	case l.keep != nil && len(st.engines) == len(l.keep) && (l.gone != nil || sameFailures(cur, st)):
		// A retry that opened nothing more, each model failing as before:
		// the version served stays, and is tried again later.
		cur.retries = l.retries
		if l.gone != nil {
			s.scheduleRebuild(key, cur, l, st.broken)
			break
		}
		s.scheduleRetry(key, cur)
	default:
		// A new version, or a retry that opened more models or found them
		// failing otherwise (the server answered, and a source reads a table
		// that does not exist): swapped in, its failures said as they are now.
		st.retries = l.retries
		// The models of a rebuild that opened others but not them: their
		// engines stay served, and they are rebuilt again later (why).
		var why map[string]string
		for name, eng := range l.gone {
			if st.engines[name] == nil {
				if why == nil {
					why = map[string]string{}
				}
				why[name] = st.broken[name]
				delete(st.broken, name)
				st.engines[name] = eng
			}
		}
		if l.gone != nil && why == nil {
			st.retries = 0 // rebuilt: a later file gone starts its tries afresh
		}
		if cur != nil {
			// Models met gone meanwhile, or not rebuilt, whose engines st keeps.
			for name, eng := range cur.gone {
				if st.engines[name] == eng {
					if st.gone == nil {
						st.gone = map[string]modelEngine{}
					}
					st.gone[name] = eng
				}
			}
		}
		if l.keep != nil && cur != nil {
			// A retry of the same files: what was logged is not again.
			st.toldWhy, st.toldEng, st.toldParams = cur.toldSoFar()
		}
		s.ready[key] = st
		if cur != nil {
			s.replaced = append(s.replaced, [2]*pkgState{cur, st})
		}
		s.publishSoon()
		if cur != nil {
			if l.keep == nil {
				s.log.Info("package reloaded", "package", key, "took", st.took.Round(time.Millisecond))
			}
		} else if st.took > time.Second {
			s.log.Info("package loaded", "package", key, "took", st.took.Round(time.Millisecond))
		}
		if why != nil {
			s.scheduleRebuild(key, st, l, why)
			break
		}
		s.scheduleRetry(key, st)
	}
	if stopped {
		return
	}
	if ver, ok := s.want[key]; ok && s.loading[key] == nil {
		if st := s.ready[key]; st == nil || st.ver != ver {
			since := time.Now()
			if l.superseded && !l.retry {
				since = l.since // the chain of cancelled loads goes on
			} // a background retry cancelled: the edited version starts a chain
			s.startLoad(key, s.pkgs[key], ver, nil, 0, since)
		}
	}
}

// scheduleRetry has the PostgreSQL models of st that did not open tried again
// after a delay that doubles with each try. Called with mu held.
func (s *Service) scheduleRetry(key string, st *pkgState) {
	if len(st.broken) == 0 || st.pkg.Engine != catalog.EnginePostgres {
		return // nothing to retry
	}
	retryable := false
	for name := range st.broken {
		retryable = retryable || !st.final[name]
	}
	if !retryable {
		return // the catalog's SQL only: an edit of the files loads it again
	}
	// Nothing a retry could change: a variable the manifest may not read, or
	// one that is empty or holds no connection string (a change of its value
	// reloads the package).
	if _, err := s.packageDSN(st.pkg); err != nil {
		return
	}
	s.retryIn(key, st, backoff(s.cfg.retryFirst, pgRetryMax, st.retries))
}

// sameFailures says the load st found the models that did not open failing
// as cur, the version served, does (the same errors, the server down or not
// as before).
func sameFailures(cur, st *pkgState) bool {
	return cur.down == st.down && maps.Equal(cur.broken, st.broken) && maps.Equal(cur.final, st.final)
}

// retryIn has the models of st that did not open tried again after delay.
// Called with mu held.
func (s *Service) retryIn(key string, st *pkgState, delay time.Duration) {
	st.next.Store(time.Now().Add(delay).UnixNano())
	st.timer = time.AfterFunc(delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || s.loadCtx.Err() != nil || s.ready[key] != st || s.loading[key] != nil || s.want[key] != st.ver {
			return // closed, replaced, or a load of it under way
		}
		since := st.since // serveDown's try: the load of st's files
		st.since = time.Time{}
		down := !since.IsZero()
		if !down {
			since = time.Now()
		}
		l := s.startLoad(key, st.pkg, st.ver, st.engines, st.retries+1, since)
		if l == nil {
			return
		}
		if down {
			// The first load of st's files: a failure is tried again after
			// retryFirst, as a new version's is.
			l.retries = 0
		} else {
			l.retry = true
		}
	})
}

// rebuild loads the package of model m again, keeping its other models'
// engines but those of the models met with their database file gone, when
// eng — m's engine, whose database file is gone (removed from the temporary
// folder) — is still the one served and no load of the package is under way;
// once m opens again, the load's finish serves it and retires eng. A rebuild
// that fails to open m keeps eng served, and is tried again in the background
// (scheduleRebuild), with a growing delay; until that try, calls of the models
// it tried that meet the file gone start none, and are told of the failure
// and the next try (the returned error wraps gone; gone itself when no
// rebuild of m failed). A call of another model met gone starts a rebuild at
// once, which tries the models that failed too.
func (s *Service) rebuild(m *catalog.Model, eng modelEngine, gone error) error {
	key := packagePath(m.Package)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.ready[key]
	if st == nil || st.engines[m.Name] != eng {
		return gone // replaced meanwhile
	}
	if st.goneNext != 0 && st.goneTried[m.Name] {
		return &rebuildFailedError{gone: gone, next: time.Unix(0, st.goneNext)}
	}
	if st.gone == nil {
		st.gone = map[string]modelEngine{}
	}
	st.gone[m.Name] = eng
	s.startRebuild(key, st)
	return gone
}

// startRebuild starts the load that rebuilds the models of st met with their
// database file gone (rebuild), unless the service stopped, st is no longer
// the package's version served or no longer serves their engines, or a load
// of the package is under way. A rebuild scheduled is then started now.
// Called with mu held.
func (s *Service) startRebuild(key string, st *pkgState) {
	if s.closed || s.held || s.loadCtx.Err() != nil || st == nil || s.ready[key] != st || s.loading[key] != nil || s.want[key] != st.ver {
		return
	}
	gone := map[string]modelEngine{}
	for name, e := range st.gone {
		if st.engines[name] == e {
			gone[name] = e
		}
	}
	if len(gone) == 0 {
		return
	}
	keep := make(map[string]modelEngine, len(st.engines))
	for name, e := range st.engines {
		if gone[name] == nil {
			keep[name] = e
		}
	}
	if st.goneNext != 0 { // this load is the rebuild the timer would start
		st.timer.Stop()
		st.goneNext = 0
	}
	for _, name := range slices.Sorted(maps.Keys(gone)) {
		s.log.Warn("a model's database file is gone (removed from the server's temporary folder); loading the model again", "model", key+"/"+name, "try", st.retries+1)
	}
	if l := s.startLoad(key, st.pkg, st.ver, keep, st.retries, time.Now()); l != nil {
		l.gone, l.retry = gone, true
	}
}

// backoff is the delay before try n+1 of a series whose first waits first:
// twice as long each time, at most most.
func backoff(first, most time.Duration, n int) time.Duration {
	return min(first<<min(n, 10), most)
}

// scheduleRebuild has the rebuild l, which failed to open the models of why
// (by name, why each failed; others may be there too), tried again in the
// background after a delay that doubles with each try (goneRetryFirst …
// goneRetryMax). Called with mu held.
func (s *Service) scheduleRebuild(key string, st *pkgState, l *pkgLoad, why map[string]string) {
	delay := backoff(s.cfg.rebuildFirst, goneRetryMax, st.retries)
	st.retries++
	st.goneNext = time.Now().Add(delay).UnixNano()
	st.goneTried = map[string]bool{}
	if st.gone == nil {
		st.gone = map[string]modelEngine{}
	}
	for _, name := range slices.Sorted(maps.Keys(l.gone)) {
		if _, failed := why[name]; failed {
			st.goneTried[name] = true
			st.gone[name] = l.gone[name]
			s.log.Warn("a model whose database file is gone could not be loaded again; trying again in the background", "model", key+"/"+name, "in", delay, "err", why[name])
		}
	}
	next := st.goneNext
	st.timer = time.AfterFunc(delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if st.goneNext != next {
			return // a call started the rebuild meanwhile (startRebuild)
		}
		st.goneNext = 0 // calls that meet the file gone may start it now
		s.startRebuild(key, st)
	})
}

// rebuildFailedError is a call that met its model's database file gone while
// the last rebuild of the model failed and the next is scheduled.
type rebuildFailedError struct {
	gone error // the engine's EngineError (Gone)
	next time.Time
}

func (e *rebuildFailedError) Error() string {
	left := max(time.Until(e.next).Round(time.Second), time.Second)
	const fault = ". This is a fault of the server, not of the query"
	// Not why it failed: that may name the server's temporary folder (its
	// log has it).
	return fmt.Sprintf("%s. The server's last try to build it again failed (its log says why); it tries again in the background, next in about %s, then at growing intervals up to %s%s", strings.TrimSuffix(e.gone.Error(), fault), left, goneRetryMax, fault)
}

func (e *rebuildFailedError) Unwrap() error { return e.gone }

// retire closes the engines of st, a version no longer served, that next (the
// one served now, or nil) does not keep, each once its running queries end.
// Called with mu held, before Close.
func (s *Service) retire(st, next *pkgState) {
	if st.timer != nil {
		st.timer.Stop()
	}
	kept := map[modelEngine]bool{}
	if next != nil {
		for _, e := range next.engines {
			kept[e] = true
		}
	}
	s.closeEngines(st.engines, func(_ string, e modelEngine) bool { return kept[e] }, true)
}

// discard closes the engines a load opened that are not served (those of keep
// are the served version's). async closes them in the background (a load
// superseded while the service runs), else at once (the service stopping:
// nothing ran on them).
func (s *Service) discard(st *pkgState, keep map[string]modelEngine, async bool) {
	s.closeEngines(st.engines, func(name string, e modelEngine) bool { return keep[name] == e }, async)
}

// closeEngines closes each engine of engines (by model name) that kept does
// not keep: async in the background, each once its running queries end (held
// in closing until then: Discard), else at once. Called with mu held.
func (s *Service) closeEngines(engines map[string]modelEngine, kept func(name string, e modelEngine) bool, async bool) {
	for name, e := range engines {
		switch {
		case kept(name, e):
		case async:
			s.closing.Store(e, struct{}{})
			s.old.Go(func() {
				defer s.closing.Delete(e)
				e.Close() // waits for the queries still running on it
			})
		default:
			e.Close()
		}
	}
}

// publishEvery is how often at most publishSoon publishes: a publish rebuilds
// the catalog, its search index and the MCP server over every package, so
// publishing once per package made a start of thousands of packages grow with
// their square (4,000 that failed at once: 34 s).
const publishEvery = 25 * time.Millisecond

// publishSoon has a package that finished loading (ready changed) published:
// at once if nothing was published for publishEvery (and four times the last
// publish's cost), else by one publish when that time is up, with every load
// that finished meanwhile. Called with mu held.
func (s *Service) publishSoon() {
	s.dirty = true
	if s.publishWait != nil {
		return // a publish is due: it takes this one too
	}
	wait := max(publishEvery, 4*s.publishCost) - time.Since(s.lastPublish)
	if wait <= 0 {
		s.publish()
		return
	}
	s.publishWait = time.AfterFunc(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.publishWait = nil
		if s.dirty && !s.closed {
			s.publish()
			s.signal()
		}
	})
}

// publish builds a snapshot of the catalog as last read, each package in the
// version served (a package without one yet answers that it is still
// loading), and publishes it; then it retires the versions it no longer
// serves (replaced). Called with mu held.
func (s *Service) publish() {
	start := time.Now()
	served := make(map[string]*catalog.Package, len(s.ready))
	s.served = make(map[string]string, len(s.ready))
	for key, st := range s.ready {
		served[key] = st.pkg
		s.served[key] = st.ver
	}
	cat := s.read.WithPackages(served)
	sn := &snapshot{cat: cat, engines: map[*catalog.Model]modelEngine{}, broken: map[*catalog.Model]string{}, stamps: map[string]string{}, checks: map[string][]string{}, refuse: map[string]engine.QueryCheck{}, loading: map[string]bool{}, retryAt: map[string]*atomic.Int64{}}
	for k, v := range s.stamps {
		if !strings.Contains(k, "/") {
			sn.stamps[k] = v // a project's own files
		}
	}
	logs := logBudget{log: s.log}
	for _, p := range cat.Projects {
		for _, pkg := range p.Packages {
			key := p.Name + "/" + pkg.Name
			st := s.ready[key]
			if st == nil {
				sn.loading[key] = true
				for _, m := range pkg.Models {
					sn.broken[m] = stillLoading(key)
				}
				continue
			}
			sn.stamps[key] = stampOf(st.ver)
			if len(st.broken) > 0 {
				sn.retryAt[key] = &st.next
			}
			tell := !st.told // a package's problems are told when it opens, not at every reload
			st.told = true
			pc := st.checksOf() // pkg is st.pkg
			maps.Copy(sn.checks, pc.checks)
			maps.Copy(sn.refuse, pc.refuse)
			for _, m := range pkg.Models {
				mpath := key + "/" + m.Name
				for _, msg := range pc.params[m.Name] {
					if tell && !st.toldParams {
						logs.warn("named query", "problem", msg)
					}
				}
				e := st.engines[m.Name]
				if e == nil {
					if why, ok := st.broken[m.Name]; ok {
						sn.broken[m] = why
						if told, ok := st.toldWhy[m.Name]; tell && (!ok || told != why) {
							logs.warn("model did not open", "model", mpath, "err", why)
						}
					}
					continue
				}
				tellEng := tell && st.toldEng[m.Name] != e
				if tellEng {
					for _, name := range slices.Sorted(maps.Keys(e.Broken())) {
						logs.warn("source did not load", "source", mpath+"/"+name, "err", e.Broken()[name])
					}
				}
				sn.engines[m] = e
				for _, why := range roleNotes(e) {
					if tellEng {
						logs.warn(roleNoteLabel(e), "model", mpath, "problem", why)
					}
				}
				for _, msg := range pc.found[m.Name] {
					if tellEng {
						logs.warn("named query", "problem", msg)
					}
				}
				// The column index for search: set before the catalog is published.
				cols := e.Columns()
				for _, src := range m.Sources {
					if ent := cat.Lookup(mpath + "/" + src.Name); ent != nil {
						for _, c := range cols[src.Name] {
							ent.Columns = append(ent.Columns, c.Name)
						}
					}
				}
			}
		}
	}
	logs.done()
	old := s.cur.Load()
	s.cur.Store(sn)
	s.publishes++
	s.dirty = false
	for _, r := range s.replaced {
		s.retire(r[0], r[1])
	}
	s.replaced = nil
	if old != nil {
		for _, fn := range s.subs {
			fn(old.cat, cat)
		}
	}
	s.lastPublish = time.Now()
	s.publishCost = s.lastPublish.Sub(start)
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

// retryNote says when the server next tries to open the models of the
// package key that did not open (a PostgreSQL package's, tried again in the
// background: scheduleRetry), for the answer to a call of one of them; "" when
// no try is scheduled (a DuckDB package, a connection variable that is empty).
func (sn *snapshot) retryNote(key string) string {
	at := sn.retryAt[key]
	if at == nil || at.Load() == 0 {
		return ""
	}
	later := fmt.Sprintf("then at growing intervals up to %d minutes, and at once when its package's files or connection string change", pgRetryMax/time.Minute)
	left := time.Until(time.Unix(0, at.Load()))
	switch {
	case left <= time.Second:
		return "The server is trying to open the model again now (" + later + "): call again in a few seconds"
	case left < 2*time.Minute:
		return fmt.Sprintf("The server tries to open the model again in the background, next in about %d s (%s): call again after that", int(left.Round(time.Second)/time.Second), later)
	}
	return fmt.Sprintf("The server tries to open the model again in the background, next in about %d min (%s): call again after that", int(left.Round(time.Minute)/time.Minute), later)
}

// queryChecker is an engine that checks its model's named queries when it
// opens (DuckDB and PostgreSQL).
type queryChecker interface {
	QueryChecks() map[string]engine.QueryCheck
}

// addChecks records what the engine e of model m found wrong with m's named
// queries and with the notebook cells that run against m, and returns it, each
// problem said in full.
func (pc *pkgChecks) addChecks(m *catalog.Model, e modelEngine) []string {
	qc, ok := e.(queryChecker)
	if !ok {
		return nil
	}
	checks := qc.QueryChecks()
	ppath, mpath := packagePath(m.Package), modelPath(m)
	file := mpath + ".sql"
	var all []string
	for _, q := range m.Queries {
		if c := checks[q.Name]; c.Refuse != "" {
			pc.refuse[mpath+"/"+q.Name] = c // also for a previous version still served: it runs the same SQL
		}
	}
	if len(m.Problems) == 0 { // else the model's previous version: told once, for the file
		for _, q := range m.Queries {
			for _, p := range checks[q.Name].Problems {
				msg := fmt.Sprintf("%s: query %s (line %d): %s", file, q.Name, q.Line, packageRelative(m, p))
				pc.checks[mpath+"/"+q.Name] = append(pc.checks[mpath+"/"+q.Name], msg)
				all = append(all, msg)
			}
		}
	}
	for _, nb := range m.Package.Notebooks {
		for _, c := range nb.Cells {
			if c.Model != m {
				continue
			}
			cpath := ppath + "/" + nb.Name + "/" + c.Name
			if chk := checks[engine.CellKey(nb, c)]; chk.Refuse != "" {
				pc.refuse[cpath] = chk
			}
			for _, p := range checks[engine.CellKey(nb, c)].Problems {
				msg := fmt.Sprintf("%s/%s: %s (line %d): %s", ppath, filepath.Base(nb.File), c.Name, c.Line, packageRelative(m, p))
				pc.checks[cpath] = append(pc.checks[cpath], msg)
				all = append(all, msg)
			}
		}
	}
	if len(m.Problems) == 0 {
		for _, p := range checks[""].Problems {
			msg := file + ": " + p
			pc.checks[mpath] = append(pc.checks[mpath], msg)
			all = append(all, msg)
		}
	}
	return all
}

// addParamChecks records what is wrong with the parameters m's named queries
// declare that the server itself finds, whatever the engine (paramFault: a
// list of a type it does not cast; PostgreSQL's interval fields in a DuckDB
// package), and returns it, each problem said in full.
func (pc *pkgChecks) addParamChecks(m *catalog.Model) []string {
	if len(m.Problems) > 0 {
		return nil // the model's previous version: told once, for the file
	}
	mpath := modelPath(m)
	var all []string
	for _, q := range m.Queries {
		for _, p := range q.Params {
			if why := paramFault(m.Package.Engine, p); why != "" {
				msg := fmt.Sprintf("%s.sql: query %s (line %d): %s", mpath, q.Name, q.Line, why)
				pc.checks[mpath+"/"+q.Name] = append(pc.checks[mpath+"/"+q.Name], msg)
				all = append(all, msg)
			}
		}
	}
	return all
}

// roleChecker is a PostgreSQL model, whose role's privileges are checked
// when it opens (engine.Postgres.PGRoleProblem).
type roleChecker interface {
	PGRoleProblem() string
	PGRoleRecheck(ctx context.Context) (why string, unread bool)
	PGRoleUnread() bool
	PGRoleWarning() string
}

// roleProblem is what e's PostgreSQL role may still do that ad-hoc SQL must
// not, with the REVOKE statements that fix it; "" for other engines and a
// role locked down. Ad-hoc SQL on such a model is refused (roleUnlockedError).
// A reading that failed is made again first (engine.Postgres.PGRoleRecheck),
// waited for while ctx lets it.
// unread says the problem is privileges that could not be read (yet).
func roleProblem(ctx context.Context, e modelEngine) (why string, unread bool) {
	if rc, ok := e.(roleChecker); ok {
		return rc.PGRoleRecheck(ctx)
	}
	return "", false
}

// roleRecheckWait is how long ad-hoc SQL waits for a reading of its
// PostgreSQL role's privileges made again (engine.Postgres.PGRoleRecheck):
// a tenth of its time limit (the query then has its whole limit), at most a
// second.
func roleRecheckWait(queryTimeout time.Duration) time.Duration {
	return min(queryTimeout/10, time.Second)
}

// roleNoteLabel is the log's label for e's roleNotes: the role's
// privileges not read, or the role not locked down.
func roleNoteLabel(e modelEngine) string {
	if rc, ok := e.(roleChecker); ok && rc.PGRoleUnread() {
		return "PostgreSQL role's privileges could not be read"
	}
	return "PostgreSQL role not locked down"
}

// roleNotes are roleProblem and the role's warning (what it may still call
// that ad-hoc SQL is served despite: the sleep and signal functions), each
// "" when there is none, as describe and the log tell them.
func roleNotes(e modelEngine) []string {
	rc, ok := e.(roleChecker)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range []string{rc.PGRoleProblem(), rc.PGRoleWarning()} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// modelProblems lists what is wrong with model m: its file (when its previous
// version is served), its PostgreSQL role (roleProblem) and its named queries.
func (sn *snapshot) modelProblems(m *catalog.Model) []string {
	if m == nil || m.Package == nil {
		return nil
	}
	return sn.engineFindings(slices.Clone(m.Problems), m, true)
}

// engineFindings appends to out what the engines found of model m, which the
// catalog's load could not know: its PostgreSQL role (roleNotes) and the
// checks of the model and of each of its named queries, with queries each
// query's own problems (the catalog's) before its checks.
func (sn *snapshot) engineFindings(out []string, m *catalog.Model, queries bool) []string {
	mpath := modelPath(m)
	for _, why := range roleNotes(sn.engines[m]) {
		out = append(out, mpath+": "+why)
	}
	out = append(out, sn.checks[mpath]...)
	for _, q := range m.Queries {
		if queries {
			out = append(out, q.Problems...)
		}
		out = append(out, sn.checks[mpath+"/"+q.Name]...)
	}
	return out
}

// packageDSN reads the connection string of pkg, a PostgreSQL package, from
// the environment variable its manifest names (dsnEnv), and returns why it
// cannot be used when it cannot: the manifest may not read that variable
// (dsnEnvAllowed), it is not set or is empty, or it holds no connection
// string PostgreSQL's driver can read. No retry changes any of these: a
// change of the variable's value reloads the package (pkgVersion).
func (s *Service) packageDSN(pkg *catalog.Package) (string, error) {
	if !dsnEnvAllowed(pkg.DSNEnv, s.cfg.DSNEnv) {
		return "", fmt.Errorf("dsnEnv names the environment variable %s, which this server does not let a manifest read (it lets manifests read %s): rename the variable to one of those, or have the server's operator allow it with -dsn-env. Without that rule a manifest could read any variable of the server's environment", pkg.DSNEnv, allowedDSNEnv(s.cfg.DSNEnv))
	}
	dsn, set := os.LookupEnv(pkg.DSNEnv)
	if dsn == "" {
		state := "is not set in the server's environment"
		if set {
			state = "is empty"
		}
		return "", fmt.Errorf("the environment variable %s (dsnEnv in the manifest) %s: set it to a PostgreSQL connection string and restart the server", pkg.DSNEnv, state)
	}
	if !engine.DSNReadable(dsn) {
		return "", badDSN(pkg)
	}
	return dsn, nil
}

// badDSN is the error of a package whose dsnEnv variable holds no connection
// string PostgreSQL's driver can read (engine.ErrBadDSN), its value not shown.
func badDSN(pkg *catalog.Package) error {
	return fmt.Errorf("the environment variable %s (dsnEnv in the manifest) does not hold a PostgreSQL connection string PostgreSQL's driver can read (its value is not shown: it may hold a password); set it to a URL such as postgres://reader@db.internal:5432/hr or to key=value pairs", pkg.DSNEnv)
}

func (s *Service) open(ctx context.Context, m *catalog.Model) (modelEngine, error) {
	switch m.Package.Engine {
	case catalog.EnginePostgres:
		dsn, err := s.packageDSN(m.Package)
		if err != nil {
			return nil, err
		}
		pg, err := engine.OpenPostgres(ctx, m, dsn, s.cfg.PG)
		if errors.Is(err, engine.ErrBadDSN) {
			return nil, badDSN(m.Package)
		}
		return pg, err
	default:
		if s.cfg.Duck.Worker != nil {
			return engine.OpenDuckProc(ctx, m, s.cfg.Duck)
		}
		return engine.OpenDuck(ctx, m, s.cfg.Duck)
	}
}

// Close stops the loads under way (a load the engine cannot interrupt is
// waited for), closes the engines of the packages served and waits for those
// replaced earlier to close. The engines close at once, each as soon as its
// running queries end: one model still computing holds up no other.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	s.stopLoads()
	if s.publishWait != nil {
		s.publishWait.Stop()
	}
	// Versions replaced by loads not published yet: nothing runs on them
	// any more than on those served.
	for _, r := range s.replaced {
		s.retire(r[0], r[1])
	}
	s.replaced = nil
	var engines []modelEngine
	for _, st := range s.ready {
		if st.timer != nil {
			st.timer.Stop()
		}
		for _, e := range st.engines {
			engines = append(engines, e)
		}
	}
	s.signal()
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range engines {
		wg.Go(func() { e.Close() })
	}
	wg.Wait()
	s.loads.Wait()
	s.old.Wait()
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

// Watch reads the catalog again whenever its directory changes, until ctx
// ends. Once its first look at the files is taken, it reads them again if
// they changed since the service read them (while the server waited for its
// packages to load, say). It does not wait for the packages that changed to
// load: each is swapped in when its models have opened, and a change to
// another package meanwhile is read, and loaded beside it, at the next poll.
// A read that fails is tried again at each poll until one succeeds; its error
// is logged when it first appears or changes. After a read the
// watch compares racy files with what that read's dirStamps saw
// (catalog.FileIDs.Learn), so the two agree.
func (s *Service) Watch(ctx context.Context, every time.Duration) {
	var failed string // the error of the reads failing since the last success
	catalog.WatchFrom(ctx, s.dir, every, func(watch *catalog.FileIDs, first bool) error {
		changed, read, err := s.rereadIf(first)
		if err != nil {
			if err.Error() != failed {
				failed = err.Error()
				s.log.Warn("reload failed; still serving the previous catalog, and trying again at each poll", "err", err)
			}
			return err
		}
		failed = ""
		s.mu.Lock()
		watch.Learn(&s.ids)
		s.mu.Unlock()
		if read {
			s.log.Info("catalog reloaded", "dir", s.dir, "packagesLoading", len(changed))
		}
		return nil
	})
}

// dirStamps summarises the files of the catalog in dir: per package path
// ("project/package") the names, sizes, modification times, modes and
// identities (ids: a file or folder replaced by another at the same path, as
// when two package folders swap names, is a change even with the same names,
// sizes and times) of the files under its folder, the folder's own included,
// and per project the same of the files directly in its folder (project.json).
// dir may be a symbolic link to the catalog folder. A file rewritten in place
// with the same size and time is a change too when it was racy at the walk
// before (catalog.RacyWindow), as the watch's fingerprint tells it. As the
// fingerprint, it skips hidden files and folders (a .git folder: Load reads
// none, and the watch sees no change there). Unlike the fingerprint it has no
// cap on the entries it walks (its memory grows with the catalog's files, a
// few hundred bytes each): a package it stopped before would get no stamp,
// which reread takes for a package gone, and an edit of it would change
// nothing reread compares. A folder it cannot read (lost+found, a folder of
// another user) is in its package's stamp with its error, and the walk goes
// on; the files under it are new when it can be read again. It returns the
// error that kept it from reading dir itself, and no stamps, when it could
// not.
func dirStamps(dir string, ids *catalog.FileIDs) (map[string]string, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ids.BeginIn(dir)
	b := map[string]*strings.Builder{}
	var rootErr error
	walkDir(dir, func(path string, d fs.DirEntry, walkErr error) error {
		if path == dir {
			rootErr = cmp.Or(rootErr, walkErr)
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
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
		if b[key] == nil {
			b[key] = &strings.Builder{}
		}
		if walkErr != nil {
			// A folder that cannot be read (WalkDir's second call for it).
			fmt.Fprintf(b[key], "%s\x00unreadable\x00%s\n", rel, walkErr)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fmt.Fprintf(b[key], "%s\x00%d\x00%d\x00%s\x00%d\n", rel, info.Size(), info.ModTime().UnixNano(), info.Mode(), ids.ID(path, info))
		return nil
	})
	ids.Done(rootErr == nil)
	if rootErr != nil {
		return nil, rootErr
	}
	out := make(map[string]string, len(b))
	for k, v := range b {
		out[k] = v.String()
	}
	return out, nil
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

// walkDir is filepath.WalkDir; tests make a folder unreadable through it, as
// one of another user is (root reads every folder).
var walkDir = filepath.WalkDir
