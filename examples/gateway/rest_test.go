package main

// Tests of rest servers (rest.go) through the gateway's MCP endpoint, against the
// demo API of package kbapi: tools, happy paths, validation, errors, isolation,
// pagination and the byte budget. rest_limits_test.go and rest_import_test.go hold
// the rest.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wiremcp/wiremcp/examples/gateway/kbapi"
	"github.com/wiremcp/wiremcp/mcp"
)

// kbBackend is the demo API on 127.0.0.1, counting the requests that reach /api/ and
// letting a test put a fault in front of it.
type kbBackend struct {
	srv   *httptest.Server
	calls atomic.Int64

	mu      sync.Mutex
	fault   func(w http.ResponseWriter, r *http.Request) bool // true: answered
	headers []http.Header
}

func startKB(t testing.TB, o *kbapi.Options) *kbBackend {
	t.Helper()
	b := &kbBackend{}
	api := kbapi.New(o)
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			b.calls.Add(1)
			b.mu.Lock()
			b.headers = append(b.headers, r.Header.Clone())
			f := b.fault
			b.mu.Unlock()
			if f != nil && f(w, r) {
				return
			}
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *kbBackend) setFault(f func(w http.ResponseWriter, r *http.Request) bool) {
	b.mu.Lock()
	b.fault = f
	b.mu.Unlock()
}

func (b *kbBackend) lastHeader(t *testing.T) http.Header {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.headers) == 0 {
		t.Fatal("the backend saw no request")
	}
	return b.headers[len(b.headers)-1]
}

