package kbapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: body %q is not JSON", method, path, rec.Body.String())
	}
	return rec.Code, body
}

func TestProjectResolution(t *testing.T) {
	h := New(nil)
	tests := []struct {
		name    string
		hdr     map[string]string
		status  int
		project string
		code    string
	}{
		{"default", nil, 200, DefaultProjectID, ""},
		{"by id", map[string]string{"x-project-id": AtlasProjectID}, 200, AtlasProjectID, ""},
		{"id upper case", map[string]string{"x-project-id": strings.ToUpper(AtlasProjectID)}, 200, AtlasProjectID, ""},
		{"by slug", map[string]string{"x-project-slug": "atlas-notes"}, 200, AtlasProjectID, ""},
		{"id wins over slug", map[string]string{"x-project-id": DefaultProjectID, "x-project-slug": "atlas-notes"}, 200, DefaultProjectID, ""},
		{"bad id", map[string]string{"x-project-id": "123"}, 400, "", "BAD_REQUEST"},
		{"bad slug", map[string]string{"x-project-slug": "Atlas Notes"}, 400, "", "BAD_REQUEST"},
		{"unknown slug", map[string]string{"x-project-slug": "nope"}, 404, "", "NOT_FOUND"},
		{"locked", map[string]string{"x-project-slug": "vault"}, 403, "", "FORBIDDEN"},
		// The seed's third source: the projectId cookie, after both headers.
		{"by cookie", map[string]string{"Cookie": "projectId=" + AtlasProjectID}, 200, AtlasProjectID, ""},
		{"slug wins over cookie", map[string]string{"x-project-slug": "psymetric", "Cookie": "projectId=" + AtlasProjectID}, 200, DefaultProjectID, ""},
		{"id wins over cookie", map[string]string{"x-project-id": DefaultProjectID, "Cookie": "projectId=" + AtlasProjectID}, 200, DefaultProjectID, ""},
		{"bad cookie", map[string]string{"Cookie": "projectId=atlas"}, 400, "", "BAD_REQUEST"},
		{"unknown cookie project", map[string]string{"Cookie": "projectId=00000000-0000-4000-a000-0000000000ff"}, 404, "", "NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, h, "GET", "/api/entities?limit=1", tc.hdr)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if tc.code != "" {
				if body["error"].(map[string]any)["code"] != tc.code {
					t.Errorf("error %v, want %s", body["error"], tc.code)
				}
				return
			}
			if got := body["data"].([]any)[0].(map[string]any)["projectId"]; got != tc.project {
				t.Errorf("project %v, want %s", got, tc.project)
			}
		})
	}
}

