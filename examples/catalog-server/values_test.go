package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestTimeAndIntervalValues: through execute_query, in the server's process and in
// query processes alike, a TIME or TIMETZ of 24:00:00 comes back as 24:00:00 (not
// 00:00:00), also from a TIME parameter and inside a list, and an INTERVAL as
// DuckDB's text ("1 day 02:00:00", not {"days", "months", "micros"}), which the
// same query takes back as its INTERVAL parameter.
func TestTimeAndIntervalValues(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/a.csv":    "x\n1\n",
		"p/k/m.sql": "-- @source a\nSELECT * FROM 'data/a.csv';\n\n" +
			"-- @query q\n-- @param t TIME\n-- @param i INTERVAL\nSELECT $t AS t, [$t] AS l, $i AS i, {'i': $i + INTERVAL 1 HOUR} AS s;\n",
	})
	in := newTestService(t, dir, Config{})
	iso := newTestService(t, dir, Config{Duck: engine.DuckConfig{Worker: builtWorker(buildServer(t))}})
	ctx := context.Background()
	for name, svc := range map[string]*Service{"in process": in, "in processes": iso} {
		res, err := svc.Execute(ctx, executeIn{Path: "p/k/m", SQL: "SELECT TIME '24:00:00' AS t, TIME '24:00:00' > TIME '23:00:00' AS gt, [TIMETZ '24:00:00+02'] AS tz, INTERVAL '1 day 2 hours' AS i, [INTERVAL '-14 months'] AS li"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b, _ := json.Marshal(res.Rows[0]); string(b) != `["24:00:00",true,["24:00:00+02:00"],"1 day 02:00:00",["-1 year -2 months"]]` {
			t.Errorf("%s: %s", name, b)
		}
		i := "1 day 02:00:00"
		for range 2 {
			res, err = svc.Execute(ctx, executeIn{Path: "p/k/m/q", Parameters: paramValues{"t": "24:00:00", "i": i}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, _ := json.Marshal(res.Rows[0])
			if string(b) != `["24:00:00",["24:00:00"],"1 day 02:00:00",{"i":"1 day 03:00:00"}]` {
				t.Errorf("%s: %s", name, b)
			}
			var row []any
			json.Unmarshal(b, &row)
			i = row[2].(string) // the value as it came back, passed back
		}
	}
}
