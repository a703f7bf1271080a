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
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp and legacy HTTP+SSE at /sse (e.g. 127.0.0.1:3000; port 0 picks a free port)")
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

// newSSEHandler returns the legacy HTTP+SSE (2024-11-05) handler that serves srv:
// GET opens the event stream, whose "endpoint" event names the same path (with a
// sessionId query parameter) for the client's POSTs. Origin and Host are checked
// and bodies capped as on /mcp (the package defaults).
func newSSEHandler(srv *mcp.Server, logger *slog.Logger) *sse.Handler {
	connect := func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := srv.Connect(ctx, t)
		return err
	}
	return sse.NewHandler(connect, &sse.HandlerOptions{Logger: logger})
}

// endpoints is the HTTP face of the server: Streamable HTTP at /mcp and the legacy
// HTTP+SSE transport at /sse.
type endpoints struct {
	mux        *http.ServeMux
	streamable *streamable.Handler
	legacy     *sse.Handler
}

func newEndpoints(srv *mcp.Server, stateless bool, logger *slog.Logger) *endpoints {
	e := &endpoints{
		mux:        http.NewServeMux(),
		streamable: newHandler(srv, stateless, logger),
		legacy:     newSSEHandler(srv, logger),
	}
	e.mux.Handle("/mcp", e.streamable)
	e.mux.Handle("/sse", e.legacy)
	return e
}

// shutdown ends the long-lived event streams of both transports, which
// http.Server.Shutdown would otherwise wait for.
func (e *endpoints) shutdown(ctx context.Context) error {
	return errors.Join(e.streamable.Shutdown(ctx), e.legacy.Shutdown(ctx))
}

// serveHTTP serves srv at /mcp (and the legacy HTTP+SSE transport at /sse) on addr
// until ctx ends.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, stateless bool, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	e := newEndpoints(srv, stateless, logger)
	// Body reads and writes are bounded by the streamable handler (BodyReadTimeout,
	// WriteTimeout); ReadTimeout and WriteTimeout here would cut SSE streams.
	hs := &http.Server{Handler: e.mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	mode := "stateful"
	if stateless {
		mode = "stateless"
	}
	fmt.Fprintf(os.Stderr, "everything-server (%s) listening on http://%s/mcp\n", mode, ln.Addr())
	fmt.Fprintf(os.Stderr, "everything-server legacy HTTP+SSE (2024-11-05) at http://%s/sse\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	// The MCP handlers first: they end the long-lived SSE streams, which
	// http.Server.Shutdown would otherwise wait for.
	e.shutdown(shutdownCtx)
	if err := hs.Shutdown(shutdownCtx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
