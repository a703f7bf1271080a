package main

import (
	"context"
	"errors"
	"io"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// serveStdio serves MCP over stdin/stdout until the client closes stdin or ctx ends.
// Nothing else may write to stdout: logs go to stderr.
func serveStdio(ctx context.Context, srv *mcp.Server, stdin io.Reader, stdout io.Writer) error {
	err := srv.Run(ctx, stdio.New(stdin, stdout, nil))
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
