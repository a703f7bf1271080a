// Command echo-server is the smallest real wiremcp server: one typed tool, echo,
// that returns its message as one text block. It is the benchmark target of
// ../shared/bench, so it stays exactly this small.
//
//	echo-server -stdio                    serve over stdin/stdout
//	echo-server -http 127.0.0.1:PORT      serve Streamable HTTP at /mcp
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
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

// EchoArgs are the echo tool's arguments.
type EchoArgs struct {
	Message string `json:"message" description:"The message to echo back."`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "wiremcp-echo", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(in.Message), nil, nil
		})
	return s
}

func main() {
	useStdio := flag.Bool("stdio", false, "serve over stdin/stdout")
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp on this address (e.g. 127.0.0.1:8080)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newServer()
	switch {
	case *useStdio:
		if err := s.Run(ctx, stdio.Stdio()); err != nil && !errors.Is(err, context.Canceled) {
			log.Fatal(err)
		}
	case *addr != "":
		h := streamable.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
			_, err := s.Connect(ctx, t)
			return err
		}, nil)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		// No ReadTimeout or WriteTimeout: they would cut the long-lived SSE
		// streams. The handler bounds each body read and each write itself
		// (streamable.HandlerOptions.BodyReadTimeout and WriteTimeout).
		srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		go func() {
			<-ctx.Done()
			h.Shutdown(context.WithoutCancel(ctx))
			srv.Close()
		}()
		fmt.Fprintf(os.Stderr, "echo-server: Streamable HTTP at http://%s/mcp\n", *addr)
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: echo-server -stdio | -http ADDR")
		os.Exit(2)
	}
}
