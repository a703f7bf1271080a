package main

import (
	"strings"
	"testing"
)

// TestUnknownTableNamesSources: a table DuckDB does not find comes with the
// model's closest sources when DuckDB's own guess is none of them (it guesses
// among its system views too: "sales_orders" → "pg_class"), and with the model's
// sources when none is close; a guess that is a source is left alone.
func TestUnknownTableNamesSources(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	cs := connectHTTP(t, startHTTP(t, svc).URL, "")
	for _, tc := range []struct{ sql, want, not string }{
		{"SELECT * FROM sales_orders", "(closest sources of the model: orders", ""},
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
