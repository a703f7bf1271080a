package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

func handlePing(context.Context, *ServerSession, *requestInfo) (any, error) {
	return emptyResult{}, nil
}

func handleListTools(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p PaginatedParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	all := ss.server.sortedTools()
	page, next, err := paginate("tools/list", all, func(t *serverTool) string { return seqKey(t.seq) }, p.Cursor, ss.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &ListToolsResult{Tools: make([]*Tool, len(page)), NextCursor: next}
	for i, t := range page {
		res.Tools[i] = downgradeTool(t.tool, ri.rev)
	}
	return res, nil
}

func handleCallTool(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	p := new(CallToolParams)
	if err := decodeCallToolParams(ri.req.Params, p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("tools/call: name is required")
	}
	ss.server.mu.Lock()
	st := ss.server.tools[p.Name]
	ss.server.mu.Unlock()
	if st == nil {
		// The closest listed names, when some are close: a model that misspelt
		// a tool can call the right one without listing the tools again.
		return nil, unknownTool(ss.server, p.Name)
	}
	if ts := ss.server.tasks; ts != nil {
		return ts.callTool(ctx, ss, ri, st, p)
	}
	res, err := runToolRequest(ctx, &CallToolRequest{Session: ss, Params: p}, ri.rev, st)
	if r, ok := res.(*CallToolResult); ok && err == nil {
		// Encoded here, once: handed back as a *CallToolResult, encoding/json would
		// go over the encoded result again to compact what MarshalJSON returned.
		raw, err := r.MarshalJSON()
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q: encoding the result: %v", p.Name, err)
		}
		return json.RawMessage(raw), nil
	}
	return res, err
}

// runTool validates the arguments, runs the tool's handler and shapes its result
// for rev (directly, or as a task's work).
func runTool(ctx context.Context, ss *ServerSession, rev *revision, st *serverTool, p *CallToolParams) (any, error) {
	return runToolRequest(ctx, &CallToolRequest{Session: ss, Params: p}, rev, st)
}

// runToolRequest is runTool for a request already made.
func runToolRequest(ctx context.Context, req *CallToolRequest, rev *revision, st *serverTool) (any, error) {
	p := req.Params
	// A call without arguments is a call with {}.
	if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
		p.Arguments = json.RawMessage("{}")
	}
	var res *CallToolResult
	var err error
	if st.in != nil {
		if verr := st.in.validateJSON(p.Arguments); verr != nil {
			// Argument validation failures are execution errors the model can
			// correct: an isError result, not a protocol error.
			res = invalidArgumentsResult(ctx, req, verr)
		}
	}
	if res == nil {
		res, err = st.handler(ctx, req)
	}
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) || IsInputRequired(err) {
			return nil, err
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return downgradeCallToolResult(ErrorResult("%v", err), rev), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if st.out != nil && !res.IsError {
		if res.StructuredContent == nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q declares an outputSchema but returned no structuredContent", p.Name)
		}
		raw, ok := res.StructuredContent.(json.RawMessage)
		if !ok {
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q: structured output: %v", p.Name, err)
			}
			raw = b
			res.StructuredContent = raw
		}
		if err := st.out.validateJSON(raw); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q returned output that does not match its outputSchema: %v", p.Name, err)
		}
	}
	if res.StructuredContent != nil && len(res.Content) == 0 {
		// Older clients read the text block; it carries the same JSON.
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q: structured output: %v", p.Name, err)
		}
		res.StructuredContent = json.RawMessage(raw)
		res.Content = []Content{&TextContent{Text: string(raw)}}
	}
	return downgradeCallToolResult(res, rev), nil
}

func handleListResources(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p PaginatedParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	var page []*serverResource
	var next string
	var err error
	if ss.server.opts.ListResourcesByURI {
		page, next, err = paginate("resources/list", ss.server.resourcesByURI(), func(r *serverResource) string { return r.res.URI }, p.Cursor, ss.server.opts.PageSize)
	} else {
		page, next, err = paginate("resources/list", ss.server.sortedResources(), func(r *serverResource) string { return seqKey(r.seq) }, p.Cursor, ss.server.opts.PageSize)
	}
	if err != nil {
		return nil, err
	}
	res := &ListResourcesResult{Resources: make([]*Resource, len(page)), NextCursor: next}
	for i, r := range page {
		res.Resources[i] = downgradeResource(r.res, ri.rev)
	}
	return res, nil
}

func handleListTemplates(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p PaginatedParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	page, next, err := paginate("resources/templates/list", ss.server.sortedTemplates(), func(t *serverTemplate) string { return seqKey(t.seq) }, p.Cursor, ss.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &ListResourceTemplatesResult{ResourceTemplates: make([]*ResourceTemplate, len(page)), NextCursor: next}
	for i, t := range page {
		res.ResourceTemplates[i] = downgradeTemplate(t.tmpl, ri.rev)
	}
	return res, nil
}

func handleReadResource(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p ReadResourceParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/read: uri is required")
	}
	ss.server.mu.Lock()
	r := ss.server.resources[p.URI]
	ss.server.mu.Unlock()
	req := &ReadResourceRequest{Session: ss, Params: &p}
	var h ResourceHandler
	if r != nil {
		h = r.handler
	} else {
		for _, t := range ss.server.sortedTemplates() {
			if vars, ok := t.parsed.Match(p.URI); ok {
				req.Vars, h = vars, t.handler
				break
			}
		}
	}
	if h == nil {
		return nil, resourceNotFound(ss.server, ri.rev, p.URI, "")
	}
	res, err := h(ctx, req)
	if err != nil {
		return nil, notFoundError(ss.server, ri.rev, p.URI, err)
	}
	if res == nil {
		res = &ReadResourceResult{}
	}
	if res.Contents == nil {
		res.Contents = []*ResourceContents{}
	}
	return res, nil
}

