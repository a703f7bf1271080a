package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp/internal/uritemplate"
)

// ServerOptions configures a Server. A nil *ServerOptions means all defaults; the
// struct is copied by NewServer.
type ServerOptions struct {
	// Instructions is sent in the initialize result (empty: omitted).
	Instructions string
	// Logger receives the library's diagnostics. Nil discards them.
	Logger *slog.Logger
	// PageSize is how many items a list page holds. Zero means 100.
	PageSize int
	// ListResourcesByURI lists resources in byte order of their URIs instead of
	// registration order, and makes a resources/list cursor name the last URI
	// sent. The next page then starts after that URI on any server holding the
	// resources: replicas serving the same resources continue each other's
	// listings, and resources added or removed between two pages (a server rebuilt
	// with another set) neither repeat nor hide the others. With registration order
	// (the default) a cursor is a place in one server's registrations.
	ListResourcesByURI bool
	// Capabilities declares features before anything is registered for them (for a
	// server that registers tools later, say). Nil declares exactly what is
	// registered when a client initializes. To an initialize-era client on a
	// connection of a stateless transport (one request long), listChanged and
	// subscribe are never declared: nothing could be sent to it later.
	Capabilities *ServerCapabilities
	// InvalidArgumentsHandler, if set, shapes the isError result of a tools/call
	// whose arguments the library refused before the tool ran: they do not match
	// the tool's inputSchema, or (AddTool) do not decode into its input type. err is
	// an *InvalidArgumentsError. A nil result, or no handler, gives the default: one
	// text block saying which tool and what is wrong. Use it to give such failures
	// the same shape as the tool's own errors (structured content, a hint).
	InvalidArgumentsHandler func(ctx context.Context, req *CallToolRequest, err *InvalidArgumentsError) *CallToolResult
	// CompletionHandler answers completion/complete. Nil: the completions capability is
	// not declared and the method answers -32601.
	CompletionHandler func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)
	// InitializedHandler, if set, runs when a client's notifications/initialized
	// arrives.
	InitializedHandler func(ctx context.Context, ss *ServerSession)
	// RootsListChangedHandler, if set, runs when the client says its roots changed.
	RootsListChangedHandler func(ctx context.Context, ss *ServerSession)
	// SubscribeHandler, if set, is told of every resources/subscribe, and of each
	// resource subscription of a 2026-07-28 subscriptions/listen request; returning
	// an error refuses the subscription (a refused listen subscription is left out
	// of the acknowledgement). An error wrapping ErrResourceNotFound is answered
	// as resources/read answers it: the revision's resource-not-found error, its
	// text after "resource not found: " in the data.
	SubscribeHandler func(ctx context.Context, ss *ServerSession, uri string) error
	// DisableLogging stops the server declaring the logging capability; Log then
	// sends nothing.
	DisableLogging bool
	// ListChangedDelay is how long list-changed notifications are held so that a
	// burst of registrations produces one notification. Zero means 10ms.
	ListChangedDelay time.Duration
	// CacheTTL is the ttlMs sent on cacheable 2026-07-28 results (server/discover,
	// the lists, resources/read). Zero: results are stale at once.
	CacheTTL time.Duration
	// CacheScope is the cacheScope of those results: "public" when they hold nothing
	// user-specific, "private" (the default) otherwise.
	CacheScope string
	// Tasks, when set, lets tool calls run as tasks (see TaskOptions and the tools'
	// Execution.TaskSupport) and declares it: capabilities.tasks under 2025-11-25,
	// the io.modelcontextprotocol/tasks extension under 2026-07-28. Nil: no tasks.
	Tasks *TaskOptions
	// MaxQueuedNotifications bounds, per session, the notifications related to no
	// request (list changes, resource updates, subscriptions/listen deliveries) that
	// wait to be written. They are written by a goroutine of the session, so the
	// code that causes them (a registration, ResourceUpdated) never waits for a
	// client; when a session that does not keep up has this many waiting, further
	// ones for it are dropped, logged and counted (ServerSession.DroppedNotifications),
	// and the session's standalone stream, where its transport has one (Streamable
	// HTTP's GET stream; HTTP+SSE's one stream, and with it the connection), is ended
	// once per overflow so that the client learns it missed some. Zero means 1024.
	MaxQueuedNotifications int
}

