package kbapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
		{"write refused", "POST", "/api/projects", auth, 405, "read-only"},
		{"unknown route", "GET", "/api/nope", auth, 404, "no such endpoint"},
		{"limit", "GET", "/api/projects?limit=101", auth, 400, "limit must be an integer from 1 to 100"},
		{"page", "GET", "/api/projects?page=0", auth, 400, "page must be an integer from 1 to 1000000"},
		{"page too far", "GET", "/api/projects?page=99999999999", auth, 400, "page must be an integer from 1 to 1000000"},
		{"enum lists values", "GET", "/api/entities?status=live", auth, 400, "valid values are draft, publish_requested, published, archived"},
		{"relationship type", "GET", "/api/entities/e0000001-0000-4000-8000-000000000002/graph?relationshipTypes=X", auth, 400, "VIDEO_EXPLAINS_NEWS"},
		{"depth", "GET", "/api/entities/e0000001-0000-4000-8000-000000000002/graph?depth=3", auth, 400, "depth must be 1 or 2"},
		{"entity id", "GET", "/api/entities/abc", auth, 400, "entity id must be a UUID"},
		{"offset date", "GET", "/api/seo/search-performance?dateStart=2025-01-01T00:00:00%2B01:00", auth, 400, "dateStart must be YYYY-MM-DD"},
		{"locale date", "GET", "/api/quotable-blocks?verifiedUntilBefore=01/02/2025", auth, 400, "verifiedUntilBefore must be"},
		{"start after end", "GET", "/api/seo/search-performance?dateStart=2025-02-02&dateEnd=2025-02-01T23:59:59Z", auth, 400, "is after dateEnd"},
		{"openapi is public", "GET", "/openapi.json", nil, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, h, tc.method, tc.path, tc.hdr)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if tc.msg != "" && !strings.Contains(body["error"].(map[string]any)["message"].(string), tc.msg) {
				t.Errorf("message %v does not contain %q", body["error"], tc.msg)
			}
		})
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
