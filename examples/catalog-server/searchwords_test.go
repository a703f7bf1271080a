package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestSearchIgnoresPunctuationAroundWords: a word searched with punctuation or
// a symbol around it (quoted, at a sentence's end, a wildcard, a leading minus)
// or an invisible character in it (a zero-width space) finds what the bare word
// finds; before, each found nothing or less. A query of punctuation alone is
// refused as holding no words. '_' is kept.
func TestSearchIgnoresPunctuationAroundWords(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	paths := func(query string) []string {
		t.Helper()
		var out searchOut
		if r := call(t, cs, "search_catalog", map[string]any{"query": query}, &out); r.IsError {
			t.Fatalf("%q: %s", query, text(r))
		}
		var ps []string
		for _, h := range out.Results {
			ps = append(ps, h.Path)
		}
		return ps
	}
	for bare, forms := range map[string][]string{
		"orders":    {`"orders"`, "orders,", "orders;", "-orders", "\u200borders", "(orders)", "«orders»"},
		"revenue":   {"revenue?", "revenue!", "¿revenue?"},
		"customers": {"customers.", "'customers'"},
	} {
		want := paths(bare)
		if len(want) == 0 {
			t.Fatalf("%q finds nothing in the sample catalog: the check would say nothing", bare)
		}
		for _, f := range forms {
			if got := paths(f); !slices.Equal(got, want) {
				t.Errorf("%q finds %v, %q finds %v", f, got, bare, want)
			}
		}
	}
	r := call(t, cs, "search_catalog", map[string]any{"query": "?? --- ..."}, nil)
	if !r.IsError || !strings.Contains(text(r), "only punctuation") {
		t.Errorf("a query of punctuation alone: %s", text(r))
	}
	for q, want := range map[string][]string{
		"_id":           {"_id"},
		"a.b, c":        {"a.b", "c"},
		"\"x\" 'y' (z)": {"x", "y", "z"},
		"c++ c#":        {"c", "c"},
		"…":             nil,
	} {
		if got := catalog.SplitWords(catalog.Fold(q)); !slices.Equal(got, want) {
			t.Errorf("SplitWords(%q) = %q, want %q", q, got, want)
		}
	}
}
