package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// Limits of an upstream MCP part.
const (
	// defaultMaxClientUpstreams caps the per-client upstream sessions of one server
	// (each may be a child process) unless its mcp.maxSessions says otherwise, up to
	// maxMaxClientUpstreams. A request of a client session beyond the cap is refused
	// at once with an error (an isError result for a tool call), until a session
	// with an upstream session of its own ends.
	defaultMaxClientUpstreams = 256
	maxMaxClientUpstreams     = 4096
	// dialTimeout bounds starting an upstream and its handshake and discovery.
	dialTimeout = 30 * time.Second
	// backoffMin and backoffMax bound the delay before restarting a failed upstream;
	// it doubles per consecutive failure and resets after stableAfter of uptime.
	backoffMin  = 500 * time.Millisecond
	backoffMax  = 30 * time.Second
	stableAfter = 30 * time.Second
	// childGrace is how long a child gets to exit after its stdin closes (and again
	// after SIGTERM) before it is killed with its whole process group.
	childGrace = 2 * time.Second
	// stderrLines is how many lines of a child's stderr are kept; stderrBuf is the
	// size of the reads from it.
	stderrLines = 200
	stderrBuf   = 4 << 10
	// maxLogFanouts bounds the log messages of a shared upstream being delivered to
	// every client at once; logWriteTimeout bounds one delivery to one client.
	maxLogFanouts   = 32
	logWriteTimeout = 5 * time.Second
	// rootsTimeout bounds asking a client for its roots.
	rootsTimeout = 5 * time.Second
)

// gatewayImpl is how the gateway introduces itself to upstream servers.
var gatewayImpl = mcp.Implementation{Name: "wiremcp-gateway", Version: "0.1.0"}

// upstreamPart forwards a server to an upstream MCP server (a command over stdio or a
// URL over Streamable HTTP, falling back to HTTP+SSE). One supervised "shared"
// upstream session discovers what the upstream offers and, in shared mode, serves
// every client; in per-client mode each initialize-era client session gets an
// upstream session of its own, ended with it.
//
// Goroutines: the supervisor (started by start or, for a lazy part, by the first
// client) and one watcher per per-client upstream session; close cancels ctx and
// waits for all of them.
type upstreamPart struct {
	name      string
	server    *ServerConfig
	cfg       *MCPConfig
	dir       string
	perClient bool
	stderr    *lineRing
	errs      *lineRing
	logger    *slog.Logger
	reg       *registry
	srv       *mcp.Server
	updated   func(ctx context.Context, uri string) // resource updates, to every route

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	discoverMu sync.Mutex // one discovery at a time

	mu       sync.Mutex
	started  bool
	state    string
	detail   string
	restarts int
	shared   *upConn
	changed  chan struct{} // closed and replaced on every state change
	clients  map[*mcp.ServerSession]*clientSlot
	closed   bool
	tried    chan struct{} // closed after the first start attempt
	triedSet bool

	rediscoverQueued map[string]bool // kinds whose rediscovery waits to start

	redact      func(string) string // hides environment values in what is shown (nil: none)
	logSem      chan struct{}       // log fan-outs in flight (capacity maxLogFanouts)
	droppedLogs int
}

// clientSlot is a per-client upstream session, ready once ready is closed.
type clientSlot struct {
	ready chan struct{}
	uc    *upConn
	err   error
}

// upConn is one upstream session.
type upConn struct {
	p          *upstreamPart
	cs         *mcp.ClientSession
	client     *mcp.Client
	pid        int
	stderrDone chan struct{}      // closed when the child's stderr reader ended
	owner      *mcp.ServerSession // per-client: the client session it serves

	mu    sync.Mutex
	calls []*call // in flight, oldest first
}

// call is one client request being forwarded, so that what the upstream sends
// during it (elicitation, sampling, logs) reaches the right client request.
type call struct {
	ss       *mcp.ServerSession
	ctx      context.Context
	mu       sync.Mutex
	inputErr error // an input_required answer for a 2026-07-28 client
}

type callKey struct{}

