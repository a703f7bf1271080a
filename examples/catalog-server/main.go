// Command catalog-server serves a data catalog to MCP clients: projects, packages,
// models, sources, named queries and notebooks as resources and tools, and
// read-only SQL over them through DuckDB (files) or PostgreSQL (a server).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" database/sql driver

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

const version = "0.1.0"

func main() {
	if len(os.Args) == 2 && os.Args[1] == workerFlag {
		// A query process (-isolate, the default) or a model's load process:
		// its server ends it.
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
		os.Exit(engine.ServeDuckWorker(os.Stdin, engine.WorkerAnswers()))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal stops the server (within -stop-wait); a second one ends
	// the process at once, as the signal does by default.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// workerFlag, alone on the command line, runs the process as a query process of
// the server (-isolate, the default; engine.ServeDuckWorker).
const workerFlag = "-engine-worker"

// workerCommand starts this program as a query process. On Linux it starts
// the running program itself (/proc/self/exe), not the file it was started
// from: that file may since have been replaced by another version (an upgrade
// in place, speaking another protocol) or removed.
func workerCommand() *exec.Cmd {
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			exe = os.Args[0]
		}
	}
	return exec.Command(exe, workerFlag)
}

const usage = `catalog-server serves a data catalog and read-only queries to MCP clients.

Usage:
  catalog-server [-http ADDR | -stdio] [-catalog DIR] [limits]

Without -catalog, a built-in sample catalog is generated into a temporary folder.
Flags:
`