// Server is an MCP server: a set of tools, resources and prompts, served to any number
// of sessions over any transports. Its methods are safe for concurrent use;
// registrations may change while sessions are running, and clients are told.
type Server struct {
	impl Implementation
	opts ServerOptions
	log  *slog.Logger

	mu        sync.Mutex
	tools     map[string]*serverTool
	resources map[string]*serverResource
	templates map[string]*serverTemplate
	prompts   map[string]*serverPrompt
	sessions  map[*ServerSession]struct{}
	// sorted views, rebuilt lazily after a change
	toolList     []*serverTool
	resourceList []*serverResource
	resourceURIs []*serverResource // resourceList in URI order (ListResourcesByURI)
	templateList []*serverTemplate
	promptList   []*serverPrompt

	changed  changeSet
	regSeq   uint64 // last registration sequence number
	flushing *time.Timer

	listeners map[*listener]struct{} // open subscriptions/listen requests (2026-07-28)
	stateKey  [32]byte               // HMAC key of requestState (2026-07-28)
	infoOnce  sync.Once
	infoJSON  json.RawMessage // impl as JSON, for 2026-07-28 result _meta
	tasks     *taskStore      // nil without ServerOptions.Tasks
	maxQueued int             // MaxQueuedNotifications, defaulted
}

type changeSet struct{ tools, resources, prompts bool }

type serverTool struct {
	seq     uint64 // registration order; kept when the tool is replaced
	tool    *Tool
	handler ToolHandler
	in, out *compiledSchema // nil when not validated
	headers []paramHeader   // x-mcp-header arguments (2026-07-28 HTTP)
}

type serverResource struct {
	seq     uint64
	res     *Resource
	handler ResourceHandler
}

type serverTemplate struct {
	seq     uint64
	tmpl    *ResourceTemplate
	parsed  *uritemplate.Template
	handler ResourceHandler
}

type serverPrompt struct {
	seq     uint64
	prompt  *Prompt
	handler PromptHandler
}

