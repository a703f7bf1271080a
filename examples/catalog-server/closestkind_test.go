package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// TestClosestOfTheSameKind: a name that is not found gets the closest names of
// the kind asked for. A resource URI names its kind: an unknown source gets
// the model's closest sources, not its named queries (nor a query its
// sources), an unknown model the package's models, not its notebooks (nor a
// notebook its models), an unknown cell its notebook's cells, and a source
// under a notebook is told that a notebook has no sources, not offered cells.
// Subscribing likewise. Before, each was offered the closest of every kind
// there. The tools: queryName gets queries or cells, a misspelt column in SQL
// the closest columns, and describe (which names no kind) every kind.
func TestClosestOfTheSameKind(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	ctx := context.Background()
	read := func(uri string) string {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var re *jsonrpc.Error
		var data struct{ Detail string }
		if !errors.As(err, &re) || json.Unmarshal(re.Data, &data) != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		return data.Detail
	}
	subscribe := func(uri string) string {
		err := svc.subscribable(uri)
		if err == nil {
			t.Fatalf("subscribe %s: no error", uri)
		}
		return err.Error()
	}
	tool := func(name string, args map[string]any) func(string) string {
		return func(string) string {
			var te toolError
			r := call(t, cs, name, args, &te)
			if !r.IsError {
				t.Fatalf("%s %v: no error", name, args)
			}
			return te.Error + " | suggestions: " + strings.Join(te.Suggestions, ", ")
		}
	}
	const nb = "retail/shop/monthly-review"
	for _, tc := range []struct {
		kind string
		uri  string
		do   func(string) string
		want []string // in the answer
		not  []string // not in it
	}{
		{"project", "catalog://project/retal", read, []string{`no project named "retal"`, "closest: retail"}, nil},
		{"package", "catalog://package/retail/shp", read, []string{`no package named "shp"`, "closest: retail/shop"}, nil},
		{"model", "catalog://model/retail/shop/monthly", read, []string{`no model named "monthly"`, "retail/shop/sales"}, []string{nb}},
		{"notebook", "catalog://notebook/retail/shop/sale", read, []string{`no notebook named "sale"`, nb}, []string{"retail/shop/sales"}},
		{"source", "catalog://source/retail/shop/sales/customer", read, []string{`no source named "customer"`, "closest: retail/shop/sales/customers"}, []string{"top_customers"}},
		{"query", "catalog://query/retail/shop/sales/customer", read, []string{`no query named "customer"`, "closest: retail/shop/sales/top_customers"}, []string{"sales/customers"}},
		{"cell", "catalog://query/" + nb + "/cell-3", read, []string{`no cell named "cell-3"`, nb + "/cell-1", nb + "/cell-2"}, nil},
		{"source under a notebook", "catalog://source/" + nb + "/cell-3", read, []string{`no source named "cell-3"`, "the notebook " + nb + " has no sources; it holds cells"}, []string{"cell-1"}},
		{"model under its path from below", "catalog://model/sales", read, []string{"retail/shop/sales"}, nil},
		{"subscribe source", "catalog://source/retail/shop/sales/customer", subscribe, []string{"closest: catalog://source/retail/shop/sales/customers"}, []string{"top_customers", "orders"}},
		{"subscribe source under a notebook", "catalog://source/" + nb + "/cell-3", subscribe, []string{"the notebook " + nb + " has no sources; it holds cells"}, []string{"cell-1"}},
		{"subscribe cell", "catalog://query/" + nb + "/cell-3", subscribe, []string{"closest: catalog://query/" + nb + "/cell-1, catalog://query/" + nb + "/cell-2"}, nil},
		{"subscribe query", "catalog://query/retail/shop/sales/customer", subscribe, []string{"closest: catalog://query/retail/shop/sales/top_customers"}, []string{"sales/customers", "revenue_by_month"}},
		{"subscribe wrong kind", "catalog://model/retail/shop/sales/orders", subscribe, []string{"retail/shop/sales/orders is a source; its URI is catalog://source/retail/shop/sales/orders"}, nil},
		{"queryName of a model", "", tool("execute_query", map[string]any{"path": "retail/shop/sales", "queryName": "customer"}), []string{`no query named "customer"`, "suggestions: retail/shop/sales/top_customers"}, []string{"sales/customers"}},
		{"queryName of a notebook", "", tool("execute_query", map[string]any{"path": nb, "queryName": "cell-3"}), []string{`no cell named "cell-3"`, "suggestions: " + nb + "/cell-1"}, nil},
		{"column", "", tool("execute_query", map[string]any{"path": "retail/shop/sales", "sql": "SELECT o.quantty FROM orders o"}), []string{"closest columns of the model's sources: quantity (orders)"}, nil},
		{"describe names no kind", "", tool("describe", map[string]any{"path": "retail/shop/sales/customer"}), []string{`no source or query named "customer"`, "retail/shop/sales/customers", "retail/shop/sales/top_customers"}, nil},
	} {
		got := tc.do(tc.uri)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: %q, want %q in it", tc.kind, tc.uri, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s %s: %q, want no %q in it", tc.kind, tc.uri, got, n)
			}
		}
	}
}
