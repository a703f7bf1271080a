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

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func main() {
	useStdio := flag.Bool("stdio", false, "serve one client on stdin/stdout")
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp (e.g. 127.0.0.1:8080)")
	verbose := flag.Bool("v", false, "log diagnostics to stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cat, err := catalog.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "patterns-server:", err)
		os.Exit(1)
	}
	srv := newServer(cat, nil, logger)

	switch {
	case *useStdio && *httpAddr == "":
		err = srv.Run(ctx, stdio.Stdio())
	case *httpAddr != "" && !*useStdio:
		var ln net.Listener
		if ln, err = net.Listen("tcp", *httpAddr); err == nil {
			fmt.Fprintf(os.Stderr, "patterns-server: Streamable HTTP at http://%s/mcp\n", ln.Addr())
			err = serveHTTP(ctx, srv, ln)
		}
	default:
		fmt.Fprintln(os.Stderr, "patterns-server: give exactly one of -stdio or -http ADDR")
		flag.Usage()
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "patterns-server:", err)
		os.Exit(1)
	}
}

// serveHTTP serves srv with Streamable HTTP at /mcp on ln until ctx ends, then
// shuts down and returns nil (or the error that stopped serving earlier).
func serveHTTP(ctx context.Context, srv *mcp.Server, ln net.Listener) error {
	h := streamable.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, t)
		return err
	}, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	// Body reads and writes are bounded by the streamable handler (BodyReadTimeout,
	// WriteTimeout); ReadTimeout and WriteTimeout here would cut SSE streams.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	h.Shutdown(shutdownCtx) // ends SSE streams that hs.Shutdown would wait for
	if err := hs.Shutdown(shutdownCtx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
