package main

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

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

// intervalUnits are DuckDB's interval units (lower case; its date-part
// specifiers that an interval takes: "dayofmonth" is days, "weekofyear"
// weeks); PostgreSQL's are pgUnits.
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
	add(1, 7, "week", "weeks", "w", "weekofyear")
	add(1, 1, "day", "days", "d", "dayofmonth")
	add(2, 3600_000_000, "hour", "hours", "h", "hr", "hrs")
	add(2, 60_000_000, "minute", "minutes", "m", "min", "mins")
	add(2, 1_000_000, "second", "seconds", "s", "sec", "secs")
	add(2, 1000, "millisecond", "milliseconds", "ms", "msec", "msecs", "msecond", "mseconds")
	add(2, 1, "microsecond", "microseconds", "us", "usec", "usecs", "usecond", "useconds")
	return u
}()

// isIntervalType reports whether the SQL type t is an INTERVAL, with a
// precision or not (interval(3)) or PostgreSQL's fields (interval day to
// second(3), interval hour to minute), or a list of them (INTERVAL[],
// INTERVAL(3)[][]; list true). A list's elements are bound one by one as
// parameters of the element type (bindList), so each is checked as a single
// INTERVAL is; the engine's error quoting one element blames the list.
func isIntervalType(t string) (interval, list bool) {
	base, depth := listBase(compactType(t))
	if base == "INTERVAL" || strings.HasPrefix(base, "INTERVAL(") && strings.HasSuffix(base, ")") || hasIntervalFields(base) {
		return true, depth > 0
	}
	return false, false
}

// intervalForms are the forms of an INTERVAL's text the engine eng reads, for
// the messages refusing one.
func intervalForms(eng string) string {
	forms := `a number and a unit each, fractions allowed ("1 day 2 hours", "1.5 days", "90 minutes"), a time ("02:30:00"), "ago" at the end to negate`
	if eng == catalog.EnginePostgres {
		return forms + `, or ISO 8601 ("P1DT2H", "P0.5Y")`
	}
	return forms
}

const intervalRangeText = "months and days each from -2147483648 to 2147483647, microseconds from -9223372036854775808 to 9223372036854775807"

// intervalRange says why the INTERVAL text s is out of the engine's range, or
// "" when it is in range or of a form not read here (left to the engine).
// DuckDB's reading is followed step by step (its interval.cpp: each number
// times its unit, checked at each addition, a fraction spread over the lower
// fields); PostgreSQL's only for whole numbers and units it reads alike, by
// the totals.
//
// t is the parameter's type: on PostgreSQL an INTERVAL(p) of fewer than six
// digits after the second rounds its microseconds to them without checking
// the range (PostgreSQL 15's AdjustIntervalForTypmod: "9223372036854775807
// us" as INTERVAL(3) becomes -2562047788:00:54.775, and so does
// "2562047788:00:54.775807"), so a value whose microseconds, as read here
// (a time of day too), round past the range is refused too.
func intervalRange(eng, t, s string) string {
	if eng == catalog.EnginePostgres {
		return pgIntervalRange(s, intervalPrecision(t))
	}
	return duckIntervalRange(s)
}

// intervalPrecision is the digits after the second of the INTERVAL type t
// (upper case, no white space, not a list; INTERVAL(3) and INTERVAL DAY TO
// SECOND(3) are 3), 6 for none. PostgreSQL cuts an interval to its fields
// (HOUR TO MINUTE drops the seconds) toward zero, which cannot take it out
// of range; only the rounding to the precision can.
func intervalPrecision(t string) int {
	p, ok := strings.CutPrefix(t, "INTERVAL(")
	if m := intervalFields.FindStringSubmatch(t); m != nil {
		p, ok = m[2], m[2] != ""
	}
	if ok {
		if n, err := strconv.Atoi(strings.TrimSuffix(p, ")")); err == nil && n >= 0 && n < 6 {
			return n
		}
	}
	return 6
}

