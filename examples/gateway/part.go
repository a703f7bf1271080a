package main

import (
	"context"

	"github.com/wiremcp/wiremcp/mcp"
)

// part is one backend of a server: it offers tools, resources and prompts through
// the server's registry. A new kind of backend (a REST/OpenAPI one, say) is a new
// part: it registers what it offers with reg.set under its own id and reports its
// health.
//
// start is called once, before the server is reachable; it must not block on slow
// work (start that in a goroutine owned by the part, ended by close). close stops
// everything the part started and waits for it. status may be called at any time,
// concurrently with the others.
type part interface {
	start(ctx context.Context, reg *registry) error
	close()
	status() partStatus
}

// sessionHooks is implemented by parts that must hear about client sessions (an
// upstream MCP server that forwards subscriptions and completions).
type sessionHooks interface {
	subscribe(ctx context.Context, ss *mcp.ServerSession, uri string) error
	complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	initialized(ctx context.Context, ss *mcp.ServerSession)
	rootsChanged(ctx context.Context, ss *mcp.ServerSession)
}

// partStatus is a part's health, shown on the pages and /healthz.
type partStatus struct {
	Kind     string `json:"kind"`
	State    string `json:"state"` // ready, starting, backoff, stopped, idle
	Healthy  bool   `json:"healthy"`
	Detail   string `json:"detail,omitempty"`
	Restarts int    `json:"restarts,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Sessions int    `json:"upstreamSessions,omitempty"`
	// DroppedLogs counts upstream log messages not delivered because too many were
	// already on their way to the clients.
	DroppedLogs int      `json:"droppedLogs,omitempty"`
	Stderr      []string `json:"-"`
}
