package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// ClientOptions configures a Client. A nil *ClientOptions means all defaults; the
// struct is copied by NewClient. Capabilities are declared from the handlers set.
type ClientOptions struct {
	// Logger receives the library's diagnostics. Nil discards them.
	Logger *slog.Logger
	// ProtocolVersion picks the revision. Empty (the default) probes: Connect sends
	// server/discover as a 2026-07-28 request and, when the server does not answer it
	// the modern way, falls back to initialize with LatestInitializeRevision.
	// "2026-07-28" requires a modern server; an initialize-era revision skips the
	// probe and is the one requested in initialize.
	ProtocolVersion string
	// ProbeTimeout bounds the wait for the server/discover probe (a legacy server may
	// never answer a request sent before initialize). Zero means 5 seconds.
	ProbeTimeout time.Duration
	// ElicitationHandler answers elicitation/create; setting it declares the
	// elicitation capability (form mode, plus URL mode when ElicitationURL is set).
	ElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	// ElicitationURL declares URL-mode elicitation support (2025-11-25+).
	ElicitationURL bool
	// ElicitationFormDisabled leaves form mode undeclared (with ElicitationURL set).
	ElicitationFormDisabled bool
	// SamplingHandler answers sampling/createMessage; setting it declares sampling.
	SamplingHandler func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error)
	// SamplingTools declares sampling.tools (tool use inside sampling).
	SamplingTools bool
	// Roots, when non-nil, declares the roots capability (with listChanged) and is what
	// roots/list answers until SetRoots changes it.
	Roots []*Root
	// LoggingMessageHandler receives notifications/message. It runs in order with the
	// session's other notifications and must return promptly without making calls
	// on the session: the notifications behind it wait, and once 1024 wait the
	// session stops reading from the server until it returns. (The other handlers
	// below run concurrently and may make calls.)
	LoggingMessageHandler func(ctx context.Context, cs *ClientSession, p *LoggingMessageParams)
	// ProgressHandler receives progress notifications whose token was not set up with
	// WithProgress. Like LoggingMessageHandler (and the WithProgress functions), it
	// runs in order and must return promptly without making calls on the session.
	ProgressHandler func(ctx context.Context, cs *ClientSession, p *ProgressNotificationParams)
	// ToolListChangedHandler, PromptListChangedHandler and ResourceListChangedHandler
	// receive the list-changed notifications.
	ToolListChangedHandler     func(ctx context.Context, cs *ClientSession)
	PromptListChangedHandler   func(ctx context.Context, cs *ClientSession)
	ResourceListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ResourceUpdatedHandler receives notifications/resources/updated.
	ResourceUpdatedHandler func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams)
	// ElicitationCompleteHandler receives notifications/elicitation/complete.
	ElicitationCompleteHandler func(ctx context.Context, cs *ClientSession, elicitationID string)
	// Capabilities adds declarations (experimental, extensions) to the derived ones.
	// Do not declare the tasks extension here: CallToolAsTask declares it on the
	// requests that accept a task.
	Capabilities *ClientCapabilities
	// TaskStatusHandler receives task status notifications
	// (notifications/tasks/status of 2025-11-25, notifications/tasks of 2026-07-28).
	// Servers need not send them: never depend on them; poll with GetTask or
	// WaitTask.
	TaskStatusHandler func(ctx context.Context, cs *ClientSession, t *Task)
}

// ElicitRequest is what the elicitation handler receives.
type ElicitRequest struct {
	Session *ClientSession
	Params  *ElicitParams
}

// CreateMessageRequest is what the sampling handler receives.
type CreateMessageRequest struct {
	Session *ClientSession
	Params  *CreateMessageParams
}

// Client is an MCP client: an identity and the handlers it offers to servers. One
// Client may hold sessions with many servers.
type Client struct {
	impl Implementation
	opts ClientOptions
	log  *slog.Logger

	mu       sync.Mutex
	roots    []*Root
	sessions map[*ClientSession]struct{}
}

// NewClient returns a client that identifies itself as impl.
func NewClient(impl Implementation, opts *ClientOptions) *Client {
	c := &Client{impl: impl, sessions: map[*ClientSession]struct{}{}}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = 5 * time.Second
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c.roots = slices.Clone(c.opts.Roots)
	return c
}

