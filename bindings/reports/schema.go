package reports

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schema/*.json
var schemaFS embed.FS

func mustSchemaText(name string) json.RawMessage {
	b, err := schemaFS.ReadFile("schema/" + name)
	if err != nil {
		panic("reports: missing embedded schema " + name)
	}
	return json.RawMessage(b)
}

// The JSON Schemas of the binding, as embedded text. They are written in draft 2020-12
// (MCP's default dialect) but carry no "$schema" member, so that clients whose
// validators default to draft-07 (Ajv) compile them too: they use no keyword whose
// meaning differs between the two. Servers declare them verbatim as the tools'
// inputSchema and outputSchema. Treat them as read-only.
var (
	// ReportSchema describes a full Report: a file on disk and REPORTS_GET's output.
	ReportSchema = mustSchemaText("report.schema.json")
	// ListInputSchema is REPORTS_LIST's input schema.
	ListInputSchema = mustSchemaText("list-input.schema.json")
	// ListOutputSchema is REPORTS_LIST's output schema.
	ListOutputSchema = mustSchemaText("list-output.schema.json")
	// GetInputSchema is REPORTS_GET's input schema.
	GetInputSchema = mustSchemaText("get-input.schema.json")
	// GetOutputSchema is REPORTS_GET's output schema: the Report schema without the
	// rules that only files must follow (the id's character set, no unknown members),
	// so that any server implementing the binding can be checked against it.
	GetOutputSchema = relaxed(ReportSchema)
	// UpdateStatusInputSchema is REPORTS_UPDATE_STATUS's input schema.
	UpdateStatusInputSchema = mustSchemaText("update-status-input.schema.json")
	// UpdateStatusOutputSchema is REPORTS_UPDATE_STATUS's output schema.
	UpdateStatusOutputSchema = mustSchemaText("update-status-output.schema.json")
)

// compiled holds every schema compiled once, at package initialisation.
var compiled = func() map[string]*jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	texts := map[string]json.RawMessage{
		SchemaReport: ReportSchema, SchemaListInput: ListInputSchema, SchemaListOutput: ListOutputSchema,
		SchemaGetInput: GetInputSchema, SchemaGetOutput: GetOutputSchema,
		SchemaUpdateStatusInput: UpdateStatusInputSchema, SchemaUpdateStatusOutput: UpdateStatusOutputSchema,
	}
	out := make(map[string]*jsonschema.Schema, len(texts))
	for n, text := range texts {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			panic(fmt.Sprintf("reports: embedded schema %s: %v", n, err))
		}
		url := "mem:///reports/" + n
		if err := c.AddResource(url, doc); err != nil {
			panic(fmt.Sprintf("reports: embedded schema %s: %v", n, err))
		}
		s, err := c.Compile(url)
		if err != nil {
			panic(fmt.Sprintf("reports: embedded schema %s does not compile: %v", n, err))
		}
		out[n] = s
	}
	return out
}()

// Schema names accepted by [ValidateJSON]. SchemaReport is the strict form for report
// files; SchemaGetOutput is what any server's REPORTS_GET answer must match.
const (
	SchemaReport             = "report.schema.json"
	SchemaListInput          = "list-input.schema.json"
	SchemaListOutput         = "list-output.schema.json"
	SchemaGetInput           = "get-input.schema.json"
	SchemaGetOutput          = "get-output.schema.json"
	SchemaUpdateStatusInput  = "update-status-input.schema.json"
	SchemaUpdateStatusOutput = "update-status-output.schema.json"
)

// MaxReportSize is the largest report file, in bytes, that [Parse] accepts.
const MaxReportSize = 8 << 20

// ValidationError lists what is wrong with a document, one problem per entry, each
// starting with the JSON Pointer of the offending value.
type ValidationError struct {
	Problems []string
}

// Error joins the problems into one line.
func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid report: " + e.Problems[0]
	}
	return "invalid report: " + strings.Join(e.Problems, "; ")
}

// ValidateJSON checks data against the named embedded schema (one of the Schema…
// constants). It also rejects duplicate object members, which JSON decoders resolve
// inconsistently.
func ValidateJSON(schema string, data []byte) error {
	s, ok := compiled[schema]
	if !ok {
		return fmt.Errorf("reports: unknown schema %q", schema)
	}
	if err := checkDuplicates(data); err != nil {
		return &ValidationError{Problems: []string{err.Error()}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &ValidationError{Problems: []string{"not valid JSON: " + err.Error()}}
	}
	if err := s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &ValidationError{Problems: flatten(ve)}
		}
		return &ValidationError{Problems: []string{err.Error()}}
	}
	return nil
}

// flatten turns the library's error tree into one line per leaf cause. The library
// prints the tree as indented "- at '<pointer>': <message>" lines; a leaf is a line not
// followed by a more deeply indented one.
func flatten(ve *jsonschema.ValidationError) []string {
	type line struct {
		depth int
		text  string
	}
	var lines []line
	for _, l := range strings.Split(ve.Error(), "\n") {
		t := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(t, "- at '") {
			continue
		}
		lines = append(lines, line{len(l) - len(t), strings.TrimPrefix(t, "- ")})
	}
	var out []string
	for i, l := range lines {
		if i+1 < len(lines) && lines[i+1].depth > l.depth {
			continue
		}
		text := l.text
		if rest, ok := strings.CutPrefix(text, "at '"); ok {
			if ptr, msg, ok := strings.Cut(rest, "': "); ok {
				if ptr == "" {
					ptr = "/"
				}
				text = "at " + ptr + ": " + msg
			}
		}
		out = append(out, text)
	}
	sort.Strings(out)
	out = compactStrings(out)
	if len(out) == 0 {
		out = []string{ve.Error()}
	}
	return out
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// checkDuplicates walks data token by token and fails on a repeated member name.
func checkDuplicates(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*dupFrame
	for tokens := 0; ; tokens++ {
		if tokens > 10_000_000 {
			return errors.New("document too large")
		}
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not valid JSON: %v", err)
		}
		var top *dupFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				markValue(stack)
				continue
			}
			k, _ := tok.(string)
			if top.seen[k] {
				return fmt.Errorf("duplicate member %q", k)
			}
			top.seen[k] = true
			top.key = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			if len(stack) >= 64 {
				return errors.New("nesting deeper than 64 levels")
			}
			stack = append(stack, &dupFrame{obj: true, seen: map[string]bool{}, key: true})
		case '[':
			if len(stack) >= 64 {
				return errors.New("nesting deeper than 64 levels")
			}
			stack = append(stack, &dupFrame{})
		case ']', '}':
			stack = stack[:len(stack)-1]
			markValue(stack)
		default:
			markValue(stack)
		}
	}
}

// dupFrame is one open object or array in checkDuplicates.
type dupFrame struct {
	obj  bool
	seen map[string]bool
	key  bool // the next token in this object is a member name
}

// markValue records that a whole value was read inside the innermost container: in an
// object, a member name comes next.
func markValue(stack []*dupFrame) {
	if n := len(stack); n > 0 && stack[n-1].obj {
		stack[n-1].key = true
	}
}

// relaxed returns a copy of a schema without "additionalProperties": false anywhere and
// with the id reduced to a non-empty string.
func relaxed(text json.RawMessage) json.RawMessage {
	var doc map[string]any
	if err := json.Unmarshal(text, &doc); err != nil {
		panic("reports: embedded schema: " + err.Error())
	}
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if b, ok := v["additionalProperties"].(bool); ok && !b {
				delete(v, "additionalProperties")
			}
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(doc)
	doc["$defs"].(map[string]any)["id"] = map[string]any{"type": "string", "minLength": 1}
	doc["title"] = "REPORTS_GET output"
	out, err := json.Marshal(doc)
	if err != nil {
		panic("reports: embedded schema: " + err.Error())
	}
	return out
}