type options struct {
	httpAddr string
	stdio    bool
	dir      string
	poll     time.Duration
	stopWait time.Duration
	// startWait is how long the server waits at start for the catalog's
	// packages to load before it serves.
	startWait time.Duration
	isolate   bool
	maxProcs  int
	dsnEnv    *string // -dsn-env as given (nil: not given)
	cfg       Config
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalog-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var o options
	var def Config // the defaults: Config's, and the engine's for DuckDB
	def.fill()
	fs.StringVar(&o.httpAddr, "http", "127.0.0.1:8080", "serve Streamable HTTP (stateless) at `ADDR`, MCP at /mcp")
	fs.BoolVar(&o.stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	fs.StringVar(&o.dir, "catalog", "", "serve the catalog in `DIR` (default: the built-in samples)")
	fs.DurationVar(&o.poll, "poll", time.Second, "how often to look for changes in the catalog directory")
	fs.IntVar(&o.cfg.DefaultRowLimit, "row-limit", def.DefaultRowLimit, "rows per result when a call gives no rowLimit")
	fs.IntVar(&o.cfg.MaxRowLimit, "max-row-limit", def.MaxRowLimit, "the largest rowLimit a call may ask for")
	fs.IntVar(&o.cfg.ByteBudget, "byte-budget", def.ByteBudget, "JSON `bytes` of columns and rows per result at most")
	fs.DurationVar(&o.cfg.QueryTimeout, "timeout", def.QueryTimeout, "per-query time limit: the query is answered by then and stopped (its query process ended where DuckDB cannot interrupt it; with -isolate=false, left to finish in the background)")
	fs.DurationVar(&o.startWait, "start-wait", 5*time.Second, "at start, how long to wait for the catalog's packages to load before serving; a package still loading then answers that it is (kind unavailable) until its models have opened, while the others are served")
	fs.DurationVar(&o.stopWait, "stop-wait", 5*time.Second, "when stopping, how long to wait for computations DuckDB could not interrupt at their time limit with -isolate=false (they end with the process after it), and with -stdio for answers the client has not read; loads under way are cancelled at once")
	fs.IntVar(&o.maxProcs, "max-query-processes", defaultQueryProcesses, "the most query processes running DuckDB queries at once over all models (each model runs 8 at most)")
	fs.IntVar(&o.cfg.MaxQueriesPerClient, "max-queries-per-client", defaultQueriesPerClient, "the most queries one client (over HTTP: one remote address) has running or waiting at once, over all models (and at most half of one model's connections); a query past it is refused at once. 0 turns the share off, as behind a reverse proxy, where every client has the proxy's address, unless -client-header names the proxy's header")
	fs.StringVar(&o.cfg.ClientHeader, "client-header", "", "take the client's address from this request `header`, set by a trusted reverse proxy in front (X-Forwarded-For: its last address; Forwarded: its last for= address), instead of the connection's; only when every request comes through that proxy, as a client could write the header itself")
	fs.Func("dsn-env", "the environment variables a PostgreSQL package's manifest may name in dsnEnv: comma-separated `names`, a trailing * matching every name it begins (default \""+defaultDSNEnv+"\"); \"\" allows none; a manifest naming another is refused, as it could read any variable of the server's environment", func(v string) error {
		o.dsnEnv = &v // read by check, whose refusal is one line as the other flags'
		return nil
	})
	fs.BoolVar(&o.isolate, "isolate", true, "run each DuckDB query in a query process (this program, started again), ended at the query's time limit if DuckDB cannot stop; -isolate=false runs queries in the server's process, without a round trip between processes, but a calculation DuckDB cannot interrupt then runs on past its limit (loading a model runs in a process of its own either way)")
	fs.BoolVar(&o.cfg.PG.UnlockedRole, "pg-unlocked-role", false, "serve ad-hoc SQL on a PostgreSQL model whose role may still call what ad-hoc SQL must not (set_config, pg_logical_emit_message, pg_stat_activity…: see the README), as on a managed PostgreSQL where no one may revoke from PUBLIC; describe and the log still say what the role holds (a superuser role is refused all the same)")
	fs.BoolVar(&o.cfg.Duck.CrashDumps, "crash-dumps", false, "log what a query or load process that crashed wrote (its first 2 KiB and last 8 KiB: the Go runtime's crash dump, about 10 KB) with the one line the crash gets anyway")
	fs.IntVar(&o.cfg.Duck.Threads, "threads", engine.DefaultThreads, "DuckDB worker threads per query process and per model load (with -isolate=false, per model)")
	fs.StringVar(&o.cfg.Duck.MemoryLimit, "memory-limit", engine.DefaultMemoryLimit, "DuckDB memory limit per query process and per model load (with -isolate=false, per model): a number and a unit, such as 512MB, 1.5GB or 2GiB")
	fs.StringVar(&o.cfg.Duck.TempLimit, "temp-limit", engine.DefaultTempLimit, "the most DuckDB may spill to disk per query process (with -isolate=false, per model), in -memory-limit's form; 0B: no spilling")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if o.isolate {
		o.cfg.Duck.Worker = workerCommand
		o.cfg.Duck.Processes = engine.NewProcessLimit(o.maxProcs)
	}
	// Loading a DuckDB model (its views built, its named queries and cells
	// checked) runs in a load process of its own whatever -isolate says: a
	// crash of DuckDB on the catalog's content ends that process, not the
	// server.
	o.cfg.Duck.Loader = workerCommand
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "catalog-server: unexpected argument %q (see -h)\n", fs.Arg(0))
		return 2
	}
	if err := o.check(); err != nil {
		fmt.Fprintf(stderr, "catalog-server: %v (see -h)\n", err)
		return 2
	}
	if o.cfg.MaxQueriesPerClient == 0 {
		o.cfg.MaxQueriesPerClient = -1 // the flag's 0 is no share (Config's 0 is the default)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := serve(ctx, o, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "catalog-server: %v\n", err)
		return 1
	}
	return 0
}