// kbGateway serves a gateway whose server "kb" bridges b; extra is merged into the
// "rest" member (JSON members without braces, e.g. `"timeout": "1s"`).
func kbGateway(t *testing.T, b *kbBackend, extra string) *testGateway {
	t.Helper()
	if extra != "" {
		extra = ", " + extra
	}
	return startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"description": "knowledge base",
		"rest": {"baseUrl": %q, "openapi": %q %s}}}}`, b.srv.URL, b.srv.URL+"/openapi.json", extra))
}

// call calls a tool and returns the result with its structured content decoded.
// graphRelationships calls get_entity_graph with args and returns the
// relationships of its answer.
func graphRelationships(t *testing.T, cs *mcp.ClientSession, args map[string]any) []map[string]any {
	t.Helper()
	res, sc := restCall(t, cs, "get_entity_graph", args)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	var out []map[string]any
	for _, r := range sc["data"].(map[string]any)["relationships"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func restCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(args)
	if args == nil {
		raw = []byte(`{}`)
	}
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var sc map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("structuredContent of %s: %v", name, err)
		}
	}
	return res, sc
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// items returns data[] of a list result.
func items(t *testing.T, sc map[string]any) []map[string]any {
	t.Helper()
	a, ok := sc["data"].([]any)
	if !ok {
		t.Fatalf("no data array in %v", sc)
	}
	out := make([]map[string]any, len(a))
	for i, e := range a {
		out[i] = e.(map[string]any)
	}
	return out
}

func pluck(ms []map[string]any, key string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _ = m[key].(string)
	}
	return out
}

const (
	p1 = kbapi.DefaultProjectID
	p2 = kbapi.AtlasProjectID
)

func TestRESTTools(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
		if a := tool.Annotations; a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
			t.Errorf("%s: readOnlyHint not true: %+v", tool.Name, a)
		}
		if len(tool.OutputSchema) == 0 {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
	// In the document's order.
	want := []string{"list_projects", "search_entities", "get_entity", "get_entity_graph", "list_search_performance", "list_quotable_blocks"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	var in struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(byName["search_entities"].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	var props []string
	for k := range in.Properties {
		props = append(props, k)
	}
	slices.Sort(props)
	if diff := cmp.Diff([]string{"conceptKind", "entityType", "limit", "page", "projectId", "search", "status"}, props); diff != "" {
		t.Errorf("search_entities properties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"projectId"}, in.Required); diff != "" {
		t.Errorf("search_entities required (-want +got):\n%s", diff)
	}
	// Keywords beside a $ref (OpenAPI 3.1) apply on top of the referenced schema.
	if ex, _ := in.Properties["projectId"]["examples"].([]any); len(ex) != 1 || in.Properties["projectId"]["pattern"] == nil {
		t.Errorf("projectId schema %v: the $ref and its sibling examples were not merged", in.Properties["projectId"])
	}
	if in.Properties["projectId"]["format"] != "uuid" || in.Properties["limit"]["maximum"] != 100.0 {
		t.Errorf("projectId/limit schemas: %v %v", in.Properties["projectId"], in.Properties["limit"])
	}
	if b.calls.Load() != 0 {
		t.Errorf("listing tools called the API %d times", b.calls.Load())
	}
	// The index page shows the server and its tool count.
	if _, _, body := tg.get(t, "/mcp", "text/html"); !strings.Contains(body, "kb") {
		t.Errorf("index does not show the server")
	}
}

func TestRESTHappyPaths(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	data := kbapi.Sample()
	someConcept := ""
	for _, e := range data.Entities {
		if e.ProjectID == p1 && e.EntityType == "concept" {
			someConcept = e.ID
			break
		}
	}
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		check func(t *testing.T, sc map[string]any)
	}{
		{"projects by slug", "list_projects", nil, func(t *testing.T, sc map[string]any) {
			if diff := cmp.Diff([]string{"atlas-notes", "psymetric", "vault"}, pluck(items(t, sc), "slug")); diff != "" {
				t.Errorf("slugs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]any{"page": 1.0, "limit": 20.0, "total": 3.0, "hasMore": false}, sc["pagination"]); diff != "" {
				t.Errorf("pagination (-want +got):\n%s", diff)
			}
		}},
		{"concepts only", "search_entities", map[string]any{"projectId": p1, "entityType": "concept", "limit": 100}, func(t *testing.T, sc map[string]any) {
			es := items(t, sc)
			if len(es) != 12 {
				t.Errorf("got %d concepts, want 12", len(es))
			}
			for _, e := range es {
				if e["entityType"] != "concept" || e["projectId"] != p1 {
					t.Errorf("entity %v", e)
				}
			}
		}},
		{"search title and slug", "search_entities", map[string]any{"projectId": p1, "search": "TOOLKIT"}, func(t *testing.T, sc map[string]any) {
			es := items(t, sc)
			if len(es) == 0 {
				t.Fatal("no match")
			}
			for _, e := range es {
				if !strings.Contains(strings.ToLower(e["title"].(string)), "toolkit") {
					t.Errorf("unexpected match %v", e["title"])
				}
			}
		}},
		{"get entity", "get_entity", map[string]any{"projectId": p1, "entityId": someConcept}, func(t *testing.T, sc map[string]any) {
			e := sc["data"].(map[string]any)
			if e["id"] != someConcept || e["entityType"] != "concept" {
				t.Errorf("entity %v", e)
			}
			if _, has := sc["pagination"]; has {
				t.Error("a single entity has no pagination")
			}
		}},
		{"graph depth 1", "get_entity_graph", map[string]any{"projectId": p1, "entityId": someConcept}, func(t *testing.T, sc map[string]any) {
			g := sc["data"].(map[string]any)
			rels := g["relationships"].([]any)
			if g["depth"] != 1.0 || len(rels) == 0 {
				t.Fatalf("graph %v", g)
			}
			for _, r := range rels {
				r := r.(map[string]any)
				if r["fromEntityId"] != someConcept && r["toEntityId"] != someConcept {
					t.Errorf("depth-1 edge not touching the root: %v", r)
				}
				if re, ok := r["relatedEntity"].(map[string]any); ok && len(re) != 5 {
					t.Errorf("related entity has %d fields, want 5: %v", len(re), re)
				}
			}
		}},
		{"search performance", "list_search_performance", map[string]any{"projectId": p1, "dateStart": "2025-03-10", "dateEnd": "2025-03-30T00:00:00.000Z", "limit": 100}, func(t *testing.T, sc map[string]any) {
			rs := items(t, sc)
			if len(rs) != 18 { // the weeks starting 03-10, 03-17 and 03-24 end by 03-30
				t.Errorf("got %d records, want 18", len(rs))
			}
		}},
		{"quotable blocks", "list_quotable_blocks", map[string]any{"projectId": p1, "claimType": "definition"}, func(t *testing.T, sc map[string]any) {
			bs := items(t, sc)
			if len(bs) == 0 {
				t.Fatal("none")
			}
			for _, x := range bs {
				if x["claimType"] != "definition" {
					t.Errorf("block %v", x)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, sc := restCall(t, cs, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("isError: %s", resultText(res))
			}
			// The text is the same JSON as structuredContent.
			var fromText map[string]any
			if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil {
				t.Fatalf("text is not JSON: %v", err)
			}
			if diff := cmp.Diff(sc, fromText); diff != "" {
				t.Errorf("text and structuredContent differ:\n%s", diff)
			}
			tc.check(t, sc)
		})
	}
}

func TestRESTValidationBeforeBackend(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	ent := "e0000001-0000-4000-8000-000000000002"
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string // in the isError text: the field and what it accepts
	}{
		{"projectId missing", "search_entities", map[string]any{}, []string{"projectId"}},
		{"projectId not a UUID", "search_entities", map[string]any{"projectId": "psymetric"}, []string{"/projectId", "uuid"}},
		{"projectId wrong version digit", "get_entity", map[string]any{"projectId": "00000000-0000-0000-a000-000000000001", "entityId": ent}, []string{"/projectId", "pattern"}},
		{"entityId not a UUID", "get_entity", map[string]any{"projectId": p1, "entityId": "42"}, []string{"/entityId", "uuid"}},
		{"entityType enum", "search_entities", map[string]any{"projectId": p1, "entityType": "blog"}, []string{"/entityType", "guide", "concept", "project", "news"}},
		{"status enum", "search_entities", map[string]any{"projectId": p1, "status": "live"}, []string{"/status", "publish_requested", "archived"}},
		{"conceptKind enum", "search_entities", map[string]any{"projectId": p1, "conceptKind": "theory"}, []string{"/conceptKind", "standard", "model", "comparison"}},
		{"limit above 100", "search_entities", map[string]any{"projectId": p1, "limit": 101}, []string{"/limit", "<= 100"}},
		{"limit 0", "list_projects", map[string]any{"limit": 0}, []string{"/limit", ">= 1"}},
		{"page 0", "list_projects", map[string]any{"page": 0}, []string{"/page", ">= 1"}},
		{"page past what JSON clients count exactly", "list_projects", map[string]any{"page": 1e16}, []string{"/page", "9007199254740991"}},
		{"page not an integer", "list_projects", map[string]any{"page": 1.5}, []string{"/page", "integer"}},
		{"page as a string", "list_projects", map[string]any{"page": "2"}, []string{"/page", "integer"}},
		{"depth 3", "get_entity_graph", map[string]any{"projectId": p1, "entityId": ent, "depth": 3}, []string{"/depth", "1", "2"}},
		{"relationship type", "get_entity_graph", map[string]any{"projectId": p1, "entityId": ent, "relationshipTypes": "GUIDE_USES_CONCEPT,FRIEND_OF"}, []string{"/relationshipTypes", "VIDEO_EXPLAINS_NEWS"}},
		{"locale date", "list_search_performance", map[string]any{"projectId": p1, "dateStart": "02/20/2025"}, []string{"/dateStart", "pattern"}},
		{"date with offset", "list_search_performance", map[string]any{"projectId": p1, "dateEnd": "2025-02-20T14:30:00+01:00"}, []string{"/dateEnd", "pattern"}},
		{"date with one fraction digit", "list_search_performance", map[string]any{"projectId": p1, "dateStart": "2025-02-20T14:30:00.5Z"}, []string{"/dateStart", "pattern"}},
		{"date without Z", "list_quotable_blocks", map[string]any{"projectId": p1, "verifiedUntilBefore": "2025-02-20T14:30:00"}, []string{"/verifiedUntilBefore"}},
		{"impossible date", "list_quotable_blocks", map[string]any{"projectId": p1, "verifiedUntilAfter": "2025-02-30"}, []string{"/verifiedUntilAfter", "not a valid date"}},
		{"claimType enum", "list_quotable_blocks", map[string]any{"projectId": p1, "claimType": "opinion"}, []string{"/claimType", "statistic", "howto_step"}},
		{"entityId filter", "list_search_performance", map[string]any{"projectId": p1, "entityId": "nope"}, []string{"/entityId"}},
		{"unknown argument", "list_projects", map[string]any{"sort": "name"}, []string{"sort"}},
		{"scope header as argument", "list_projects", map[string]any{"x-project-id": p1}, []string{"x-project-id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := b.calls.Load()
			res, _ := restCall(t, cs, tc.tool, tc.args)
			text := resultText(res)
			if !res.IsError {
				t.Fatalf("accepted: %s", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q does not mention %q", text, w)
				}
			}
			if n := b.calls.Load() - before; n != 0 {
				t.Errorf("the backend was called %d times", n)
			}
		})
	}
}

// compileSchema compiles a JSON Schema with the reference validator.
func compileSchema(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///out.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///out.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

// jsonValue re-decodes v the way the reference validator wants it.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, _ := json.Marshal(v)
	out, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restErr decodes the structured error of an isError result.
func restErr(t *testing.T, res *mcp.CallToolResult, sc map[string]any) map[string]any {
	t.Helper()
	if !res.IsError {
		t.Fatalf("not an error: %s", resultText(res))
	}
	e, ok := sc["error"].(map[string]any)
	if !ok {
		t.Fatalf("no structured error: %v", sc)
	}
	for _, k := range []string{"code", "message", "retryable", "hint"} {
		if _, ok := e[k]; !ok {
			t.Errorf("structured error lacks %q: %v", k, e)
		}
	}
	return e
}

func TestRESTErrorCodes(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, `"retries": 0`)
	cs := tg.connect(t, "/mcp/kb", nil)
	envelope := func(status int, code string) func(w http.ResponseWriter, r *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":%q,"message":"injected %s"}}`, code, code)
			return true
		}
	}
	tests := []struct {
		name      string
		fault     func(w http.ResponseWriter, r *http.Request) bool
		tool      string
		args      map[string]any
		code      string
		status    float64
		retryable bool
		msg       string
	}{
		{"dateStart after dateEnd", nil, "list_search_performance", map[string]any{"projectId": p1, "dateStart": "2025-03-10", "dateEnd": "2025-03-01"},
			"BAD_REQUEST", 400, false, "dateStart (2025-03-10) is after dateEnd (2025-03-01)"},
		{"unknown project", nil, "search_entities", map[string]any{"projectId": "00000000-0000-4000-a000-0000000000ff"}, "NOT_FOUND", 404, false, "project not found"},
		{"missing entity", nil, "get_entity", map[string]any{"projectId": p1, "entityId": "e0000001-0000-4000-8000-0000000fffff"}, "NOT_FOUND", 404, false, "entity not found"},
		{"locked project", nil, "search_entities", map[string]any{"projectId": kbapi.VaultProjectID}, "FORBIDDEN", 403, false, "not permitted"},
		{"unauthorized", envelope(401, "UNAUTHORIZED"), "list_projects", nil, "UNAUTHORIZED", 401, false, "injected"},
		{"conflict", envelope(409, "CONFLICT"), "list_projects", nil, "CONFLICT", 409, false, "injected"},
		{"server error", envelope(500, "SERVER_ERROR"), "list_projects", nil, "SERVER_ERROR", 500, true, "injected"},
		{"HTML error page", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			return true
		}, "list_projects", nil, "BAD_GATEWAY", 502, true, "502 Bad Gateway"},
		{"HTML with 200", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>login page</html>")
			return true
		}, "list_projects", nil, "BAD_RESPONSE", 200, false, "not JSON"},
		{"garbage JSON", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data": [1, 2`)
			return true
		}, "list_projects", nil, "BAD_RESPONSE", 200, false, "not JSON"},
	}
	outSchemas := map[string]*jsonschema.Schema{}
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		outSchemas[tool.Name] = compileSchema(t, tool.OutputSchema)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b.setFault(tc.fault)
			defer b.setFault(nil)
			before := b.calls.Load()
			res, sc := restCall(t, cs, tc.tool, tc.args)
			e := restErr(t, res, sc)
			// Clients check structured content against the output schema even on
			// an error result: the error shape must conform.
			if err := outSchemas[tc.tool].Validate(jsonValue(t, sc)); err != nil {
				t.Errorf("error result does not match %s's output schema: %v", tc.tool, err)
			}
			if e["code"] != tc.code || e["status"] != tc.status || e["retryable"] != tc.retryable {
				t.Errorf("error = %v; want code %s status %v retryable %v", e, tc.code, tc.status, tc.retryable)
			}
			if !strings.Contains(e["message"].(string), tc.msg) {
				t.Errorf("message %q does not contain %q", e["message"], tc.msg)
			}
			if n := b.calls.Load() - before; n != 1 {
				t.Errorf("backend called %d times, want 1", n)
			}
		})
	}
	// The session survives all of that.
	if res, _ := restCall(t, cs, "list_projects", nil); res.IsError {
		t.Errorf("after the errors: %s", resultText(res))
	}
}

