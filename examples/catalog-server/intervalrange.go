package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// An INTERVAL is months and days (32-bit each) and microseconds (64-bit), on
// both engines. A value past them fails in the engine's cast with an error
// that does not name the value ("Type INT64 with value 2147483652 can't be
// cast … INT32", PostgreSQL's "interval out of range"), and the catalog's SQL
// could fail the same way: so a value out of range is refused before the
// query, naming the parameter (intervalRange). Another form is left to the
// engine, whose error quoting the value blames the parameter
// (paramValueError).

// intervalUnit is what one of a unit adds: to months, days or microseconds.
type intervalUnit struct {
	field int // 0 months, 1 days, 2 microseconds
	mult  int64
}

// intervalUnits are DuckDB's interval units (lower case), which PostgreSQL
// reads the same where pgUnit.
var intervalUnits = func() map[string]intervalUnit {
	u := map[string]intervalUnit{}
	add := func(field int, mult int64, names ...string) {
		for _, n := range names {
			u[n] = intervalUnit{field, mult}
		}
	}
	add(0, 12000, "millennium", "millennia", "millenium", "millenniums", "mil", "mils")
	add(0, 1200, "century", "centuries", "cent", "c")
	add(0, 120, "decade", "decades", "dec", "decs")
	add(0, 12, "year", "years", "y", "yr", "yrs")
	add(0, 3, "quarter", "quarters")
	add(0, 1, "month", "months", "mon", "mons")
	add(1, 7, "week", "weeks", "w")
	add(1, 1, "day", "days", "d")
	add(2, 3600_000_000, "hour", "hours", "h", "hr", "hrs")
	add(2, 60_000_000, "minute", "minutes", "m", "min", "mins")
	add(2, 1_000_000, "second", "seconds", "s", "sec", "secs")
	add(2, 1000, "millisecond", "milliseconds", "ms", "msec", "msecs")
	add(2, 1, "microsecond", "microseconds", "us", "usec", "usecs")
	return u
}()

// pgUnit reports whether PostgreSQL reads the unit name n (lower case) as
// intervalUnits does.
func pgUnit(n string) bool {
	switch strings.TrimSuffix(n, "s") {
	case "millennium", "millennia", "centurie", "century", "decade", "year", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond":
		return true
	}
	return false
}

const intervalRangeText = "months and days each from -2147483648 to 2147483647, microseconds from -9223372036854775808 to 9223372036854775807"

// intervalRange says why the INTERVAL text s is out of the engine's range, or
// "" when it is in range or of a form not read here (left to the engine).
// DuckDB's reading is followed step by step (its interval.cpp: each number
// times its unit, checked at each addition, a fraction spread over the lower
// fields); PostgreSQL's only for whole numbers and units it reads alike, by
// the totals.
func intervalRange(eng, s string) string {
	if eng == catalog.EnginePostgres {
		return pgIntervalRange(s)
	}
	return duckIntervalRange(s)
}

