package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/internal/nodetest"
	"github.com/wiremcp/wiremcp/mcp"
)

// oasDir pins @readme/oas-examples, a collection of published OpenAPI documents none
// of which was written here; `npm ci` there installs it (nodetest.Setup does).
const oasDir = "testdata/oas"

// TestRESTThirdPartyDocuments imports OpenAPI documents published by others — the
// Swagger Petstore (3.0 and 3.1), USPTO's Data Set API, STAPI (the Star Trek API:
// 80 GET operations, none with an operationId) and the Train Travel API (3.1) —
// through the gateway: each imports without an error or a skipped operation, yields
// the expected tool names (valid for clients) and schemas the reference validator
// compiles, and a few tools are called against a stand-in backend.
func TestRESTThirdPartyDocuments(t *testing.T) {
	nodetest.Setup(t, oasDir, 18, 0, "the third-party OpenAPI documents test")
	root, err := filepath.Abs(filepath.Join(oasDir, "node_modules", "@readme", "oas-examples"))
	if err != nil {
		t.Fatal(err)
	}
	petTools := []string{"findPetsByStatus", "findPetsByTags", "getPetById", "getInventory", "getOrderById", "loginUser", "logoutUser", "getUserByName"}

	// The stand-in backend: records what it is asked and answers what the
	// Petstore and Train Travel calls below expect.
	var mu sync.Mutex
	var seen []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/pet/7":
			fmt.Fprint(w, `{"id": 7, "name": "doggie", "photoUrls": [], "status": "available"}`)
		case r.URL.Path == "/pet/findByStatus":
			fmt.Fprint(w, `[{"id": 1, "name": "a", "photoUrls": []}, {"id": 2, "name": "b", "photoUrls": []}]`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"code": 404, "message": "not here"}`)
		}
	}))
	t.Cleanup(backend.Close)
	calls := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}

	type prop = map[string]any
	tests := []struct {
		file  string
		names []string // nil: check count and shape instead
		count int
		check func(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool)
	}{
		{file: "3.0/json/petstore.json", names: petTools, check: func(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool) {
			in := schemaOf(t, tools["findPetsByStatus"].InputSchema)
			status, _ := in["properties"].(prop)["status"].(prop)
			items, _ := status["items"].(prop)
			if status["type"] != "array" || !cmp.Equal(items["enum"], []any{"available", "pending", "sold"}) || !cmp.Equal(in["required"], []any{"status"}) {
				t.Errorf("findPetsByStatus input schema: %v", in)
			}
			in = schemaOf(t, tools["getPetById"].InputSchema)
			if pet, _ := in["properties"].(prop)["petId"].(prop); pet["type"] != "integer" || !cmp.Equal(in["required"], []any{"petId"}) {
				t.Errorf("getPetById input schema: %v", in)
			}
			res, sc := restCall(t, cs, "getPetById", map[string]any{"petId": 7})
			if res.IsError || sc["name"] != "doggie" || sc["id"] != 7.0 {
				t.Errorf("getPetById: %s", resultText(res))
			}
			res, sc = restCall(t, cs, "findPetsByStatus", map[string]any{"status": []string{"available", "sold"}})
			if got, _ := sc["items"].([]any); res.IsError || len(got) != 2 {
				t.Errorf("findPetsByStatus: %s", resultText(res))
			}
			if c := calls(); !slices.Contains(c, "GET /pet/findByStatus?status=available&status=sold") {
				t.Errorf("backend saw %v", c)
			}
			// Refused before the backend: not an integer, not a listed status.
			before := len(calls())
			for _, bad := range []struct {
				tool string
				args map[string]any
			}{{"getPetById", map[string]any{"petId": "seven"}}, {"findPetsByStatus", map[string]any{"status": []string{"lost"}}}} {
				if res, _ := restCall(t, cs, bad.tool, bad.args); !res.IsError {
					t.Errorf("%s %v accepted: %s", bad.tool, bad.args, resultText(res))
				}
			}
			if n := len(calls()) - before; n != 0 {
				t.Errorf("invalid arguments reached the backend %d times", n)
			}
		}},
		{file: "3.1/json/petstore.json", names: petTools},
		{file: "3.0/json/uspto.json", names: []string{"list-data-sets", "list-searchable-fields"}, check: func(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool) {
			in := schemaOf(t, tools["list-searchable-fields"].InputSchema)
			if req, _ := in["required"].([]any); len(req) != 2 {
				t.Errorf("list-searchable-fields: the two path parameters are not required: %v", in)
			}
		}},
		{file: "3.1/json/train-travel.json", names: []string{"get-stations", "get-trips", "get-bookings", "get-booking"}, check: func(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool) {
			in := schemaOf(t, tools["get-trips"].InputSchema)
			ps := in["properties"].(prop)
			if ps["origin"].(prop)["format"] != "uuid" || ps["date"].(prop)["format"] != "date-time" {
				t.Errorf("get-trips input schema: %v", in)
			}
			before := len(calls())
			res, _ := restCall(t, cs, "get-trips", map[string]any{"origin": "Berlin", "destination": "b2e783e1-c824-4d63-b37a-d8d698862f1d", "date": "2024-02-01T09:00:00Z"})
			if !res.IsError || !strings.Contains(resultText(res), "origin") {
				t.Errorf("get-trips with a station name for a UUID: %s", resultText(res))
			}
			if n := len(calls()) - before; n != 0 {
				t.Errorf("an invalid UUID reached the backend")
			}
		}},
		{file: "3.0/json/star-trek.json", count: 80, check: func(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool) {
			// No operationIds: names come from the method and the path.
			for _, n := range []string{"get_animal", "get_animal_search", "get_spacecraft", "get_spacecraft_search"} {
				if tools[n] == nil {
					t.Errorf("no tool %s", n)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			doc, _ := json.Marshal(filepath.Join(root, filepath.FromSlash(tc.file)))
			tg := startGateway(t, fmt.Sprintf(`{"servers": {"api": {"rest": {"baseUrl": %q, "openapi": %s}}}}`, backend.URL, doc))
			h := tg.g.health().Servers["api"]
			if !h.Healthy || len(h.Errors) != 0 {
				t.Fatalf("import: state %s, errors %v", h.State, h.Errors)
			}
			cs := tg.connect(t, "/mcp/api", nil)
			var names []string
			tools := map[string]*mcp.Tool{}
			for tool, err := range cs.Tools(testCtx(t)) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
				tools[tool.Name] = tool
				if !allNameRE.MatchString(tool.Name) {
					t.Errorf("tool name %q is not valid for clients", tool.Name)
				}
				if a := tool.Annotations; a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
					t.Errorf("%s is not marked read-only", tool.Name)
				}
				if tool.Description == "" {
					t.Errorf("%s has no description", tool.Name)
				}
				compileSchema(t, tool.InputSchema)
				if len(tool.OutputSchema) > 0 {
					compileSchema(t, tool.OutputSchema)
				}
			}
			if tc.names != nil {
				if diff := cmp.Diff(tc.names, names); diff != "" {
					t.Errorf("tools (-want +got):\n%s", diff)
				}
			} else if len(names) != tc.count || len(tools) != tc.count {
				t.Errorf("%d tools (%d distinct), want %d", len(names), len(tools), tc.count)
			}
			if tc.check != nil {
				tc.check(t, cs, tools)
			}
		})
	}
}

// schemaOf decodes a schema.
func schemaOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
