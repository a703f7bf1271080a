package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configures a Gateway. The zero value gives the defaults documented on each
// field; the struct is copied by NewGateway.
type Options struct {
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
	// Prefix is the path the gateway is mounted under ("" for the root): its routes
	// are Prefix+"/mcp", Prefix+"/mcp/{server}", … and Prefix+"/healthz".
	Prefix string
	// AllowedHosts lists extra Host values the endpoints accept (see
	// streamable.HandlerOptions); needed when the gateway is reached through a
	// name other than localhost on a loopback listener.
	AllowedHosts []string
	// KeepAlive is the period of keep-alive comments on idle SSE streams. Zero means
	// 25 seconds.
	KeepAlive time.Duration
	// CloseTimeout bounds how long a removed or changed server's sessions get to
	// finish in-flight requests on reload. Zero means 5 seconds.
	CloseTimeout time.Duration
	// SessionIdleTimeout ends a Streamable HTTP client session after this long
	// without HTTP traffic (an open GET stream counts as traffic), and with it the
	// session's own upstream session and child process. Zero means 30 minutes (see
	// streamable.HandlerOptions.SessionIdleTimeout); negative disables expiry.
	SessionIdleTimeout time.Duration
	// SessionOwner, when set, binds each client session, Streamable HTTP and HTTP+SSE,
	// to the principal that opened it (see streamable.HandlerOptions.SessionOwner and
	// sse.HandlerOptions.SessionOwner): with bearer tokens required,
	// auth.SessionOwner, so a session id presented with another principal's token
	// is refused.
	SessionOwner func(*http.Request) string

	allowedOrigins []string // from the configuration's CORS allow-list
}

// Gateway serves the configured servers. It is an http.Handler; Apply changes the
// configuration while it serves. Its methods are safe for concurrent use.
//
// Goroutines: one that rebuilds /mcp/all after changes (ended by Close), plus what
// each server's parts own (ended when the server is closed).
type Gateway struct {
	opts Options

	applyMu sync.Mutex // one Apply at a time

	mu      sync.RWMutex
	cfg     *Config
	servers map[string]*serverRT
	all     *allRT
	closed  bool
	loaded  time.Time
	reloads int

	syncMu     sync.Mutex // guards sending on and closing syncCh; takes no other lock
	syncClosed bool
	syncCh     chan struct{} // a pending /mcp/all rebuild (capacity 1: coalesces)
	syncDone   chan struct{}
}

