package main

import (
	"context"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// sessionGuard works around a race in mcp.Server.Connect at this commit: the new
// session is listed in Server.Sessions, and its connection's reader runs, before
// Connect has stored the connection in the session, so a broadcast
// (Server.ResourceUpdated, ServerSession.Log) or a message that arrives at once (the
// legacy SSE transport announces its endpoint before it connects) can read the
// unset field. The gateway connects under the guard's write lock, broadcasts under
// its read lock, and holds a connection's reads until Connect returned.
type sessionGuard struct{ mu sync.RWMutex }

// connect serves t with s, safely.
func (g *sessionGuard) connect(ctx context.Context, s *mcp.Server, t jsonrpc.Transport) error {
	gt := &gatedTransport{Transport: t, open: make(chan struct{})}
	g.mu.Lock()
	_, err := s.Connect(ctx, gt)
	g.mu.Unlock()
	close(gt.open)
	return err
}

// broadcast runs fn while no session is being connected.
func (g *sessionGuard) broadcast(fn func()) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	fn()
}

// gatedTransport holds Read until open is closed. It keeps SessionID and Stateless
// of the transport it wraps (the MCP layer asks for them).
type gatedTransport struct {
	jsonrpc.Transport
	open chan struct{}
}

func (t *gatedTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-t.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return t.Transport.Read(ctx)
}

func (t *gatedTransport) SessionID() string {
	if s, ok := t.Transport.(interface{ SessionID() string }); ok {
		return s.SessionID()
	}
	return ""
}

func (t *gatedTransport) Stateless() bool {
	if s, ok := t.Transport.(interface{ Stateless() bool }); ok {
		return s.Stateless()
	}
	return false
}

// SetDirect passes jsonrpc.Direct through: a Streamable HTTP transport delivers
// messages only after its ConnectFunc returned, so direct calls need no gate.
func (t *gatedTransport) SetDirect(serve jsonrpc.DirectFunc) {
	if d, ok := t.Transport.(jsonrpc.Direct); ok {
		d.SetDirect(serve)
	}
}
