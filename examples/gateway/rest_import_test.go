package main

// Tests of rest servers: configuration, declared tools, OpenAPI import, the demo.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/examples/gateway/kbapi"
	"github.com/wiremcp/wiremcp/mcp"
)

func TestRESTConfigErrors(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "kb.json")
	os.WriteFile(doc, kbapi.OpenAPI(), 0o644)
	os.WriteFile(filepath.Join(dir, "swagger.json"), []byte(`{"swagger": "2.0", "paths": {}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.json"), []byte(`<html>`), 0o644)
	tests := []struct {
		name string
		rest string
		want string
	}{
		{"authorization forwarded", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "forwardHeaders": ["Authorization"]}`, "forwardHeaders[0]: Authorization is a client credential"},
		{"both sources", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "tools": {"x": {"path": "/x"}}}`, "needs exactly one of openapi or tools"},
		{"no source", `{"baseUrl": "http://127.0.0.1:1"}`, "needs exactly one of openapi or tools"},
		{"bad url", `{"baseUrl": "ftp://x", "openapi": "kb.json"}`, "baseUrl: must be an http or https URL"},
		{"missing file", `{"baseUrl": "http://127.0.0.1:1", "openapi": "nope.json"}`, "cannot read the document"},
		{"unknown operation", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "operations": ["delete_everything"]}`, `operation "delete_everything" is not in the document`},
		{"POST not writable", `{"baseUrl": "http://127.0.0.1:1", "tools": {"make": {"method": "POST", "path": "/api/x"}}}`, "only when marked writable"},
		{"undeclared path var", `{"baseUrl": "http://127.0.0.1:1", "tools": {"get": {"path": "/api/x/{id}"}}}`, "path uses {id}"},
		{"retries too many", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "retries": 50}`, "retries: must be between 0 and 5"},
		{"swagger 2", `{"baseUrl": "http://127.0.0.1:1", "openapi": "swagger.json"}`, "Swagger 2.0 documents are not supported"},
		{"not JSON", `{"baseUrl": "http://127.0.0.1:1", "openapi": "junk.json"}`, "openapi: not a JSON document"},
		{"hop header forwarded", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "forwardHeaders": ["Transfer-Encoding"]}`, "cannot be forwarded"},
		{"unset env", `{"baseUrl": "http://127.0.0.1:1", "openapi": "kb.json", "headers": {"Authorization": "Bearer ${NO_SUCH_VAR_KB}"}}`, "NO_SUCH_VAR_KB is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(`{"servers": {"kb": {"rest": `+tc.rest+`}}}`), dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRESTDeclaredTools(t *testing.T) {
	b := startKB(t, nil)
	var lastMethod atomic.Value
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		lastMethod.Store(r.Method)
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"ok": true}]`)
			return true
		}
		return false
	})
	tg := startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"rest": {"baseUrl": %q, "writable": true, "tools": {
		"entity": {"description": "One entity", "path": "/api/entities/{id}",
		           "parameters": [{"name": "id", "in": "path", "argument": "entityId", "schema": {"type": "string", "format": "uuid"}},
		                          {"name": "x-project-slug", "in": "header", "argument": "project", "required": true, "schema": {"type": "string", "enum": ["psymetric", "atlas-notes"]}}]},
		"touch": {"method": "POST", "path": "/api/touch", "body": {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}}}}}}}`, b.srv.URL))
	cs := tg.connect(t, "/mcp/kb", nil)
	res, sc := restCall(t, cs, "entity", map[string]any{"entityId": "e0000002-0000-4000-8000-000000000001", "project": "atlas-notes"})
	if res.IsError || sc["data"].(map[string]any)["projectId"] != p2 {
		t.Errorf("entity: %s", resultText(res))
	}
	res, _ = restCall(t, cs, "entity", map[string]any{"entityId": "e0000002-0000-4000-8000-000000000001", "project": "vault"})
	if !res.IsError || !strings.Contains(resultText(res), "psymetric") {
		t.Errorf("enum not enforced: %s", resultText(res))
	}
	// A declared POST on a writable server: not read-only, its array wrapped.
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		ro := tool.Annotations != nil && tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint
		if ro != (tool.Name == "entity") {
			t.Errorf("%s: readOnlyHint %v", tool.Name, ro)
		}
	}
	res, sc = restCall(t, cs, "touch", map[string]any{"body": map[string]any{"note": "hi"}})
	if res.IsError || lastMethod.Load() != "POST" {
		t.Fatalf("touch: %s", resultText(res))
	}
	if diff := cmp.Diff(map[string]any{"items": []any{map[string]any{"ok": true}}}, sc); diff != "" {
		t.Errorf("array not wrapped (-want +got):\n%s", diff)
	}
	// A POST is not idempotent: a 503 is not retried (the retries default to 2).
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	before := b.calls.Load()
	if res, _ = restCall(t, cs, "touch", map[string]any{"body": map[string]any{"note": "again"}}); !res.IsError {
		t.Errorf("touch on a 503: %s", resultText(res))
	}
	if got := b.calls.Load() - before; got != 1 {
		t.Errorf("a POST answered 503 was sent %d times, want 1", got)
	}
}