func TestRESTCrossProject(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	data := kbapi.Sample()
	var atlasEntity, concept1 string
	for _, e := range data.Entities {
		if e.ProjectID == p2 && atlasEntity == "" {
			atlasEntity = e.ID
		}
	}
	concept1 = "e0000001-0000-4000-8000-000000000002" // carries the planted cross-project edge
	res, sc := restCall(t, cs, "get_entity", map[string]any{"projectId": p1, "entityId": atlasEntity})
	foreign := restErr(t, res, sc)
	res, sc = restCall(t, cs, "get_entity", map[string]any{"projectId": p1, "entityId": "e0000009-0000-4000-8000-000000000001"})
	missing := restErr(t, res, sc)
	if diff := cmp.Diff(missing, foreign); diff != "" {
		t.Errorf("another project's entity is told apart from a missing one:\n%s", diff)
	}
	if res, sc := restCall(t, cs, "get_entity", map[string]any{"projectId": p2, "entityId": atlasEntity}); res.IsError || sc["data"].(map[string]any)["projectId"] != p2 {
		t.Errorf("in its own project: %s", resultText(res))
	}
	// A search in one project never returns another's entities.
	res, sc = restCall(t, cs, "search_entities", map[string]any{"projectId": p2, "limit": 100})
	for _, e := range items(t, sc) {
		if e["projectId"] != p2 {
			t.Errorf("entity of %v in project %s", e["projectId"], p2)
		}
	}
	// The graph never follows the planted edge into the other project.
	for _, depth := range []int{1, 2} {
		res, sc = restCall(t, cs, "get_entity_graph", map[string]any{"projectId": p1, "entityId": concept1, "depth": depth})
		if res.IsError {
			t.Fatal(resultText(res))
		}
		if strings.Contains(resultText(res), "cross-project") || strings.Contains(resultText(res), "e0000002-") {
			t.Errorf("depth %d graph crosses projects", depth)
		}
	}
}

