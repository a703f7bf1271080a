package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestSearchSuggestsClosestNames: a search that finds nothing answers with the
// existing names closest to each word that matches nothing — of objects and of
// columns, with objects that bear them — in the structured result and the text;
// a search whose words each match something, but no object all of them, says to
// use fewer words.
func TestSearchSuggestsClosestNames(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")

	has := func(out searchOut, word, closest, path, match string) bool {
		return slices.Contains(out.Suggestions, SearchSuggestion{Word: word, Closest: closest, Path: path, Kind: "source", Match: match})
	}
	var out searchOut
	r := call(t, cs, "search_catalog", map[string]any{"query": "cutsomers"}, &out)
	if r.IsError || len(out.Results) != 0 || !has(out, "cutsomers", "customers", "retail/shop/sales/customers", "name") {
		t.Errorf("cutsomers: %s", text(r))
	}
	if txt := text(r); !strings.Contains(txt, `nothing matches \"cutsomers\"; closest names: customers (retail/shop/sales/customers)`) || !strings.Contains(txt, "Search again with one of these names") {
		t.Errorf("cutsomers text: %s", txt)
	}

	// A column's name; the word that matches ("orders") is not suggested for.
	out = searchOut{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "orders custmer_id"}, &out)
	if len(out.Results) != 0 || !has(out, "custmer_id", "customer_id", "retail/shop/sales/customers", "column customer_id") {
		t.Errorf("custmer_id: %s", text(r))
	}
	for _, s := range out.Suggestions {
		if s.Word != "custmer_id" {
			t.Errorf("a suggestion for a word that matches: %+v", s)
		}
	}
	if !strings.Contains(text(r), "customer_id (column of retail/shop/sales/") {
		t.Errorf("custmer_id text: %s", text(r))
	}

	// Folded: an accent typo still finds the column.
	out = searchOut{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "tempèratur_c"}, &out)
	if !has(out, "tempèratur_c", "temperature_c", "climate/stations/weather/readings", "column temperature_c") {
		t.Errorf("tempèratur_c: %s", text(r))
	}

	// Each word matches, no object both.
	out = searchOut{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "stations latency_ms"}, &out)
	if len(out.Results) != 0 || len(out.Suggestions) != 0 || !strings.Contains(out.Hint, "no object matches all of them: search with fewer words") {
		t.Errorf("stations latency_ms: %s", text(r))
	}

	// Nothing close.
	out = searchOut{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "xqzzyv"}, &out)
	if len(out.Suggestions) != 0 || out.Hint != `nothing matches "xqzzyv" and no name is close to it. Try other words, or call list_catalog to browse.` {
		t.Errorf("xqzzyv: %s", text(r))
	}

	// Results, no help.
	out = searchOut{}
	r = call(t, cs, "search_catalog", map[string]any{"query": "customers"}, &out)
	if len(out.Results) == 0 || out.Hint != "" || out.Suggestions != nil {
		t.Errorf("customers: %s", text(r))
	}
}

