package catalog_test

import (
	"fmt"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

func ExampleParseModel() {
	m, err := catalog.ParseModel(`-- Sales of the web shop.

-- Orders, one row per order line.
-- @source orders
SELECT * FROM 'data/orders.parquet';

-- Revenue per month of one year.
-- @query revenue_by_month
-- @param year INTEGER the calendar year
SELECT month(ordered_at) AS month, sum(amount) AS revenue
FROM orders WHERE year(ordered_at) = $year GROUP BY 1 ORDER BY 1;
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Description)
	for _, s := range m.Sources {
		fmt.Printf("source %s: %s\n", s.Name, s.Description)
	}
	for _, q := range m.Queries {
		fmt.Printf("query %s(%s %s → %s): %s\n", q.Name, q.Params[0].Name, q.Params[0].Type, q.Params[0].JSONType(), q.Description)
	}
	// Output:
	// Sales of the web shop.
	// source orders: Orders, one row per order line.
	// query revenue_by_month(year INTEGER → integer): Revenue per month of one year.
}