func (c *Client) capabilities() *ClientCapabilities {
	caps := &ClientCapabilities{}
	if o := c.opts.Capabilities; o != nil {
		cp := *o
		caps = &cp
	}
	if c.opts.ElicitationHandler != nil {
		caps.Elicitation = &ElicitationCapability{}
		if !c.opts.ElicitationFormDisabled {
			caps.Elicitation.Form = &struct{}{}
		}
		if c.opts.ElicitationURL {
			caps.Elicitation.URL = &struct{}{}
		}
	}
	if c.opts.SamplingHandler != nil {
		caps.Sampling = &SamplingCapability{}
		if c.opts.SamplingTools {
			caps.Sampling.Tools = &struct{}{}
		}
	}
	if c.opts.Roots != nil {
		caps.Roots = &RootsCapability{ListChanged: true}
	}
	return caps
}

// SetRoots replaces the roots and tells every connected server that they changed.
func (c *Client) SetRoots(ctx context.Context, roots []*Root) {
	c.mu.Lock()
	c.roots = slices.Clone(roots)
	sessions := make([]*ClientSession, 0, len(c.sessions))
	for cs := range c.sessions {
		sessions = append(sessions, cs)
	}
	c.mu.Unlock()
	if c.opts.Roots == nil {
		return
	}
	for _, cs := range sessions {
		if cs.modern == nil { // 2026-07-28 has no roots notification: roots travel per request
			_ = cs.conn.Notify(ctx, "notifications/roots/list_changed", nil)
		}
	}
}

// ClientSession is a client's connection to one server. Its methods are safe for
// concurrent use.
type ClientSession struct {
	client *Client
	conn   *jsonrpc.Conn
	rev    *revision
	init   InitializeResult

	progressSeq atomic.Int64
	modern      *modernClient // set when the session speaks 2026-07-28
	mu          sync.Mutex
	progress    map[string]func(*ProgressNotificationParams)
	outSchemas  map[string]*compiledSchema // tool name → compiled outputSchema
	toolHeads   map[string][]paramHeader   // tool name → x-mcp-header arguments (2026-07-28)
	taskSupport map[string]string          // tool name → execution.taskSupport, as listed
}

// Connect performs the initialize handshake over t and returns the session. It fails
// when the server answers with a revision this package does not speak.
func (c *Client) Connect(ctx context.Context, t jsonrpc.Transport) (*ClientSession, error) {
	cs := &ClientSession{client: c, progress: map[string]func(*ProgressNotificationParams){}, outSchemas: map[string]*compiledSchema{},
		taskSupport: map[string]string{}}
	// The server bounds what it queues for a session and tells a session it drops
	// notifications for (its stream ends); what reaches the client is never dropped
	// here. When jsonrpc.DefaultMaxQueuedNotifications wait for their handlers to
	// start (a burst read while the handlers' goroutine was not scheduled), the
	// client stops reading until one starts, and the server's bound applies.
	cs.conn = jsonrpc.NewConn(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(cs.handle), Logger: c.log, WaitWhenQueueFull: true})
	want := c.opts.ProtocolVersion
	if want == "" || lookupRevision(want) != nil && lookupRevision(want).stateless {
		ok, err := cs.probeModern(ctx, want)
		if err != nil {
			cs.conn.Close()
			return nil, err
		}
		if ok {
			c.track(cs)
			return cs, nil
		}
		want = LatestInitializeRevision
	}
	params := &InitializeParams{
		ProtocolVersion: want,
		Capabilities:    c.capabilities(),
		ClientInfo:      &c.impl,
	}
	if err := cs.conn.Call(ctx, "initialize", params, &cs.init); err != nil {
		cs.conn.Close()
		return nil, fmt.Errorf("mcp: initialize: %w", err)
	}
	rev := lookupRevision(cs.init.ProtocolVersion)
	if rev == nil || rev.stateless {
		cs.conn.Close()
		return nil, fmt.Errorf("mcp: server chose protocol revision %q, which this client does not speak", cs.init.ProtocolVersion)
	}
	cs.rev = rev
	if cs.init.Capabilities == nil {
		cs.init.Capabilities = &ServerCapabilities{}
	}
	if err := cs.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		cs.conn.Close()
		return nil, fmt.Errorf("mcp: initialized: %w", err)
	}
	c.track(cs)
	return cs, nil
}

func (c *Client) track(cs *ClientSession) {
	c.mu.Lock()
	c.sessions[cs] = struct{}{}
	c.mu.Unlock()
	go func() {
		<-cs.conn.Done()
		c.mu.Lock()
		delete(c.sessions, cs)
		c.mu.Unlock()
	}()
}

