package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestDuckUnreadableTypes: values duckdb-go cannot read (duckdb-go 1.5.6) are
// read another way where they are a column: a MAP whose keys are lists,
// structs, BLOBs or UUIDs as [{key, value}…] like any MAP (its entries), a
// VARIANT as its JSON; inside another value, the query is an SQL error naming
// the column, its type and what to select instead. In the server's process and
// in query processes alike. Before: "database/sql/driver: MAP key type not
// supported: index: 0" and "unsupported data type: VARIANT", kind invalid.
func TestDuckUnreadableTypes(t *testing.T) {
	d, p := openBoth(t)
	type ok struct{ expr, typ, json string }
	good := []ok{
		{`MAP {[1,2]: {'x': 1}}`, `MAP(INTEGER[], STRUCT(x INTEGER))`, `[{"key":[1,2],"value":{"x":1}}]`},
		{`MAP {{'a': 1}: 'x', {'a': 2}: 'y'}`, `MAP(STRUCT(a INTEGER), VARCHAR)`, `[{"key":{"a":1},"value":"x"},{"key":{"a":2},"value":"y"}]`},
		{`MAP {'00000000-0000-0000-0000-000000000001'::UUID: 1}`, `MAP(UUID, INTEGER)`, `[{"key":"00000000-0000-0000-0000-000000000001","value":1}]`},
		{`MAP {'ab'::BLOB: 1}`, `MAP(BLOB, INTEGER)`, `[{"key":"YWI=","value":1}]`},
		{`MAP {[1]: '{"n": 9007199254740993}'::JSON}`, `MAP(INTEGER[], JSON)`, `[{"key":[1],"value":{"n":9007199254740993}}]`},
		{`NULL::MAP(INTEGER[], INTEGER)`, `MAP(INTEGER[], INTEGER)`, `null`},
		{`1::VARIANT`, `VARIANT`, `1`},
		{`{'a': [1, 2], 'd': DATE '2024-01-02', 'n': 12345678901234567890::HUGEINT}::VARIANT`, `VARIANT`, `{"a":[1,2],"d":"2024-01-02","n":12345678901234567890}`},
		{`NULL::VARIANT`, `VARIANT`, `null`},
	}
	bad := []string{`[1::VARIANT]`, `{'s': 'x'::VARIANT}`, `[MAP {[1]: 2}]`, `{'m': MAP {{'a': 1}: 2}}`, `MAP {'k': 1::VARIANT}`}
	for _, e := range []struct {
		name string
		q    func(context.Context, string, map[string]any, Limits) (*Result, error)
	}{{"in process", d.Query}, {"query process", p.Query}} {
		for _, tc := range good {
			res, err := e.q(context.Background(), "SELECT "+tc.expr+" AS m2, 7 AS n", nil, testLimits)
			if err != nil {
				t.Errorf("%s: %s: %v", e.name, tc.expr, err)
				continue
			}
			if got, _ := json.Marshal(res.Rows[0]); string(got) != "["+tc.json+",7]" {
				t.Errorf("%s: %s: %s, want [%s,7]", e.name, tc.expr, got, tc.json)
			}
			if res.Columns[0] != (Column{"m2", tc.typ}) || res.Columns[1] != (Column{"n", "INTEGER"}) {
				t.Errorf("%s: %s: columns %+v, want m2 %s", e.name, tc.expr, res.Columns, tc.typ)
			}
		}
		for _, expr := range bad {
			_, err := e.q(context.Background(), "SELECT "+expr+" AS m2", nil, testLimits)
			var se *SQLError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), `the column "m2" is of type `) || !strings.Contains(err.Error(), `select CAST("m2" AS JSON)`) {
				t.Errorf("%s: %s: %T %v", e.name, expr, err, err)
			}
		}
	}
}