// intervalFields matches an INTERVAL type with PostgreSQL's fields (upper
// case, no white space, not a list): INTERVALDAYTOSECOND(3), INTERVALHOUR.
// m[1] is the fields, m[2] the precision of the seconds if given.
var intervalFields = regexp.MustCompile(`^INTERVAL(YEARTOMONTH|DAYTOHOUR|DAYTOMINUTE|HOURTOMINUTE|YEAR|MONTH|DAY|HOUR|MINUTE|(?:(?:DAY|HOUR|MINUTE)TO)?SECOND(?:\((\d+)\))?)$`)

// hasIntervalFields reports whether the SQL type t, or the element type of
// the list t is, is an INTERVAL with PostgreSQL's fields (interval day to
// second(3), INTERVAL HOUR[]): the one rule castType, isIntervalType and
// duckIntervalFields follow.
func hasIntervalFields(t string) bool {
	base, _ := listBase(compactType(t))
	return intervalFields.MatchString(base)
}

// duckIntervalFields says why the parameter p of a DuckDB package cannot be
// declared an INTERVAL with fields (INTERVAL HOUR TO MINUTE, INTERVAL
// SECOND(3)), and what to write instead: DuckDB 1.5 reads the fields and
// drops them (its INTERVAL HOUR TO MINUTE keeps the seconds), and takes no
// precision after SECOND. "" for another parameter or engine. Told when the
// model loads and when the query is called.
func duckIntervalFields(eng string, p catalog.Param) string {
	if eng == catalog.EnginePostgres {
		return ""
	}
	if !hasIntervalFields(p.Type) {
		return ""
	}
	return fmt.Sprintf("@param %s %s has PostgreSQL's interval fields, which DuckDB does not apply (it reads INTERVAL HOUR TO MINUTE as an INTERVAL with its seconds, and refuses SECOND(3)): declare it INTERVAL and cut the value in the SQL where the query needs it cut (if the words after INTERVAL begin its description, put a comma after INTERVAL)", p.Name, p.Type)
}

// duckFieldBounds are the lowest and highest months, days and microseconds
// (duckIntervalRange; read only), built once.
var duckFieldBounds = [3][2]*big.Int{
	{big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)},
	{big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)},
	{big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)},
}

var (
	duckFieldNames = [3]string{"months", "days", "microseconds"}
	million        = big.NewInt(1_000_000) // read only
)

