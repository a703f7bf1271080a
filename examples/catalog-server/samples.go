package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sizes of the built-in sample catalog.
const (
	sampleCustomers = 2000
	sampleProducts  = 120
	sampleOrders    = 40000
	sampleRequests  = 10000
	sampleStations  = 40
	sampleReadings  = sampleStations * 365 // one a day at each station, through 2023
)

var sampleFiles = map[string]string{
	"retail/project.json":       `{"description": "Retail analytics for the web shop: orders, customers and products."}`,
	"retail/shop/manifest.json": `{"description": "The web shop's sales data, one file per table (Parquet and CSV).", "engine": "duckdb"}`,
	"retail/shop/sales.sql": `-- Sales of the web shop: orders with the customers who placed them and the products sold.

-- Orders placed in the shop, one row per order line (2023-2024).
-- @source orders
SELECT * FROM 'data/orders.parquet';

-- Customers with their home region and signup date.
-- @source customers
SELECT * FROM read_csv('data/customers.csv');

-- Products on sale, with category and list price.
-- @source products
SELECT * FROM read_csv('data/products.csv');

-- Revenue and order count per month of one year.
-- @query revenue_by_month
-- @param year INTEGER the calendar year (2023 or 2024)
SELECT month(ordered_at) AS month, count(*) AS orders, round(sum(quantity * unit_price), 2) AS revenue
FROM orders WHERE year(ordered_at) = $year GROUP BY 1 ORDER BY 1;

-- The customers of one region who spent most.
-- @query top_customers
-- @param region VARCHAR one of north, south, east, west
-- @param n INTEGER how many customers
SELECT c.customer_id, c.name, round(sum(o.quantity * o.unit_price), 2) AS spent
FROM orders o JOIN customers c USING (customer_id)
WHERE c.region = $region GROUP BY ALL ORDER BY spent DESC LIMIT $n;
`,
	"retail/shop/monthly-review.md": `# Monthly review

How the shop did month by month, and which categories carried it.

<!-- model: sales -->

## Revenue per month

` + "```sql\nSELECT strftime(ordered_at, '%Y-%m') AS month, round(sum(quantity * unit_price), 2) AS revenue\nFROM orders GROUP BY 1 ORDER BY 1;\n```" + `

## Best categories

` + "```sql\nSELECT p.category, sum(o.quantity) AS units\nFROM orders o JOIN products p USING (product_id)\nGROUP BY 1 ORDER BY units DESC;\n```\n",
	"operations/project.json":      `{"description": "Operations: how the shop's web servers behave."}`,
	"operations/web/manifest.json": `{"description": "Access logs of the web front end (JSON lines)."}`,
	"operations/web/traffic.sql": `-- Web traffic: one row per HTTP request served.

-- HTTP requests with path, status and latency.
-- @source requests
SELECT * FROM read_json('data/requests.jsonl', format = 'newline_delimited');

-- Error responses (status 500 and above) per path on one day.
-- @query errors_by_path
-- @param day DATE the day, as YYYY-MM-DD
SELECT path, count(*) AS errors FROM requests
WHERE status >= 500 AND CAST(requested_at AS DATE) = $day GROUP BY 1 ORDER BY errors DESC;
`,
	"climate/project.json":           `{"description": "Weather station readings for planning deliveries."}`,
	"climate/stations/manifest.json": `{"description": "Daily readings of temperature and rainfall from weather stations (2023)."}`,
	"climate/stations/weather.sql": `-- Weather: stations and their readings.

-- Weather stations with location and elevation.
-- @source stations
SELECT * FROM read_csv('data/stations.csv');

-- Daily readings: mean temperature (°C) and total rainfall (mm) per station and day.
-- @source readings
SELECT * FROM read_csv('data/readings.csv');

-- Mean temperature and total rainfall per month at one station.
-- @query monthly_mean
-- @param station VARCHAR station id, e.g. ST01
SELECT month(day) AS month, round(avg(temperature_c), 2) AS mean_temperature_c, round(sum(rain_mm), 1) AS rain_mm
FROM readings WHERE station_id = $station GROUP BY 1 ORDER BY 1;
`,
}

