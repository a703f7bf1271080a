package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

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
// them. A whole number written with a fraction or an exponent (10.0, 1e3), which
// JSON Schema's "integer" admits and encoding/json refuses for an integer field,
// decodes as the integer it is (clients in languages without an integer type send
// such numbers; whole numbers elsewhere in those arguments, such as inside a
// json.RawMessage field, then arrive written as integers too); 10.5 is still
// refused there, and so is a number past the field's range. A member whose name differs from a field's json name only in case
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
		if err := decodeArguments(req.Params.Arguments, &in); err != nil {
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

// decodeArguments decodes the arguments into in with encoding/json,
// and, when that refuses a number for an integer field, decodes them again with
// every whole number written with a fraction or an exponent (10.0, 1e3) written as
// the integer it is. The first error stands when that does not help.
func decodeArguments[T any](args json.RawMessage, in *T) error {
	err := json.Unmarshal(args, in)
	var ute *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &ute) || !strings.HasPrefix(ute.Value, "number") {
		return err
	}
	fixed, changed := wholeNumbers(args)
	if !changed {
		return err
	}
	// Into a new value: what the failed decoding set in part does not carry over.
	var fresh T
	if json.Unmarshal(fixed, &fresh) != nil {
		return err
	}
	*in = fresh
	return nil
}

// wholeNumbers returns raw (valid JSON) with each number outside strings whose
// value is a whole number of at most 20 digits, but which is written with a
// fraction or an exponent (10.0, 1e3, 2.50e1, -0.0), written as that integer
// instead; changed reports whether there was any. Other numbers (10.5, 1e400)
// keep their text: decoding them into an integer fails as before.
func wholeNumbers(raw []byte) (out []byte, changed bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b []byte
	last := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		n, ok := tok.(json.Number)
		if !ok || !strings.ContainsAny(string(n), ".eE") {
			continue
		}
		whole, ok := wholeNumber(string(n))
		if !ok {
			continue
		}
		end := int(dec.InputOffset())
		start := end - len(n)
		b = append(b, raw[last:start]...)
		b = append(b, whole...)
		last = end
		changed = true
	}
	if !changed {
		return raw, false
	}
	return append(b, raw[last:]...), true
}

// wholeNumber returns the JSON number s (with a fraction or an exponent) as an
// integer of at most 20 digits, when it is a whole number that fits that.
func wholeNumber(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return "", false
		}
		mant, exp = s[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	scale := exp - len(frac) // value = digits × 10^scale
	if digits == "" {
		return "0", true
	}
	if scale < 0 {
		cut := len(digits) + scale
		if cut <= 0 || strings.Trim(digits[cut:], "0") != "" {
			return "", false // a fraction remains
		}
		digits = digits[:cut]
	} else {
		if len(digits)+scale > 20 {
			return "", false
		}
		digits += strings.Repeat("0", scale)
	}
	if len(digits) > 20 {
		return "", false
	}
	if neg {
		return "-" + digits, true
	}
	return digits, true
}
