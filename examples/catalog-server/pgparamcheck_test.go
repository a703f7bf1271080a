package main

import (
	"strings"
	"testing"
)

// TestPGParamValuesRefusedOrBlamed: on PostgreSQL, a BIT(n) value of another
// length and a VARBIT(n) value longer than n are refused naming the parameter
// (PostgreSQL's cast pads or cuts them without a word: "10101" and "101" both
// reached the query as 1010); a REAL or DOUBLE PRECISION too small for its
// type is refused (it was bound as 0, where PostgreSQL refuses it), while the
// denormals PostgreSQL reads stay accepted; a MONEY out of range and an
// INT4RANGE whose bounds are out of order are blamed on the parameter, not on
// the catalog's SQL — but a range error with two range parameters blames
// neither.
func TestPGParamValuesRefusedOrBlamed(t *testing.T) {
	svc := pgModelService(t, "-- @source items\nSELECT 1 AS id;\n\n"+
		"-- @query bits\n-- @param d BIT(4)\nSELECT @d::text AS d;\n\n"+
		"-- @query onebit\n-- @param d BIT\nSELECT @d::text AS d;\n\n"+
		"-- @query varbits\n-- @param v VARBIT(4)\nSELECT @v::text AS v;\n\n"+
		"-- @query bitlist\n-- @param l BIT(2)[]\nSELECT @l::text AS l;\n\n"+
		"-- @query real\n-- @param c REAL\nSELECT @c AS c;\n\n"+
		"-- @query double\n-- @param d DOUBLE PRECISION\nSELECT @d AS d;\n\n"+
		"-- @query money\n-- @param m MONEY\nSELECT @m AS m;\n\n"+
		"-- @query range\n-- @param r INT4RANGE\n-- @param n INTEGER\nSELECT @r::text AS r, @n AS n;\n\n"+
		"-- @query tworanges\n-- @param r INT4RANGE\n-- @param s INT4RANGE\nSELECT (@r * @s)::text AS r;\n")
	for _, tc := range []struct {
		path, params string
		want         string // the result, or a part of the error
	}{
		{"bits", `{"d":"1010"}`, `[["1010"]]`},
		{"bits", `{"d":"xA"}`, `[["1010"]]`},
		{"bits", `{"d":"10101"}`, `parameter "d" must be exactly 4 bits (BIT(4)), got 5`},
		{"bits", `{"d":"101"}`, `parameter "d" must be exactly 4 bits (BIT(4)), got 3`},
		{"bits", `{"d":"x1F"}`, `parameter "d" must be exactly 4 bits (BIT(4)), got 8`},
		{"onebit", `{"d":"1"}`, `[["1"]]`},
		{"onebit", `{"d":"10"}`, `parameter "d" must be exactly 1 bit (BIT), got 2`},
		{"varbits", `{"v":"101"}`, `[["101"]]`},
		{"varbits", `{"v":"10101"}`, `parameter "v" must be at most 4 bits (VARBIT(4)), got 5`},
		{"bitlist", `{"l":["10","011"]}`, `parameter "l[1]" must be exactly 2 bits`},
		{"real", `{"c":1e-40}`, `[[1e-40]]`},
		{"real", `{"c":1e-45}`, `[[1e-45]]`},
		{"real", `{"c":0}`, `[[0]]`},
		{"real", `{"c":1e-50}`, `parameter "c" must be a number (REAL), and 1e-50 is out of range: a REAL other than 0 has a magnitude of at least about 1.4e-45`},
		{"double", `{"d":5e-324}`, `[[5e-324]]`},
		{"double", `{"d":0e-500}`, `[[0]]`},
		{"double", `{"d":1e-400}`, `parameter "d" must be a number (DOUBLE PRECISION), and 1e-400 is out of range: a DOUBLE PRECISION other than 0 has a magnitude of at least about 4.9e-324`},
		{"double", `{"d":-2e-324}`, `parameter "d" must be a number (DOUBLE PRECISION), and -2e-324 is out of range`},
		{"money", `{"m":"99999999999999999999"}`, `parameter "m" must be a MONEY, and the engine could not read "99999999999999999999" as one (value "99999999999999999999" is out of range for type money)`},
		{"range", `{"r":"[5,1)","n":1}`, `parameter "r" must be an INT4RANGE whose lower bound is at most its upper bound, and "[5,1)" is not one (range lower bound must be less than or equal to range upper bound)`},
		{"range", `{"r":"[1,5)","n":1}`, `[["[1,5)",1]]`},
		{"tworanges", `{"r":"[5,1)","s":"[1,2)"}`, `the SQL of the named query`},
	} {
		got, te := runNamed(t, svc, "p/pg/m/"+tc.path, tc.params)
		if te != nil {
			got = te.Error
		}
		if !strings.Contains(got, tc.want) && !strings.Contains(got, `"Rows":`+tc.want+`}`) {
			t.Errorf("%s %s: %s %+v\nwant %s", tc.path, tc.params, got, te, tc.want)
		}
		if strings.HasPrefix(tc.want, "parameter") && (te == nil || te.Kind != "invalid") {
			t.Errorf("%s %s: %+v, want kind invalid", tc.path, tc.params, te)
		}
	}
}
