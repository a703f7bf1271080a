package main

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
)

// duckIntervalText matches an interval as DuckDB writes one out: whole
// years, months and days, then a time of day with at most six digits of
// fraction ("1 year 2 months 3 days -02:00:00.5", "2562047788:00:54.775807").
// Group 1 is what comes before the time, 2 its sign, 3 to 5 hours, minutes,
// seconds, 6 the fraction's digits.
var duckIntervalText = regexp.MustCompile(`^((?:-?\d+ (?:years?|months?|days?) )*)(-?)(\d+):([0-5]\d):([0-5]\d)(?:\.(\d{1,6}))?$`)

// duckIntervalBind returns the text an INTERVAL parameter's value s is bound as
// in a DuckDB package: s itself, but for a value in the form DuckDB writes
// intervals out (duckIntervalText), whose time of day is written as the
// microseconds it stands for. DuckDB's own reader refuses a time of day of
// many hours ("2147483647:00:00", or the "2562047788:00:54.775807" it writes
// for the largest interval), so without this an interval the server returned
// would not bind back. A time past the microseconds' range is left as written
// (DuckDB refuses it).
func duckIntervalBind(s string) string {
	m := duckIntervalText.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	us := new(big.Int)
	h, ok := new(big.Int).SetString(m[3], 10)
	if !ok {
		return s
	}
	mi, _ := strconv.ParseInt(m[4], 10, 64)
	se, _ := strconv.ParseInt(m[5], 10, 64)
	frac, _ := strconv.ParseInt((m[6] + "000000")[:6], 10, 64)
	us.Mul(h, big.NewInt(3_600_000_000))
	us.Add(us, big.NewInt(mi*60_000_000+se*1_000_000+frac))
	if m[2] == "-" {
		us.Neg(us)
	}
	if !us.IsInt64() {
		return s
	}
	n := us.Int64()
	if n == math.MinInt64 {
		// DuckDB reads the digits before the sign: 9223372036854775808 is
		// past an int64, so the lowest is written as two parts it adds.
		return m[1] + "-9223372036854775807 microseconds -1 microseconds"
	}
	return m[1] + strconv.FormatInt(n, 10) + " microseconds"
}
