package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// serverRT is one configured server while it runs: its mcp.Server, the parts that
// feed it, and its two HTTP endpoints. It lives from one configuration load to the
// reload that changes or removes its definition.
type serverRT struct {
	name  string
	cfg   *ServerConfig
	fp    string
	srv   *mcp.Server
	reg   *registry
	parts []part
	hooks sessionHooks // the upstream part, if any
	errs  *lineRing
	http  *streamable.Handler
	sse   *sse.Handler
}

// newServerRT builds a server and starts its parts. onChange is told when what the
// server offers changes; updated when an upstream resource changed.
func newServerRT(ctx context.Context, name string, cfg *ServerConfig, dir string, o *Options, onChange func(), updated func(context.Context, string)) (*serverRT, error) {
	rt := &serverRT{name: name, cfg: cfg, fp: cfg.fingerprint(dir), errs: newLineRing(50)}
	rt.errs.redact = redactor(cfg)
	opts := &mcp.ServerOptions{Logger: o.Logger, Instructions: cfg.Description}
	var up *upstreamPart
	if cfg.MCP != nil {
		// What the upstream offers is known only once it answered, and may change:
		// declare the features up front.
		opts.Capabilities = &mcp.ServerCapabilities{
			Tools:     &mcp.ListChangedCapability{ListChanged: true},
			Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
			Prompts:   &mcp.ListChangedCapability{ListChanged: true},
		}
		opts.SubscribeHandler = func(ctx context.Context, ss *mcp.ServerSession, uri string) error {
			return rt.hooks.subscribe(ctx, ss, uri)
		}
		opts.Tasks = &mcp.TaskOptions{}
		opts.CompletionHandler = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return rt.hooks.complete(ctx, req)
		}
		opts.InitializedHandler = func(ctx context.Context, ss *mcp.ServerSession) {
			rt.hooks.initialized(ctx, ss)
		}
		opts.RootsListChangedHandler = func(ctx context.Context, ss *mcp.ServerSession) {
			rt.hooks.rootsChanged(ctx, ss)
		}
	}
	if cfg.REST != nil && opts.Capabilities == nil {
		// Tools from a document at a URL arrive after clients may have connected.
		opts.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{ListChanged: true}}
	}
	rt.srv = mcp.NewServer(mcp.Implementation{Name: name, Version: "gateway"}, opts)
	rt.reg = newRegistry(rt.srv, cfg, rt.errs, onChange)
	if cfg.MCP != nil {
		up = newUpstreamPart(name, cfg, dir, o.Logger.With("server", name), rt.srv, rt.errs, updated)
		rt.hooks = up
		rt.parts = append(rt.parts, up)
	}
	if cfg.REST != nil {
		rt.parts = append(rt.parts, newRESTPart(name, cfg.REST, cfg.timeout(), dir, rt.errs))
	}
	if cfg.Command != nil || len(cfg.Tools) > 0 || len(cfg.Resources) > 0 || len(cfg.Prompts) > 0 {
		rt.parts = append(rt.parts, &staticPart{name: name, cfg: cfg, dir: dir, errs: rt.errs})
	}
	for _, p := range rt.parts {
		if err := p.start(ctx, rt.reg); err != nil {
			rt.close(ctx)
			return nil, err
		}
	}
	connect := func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := rt.srv.Connect(ctx, t)
		return err
	}
	rt.http = streamable.NewHandler(connect, &streamable.HandlerOptions{
		Logger:         o.Logger,
		AllowedOrigins: o.allowedOrigins,
		AllowedHosts:   o.AllowedHosts,
		KeepAlive:      o.KeepAlive,
		SessionOwner:   o.SessionOwner,
		// An expired session ends its own upstream session (and child) too.
		SessionIdleTimeout: o.SessionIdleTimeout,
	})
	rt.sse = sse.NewHandler(connect, &sse.HandlerOptions{
		Logger:         o.Logger,
		AllowedOrigins: o.allowedOrigins,
		AllowedHosts:   o.AllowedHosts,
		KeepAlive:      o.KeepAlive,
		MessagePath:    o.Prefix + "/mcp/" + name + "/sse",
		SessionOwner:   o.SessionOwner,
	})
	return rt, nil
}

// waitFirstStart waits until every part that starts at boot has made its first
// attempt (bounded by dialTimeout).
func (rt *serverRT) waitFirstStart() {
	for _, p := range rt.parts {
		if w, ok := p.(interface{ waitFirstStart() }); ok {
			w.waitFirstStart()
		}
	}
}

// close ends the server's sessions and stops its parts (and their children).
func (rt *serverRT) close(ctx context.Context) {
	if rt.http != nil {
		_ = rt.http.Shutdown(ctx)
	}
	if rt.sse != nil {
		_ = rt.sse.Shutdown(ctx)
	}
	for _, ss := range rt.srv.Sessions() {
		_ = ss.Close()
	}
	for _, p := range rt.parts {
		p.close()
	}
	_ = rt.srv.Close()
}

// health is a server's state as /healthz and the pages show it.
type health struct {
	Enabled bool         `json:"enabled"`
	Healthy bool         `json:"healthy"`
	State   string       `json:"state"`
	Tools   int          `json:"tools"`
	Parts   []partStatus `json:"parts,omitempty"`
	Errors  []string     `json:"recentErrors,omitempty"`
}

func (rt *serverRT) health() health {
	h := health{Enabled: true, Healthy: true, State: "ready"}
	for _, p := range rt.parts {
		st := p.status()
		h.Parts = append(h.Parts, st)
		if !st.Healthy {
			h.Healthy = false
			h.State = st.State
		}
	}
	h.Tools = len(rt.reg.snapshot().Tools)
	h.Errors = rt.errs.Lines()
	return h
}

var errUnknownServer = errors.New("unknown server")

// discardLogger is the default logger.
var discardLogger = slog.New(slog.DiscardHandler)
