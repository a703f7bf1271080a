// Package mcpschema validates MCP messages against the official JSON Schemas of each
// protocol revision. The schemas are data owned by the specification project and are
// never copied into this repository: they are read from the directory named by the
// MCP_SCHEMA_DIR environment variable (CI sets it to ../shared/spec/schema).
//
// It is internal, for tests: ForTest skips the calling test with a clear message when
// MCP_SCHEMA_DIR is unset, and fails it when the variable is set but the files are
// missing.
package mcpschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// EnvVar names the directory holding schema-<revision>.json files.
const EnvVar = "MCP_SCHEMA_DIR"

// Schema is one revision's compiled schema file.
type Schema struct {
	Revision string
	url      string
	defsKey  string // "definitions" (draft-07) or "$defs" (2020-12)
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	defs     map[string]*jsonschema.Schema
	names    map[string]bool
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Schema{}
)

// Load reads schema-<revision>.json from dir.
func Load(dir, revision string) (*Schema, error) {
	path := filepath.Join(dir, "schema-"+revision+".json")
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[path]; ok {
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	obj, _ := doc.(map[string]any)
	s := &Schema{Revision: revision, url: "file:///mcp-schema-" + revision + ".json", defs: map[string]*jsonschema.Schema{}, names: map[string]bool{}}
	for _, k := range []string{"$defs", "definitions"} {
		if m, ok := obj[k].(map[string]any); ok {
			s.defsKey = k
			for n := range m {
				s.names[n] = true
			}
		}
	}
	if s.defsKey == "" {
		return nil, fmt.Errorf("%s: no definitions", path)
	}
	s.compiler = jsonschema.NewCompiler()
	if err := s.compiler.AddResource(s.url, doc); err != nil {
		return nil, err
	}
	cache[path] = s
	return s, nil
}

// ForTest loads the schema of revision from MCP_SCHEMA_DIR, skipping t when the
// variable is unset and failing it when the file cannot be read.
func ForTest(t testing.TB, revision string) *Schema {
	t.Helper()
	dir := os.Getenv(EnvVar)
	if dir == "" {
		t.Skipf("%s is not set: skipping validation against the official MCP schemas (CI sets it to ../shared/spec/schema)", EnvVar)
	}
	s, err := Load(dir, revision)
	if err != nil {
		t.Fatalf("%s is set but the schema of %s cannot be loaded: %v", EnvVar, revision, err)
	}
	return s
}

// Dir returns MCP_SCHEMA_DIR, or "" when unset.
func Dir() string { return os.Getenv(EnvVar) }

// Has reports whether the schema defines name.
func (s *Schema) Has(name string) bool { return s.names[name] }

// Validate checks a JSON document against the definition called name.
func (s *Schema) Validate(name string, doc []byte) error {
	sch, err := s.def(name)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s (revision %s): %v", name, s.Revision, err)
	}
	return nil
}

func (s *Schema) def(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.defs[name]; ok {
		return d, nil
	}
	if !s.names[name] {
		return nil, fmt.Errorf("revision %s defines no %q", s.Revision, name)
	}
	d, err := s.compiler.Compile(s.url + "#/" + s.defsKey + "/" + name)
	if err != nil {
		return nil, err
	}
	s.defs[name] = d
	return d, nil
}

// resultDefs maps a request method to the definition of its result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"logging/setLevel":         "EmptyResult",
	"completion/complete":      "CompleteResult",
	"sampling/createMessage":   "CreateMessageResult",
	"roots/list":               "ListRootsResult",
	"elicitation/create":       "ElicitResult",
	"server/discover":          "DiscoverResult",
	"tasks/get":                "GetTaskResult",
	"tasks/cancel":             "CancelTaskResult",
	"tasks/list":               "ListTasksResult",
}

// ResultDef returns the definition name of method's result ("" when unknown).
func ResultDef(method string) string { return resultDefs[method] }

// ValidateResponse checks a whole response message to a request of method: the
// envelope, and the result against the method's result definition.
func (s *Schema) ValidateResponse(method string, msg []byte) error {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return err
	}
	if env.Error != nil {
		name := "JSONRPCErrorResponse"
		if !s.Has(name) {
			name = "JSONRPCError"
		}
		return s.Validate(name, msg)
	}
	name := "JSONRPCResultResponse"
	if !s.Has(name) {
		name = "JSONRPCResponse"
	}
	if err := s.Validate(name, msg); err != nil {
		return err
	}
	def := resultDefs[method]
	if def == "" || !s.Has(def) {
		return nil
	}
	// A 2026-07-28 request may be answered with input_required instead.
	var rt struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(env.Result, &rt) == nil && rt.ResultType == "input_required" && s.Has("InputRequiredResult") {
		return s.Validate("InputRequiredResult", env.Result)
	}
	// The 2026-07-28 tasks extension answers with a flat CreateTaskResult, which the
	// core schema does not define: it is checked as a Result.
	if rt.ResultType == "task" && !s.Has("CreateTaskResult") {
		return s.Validate("Result", env.Result)
	}
	// A task-augmented call answers with CreateTaskResult instead.
	if bytes.Contains(env.Result, []byte(`"task"`)) && s.Has("CreateTaskResult") {
		if s.Validate("CreateTaskResult", env.Result) == nil {
			return nil
		}
	}
	return s.Validate(def, env.Result)
}

// ValidateServerMessage checks a request or notification the server sent.
func (s *Schema) ValidateServerMessage(msg []byte) error {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return err
	}
	if env.ID != nil {
		if err := s.Validate("JSONRPCRequest", msg); err != nil {
			return err
		}
		return s.Validate("ServerRequest", msg)
	}
	if err := s.Validate("JSONRPCNotification", msg); err != nil {
		return err
	}
	return s.Validate("ServerNotification", msg)
}
