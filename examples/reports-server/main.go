package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// version is reported to MCP clients.
const version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `reports-server serves reports to MCP clients (the Reports binding) and people (an HTML inbox).

Usage:
  reports-server [-http ADDR] [-stdio] [-dir DIR] [-data DIR] [-poll DURATION]
                 [-auth-issuer URL -auth-audience URL]
  reports-server check DIR
  reports-server publish -dir DIR FILE...
  reports-server import gotest -dir DIR [-id ID] [-title TITLE] [-category C] [-source S] < go-test.json

Without -dir, a built-in set of sample reports is served.

Serve flags:
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return cmdCheck(args[1:], stdout, stderr)
		case "publish":
			return cmdPublish(args[1:], stdout, stderr)
		case "import":
			return cmdImport(args[1:], stdin, stdout, stderr)
		case "help":
			args = []string{"-h"}
		}
	}
	fs := flag.NewFlagSet("reports-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	httpAddr := fs.String("http", "127.0.0.1:8080", "serve Streamable HTTP at `ADDR` (MCP at /mcp, the inbox at /)")
	stdio := fs.Bool("stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	dir := fs.String("dir", "", "serve the report files in `DIR` (default: built-in samples)")
	data := fs.String("data", defaultDataDir(), "keep lifecycle state (unread/read/dismissed) in `DIR`")
	poll := fs.Duration("poll", time.Second, "how often to look for new, changed and removed report files (10ms to 1m)")
	var ac authConfig
	fs.StringVar(&ac.issuer, "auth-issuer", "", "require OAuth access tokens (JWT) issued by the authorization server `URL` on /mcp (the inbox is then not served)")
	fs.StringVar(&ac.audience, "auth-audience", "", "this server's resource `URL`, which tokens must name in aud (with -auth-issuer)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reports-server: unexpected argument %q (see -h)\n", fs.Arg(0))
		return 2
	}
	if err := ac.check(); err != nil {
		fmt.Fprintf(stderr, "reports-server: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := serve(ctx, serveConfig{httpAddr: *httpAddr, stdio: *stdio, dir: *dir, data: *data, poll: *poll, auth: ac}, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "reports-server: %v\n", err)
		return 1
	}
	return 0
}

type serveConfig struct {
	httpAddr string
	stdio    bool
	dir      string
	data     string
	poll     time.Duration
	auth     authConfig
}

// defaultDataDir is the per-user place for lifecycle state: $XDG_STATE_HOME, else
// ~/.local/state on Unix-like systems, else the user configuration directory.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "wiremcp-reports")
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".local", "state", "wiremcp-reports")
		}
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "wiremcp-reports")
	}
	return filepath.Join(os.TempDir(), "wiremcp-reports")
}

// stateFileFor names the state file for a reports directory, so that different
// directories (and the built-in samples) never share lifecycle state.
func stateFileFor(data, dir string) (string, error) {
	if dir == "" {
		return filepath.Join(data, "state-builtin.json"), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(data, "state-"+filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6])+".json"), nil
}

// serve runs the server until ctx ends (HTTP) or the client goes away (stdio).
func serve(ctx context.Context, cfg serveConfig, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	statePath, err := stateFileFor(cfg.data, cfg.dir)
	if err != nil {
		return err
	}
	state, err := OpenState(statePath)
	if err != nil {
		return err
	}
	inbox := NewInbox(state)
	histPath := filepath.Join(filepath.Dir(statePath), "history-"+strings.TrimPrefix(filepath.Base(statePath), "state-"))
	history, err := OpenHistory(histPath)
	if err != nil {
		return err
	}
	inbox.KeepHistory(history, func(err error) { log.Warn("cannot record report history", "err", err) })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchDone := make(chan struct{})
	if cfg.dir == "" {
		loaded, diags := loadSamples()
		// Earlier versions of some samples, so that their trend charts show at once.
		if older, err := loadSampleHistory(); err != nil {
			log.Warn("built-in sample history", "err", err)
		} else {
			hashes := make([]string, len(older))
			for i, l := range older {
				hashes[i] = reports.ContentHash(l.Report)
			}
			if err := history.Record(older, hashes); err != nil {
				log.Warn("cannot record report history", "err", err)
			}
		}
		inbox.Replace(loaded, diags)
		close(watchDone)
		log.Info("serving the built-in sample reports", "reports", len(loaded), "state", statePath)
	} else {
		st, err := os.Stat(cfg.dir)
		if err != nil {
			return fmt.Errorf("reports directory: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("reports directory: %s is not a directory", cfg.dir)
		}
		w := NewWatcher(cfg.dir, inbox, cfg.poll, log)
		w.Scan()
		go func() {
			defer close(watchDone)
			w.Run(ctx)
		}()
		log.Info("serving reports", "dir", cfg.dir, "reports", len(inbox.List(reports.ListInput{})), "invalid", len(inbox.Diagnostics()), "state", statePath)
	}
	// Other processes may share the state file (an HTTP inbox beside a client-launched
	// -stdio instance): pick up their lifecycle changes at the poll interval.
	stateDone := make(chan struct{})
	go func() {
		defer close(stateDone)
		t := time.NewTicker(max(minPoll, min(maxPoll, cfg.poll)))
		defer t.Stop()
		lastErr := ""
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := inbox.RefreshState(); err != nil && err.Error() != lastErr {
				log.Error("cannot read the lifecycle state; keeping the last view", "err", err)
				lastErr = err.Error()
			} else if err == nil {
				lastErr = ""
			}
		}
	}()
	defer func() { cancel(); <-watchDone; <-stateDone }()

	srv := newMCPServer(ctx, inbox, log, version)
	if cfg.stdio {
		return serveStdio(ctx, srv, stdin, stdout)
	}

	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	loopback := addr.IP.IsLoopback()
	var hopts streamable.HandlerOptions
	if cfg.auth.enabled() {
		hopts.SessionOwner = auth.SessionOwner // a session is its principal's only
	}
	mcpHandler := streamable.NewHandler(func(_ context.Context, t jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, t)
		return err
	}, &hopts)
	mux := http.NewServeMux()
	if cfg.auth.enabled() {
		// The inbox has no login of its own, so it is not served when MCP needs tokens.
		h, err := protectMCP(mux, mcpHandler, cfg.auth, log)
		if err != nil {
			return err
		}
		mux.Handle("/mcp", h)
	} else {
		mux.Handle("/mcp", mcpHandler)
		mux.Handle("/", newWebHandler(inbox, log, loopback))
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}

	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	base := "http://" + net.JoinHostPort(host, fmt.Sprint(addr.Port))
	if cfg.auth.enabled() {
		fmt.Fprintf(stdout, "MCP endpoint: %s/mcp\n", base)
	} else {
		fmt.Fprintf(stdout, "MCP endpoint: %s/mcp\nInbox:        %s/\n", base, base)
	}

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer stop()
	mcpHandler.Shutdown(shutdownCtx)
	if err := hs.Shutdown(shutdownCtx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