// duckIntervalRange is intervalRange for DuckDB.
func duckIntervalRange(s string) string {
	var months, days int32
	var micros int64
	i := 0
	if strings.HasPrefix(s, "@") {
		i++
	} else if s != "" && (s[0] == 'p' || s[0] == 'P') {
		return ""
	}
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
	// addTo adds n × mult and then fraction × mult (rounded) to the field,
	// as DuckDB's IntervalTryAddition.
	addTo := func(field int, n, mult int64, fraction float64, what string) string {
		steps := []int64{0, 0}
		prod, ok := mulInt64(n, mult)
		if !ok {
			return fmt.Sprintf("%s is past the range of a 64-bit integer", what)
		}
		steps[0] = prod
		if math.Abs(fraction) > 1e-10 {
			steps[1] = int64(math.Round(fraction * float64(mult)))
		}
		for _, a := range steps {
			switch field {
			case 0, 1:
				p := &months
				name := "months"
				if field == 1 {
					p, name = &days, "days"
				}
				sum := int64(*p) + a
				if a < math.MinInt32 || a > math.MaxInt32 || sum < math.MinInt32 || sum > math.MaxInt32 {
					return fmt.Sprintf("%s takes its %s out of range", what, name)
				}
				*p = int32(sum)
			default:
				sum, ok := addInt64(micros, a)
				if !ok {
					return fmt.Sprintf("%s takes its microseconds out of range", what)
				}
				micros = sum
			}
		}
		return ""
	}
	found := false
	for i < len(s) {
		c := s[i]
		switch {
		case space(c):
			i++
			continue
		case c == 'a' || c == 'A':
			// "ago": all fields negated, then only white space.
			if len(s)-i < 3 || strings.ToLower(s[i:i+3]) != "ago" || strings.Trim(s[i+3:], " \t\n") != "" || !found {
				return ""
			}
			if months == math.MinInt32 || days == math.MinInt32 || micros == math.MinInt64 {
				return "ago cannot negate it: a field is at its lowest"
			}
			return ""
		case c != '-' && !isDigit(c):
			return ""
		}
		neg := c == '-'
		if neg {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i < len(s) && s[i] == ':' {
			return "" // a time of day: left to DuckDB
		}
		if i == start {
			return ""
		}
		digits := s[start:i]
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return fmt.Sprintf("the number %s is past 9223372036854775807", digits)
		}
		fraction := 0.0
		if i < len(s) && s[i] == '.' {
			i++
			fs := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			if i > fs {
				fraction, _ = strconv.ParseFloat("."+s[fs:i], 64)
			}
		}
		if neg {
			n, fraction = -n, -fraction
		}
		for i < len(s) && space(s[i]) {
			i++
		}
		us := i
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		name := strings.ToLower(s[us:i])
		what := strings.TrimSpace(s[start-btoi(neg) : i])
		if name == "" {
			if found || strings.Trim(s[i:], " \t\n") != "" {
				return ""
			}
			return addTo(2, n, 1_000_000, fraction, what) // seconds
		}
		u, ok := intervalUnits[name]
		if !ok {
			return ""
		}
		var why string
		switch {
		case name == "quarter" || name == "quarters":
			// Whole months, the rest of the fraction as days of 30.
			why = addTo(0, n, 3, 0, what)
			if why == "" {
				m := int64(fraction * 3)
				why = addTo(0, m, 1, 0, what)
				if why == "" {
					why = addTo(1, 0, 30, fraction*3-float64(m), what)
				}
			}
		case u.field == 0 && u.mult == 1, u.field == 1 && u.mult == 7:
			// Months: the fraction as days of 30, its rest as microseconds;
			// weeks: the fraction as days, its rest as microseconds.
			per := 30.0
			if u.field == 1 {
				per = 7
			}
			why = addTo(u.field, n, u.mult, 0, what)
			if why == "" {
				d := int64(fraction * per)
				why = addTo(1, d, 1, 0, what)
				if why == "" {
					why = addTo(2, 0, 86_400_000_000, fraction*per-float64(d), what)
				}
			}
		case u.field == 1:
			why = addTo(1, n, 1, 0, what)
			if why == "" {
				why = addTo(2, 0, 86_400_000_000, fraction, what)
			}
		default:
			why = addTo(u.field, n, u.mult, fraction, what)
		}
		if why != "" {
			return why
		}
		found = true
	}
	return ""
}

// pgIntervalRange is intervalRange for PostgreSQL: whole numbers of units it
// reads as DuckDB does, each unit once, with "ago" at the end if any; their
// totals out of range (a number past 32 bits PostgreSQL refuses itself, naming
// the value).
func pgIntervalRange(s string) string {
	f := strings.Fields(strings.ToLower(s))
	ago := len(f) > 0 && f[len(f)-1] == "ago"
	if ago {
		f = f[:len(f)-1]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return ""
	}
	totals := [3]*big.Int{new(big.Int), new(big.Int), new(big.Int)}
	seen := map[string]bool{}
	for k := 0; k < len(f); k += 2 {
		if !digitsForm.MatchString(f[k]) || !pgUnit(f[k+1]) || strings.HasPrefix(f[k], "-") && len(f[k]) == 1 {
			return ""
		}
		u := intervalUnits[f[k+1]]
		key := strings.TrimSuffix(f[k+1], "s")
		if seen[key] {
			return ""
		}
		seen[key] = true
		n, _ := new(big.Int).SetString(f[k], 10)
		totals[u.field].Add(totals[u.field], n.Mul(n, big.NewInt(u.mult)))
	}
	for field, name := range []string{"months", "days", "microseconds"} {
		if ago {
			totals[field].Neg(totals[field])
		}
		lo, hi := big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
		if field == 2 {
			lo, hi = big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
		}
		if totals[field].Cmp(lo) < 0 || totals[field].Cmp(hi) > 0 {
			return fmt.Sprintf("it is %s %s", totals[field], name)
		}
	}
	return ""
}

func mulInt64(a, b int64) (int64, bool) {
	p := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return p.Int64(), p.IsInt64()
}

func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
