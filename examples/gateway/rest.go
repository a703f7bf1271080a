package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// restPart offers the operations of an HTTP API as tools (the "rest" member of a
// server). The API stays the source of truth: the part validates arguments against
// the tool's schema (the mcp.Server does, before the handler runs), builds one HTTP
// request, and turns the answer into a tool result.
//
// Requests in flight are capped by a semaphore of MaxConcurrent slots; a caller waits
// for a slot no longer than its call's context allows. Each attempt has its own
// timeout; idempotent requests are retried a bounded number of times.
type restPart struct {
	name   string
	cfg    *RESTConfig
	limit  time.Duration // the server's timeout: bounds a whole call, retries included
	dir    string
	errs   *lineRing
	client *http.Client
	sem    chan struct{}

	ctx    context.Context // ended by close
	cancel context.CancelFunc
	done   chan struct{} // closed when the start goroutine (a URL document) ended

	mu      sync.Mutex
	started bool // start ran (so done will be closed)
	state   string
	detail  string
	tools   int
}

// maxRESTBody caps what is read of any response (the budget cuts results further).
const maxRESTBody = 32 << 20

// maxOpenAPIBytes caps an OpenAPI document fetched from a URL.
const maxOpenAPIBytes = 16 << 20

func newRESTPart(name string, cfg *RESTConfig, limit time.Duration, dir string, errs *lineRing) *restPart {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.maxConcurrent()
	tr.ResponseHeaderTimeout = cfg.timeout()
	p := &restPart{
		name: name, cfg: cfg, limit: limit, dir: dir, errs: errs,
		client: &http.Client{
			Transport: tr,
			// Redirects may not leave the API's host: the configured credentials go
			// only where the configuration says.
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= 5 {
					return errors.New("too many redirects")
				}
				if req.URL.Host != via[0].URL.Host {
					return fmt.Errorf("redirect to another host (%s) refused", req.URL.Host)
				}
				return nil
			},
		},
		sem:   make(chan struct{}, cfg.maxConcurrent()),
		done:  make(chan struct{}),
		state: "starting",
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

func (p *restPart) start(ctx context.Context, reg *registry) error {
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	if p.cfg.OpenAPI == "" || !isURL(p.cfg.OpenAPI) {
		var doc []byte
		if p.cfg.OpenAPI != "" {
			file := p.cfg.OpenAPI
			if !filepath.IsAbs(file) {
				file = filepath.Join(p.dir, file)
			}
			var err error
			if doc, err = os.ReadFile(file); err != nil {
				close(p.done)
				return fmt.Errorf("server %s: openapi: %w", p.name, err)
			}
		}
		err := p.load(reg, doc)
		close(p.done)
		return err
	}
	// A document at a URL is fetched in the background; the server has no tools
	// until it arrived.
	go func() {
		defer close(p.done)
		doc, err := p.fetchDoc()
		if err != nil {
			p.setState("error", "openapi: "+err.Error(), 0)
			p.errs.Add("openapi: " + err.Error())
			return
		}
		if err := p.load(reg, doc); err != nil {
			p.errs.Add(err.Error())
		}
	}()
	return nil
}

// waitFirstStart waits for a document fetched from a URL (bounded by the timeout).
func (p *restPart) waitFirstStart() {
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if started {
		<-p.done
	}
}

func (p *restPart) fetchDoc() ([]byte, error) {
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, expandEnv(p.cfg.OpenAPI), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, errors.New(scrubErr(err, req.URL.String(), p.cfg.OpenAPI))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", p.cfg.OpenAPI, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxOpenAPIBytes))
}

// load imports the operations and registers their tools.
func (p *restPart) load(reg *registry, doc []byte) error {
	ops, err := restOps(p.cfg, doc)
	if err != nil {
		p.setState("error", err.Error(), 0)
		return fmt.Errorf("server %s: %w", p.name, err)
	}
	// Credentials are never the model's: the header parameters named in
	// neverForwarded, in headers or in forwardHeaders are no tool arguments.
	controlled := map[string]bool{}
	for k := range neverForwarded {
		controlled[k] = true
	}
	for k := range p.cfg.Headers {
		controlled[strings.ToLower(k)] = true
	}
	for _, h := range p.cfg.ForwardHeaders {
		controlled[strings.ToLower(h)] = true
	}
	e := &entries{}
	for _, op := range ops {
		t, err := p.tool(op, controlled)
		if err != nil {
			p.errs.Add(fmt.Sprintf("tool %s skipped: %v", op.Name, err))
			continue
		}
		e.Tools = append(e.Tools, &toolEntry{Tool: t, Handler: p.handler(op, controlled)})
	}
	reg.set("rest", e)
	p.setState("ready", "", len(e.Tools))
	return nil
}

func (p *restPart) setState(state, detail string, tools int) {
	p.mu.Lock()
	p.state, p.detail, p.tools = state, detail, tools
	p.mu.Unlock()
}

// tool builds the mcp.Tool of an operation.
func (p *restPart) tool(op *restOp, controlled map[string]bool) (*mcp.Tool, error) {
	in, err := json.Marshal(op.inputSchema(controlled))
	if err != nil {
		return nil, err
	}
	readOnly := op.Method == http.MethodGet || op.Method == http.MethodHead
	idem := readOnly || op.Method == http.MethodPut || op.Method == http.MethodDelete
	destructive := op.Method == http.MethodDelete || op.Method == http.MethodPut || op.Method == http.MethodPatch
	open := false
	ann := &mcp.ToolAnnotations{ReadOnlyHint: &readOnly, IdempotentHint: &idem, OpenWorldHint: &open}
	if !readOnly {
		ann.DestructiveHint = &destructive
	}
	t := &mcp.Tool{Name: op.Name, Title: op.Title, Description: op.Description, InputSchema: in, Annotations: ann}
	if op.Output != nil && (p.cfg.OutputSchemas == nil || *p.cfg.OutputSchemas) {
		out := make(map[string]any, len(op.Output))
		for k, v := range op.Output {
			out[k] = v
		}
		// A result cut to the byte budget says so in "_truncated"; the schema allows it.
		props, _ := out["properties"].(map[string]any)
		np := make(map[string]any, len(props)+1)
		for k, v := range props {
			np[k] = v
		}
		np["_truncated"] = map[string]any{"type": "object", "description": "Present only when the response was cut to the byte budget."}
		// An isError result carries {"error": {...}} as its structured content, and
		// clients check structured content against the output schema whatever
		// isError says (the TypeScript SDK does): the schema admits that shape too,
		// the original required members becoming one of two alternatives.
		np["error"] = restErrorSchema
		out["properties"] = np
		if req, ok := out["required"]; ok {
			delete(out, "required")
			out["anyOf"] = []any{
				map[string]any{"required": req},
				map[string]any{"required": []any{"error"}},
			}
		}
		if t.OutputSchema, err = json.Marshal(out); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// close may be called without start (when another part of the server failed to
// start first).
func (p *restPart) close() {
	p.cancel()
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if started {
		<-p.done
	}
	p.client.CloseIdleConnections()
}

func (p *restPart) status() partStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := partStatus{Kind: "rest", State: p.state, Healthy: p.state != "error", Detail: p.detail}
	if p.state == "ready" {
		st.Detail = fmt.Sprintf("%d operation(s) of %s", p.tools, p.cfg.BaseURL)
	}
	return st
}

// restErrorSchema is the schema of the "error" member of an isError result's
// structured content.
var restErrorSchema = map[string]any{
	"type":        "object",
	"description": "Present only on an error result.",
	"properties": map[string]any{
		"code":      map[string]any{"type": "string"},
		"message":   map[string]any{"type": "string"},
		"status":    map[string]any{"type": "integer"},
		"retryable": map[string]any{"type": "boolean"},
		"hint":      map[string]any{"type": "string"},
	},
	"required": []any{"code", "message", "retryable"},
}

// handler is the tool handler of one operation.
func (p *restPart) handler(op *restOp, controlled map[string]bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return restError("BAD_REQUEST", "arguments are not a JSON object", 0, false,
				"Call the tool with an object of arguments."), nil
		}
		var incoming http.Header
		if r, ok := jsonrpc.RequestFromContext(ctx); ok && r.Header != nil {
			incoming = http.Header(r.Header)
		}
		hreq, err := p.buildRequest(op, args, incoming, controlled)
		if err != nil {
			return restError("BAD_REQUEST", err.Error(), 0, false, "Fix the argument named in the message."), nil
		}
		if p.limit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, p.limit)
			defer cancel()
		}
		return p.do(ctx, op, hreq), nil
	}
}

