package main

import (
	"slices"
	"strings"
	"testing"
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