func handleSubscribe(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p SubscribeParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/subscribe: uri is required")
	}
	if h := ss.server.opts.SubscribeHandler; h != nil {
		if err := h(ctx, ss, p.URI); err != nil {
			return nil, notFoundError(ss.server, ri.rev, p.URI, err)
		}
	}
	ss.mu.Lock()
	if ss.subs == nil {
		ss.subs = map[string]struct{}{}
	}
	ss.subs[p.URI] = struct{}{}
	ss.mu.Unlock()
	return emptyResult{}, nil
}

func handleUnsubscribe(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p SubscribeParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/unsubscribe: uri is required")
	}
	ss.mu.Lock()
	delete(ss.subs, p.URI)
	ss.mu.Unlock()
	return emptyResult{}, nil
}

func handleListPrompts(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p PaginatedParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	page, next, err := paginate("prompts/list", ss.server.sortedPrompts(), func(p *serverPrompt) string { return seqKey(p.seq) }, p.Cursor, ss.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &ListPromptsResult{Prompts: make([]*Prompt, len(page)), NextCursor: next}
	for i, p := range page {
		res.Prompts[i] = downgradePrompt(p.prompt, ri.rev)
	}
	return res, nil
}

func handleGetPrompt(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p GetPromptParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	ss.server.mu.Lock()
	sp := ss.server.prompts[p.Name]
	ss.server.mu.Unlock()
	if sp == nil {
		return nil, invalidParams("unknown prompt %q", p.Name)
	}
	var missing []string
	for _, a := range sp.prompt.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, invalidParams("prompt %q: missing required argument(s): %s", p.Name, strings.Join(missing, ", "))
	}
	res, err := sp.handler(ctx, &GetPromptRequest{Session: ss, Params: &p})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &GetPromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []*PromptMessage{}
	}
	return res, nil
}

func handleSetLevel(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p SetLoggingLevelParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.Level.severity() < 0 {
		return nil, invalidParams("unknown logging level %q", p.Level)
	}
	ss.mu.Lock()
	ss.logLevel = p.Level
	ss.mu.Unlock()
	return emptyResult{}, nil
}

func handleComplete(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	h := ss.server.opts.CompletionHandler
	if h == nil {
		return nil, methodNotFound("completion/complete is not supported by this server")
	}
	var p CompleteParams
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.Ref == nil {
		return nil, invalidParams("completion/complete: ref is required")
	}
	switch p.Ref.Type {
	case "ref/prompt":
		ss.server.mu.Lock()
		_, ok := ss.server.prompts[p.Ref.Name]
		ss.server.mu.Unlock()
		if !ok {
			return nil, invalidParams("completion/complete: unknown prompt %q", p.Ref.Name)
		}
	case "ref/resource":
		ss.server.mu.Lock()
		_, t := ss.server.templates[p.Ref.URI]
		_, r := ss.server.resources[p.Ref.URI]
		ss.server.mu.Unlock()
		if !t && !r {
			return nil, invalidParams("completion/complete: unknown resource or template %q", p.Ref.URI)
		}
	default:
		return nil, invalidParams("completion/complete: unknown ref type %q", p.Ref.Type)
	}
	res, err := h(ctx, &CompleteRequest{Session: ss, Params: &p})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &CompleteResult{}
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	// At most 100 values go on the wire.
	if n := len(res.Completion.Values); n > 100 {
		res.Completion.Values = res.Completion.Values[:100]
		res.Completion.HasMore = true
		if res.Completion.Total == nil {
			res.Completion.Total = &n
		}
	}
	return res, nil
}

// paginate returns the page after cursor. Cursors are opaque to clients; they encode
// the key of the last item sent, so they stay valid while the list changes elsewhere.
func paginate[T any](list string, items []T, key func(T) string, cursor string, size int) ([]T, string, error) {
	// A cursor names its list as well as the last item sent: one from another
	// list (a tools/list cursor given to resources/list) is refused, not read as
	// a place in this one.
	prefix := "after:" + list + "\x00"
	start := 0
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || !strings.HasPrefix(string(raw), prefix) {
			return nil, "", invalidParams("invalid cursor: pass the nextCursor of the previous %s page unchanged, or none for the first page", list)
		}
		after := strings.TrimPrefix(string(raw), prefix)
		start = len(items)
		for i, it := range items {
			if key(it) > after {
				start = i
				break
			}
		}
	}
	end := min(start+size, len(items))
	page := items[start:end]
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(prefix + key(items[end-1])))
	}
	return page, next, nil
}

// notFoundError is err, from a handler of a request about uri, as the client
// gets it: one wrapping ErrResourceNotFound becomes the revision's
// resource-not-found error, the handler's explanation (which names may be
// meant, say) in its data beside the URI, the message the standard one, which
// clients of 2026-07-28 tell this -32602 from others by.
func notFoundError(s *Server, rev *revision, uri string, err error) error {
	if !errors.Is(err, ErrResourceNotFound) {
		return err
	}
	detail := strings.TrimPrefix(err.Error(), ErrResourceNotFound.Error()+": ")
	if detail == ErrResourceNotFound.Error() {
		detail = ""
	}
	return resourceNotFound(s, rev, uri, detail)
}