// NewServer returns a server that identifies itself as impl.
func NewServer(impl Implementation, opts *ServerOptions) *Server {
	s := &Server{
		impl:      impl,
		tools:     map[string]*serverTool{},
		resources: map[string]*serverResource{},
		templates: map[string]*serverTemplate{},
		prompts:   map[string]*serverPrompt{},
		sessions:  map[*ServerSession]struct{}{},
		listeners: map[*listener]struct{}{},
	}
	if _, err := rand.Read(s.stateKey[:]); err != nil {
		panic("mcp: crypto/rand: " + err.Error())
	}
	if opts != nil {
		s.opts = *opts
	}
	s.maxQueued = s.opts.MaxQueuedNotifications
	if s.maxQueued <= 0 {
		s.maxQueued = defaultMaxQueued
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.ListChangedDelay <= 0 {
		s.opts.ListChangedDelay = 10 * time.Millisecond
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.opts.Tasks != nil {
		s.tasks = newTaskStore(s, *s.opts.Tasks)
	}
	return s
}

// Close stops the server's background work: running tasks are cancelled, their
// handlers are waited for, and the task janitor stops; no task can be created
// afterwards. It does not end sessions (close them, or their transports, for that).
// It is safe to call more than once.
func (s *Server) Close() error {
	if s.tasks != nil {
		s.tasks.close()
	}
	return nil
}

// ToolHandler runs a tool. A returned error becomes an isError result carrying the
// error's text, unless it is (or wraps) a *jsonrpc.Error, which is sent as a protocol
// error.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// CallToolRequest is what a tool handler receives.
type CallToolRequest struct {
	Session *ServerSession
	Params  *CallToolParams
}

// AddTool registers (or replaces) a tool with a raw handler. t.InputSchema is
// required and must be a valid JSON Schema object with "type":"object"; arguments are
// validated against it before h runs, and structured output against t.OutputSchema
// when set. It panics when a schema does not compile (a programmer error).
func (s *Server) AddTool(t *Tool, h ToolHandler) {
	if t == nil || t.Name == "" || h == nil {
		panic("mcp: AddTool needs a named tool and a handler")
	}
	if len(t.InputSchema) == 0 {
		panic(fmt.Sprintf("mcp: tool %q has no input schema", t.Name))
	}
	in, err := compileToolSchema(t.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %q: input schema: %v", t.Name, err))
	}
	st := &serverTool{tool: t, handler: h, in: in}
	if len(t.OutputSchema) > 0 {
		if st.out, err = compileToolSchema(t.OutputSchema); err != nil {
			panic(fmt.Sprintf("mcp: tool %q: output schema: %v", t.Name, err))
		}
	}
	s.addTool(st)
}

func (s *Server) addTool(st *serverTool) {
	st.headers = collectParamHeaders(st.tool.InputSchema)
	s.mu.Lock()
	st.seq = s.nextSeq(s.tools[st.tool.Name])
	s.tools[st.tool.Name] = st
	s.toolList = nil
	s.markChanged(func(c *changeSet) { c.tools = true })
	s.mu.Unlock()
}

// RemoveTools unregisters tools by name. Unknown names are ignored.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if _, ok := s.tools[n]; ok {
			delete(s.tools, n)
			s.toolList = nil
			s.markChanged(func(c *changeSet) { c.tools = true })
		}
	}
}

// ResourceHandler reads a resource. Return ErrResourceNotFound (possibly wrapped) for
// an unknown URI.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// ReadResourceRequest is what a resource handler receives. Vars holds the values a
// template matched (nil for a plain resource).
type ReadResourceRequest struct {
	Session *ServerSession
	Params  *ReadResourceParams
	Vars    map[string]string
}

// AddResource registers (or replaces) a resource with a fixed URI.
func (s *Server) AddResource(r *Resource, h ResourceHandler) {
	if r == nil || r.URI == "" || h == nil {
		panic("mcp: AddResource needs a resource with a URI and a handler")
	}
	s.mu.Lock()
	s.resources[r.URI] = &serverResource{seq: s.nextSeq(s.resources[r.URI]), res: r, handler: h}
	s.resourceList, s.resourceURIs = nil, nil
	s.markChanged(func(c *changeSet) { c.resources = true })
	s.mu.Unlock()
}

// AddResourceTemplate registers (or replaces) a resource template. Reads of URIs that
// match no fixed resource are matched against templates in registration order.
// It panics when the template does not parse.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) {
	if t == nil || t.URITemplate == "" || h == nil {
		panic("mcp: AddResourceTemplate needs a template and a handler")
	}
	p, err := uritemplate.Parse(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("mcp: resource template %q: %v", t.URITemplate, err))
	}
	s.mu.Lock()
	s.templates[t.URITemplate] = &serverTemplate{seq: s.nextSeq(s.templates[t.URITemplate]), tmpl: t, parsed: p, handler: h}
	s.templateList = nil
	s.markChanged(func(c *changeSet) { c.resources = true })
	s.mu.Unlock()
}

// RemoveResources unregisters resources and templates by URI or URI template.
func (s *Server) RemoveResources(uris ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range uris {
		_, r := s.resources[u]
		_, t := s.templates[u]
		if r || t {
			delete(s.resources, u)
			delete(s.templates, u)
			s.resourceList, s.resourceURIs, s.templateList = nil, nil, nil
			s.markChanged(func(c *changeSet) { c.resources = true })
		}
	}
}

