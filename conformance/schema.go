package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaSet validates server messages against the official JSON Schema of
// one revision (loaded from -schema-dir).
type schemaSet struct {
	rev   string
	mu    sync.Mutex
	comp  *jsonschema.Compiler
	url   string
	defs  string // "definitions" or "$defs"
	cache map[string]*jsonschema.Schema
}

// resultDefs maps a request method to the definition of its result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
	"server/discover":          "DiscoverResult",
}

// notificationDefs maps a server notification method to its definition.
var notificationDefs = map[string]string{
	"notifications/progress":               "ProgressNotification",
	"notifications/message":                "LoggingMessageNotification",
	"notifications/cancelled":              "CancelledNotification",
	"notifications/resources/updated":      "ResourceUpdatedNotification",
	"notifications/resources/list_changed": "ResourceListChangedNotification",
	"notifications/tools/list_changed":     "ToolListChangedNotification",
	"notifications/prompts/list_changed":   "PromptListChangedNotification",
}

// loadSchema reads schema-<rev>.json from dir.
func loadSchema(dir, rev string) (*schemaSet, error) {
	path := filepath.Join(dir, "schema-"+rev+".json")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("schema for %s: %w", rev, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	c := newSchemaCompiler()
	url := "mem:///schema-" + rev + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	defs := "$defs"
	if m, ok := doc.(map[string]any); ok {
		if _, ok := m["definitions"]; ok {
			defs = "definitions"
		}
	}
	return &schemaSet{rev: rev, comp: c, url: url, defs: defs, cache: map[string]*jsonschema.Schema{}}, nil
}

func (s *schemaSet) def(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[name]; ok {
		return sch, nil
	}
	sch, err := s.comp.Compile(s.url + "#/" + s.defs + "/" + name)
	if err != nil {
		return nil, err
	}
	s.cache[name] = sch
	return sch, nil
}

// validate checks m, which was received in the exchange for method: a
// result against the method's result definition, a notification against
// its own definition. Error responses and unknown methods are not checked
// (the official schemas disagree on the id of unreadable requests).
func (s *schemaSet) validate(method string, m Msg) error {
	var def string
	var inst json.RawMessage
	switch {
	case m.IsNotification():
		def, inst = notificationDefs[m.Method()], m.Raw
	case m.IsResponse() && m.Has("result"):
		def, inst = resultDefs[method], m.Members["result"]
		def = resultDefFor(method, def, inst) // input_required and task results (checks_mrtr.go)
	}
	if def == "" {
		return nil
	}
	sch, err := s.def(def)
	if err != nil {
		// A definition missing from this revision's schema is not the
		// server's fault.
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s does not match %s (schema-%s.json): %s%s", kindOf(m), method, def, s.rev, firstLines(err.Error(), 4), offending(err, v))
	}
	return nil
}

// firstLocated returns the first error, in depth-first order down to depth
// levels, that points below the root of the instance.
func firstLocated(ve *jsonschema.ValidationError, depth int) *jsonschema.ValidationError {
	if len(ve.InstanceLocation) > 0 {
		return ve
	}
	if depth == 0 {
		return nil
	}
	for _, c := range ve.Causes {
		if f := firstLocated(c, depth-1); f != nil {
			return f
		}
	}
	return nil
}

// offending shows the part of the instance where validation first failed,
// so the evidence names the member at fault (the first lines of an anyOf
// failure only say which alternative did not fit).
func offending(err error, inst any) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	ve = firstLocated(ve, 8)
	if ve == nil {
		return ""
	}
	v := inst
	for _, tok := range ve.InstanceLocation {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" [at /%s: %s]", strings.Join(ve.InstanceLocation, "/"), short(b))
}

func kindOf(m Msg) string {
	if m.IsNotification() {
		return "notification"
	}
	return "result of"
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " | ")
}

// compileToolSchema compiles a tool's inputSchema or outputSchema as JSON
// Schema (2020-12 unless it names another dialect with $schema). External
// references are not fetched; errLoad reports them.
func compileToolSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	// A tool's own formats keep the dialect's default (annotations in
	// 2020-12), but a draft-07 "uri-template" is judged by RFC 6570.
	c.RegisterFormat(uriTemplateFormat)
	const url = "mem:///tool-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		var le *jsonschema.LoadURLError
		var ue *jsonschema.UnsupportedURLSchemeError
		if errors.As(err, &le) || errors.As(err, &ue) {
			return nil, fmt.Errorf("%w: %v", errLoad, err)
		}
		return nil, err
	}
	return sch, nil
}

// errLoad marks schemas that reference documents the suite will not fetch.
var errLoad = errors.New("external reference not followed")

// validateInstance validates raw against sch.
func validateInstance(sch *jsonschema.Schema, raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// validBase64 reports whether s is standard base64 with padding.
func validBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}