// duckIntervalRange is intervalRange for DuckDB. DuckDB 1.5 reads a number's
// fraction to six digits (F millionths of its unit, checked against it on
// the boundaries): F × the unit's microseconds / 10^6, cut toward zero, for
// seconds down to milliseconds, hours and minutes, and a day's fraction;
// rounded half away from zero for microseconds; whole months of a year's
// (decade's …) fraction; whole months and then whole days of a quarter's;
// whole days of a month's; whole days and the rest as microseconds of a
// week's. The rest of a fraction is dropped. All in integers, so the check
// and DuckDB agree on the last microsecond of what DuckDB reads in range.
// They differ on purpose where DuckDB wraps around without an error: its
// rounding of a fraction of a microsecond is not checked, so
// "9223372036854775807.5 us" is -2562047788:00:54.775808 there (and
// "9223372036854775807.99 microseconds 7 USEC 0.0000005d" a negative
// interval too); the check refuses those, as a silently wrapped interval is
// wrong data.
func duckIntervalRange(s string) string {
	var fields [3]int64 // months, days, microseconds
	var parts [3][]string
	names := &duckFieldNames
	i := 0
	if strings.HasPrefix(s, "@") {
		i++
	} else if s != "" && (s[0] == 'p' || s[0] == 'P') {
		return ""
	}
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
	// add adds the part what's whole and fraction amounts (each already in
	// the field's unit) to field f, as DuckDB's IntervalTryAddition: each
	// checked against the field's range.
	add := func(f int, what string, amounts ...*big.Int) string {
		lo, hi := duckFieldBounds[f][0], duckFieldBounds[f][1]
		alone := new(big.Int)
		for _, a := range amounts {
			alone.Add(alone, a)
		}
		if alone.Cmp(lo) < 0 || alone.Cmp(hi) > 0 {
			return fmt.Sprintf("%s takes its %s out of range", what, names[f])
		}
		sum := big.NewInt(fields[f])
		for _, a := range amounts {
			if a.Cmp(lo) < 0 || a.Cmp(hi) > 0 {
				return fmt.Sprintf("%s takes its %s out of range", what, names[f])
			}
			sum.Add(sum, a)
			if sum.Cmp(lo) < 0 || sum.Cmp(hi) > 0 {
				return fmt.Sprintf("its %s add up past their range: %s", names[f], strings.Join(append(parts[f], what), " plus "))
			}
		}
		fields[f] = sum.Int64()
		if alone.Sign() != 0 {
			parts[f] = append(parts[f], what)
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
			if fields[0] == math.MinInt32 || fields[1] == math.MinInt32 || fields[2] == math.MinInt64 {
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
		var frac int64 // millionths, the first six digits
		if i < len(s) && s[i] == '.' {
			i++
			fs := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			six := (s[fs:i] + "000000")[:6]
			frac, _ = strconv.ParseInt(six, 10, 64)
		}
		if neg {
			n, frac = -n, -frac
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
			// A number alone is seconds; followed by more, DuckDB still adds
			// it as seconds (out of range before the syntax error, which
			// quotes the value; its range error does not).
			if found {
				return ""
			}
			if strings.Trim(s[i:], " \t\n") != "" {
				return add(2, what, new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000)), big.NewInt(frac))
			}
			name = "second"
		}
		u, ok := intervalUnits[name]
		if !ok {
			return ""
		}
		whole := new(big.Int).Mul(big.NewInt(n), big.NewInt(u.mult))
		F := big.NewInt(frac)
		// part is F × mult / 10^6 cut toward zero, and the rest (× 10^6).
		part := func(mult int64) (*big.Int, *big.Int) {
			return new(big.Int).QuoRem(new(big.Int).Mul(F, big.NewInt(mult)), million, new(big.Int))
		}
		var why string
		switch {
		case u.field == 2 && u.mult == 1:
			r := new(big.Int).Add(F, big.NewInt(500_000*int64(F.Sign())))
			why = add(2, what, whole, r.Quo(r, million))
		case u.field == 2:
			p, _ := part(u.mult)
			why = add(2, what, whole, p)
		case name == "quarter" || name == "quarters":
			m, rest := part(3)
			d := new(big.Int).Quo(rest.Mul(rest, big.NewInt(30)), million)
			if why = add(0, what, whole, m); why == "" {
				why = add(1, what, d)
			}
		case u.field == 0 && u.mult == 1:
			d, _ := part(30)
			if why = add(0, what, whole); why == "" {
				why = add(1, what, d)
			}
		case u.field == 0:
			m, _ := part(u.mult)
			why = add(0, what, whole, m)
		case u.mult == 7:
			d, rest := part(7)
			if why = add(1, what, whole, d); why == "" {
				why = add(2, what, rest.Mul(rest, big.NewInt(86_400)))
			}
		default:
			if why = add(1, what, whole); why == "" {
				why = add(2, what, F.Mul(F, big.NewInt(86_400)))
			}
		}
		if why != "" {
			return why
		}
		found = true
	}
	return ""
}