// PromptHandler renders a prompt. Required arguments are checked before it runs.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

// GetPromptRequest is what a prompt handler receives.
type GetPromptRequest struct {
	Session *ServerSession
	Params  *GetPromptParams
}

// AddPrompt registers (or replaces) a prompt.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) {
	if p == nil || p.Name == "" || h == nil {
		panic("mcp: AddPrompt needs a named prompt and a handler")
	}
	s.mu.Lock()
	s.prompts[p.Name] = &serverPrompt{seq: s.nextSeq(s.prompts[p.Name]), prompt: p, handler: h}
	s.promptList = nil
	s.markChanged(func(c *changeSet) { c.prompts = true })
	s.mu.Unlock()
}

// RemovePrompts unregisters prompts by name.
func (s *Server) RemovePrompts(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if _, ok := s.prompts[n]; ok {
			delete(s.prompts, n)
			s.promptList = nil
			s.markChanged(func(c *changeSet) { c.prompts = true })
		}
	}
}

// CompleteRequest is what the completion handler receives.
type CompleteRequest struct {
	Session *ServerSession
	Params  *CompleteParams
}

// markChanged records a registry change and schedules one coalesced notification.
// s.mu is held.
func (s *Server) markChanged(f func(*changeSet)) {
	if len(s.sessions) == 0 && len(s.listeners) == 0 {
		return // nobody to tell
	}
	f(&s.changed)
	if s.flushing == nil && (len(s.sessions) > 0 || len(s.listeners) > 0) {
		s.flushing = time.AfterFunc(s.opts.ListChangedDelay, s.flushChanges)
	}
}

func (s *Server) flushChanges() {
	s.mu.Lock()
	c := s.changed
	s.changed = changeSet{}
	s.flushing = nil
	sessions := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.notifyListChanged(c)
	}
	s.notifyListeners(c)
}

// capabilities is what the server declares to a client of revision rev.
func (s *Server) capabilities(rev *revision) *ServerCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	caps := &ServerCapabilities{}
	if o := s.opts.Capabilities; o != nil {
		c := *o
		caps = &c
	}
	if len(s.tools) > 0 && caps.Tools == nil {
		caps.Tools = &ListChangedCapability{ListChanged: true}
	}
	if (len(s.resources) > 0 || len(s.templates) > 0) && caps.Resources == nil {
		caps.Resources = &ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	if len(s.prompts) > 0 && caps.Prompts == nil {
		caps.Prompts = &ListChangedCapability{ListChanged: true}
	}
	if !s.opts.DisableLogging && caps.Logging == nil {
		caps.Logging = &struct{}{}
	}
	if s.opts.CompletionHandler != nil && caps.Completions == nil && rev.completionsCap {
		caps.Completions = &struct{}{}
	}
	if !rev.completionsCap {
		caps.Completions = nil
	}
	if s.tasks != nil {
		if rev.tasks && caps.Tasks == nil {
			caps.Tasks = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
		}
		if rev.stateless {
			ext := make(map[string]any, len(caps.Extensions)+1)
			maps.Copy(ext, caps.Extensions)
			ext[ExtensionTasks] = map[string]any{}
			caps.Extensions = ext
		}
	}
	if !rev.tasks {
		caps.Tasks = nil
	}
	return caps
}

// sortedBySeq returns the values of m in registration order, cached in *cache until
// a registration change clears it. s.mu is held.
func sortedBySeq[T seqHolder](cache *[]T, m map[string]T) []T {
	return sortedView(cache, m, func(a, b T) int { return cmpSeq(a.seqNum(), b.seqNum()) })
}

// sortedView returns *cache, first building it from m's values in cmp order when
// a change emptied it.
func sortedView[T any](cache *[]T, m map[string]T, cmp func(a, b T) int) []T {
	if *cache == nil {
		list := make([]T, 0, len(m))
		for _, v := range m {
			list = append(list, v)
		}
		slices.SortFunc(list, cmp)
		*cache = list
	}
	return *cache
}