func TestRESTPetstoreImport(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "petstore-3.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseOpenAPI(data)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := d.operations(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, op := range ops {
		names = append(names, op.Name)
	}
	want := []string{"findPetsByStatus", "findPetsByTags", "getPetById", "getInventory", "getOrderById", "loginUser", "logoutUser", "getUserByName"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("GET operations (-want +got):\n%s", diff)
	}
	// Every operation (GET or not) converts to schemas the reference validator
	// compiles, and the gateway's own registration accepts.
	var allIDs []string
	for _, path := range sortedKeys(d.root["paths"].(map[string]any)) {
		for _, op := range d.root["paths"].(map[string]any)[path].(map[string]any) {
			if m, ok := op.(map[string]any); ok && m["operationId"] != nil {
				allIDs = append(allIDs, m["operationId"].(string))
			}
		}
	}
	everything, err := restOps(&RESTConfig{OpenAPI: "x", Operations: allIDs, Writable: true}, data)
	if err != nil || len(everything) != 19 {
		t.Fatalf("all operations: %d, %v", len(everything), err)
	}
	p := newRESTPart("pets", &RESTConfig{BaseURL: "http://127.0.0.1:1"}, time.Minute, "", newLineRing(5))
	defer p.close() // never started: must not wait
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	for _, op := range everything {
		tool, err := p.tool(op, neverForwarded)
		if err != nil {
			t.Fatal(err)
		}
		compileSchema(t, tool.InputSchema)
		if len(tool.OutputSchema) > 0 {
			compileSchema(t, tool.OutputSchema)
		}
		if err := addTool(srv, &toolEntry{Tool: tool, Handler: p.handler(op, neverForwarded)}); err != nil {
			t.Errorf("%s: %v", op.Name, err)
		}
	}
	// Served through a gateway, every tool's schemas compile and a call goes through.
	pet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v3/pet/findByStatus":
			fmt.Fprintf(w, `[{"id": 1, "name": "Rex", "photoUrls": [], "status": %q, "nickname": null}]`, r.URL.Query().Get("status"))
		case strings.HasPrefix(r.URL.Path, "/api/v3/pet/"):
			fmt.Fprintf(w, `{"id": %s, "name": "Rex", "photoUrls": ["a"], "status": "available", "category": {"id": 2, "name": "Dogs"}}`, strings.TrimPrefix(r.URL.Path, "/api/v3/pet/"))
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, `{"code": 404, "message": "no such thing"}`)
		}
	}))
	defer pet.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "petstore.json"), data, 0o644)
	tg := startGateway(t, fmt.Sprintf(`{"servers": {"pets": {"rest": {"baseUrl": %q, "openapi": %q,
		"operations": ["findPetsByStatus", "getPetById", "addPet"], "writable": true}}}}`, pet.URL+"/api/v3", filepath.Join(dir, "petstore.json")))
	cs := tg.connect(t, "/mcp/pets", nil)
	got := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		got[tool.Name] = tool
	}
	if len(got) != 3 || got["addPet"] == nil || got["getPetById"] == nil || got["findPetsByStatus"] == nil {
		t.Fatalf("tools %v", got)
	}
	if !strings.Contains(string(got["addPet"].InputSchema), `"body"`) || *got["addPet"].Annotations.ReadOnlyHint {
		t.Errorf("addPet: %s", got["addPet"].InputSchema)
	}
	if !strings.Contains(string(got["findPetsByStatus"].InputSchema), `"sold"`) {
		t.Errorf("status enum missing: %s", got["findPetsByStatus"].InputSchema)
	}
	res, sc := restCall(t, cs, "getPetById", map[string]any{"petId": 7})
	if res.IsError || sc["id"] != 7.0 {
		t.Errorf("getPetById: %s", resultText(res))
	}
	res, sc = restCall(t, cs, "findPetsByStatus", map[string]any{"status": "sold"})
	if res.IsError || sc["items"].([]any)[0].(map[string]any)["status"] != "sold" {
		t.Errorf("findPetsByStatus: %s", resultText(res))
	}
	res, _ = restCall(t, cs, "findPetsByStatus", map[string]any{"status": "lost"})
	if !res.IsError || !strings.Contains(resultText(res), "available") {
		t.Errorf("bad enum: %s", resultText(res))
	}
	res, _ = restCall(t, cs, "getPetById", map[string]any{"petId": "seven"})
	if !res.IsError || !strings.Contains(resultText(res), "/petId") {
		t.Errorf("bad id: %s", resultText(res))
	}
}