// builtRequest is everything of an HTTP request but its context, so that a retry can
// make a fresh one.
type builtRequest struct {
	method string
	url    string
	shown  string // the URL as messages show it: ${NAME}s of baseUrl unexpanded, no query
	header http.Header
	body   []byte
}

// argString renders a scalar argument for a path, query or header.
func argString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (p *restPart) buildRequest(op *restOp, args map[string]any, incoming http.Header, controlled map[string]bool) (*builtRequest, error) {
	path := op.Path
	q := url.Values{}
	h := http.Header{}
	for _, prm := range op.Params {
		v, ok := args[prm.Arg]
		if !ok || v == nil {
			if prm.In == "path" {
				return nil, fmt.Errorf("argument %q is required", prm.Arg)
			}
			continue
		}
		switch prm.In {
		case "path":
			s := argString(v)
			if s == "" || s == "." || s == ".." {
				// "." and ".." would move the request to another path of the API.
				return nil, fmt.Errorf("argument %q must not be empty, \".\" or \"..\"", prm.Arg)
			}
			path = strings.ReplaceAll(path, "{"+prm.Name+"}", url.PathEscape(s))
		case "query":
			if a, ok := v.([]any); ok {
				for _, e := range a {
					q.Add(prm.Name, argString(e))
				}
			} else {
				q.Set(prm.Name, argString(v))
			}
		case "header":
			if controlled[strings.ToLower(prm.Name)] {
				continue // set by the configuration or the client, never the model
			}
			s := argString(v)
			if strings.ContainsAny(s, "\r\n") {
				return nil, fmt.Errorf("argument %q must not contain line breaks", prm.Arg)
			}
			h.Set(prm.Name, s)
		}
	}
	u := strings.TrimRight(expandEnv(p.cfg.BaseURL), "/") + path
	shown := strings.TrimRight(p.cfg.BaseURL, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	for _, name := range p.cfg.ForwardHeaders {
		if vals := incoming.Values(name); len(vals) > 0 {
			h[http.CanonicalHeaderKey(name)] = append([]string(nil), vals...)
		}
	}
	for _, k := range sortedKeys(p.cfg.Headers) {
		h.Set(k, expandEnv(p.cfg.Headers[k]))
	}
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "wiremcp-gateway")
	br := &builtRequest{method: op.Method, url: u, shown: shown, header: h}
	if op.Body != nil {
		if b, ok := args["body"]; ok {
			data, err := json.Marshal(b)
			if err != nil {
				return nil, err
			}
			br.body = data
			h.Set("Content-Type", "application/json")
		}
	}
	return br, nil
}