func TestBackendRules(t *testing.T) {
	h := New(&Options{Token: "t"})
	auth := map[string]string{"Authorization": "Bearer t"}
	tests := []struct {
		name, method, path string
		hdr                map[string]string
		status             int
		msg                string
	}{
		{"no token", "GET", "/api/projects", nil, 401, "credentials"},
		// Every error is one of the six codes with its status: a write is BAD_REQUEST 400.
		{"write refused", "POST", "/api/projects", auth, 400, "read-only"},
		{"write to an unknown path", "DELETE", "/api/nope", auth, 400, "read-only"},
		{"unknown route", "GET", "/api/nope", auth, 404, "no such endpoint"},
		{"limit", "GET", "/api/projects?limit=101", auth, 400, "limit must be an integer from 1 to 100"},
		{"page", "GET", "/api/projects?page=0", auth, 400, "page must be an integer from 1 to 9007199254740991"},
		{"page beyond what JSON clients count exactly", "GET", "/api/projects?page=9007199254740992", auth, 400, "page must be an integer from 1 to 9007199254740991"},
		{"enum lists values", "GET", "/api/entities?status=live", auth, 400, "valid values are draft, publish_requested, published, archived"},
		{"relationship type", "GET", "/api/entities/e0000001-0000-4000-8000-000000000002/graph?relationshipTypes=X", auth, 400, "VIDEO_EXPLAINS_NEWS"},
		{"depth", "GET", "/api/entities/e0000001-0000-4000-8000-000000000002/graph?depth=3", auth, 400, "depth must be 1 or 2"},
		{"entity id", "GET", "/api/entities/abc", auth, 400, "entity id must be a UUID"},
		{"offset date", "GET", "/api/seo/search-performance?dateStart=2025-01-01T00:00:00%2B01:00", auth, 400, "dateStart must be YYYY-MM-DD"},
		{"locale date", "GET", "/api/quotable-blocks?verifiedUntilBefore=01/02/2025", auth, 400, "verifiedUntilBefore must be"},
		{"one fraction digit", "GET", "/api/quotable-blocks?verifiedUntilBefore=2025-02-20T14:30:00.5Z", auth, 400, "verifiedUntilBefore must be"},
		{"six fraction digits", "GET", "/api/seo/search-performance?dateEnd=2025-02-20T14:30:00.000000Z", auth, 400, "dateEnd must be"},
		{"lower-case z", "GET", "/api/seo/search-performance?dateEnd=2025-02-20T14:30:00z", auth, 400, "dateEnd must be"},
		{"start after end", "GET", "/api/seo/search-performance?dateStart=2025-02-02&dateEnd=2025-02-01T23:59:59Z", auth, 400, "is after dateEnd"},
		{"openapi is public", "GET", "/openapi.json", nil, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, h, tc.method, tc.path, tc.hdr)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if status != 200 {
				if code := body["error"].(map[string]any)["code"]; code != codeOf[status] {
					t.Errorf("code %v with status %d, want %s", code, status, codeOf[status])
				}
			}
			if tc.msg != "" && !strings.Contains(body["error"].(map[string]any)["message"].(string), tc.msg) {
				t.Errorf("message %v does not contain %q", body["error"], tc.msg)
			}
		})
	}
}

// codeOf is the seed's table of error codes by HTTP status.
var codeOf = map[int]string{400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 409: "CONFLICT", 500: "SERVER_ERROR"}

func TestValidRequests(t *testing.T) {
	h := New(nil)
	for _, path := range []string{
		"/api/seo/search-performance?dateStart=2025-03-10&dateEnd=2025-03-30",
		"/api/seo/search-performance?dateStart=2025-03-10T00:00:00Z&dateEnd=2025-03-30T23:59:59.999Z",
		"/api/quotable-blocks?verifiedUntilAfter=2025-06-01T00:00:00.000Z",
		"/api/entities?limit=100&page=1",
	} {
		if status, body := get(t, h, "GET", path, nil); status != 200 {
			t.Errorf("%s: %d %v", path, status, body)
		}
	}
	// A page far past the end is an empty page, not an error (page has no maximum
	// short of what JSON clients count exactly).
	status, body := get(t, h, "GET", "/api/projects?page=99999999999&limit=100", nil)
	if status != 200 || len(body["data"].([]any)) != 0 || body["pagination"].(map[string]any)["hasMore"] != false ||
		body["pagination"].(map[string]any)["page"] != 99999999999.0 {
		t.Errorf("far page: %d %v", status, body)
	}
}

