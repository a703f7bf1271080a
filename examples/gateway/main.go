// Command gateway serves many MCP servers — stdio MCP servers, MCP servers at URLs,
// command-line programs, static resources and prompts — from one configuration file,
// each at its own endpoint /mcp/{server}, with HTML pages that show what is there.
//
//	gateway [-http 127.0.0.1:8080] [-config FILE]   serve (the built-in demo without -config)
//	        [-auth-issuer URL -auth-audience URL [-auth-scope SCOPES] [-auth-tool-scope SERVER/TOOL=SCOPES]...]
//	                                                 require OAuth access tokens
//	gateway check -config FILE                       validate a configuration and exit
//
// See README.md for the configuration format.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/wiremcp/wiremcp/auth"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "check":
			os.Exit(checkMain(os.Args[2:]))
		case "demo-upstream":
			// The built-in demo's stdio MCP server (this same binary).
			os.Exit(demoUpstream())
		}
	}
	os.Exit(serveMain(os.Args[1:]))
}

func checkMain(args []string) int {
	fs := flag.NewFlagSet("gateway check", flag.ContinueOnError)
	path := fs.String("config", "", "configuration `FILE` to validate")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *path == "" {
		fmt.Fprintln(os.Stderr, "usage: gateway check -config FILE")
		return 2
	}
	cfg, err := LoadConfigFile(*path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", *path, err)
		return 1
	}
	n := 0
	for _, s := range cfg.Servers {
		if s.enabled() {
			n++
		}
	}
	fmt.Printf("%s: ok, %d server(s), %d enabled\n", *path, len(cfg.Servers), n)
	return 0
}

func serveMain(args []string) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	addr := fs.String("http", "127.0.0.1:8080", "listen on `ADDR` (port 0 picks a free port)")
	path := fs.String("config", "", "configuration `FILE` (JSON); without it, the built-in demo")
	verbose := fs.Bool("v", false, "log diagnostics to stderr")
	idle := fs.Duration("session-idle", 30*time.Minute, "end a Streamable HTTP client session, and its own upstream session and child process, after `DURATION` without traffic")
	var ac authConfig
	fs.StringVar(&ac.issuer, "auth-issuer", "", "require OAuth access tokens (JWT) issued by the authorization server `URL` on every route (the HTML pages included)")
	fs.StringVar(&ac.audience, "auth-audience", "", "the gateway's resource `URL`, which tokens must name in aud (with -auth-issuer)")
	fs.StringVar(&ac.scope, "auth-scope", "", "space-separated `SCOPES` every request needs (with -auth-issuer)")
	fs.Func("auth-tool-scope", "`SERVER/TOOL=SCOPES`: a tools/call of TOOL (its name on /mcp/SERVER) needs these space-separated scopes too, on /mcp/SERVER and /mcp/all (repeatable; with -auth-issuer)", ac.addToolScope)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := ac.check(); err != nil {
		fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var cfg *Config
	var err error
	loadedStamp := stamp(*path)
	if *path == "" {
		cfg, err = demoConfig()
	} else {
		cfg, err = LoadConfigFile(*path)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
		return 1
	}
	opts := &Options{Logger: logger, SessionIdleTimeout: *idle}
	if ac.enabled() {
		opts.SessionOwner = auth.SessionOwner // a session is its principal's only
	}
	g, err := NewGateway(cfg, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
		return 1
	}
	defer g.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
		return 1
	}
	var handler http.Handler = g
	if ac.enabled() {
		if handler, err = protect(g, ac, logger); err != nil {
			fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
			return 1
		}
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *path != "" {
		go watchConfig(ctx, g, *path, loadedStamp, os.Stderr)
	}
	go func() {
		<-ctx.Done()
		// Close the gateway first: it ends the event streams (which http.Server's
		// Shutdown would wait for) and stops every child process.
		g.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(os.Stderr, "gateway: %d server(s); index at http://%s/mcp\n", len(cfg.Servers), ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "gateway: %v\n", err)
		return 1
	}
	return 0
}