// idempotent methods may be retried.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// do sends the request (retrying when that is safe) and shapes the result.
func (p *restPart) do(ctx context.Context, op *restOp, br *builtRequest) *mcp.CallToolResult {
	// A slot of the per-backend cap, waited for no longer than the call may run.
	select {
	case p.sem <- struct{}{}:
		defer func() { <-p.sem }()
	case <-ctx.Done():
		return restError("TIMEOUT", fmt.Sprintf("no request slot to %s became free within the call's time (%d requests in flight)", p.name, cap(p.sem)),
			0, true, "The backend is busy; try again shortly.")
	case <-p.ctx.Done():
		return restError("UNAVAILABLE", "the server is shutting down", 0, true, "Try again shortly.")
	}
	retries := 0
	if idempotent(br.method) {
		retries = p.cfg.retries()
	}
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		status, ctype, body, err := p.once(ctx, br)
		// Retried: a gateway status, or a connection that failed (not one that timed
		// out: its time is spent, and the backend may still be working on it).
		retryable := status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout ||
			err != nil && ctx.Err() == nil && !isTimeout(err)
		if retryable && attempt < retries {
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
				backoff *= 2
				continue
			case <-ctx.Done():
				t.Stop()
			}
		}
		if err != nil {
			return p.networkError(ctx, br, err, attempt)
		}
		return p.result(op, status, ctype, body, attempt)
	}
}