// TestOutputFields: every object the API answers has exactly the fields of the
// contract (../../../../shared/seeds/rest-bridge-tools.md), no more, no fewer.
func TestOutputFields(t *testing.T) {
	h := New(nil)
	want := map[string][]string{
		"project":    {"id", "slug", "name", "description", "createdAt", "updatedAt"},
		"entity":     {"id", "projectId", "entityType", "title", "slug", "summary", "difficulty", "conceptKind", "repoUrl", "status", "canonicalUrl", "lastVerifiedAt", "createdAt", "updatedAt"},
		"edge":       {"id", "relationType", "fromEntityId", "toEntityId", "notes", "createdAt", "relatedEntity"},
		"related":    {"id", "entityType", "title", "slug", "status"},
		"record":     {"id", "projectId", "entityId", "pageUrl", "query", "impressions", "clicks", "ctr", "avgPosition", "dateStart", "dateEnd", "capturedAt"},
		"block":      {"id", "projectId", "entityId", "text", "claimType", "sourceCitation", "verifiedUntil", "topicTag", "createdAt", "updatedAt"},
		"list":       {"data", "pagination"},
		"pagination": {"page", "limit", "total", "hasMore"},
		"single":     {"data"},
		"graph":      {"rootEntity", "relationships", "depth"},
		"error":      {"error"},
		"errorBody":  {"code", "message"},
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	check := func(kind string, m any) {
		t.Helper()
		got := keys(m.(map[string]any))
		w := append([]string(nil), want[kind]...)
		sort.Strings(w)
		if strings.Join(got, ",") != strings.Join(w, ",") {
			t.Errorf("%s fields %v, want %v", kind, got, w)
		}
	}
	list := func(path, kind string) {
		t.Helper()
		status, body := get(t, h, "GET", path, nil)
		if status != 200 {
			t.Fatalf("%s: %d %v", path, status, body)
		}
		check("list", body)
		check("pagination", body["pagination"])
		if len(body["data"].([]any)) == 0 {
			t.Fatalf("%s: no data", path)
		}
		for _, x := range body["data"].([]any) {
			check(kind, x)
		}
	}
	list("/api/projects", "project")
	list("/api/entities?limit=100", "entity")
	list("/api/seo/search-performance?limit=100", "record")
	list("/api/quotable-blocks?limit=100", "block")
	_, body := get(t, h, "GET", "/api/entities/e0000001-0000-4000-8000-000000000002", nil)
	check("single", body)
	check("entity", body["data"])
	_, body = get(t, h, "GET", "/api/entities/e0000001-0000-4000-8000-000000000002/graph?depth=2", nil)
	check("single", body)
	check("graph", body["data"])
	g := body["data"].(map[string]any)
	check("entity", g["rootEntity"])
	related := 0
	for _, e := range g["relationships"].([]any) {
		check("edge", e)
		if re := e.(map[string]any)["relatedEntity"]; re != nil {
			check("related", re)
			related++
		}
	}
	if related == 0 {
		t.Error("no relationship with a related entity")
	}
	_, body = get(t, h, "GET", "/api/entities/nope", nil)
	check("error", body)
	check("errorBody", body["error"])
	// Quotable blocks are self-contained statements of 25 to 50 words.
	for _, b := range Sample().Blocks {
		if n := len(strings.Fields(b.Text)); n < 25 || n > 50 {
			t.Errorf("block %s has %d words", b.ID, n)
		}
	}
}

func TestSampleData(t *testing.T) {
	d := Sample()
	seen := map[string]bool{}
	for _, e := range d.Entities {
		if !ValidUUID(e.ID) || seen[e.ID] {
			t.Errorf("entity id %q invalid or repeated", e.ID)
		}
		seen[e.ID] = true
	}
	types := map[string]bool{}
	for _, r := range d.Relationships {
		if !ValidUUID(r.ID) || !ValidUUID(r.FromEntityID) || !ValidUUID(r.ToEntityID) {
			t.Errorf("relationship %+v has an invalid UUID", r)
		}
		types[r.RelationType] = true
	}
	if len(RelationTypes) != 19 || len(types) != 19 {
		t.Errorf("%d relationship types, %d used; want 19 and 19", len(RelationTypes), len(types))
	}
	if len(d.Entities) != 64 || len(d.Performance) != 60 || len(d.Blocks) != 36 {
		t.Errorf("sizes: %d entities, %d records, %d blocks", len(d.Entities), len(d.Performance), len(d.Blocks))
	}
	a, b := Sample(), Sample()
	ja, _ := json.Marshal(a.Entities)
	jb, _ := json.Marshal(b.Entities)
	if string(ja) != string(jb) {
		t.Error("Sample is not deterministic")
	}
}

// TestServerError: a handler that fails answers SERVER_ERROR 500 in the error
// envelope (here data with a hole in it makes listing projects panic).
func TestServerError(t *testing.T) {
	h := New(&Options{Data: &Dataset{Projects: []*Project{nil, nil}}})
	status, body := get(t, h, "GET", "/api/projects", nil)
	if status != 500 || body["error"].(map[string]any)["code"] != "SERVER_ERROR" {
		t.Errorf("%d %v, want 500 SERVER_ERROR", status, body)
	}
	// The API goes on answering.
	if status, _ := get(t, h, "GET", "/openapi.json", nil); status != 200 {
		t.Errorf("after the failure: %d", status)
	}
}