func newUpstreamPart(name string, server *ServerConfig, dir string, logger *slog.Logger, srv *mcp.Server, errs *lineRing, updated func(context.Context, string)) *upstreamPart {
	cfg := server.MCP
	// An upstream session is stateful (log level, subscriptions, roots, where its
	// elicitation and sampling requests go): each client session gets its own unless
	// the configuration says the upstream is stateless.
	perClient := cfg.Sessions != "shared"
	up := &upstreamPart{
		name: name, server: server, cfg: cfg, dir: dir, perClient: perClient,
		stderr: newLineRing(stderrLines), errs: errs, logger: logger, srv: srv, updated: updated,
		state: "idle", changed: make(chan struct{}), clients: map[*mcp.ServerSession]*clientSlot{},
		tried: make(chan struct{}), logSem: make(chan struct{}, maxLogFanouts),
	}
	up.stderr.redact = errs.redact
	up.redact = errs.redact
	return up
}

func (p *upstreamPart) start(ctx context.Context, reg *registry) error {
	p.reg = reg
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if p.cfg.Start != "lazy" {
		p.ensureStarted()
	}
	return nil
}

// ensureStarted starts the supervisor once.
func (p *upstreamPart) ensureStarted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return
	}
	p.started = true
	p.wg.Add(1)
	go p.supervise()
}

func (p *upstreamPart) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

// waitFirstStart waits for the first start attempt of a part started at boot.
func (p *upstreamPart) waitFirstStart() {
	if p.cfg.Start == "lazy" {
		return
	}
	select {
	case <-p.tried:
	case <-time.After(dialTimeout + time.Second):
	}
}

func (p *upstreamPart) setState(state, detail string) {
	p.mu.Lock()
	p.setStateLocked(state, detail)
	p.mu.Unlock()
}

// setStateLocked is setState with p.mu held: with the changes that go with
// the state (the shared session, the restart count) in the same hold, so
// that status never sees one without the other.
func (p *upstreamPart) setStateLocked(state, detail string) {
	if p.redact != nil {
		detail = p.redact(detail)
	}
	if state != "starting" && !p.triedSet {
		p.triedSet = true
		close(p.tried)
	}
	p.state, p.detail = state, detail
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *upstreamPart) status() partStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	kind := "mcp command"
	if p.cfg.URL != "" {
		kind = "mcp url"
	}
	st := partStatus{Kind: kind, State: p.state, Detail: p.detail, Restarts: p.restarts, DroppedLogs: p.droppedLogs,
		Healthy: p.state == "ready" || (p.state == "idle" && p.cfg.Start == "lazy"), Sessions: len(p.clients)}
	if p.shared != nil {
		st.PID = p.shared.pid
	}
	if p.cfg.URL == "" {
		st.Stderr = p.stderr.Lines()
	}
	return st
}

// supervise keeps the shared upstream session up: start, discover, wait for it to
// end, back off, start again, until the part is closed.
func (p *upstreamPart) supervise() {
	defer p.wg.Done()
	backoff := backoffMin
	for p.ctx.Err() == nil {
		p.setState("starting", "")
		dctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
		uc, err := p.dial(dctx, nil, nil)
		if err == nil {
			err = p.discover(dctx, uc)
			if err != nil {
				uc.close()
			}
		}
		cancel()
		if err == nil {
			p.mu.Lock()
			p.shared = uc
			p.mu.Unlock()
			p.setState("ready", "")
			up := time.Now()
			select {
			case <-uc.cs.Done():
			case <-p.ctx.Done():
			}
			// Not ready from the moment the session is gone (status read
			// "ready" with no session and the restart counted before).
			p.mu.Lock()
			p.shared = nil
			p.setStateLocked("ended", "the upstream session ended")
			p.mu.Unlock()
			uc.close()
			if p.ctx.Err() != nil {
				break
			}
			err = errors.New("upstream session ended")
			if uc.pid > 0 {
				err = fmt.Errorf("child process %d exited", uc.pid)
			}
			if time.Since(up) > stableAfter {
				backoff = backoffMin
			}
		}
		if p.ctx.Err() != nil {
			break
		}
		msg := err.Error()
		if p.redact != nil {
			msg = p.redact(msg)
		}
		p.errs.Add(msg)
		p.logger.Warn("upstream down", "server", p.name, "err", msg, "retry", backoff)
		p.mu.Lock()
		p.restarts++
		p.setStateLocked("backoff", fmt.Sprintf("%v; retrying in %v", err, backoff))
		p.mu.Unlock()
		select {
		case <-time.After(backoff):
		case <-p.ctx.Done():
		}
		backoff = min(backoff*2, backoffMax)
	}
	p.setState("stopped", "")
}

