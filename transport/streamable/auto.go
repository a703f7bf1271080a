package streamable

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/sse"
)

// AutoClient is a client jsonrpc.Transport that speaks Streamable HTTP and falls back
// to the 2024-11-05 HTTP+SSE transport when the server turns out to be a legacy one:
// when an initialize POST fails with 400, 404 or 405 (without a JSON-RPC answer), it
// GETs the same URL expecting an event stream whose first event is "endpoint", and
// uses that transport from then on.
//
// Until a message has gone through, the choice is open; after that it is fixed.
// Read, Write and Close follow the rules of ClientTransport.
type AutoClient struct {
	url    string
	opts   ClientOptions
	stream *ClientTransport

	mu      sync.Mutex // serialises the choice
	decided bool
	legacy  *sse.ClientTransport
	ready   chan struct{} // closed once legacy is set
	done    chan struct{}
	once    sync.Once
}

// NewAutoClient returns a transport for the MCP endpoint at url. Nothing is sent
// until the first Write. opts may be nil; its HTTPClient, Header and
// MaxMessageBytes also configure the legacy transport.
func NewAutoClient(url string, opts *ClientOptions) (*AutoClient, error) {
	st, err := NewClient(url, opts)
	if err != nil {
		return nil, err
	}
	return &AutoClient{url: url, opts: st.opts, stream: st, ready: make(chan struct{}), done: make(chan struct{})}, nil
}

// Legacy reports whether the client fell back to HTTP+SSE.
func (a *AutoClient) Legacy() bool {
	select {
	case <-a.ready:
		return true
	default:
		return false
	}
}

// Streamable returns the Streamable HTTP transport (for its session id and protocol
// version), or nil after a fallback.
func (a *AutoClient) Streamable() *ClientTransport {
	if a.Legacy() {
		return nil
	}
	return a.stream
}

// Write implements jsonrpc.Transport.
func (a *AutoClient) Write(ctx context.Context, msg jsonrpc.Message) error {
	a.mu.Lock()
	if a.decided {
		a.mu.Unlock()
		if l := a.legacyTransport(); l != nil {
			return l.Write(ctx, msg)
		}
		return a.stream.Write(ctx, msg)
	}
	defer a.mu.Unlock()
	err := a.stream.Write(ctx, msg)
	var se *StatusError
	req, _ := msg.(*jsonrpc.Request)
	isInit := req != nil && req.Method == "initialize" && !req.IsNotification()
	switch {
	case err == nil:
		a.decided = true
		return nil
	case isInit && errors.As(err, &se) && (se.StatusCode == http.StatusBadRequest ||
		se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed):
		l, lerr := sse.NewClient(ctx, a.url, &sse.ClientOptions{HTTPClient: a.opts.HTTPClient,
			Header: a.opts.Header, MaxMessageBytes: a.opts.MaxMessageBytes, Logger: a.opts.Logger})
		if lerr != nil {
			return errors.Join(err, lerr)
		}
		a.legacy = l
		a.decided = true
		close(a.ready)
		select {
		case <-a.done: // Close ran meanwhile and may not have seen l
			l.Close()
			return ErrClosed
		default:
		}
		return l.Write(ctx, msg)
	}
	return err
}

func (a *AutoClient) legacyTransport() *sse.ClientTransport {
	select {
	case <-a.ready:
		return a.legacy
	default:
		return nil
	}
}

// Read implements jsonrpc.Transport.
func (a *AutoClient) Read(ctx context.Context) (jsonrpc.Message, error) {
	if l := a.legacyTransport(); l != nil {
		return l.Read(ctx)
	}
	select {
	case m := <-a.stream.in:
		return m, nil
	case <-a.ready:
		return a.legacy.Read(ctx)
	case <-a.stream.done:
		return nil, io.EOF
	case <-a.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close implements jsonrpc.Transport.
func (a *AutoClient) Close() error {
	a.once.Do(func() { close(a.done) })
	if l := a.legacyTransport(); l != nil {
		l.Close()
	}
	return a.stream.Close()
}
