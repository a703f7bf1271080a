package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// modernClient is the state of a session that speaks 2026-07-28: there is no
// handshake, so every request carries the revision, the capabilities and the client's
// identity, and server-to-client requests come back as input_required results.
type modernClient struct {
	discover  DiscoverResult
	logLevel  LoggingLevel             // sent on every request once set; guarded by ClientSession.mu
	metaCache json.RawMessage          // requestMeta as JSON; guarded by ClientSession.mu
	subs      map[string]*Subscription // open listens by subscriptionId (raw JSON id)
}

// maxInputRounds bounds the input_required rounds of one request.
const maxInputRounds = 16

// requestMeta is the _meta every 2026-07-28 request carries.
func (cs *ClientSession) requestMeta() map[string]any {
	caps := cs.client.capabilities()
	if caps.Roots != nil {
		caps.Roots = &RootsCapability{} // roots.listChanged no longer exists
	}
	m := map[string]any{
		MetaProtocolVersion:    Revision20260728,
		MetaClientCapabilities: caps,
		MetaClientInfo:         &cs.client.impl,
	}
	if cs.modern != nil {
		cs.mu.Lock()
		if l := cs.modern.logLevel; l != "" {
			m[MetaLogLevel] = l
		}
		cs.mu.Unlock()
	}
	return m
}

// probeModern sends server/discover as a 2026-07-28 request. It reports whether the
// server answered the modern way (the session is then set up), or false to fall back
// to initialize. With want set to the modern revision, a server that does not answer
// the modern way is an error instead.
func (cs *ClientSession) probeModern(ctx context.Context, want string) (bool, error) {
	pctx, cancel := context.WithTimeout(ctx, cs.client.opts.ProbeTimeout)
	defer cancel()
	params := map[string]any{"_meta": cs.requestMeta()}
	var raw json.RawMessage
	err := callCancellable(pctx, cs.conn, "server/discover", params, &raw)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if errors.Is(err, jsonrpc.ErrClosed) {
			return false, fmt.Errorf("mcp: connection ended during the server/discover probe: %w", err)
		}
		if want != "" {
			return false, fmt.Errorf("mcp: server does not speak %s: %w", want, err)
		}
		cs.client.log.Debug("server/discover probe failed; falling back to initialize", "err", err)
		return false, nil
	}
	var d struct {
		DiscoverResult
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return false, fmt.Errorf("mcp: server/discover: %w", err)
	}
	if !slices.Contains(d.SupportedVersions, Revision20260728) {
		if want != "" {
			return false, fmt.Errorf("mcp: server supports %v, not %s", d.SupportedVersions, want)
		}
		return false, nil
	}
	cs.modern = &modernClient{discover: d.DiscoverResult, subs: map[string]*Subscription{}}
	cs.rev = lookupRevision(Revision20260728)
	caps := d.Capabilities
	if caps == nil {
		caps = &ServerCapabilities{}
	}
	cs.init = InitializeResult{ProtocolVersion: Revision20260728, Capabilities: caps, Instructions: d.Instructions}
	var meta struct {
		Meta struct {
			ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		ServerInfo *Implementation `json:"serverInfo"`
	}
	_ = json.Unmarshal(raw, &meta)
	cs.init.ServerInfo = meta.Meta.ServerInfo
	if cs.init.ServerInfo == nil {
		cs.init.ServerInfo = meta.ServerInfo
	}
	return true, nil
}

// DiscoverResult returns the server's answer to server/discover (nil for a session
// negotiated through initialize).
func (cs *ClientSession) DiscoverResult() *DiscoverResult {
	if cs.modern == nil {
		return nil
	}
	return &cs.modern.discover
}