// dial starts one upstream session (owner nil: the shared one).
// roots, when not nil, are the owner's roots, declared to the upstream.
func (p *upstreamPart) dial(ctx context.Context, owner *mcp.ServerSession, roots []*mcp.Root) (*upConn, error) {
	uc := &upConn{p: p, owner: owner}
	opts := &mcp.ClientOptions{
		Logger:                p.logger,
		ProtocolVersion:       firstNonEmpty(p.cfg.ProtocolVersion, mcp.Revision20251125),
		ElicitationHandler:    uc.elicit,
		ElicitationURL:        true,
		SamplingHandler:       uc.sample,
		LoggingMessageHandler: uc.log,
		ResourceUpdatedHandler: func(ctx context.Context, cs *mcp.ClientSession, prm *mcp.ResourceUpdatedParams) {
			p.updated(p.ctx, prm.URI)
		},
	}
	// A list change, on the shared session or on a client's own, is rediscovered
	// through the shared session (what the server offers is what that session
	// lists) and announced to the clients.
	opts.ToolListChangedHandler = func(context.Context, *mcp.ClientSession) { p.rediscover("tools") }
	opts.PromptListChangedHandler = func(context.Context, *mcp.ClientSession) { p.rediscover("prompts") }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ClientSession) { p.rediscover("resources") }
	var caps *mcp.ClientCapabilities
	if owner != nil {
		caps = owner.ClientCapabilities()
	}
	if caps != nil {
		// A client's own upstream session declares what the client declared (the
		// shared one, everything the gateway can route).
		if caps.Elicitation == nil {
			opts.ElicitationHandler, opts.ElicitationURL = nil, false
		}
		if caps.Sampling == nil {
			opts.SamplingHandler = nil
		}
		opts.Roots = roots
	}
	client := mcp.NewClient(gatewayImpl, opts)
	uc.client = client
	var t jsonrpc.Transport
	if len(p.cfg.Command) > 0 {
		argv := make([]string, len(p.cfg.Command))
		for i, a := range p.cfg.Command {
			argv[i] = expandEnv(a)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = processEnv(p.server.Env, p.cfg.Env)
		cmd.Dir = p.dir
		if p.cfg.Dir != "" {
			cmd.Dir = p.cfg.Dir
			if !filepath.IsAbs(cmd.Dir) {
				cmd.Dir = filepath.Join(p.dir, p.cfg.Dir)
			}
		}
		ownGroup(cmd)
		// The child's stderr is a pipe of our own, read into the ring by a goroutine
		// of this connection: os/exec then has nothing to copy, so the child's exit is
		// seen at once even when a grandchild still holds the pipe (until the group is
		// killed, which ends the reader).
		rp, wp, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = wp
		st, err := stdio.Command(cmd, &stdio.CommandOptions{GracePeriod: childGrace})
		wp.Close()
		if err != nil {
			rp.Close()
			return nil, fmt.Errorf("starting %s: %w", argv[0], err)
		}
		uc.pid = cmd.Process.Pid
		uc.stderrDone = make(chan struct{})
		go func() {
			defer close(uc.stderrDone)
			// A writer of its own (children share the ring, not their partial
			// lines) and a small buffer (io.Copy would take 32 KB for the child's
			// whole life, and each client session may have a child); the struct
			// hides the file's WriteTo, which would ignore the buffer.
			_, _ = io.CopyBuffer(p.stderr.writer(), struct{ io.Reader }{rp}, make([]byte, stderrBuf))
			rp.Close()
		}()
		t = st
	} else {
		h := http.Header{}
		for k, v := range p.cfg.Headers {
			h.Set(k, expandEnv(v))
		}
		at, err := streamable.NewAutoClient(expandEnv(p.cfg.URL), &streamable.ClientOptions{Header: h, Logger: p.logger})
		if err != nil {
			return nil, err
		}
		t = at
	}
	cs, err := client.Connect(ctx, t)
	if err != nil {
		t.Close()
		uc.stop()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	uc.cs = cs
	if caps := cs.ServerCapabilities(); caps != nil && caps.Logging != nil {
		// Ask for everything; each client's own level is applied by the gateway's
		// server when it forwards a message.
		_ = cs.SetLoggingLevel(ctx, mcp.LevelDebug)
	}
	return uc, nil
}

// close ends the upstream session: for a child, its stdin closes (then SIGTERM, then
// SIGKILL, see childGrace), and once it has exited whatever it left behind in its
// process group is killed.
func (uc *upConn) close() {
	if uc.cs != nil {
		uc.cs.Close()
	}
	uc.stop()
}

// stderrWait bounds the wait for a child's stderr reader after its group was killed.
const stderrWait = time.Second

func (uc *upConn) stop() {
	killGroup(uc.pid)
	if uc.stderrDone != nil {
		select {
		case <-uc.stderrDone:
		case <-time.After(stderrWait):
			// A process that left the group (setsid) still holds the pipe; the
			// reader ends when it exits.
		}
	}
}

// discover lists what the upstream offers and registers it.
func (p *upstreamPart) discover(ctx context.Context, uc *upConn) error {
	p.discoverMu.Lock()
	defer p.discoverMu.Unlock()
	caps := uc.cs.ServerCapabilities()
	e := &entries{}
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	if caps.Tools != nil {
		for t, err := range uc.cs.Tools(ctx) {
			if err != nil {
				return fmt.Errorf("tools/list: %w", err)
			}
			tool := *t
			// A tool's task support is offered as the upstream declares it: the
			// gateway's server runs the task (its tasks/get, tasks/result, tasks/cancel)
			// and its handler calls the upstream, as a task of the upstream's when the
			// upstream requires one.
			asTask := t.Execution != nil && t.Execution.TaskSupport == "required"
			e.Tools = append(e.Tools, &toolEntry{Tool: &tool, Handler: p.toolHandler(t.Name, asTask)})
		}
	}
	if caps.Resources != nil {
		for r, err := range uc.cs.Resources(ctx) {
			if err != nil {
				return fmt.Errorf("resources/list: %w", err)
			}
			e.Resources = append(e.Resources, &resourceEntry{Resource: r, Handler: p.readHandler})
		}
		for rt, err := range uc.cs.ResourceTemplates(ctx) {
			if err != nil {
				return fmt.Errorf("resources/templates/list: %w", err)
			}
			e.Resources = append(e.Resources, &resourceEntry{Template: rt, Handler: p.readHandler})
		}
	}
	if caps.Prompts != nil {
		for pr, err := range uc.cs.Prompts(ctx) {
			if err != nil {
				return fmt.Errorf("prompts/list: %w", err)
			}
			e.Prompts = append(e.Prompts, &promptEntry{Prompt: pr, Handler: p.promptHandler(pr.Name)})
		}
	}
	p.reg.set("mcp", e)
	return nil
}

// rediscover runs discovery again after a list_changed, off the notification's
// goroutine (the lists are requests on the same session).
//
// Rediscoveries of a kind coalesce: while one is waiting to start, another
// notification of that kind adds nothing (an upstream that announces a change on
// each of its per-client sessions causes one or two rediscoveries, not one each).
func (p *upstreamPart) rediscover(kind string) {
	p.mu.Lock()
	uc := p.shared
	closed := p.closed
	queued := p.rediscoverQueued[kind]
	if !closed && !queued {
		p.wg.Add(1)
		if p.rediscoverQueued == nil {
			p.rediscoverQueued = map[string]bool{}
		}
		p.rediscoverQueued[kind] = true
	}
	p.mu.Unlock()
	if closed || queued {
		return
	}
	go func() {
		defer p.wg.Done()
		dequeue := func() {
			p.mu.Lock()
			delete(p.rediscoverQueued, kind)
			p.mu.Unlock()
		}
		ctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
		defer cancel()
		// The notification may come while the session is being discovered: wait
		// until it is in use (that discovery may have missed the change), or give up
		// when it does not get there.
		for uc == nil {
			p.mu.Lock()
			shared, state, ch := p.shared, p.state, p.changed
			p.mu.Unlock()
			if shared != nil {
				uc = shared
				break
			}
			if state != "starting" {
				dequeue()
				return
			}
			select {
			case <-ch:
			case <-ctx.Done():
				dequeue()
				return
			}
		}
		// A change announced from now on needs a discovery after this one.
		dequeue()
		if err := p.discover(ctx, uc); err != nil && p.ctx.Err() == nil {
			p.errs.Add("rediscovery: " + err.Error())
			return
		}
		// The upstream said the list changed: its clients hear so even when the
		// new list looks the same (a tool registered again, say).
		p.reg.touch(kind)
	}()
}

// connFor returns the upstream session that serves ss.
func (p *upstreamPart) connFor(ctx context.Context, ss *mcp.ServerSession) (*upConn, error) {
	if !p.perClient || ss == nil || ss.ID() == "" && ss.ProtocolVersionFor(ctx) == "2026-07-28" {
		return p.sharedConn(ctx)
	}
	p.mu.Lock()
	slot := p.clients[ss]
	if slot == nil {
		if p.closed {
			p.mu.Unlock()
			return nil, errors.New("server is shutting down")
		}
		if max := p.maxClients(); len(p.clients) >= max {
			p.mu.Unlock()
			return nil, fmt.Errorf("too many client sessions: each of the %d allowed (maxSessions %d) has an upstream session of its own; try again when one ends", max, max)
		}
		slot = &clientSlot{ready: make(chan struct{})}
		p.clients[ss] = slot
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serveClient(ctx, ss, slot)
	} else {
		p.mu.Unlock()
	}
	select {
	case <-slot.ready:
		return slot.uc, slot.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxClients is the cap on per-client upstream sessions.
func (p *upstreamPart) maxClients() int {
	if p.cfg.MaxSessions > 0 {
		return p.cfg.MaxSessions
	}
	return defaultMaxClientUpstreams
}

// serveClient dials ss's own upstream session and closes it when either side ends.
//
// reqCtx is the context of the client request that needs the session: the client's
// roots are asked for on its stream.
func (p *upstreamPart) serveClient(reqCtx context.Context, ss *mcp.ServerSession, slot *clientSlot) {
	defer p.wg.Done()
	var roots []*mcp.Root
	if caps := ss.ClientCapabilities(); caps != nil && caps.Roots != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), rootsTimeout)
		if res, err := ss.ListRoots(rctx); err == nil {
			roots = res.Roots
		} else {
			p.errs.Add("roots/list of a client: " + err.Error())
		}
		cancel()
		if roots == nil {
			roots = []*mcp.Root{}
		}
	}
	dctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	uc, err := p.dial(dctx, ss, roots)
	cancel()
	slot.uc, slot.err = uc, err
	close(slot.ready)
	if err != nil {
		p.errs.Add("client session upstream: " + err.Error())
		p.mu.Lock()
		delete(p.clients, ss)
		p.mu.Unlock()
		return
	}
	select {
	case <-ss.Done():
	case <-uc.cs.Done():
	case <-p.ctx.Done():
	}
	p.mu.Lock()
	delete(p.clients, ss)
	p.mu.Unlock()
	uc.close()
}

// sharedConn returns the shared upstream session, waiting while it starts; it fails
// at once while the upstream is down and backing off.
func (p *upstreamPart) sharedConn(ctx context.Context) (*upConn, error) {
	p.ensureStarted()
	for {
		p.mu.Lock()
		uc, state, detail, ch := p.shared, p.state, p.detail, p.changed
		p.mu.Unlock()
		if uc != nil {
			return uc, nil
		}
		switch state {
		case "backoff", "stopped":
			return nil, fmt.Errorf("upstream is down (%s)", firstNonEmpty(detail, state))
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("upstream not ready: %w", ctx.Err())
		}
	}
}