func TestRESTGraphDepthAndOrder(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	root := "e0000001-0000-4000-8000-000000000002"
	d1 := graphRelationships(t, cs, map[string]any{"projectId": p1, "entityId": root, "depth": 1})
	d2 := graphRelationships(t, cs, map[string]any{"projectId": p1, "entityId": root, "depth": 2})
	if len(d2) <= len(d1) {
		t.Errorf("depth 2 (%d edges) adds nothing to depth 1 (%d)", len(d2), len(d1))
	}
	for _, rs := range [][]map[string]any{d1, d2} {
		if !slices.IsSortedFunc(rs, func(x, y map[string]any) int {
			if c := strings.Compare(y["createdAt"].(string), x["createdAt"].(string)); c != 0 {
				return c
			}
			return strings.Compare(y["id"].(string), x["id"].(string))
		}) {
			t.Errorf("relationships not in createdAt desc, id desc order")
		}
	}
	only := graphRelationships(t, cs, map[string]any{"projectId": p1, "entityId": root, "depth": 2, "relationshipTypes": "CONCEPT_RELATES_TO_CONCEPT,GUIDE_USES_CONCEPT"})
	if len(only) == 0 {
		t.Fatal("filter kept nothing")
	}
	for _, r := range only {
		if r["relationType"] != "CONCEPT_RELATES_TO_CONCEPT" && r["relationType"] != "GUIDE_USES_CONCEPT" {
			t.Errorf("filtered graph holds %v", r["relationType"])
		}
	}
}