// pgIntervalRange is intervalRange for PostgreSQL 15, whose interval_in is
// followed (datetime.c's DecodeInterval, then DecodeISO8601Interval): numbers
// with units, fractions spread as it spreads them (a fraction of a year to
// whole months, of a month to days of 30 and then microseconds, of a week or
// day to days and microseconds), "@", "ago", a bare number (seconds, or the
// unit of the field after it), a sign apart from its number, punctuation as
// white space, a time of day (which sets the microseconds: pgTimeOfDay) and
// ISO 8601 (P1.5Y2MT3.5H, P0001-02-03T04:05:06). Its "interval field value
// out of range" and the total of years and months past 32 bits (the
// "interval out of range" that quotes nothing) are reported; a form not
// followed here is left to PostgreSQL, whose error then quotes the value.
func pgIntervalRange(s string, prec int) string {
	var r pgInterval
	why, ok := r.postgres(s)
	if !ok && strings.HasPrefix(s, "P") {
		r = pgInterval{}
		why, ok = r.iso(s[1:])
	}
	if !ok {
		return ""
	}
	if why != "" {
		return why
	}
	if total := int64(r.year)*12 + int64(r.mon); total < math.MinInt32 || total > math.MaxInt32 {
		return fmt.Sprintf("it is %d months", total)
	}
	if prec < 6 {
		half := int64(math.Pow10(6-prec)) / 2
		if r.usec > math.MaxInt64-half || r.usec < -(math.MaxInt64-half) {
			return fmt.Sprintf("its %d microseconds, rounded to %d digits after the second, go past their range", r.usec, prec)
		}
	}
	return ""
}

// pgInterval is PostgreSQL's pg_itm_in: the fields an interval's text adds to
// before they are summed into months, days and microseconds.
type pgInterval struct {
	year, mon, mday int32
	usec            int64
	over            string              // the field add took out of range
	parts           map[string][]string // the parts added to each field, as read
}

// note adds what, the part of the text just added, to the parts of each field
// it changed from before.
func (r *pgInterval) note(before pgInterval, what string) {
	if r.parts == nil {
		r.parts = map[string][]string{}
	}
	for _, f := range [...]struct {
		name    string
		changed bool
	}{{"years", r.year != before.year}, {"months", r.mon != before.mon}, {"days", r.mday != before.mday}, {"microseconds", r.usec != before.usec}} {
		if f.changed {
			r.parts[f.name] = append(r.parts[f.name], what)
		}
	}
}

// outOfRange says why adding what (unit, val, fval) took r out of range:
// the part alone, or the parts of its field together (in the order of the
// text: backwards when reversed, as DecodeInterval reads).
func (r *pgInterval) outOfRange(what, unit string, val int64, fval float64, reversed bool) string {
	var alone pgInterval
	if !alone.add(unit, val, fval) {
		return fmt.Sprintf("%s takes its %s out of range", what, alone.over)
	}
	parts := append(slices.Clone(r.parts[r.over]), what)
	if reversed {
		slices.Reverse(parts)
	}
	return fmt.Sprintf("its %s add up past their range: %s", r.over, strings.Join(parts, " plus "))
}

// pgUnits are PostgreSQL's interval units (its deltatktbl, names compared in
// their first 10 letters), as the DuckDB unit whose multiple they take.
var pgUnits = func() map[string]string {
	u := map[string]string{}
	for unit, names := range map[string]string{
		"millennium": "mil mils millennia millennium", "century": "c cent centuries century",
		"decade": "dec decade decades decs", "year": "y year years yr yrs",
		"month": "mon mons month months", "week": "w week weeks", "day": "d day days",
		"hour": "h hour hours hr hrs", "minute": "m min mins minute minutes",
		"second": "s sec second seconds secs", "millisecond": "millisecon ms msec millisecond mseconds msecs",
		"microsecond": "microsecon us usec microsecond useconds usecs",
	} {
		for _, n := range strings.Fields(names) {
			if len(n) > 10 {
				n = n[:10]
			}
			u[n] = unit
		}
	}
	return u
}()

