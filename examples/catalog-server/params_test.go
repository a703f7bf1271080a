package main

import (
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestParamRanges: an integer parameter's value must fit its type (and be a JSON
// number that is exact); a value out of range is refused with the range, not bound
// as some other number. INTERVAL and POINT are not integer types.
func TestParamRanges(t *testing.T) {
	q := &catalog.Query{Name: "q", Params: []catalog.Param{{Name: "year", Type: "INTEGER"}}}
	for _, tc := range []struct {
		typ  string
		v    any
		want string // "" means accepted
	}{
		{"INTEGER", 2024.0, ""},
		{"INTEGER", -2147483648.0, ""},
		{"INTEGER", 3e9, "from -2147483648 to 2147483647 (INTEGER), got 3000000000"},
		{"INTEGER", 1e20, "from -2147483648 to 2147483647"},
		{"TINYINT", 200.0, "from -128 to 127 (TINYINT)"},
		{"UTINYINT", -1.0, "from 0 to 255"},
		{"USMALLINT", 65535.0, ""},
		{"BIGINT", 9007199254740992.0, ""},
		{"BIGINT", 1e20, "from -9007199254740992 to 9007199254740992 (BIGINT)"},
		{"UBIGINT", 1e19, "from 0 to 9007199254740992"},
		{"INT64", -1e300, "from -9007199254740992 to 9007199254740992 (INT64)"},
		{"INTERVAL", "2 days", ""},
		{"INTERVAL", 2.0, `must be a string (INTERVAL)`},
		{"POINT", "(1,2)", ""},
	} {
		q.Params[0].Type = tc.typ
		out, err := checkParams(q, map[string]any{"year": tc.v})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.typ, tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: got %v (%v), want an error with %q", tc.typ, tc.v, err, out, tc.want)
		}
	}
}