func TestRESTPagination(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"search_entities", map[string]any{"projectId": p1}},
		{"list_search_performance", map[string]any{"projectId": p1}},
		{"list_quotable_blocks", map[string]any{"projectId": p1}},
		{"list_projects", map[string]any{}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			all := func(extra map[string]any) []string {
				args := map[string]any{"limit": 100}
				for k, v := range tc.args {
					args[k] = v
				}
				for k, v := range extra {
					args[k] = v
				}
				_, sc := restCall(t, cs, tc.tool, args)
				return pluck(items(t, sc), "id")
			}
			whole := all(nil)
			var paged []string
			for page := 1; ; page++ {
				args := map[string]any{"limit": 7, "page": page}
				for k, v := range tc.args {
					args[k] = v
				}
				_, sc := restCall(t, cs, tc.tool, args)
				pg := sc["pagination"].(map[string]any)
				got := items(t, sc)
				paged = append(paged, pluck(got, "id")...)
				total := int(pg["total"].(float64))
				if total != len(whole) || pg["page"] != float64(page) || pg["limit"] != 7.0 || pg["hasMore"] != (page*7 < total) {
					t.Fatalf("page %d: pagination %v (total items %d)", page, pg, len(whole))
				}
				if !pg["hasMore"].(bool) {
					break
				}
				if page > 50 {
					t.Fatal("no end")
				}
			}
			if diff := cmp.Diff(whole, paged); diff != "" {
				t.Errorf("pages differ from the whole list:\n%s", diff)
			}
			if again := all(nil); !slices.Equal(again, whole) {
				t.Error("order changed between calls")
			}
			// Past the end: an empty page.
			args := map[string]any{"limit": 100, "page": 9}
			for k, v := range tc.args {
				args[k] = v
			}
			if _, sc := restCall(t, cs, tc.tool, args); len(items(t, sc)) != 0 || sc["pagination"].(map[string]any)["hasMore"] != false {
				t.Errorf("page 9: %v", sc["pagination"])
			}
		})
	}
	// Filters never change the order: a filtered list is a subsequence of the whole.
	_, sc := restCall(t, cs, "search_entities", map[string]any{"projectId": p1, "limit": 100})
	whole := pluck(items(t, sc), "id")
	_, sc = restCall(t, cs, "search_entities", map[string]any{"projectId": p1, "limit": 100, "status": "published"})
	filtered := pluck(items(t, sc), "id")
	j := 0
	for _, id := range whole {
		if j < len(filtered) && filtered[j] == id {
			j++
		}
	}
	if j != len(filtered) || len(filtered) == 0 {
		t.Errorf("filtered order is not the unfiltered order (%d of %d matched)", j, len(filtered))
	}
}