// once makes one attempt, bounded by the per-request timeout.
func (p *restPart) once(ctx context.Context, br *builtRequest) (status int, ctype string, body []byte, err error) {
	actx, cancel := context.WithTimeout(ctx, p.cfg.timeout())
	defer cancel()
	var rd io.Reader
	if br.body != nil {
		rd = bytes.NewReader(br.body)
	}
	req, err := http.NewRequestWithContext(actx, br.method, br.url, rd)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header = br.header.Clone()
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxRESTBody+1))
	if err != nil {
		return 0, "", nil, err
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body, nil
}

func (p *restPart) networkError(ctx context.Context, br *builtRequest, err error, attempt int) *mcp.CallToolResult {
	what := br.method + " " + br.shown
	tries := ""
	if attempt > 0 {
		tries = fmt.Sprintf(" (after %d attempts)", attempt+1)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return restError("TIMEOUT", fmt.Sprintf("%s: the call's time (%s) ran out%s", what, p.limit, tries), 0, true,
			"The backend is slow or overloaded; try again later, perhaps with a smaller limit.")
	}
	if isTimeout(err) {
		return restError("TIMEOUT", fmt.Sprintf("%s did not answer within %s%s", what, p.cfg.timeout(), tries), 0, true,
			"The backend is slow or overloaded; try again later, perhaps with a smaller limit.")
	}
	return restError("UNAVAILABLE", fmt.Sprintf("%s failed%s: %v", what, tries, scrubErr(err, br.url, br.shown)), 0, true,
		"The backend could not be reached; try again later.")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// scrubErr is err's text with the URL requested (expanded, with its query) replaced
// by the URL as shown.
func scrubErr(err error, u, shown string) string {
	return strings.ReplaceAll(err.Error(), u, shown)
}

// hints says what the model can do about a backend's status.
func hint(status int) string {
	switch {
	case status == 400 || status == 422:
		return "The backend rejected the arguments: fix the one named in the message and call again."
	case status == 401:
		return "The gateway's credentials for this backend were refused; the model cannot fix this — tell the user."
	case status == 403:
		return "Not permitted with the gateway's credentials or scope; do not retry — tell the user."
	case status == 404:
		return "Nothing with that id exists in this scope; check the id (list or search first)."
	case status == 409:
		return "The request conflicts with the current state; read the current state before trying again."
	case status == 429:
		return "Rate limited: wait before calling again."
	case status >= 500:
		return "The backend failed; trying again later may help."
	}
	return "The backend refused the request."
}

var codeOfStatus = map[int]string{400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND",
	409: "CONFLICT", 422: "BAD_REQUEST", 429: "RATE_LIMITED", 500: "SERVER_ERROR", 502: "BAD_GATEWAY", 503: "UNAVAILABLE", 504: "TIMEOUT"}

// restError is an isError result whose structured content is
// {"error": {code, message, status, retryable, hint}}, the same JSON as its text.
func restError(code, msg string, status int, retryable bool, hint string) *mcp.CallToolResult {
	e := map[string]any{"code": code, "message": msg, "retryable": retryable, "hint": hint}
	if status != 0 {
		e["status"] = status
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// isJSONType reports whether a Content-Type names JSON (an absent one is tried as JSON).
func isJSONType(ct string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	return mt == "" || mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// decodeJSON decodes one JSON value, numbers kept exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// snippet is the start of a body, for an error message: valid UTF-8, one line.
func snippet(b []byte) string {
	const n = 120
	if len(b) > n {
		b = b[:n]
	}
	s := strings.ToValidUTF8(string(b), "?")
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(b) == n {
		s += "…"
	}
	return s
}

// result shapes a backend answer.
func (p *restPart) result(op *restOp, status int, ctype string, body []byte, attempt int) *mcp.CallToolResult {
	if len(body) > maxRESTBody {
		return restError("RESPONSE_TOO_LARGE", fmt.Sprintf("the backend answered more than %d bytes", maxRESTBody), status, false,
			"Ask for less: use filters or a smaller limit.")
	}
	var v any
	var derr error
	if isJSONType(ctype) {
		v, derr = decodeJSON(body)
	} else {
		derr = fmt.Errorf("content type %q", ctype)
	}
	if status < 200 || status > 299 {
		code, msg := codeOfStatus[status], fmt.Sprintf("the backend answered %d %s", status, http.StatusText(status))
		if code == "" {
			code = fmt.Sprintf("HTTP_%d", status)
		}
		if m, ok := v.(map[string]any); ok && derr == nil {
			if e, ok := m["error"].(map[string]any); ok {
				if c, ok := e["code"].(string); ok && c != "" {
					code = c
				}
				if s, ok := e["message"].(string); ok && s != "" {
					msg = s
				}
			} else if s, ok := m["message"].(string); ok && s != "" {
				msg = s
			}
		} else if derr != nil && len(body) > 0 {
			msg += ": " + snippet(body)
		}
		if attempt > 0 {
			msg += fmt.Sprintf(" (after %d attempts)", attempt+1)
		}
		retryable := status == 429 || status >= 500
		return restError(code, msg, status, retryable, hint(status))
	}
	if status == http.StatusNoContent || len(bytes.TrimSpace(body)) == 0 {
		v, derr = map[string]any{}, nil
	}
	if derr != nil {
		return restError("BAD_RESPONSE", fmt.Sprintf("the backend answered %d with something that is not JSON (%v): %s", status, derr, snippet(body)),
			status, false, "The backend is misbehaving; the model cannot fix this — tell the user.")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{"items": v}
	}
	return budgetResult(obj, p.cfg.budget())
}

// budgetResult is an object as structuredContent and the same JSON as text, cut to
// budget bytes when it is larger: the longest array is shortened from its end and a
// "_truncated" member says what was cut. When no array can make it fit, the result is
// an error that says so, with the start of the JSON.
func budgetResult(obj map[string]any, budget int) *mcp.CallToolResult {
	b, err := json.Marshal(obj)
	if err != nil {
		return restError("BAD_RESPONSE", err.Error(), 0, false, "")
	}
	if len(b) <= budget {
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	}
	full := len(b)
	path, arr, set := longestArray(obj, "")
	if arr != nil {
		// Binary search for the most items that fit with the marker.
		lo, hi := 0, len(arr)
		var best []byte
		for lo <= hi {
			mid := (lo + hi) / 2
			set(arr[:mid])
			obj["_truncated"] = map[string]any{
				"marker":        "TRUNCATED",
				"reason":        fmt.Sprintf("the response (%d bytes) is larger than this tool's budget of %d bytes", full, budget),
				"path":          path,
				"keptItems":     mid,
				"totalItems":    len(arr),
				"originalBytes": full,
				"hint":          "Ask for less: a smaller limit, further pages or narrower filters.",
			}
			c, _ := json.Marshal(obj)
			if len(c) <= budget {
				best = c
				lo = mid + 1
			} else {
				hi = mid - 1
			}
		}
		if best != nil {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(best), Content: []mcp.Content{&mcp.TextContent{Text: string(best)}}}
		}
		set(arr)
		delete(obj, "_truncated")
	}
	cut := b[:budget]
	for len(cut) > 0 && !utf8.Valid(cut) {
		cut = cut[:len(cut)-1]
	}
	msg := fmt.Sprintf("the response (%d bytes) is larger than this tool's budget of %d bytes and cannot be shortened by dropping list items; [TRUNCATED] start: %s", full, budget, cut)
	return restError("RESPONSE_TOO_LARGE", msg, 0, false, "Ask for less: a smaller limit or narrower filters.")
}

// longestArray finds the array with the most items in obj (depth-first through
// objects), returning its JSON pointer, the array and a setter.
func longestArray(obj map[string]any, at string) (string, []any, func([]any)) {
	var bestPath string
	var best []any
	var bestSet func([]any)
	for _, k := range sortedKeys(obj) {
		switch x := obj[k].(type) {
		case []any:
			if len(x) > len(best) {
				key := k
				bestPath, best, bestSet = at+"/"+k, x, func(a []any) { obj[key] = a }
			}
		case map[string]any:
			if p, a, s := longestArray(x, at+"/"+k); len(a) > len(best) {
				bestPath, best, bestSet = p, a, s
			}
		}
	}
	return bestPath, best, bestSet
}