// modernCall makes a 2026-07-28 request: _meta added, input_required rounds answered
// through the client's handlers, the request retried (with a new id) until it completes.
func (cs *ClientSession) modernCall(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if params == nil || string(raw) == "null" {
		raw = []byte("{}")
	}
	var body any
	if len(raw) >= 2 && raw[0] == '{' && !bytes.Contains(raw, []byte(`"_meta"`)) {
		// The common case: splice _meta in front, without a decode.
		meta := cs.metaJSONFor(ctx)
		out := make([]byte, 0, len(raw)+len(meta)+10)
		out = append(out, `{"_meta":`...)
		out = append(out, meta...)
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		body = json.RawMessage(append(out, raw[1:]...))
	} else {
		base, err := cs.withMeta(ctx, method, json.RawMessage(raw))
		if err != nil {
			return err
		}
		body = base
	}
	var base map[string]json.RawMessage // built when an input round needs it
	for round := 0; ; round++ {
		var raw json.RawMessage
		if err := callCancellable(ctx, cs.conn, method, body, &raw); err != nil {
			return err
		}
		if !bytes.Contains(raw, []byte(`"resultType"`)) || bytes.HasPrefix(raw, []byte(`{"resultType":"complete"`)) {
			return decodeResult(method, raw, result)
		}
		var head struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  *string                    `json:"requestState"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("mcp: %s: result is not an object: %w", method, err)
		}
		switch head.ResultType {
		case "task": // tasks extension: only where this request accepted one
			if !acceptsTask(ctx) || method != "tools/call" {
				return fmt.Errorf("mcp: %s: server answered with a task, which this request did not accept", method)
			}
			return decodeResult(method, raw, result)
		case "", "complete": // absent means complete
			return decodeResult(method, raw, result)
		case "input_required":
		default:
			return fmt.Errorf("mcp: %s: server answered with unknown resultType %q", method, head.ResultType)
		}
		if !mrtrMethods[method] {
			return fmt.Errorf("mcp: %s: server asked for input on a method that cannot take it", method)
		}
		if round+1 >= maxInputRounds {
			return fmt.Errorf("mcp: %s: gave up after %d input rounds", method, maxInputRounds)
		}
		if base == nil {
			if base, err = cs.withMeta(ctx, method, body); err != nil {
				return err
			}
		}
		responses := map[string]json.RawMessage{}
		for key, ir := range head.InputRequests {
			ans, err := cs.answerInput(ctx, ir)
			if err != nil {
				return fmt.Errorf("mcp: %s: input %q: %w", method, key, err)
			}
			responses[key] = ans
		}
		base["inputResponses"] = rawJSON(responses)
		if head.RequestState != nil {
			base["requestState"] = rawJSON(*head.RequestState) // echoed byte for byte
		} else {
			delete(base, "requestState")
		}
		body = base
	}
}

// decodeResult stores a complete result into result.
func decodeResult(method string, raw json.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
	case *json.RawMessage:
		*r = raw
	case json.Unmarshaler:
		// Straight to the type's own decoder: json.Unmarshal would first check and
		// then skip over the whole result before handing it over, two more passes
		// over bytes the decoder checks anyway.
		if err := r.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("mcp: %s: decoding the result: %w", method, err)
		}
	default:
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("mcp: %s: decoding the result: %w", method, err)
		}
	}
	return nil
}

// metaJSON is the request _meta as JSON, cached until the log level changes.
func (cs *ClientSession) metaJSON() []byte {
	cs.mu.Lock()
	cached := cs.modern.metaCache
	cs.mu.Unlock()
	if cached != nil {
		return cached
	}
	b := rawJSON(cs.requestMeta())
	cs.mu.Lock()
	cs.modern.metaCache = b
	cs.mu.Unlock()
	return b
}

// withMeta decodes params (an object, as JSON or any value) into members and merges
// the request _meta into any _meta already there.
func (cs *ClientSession) withMeta(ctx context.Context, method string, params any) (map[string]json.RawMessage, error) {
	raw, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &base); err != nil {
		return nil, fmt.Errorf("mcp: params of %s must be an object: %w", method, err)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := base["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	for k, v := range cs.requestMetaFor(ctx) {
		meta[k] = rawJSON(v)
	}
	base["_meta"] = rawJSON(meta)
	return base, nil
}

// answerInput fulfils one embedded input request with the handlers a legacy session
// would use for the equivalent server-to-client request.
func (cs *ClientSession) answerInput(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	var ir struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &ir); err != nil {
		return nil, err
	}
	switch ir.Method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
	default:
		return nil, fmt.Errorf("unknown input request method %q", ir.Method)
	}
	res, err := cs.handle(ctx, &jsonrpc.Request{ID: jsonrpc.StringID("input"), Method: ir.Method, Params: ir.Params})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// Subscription is an open subscriptions/listen request (2026-07-28). The change
// notifications it brings go to the client's ToolListChangedHandler,
// PromptListChangedHandler, ResourceListChangedHandler and ResourceUpdatedHandler.
type Subscription struct {
	// Acknowledged is the part of the requested filter the server honours.
	Acknowledged SubscriptionFilter
	acked        chan struct{}
	done         chan struct{}
	err          error
	cancel       context.CancelFunc
}

// Close ends the subscription (over stdio the server is told with
// notifications/cancelled) and waits for it to end.
func (s *Subscription) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended (nil while open or after a graceful end).
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Listen opens a subscriptions/listen request and returns once the server has
// acknowledged it. It needs a 2026-07-28 session; initialize-era sessions receive
// change notifications without asking (and use Subscribe for resource updates).
func (cs *ClientSession) Listen(ctx context.Context, filter *SubscriptionFilter) (*Subscription, error) {
	if cs.modern == nil {
		return nil, fmt.Errorf("mcp: subscriptions/listen needs revision %s (this session speaks %s)", Revision20260728, cs.rev.name)
	}
	if filter == nil {
		filter = &SubscriptionFilter{}
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sub := &Subscription{acked: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	var key string
	rec := func(id jsonrpc.ID) {
		key = id.Raw()
		cs.mu.Lock()
		cs.modern.subs[key] = sub
		cs.mu.Unlock()
	}
	go func() {
		defer close(sub.done)
		err := cs.modernCall(jsonrpc.WithIDRecorder(lctx, rec), "subscriptions/listen",
			map[string]any{"notifications": filter}, nil)
		if err != nil && lctx.Err() == nil {
			sub.err = err
		}
		cs.mu.Lock()
		delete(cs.modern.subs, key)
		cs.mu.Unlock()
	}()
	select {
	case <-sub.acked:
		return sub, nil
	case <-sub.done:
		if sub.err == nil {
			sub.err = errors.New("mcp: subscription ended before it was acknowledged")
		}
		return nil, sub.err
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
}

// handleAck records a notifications/subscriptions/acknowledged.
func (cs *ClientSession) handleAck(params json.RawMessage) {
	if cs.modern == nil {
		return
	}
	var p struct {
		Notifications SubscriptionFilter         `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.RawID(p.Meta[MetaSubscriptionID])
	if err != nil {
		return
	}
	cs.mu.Lock()
	sub := cs.modern.subs[id.Raw()]
	cs.mu.Unlock()
	if sub == nil {
		return
	}
	select {
	case <-sub.acked:
	default:
		sub.Acknowledged = p.Notifications
		close(sub.acked)
	}
}