func TestRESTOversized(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, `"maxResponseBytes": 4000`)
	cs := tg.connect(t, "/mcp/kb", nil)
	res, sc := restCall(t, cs, "search_entities", map[string]any{"projectId": p1, "limit": 100})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	text := resultText(res)
	if len(text) > 4000 {
		t.Errorf("text is %d bytes, budget 4000", len(text))
	}
	tr, ok := sc["_truncated"].(map[string]any)
	if !ok || tr["marker"] != "TRUNCATED" || tr["path"] != "/data" || tr["totalItems"] != 48.0 {
		t.Fatalf("no truncation marker in structuredContent: %v", sc["_truncated"])
	}
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "search_entities" {
			if err := compileSchema(t, tool.OutputSchema).Validate(jsonValue(t, sc)); err != nil {
				t.Errorf("truncated result does not match the output schema: %v", err)
			}
		}
	}
	kept := int(tr["keptItems"].(float64))
	if kept == 0 || kept >= 48 || len(items(t, sc)) != kept {
		t.Errorf("kept %d items, data has %d", kept, len(items(t, sc)))
	}
	if !strings.Contains(text, `"_truncated"`) || !strings.Contains(text, "TRUNCATED") {
		t.Error("no marker in the text")
	}
	// The pagination still tells the truth about the whole list.
	if sc["pagination"].(map[string]any)["total"] != 48.0 {
		t.Errorf("pagination %v", sc["pagination"])
	}
	// A small answer is untouched.
	if _, sc := restCall(t, cs, "list_projects", nil); sc["_truncated"] != nil {
		t.Error("a small answer was marked truncated")
	}
	// One value too large to shorten by items: an error that says so.
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data": {"blob": %q}}`, strings.Repeat("x", 10000))
		return true
	})
	res, sc = restCall(t, cs, "list_projects", nil)
	if e := restErr(t, res, sc); e["code"] != "RESPONSE_TOO_LARGE" || !strings.Contains(e["message"].(string), "[TRUNCATED]") {
		t.Errorf("error %v", e)
	}
}

