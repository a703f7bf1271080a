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

// DirectFunc passes a message to the Conn on the calling goroutine, doing what the
// Conn's reader does with a message it reads. A call runs there: its handler's reply
// (or an error reply) has been handed to Transport.Write when DirectFunc returns. A
// notification is queued for the notification worker, in order after the ones
// already queued; a response goes to its Call once the notifications queued before
// it have been handled. DirectFunc reports false, having done nothing, when msg
// must be read through Read instead (a batch or an *Invalid), and for a call once
// the Conn no longer takes work.
type DirectFunc func(msg Message) bool

// Direct is an optional Transport method set, for transports that receive each
// message on a goroutine of their own (an HTTP server's request goroutines).
// NewConn calls SetDirect once, before its first Read. The transport may then pass
// messages to the DirectFunc instead of queueing them for Read, which spares the
// reader's goroutine hand-offs: a call then runs on the goroutine that received it.
//
// The Conn's ordering guarantees stay as for messages read: notifications are
// handled one at a time in the order they were queued, a response is delivered after
// the notifications queued before it, and a call starts once every message that
// arrived before it has been queued (it may run while earlier notifications are still
// being handled, as calls do). Keeping arrival order is the transport's duty: it may
// pass a message directly only when every notification, response or batch it
// accepted before has been returned by Read and the Conn has called Read again since
// (by then the Conn has queued them itself).
type Direct interface {
	SetDirect(serve DirectFunc)
}