func TestMCPToolName(t *testing.T) {
	long := strings.Repeat("operation", 10)
	tests := map[string]string{
		"getPetById":       "getPetById",
		"pets.list v2":     "pets_list_v2",
		"":                 "_",
		long:               long[:55] + "_",
		"get/api/{id}/ünï": "get_api__id___n_",
	}
	for in, want := range tests {
		got := mcpToolName(in)
		if len(got) > 64 || !toolNameMCP.MatchString(got) {
			t.Errorf("mcpToolName(%q) = %q: not a valid name", in, got)
		}
		if in == long {
			if !strings.HasPrefix(got, want) || len(got) != 64 || got == mcpToolName(long+"x") {
				t.Errorf("mcpToolName(long) = %q", got)
			}
			continue
		}
		if got != want {
			t.Errorf("mcpToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRESTNamesAndPaths(t *testing.T) {
	long := "list" + strings.Repeat("_everything", 8)
	doc := fmt.Sprintf(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
	  "/c": {"get": {"operationId": %q, "responses": {}}},
	  "/a": {"get": {"operationId": "a.b", "responses": {}}},
	  "/b": {"get": {"operationId": "a_b", "responses": {}}},
	  "/d/{name}": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}},
	                        "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}},
	                                       {"name": "session", "in": "cookie", "schema": {"type": "string"}},
	                                       {"name": "Authorization", "in": "header", "schema": {"type": "string"}}]}},
	  "/e": {"post": {"operationId": "make", "responses": {}}}},
	  "components": {"schemas": {"Node": {"type": "object", "properties": {"name": {"type": "string", "nullable": true}, "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}}`, long)
	d, err := parseOpenAPI([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := d.operations(nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, op := range ops {
		if !toolNameMCP.MatchString(op.Name) || names[op.Name] {
			t.Errorf("name %q invalid or repeated", op.Name)
		}
		names[op.Name] = true
	}
	if len(ops) != 4 || len(ops[0].Name) != 64 || !strings.HasPrefix(ops[1].Name, "a_b_") || !strings.HasPrefix(ops[2].Name, "a_b_") || ops[3].Name != "get_d_name" {
		t.Errorf("names: %s, %s, %s, %s", ops[0].Name, ops[1].Name, ops[2].Name, ops[3].Name)
	}
	if order := pathsOrder([]byte(doc)); !slices.Equal(order, []string{"/c", "/a", "/b", "/d/{name}", "/e"}) {
		t.Errorf("paths order %v", order)
	}
	// Cookie and Authorization parameters are never arguments; a recursive schema is cut.
	in, _ := json.Marshal(ops[3].inputSchema(neverForwarded))
	if strings.Contains(string(in), "session") || strings.Contains(string(in), "Authorization") {
		t.Errorf("input schema %s", in)
	}
	out, _ := json.Marshal(ops[3].Output)
	if !strings.Contains(string(out), `recursive: #/components/schemas/Node`) || !strings.Contains(string(out), `["string","null"]`) {
		t.Errorf("output schema %s", out)
	}
	// A path argument cannot climb out of its segment.
	b := startKB(t, nil)
	tg := startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"rest": {"baseUrl": %q, "tools": {
		"entity": {"path": "/api/entities/{id}", "parameters": [{"name": "id", "in": "path"}]}}}}}}`, b.srv.URL))
	cs := tg.connect(t, "/mcp/kb", nil)
	for _, id := range []string{"..", "."} {
		before := b.calls.Load()
		if res, _ := restCall(t, cs, "entity", map[string]any{"id": id}); !res.IsError {
			t.Errorf("id %q accepted: %s", id, resultText(res))
		}
		if b.calls.Load() != before {
			t.Errorf("id %q reached the API", id)
		}
	}
	res, sc := restCall(t, cs, "entity", map[string]any{"id": "../projects"})
	if e := restErr(t, res, sc); e["code"] != "BAD_REQUEST" || !strings.Contains(b.lastHeader(t).Get("User-Agent"), "wiremcp") {
		t.Errorf("escaped slash: %v", e)
	}
}

func TestDemoServesKB(t *testing.T) {
	c, err := demoConfig()
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	tg := &testGateway{g: g, srv: srv}
	t.Cleanup(func() { srv.CloseClientConnections(); g.Close(); srv.Close() })
	if _, _, body := tg.get(t, "/mcp", "text/html"); !strings.Contains(body, "/mcp/kb") || !strings.Contains(body, "knowledge-base API") {
		t.Errorf("the index does not show the kb server")
	}
	cs := tg.connect(t, "/mcp/kb", nil)
	if names := toolNames(t, cs); len(names) != 6 {
		t.Errorf("kb tools %v", names)
	}
	res, sc := restCall(t, cs, "search_entities", map[string]any{"projectId": p1, "entityType": "guide", "limit": 2})
	if res.IsError || len(items(t, sc)) != 2 {
		t.Errorf("search_entities: %s", resultText(res))
	}
	all := tg.connect(t, "/mcp/all", nil)
	if names := toolNames(t, all); !slices.Contains(names, "kb__get_entity_graph") {
		t.Errorf("/mcp/all lacks kb__get_entity_graph: %v", names)
	}
}

// TestREADMERESTExample keeps the README's rest example valid.
func TestREADMERESTExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## HTTP APIs as tools (`rest`)")
	_, rest, ok2 := strings.Cut(rest, "```json\n")
	example, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no rest example")
	}
	t.Setenv("KB_TOKEN", "x")
	c, err := ParseConfig([]byte(example), t.TempDir())
	if err != nil {
		t.Fatalf("README rest example: %v", err)
	}
	if c.Servers["kb"].REST == nil || len(c.Servers["status"].REST.Tools) != 1 {
		t.Errorf("parsed as %+v", c.Servers)
	}
}

func TestRESTOutputSchemaEnforced(t *testing.T) {
	// An answer that breaks the document's schema fails the call with a protocol
	// error naming the mismatch; with outputSchemas false it passes through.
	b := startKB(t, nil)
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data": [{"id": 7}], "pagination": {"page": 1, "limit": 20, "total": 1, "hasMore": false}}`)
		return true
	})
	for _, tc := range []struct {
		extra   string
		enforce bool
	}{{"", true}, {`"outputSchemas": false`, false}} {
		tg := kbGateway(t, b, tc.extra)
		cs := tg.connect(t, "/mcp/kb", nil)
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "list_projects", Arguments: json.RawMessage(`{}`)})
		if tc.enforce {
			if err == nil || !strings.Contains(err.Error(), "outputSchema") || !strings.Contains(err.Error(), "/data/0") {
				t.Errorf("enforced: result %v, error %v", res, err)
			}
			continue
		}
		if err != nil || res.IsError || !strings.Contains(resultText(res), `"id":7`) {
			t.Errorf("not enforced: result %v, error %v", res, err)
		}
		for tool, err := range cs.Tools(testCtx(t)) {
			if err != nil {
				t.Fatal(err)
			}
			if len(tool.OutputSchema) != 0 {
				t.Errorf("%s declares an output schema", tool.Name)
			}
		}
	}
}
