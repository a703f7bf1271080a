package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/mcp"
)

// pagesAcross lists every resource, then every resource template (the two in one
// list), and every item of list_catalog at path, taking
// page i from sessions[i % len(sessions)] with the cursor the previous page gave:
// a client whose requests a load balancer spreads over replicas.
func pagesAcross(t *testing.T, sessions []*mcp.ClientSession, path string) (resources, items []string) {
	t.Helper()
	ctx := context.Background()
	resources = allPages(t, "resources/list", func(i int, cursor string) ([]string, string, error) {
		r, err := sessions[i%len(sessions)].ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		var uris []string
		for _, res := range r.Resources {
			uris = append(uris, res.URI)
		}
		return uris, r.NextCursor, nil
	})
	resources = append(resources, allPages(t, "resources/templates/list", func(i int, cursor string) ([]string, string, error) {
		r, err := sessions[i%len(sessions)].ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		var uris []string
		for _, tmpl := range r.ResourceTemplates {
			uris = append(uris, tmpl.URITemplate)
		}
		return uris, r.NextCursor, nil
	})...)
	items = allPages(t, "list_catalog", func(i int, cursor string) ([]string, string, error) {
		var page listOut
		args := map[string]any{"path": path}
		if cursor != "" {
			args["cursor"] = cursor
		}
		if r := call(t, sessions[i%len(sessions)], "list_catalog", args, &page); r.IsError {
			return nil, "", fmt.Errorf("%s", text(r))
		}
		var paths []string
		for _, it := range page.Items {
			paths = append(paths, it.Path)
		}
		return paths, page.NextCursor, nil
	})
	return resources, items
}

// allPages follows a listing's cursors from the first page (i counts the pages)
// to the last, and returns what the pages held in order; it fails the test on an
// error or after 1,000 pages.
func allPages(t *testing.T, what string, page func(i int, cursor string) ([]string, string, error)) []string {
	t.Helper()
	var all []string
	cursor := ""
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatalf("%s does not end", what)
		}
		got, next, err := page(i, cursor)
		if err != nil {
			t.Fatalf("%s page %d: %v", what, i, err)
		}
		all = append(all, got...)
		if cursor = next; cursor == "" {
			return all
		}
	}
}

// TestReplicaPagesAgree: two replicas serving the same catalog, one of which loaded
// it before a model was added (and reloaded), the other started after, continue each
// other's pages: a client whose pages alternate between them sees every object
// once, in the order one replica alone gives.
func TestReplicaPagesAgree(t *testing.T) {
	dir := t.TempDir()
	var m strings.Builder
	for i := range 12 {
		fmt.Fprintf(&m, "-- @source s%02d\nSELECT %d AS x;\n", i, i)
	}
	writeFiles(t, dir, map[string]string{"p/k/manifest.json": "{}", "p/k/m.sql": m.String()})
	cfg := Config{PageSize: 5, SkipEngines: true}
	a := newTestService(t, dir, cfg)
	csA := connectHTTP(t, startHTTP(t, a).URL, "")
	// A model whose objects sort before the others.
	writeFiles(t, dir, map[string]string{"p/k/a.sql": "-- @source first\nSELECT 1 AS x;\n-- @source second\nSELECT 2 AS x;\n"})
	if err := a.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := newTestService(t, dir, cfg)
	csB := connectHTTP(t, startHTTP(t, b).URL, "")

	wantRes, wantItems := pagesAcross(t, []*mcp.ClientSession{csB}, "p/k/m")
	if len(wantRes) != len(b.Catalog().Entries())+len(templates)+1 || len(wantItems) != 12 {
		t.Fatalf("one replica lists %d resources (catalog: %d) and %d sources", len(wantRes), len(b.Catalog().Entries()), len(wantItems))
	}
	for name, sessions := range map[string][]*mcp.ClientSession{"A first": {csA, csB}, "B first": {csB, csA}, "A alone": {csA}} {
		gotRes, gotItems := pagesAcross(t, sessions, "p/k/m")
		if d := cmp.Diff(wantRes, gotRes); d != "" {
			t.Errorf("%s: resources/list (-one replica +alternating):\n%s", name, d)
		}
		if d := cmp.Diff(wantItems, gotItems); d != "" {
			t.Errorf("%s: list_catalog (-one replica +alternating):\n%s", name, d)
		}
	}
}