// parseDSNEnv reads -dsn-env: names and prefixes ending in "*", separated by
// commas; "" is none (an empty, non-nil list).
func parseDSNEnv(v string) ([]string, error) {
	out := []string{}
	if v == "" {
		return out, nil
	}
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if n == "" || strings.Contains(strings.TrimSuffix(n, "*"), "*") || strings.ContainsAny(n, "= \t") {
			return nil, fmt.Errorf("%q: want an environment variable's name, or the beginning of names followed by *", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// check refuses flag values the server cannot run with, instead of replacing
// them silently (a -row-limit of -5 served 1000 rows; a -memory-limit DuckDB cannot
// read left every model unopened, the server running with nothing to query).
func (o *options) check() error {
	if o.dsnEnv != nil {
		allowed, err := parseDSNEnv(*o.dsnEnv)
		if err != nil {
			return fmt.Errorf("-dsn-env %w", err)
		}
		o.cfg.DSNEnv = allowed
	}
	c := o.cfg
	for _, f := range []struct {
		name string
		v    int
	}{{"row-limit", c.DefaultRowLimit}, {"max-row-limit", c.MaxRowLimit}, {"byte-budget", c.ByteBudget}, {"threads", c.Duck.Threads}, {"max-query-processes", o.maxProcs}} {
		if f.v < 1 {
			return fmt.Errorf("-%s %d: must be at least 1", f.name, f.v)
		}
	}
	if c.MaxQueriesPerClient < 0 {
		return fmt.Errorf("-max-queries-per-client %d: must not be negative (0 turns the share off)", c.MaxQueriesPerClient)
	}
	if c.DefaultRowLimit > c.MaxRowLimit {
		return fmt.Errorf("-row-limit %d is above -max-row-limit %d", c.DefaultRowLimit, c.MaxRowLimit)
	}
	if c.QueryTimeout <= 0 {
		return fmt.Errorf("-timeout %s: must be positive", c.QueryTimeout)
	}
	if o.stopWait < 0 {
		return fmt.Errorf("-stop-wait %s: must not be negative", o.stopWait)
	}
	if o.startWait < 0 {
		return fmt.Errorf("-start-wait %s: must not be negative", o.startWait)
	}
	if o.poll < 10*time.Millisecond {
		return fmt.Errorf("-poll %s: must be at least 10ms", o.poll)
	}
	if !o.stdio {
		if _, port, err := net.SplitHostPort(o.httpAddr); err != nil {
			return fmt.Errorf("-http %q: want HOST:PORT, such as 127.0.0.1:8080 (%v)", o.httpAddr, err)
		} else if _, err := net.LookupPort("tcp", port); err != nil {
			return fmt.Errorf("-http %q: want HOST:PORT, such as 127.0.0.1:8080 (port %q: %v)", o.httpAddr, port, err)
		}
	}
	if o.dir != "" {
		if st, err := os.Stat(o.dir); err != nil {
			return fmt.Errorf("-catalog %s: not a readable directory (%v)", o.dir, err)
		} else if !st.IsDir() {
			return fmt.Errorf("-catalog %s: not a directory: give the folder that holds the catalog's projects", o.dir)
		}
	}
	return checkDuckConfig(c.Duck)
}

// checkDuckConfig opens an in-memory DuckDB database with the models' memory and
// thread limits and runs a small query under them: DuckDB judges the memory limit
// (512MB, 1.5GB, 2GiB, …) as it will for every model. The query builds a hash
// table (about 2 MiB), which needs memory however its threads are scheduled: a
// plain count over a range ran under 1KB once in about 150 tries.
func checkDuckConfig(c engine.DuckConfig) error {
	q := url.Values{"threads": {strconv.Itoa(c.Threads)}}
	if c.MemoryLimit != "" {
		q.Set("memory_limit", c.MemoryLimit)
	}
	if c.TempLimit != "" {
		// DuckDB reads -5MB as 16383.9 PiB.
		if strings.HasPrefix(strings.TrimSpace(c.TempLimit), "-") {
			return fmt.Errorf("-temp-limit %q: must not be negative: %s", c.TempLimit, memoryLimitForm)
		}
		q.Set("max_temp_directory_size", c.TempLimit)
	}
	db, err := sql.Open("duckdb", "?"+q.Encode())
	if err == nil {
		defer db.Close()
		var n int
		err = db.QueryRow("SELECT count(*) FROM (SELECT DISTINCT range FROM range(100000))").Scan(&n)
	}
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if strings.Contains(msg, "could not set") && strings.Contains(msg, "max_temp_directory_size") {
			return fmt.Errorf("-temp-limit %q: not a size DuckDB reads: %s", c.TempLimit, memoryLimitForm)
		}
		if strings.Contains(msg, "could not set") && strings.Contains(msg, "memory_limit") {
			// duckdb-go's words for a value DuckDB does not read as a size.
			return fmt.Errorf("-memory-limit %q: not a size DuckDB reads: %s", c.MemoryLimit, memoryLimitForm)
		}
		return fmt.Errorf("-memory-limit %q: DuckDB cannot run with it: %s", c.MemoryLimit, msg)
	}
	return nil
}

// memoryLimitForm says how DuckDB's memory limit is written.
const memoryLimitForm = "give a number and a unit, such as 512MB, 1.5GB or 2GiB (KB, MB, GB and TB count in powers of 1000, KiB, MiB, GiB and TiB of 1024)"

func serve(ctx context.Context, o options, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", engine.SamplesDirPattern()) // named after this process: engine.RemoveLeftovers
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := writeSamples(ctx, tmp); err != nil {
			return fmt.Errorf("writing the sample catalog: %w", err)
		}
		dir = tmp
		log.Info("serving the built-in sample catalog", "dir", dir)
	}
	if o.isolate {
		log.Info("DuckDB queries run in query processes, each ended at its time limit (-isolate=false runs them in this process)", "max-query-processes", o.maxProcs)
	} else {
		var hint []any
		if _, set := os.LookupEnv("GLIBC_TUNABLES"); !set && runtime.GOOS == "linux" {
			// Query processes get the allocator settings in their environment
			// (engine.WorkerMalloc); this process's were read when it started.
			hint = append(hint, "allocator", "the C library's defaults; start the server with GLIBC_TUNABLES="+engine.WorkerMalloc(o.cfg.Duck.Threads)+" to keep the memory DuckDB frees between queries, as query processes do (quantiles about 1.7 times faster)")
		}
		log.Info("DuckDB queries run in this process (-isolate=false): a calculation DuckDB cannot interrupt runs on past its time limit", hint...)
	}
	o.cfg.Duck.Log = log // query processes' crashes, one line each (rate-limited)
	svc, err := openService(ctx, dir, o.cfg, log)
	if err != nil {
		return err
	}
	defer closeWithin(svc, o.stopWait, log)
	// The MCP side follows every swap from the first one on: built before the
	// models start loading, and before the watch.
	var srv *mcp.Server
	var h *streamable.Handler
	abandoned := false // stdio answers left unwritten at the stop (below): srv.Close would wait for them
	if o.stdio {
		srv = newMCPServer(svc, version, false)
		followReloads(srv, svc)
		defer func() {
			if !abandoned {
				srv.Close()
			}
		}()
	} else {
		h = newHTTPHandler(ctx, svc, version)
	}
	svc.startLoads()
	waitForPackages(ctx, svc, o.startWait, log)
	watchDone := make(chan struct{})
	if o.dir != "" {
		// The watch reads again at once what changed since openService
		// read the catalog (while the packages loaded).
		go func() { defer close(watchDone); svc.Watch(ctx, o.poll) }()
	} else {
		close(watchDone)
	}
	defer func() { cancel(); <-watchDone }()

	if o.stdio {
		runc := make(chan error, 1)
		go func() { runc <- srv.Run(ctx, stdio.New(stdin, stdout, nil)) }()
		var err error
		select {
		case err = <-runc:
		case <-ctx.Done():
			// Told to stop: Run ends once every answer is written, and a
			// client that does not read its stdout holds them. They are
			// waited for -stop-wait, then left (the process ends without
			// them; the models' files are removed all the same).
			wait := time.NewTimer(o.stopWait)
			defer wait.Stop()
			select {
			case err = <-runc:
			case <-wait.C:
				abandoned = true
				log.Warn("stopping without the answers the client has not read (its end of stdout is not being read)", "waited", o.stopWait)
				return nil
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", o.httpAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", identifyClients(h, o.cfg.ClientHeader))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	addr := ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	fmt.Fprintf(stdout, "MCP endpoint: http://%s/mcp\n", net.JoinHostPort(host, fmt.Sprint(addr.Port)))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer stop()
	h.Shutdown(sctx)
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}

// waitForPackages waits at most wait (or until ctx ends) for the catalog's
// packages to load before the server serves: a package still loading then
// answers that it is (kind unavailable) until its models have opened, and the
// others are served meanwhile.
func waitForPackages(ctx context.Context, svc *Service, wait time.Duration, log *slog.Logger) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if svc.WaitLoaded(wctx) == nil || ctx.Err() != nil {
		return
	}
	loading := svc.Loading()
	if len(loading) > 10 {
		loading = append(loading[:10], fmt.Sprintf("and %d more", len(loading)-10))
	}
	log.Warn("serving before every package has loaded: those still loading answer that they are, until their models have opened", "waited", wait, "loading", strings.Join(loading, ", "))
}

// closeWithin closes svc's engines, waiting at most wait for the computations
// still running on them and for the loads under way: a DuckDB query answered at
// its time limit may compute on, uninterruptibly, for as long as it takes, as
// may the check of a model loading, and a server told to stop does not wait
// for that. What it does not wait for ends with the process; the files
// of those models (in os.TempDir, catalog-duckdb-*) are removed first.
func closeWithin(svc *Service, wait time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Close()
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		log.Warn("stopping without waiting any longer for what the engine cannot interrupt: queries computing past their time limit, models still loading", "waited", wait)
		svc.Discard()
	}
}

// newHTTPHandler serves svc over Streamable HTTP in stateless mode: every POST is
// served on its own, so any replica can answer any request.
//
// Each POST is served by an MCP server built for the catalog as it is, rebuilt on
// every reload. resources/list is in URI order and its cursors name the last URI
// sent (ListResourcesByURI), so a listing continues on any replica and across
// reloads. Call it before the catalog is watched.
func newHTTPHandler(ctx context.Context, svc *Service, version string) *streamable.Handler {
	var cur atomic.Pointer[mcp.Server]
	cur.Store(newMCPServer(svc, version, true))
	svc.OnReload(func(_, _ *catalog.Catalog) {
		// The server replaced holds nothing to release (no tasks): requests
		// still running on it finish there.
		cur.Store(newMCPServer(svc, version, true))
	})
	// The connection's context is the POST's (tctx), so a client that closes its
	// POST cancels its call and a query nobody waits for stops at once; it also
	// ends with ctx, so stopping the server cancels the calls in flight.
	opts := &streamable.HandlerOptions{Stateless: true}
	if svc.cfg.ClientHeader != "" {
		// Behind the proxy every connection has the proxy's address: the
		// transport's cap on request bodies still arriving from one address
		// would be one for all clients (its cap over all addresses stays).
		opts.MaxBodyBytesInFlightPerClient = -1
	}
	return streamable.NewHandler(func(tctx context.Context, t jsonrpc.Transport) error {
		_, err := cur.Load().Connect(alsoEndsWith(tctx, ctx), t)
		return err
	}, opts)
}

// alsoEndsWith returns a context with ctx's values, cancelled when ctx or stop
// ends.
func alsoEndsWith(ctx, stop context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	unregister := context.AfterFunc(stop, func() { cancel(context.Cause(stop)) })
	context.AfterFunc(ctx, func() { unregister() })
	return ctx
}

func marshalIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}
