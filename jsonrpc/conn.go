package jsonrpc

import (
	"context"
	"log/slog"
)

// Handler answers requests and notifications. For a notification the result is
// ignored. The result is marshalled with encoding/json unless it is a json.RawMessage
// (used as is). A returned error is sent as AsError(err).
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// ConnOptions configures a Conn. The zero value (or nil) is usable.
type ConnOptions struct {
	// Handler answers incoming requests. Nil answers every call with -32601.
	Handler Handler
	// AcceptBatch decides whether an incoming batch is processed. Nil accepts all.
	// A refused batch is answered with one -32600 error ("id": null).
	AcceptBatch func() bool
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// Conn is one JSON-RPC connection over a Transport. It owns exactly one reader
// goroutine, started by NewConn and ended by Close or the end of the transport.
type Conn struct {
}

// NewConn starts serving t.
func NewConn(t Transport, opts *ConnOptions) *Conn { panic("TODO") }

// Call sends a request with a fresh id and waits for its response, decoding the
// result into result (if non-nil; a *json.RawMessage receives the raw bytes). An error
// response is returned as *Error. When ctx ends first, Call returns ctx.Err() and
// forgets the id (a late response is dropped).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error { panic("TODO") }

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error { panic("TODO") }

// Cancel cancels the context of the in-flight handler for the peer's request id, if
// any. It reports whether a handler was found.
func (c *Conn) Cancel(id ID) bool { panic("TODO") }

// Close stops reading, cancels nothing that is running, waits for in-flight handlers to
// return (their replies are still sent if the transport allows), closes the transport
// and fails pending Calls. It is safe to call more than once.
func (c *Conn) Close() error { panic("TODO") }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { panic("TODO") }

// Err returns why the connection ended (nil while it is running; io.EOF for a clean end).
func (c *Conn) Err() error { panic("TODO") }

// Async, called from a notification handler, lets the next notification start
// before this handler returns. It is a no-op elsewhere.
func Async(ctx context.Context) {}
