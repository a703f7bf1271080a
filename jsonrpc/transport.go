package jsonrpc

import (
	"context"
)

// Transport moves whole JSON-RPC messages. Implementations live in transport/...
//
// Concurrency: Read is called from one goroutine at a time (the Conn's reader).
// Write may be called concurrently with itself and with Read; implementations
// serialise writes. Close may be called at any time, more than once, and makes a
// blocked Read return.
type Transport interface {
	// Read returns the next message. A frame the transport could not decode is
	// reported as an error that wraps an *Error (parse error or invalid request):
	// the Conn answers it with "id": null and keeps reading. If Read also returns
	// an *Invalid with that error (Decode does, for a malformed single message), the
	// Conn answers with the Invalid's ID instead, and not at all when that ID is
	// absent (a malformed notification). Any other error ends the connection
	// (io.EOF for a clean end).
	Read(ctx context.Context) (Message, error)
	// Write sends one message (a Batch is sent as one JSON array).
	// ctx may carry the request being handled (see RequestFromContext); transports
	// that multiplex streams (Streamable HTTP) use it to route the message.
	Write(ctx context.Context, msg Message) error
	// Close releases the transport. Further Reads and Writes fail.
	Close() error
}

type requestKey struct{}

// WithRequest returns a context that records req as the request being handled.
// Conn does this for every handler context.
func WithRequest(ctx context.Context, req *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// RequestFromContext returns the request whose handler ctx belongs to, if any.
func RequestFromContext(ctx context.Context) (*Request, bool) {
	r, ok := ctx.Value(requestKey{}).(*Request)
	return r, ok
}

// Backlogger is an optional Transport method set. Backlog reports whether another
// message is already waiting to be read (buffered, or queued by the transport). A
// Conn runs an incoming call on its reader goroutine when nothing waits — the cheapest
// path for one call at a time — and on a worker goroutine when something does, so
// that the next messages are read and handled in parallel. Backlog is called from the
// reader goroutine only, between Reads.
type Backlogger interface {
	Backlog() bool
}