// TestRESTOrderAndFilters: every list is in the contract's order (checked on the
// values, not against the API's own sort), with and without each filter, and each
// filter keeps exactly what it says.
func TestRESTOrderAndFilters(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	cs := tg.connect(t, "/mcp/kb", nil)
	list := func(t *testing.T, tool string, args map[string]any) []map[string]any {
		t.Helper()
		a := map[string]any{"limit": 100}
		for k, v := range args {
			a[k] = v
		}
		res, sc := restCall(t, cs, tool, a)
		if res.IsError {
			t.Fatalf("%s %v: %s", tool, args, resultText(res))
		}
		return items(t, sc)
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	// cmpKeys compares two items by keys in turn; a key starting with "-" is descending.
	cmpKeys := func(keys ...string) func(x, y map[string]any) int {
		return func(x, y map[string]any) int {
			for _, k := range keys {
				desc := strings.HasPrefix(k, "-")
				k = strings.TrimPrefix(k, "-")
				c := strings.Compare(str(x, k), str(y, k))
				if desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		}
	}
	sorted := func(t *testing.T, what string, xs []map[string]any, order func(x, y map[string]any) int) {
		t.Helper()
		if len(xs) == 0 {
			t.Fatalf("%s: empty", what)
		}
		for i := 1; i < len(xs); i++ {
			if order(xs[i-1], xs[i]) >= 0 {
				t.Fatalf("%s: item %d (%v) does not come before item %d (%v)", what, i-1, xs[i-1]["id"], i, xs[i]["id"])
			}
		}
	}
	byCreated := cmpKeys("-createdAt", "-id")
	// filter is a tool's filter arguments and which of the unfiltered items it keeps.
	type filter struct {
		args map[string]any
		keep func(map[string]any) bool
	}
	// checkFilters checks that each filter of tool returns exactly the items of all
	// that it keeps, in all's order, and at least one; with narrow, not every one.
	checkFilters := func(t *testing.T, tool string, all []map[string]any, narrow bool, fs []filter) {
		t.Helper()
		for _, f := range fs {
			var want []string
			for _, x := range all {
				if f.keep(x) {
					want = append(want, str(x, "id"))
				}
			}
			got := list(t, tool, mergeArgs(f.args, map[string]any{"projectId": p1}))
			if diff := cmp.Diff(want, pluck(got, "id")); diff != "" || len(want) == 0 || narrow && len(want) == len(all) {
				t.Errorf("filter %v (-want +got, %d of %d wanted):\n%s", f.args, len(want), len(all), diff)
			}
		}
	}
	sorted(t, "projects", list(t, "list_projects", nil), cmpKeys("slug", "id"))
	// page has no maximum short of what JSON clients count exactly: a far page is empty.
	if res, sc := restCall(t, cs, "list_projects", map[string]any{"page": 99999999999}); res.IsError || len(items(t, sc)) != 0 ||
		sc["pagination"].(map[string]any)["hasMore"] != false {
		t.Errorf("far page: %s", resultText(res))
	}

	t.Run("search_entities", func(t *testing.T) {
		all := list(t, "search_entities", map[string]any{"projectId": p1})
		sorted(t, "entities", all, byCreated)
		ties := 0
		for i := 1; i < len(all); i++ {
			if all[i-1]["createdAt"] == all[i]["createdAt"] {
				ties++
			}
		}
		if ties == 0 {
			t.Error("the sample data has no createdAt ties, so id as the tie-breaker is untested")
		}
		checkFilters(t, "search_entities", all, false, []filter{
			{map[string]any{"entityType": "guide"}, func(e map[string]any) bool { return e["entityType"] == "guide" }},
			{map[string]any{"status": "publish_requested"}, func(e map[string]any) bool { return e["status"] == "publish_requested" }},
			{map[string]any{"entityType": "concept", "conceptKind": "model"}, func(e map[string]any) bool {
				return e["entityType"] == "concept" && e["conceptKind"] == "model"
			}},
			{map[string]any{"search": "RELIABILITY-"}, func(e map[string]any) bool {
				return strings.Contains(strings.ToLower(str(e, "title")), "reliability-") || strings.Contains(str(e, "slug"), "reliability-")
			}},
			{map[string]any{"search": "Big Five"}, func(e map[string]any) bool {
				return strings.Contains(strings.ToLower(str(e, "title")), "big five") || strings.Contains(str(e, "slug"), "big five")
			}},
		})
	})

	t.Run("list_search_performance", func(t *testing.T) {
		order := cmpKeys("-dateStart", "-dateEnd", "query", "pageUrl", "-id")
		all := list(t, "list_search_performance", map[string]any{"projectId": p1})
		sorted(t, "records", all, order)
		// Each key after the first decides between some neighbours, or its rule is
		// untested.
		decides := map[string]int{}
		keys := []string{"-dateStart", "-dateEnd", "query", "pageUrl", "-id"}
		for i := 1; i < len(all); i++ {
			for n := range keys {
				if cmpKeys(keys[:n]...)(all[i-1], all[i]) == 0 && cmpKeys(keys[n])(all[i-1], all[i]) != 0 {
					decides[keys[n]]++
					break
				}
			}
		}
		for _, k := range []string{"-dateEnd", "query", "pageUrl", "-id"} {
			if decides[k] == 0 {
				t.Errorf("no two neighbours are ordered by %s: the sample data does not test that key (%v)", k, decides)
			}
		}
		var ent string
		for _, r := range all {
			if s := str(r, "entityId"); s != "" {
				ent = s
				break
			}
		}
		checkFilters(t, "list_search_performance", all, true, []filter{
			{map[string]any{"query": "ALPHA"}, func(r map[string]any) bool { return strings.Contains(str(r, "query"), "alpha") }},
			{map[string]any{"pageUrl": "/PAGES/"}, func(r map[string]any) bool { return strings.Contains(str(r, "pageUrl"), "/pages/") }},
			{map[string]any{"entityId": strings.ToUpper(ent)}, func(r map[string]any) bool { return str(r, "entityId") == ent }},
			{map[string]any{"dateStart": "2025-03-17"}, func(r map[string]any) bool { return str(r, "dateStart") >= "2025-03-17" }},
			{map[string]any{"dateEnd": "2025-03-23T00:00:00Z"}, func(r map[string]any) bool { return str(r, "dateEnd") <= "2025-03-23" }},
		})
	})

	t.Run("list_quotable_blocks", func(t *testing.T) {
		all := list(t, "list_quotable_blocks", map[string]any{"projectId": p1})
		sorted(t, "blocks", all, byCreated)
		ent := str(all[0], "entityId")
		until := func(b map[string]any) string { return str(b, "verifiedUntil") }
		checkFilters(t, "list_quotable_blocks", all, true, []filter{
			{map[string]any{"entityId": ent}, func(b map[string]any) bool { return str(b, "entityId") == ent }},
			{map[string]any{"claimType": "howto_step"}, func(b map[string]any) bool { return b["claimType"] == "howto_step" }},
			{map[string]any{"topicTag": "VALIDITY"}, func(b map[string]any) bool { return strings.Contains(str(b, "topicTag"), "validity") }},
			{map[string]any{"verifiedUntilBefore": "2026-01-01"}, func(b map[string]any) bool { return until(b) != "" && until(b) < "2026-01-01" }},
			{map[string]any{"verifiedUntilAfter": "2026-01-01T00:00:00.000Z"}, func(b map[string]any) bool { return until(b) > "2026-01-01T00:00:00.000Z" }},
		})
	})

	t.Run("graph depth 2 is one hop further", func(t *testing.T) {
		root := "e0000001-0000-4000-8000-000000000002"
		graph := func(depth int) []map[string]any {
			return graphRelationships(t, cs, map[string]any{"projectId": p1, "entityId": strings.ToUpper(root), "depth": depth})
		}
		d1, d2 := graph(1), graph(2)
		tie := false
		for i := 1; i < len(d1); i++ {
			tie = tie || d1[i-1]["createdAt"] == d1[i]["createdAt"]
		}
		if !tie {
			t.Error("no two relationships share createdAt: id as the tie-breaker is untested")
		}
		near := map[string]bool{root: true}
		for _, r := range d1 {
			if r["fromEntityId"] != root && r["toEntityId"] != root {
				t.Errorf("depth-1 edge %v does not touch the root", r["id"])
			}
			if re, ok := r["relatedEntity"].(map[string]any); ok {
				near[str(re, "id")] = true
			}
		}
		ids := map[string]bool{}
		for _, r := range d2 {
			if ids[str(r, "id")] {
				t.Errorf("edge %v reported twice", r["id"])
			}
			ids[str(r, "id")] = true
			if !near[str(r, "fromEntityId")] && !near[str(r, "toEntityId")] {
				t.Errorf("depth-2 edge %v touches neither the root nor a depth-1 entity", r["id"])
			}
		}
		for _, r := range d1 {
			if !ids[str(r, "id")] {
				t.Errorf("depth 2 lacks depth-1 edge %v", r["id"])
			}
		}
	})
}

func mergeArgs(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