// writeSamples writes the built-in sample catalog into dir, the same bytes on every
// run: its data are generated from a fixed seed.
func writeSamples(ctx context.Context, dir string) error {
	for name, body := range sampleFiles {
		if err := writeFile(filepath.Join(dir, name), func(w *bufio.Writer) { w.WriteString(body) }); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(26, 2026))
	regions := []string{"north", "south", "east", "west"}
	first := []string{"Ada", "Ben", "Cleo", "Dev", "Eva", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"}
	last := []string{"Novak", "Okafor", "Park", "Quinn", "Rossi", "Silva", "Tanaka", "Umar", "Vega", "Weber"}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	shop := filepath.Join(dir, "retail/shop/data")
	if err := writeFile(filepath.Join(shop, "customers.csv"), func(w *bufio.Writer) {
		w.WriteString("customer_id,name,region,signed_up\n")
		for i := 1; i <= sampleCustomers; i++ {
			fmt.Fprintf(w, "%d,%s %s,%s,%s\n", i, first[rng.IntN(len(first))], last[rng.IntN(len(last))], regions[rng.IntN(4)], base.AddDate(0, 0, -rng.IntN(1500)).Format(time.DateOnly))
		}
	}); err != nil {
		return err
	}
	cats := []string{"books", "garden", "kitchen", "toys", "tools", "music"}
	prices := make([]float64, sampleProducts+1)
	if err := writeFile(filepath.Join(shop, "products.csv"), func(w *bufio.Writer) {
		w.WriteString("product_id,name,category,list_price\n")
		for i := 1; i <= sampleProducts; i++ {
			prices[i] = float64(100+rng.IntN(9900)) / 100
			cat := cats[rng.IntN(len(cats))]
			fmt.Fprintf(w, "%d,%s item %d,%s,%.2f\n", i, cat, i, cat, prices[i])
		}
	}); err != nil {
		return err
	}
	ordersCSV := filepath.Join(dir, ".orders.csv")
	if err := writeFile(ordersCSV, func(w *bufio.Writer) {
		w.WriteString("order_id,customer_id,product_id,quantity,unit_price,ordered_at\n")
		for i := 1; i <= sampleOrders; i++ {
			p := 1 + rng.IntN(sampleProducts)
			at := base.Add(time.Duration(rng.Int64N(int64(730 * 24 * time.Hour)))).Truncate(time.Second)
			fmt.Fprintf(w, "%d,%d,%d,%d,%.2f,%s\n", i, 1+rng.IntN(sampleCustomers), p, 1+rng.IntN(5), prices[p], at.Format("2006-01-02 15:04:05"))
		}
	}); err != nil {
		return err
	}
	if err := csvToParquet(ctx, ordersCSV, filepath.Join(shop, "orders.parquet")); err != nil {
		return err
	}
	os.Remove(ordersCSV)

	paths := []string{"/", "/cart", "/checkout", "/search", "/product", "/login", "/api/stock"}
	if err := writeFile(filepath.Join(dir, "operations/web/data/requests.jsonl"), func(w *bufio.Writer) {
		for i := 1; i <= sampleRequests; i++ {
			status := 200
			switch r := rng.IntN(100); {
			case r < 3:
				status = 500 + rng.IntN(4)
			case r < 10:
				status = 404
			case r < 15:
				status = 302
			}
			at := base.AddDate(1, 6, 0).Add(time.Duration(rng.Int64N(int64(14 * 24 * time.Hour)))).Truncate(time.Millisecond)
			fmt.Fprintf(w, `{"request_id":%d,"requested_at":"%s","method":"%s","path":"%s","status":%d,"latency_ms":%.1f}`+"\n",
				i, at.Format("2006-01-02 15:04:05.000"), []string{"GET", "GET", "GET", "POST"}[rng.IntN(4)], paths[rng.IntN(len(paths))], status, 5+rng.ExpFloat64()*40)
		}
	}); err != nil {
		return err
	}
	st := filepath.Join(dir, "climate/stations/data")
	if err := writeFile(filepath.Join(st, "stations.csv"), func(w *bufio.Writer) {
		w.WriteString("station_id,name,latitude,longitude,elevation_m\n")
		for i := 1; i <= sampleStations; i++ {
			fmt.Fprintf(w, "ST%02d,Station %d,%.4f,%.4f,%d\n", i, i, 45+rng.Float64()*10, 5+rng.Float64()*15, rng.IntN(1800))
		}
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(st, "readings.csv"), func(w *bufio.Writer) {
		w.WriteString("station_id,day,temperature_c,rain_mm\n")
		for i := 0; i < sampleReadings; i++ {
			s := 1 + i%sampleStations
			at := base.AddDate(0, 0, i/sampleStations)
			season := -8 * cosDay(at.YearDay())
			rain := 0.0
			if rng.IntN(5) < 2 {
				rain = rng.ExpFloat64() * 5
			}
			fmt.Fprintf(w, "ST%02d,%s,%.1f,%.1f\n", s, at.Format(time.DateOnly), 10+season+rng.NormFloat64()*3, rain)
		}
	})
}

// cosDay is a yearly seasonal curve: 1 in midwinter, -1 in midsummer.
func cosDay(day int) float64 {
	x := float64(day) / 365 * 2 * 3.141592653589793
	// cos by a short series is enough for sample data and keeps the output
	// identical on every platform.
	c, term := 1.0, 1.0
	for k := 1; k < 20; k++ {
		term *= -x * x / float64((2*k-1)*(2*k))
		c += term
	}
	return c
}

func writeFile(path string, fill func(w *bufio.Writer)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// csvToParquet converts a CSV file with DuckDB (an in-memory database of its own).
func csvToParquet(ctx context.Context, csvPath, parquetPath string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	q := "COPY (SELECT * FROM read_csv(" + quoteLit(csvPath) + ")) TO " + quoteLit(parquetPath) + " (FORMAT parquet)"
	_, err = db.ExecContext(ctx, q)
	return err
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
