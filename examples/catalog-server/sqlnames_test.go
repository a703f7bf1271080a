package main

import (
	"strings"
	"testing"
)

// TestUnknownTableNamesSources: a table DuckDB does not find comes with the
// model's closest sources when DuckDB's own guess is none of them (it guesses
// among its system views too: "sales_orders" → "pg_class"), and with the model's
// sources when none is close, DuckDB's guess dropped; a guess that is a
// source is left alone.
func TestUnknownTableNamesSources(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for _, tc := range []struct{ sql, want, not string }{
		{"SELECT * FROM sales_orders", "(closest sources of the model: orders", "Did you mean"},
		{"SELECT * FROM zzzzzzzzzz", "(the model's sources: customers, orders, products)", ""},
		{"SELECT * FROM ordrs", `Did you mean "orders"?`, "closest sources"},
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": tc.sql}, &te)
		if !r.IsError || te.Kind != "sql_error" || te.Position != 15 || !strings.Contains(te.Error, tc.want) || tc.not != "" && strings.Contains(te.Error, tc.not) {
			t.Errorf("%s: %+v", tc.sql, te)
		}
	}
}

// TestSQLNameHints: where DuckDB's message names nothing to try, the server adds
// it: the closest columns for a column missing from an aliased table, the source
// named alone for a catalog path in SQL, and the model of another that has the
// missing table as a source.
func TestSQLNameHints(t *testing.T) {
	cs := connectHTTP(t, startHTTP(t, newTestService(t, sampleDir(t), Config{})).URL, "")
	for sql, want := range map[string]string{
		"SELECT o.quantty FROM orders o":         "(closest columns of the model's sources: quantity (orders)",
		"SELECT * FROM shop.sales.orders":        "at character 15: shop.sales.orders is a catalog path, not a SQL name: within the model (the call's path), name a source by its name alone (FROM orders)",
		"SELECT * FROM retail.shop.sales.orders": "at character 15: retail.shop.sales.orders is a catalog path, not a SQL name: within the model (the call's path), name a source by its name alone (FROM orders)",
		"SELECT * FROM retail.shop.sales.nosuch": "retail.shop.sales.nosuch is a catalog path, not a SQL name: within the model (the call's path), name a source by its name alone; the model's sources: customers, orders, products",
		"SELECT * FROM requests":                 "(requests is a source of the model operations/web/traffic, not of this one: run the query with path operations/web/traffic)",
	} {
		var te toolError
		r := call(t, cs, "execute_query", map[string]any{"path": "retail/shop/sales", "sql": sql}, &te)
		if !r.IsError || te.Kind != "sql_error" || !strings.Contains(te.Error, want) || strings.Contains(te.Error, "NameListToString") {
			t.Errorf("%s: %s", sql, text(r))
		}
	}
}
