package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/wiremcp/wiremcp/mcp/internal/schemagen"
)

// TypedToolHandler is the handler of a typed tool: in is the decoded, already
// validated arguments. Returning a nil result lets the library build it from out
// (structuredContent plus the same JSON as a text block); returning one keeps its
// content and sets structuredContent from out. A returned error becomes an isError
// result carrying its text, unless it is a *jsonrpc.Error.
type TypedToolHandler[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (*CallToolResult, Out, error)

// AddTool registers a typed tool on s. The input schema is derived from In and the
// output schema from Out (unless t sets them), with these rules:
//
//   - `json` tags name the members; a field without omitempty or omitzero is required;
//   - a `description:"…"` tag describes the member;
//   - an `mcp:"…"` tag adds constraints as ;-separated key=value items: enum=a|b|c,
//     default=x, minimum=1, maximum=9, exclusiveMinimum, exclusiveMaximum,
//     minLength, maxLength, pattern, format, minItems, maxItems, title, const, and the
//     flags required, optional and nullable.
//
// Arguments are validated against the input schema, then decoded into In with
// encoding/json.Unmarshal, with member names matched exactly, as the schema matches
// them. A member whose name differs from a field's json name only in case
// ({"RowLimit": -5} for `json:"rowLimit"`), which encoding/json would decode into the
// field although the schema checked it only as an unknown member, is refused with
// the isError result of invalid arguments, at any depth where the arguments decode
// into a struct (through pointers, slices, arrays and map values; not inside
// interfaces or json.RawMessage). Members of other names are the schema's business.
//
// When Out is the empty interface (any) the tool has no output schema and its result
// is whatever the handler returns. Schemas are compiled once, here; a type or tag the
// derivation cannot express panics (a programmer error).
func AddTool[In, Out any](s *Server, t *Tool, h TypedToolHandler[In, Out]) {
	if t == nil || t.Name == "" || h == nil {
		panic("mcp: AddTool needs a named tool and a handler")
	}
	tt := *t
	if len(tt.InputSchema) == 0 {
		raw, err := schemagen.For(reflect.TypeFor[In](), nil)
		if err != nil {
			panic(fmt.Sprintf("mcp: tool %q: input type: %v", t.Name, err))
		}
		tt.InputSchema = raw
	}
	outType := reflect.TypeFor[Out]()
	structured := outType.Kind() != reflect.Interface
	if structured && len(tt.OutputSchema) == 0 {
		raw, err := schemagen.For(outType, &schemagen.Options{NullableCollections: true})
		if err != nil {
			panic(fmt.Sprintf("mcp: tool %q: output type: %v", t.Name, err))
		}
		tt.OutputSchema = raw
	}
	inCase := checkedType(reflect.TypeFor[In]()) // nil: no struct to hold to exact names
	st := &serverTool{tool: &tt}
	var err error
	if st.in, err = compileToolSchema(tt.InputSchema); err != nil {
		panic(fmt.Sprintf("mcp: tool %q: input schema: %v", t.Name, err))
	}
	if len(tt.OutputSchema) > 0 {
		if st.out, err = compileToolSchema(tt.OutputSchema); err != nil {
			panic(fmt.Sprintf("mcp: tool %q: output schema: %v", t.Name, err))
		}
	}
	st.handler = func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var in In
		if inCase != nil {
			if err := checkArgumentCase(req.Params.Arguments, inCase); err != nil {
				return invalidArgumentsResult(ctx, req, err), nil
			}
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return invalidArgumentsResult(ctx, req, err), nil
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if !structured || (res != nil && res.IsError) {
			return res, nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("tool %q: encoding output: %w", req.Params.Name, err)
		}
		if res == nil {
			res = &CallToolResult{}
		}
		res.StructuredContent = json.RawMessage(raw)
		if len(res.Content) == 0 {
			res.Content = []Content{&TextContent{Text: string(raw)}}
		}
		return res, nil
	}
	s.addTool(st)
}