// TestSearchBounds: a search past its bounds (words, characters) is refused,
// naming the bound; one of many words that match nothing answers with close
// names for the first few only, its hint and suggestions bounded.
func TestSearchBounds(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")

	words := func(n int) string {
		var w []string
		for i := range n {
			w = append(w, fmt.Sprintf("zq%dxw", i))
		}
		return strings.Join(w, " ")
	}
	r := call(t, cs, "search_catalog", map[string]any{"query": words(maxSearchWords + 1)}, nil)
	if !r.IsError || !strings.Contains(text(r), "the query has 33 words; search_catalog takes at most 32 words") || !strings.Contains(text(r), "fewer words") {
		t.Errorf("33 words: %s", text(r))
	}
	r = call(t, cs, "search_catalog", map[string]any{"query": strings.Repeat("x", 5000)}, nil)
	if !r.IsError || !strings.Contains(text(r), "the query is 5000 characters long; search_catalog takes at most 1000 characters") || len(text(r)) > 1000 {
		t.Errorf("5000 characters: %.2000s", text(r))
	}

	// Words and characters are counted as search compares them, folded: "´"
	// folds to a space and an accent, so "a´a´…" is one word as sent and 500
	// once folded; "ﷺ" folds to 18 characters.
	r = call(t, cs, "search_catalog", map[string]any{"query": strings.Repeat("a´", 500)}, nil)
	if !r.IsError || !strings.Contains(text(r), "the query has 500 words once folded as search compares it (1 as sent") || !strings.Contains(text(r), "fewer words") {
		t.Errorf("a´ × 500: %.2000s", text(r))
	}
	r = call(t, cs, "search_catalog", map[string]any{"query": strings.Repeat("ﷺ", 100)}, nil)
	if !r.IsError || !strings.Contains(text(r), "the query is 1800 characters long once folded") {
		t.Errorf("ﷺ × 100: %.2000s", text(r))
	}

	var out searchOut
	r = call(t, cs, "search_catalog", map[string]any{"query": words(maxSearchWords)}, &out)
	if r.IsError || !strings.Contains(out.Hint, "; 24 more words match nothing (close names are looked for the first 8 only)") {
		t.Errorf("32 unmatched words: %.3000s", text(r))
	}
	if n := len(out.Suggestions); n > maxSearchHelpWords*5*2 {
		t.Errorf("%d suggestions", n)
	}
	for _, s := range out.Suggestions {
		if s.Word == fmt.Sprintf("zq%dxw", maxSearchHelpWords) {
			t.Errorf("a suggestion past the first %d words: %+v", maxSearchHelpWords, s)
		}
	}
}

// TestSearchSaysTruncated: results cut at limit say how many match and how to
// see more.
func TestSearchSaysTruncated(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")

	var all searchOut
	call(t, cs, "search_catalog", map[string]any{"query": "orders"}, &all)
	if all.Total != len(all.Results) || all.Total < 2 || all.Truncated || all.Hint != "" {
		t.Fatalf("orders: %+v", all)
	}
	var out searchOut
	r := call(t, cs, "search_catalog", map[string]any{"query": "orders", "limit": 1}, &out)
	if len(out.Results) != 1 || out.Total != all.Total || !out.Truncated {
		t.Errorf("orders, limit 1: %s", text(r))
	}
	want := fmt.Sprintf("%d objects match; the first 1 are shown (limit 1): call again with a larger limit (at most 100)", all.Total)
	if !strings.Contains(text(r), want) {
		t.Errorf("orders, limit 1: the text does not say %q: %s", want, text(r))
	}
	if got := moreResults(150, 100); got != "150 objects match; the first 100 are shown (limit 100, the most allowed): add words to narrow the search." {
		t.Errorf("moreResults(150, 100) = %q", got)
	}
}

// TestSearchFoldsOnce: search_catalog folds its query once (checkSearch gives
// the folded words, catalog.SearchWords ranks with them): the results are those
// of catalog.SearchCount, which folds the query itself.
func TestSearchFoldsOnce(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cat := svc.Catalog()
	for _, q := range []string{"orders", "CUSTOMERS region", "Température", "ﬁ", "straße", "a´b", "  revenue   month ", "nothing-matches-this"} {
		words, te := checkSearch(q)
		if te != nil {
			t.Fatalf("%q: %s", q, te.Error)
		}
		if want := strings.Fields(catalog.Fold(q)); !slices.Equal(words, want) {
			t.Errorf("%q: words %q, want %q", q, words, want)
		}
		hits, total := cat.SearchWords(words, 5)
		wantHits, wantTotal := cat.SearchCount(q, 5)
		if total != wantTotal || !slices.EqualFunc(hits, wantHits, func(a, b catalog.Hit) bool { return a.Entry == b.Entry && a.Score == b.Score && a.Match == b.Match }) {
			t.Errorf("%q: %d hits of %d, want %d of %d", q, len(hits), total, len(wantHits), wantTotal)
		}
	}
	if words, te := checkSearch("   "); te == nil || words != nil {
		t.Errorf("blank query: %q %v", words, te)
	}
}
