package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Tool describes a tool the server offers.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // 2025-06-18+
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema object with "type":"object" at its root. Required for
	// raw registration; derived from the argument type for typed registration.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, is a JSON Schema object that structuredContent of every
	// successful result matches (2025-06-18+).
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"` // 2025-03-26+
	Execution    *ToolExecution   `json:"execution,omitempty"`   // 2025-11-25+
	Icons        []Icon           `json:"icons,omitempty"`       // 2025-11-25+
	Meta         Meta             `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution says how a tool may be run (2025-11-25+).
type ToolExecution struct {
	// TaskSupport is "forbidden" (default), "optional" or "required".
	TaskSupport string `json:"taskSupport,omitempty"`
}

// Bool returns a pointer to b, for the optional hints.
func Bool(b bool) *bool { return &b }

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Tools      []*Tool `json:"tools"`
	NextCursor string  `json:"nextCursor,omitempty"`
	Meta       Meta    `json:"_meta,omitempty"`
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name string `json:"name"`
	// Arguments is the raw JSON object of arguments (absent is treated as {}).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks for task-augmented execution (2025-11-25+).
	Task *TaskParams `json:"task,omitempty"`
	Meta Meta        `json:"_meta,omitempty"`
}

// TaskParams asks a receiver to run a request as a task.
type TaskParams struct {
	TTL *int64 `json:"ttl,omitempty"` // milliseconds
}

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content []Content
	// StructuredContent is the tool's structured output: a JSON object (any value
	// that marshals to one, or a json.RawMessage).
	StructuredContent any
	IsError           bool
	Meta              Meta
}

type wireCallToolResult struct {
	Content           []any `json:"content"` // see wireOf
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
	Meta              Meta  `json:"_meta,omitempty"`
	// 2026-07-28 result type, set by the server for that revision only.
	ResultType string `json:"resultType,omitempty"`
}

// MarshalJSON encodes the result; content is always present (possibly empty).
//
// Structured content given as a json.RawMessage is written as it is, not read
// again by encoding/json (whose check would be a second pass over bytes the
// caller encoded); if it is not valid JSON, neither is the result, and whoever
// takes the result's bytes refuses them: json.Marshal of the result returns an
// error, and a server answers the call with an internal error.
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	w := wireCallToolResult{Content: make([]any, len(r.Content)), IsError: r.IsError, Meta: r.Meta}
	for i, c := range r.Content {
		w.Content[i] = wireOf(c)
	}
	raw, isRaw := r.StructuredContent.(json.RawMessage)
	if !isRaw {
		w.StructuredContent = r.StructuredContent // nil stays out
		return json.Marshal(&w)
	}
	if len(raw) == 0 {
		return json.Marshal(&w)
	}
	// {"content":[…],"structuredContent":RAW,"isError":…,"_meta":…}: the members
	// in the order of wireCallToolResult.
	content, err := json.Marshal(w.Content)
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(&wireCallToolResult{IsError: w.IsError, Meta: w.Meta}) // {"content":null…}
	if err != nil {
		return nil, err
	}
	tail = tail[len(`{"content":null`):] // "}" or ",…}"
	out := make([]byte, 0, len(`{"content":,"structuredContent":`)+len(content)+len(raw)+len(tail))
	out = append(out, `{"content":`...)
	out = append(out, content...)
	out = append(out, `,"structuredContent":`...)
	out = append(out, raw...)
	return append(out, tail...), nil
}

// UnmarshalJSON decodes a result; StructuredContent becomes a json.RawMessage.
//
// A result with structured content is read once, by the scanner that reads every
// message: the structured content is kept as the bytes it came as (encoding/json
// would check it and then skip over it again), and only the content blocks,
// isError and _meta are decoded. Member names are matched as encoding/json matches
// them (exactly, else without regard to case; a later member wins), so both ways
// decode alike.
func (r *CallToolResult) UnmarshalJSON(b []byte) error {
	if !bytes.Contains(b, []byte(`"structuredContent"`)) {
		return r.unmarshalPlain(b)
	}
	out := CallToolResult{Content: []Content{}}
	var werr error
	ok := jsonrpc.Members(b, func(name, value []byte) bool {
		switch {
		case memberIs(name, "content"):
			var ws []wireContent
			if werr = json.Unmarshal(value, &ws); werr == nil {
				out.Content, werr = contentList(ws)
			}
		case memberIs(name, "structuredContent"):
			out.StructuredContent = nil
			if string(value) != "null" {
				out.StructuredContent = json.RawMessage(bytes.Clone(value))
			}
		case memberIs(name, "isError"):
			werr = json.Unmarshal(value, &out.IsError)
		case memberIs(name, "_meta"):
			werr = json.Unmarshal(value, &out.Meta)
		}
		return werr == nil
	})
	if werr != nil {
		return werr
	}
	if !ok {
		return errors.New("mcp: a tools/call result must be a well-formed JSON object")
	}
	*r = out
	return nil
}

// memberIs reports whether a member name selects the field name, as encoding/json
// decides it: the same name, or the same but for case.
func memberIs(member []byte, name string) bool {
	return string(member) == name || strings.EqualFold(string(member), name)
}

// unmarshalPlain decodes a result without structured content with encoding/json.
func (r *CallToolResult) unmarshalPlain(b []byte) error {
	// The blocks are decoded in the same pass as the rest (not kept raw and decoded
	// again): a result is read once.
	var w struct {
		Content           []wireContent   `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Meta              Meta            `json:"_meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	blocks, err := contentList(w.Content)
	if err != nil {
		return err
	}
	*r = CallToolResult{Content: blocks, IsError: w.IsError, Meta: w.Meta}
	if len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null" {
		r.StructuredContent = w.StructuredContent
	}
	return nil
}

// TextResult returns a result with one text block.
func TextResult(text string) *CallToolResult {
	// One allocation for the result, its content slice and the text block.
	b := &struct {
		r CallToolResult
		c [1]Content
		t TextContent
	}{t: TextContent{Text: text}}
	b.c[0] = &b.t
	b.r.Content = b.c[:]
	return &b.r
}

// InvalidArgumentsError says why the library refused a tool call's arguments
// before the tool ran (see ServerOptions.InvalidArgumentsHandler).
type InvalidArgumentsError struct {
	Tool string // the tool's name
	Err  error  // the schema validation or decoding error
}

func (e *InvalidArgumentsError) Error() string {
	return fmt.Sprintf("invalid arguments for tool %q: %v", e.Tool, e.Err)
}

func (e *InvalidArgumentsError) Unwrap() error { return e.Err }

// invalidArgumentsResult is the isError result of a call refused with err: the
// server's InvalidArgumentsHandler's, or one text block.
func invalidArgumentsResult(ctx context.Context, req *CallToolRequest, err error) *CallToolResult {
	ie := &InvalidArgumentsError{Tool: req.Params.Name, Err: err}
	if req.Session != nil {
		if h := req.Session.server.opts.InvalidArgumentsHandler; h != nil {
			if res := h(ctx, req, ie); res != nil {
				// runToolRequest completes it as a tool's own result (the text
				// block of structured content, the revision's shape).
				res.IsError = true
				return res
			}
		}
	}
	return ErrorResult("%v", ie)
}

// ErrorResult returns an isError result whose one text block is the message.
func ErrorResult(format string, args ...any) *CallToolResult {
	return &CallToolResult{Content: []Content{&TextContent{Text: fmt.Sprintf(format, args...)}}, IsError: true}
}