// sortedTools returns the tools in registration order (a replaced tool keeps its
// place). s.mu must not be held; so for the others.
func (s *Server) sortedTools() []*serverTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedBySeq(&s.toolList, s.tools)
}

func (s *Server) sortedResources() []*serverResource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedBySeq(&s.resourceList, s.resources)
}

// resourcesByURI returns the resources in byte order of their URIs.
func (s *Server) resourcesByURI() []*serverResource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedView(&s.resourceURIs, s.resources, func(a, b *serverResource) int { return cmpString(a.res.URI, b.res.URI) })
}

func (s *Server) sortedTemplates() []*serverTemplate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedBySeq(&s.templateList, s.templates)
}

func (s *Server) sortedPrompts() []*serverPrompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedBySeq(&s.promptList, s.prompts)
}

// seqHolder is a registered item with a registration sequence number.
type seqHolder interface{ seqNum() uint64 }

func (t *serverTool) seqNum() uint64     { return t.seq }
func (r *serverResource) seqNum() uint64 { return r.seq }
func (t *serverTemplate) seqNum() uint64 { return t.seq }
func (p *serverPrompt) seqNum() uint64   { return p.seq }

// nextSeq returns the sequence number of a registration: a replaced item keeps its
// place in the lists, a new one goes last. s.mu is held.
func (s *Server) nextSeq(old seqHolder) uint64 {
	if old != nil && !reflect.ValueOf(old).IsNil() {
		return old.seqNum()
	}
	s.regSeq++
	return s.regSeq
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// seqKey is a cursor key that sorts like the sequence number.
func seqKey(n uint64) string { return fmt.Sprintf("%016x", n) }

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Connect starts serving one client over t and returns its session at once; the
// handshake happens as the client's messages arrive. The session ends when the
// transport ends or Close is called. ctx is the parent of the contexts of the
// client's calls: its values reach the handlers and its end cancels the calls in
// progress — pass the context a transport gives its connection (for Streamable
// HTTP, the request's: a stateless POST's client going away then cancels its
// call). Server-initiated messages sent outside any request keep ctx's values,
// not its cancellation.
func (s *Server) Connect(ctx context.Context, t jsonrpc.Transport) (*ServerSession, error) {
	ss := newServerSession(ctx, s, t)
	return ss, nil
}

// Run serves one client over t until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t jsonrpc.Transport) error {
	ss, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	select {
	case <-ss.conn.Done():
	case <-ctx.Done():
		ss.Close()
		return ctx.Err()
	}
	if err := ss.conn.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// Sessions returns the sessions currently connected.
func (s *Server) Sessions() []*ServerSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// ResourceUpdated tells every session subscribed to uri (or to a URI that uri is a
// sub-resource of, by path prefix) that it changed. It does not wait for clients:
// the notifications are queued per session (see MaxQueuedNotifications), except the
// one for the session whose handler ctx belongs to, which is sent with that request.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	own := requestInfoFrom(ctx)
	for _, ss := range s.Sessions() {
		if ss.subscribed(uri) {
			if own != nil && own.ss == ss {
				// Called from a handler of this session: its own client is told
				// with that request (on its stream, before its response), as any
				// message the handler sends.
				if err := ss.conn.Notify(ctx, "notifications/resources/updated", &ResourceUpdatedParams{URI: uri}); err != nil {
					s.log.Debug("resource updated notification failed", "uri", uri, "err", err)
				}
				continue
			}
			// Anyone else's through the session's queue: never waits for a client.
			if err := ss.notify(ctx, "notifications/resources/updated", &ResourceUpdatedParams{URI: uri}); err != nil {
				s.log.Debug("resource updated notification failed", "uri", uri, "err", err)
			}
		}
	}
	s.notifyResourceListeners(uri)
}

// rawJSON marshals v, for params built by the library.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcp: marshal %T: %v", v, err))
	}
	return b
}
