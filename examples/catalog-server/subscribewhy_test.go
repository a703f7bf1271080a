package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// TestSubscribeSaysWhy: resources/subscribe of an object that is not there
// tells what resources/read tells: a model whose file was skipped says why
// (before, only "the package p/e has no models; it holds notebooks"), and a
// path deeper than the kind's is told so, with the URI of the object it names
// or of the kind asked for, never offering an object of another kind (before,
// catalog://model/p/k/nb/cell-9 was offered catalog://query/p/k/nb/cell-1).
func TestSubscribeSaysWhy(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/e/manifest.json": "{}", "p/e/bad.sql": "SELECT 1 AS x;\n",
		"p/e/nb.md":         "# NB\n\n```sql\nSELECT 1\n```\n",
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source a\nSELECT 1 AS x;\n",
		"p/k/nb.md": "# NB\n\n```sql\nSELECT 1\n```\n",
	})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	cs := followingSession(t, svc, &mcp.ClientOptions{ProtocolVersion: "2025-06-18"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answer := func(err error) string {
		t.Helper()
		var je *jsonrpc.Error
		var data struct{ Detail string }
		if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || json.Unmarshal(je.Data, &data) != nil {
			t.Fatalf("want resource not found, got %v", err)
		}
		return data.Detail
	}
	for _, tc := range []struct {
		uri       string
		want, not []string
	}{
		{"catalog://model/p/e/bad", []string{"skipped", "p/e/bad.sql", "before any @source", "has no models; it holds notebooks"}, nil},
		{"catalog://model/p/e/bad/x", []string{"the file of p/e/bad was skipped", "p/e/bad.sql"}, []string{"the file of p/e/bad/x"}},
		{"catalog://model/p/k/nb/cell-9", []string{"too deep for a model", "catalog://model/p/k/m"}, []string{"catalog://query/"}},
		{"catalog://model/p/k/m/b", []string{"too deep for a model", "catalog://model/p/k/m"}, []string{"catalog://source/", "catalog://query/"}},
		{"catalog://query/p/k/nb/cell-1/x", []string{"too deep for a query URI: a cell's path is project/package/notebook/cell", "catalog://query/p/k/nb/cell-1"}, []string{"catalog://notebook/"}},
		{"catalog://project/p/x", []string{"too deep for a project", "catalog://project/p"}, []string{"catalog://package/"}},
		{"catalog://model/p/k/nbx/cell-1", []string{"catalog://model/p/k/m"}, []string{"catalog://notebook/", "catalog://query/"}},
	} {
		sub := answer(cs.Subscribe(ctx, &mcp.SubscribeParams{URI: tc.uri}))
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		read := answer(err)
		t.Logf("%s\n  subscribe: %s\n  read: %s", tc.uri, sub, read)
		for _, w := range tc.want {
			if !strings.Contains(sub, w) {
				t.Errorf("subscribe %s: %q, want %q in it", tc.uri, sub, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(sub, n) {
				t.Errorf("subscribe %s: %q, want no %q in it", tc.uri, sub, n)
			}
		}
	}
}