// InitializeResult returns the server's answer to initialize.
func (cs *ClientSession) InitializeResult() *InitializeResult { return &cs.init }

// ProtocolVersion returns the negotiated revision.
func (cs *ClientSession) ProtocolVersion() string { return cs.rev.name }

// ServerCapabilities returns what the server declared.
func (cs *ClientSession) ServerCapabilities() *ServerCapabilities { return cs.init.Capabilities }

// Close ends the session and its transport.
func (cs *ClientSession) Close() error { return cs.conn.Close() }

// Wait blocks until the session has ended.
func (cs *ClientSession) Wait() { <-cs.conn.Done() }

// Done is closed when the session has ended.
func (cs *ClientSession) Done() <-chan struct{} { return cs.conn.Done() }

type progressKey struct{}

// WithProgress returns a context whose requests ask for progress: the client attaches
// a fresh progressToken to the request made with it and calls fn for every progress
// notification about that request.
func WithProgress(ctx context.Context, fn func(*ProgressNotificationParams)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// metaCarrier is implemented by params that carry _meta.
type metaCarrier interface{ metaPtr() *Meta }

func (p *CallToolParams) metaPtr() *Meta     { return &p.Meta }
func (p *ReadResourceParams) metaPtr() *Meta { return &p.Meta }
func (p *GetPromptParams) metaPtr() *Meta    { return &p.Meta }
func (p *PaginatedParams) metaPtr() *Meta    { return &p.Meta }
func (p *CompleteParams) metaPtr() *Meta     { return &p.Meta }
func (p *SubscribeParams) metaPtr() *Meta    { return &p.Meta }

// call makes a request, wiring up progress and cancellation.
func (cs *ClientSession) call(ctx context.Context, method string, params, result any) error {
	if fn, ok := ctx.Value(progressKey{}).(func(*ProgressNotificationParams)); ok && fn != nil {
		if mc, ok := params.(metaCarrier); ok {
			token := "wiremcp-" + strconv.FormatInt(cs.progressSeq.Add(1), 10)
			m := mc.metaPtr()
			nm := Meta{}
			for k, v := range *m {
				nm[k] = v
			}
			nm["progressToken"] = token
			*m = nm
			key := strconv.Quote(token)
			cs.mu.Lock()
			cs.progress[key] = fn
			cs.mu.Unlock()
			defer func() {
				cs.mu.Lock()
				delete(cs.progress, key)
				cs.mu.Unlock()
			}()
		}
	}
	if cs.modern != nil {
		return cs.modernCall(ctx, method, params, result)
	}
	return callCancellable(ctx, cs.conn, method, params, result)
}

func (cs *ClientSession) need(feature string, declared bool) error {
	if !declared {
		return fmt.Errorf("mcp: %w: the server did not declare %s", ErrCapabilityNotSupported, feature)
	}
	return nil
}

// Ping checks that the server answers (under 2026-07-28, which has no ping, with
// server/discover).
func (cs *ClientSession) Ping(ctx context.Context) error {
	var r json.RawMessage
	if cs.modern != nil {
		return cs.call(ctx, "server/discover", &PaginatedParams{}, &r)
	}
	return cs.call(ctx, "ping", struct{}{}, &r)
}

// ListTools returns one page of tools.
func (cs *ClientSession) ListTools(ctx context.Context, p *ListToolsParams) (*ListToolsResult, error) {
	if err := cs.need("tools", cs.init.Capabilities.Tools != nil); err != nil {
		return nil, err
	}
	if p == nil {
		p = &ListToolsParams{}
	}
	var res ListToolsResult
	if err := cs.call(ctx, "tools/list", p, &res); err != nil {
		return nil, err
	}
	if cs.modern != nil {
		// A 2026-07-28 client drops tools whose x-mcp-header annotations are invalid,
		// and keeps using the others.
		kept := res.Tools[:0]
		for _, t := range res.Tools {
			if err := validateParamHeaders(t.InputSchema); err != nil {
				cs.client.log.Warn("dropping tool with an invalid x-mcp-header annotation", "tool", t.Name, "err", err)
				continue
			}
			kept = append(kept, t)
		}
		res.Tools = kept
	}
	cs.mu.Lock()
	if cs.toolHeads == nil {
		cs.toolHeads = map[string][]paramHeader{}
	}
	for _, t := range res.Tools {
		cs.toolHeads[t.Name] = collectParamHeaders(t.InputSchema)
		cs.taskSupport[t.Name] = ""
		if t.Execution != nil {
			cs.taskSupport[t.Name] = t.Execution.TaskSupport
		}
		delete(cs.outSchemas, t.Name)
		if len(t.OutputSchema) > 0 {
			if s, err := compileToolSchema(t.OutputSchema); err == nil {
				cs.outSchemas[t.Name] = s
			} else {
				cs.client.log.Warn("tool has an invalid outputSchema", "tool", t.Name, "err", err)
			}
		}
	}
	cs.mu.Unlock()
	return &res, nil
}

// Tools iterates over every tool, following cursors.
func (cs *ClientSession) Tools(ctx context.Context) iter.Seq2[*Tool, error] {
	return paginated(ctx, func(cursor string) ([]*Tool, string, error) {
		r, err := cs.ListTools(ctx, &ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// ErrInvalidStructuredContent is returned by CallTool when structuredContent does
// not match the outputSchema the server listed for the tool.
var ErrInvalidStructuredContent = errors.New("mcp: structuredContent does not match the tool's outputSchema")

// CallTool calls a tool. Tool failures come back as a result with IsError set; the
// error is for protocol failures. When the tool was listed with an outputSchema, the
// structuredContent of a successful result is validated against it.
func (cs *ClientSession) CallTool(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	if err := cs.need("tools", cs.init.Capabilities.Tools != nil); err != nil {
		return nil, err
	}
	var res CallToolResult
	if cs.modern != nil {
		cs.mu.Lock()
		heads := cs.toolHeads[p.Name]
		cs.mu.Unlock()
		if h := paramHeadersFor(heads, p.Arguments); h != nil {
			ctx = jsonrpc.WithHeader(ctx, h)
		}
	}
	if err := cs.call(ctx, "tools/call", p, &res); err != nil {
		return nil, err
	}
	return &res, cs.checkStructured(p.Name, &res)
}

// checkStructured validates the structuredContent of a successful result against
// the outputSchema the server listed for the tool.
func (cs *ClientSession) checkStructured(name string, res *CallToolResult) error {
	cs.mu.Lock()
	s := cs.outSchemas[name]
	cs.mu.Unlock()
	if s != nil && !res.IsError {
		raw, _ := res.StructuredContent.(json.RawMessage)
		if raw == nil {
			return fmt.Errorf("%w: tool %q returned no structuredContent", ErrInvalidStructuredContent, name)
		}
		if err := s.validateJSON(raw); err != nil {
			return fmt.Errorf("%w: tool %q: %v", ErrInvalidStructuredContent, name, err)
		}
	}
	return nil
}

// ListResources returns one page of resources.
func (cs *ClientSession) ListResources(ctx context.Context, p *ListResourcesParams) (*ListResourcesResult, error) {
	if err := cs.need("resources", cs.init.Capabilities.Resources != nil); err != nil {
		return nil, err
	}
	if p == nil {
		p = &ListResourcesParams{}
	}
	var res ListResourcesResult
	return &res, cs.call(ctx, "resources/list", p, &res)
}

// Resources iterates over every resource, following cursors.
func (cs *ClientSession) Resources(ctx context.Context) iter.Seq2[*Resource, error] {
	return paginated(ctx, func(cursor string) ([]*Resource, string, error) {
		r, err := cs.ListResources(ctx, &ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of resource templates.
func (cs *ClientSession) ListResourceTemplates(ctx context.Context, p *ListResourceTemplatesParams) (*ListResourceTemplatesResult, error) {
	if err := cs.need("resources", cs.init.Capabilities.Resources != nil); err != nil {
		return nil, err
	}
	if p == nil {
		p = &ListResourceTemplatesParams{}
	}
	var res ListResourceTemplatesResult
	return &res, cs.call(ctx, "resources/templates/list", p, &res)
}

// ResourceTemplates iterates over every resource template, following cursors.
func (cs *ClientSession) ResourceTemplates(ctx context.Context) iter.Seq2[*ResourceTemplate, error] {
	return paginated(ctx, func(cursor string) ([]*ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ReadResource reads a resource. A missing resource is a *jsonrpc.Error with code
// -32002 (or -32602 from 2026-07-28 on); IsResourceNotFound recognises both.
func (cs *ClientSession) ReadResource(ctx context.Context, p *ReadResourceParams) (*ReadResourceResult, error) {
	if err := cs.need("resources", cs.init.Capabilities.Resources != nil); err != nil {
		return nil, err
	}
	var res ReadResourceResult
	if err := cs.call(ctx, "resources/read", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// IsResourceNotFound reports whether err is a resource-not-found error of any revision.
func IsResourceNotFound(err error) bool {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return false
	}
	return je.Code == CodeResourceNotFound || (je.Code == jsonrpc.CodeInvalidParams && je.Message == "Resource not found")
}

// Subscribe asks for notifications/resources/updated about uri. Under 2026-07-28
// use Listen instead.
func (cs *ClientSession) Subscribe(ctx context.Context, p *SubscribeParams) error {
	if cs.modern != nil {
		return fmt.Errorf("mcp: resources/subscribe does not exist in %s: use Listen", cs.rev.name)
	}
	caps := cs.init.Capabilities
	if err := cs.need("resources.subscribe", caps.Resources != nil && caps.Resources.Subscribe); err != nil {
		return err
	}
	var r json.RawMessage
	return cs.call(ctx, "resources/subscribe", p, &r)
}

// Unsubscribe cancels a subscription.
func (cs *ClientSession) Unsubscribe(ctx context.Context, p *SubscribeParams) error {
	if cs.modern != nil {
		return fmt.Errorf("mcp: resources/unsubscribe does not exist in %s: end the Listen instead", cs.rev.name)
	}
	caps := cs.init.Capabilities
	if err := cs.need("resources.subscribe", caps.Resources != nil && caps.Resources.Subscribe); err != nil {
		return err
	}
	var r json.RawMessage
	return cs.call(ctx, "resources/unsubscribe", p, &r)
}

// ListPrompts returns one page of prompts.
func (cs *ClientSession) ListPrompts(ctx context.Context, p *ListPromptsParams) (*ListPromptsResult, error) {
	if err := cs.need("prompts", cs.init.Capabilities.Prompts != nil); err != nil {
		return nil, err
	}
	if p == nil {
		p = &ListPromptsParams{}
	}
	var res ListPromptsResult
	return &res, cs.call(ctx, "prompts/list", p, &res)
}

// Prompts iterates over every prompt, following cursors.
func (cs *ClientSession) Prompts(ctx context.Context) iter.Seq2[*Prompt, error] {
	return paginated(ctx, func(cursor string) ([]*Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt.
func (cs *ClientSession) GetPrompt(ctx context.Context, p *GetPromptParams) (*GetPromptResult, error) {
	if err := cs.need("prompts", cs.init.Capabilities.Prompts != nil); err != nil {
		return nil, err
	}
	var res GetPromptResult
	if err := cs.call(ctx, "prompts/get", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completion values.
func (cs *ClientSession) Complete(ctx context.Context, p *CompleteParams) (*CompleteResult, error) {
	// 2024-11-05 has no completions capability; there the method may simply work.
	if cs.rev.completionsCap {
		if err := cs.need("completions", cs.init.Capabilities.Completions != nil); err != nil {
			return nil, err
		}
	}
	var res CompleteResult
	if err := cs.call(ctx, "completion/complete", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel asks the server to send log messages at level and above. Under
// 2026-07-28 the level travels on every later request instead.
func (cs *ClientSession) SetLoggingLevel(ctx context.Context, level LoggingLevel) error {
	if cs.modern != nil {
		if level.severity() < 0 {
			return fmt.Errorf("mcp: unknown logging level %q", level)
		}
		cs.mu.Lock()
		cs.modern.logLevel = level
		cs.modern.metaCache = nil
		cs.mu.Unlock()
		return nil
	}
	if err := cs.need("logging", cs.init.Capabilities.Logging != nil); err != nil {
		return err
	}
	var r json.RawMessage
	return cs.call(ctx, "logging/setLevel", &SetLoggingLevelParams{Level: level}, &r)
}

// paginated turns a page function into an iterator that stops at the first error.
func paginated[T any](ctx context.Context, page func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		seen := map[string]bool{}
		for {
			items, next, err := page(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if seen[next] {
				var zero T
				yield(zero, fmt.Errorf("mcp: server repeated cursor %q", next))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}

// handle answers the server's requests and notifications.
func (cs *ClientSession) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	o := &cs.client.opts
	if req.IsNotification() {
		cs.handleNotification(ctx, req)
		return nil, nil
	}
	switch req.Method {
	case "ping":
		return emptyResult{}, nil
	case "elicitation/create":
		if o.ElicitationHandler == nil {
			return nil, methodNotFound("elicitation is not supported by this client")
		}
		var p ElicitParams
		if err := unmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		caps := cs.client.capabilities().Elicitation
		switch p.Mode {
		case "", ElicitModeForm:
			if !caps.supportsForm() {
				return nil, invalidParams("elicitation mode %q was not declared by this client", "form")
			}
		case ElicitModeURL:
			if !caps.supportsURL() {
				return nil, invalidParams("elicitation mode %q was not declared by this client", "url")
			}
		default:
			return nil, invalidParams("unknown elicitation mode %q", p.Mode)
		}
		return o.ElicitationHandler(ctx, &ElicitRequest{Session: cs, Params: &p})
	case "sampling/createMessage":
		if o.SamplingHandler == nil {
			return nil, methodNotFound("sampling is not supported by this client")
		}
		var p CreateMessageParams
		if err := unmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		if (len(p.Tools) > 0 || p.ToolChoice != nil) && !o.SamplingTools {
			return nil, invalidParams("sampling with tools was not declared by this client")
		}
		if err := checkToolLoop(p.Messages); err != nil {
			return nil, invalidParams("sampling: %v", err)
		}
		return o.SamplingHandler(ctx, &CreateMessageRequest{Session: cs, Params: &p})
	case "roots/list":
		if o.Roots == nil {
			return nil, methodNotFound("roots are not supported by this client")
		}
		cs.client.mu.Lock()
		roots := slices.Clone(cs.client.roots)
		cs.client.mu.Unlock()
		if roots == nil {
			roots = []*Root{}
		}
		return &ListRootsResult{Roots: roots}, nil
	}
	return nil, methodNotFound("method %q not found", req.Method)
}

// handleNotification runs the handlers of the server's notifications. Progress and
// log handlers run in order, before any later response is delivered (so a call sees
// every progress notification sent before its result); they must not make calls on
// the session. The other handlers are released first (jsonrpc.Async) and may call
// back into the session, for example to list the tools again.
func (cs *ClientSession) handleNotification(ctx context.Context, req *jsonrpc.Request) {
	o := &cs.client.opts
	switch req.Method {
	case "notifications/progress", "notifications/message", "notifications/cancelled",
		"notifications/subscriptions/acknowledged":
	default:
		jsonrpc.Async(ctx)
	}
	switch req.Method {
	case "notifications/subscriptions/acknowledged":
		cs.handleAck(req.Params)
	case "notifications/progress":
		var p ProgressNotificationParams
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		cs.mu.Lock()
		fn := cs.progress[string(p.ProgressToken)]
		cs.mu.Unlock()
		if fn != nil {
			fn(&p)
		} else if o.ProgressHandler != nil {
			o.ProgressHandler(ctx, cs, &p)
		}
	case "notifications/message":
		if o.LoggingMessageHandler != nil {
			var p LoggingMessageParams
			if json.Unmarshal(req.Params, &p) == nil {
				o.LoggingMessageHandler(ctx, cs, &p)
			}
		}
	case "notifications/tools/list_changed":
		if o.ToolListChangedHandler != nil {
			o.ToolListChangedHandler(ctx, cs)
		}
	case "notifications/prompts/list_changed":
		if o.PromptListChangedHandler != nil {
			o.PromptListChangedHandler(ctx, cs)
		}
	case "notifications/resources/list_changed":
		if o.ResourceListChangedHandler != nil {
			o.ResourceListChangedHandler(ctx, cs)
		}
	case "notifications/resources/updated":
		if o.ResourceUpdatedHandler != nil {
			var p ResourceUpdatedParams
			if json.Unmarshal(req.Params, &p) == nil {
				o.ResourceUpdatedHandler(ctx, cs, &p)
			}
		}
	case "notifications/tasks/status", "notifications/tasks":
		if o.TaskStatusHandler != nil {
			if t, err := decodeTask(req.Params); err == nil {
				o.TaskStatusHandler(ctx, cs, t)
			}
		}
	case "notifications/elicitation/complete":
		if o.ElicitationCompleteHandler != nil {
			var p ElicitationCompleteParams
			if json.Unmarshal(req.Params, &p) == nil {
				o.ElicitationCompleteHandler(ctx, cs, p.ElicitationID)
			}
		}
	case "notifications/cancelled":
		var p CancelledNotificationParams
		if json.Unmarshal(req.Params, &p) == nil && len(p.RequestID) > 0 {
			if id, err := jsonrpc.RawID(p.RequestID); err == nil {
				cs.conn.Cancel(id)
			}
		}
	}
}
