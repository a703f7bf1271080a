package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp (e.g. 127.0.0.1:3000; port 0 picks a free port)")
	stateless := flag.Bool("stateless", false, "with -http: serve every POST on its own connection, without sessions")
	useStdio := flag.Bool("stdio", false, "serve one client on stdin/stdout")
	verbose := flag.Bool("v", false, "log library diagnostics to stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv := newServer(logger)
	defer srv.Close() // stops running tasks

	var err error
	switch {
	case *useStdio && *httpAddr == "":
		err = srv.Run(ctx, stdio.Stdio())
	case *httpAddr != "" && !*useStdio:
		err = serveHTTP(ctx, srv, *httpAddr, *stateless, logger)
	default:
		fmt.Fprintln(os.Stderr, "everything-server: give exactly one of -http ADDR or -stdio")
		flag.Usage()
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "everything-server:", err)
		os.Exit(1)
	}
}

// newHandler returns the Streamable HTTP handler that serves srv.
func newHandler(srv *mcp.Server, stateless bool, logger *slog.Logger) *streamable.Handler {
	connect := func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, t)
		return err
	}
	return streamable.NewHandler(connect, &streamable.HandlerOptions{Stateless: stateless, Logger: logger})
}

// serveHTTP serves srv at /mcp on addr until ctx ends.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, stateless bool, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := newHandler(srv, stateless, logger)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mode := "stateful"
	if stateless {
		mode = "stateless"
	}
	fmt.Fprintf(os.Stderr, "everything-server (%s) listening on http://%s/mcp\n", mode, ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	// The MCP handler first: it ends the long-lived SSE streams, which
	// http.Server.Shutdown would otherwise wait for.
	h.Shutdown(shutdownCtx)
	if err := hs.Shutdown(shutdownCtx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