var (
	pgNumberToken = regexp.MustCompile(`^([+-]?)(\d*)(\.\d*)?$`)
	pgYearMonth   = regexp.MustCompile(`^[+-]?\d+-\d+$`)
	pgTime        = regexp.MustCompile(`^[+-]?\d+:\d+(?::\d+)?(?:\.\d*)?$`)
	pgGlued       = regexp.MustCompile(`^([+-]?(?:\d+\.?\d*|\.\d+))([a-z]+)$`)
	pgISONumber   = regexp.MustCompile(`^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)
)

// postgres reads s as DecodeInterval: ok false for a form it does not follow
// (PostgreSQL may read it, or refuse it quoting it), why a field out of range.
func (r *pgInterval) postgres(s string) (why string, ok bool) {
	// ParseDateTime's tokens: white space and punctuation other than + - . :
	// / separate them ("1 day, 2 hours", "@ 1 day"); a sign joins the number
	// after it across white space ("- 2 days" is -2 days); a sign before
	// anything else is refused (left to PostgreSQL, whose error quotes it).
	space := func(c rune) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	sep := func(c rune) bool {
		return space(c) || c < 0x80 && unicode.IsPunct(c) && !strings.ContainsRune("+-.:/", c) || c < 0x80 && unicode.IsSymbol(c) && c != '+'
	}
	// The fields, and whether only white space follows each.
	var fields []string
	var spaceAfter []bool
	for rest := strings.ToLower(s); ; {
		rest = strings.TrimLeftFunc(rest, sep)
		if rest == "" {
			break
		}
		end := strings.IndexFunc(rest, sep)
		if end < 0 {
			end = len(rest)
		}
		fields = append(fields, rest[:end])
		gap := len(rest[end:]) - len(strings.TrimLeftFunc(rest[end:], sep))
		spaceAfter = append(spaceAfter, strings.TrimLeftFunc(rest[end:end+gap], space) == "")
		rest = rest[end:]
	}
	var tokens []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "+" || f == "-" {
			// Only white space may come between a sign and its number
			// ("-,2 days" is refused by PostgreSQL, quoting it).
			if i+1 == len(fields) || !spaceAfter[i] || !isDigit(fields[i+1][0]) {
				return "", false
			}
			i++
			f += fields[i]
		}
		if m := pgGlued.FindStringSubmatch(f); m != nil {
			tokens = append(tokens, m[1], m[2])
		} else {
			tokens = append(tokens, f)
		}
	}
	// A time of day (02:00:00, 01:00) sets the microseconds (pgTimeOfDay).
	unit := "second" // the unit of a bare number: that of the field after it
	seen := map[string]bool{}
	ago, found := false, false
	for i := len(tokens) - 1; i >= 0; i-- {
		t := tokens[i]
		if t == "ago" {
			ago, unit = true, ""
			continue
		}
		name := t
		if len(name) > 10 {
			name = name[:10]
		}
		if u, isUnit := pgUnits[name]; isUnit {
			unit = u
			continue
		}
		if pgTime.MatchString(t) {
			for _, k := range []string{"hour", "minute", "second", "millisecond", "microsecond"} {
				if seen[k] {
					return "", false
				}
				seen[k] = true
			}
			us, ok := pgTimeOfDay(t)
			if !ok {
				return "", false // refused by PostgreSQL, quoting it
			}
			// DecodeTimeForInterval sets the microseconds, replacing what the
			// text after it added ("02:00:00 1.5 days" is 1 day 02:00:00).
			before := *r
			r.usec = us
			if r.parts != nil {
				r.parts["microseconds"] = nil
			}
			r.note(before, t)
			unit, found = "day", true
			continue
		}
		if unit == "" {
			return "", false // a number with no unit after "ago": refused by PostgreSQL, quoting it
		}
		var val int64
		var fval float64
		switch m := pgNumberToken.FindStringSubmatch(t); {
		case pgYearMonth.MatchString(t):
			y, m, _ := strings.Cut(strings.TrimLeft(t, "+-"), "-")
			yv, err1 := strconv.ParseInt(y, 10, 64)
			mv, err2 := strconv.ParseInt(m, 10, 32)
			if err1 != nil || err2 != nil || mv >= 12 {
				return "", false
			}
			total := new(big.Int).Add(new(big.Int).Mul(big.NewInt(yv), big.NewInt(12)), big.NewInt(mv))
			if t[0] == '-' {
				total.Neg(total)
			}
			if !total.IsInt64() {
				return "", false
			}
			val, unit = total.Int64(), "month"
		case m != nil && m[1] != "" && m[2] == "":
			return "", false // a sign before a point: refused by PostgreSQL, quoting it
		case m != nil && (m[2] != "" || len(m[3]) > 1):
			n, err := strconv.ParseInt(m[1]+m[2]+strings.Repeat("0", btoi(m[2] == "")), 10, 64)
			if err != nil {
				return fmt.Sprintf("the number %s is past 9223372036854775807", strings.TrimLeft(t, "+-")), true
			}
			val = n
			if len(m[3]) > 1 {
				fval, _ = strconv.ParseFloat("0"+m[3], 64)
				if m[1] == "-" {
					fval = -fval
				}
			}
		default:
			return "", false // a time of day, a word PostgreSQL may read, or none
		}
		mask := unit
		if unit == "second" && fval != 0 {
			mask = "second millisecond microsecond"
		}
		for _, k := range strings.Fields(mask) {
			if seen[k] {
				return "", false
			}
			seen[k] = true
		}
		what := strings.Join(tokens[i:min(i+2, len(tokens))], " ")
		before := *r
		if !r.add(unit, val, fval) {
			return r.outOfRange(what, unit, val, fval, true), true
		}
		r.note(before, what)
		if unit == "hour" {
			unit = "day"
		}
		found = true
	}
	if !found {
		return "", false
	}
	if ago {
		if r.usec == math.MinInt64 || r.mday == math.MinInt32 || r.mon == math.MinInt32 || r.year == math.MinInt32 {
			return "ago cannot negate it: a field is at its lowest", true
		}
		r.usec, r.mday, r.mon, r.year = -r.usec, -r.mday, -r.mon, -r.year
	}
	return "", true
}

// pgTimeOfDay is the microseconds of the time of day t (pgTime, a sign
// joined to it) as PostgreSQL 15's DecodeTimeForInterval reads it: hh:mm,
// mm:ss.fraction or hh:mm:ss[.fraction], the fraction rounded to whole
// microseconds (rint of a double, so 23:59:59.9999999 is 24:00:00). ok is
// false for a time PostgreSQL refuses, quoting it (a minute past 59, a total
// past the microseconds' range).
func pgTimeOfDay(t string) (us int64, ok bool) {
	neg := t[0] == '-'
	t = strings.TrimLeft(t, "+-")
	clock, frac, hasFrac := strings.Cut(t, ".")
	parts := strings.Split(clock, ":")
	hour, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return 0, false
	}
	var min, sec int64
	for i, p := range parts[1:] {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil {
			return 0, false
		}
		if i == 0 {
			min = n
		} else {
			sec = n
		}
	}
	var fsec int64
	if hasFrac {
		if frac == "" {
			return 0, false // strtod reads nothing after the point
		}
		f, _ := strconv.ParseFloat("0."+frac, 64)
		fsec = int64(math.RoundToEven(f * 1_000_000))
		if len(parts) == 2 {
			// mm:ss.fraction
			if hour > math.MaxInt32 {
				return 0, false
			}
			hour, min, sec = 0, hour, min
		}
	}
	if min > 59 || sec > 60 || fsec > 1_000_000 {
		return 0, false
	}
	total := new(big.Int).Mul(big.NewInt(hour), big.NewInt(3600_000_000))
	total.Add(total, big.NewInt(min*60_000_000+sec*1_000_000+fsec))
	if !total.IsInt64() {
		return 0, false
	}
	if neg {
		total.Neg(total)
	}
	return total.Int64(), true
}

// iso reads s, the text after P, as PostgreSQL 15's DecodeISO8601Interval:
// the designators (P1.5Y2MT3.5H) and the alternative format, extended
// (P0001-02-03T04:05:06, P0001-02, PT04:05) or basic (P00010203T040506).
// ok is false for a text it refuses as bad format (its error then quotes
// the value) or does not follow (a hexadecimal number).
func (r *pgInterval) iso(s string) (why string, ok bool) {
	date, have := true, false
	// number reads one number as ParseISO8601Number (strtod): its integer
	// part, its fraction and its text; why when past 1e15.
	number := func() (val int64, fval float64, text, why string, ok bool) {
		text = pgISONumber.FindString(s)
		if text == "" {
			return 0, 0, "", "", false
		}
		s = s[len(text):]
		if s != "" && (s[0] == 'x' || s[0] == 'X') {
			return 0, 0, "", "", false // strtod's hexadecimal
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || v < -1e15 || v > 1e15 {
			return 0, 0, text, fmt.Sprintf("%s is past 1e15", text), err == nil
		}
		ip := math.Trunc(v)
		return int64(ip), v - ip, text, "", true
	}
	// adds adds each step, stopping at the first out of range.
	type step struct {
		unit string
		val  int64
		fval float64
	}
	adds := func(what string, steps ...step) string {
		for _, st := range steps {
			before := *r
			if !r.add(st.unit, st.val, st.fval) {
				return r.outOfRange(what, st.unit, st.val, st.fval, false)
			}
			r.note(before, what)
		}
		return ""
	}
	// next reads a number of the alternative format into unit.
	next := func(unit string) (why string, ok bool) {
		val, fval, text, why, ok := number()
		if why != "" || !ok {
			return why, ok
		}
		return adds(fmt.Sprintf("%s (its %ss)", text, unit), step{unit, val, fval}), true
	}
	for s != "" {
		if s[0] == 'T' {
			date, have, s = false, false, s[1:]
			continue
		}
		fieldstart := s
		val, fval, num, why, ok := number()
		if why != "" || !ok {
			return why, ok
		}
		var unit byte // 0 at the end
		if s != "" {
			unit, s = s[0], s[1:]
		}
		width := len(strings.TrimPrefix(fieldstart, "-")) - len(strings.TrimLeft(strings.TrimPrefix(fieldstart, "-"), "0123456789"))
		what := fmt.Sprintf("%s%c", num, unit)
		if unit == 0 {
			what = num
		}
		designators := map[byte]string{'H': "hour", 'M': "minute", 'S': "second"}
		if date {
			designators = map[byte]string{'Y': "year", 'M': "month", 'W': "week", 'D': "day"}
		}
		if u, known := designators[unit]; known {
			if why := adds(what, step{u, val, fval}); why != "" {
				return why, true
			}
			have = true
			continue
		}
		switch {
		case date && (unit == 'T' || unit == 0) && width == 8 && !have:
			// Basic: YYYYMMDD.
			if why := adds(num+" (YYYYMMDD)", step{"year", val / 10000, 0}, step{"month", (val / 100) % 100, 0}, step{"day", val % 100, 0}, step{"day", 0, fval}); why != "" {
				return why, true
			}
			date, have = false, false
			continue
		case date && (unit == 'T' || unit == 0 || unit == '-') && !have:
			// Extended: YYYY[-MM[-DD]], each part a number.
			if why := adds(num+" (its years)", step{"year", val, fval}); why != "" {
				return why, true
			}
			if unit == 0 {
				return "", true
			}
			if unit == 'T' {
				date, have = false, false
				continue
			}
			if why, ok := next("month"); why != "" || !ok {
				return why, ok
			}
			if s == "" {
				return "", true
			}
			if s[0] == 'T' {
				date, have, s = false, false, s[1:]
				continue
			}
			if s[0] != '-' {
				return "", false
			}
			s = s[1:]
			if why, ok := next("day"); why != "" || !ok {
				return why, ok
			}
			if s == "" {
				return "", true
			}
			if s[0] != 'T' {
				return "", false
			}
			date, have, s = false, false, s[1:]
		case !date && unit == 0 && width == 6 && !have:
			// Basic: HHMMSS.
			return adds(num+" (HHMMSS)", step{"hour", val / 10000, 0}, step{"minute", (val / 100) % 100, 0}, step{"second", val % 100, 0}, step{"microsecond", 0, fval}), true
		case !date && (unit == 0 || unit == ':') && !have:
			// Extended: HH[:MM[:SS]].
			if why := adds(num+" (its hours)", step{"hour", val, fval}); why != "" || unit == 0 {
				return why, true
			}
			if why, ok := next("minute"); why != "" || !ok {
				return why, ok
			}
			if s == "" {
				return "", true
			}
			if s[0] != ':' {
				return "", false
			}
			s = s[1:]
			if why, ok := next("second"); why != "" || !ok {
				return why, ok
			}
			return "", s == ""
		default:
			return "", false
		}
	}
	return "", true
}

// add adds val and its fraction fval of unit as PostgreSQL's Adjust*
// functions do, reporting false for a field out of range.
func (r *pgInterval) add(unit string, val int64, fval float64) bool {
	r.over = "microseconds"
	addI32 := func(p *int32, v int64) bool {
		s := int64(*p) + v
		if v < math.MinInt32 || v > math.MaxInt32 || s < math.MinInt32 || s > math.MaxInt32 {
			r.over = map[*int32]string{&r.year: "years", &r.mon: "months", &r.mday: "days"}[p]
			return false
		}
		*p = int32(s)
		return true
	}
	fractUsec := func(frac float64, scale int64) bool {
		if frac == 0 {
			return true
		}
		frac *= float64(scale)
		usec := int64(frac)
		frac -= float64(usec)
		usec += int64(math.RoundToEven(frac))
		s, ok := addInt64(r.usec, usec)
		r.usec = s
		return ok
	}
	fractDays := func(frac float64, scale int) bool {
		if frac == 0 {
			return true
		}
		frac *= float64(scale)
		extra := int64(int32(frac))
		if !addI32(&r.mday, extra) {
			return false
		}
		return fractUsec(frac-float64(extra), 86_400_000_000)
	}
	years := func(scale int64) bool {
		if val < math.MinInt32 || val > math.MaxInt32 {
			r.over = "years"
			return false
		}
		if !addI32(&r.year, val*scale) {
			return false
		}
		return fval == 0 || addI32(&r.mon, int64(math.RoundToEven(fval*float64(scale)*12)))
	}
	micros := func(scale int64) bool {
		p, ok := mulInt64(val, scale)
		if !ok {
			return false
		}
		s, ok := addInt64(r.usec, p)
		r.usec = s
		return ok && fractUsec(fval, scale)
	}
	switch unit {
	case "microsecond":
		return micros(1)
	case "millisecond":
		return micros(1000)
	case "second":
		return micros(1_000_000)
	case "minute":
		return micros(60_000_000)
	case "hour":
		return micros(3600_000_000)
	case "day":
		return addI32(&r.mday, val) && fractUsec(fval, 86_400_000_000)
	case "week":
		r.over = "days"
		return val >= math.MinInt32 && val <= math.MaxInt32 && addI32(&r.mday, val*7) && fractDays(fval, 7)
	case "month":
		return addI32(&r.mon, val) && fractDays(fval, 30)
	case "year":
		return years(1)
	case "decade":
		return years(10)
	case "century":
		return years(100)
	case "millennium":
		return years(1000)
	}
	return false
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
