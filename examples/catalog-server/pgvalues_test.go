package main

import (
	"context"
	"encoding/json"
	"testing"
)

// TestPostgresValueFormsThroughTools: what execute_query and describe answer
// for PostgreSQL values that came back wrong before: arrays of two dimensions
// (flat: [1,2,3,null]), a DATE[][] parameter echoed (flat, and with a time
// and a Z: "2020-01-01T00:00:00Z"), a date before 1 AD (Go's "-4712-01-01",
// which PostgreSQL refuses as a DATE parameter; now "4713-01-01 BC", which a
// DATE parameter takes back), "char" (114) and tid ({"BlockNumber":0,…}).
func TestPostgresValueFormsThroughTools(t *testing.T) {
	svc := pgModelService(t, "-- @source vals\n"+
		"SELECT '{{1,2},{3,NULL}}'::int[] AS a, ARRAY[DATE '4713-01-01 BC'] AS bc, 'r'::\"char\" AS k, '(0,1)'::tid AS t;\n\n"+
		"-- @query days\n-- @param d DATE[][]\nSELECT @d AS d;\n\n"+
		"-- @query day\n-- @param d DATE\nSELECT @d AS d, @d + 1 AS next;\n\n"+
		"-- @query stamp\n-- @param s TIMESTAMP\nSELECT @s AS s;\n")
	for _, tc := range []struct{ path, params, want string }{
		{"p/pg/m/days", `{"d":[["2020-01-01","0044-03-15 BC"],["2020-01-03","2020-01-04"]]}`, `{"Columns":[{"name":"d","type":"_date"}],"Rows":[[[["2020-01-01","0044-03-15 BC"],["2020-01-03","2020-01-04"]]]]}`},
		{"p/pg/m/day", `{"d":"4713-01-01 BC"}`, `{"Columns":[{"name":"d","type":"date"},{"name":"next","type":"date"}],"Rows":[["4713-01-01 BC","4713-01-02 BC"]]}`},
		{"p/pg/m/stamp", `{"s":"0044-03-15T12:00:00.5 BC"}`, `{"Columns":[{"name":"s","type":"timestamp"}],"Rows":[["0044-03-15T12:00:00.5 BC"]]}`},
	} {
		got, te := runNamed(t, svc, tc.path, tc.params)
		if te != nil || got != tc.want {
			t.Errorf("%s %s:\n got %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
	}
	d, err := svc.Describe(context.Background(), "p/pg/m/vals")
	if err != nil {
		t.Fatal(err)
	}
	const want = `[[[[1,2],[3,null]],["4713-01-01 BC"],"r","(0,1)"]]`
	if got, _ := json.Marshal(d.SampleRows); string(got) != want {
		t.Errorf("describe's sample rows: %s, want %s (error %q)", got, want, d.Error)
	}
}
