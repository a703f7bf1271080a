package main

import (
	"context"
	"strings"
	"testing"
)

// TestByteBudgetFirstRowHint: a result cut by the byte budget before its first
// row says why no row came and what to do (hint); one cut after some rows
// needs none (its rows and truncatedBy say it).
func TestByteBudgetFirstRowHint(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{ByteBudget: 400})
	res, err := svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT repeat('x', 500) AS t"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != 0 || !res.Truncated || res.TruncatedBy != "byteBudget" || !strings.Contains(res.Hint, "the first row alone is over the byte budget (400 bytes") {
		t.Errorf("first row over the budget: %+v", res)
	}
	res, err = svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT repeat('x', 100) AS t FROM range(10)"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount == 0 || res.RowCount == 10 || res.TruncatedBy != "byteBudget" || res.Hint != "" {
		t.Errorf("rows past the budget: %d rows, %q, hint %q", res.RowCount, res.TruncatedBy, res.Hint)
	}
}
