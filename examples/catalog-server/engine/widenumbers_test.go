package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestWideNumbers: a number common JSON parsers cannot read — past float64's
// range or longer than maxJSONNumber characters — comes back as the string of
// its digits, wherever it is (a JSON column, inside a JSON value, a BIGNUM),
// in the server's process and in query processes alike; numbers that fit stay
// numbers with all their digits (HUGEINT, DECIMAL, a 50-digit BIGNUM). Before,
// a JSON 1e999 was sent as a number (Go's json.Unmarshal refuses it), and a
// BIGNUM of 5,000 nines made Python's json.loads refuse the whole answer.
func TestWideNumbers(t *testing.T) {
	d, p := openBoth(t)
	nines := strings.Repeat("9", 5000)
	for _, tc := range []valueCase{
		{`'1e999'::JSON`, `"1e999"`},
		{`'{"a": [1e999, -1e999, 1e-999, 2.5]}'::JSON`, `{"a":["1e999","-1e999",1e-999,2.5]}`},
		{`['1e999'::JSON]`, `["1e999"]`},
		{`'` + nines + `'::JSON`, `"` + nines + `"`},
		{`'0.` + strings.Repeat("1", 1200) + `'::JSON`, `"0.` + strings.Repeat("1", 1200) + `"`},
		{`'` + nines + `'::BIGNUM`, `"` + nines + `"`},
		{`['-` + nines + `'::BIGNUM]`, `["-` + nines + `"]`},
		// What fits stays a number, all its digits kept.
		{`'` + strings.Repeat("9", 50) + `'::BIGNUM`, strings.Repeat("9", 50)},
		{`'12345678901234567890123456789012345678'::JSON`, `12345678901234567890123456789012345678`},
		{`170141183460469231731687303715884105727::HUGEINT`, `170141183460469231731687303715884105727`},
		{`-99999999999999999999999999999999999999::DECIMAL(38,0)`, `-99999999999999999999999999999999999999`},
		{`'0.12345678901234567890123456789012345678'::DECIMAL(38,38)`, `0.12345678901234567890123456789012345678`},
	} {
		for _, e := range []struct {
			name string
			q    func(context.Context, string, map[string]any, Limits) (*Result, error)
		}{{"in process", d.Query}, {"query process", p.Query}} {
			res, err := e.q(context.Background(), "SELECT "+tc.expr+" AS v", nil, testLimits)
			if err != nil {
				t.Errorf("%s: %.80s: %v", e.name, tc.expr, err)
				continue
			}
			got, _ := json.Marshal(res.Rows[0][0])
			if string(got) != tc.json {
				t.Errorf("%s: %.80s: %.200s, want %.200s", e.name, tc.expr, got, tc.json)
			}
			// The answer reads back with Go's encoding/json.
			var back any
			if err := json.Unmarshal(got, &back); err != nil {
				t.Errorf("%s: %.80s: %v", e.name, tc.expr, err)
			}
		}
	}
}

// TestPGWideNumbers: on PostgreSQL too, a numeric past float64's range or
// longer than maxJSONNumber characters, and such a number inside json or
// jsonb, comes back as the string of its digits (a numeric of 5,001 digits made
// Python's json.loads refuse the whole answer); numbers that fit stay numbers.
func TestPGWideNumbers(t *testing.T) {
	pg := openTestPG(t)
	nines := strings.Repeat("9", 5001)
	for _, tc := range []valueCase{
		{`'` + nines + `'::numeric`, `"` + nines + `"`},
		{`ARRAY['` + nines + `'::numeric, 1.5]`, `["` + nines + `",1.5]`},
		{`-1e400::numeric`, `"-1` + strings.Repeat("0", 400) + `"`},
		{`'{"a": [1e999, 2.5]}'::jsonb`, `{"a":["1` + strings.Repeat("0", 999) + `",2.5]}`}, // jsonb writes out the digits
		{`'[1e999]'::json`, `["1e999"]`},
		{`12345678901234567890123456789.5::numeric`, `12345678901234567890123456789.5`},
		{`'NaN'::numeric`, `"NaN"`},
	} {
		res, err := pg.Query(context.Background(), "SELECT "+tc.expr+" AS v", nil, testLimits)
		if err != nil {
			t.Errorf("%.80s: %v", tc.expr, err)
			continue
		}
		got, _ := json.Marshal(res.Rows[0][0])
		if string(got) != tc.json {
			t.Errorf("%.80s: %.200s, want %.200s", tc.expr, got, tc.json)
		}
	}
}