// NewGateway returns a gateway serving cfg.
func NewGateway(cfg *Config, opts *Options) (*Gateway, error) {
	g := &Gateway{servers: map[string]*serverRT{}, syncCh: make(chan struct{}, 1), syncDone: make(chan struct{})}
	if opts != nil {
		g.opts = *opts
	}
	if g.opts.Logger == nil {
		g.opts.Logger = discardLogger
	}
	if g.opts.CloseTimeout == 0 {
		g.opts.CloseTimeout = 5 * time.Second
	}
	g.opts.Prefix = strings.TrimSuffix(g.opts.Prefix, "/")
	go g.syncLoop()
	if err := g.Apply(cfg); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

func corsKey(c *Config) string {
	if c.CORS == nil {
		return ""
	}
	return strings.Join(c.CORS.AllowedOrigins, " ")
}

// Apply switches to cfg: servers whose definition (and environment) did not change
// keep running with their sessions and child processes; changed ones are started
// anew and the old ones closed; removed or disabled ones are closed. When a new
// server cannot be built, nothing changes and the error is returned.
func (g *Gateway) Apply(cfg *Config) error {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	g.mu.RLock()
	closed, current, prevCfg := g.closed, g.servers, g.cfg
	g.mu.RUnlock()
	if closed {
		return fmt.Errorf("gateway is closed")
	}
	cors := corsKey(cfg)
	o := g.opts
	if cfg.CORS != nil {
		o.allowedOrigins = cfg.CORS.AllowedOrigins
	} else {
		o.allowedOrigins = nil
	}
	next := map[string]*serverRT{}
	var started []*serverRT
	for _, name := range sortedKeys(cfg.Servers) {
		sc := cfg.Servers[name]
		if !sc.enabled() {
			continue
		}
		fp := sc.fingerprint(cfg.dir) + "|" + cors
		if rt := current[name]; rt != nil && rt.fp == fp {
			next[name] = rt
			continue
		}
		rt, err := newServerRT(context.Background(), name, sc, cfg.dir, &o, g.scheduleSync, g.resourceUpdated)
		if err != nil {
			for _, s := range started {
				s.close(context.Background())
			}
			return fmt.Errorf("server %s: %w", name, err)
		}
		rt.fp = fp
		next[name] = rt
		started = append(started, rt)
	}
	// New servers go live once their first start (and discovery) has been tried, so
	// that a client never sees a server with an empty tool list just because it
	// came a moment too early. Bounded by dialTimeout.
	var wg sync.WaitGroup
	for _, rt := range started {
		wg.Add(1)
		go func() { defer wg.Done(); rt.waitFirstStart() }()
	}
	wg.Wait()

	g.mu.Lock()
	var stale []*serverRT
	for name, rt := range g.servers {
		if next[name] != rt {
			stale = append(stale, rt)
		}
	}
	var staleAll *allRT
	allChanged := prevCfg == nil || corsKey(prevCfg) != cors
	if g.all != nil && (!cfg.All || allChanged) {
		staleAll, g.all = g.all, nil
	}
	if cfg.All && g.all == nil {
		g.all = newAllRT(&o)
	}
	g.servers, g.cfg = next, cfg
	g.loaded = time.Now()
	g.reloads++
	g.opts.allowedOrigins = o.allowedOrigins
	g.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), g.opts.CloseTimeout)
	defer cancel()
	for _, rt := range stale {
		wg.Add(1)
		go func() { defer wg.Done(); rt.close(ctx) }()
	}
	if staleAll != nil {
		staleAll.close(ctx)
	}
	wg.Wait()
	// /mcp/all is complete before the new configuration is reported applied (a
	// client connecting right after NewGateway or a reload sees every server);
	// later changes of a part reach it through syncLoop.
	g.mu.RLock()
	all, servers := g.all, g.sortedServers()
	g.mu.RUnlock()
	if all != nil {
		all.sync(servers)
	}
	return nil
}

// Close stops every server and waits for their child processes to be gone.
func (g *Gateway) Close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	servers, all := g.servers, g.all
	g.servers, g.all = map[string]*serverRT{}, nil
	g.mu.Unlock()
	g.syncMu.Lock()
	g.syncClosed = true
	close(g.syncCh)
	g.syncMu.Unlock()
	<-g.syncDone
	ctx, cancel := context.WithTimeout(context.Background(), g.opts.CloseTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, rt := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); rt.close(ctx) }()
	}
	if all != nil {
		all.close(ctx)
	}
	wg.Wait()
}

func (g *Gateway) scheduleSync() {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	if g.syncClosed {
		return
	}
	select {
	case g.syncCh <- struct{}{}:
	default:
	}
}

// syncLoop rebuilds /mcp/all when asked, until Close.
func (g *Gateway) syncLoop() {
	defer close(g.syncDone)
	for range g.syncCh {
		g.mu.RLock()
		all := g.all
		servers := g.sortedServers()
		g.mu.RUnlock()
		if all != nil {
			all.sync(servers)
		}
	}
}

func (g *Gateway) sortedServers() []*serverRT {
	out := make([]*serverRT, 0, len(g.servers))
	for _, n := range sortedKeys(g.servers) {
		out = append(out, g.servers[n])
	}
	return out
}

// resourceUpdated tells the clients of every route that an upstream resource changed
// (the library sends it only to the sessions subscribed to it).
func (g *Gateway) resourceUpdated(ctx context.Context, uri string) {
	g.mu.RLock()
	servers := g.sortedServers()
	all := g.all
	g.mu.RUnlock()
	for _, rt := range servers {
		if rt.hooks != nil {
			rt.srv.ResourceUpdated(ctx, uri)
		}
	}
	if all != nil {
		all.srv.ResourceUpdated(ctx, uri)
	}
}

