package jsonrpc

import (
	"context"
	"errors"
)

// CallCanceledError is returned by Conn.Call when its context ends before the
// response arrives. It names the id the request was sent with, so that the layer
// above can tell the peer (MCP's notifications/cancelled), and it wraps the context's
// error: errors.Is(err, context.Canceled) holds.
type CallCanceledError struct {
	ID  ID
	Err error
}

func (e *CallCanceledError) Error() string {
	return "jsonrpc: call " + e.ID.String() + " abandoned: " + e.Err.Error()
}

// Unwrap returns the context's error.
func (e *CallCanceledError) Unwrap() error { return e.Err }

// CanceledCallID returns the id of a call that err reports abandoned.
func CanceledCallID(err error) (ID, bool) {
	var ce *CallCanceledError
	if errors.As(err, &ce) {
		return ce.ID, true
	}
	return ID{}, false
}

type idRecorderKey struct{}

// WithIDRecorder returns a context that makes Conn.Call report the id it is about to
// send a request with, by calling rec before the request is written. The layer above
// uses it to recognise messages that refer back to that request (MCP's
// subscriptionId).
func WithIDRecorder(ctx context.Context, rec func(ID)) context.Context {
	return context.WithValue(ctx, idRecorderKey{}, rec)
}

type headerKey struct{}

// WithHeader returns a context that makes Conn.Call and Conn.Notify attach h as the
// Header of the request they send. Transports that carry headers (HTTP) send them
// with the message; others ignore them.
func WithHeader(ctx context.Context, h map[string][]string) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

// headerFrom returns the header attached with WithHeader, if any.
func headerFrom(ctx context.Context) map[string][]string {
	h, _ := ctx.Value(headerKey{}).(map[string][]string)
	return h
}