// ServeHTTP routes the gateway's requests.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, g.opts.Prefix)
	if !ok {
		g.notFound(w, r, "")
		return
	}
	switch {
	case path == "/healthz":
		g.serveHealth(w, r)
		return
	case path == "/mcp" || path == "/mcp/":
		g.serveIndex(w, r)
		return
	}
	rest, ok := strings.CutPrefix(path, "/mcp/")
	if !ok {
		g.notFound(w, r, "")
		return
	}
	if name, ok := strings.CutPrefix(rest, "meta/"); ok {
		g.serveMeta(w, r, name)
		return
	}
	name, sub, _ := strings.Cut(rest, "/")
	if sub != "" && sub != "sse" {
		g.notFound(w, r, "")
		return
	}
	g.mu.RLock()
	rt := g.servers[name]
	all := g.all
	g.mu.RUnlock()
	var streamH, sseH http.Handler
	switch {
	case rt != nil:
		streamH, sseH = rt.http, rt.sse
	case name == "all" && all != nil:
		streamH, sseH = all.http, all.sse
	default:
		g.notFound(w, r, name)
		return
	}
	if g.cors(w, r) {
		return
	}
	if sub == "sse" {
		sseH.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodGet && wantsHTML(r) {
		g.serveInfo(w, r, name)
		return
	}
	streamH.ServeHTTP(w, r)
}

// wantsHTML reports whether a GET comes from a browser page load rather than an MCP
// client opening its event stream.
func wantsHTML(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "text/html") && !strings.Contains(a, "text/event-stream")
}

// cors applies the configuration's CORS allow-list; it reports true when it answered
// a preflight request itself.
func (g *Gateway) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	g.mu.RLock()
	ok := slices.Contains(g.opts.allowedOrigins, origin)
	g.mu.RUnlock()
	if !ok {
		return false // the endpoint's own Origin check decides
	}
	h := w.Header()
	if !slices.Contains(h.Values("Vary"), "Origin") {
		h.Add("Vary", "Origin") // once, also when protect applied it already
	}
	h.Set("Access-Control-Allow-Origin", origin)
	// WWW-Authenticate: with tokens required, a browser client reads the challenge.
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// Health is the body of /healthz.
type Health struct {
	Healthy bool               `json:"healthy"`
	Loaded  time.Time          `json:"loaded"`
	Servers map[string]*health `json:"servers"`
}

func (g *Gateway) health() *Health {
	g.mu.RLock()
	cfg := g.cfg
	servers := map[string]*serverRT{}
	for k, v := range g.servers {
		servers[k] = v
	}
	loaded := g.loaded
	g.mu.RUnlock()
	out := &Health{Healthy: true, Loaded: loaded.UTC(), Servers: map[string]*health{}}
	for name, sc := range cfg.Servers {
		if rt := servers[name]; rt != nil {
			h := rt.health()
			out.Servers[name] = &h
			if !h.Healthy {
				out.Healthy = false
			}
		} else if !sc.enabled() {
			out.Servers[name] = &health{Enabled: false, State: "disabled"}
		}
	}
	return out
}

func (g *Gateway) serveHealth(w http.ResponseWriter, r *http.Request) {
	h := g.health()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !h.Healthy {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(h)
}

// notFound answers an unknown route or server: a page for a browser, a JSON-RPC
// error for anything else.
func (g *Gateway) notFound(w http.ResponseWriter, r *http.Request, server string) {
	if r.Method == http.MethodGet && wantsHTML(r) {
		g.servePage(w, r, http.StatusNotFound, "notfound", map[string]any{"Server": server})
		return
	}
	msg := "no such route"
	if server != "" {
		msg = fmt.Sprintf("unknown or disabled MCP server %q", server)
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(body)
}
