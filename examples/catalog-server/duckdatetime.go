package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// DuckDB's dates, timestamps and times of day, read from text the way DuckDB
// 1.5.6's casts read them (Date::TryConvertDate, Timestamp::TryConvertTimestampTZ,
// Time::TryConvertTime and TryConvertTimeTZ, and the ICU extension's casts to
// TIMESTAMPTZ and TIMETZ). They read more than ISO 8601: a year of any number
// of digits or a minus sign before it, "/", "\" or a space between the parts
// of a date, one-digit fields, an hour of up to nine digits, a time cut short
// after a colon ("09:" is 09:00:00), and, where they read no further, whatever
// follows (a DATE ignores what follows its day unless it is a digit; a TIME
// what follows its seconds). TestTypedParamsAgreeWithDuckDB holds the reading
// to DuckDB's.

// Where DuckDB's dates and timestamps begin and end, found by casting text at
// the boundaries (TestTypedParamsAgreeWithDuckDB has both sides of each). A
// DATE runs from 5877642-06-25 (BC) to 5881580-07-10. A TIMESTAMP (and its _S,
// _MS and TZ kinds) as written runs from 290309-12-22 (BC) to 294247-01-10
// 04:00:54.775806, its microseconds since 1970 an int64 short of the two
// infinities (±(2^63-1)); an offset applied after (TIMESTAMPTZ, TIMESTAMP_NS)
// may take it to any int64 (the infinities included: DuckDB does not look
// again). A TIMESTAMP_NS is that times 1000, plus its nanoseconds, again an
// int64 short of the infinities: from 1677-09-21 00:12:43.145225 to
// 2262-04-11 23:47:16.854775806 UTC.
var (
	duckDateMin = civilDays(1-5877642, 6, 25)
	duckDateMax = civilDays(5881580, 7, 10)
	// The first and last day of a TIMESTAMP: their microseconds fit an int64.
	duckTSMinDay = civilDays(1-290309, 12, 22)
	duckTSMaxDay = civilDays(294247, 1, 10)
)

const (
	microsPerDay  = 86400e6
	duckInfinity  = math.MaxInt64  // a timestamp's infinity
	duckNInfinity = -math.MaxInt64 // and -infinity
	// The widest offset a TIMETZ takes: 15:59:59.
	duckMaxTZOffset = 16*3600 - 1
)

// civilDays is the number of days from 1970-01-01 to the proleptic Gregorian
// date y-m-d (y astronomical: 0 is 1 BC).
func civilDays(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// duckSpace reports whether DuckDB skips c as a space.
func duckSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// duckDate is a date read from the start of a text.
type duckDate struct {
	special string // "infinity", "-infinity" or "epoch"; then days is unset
	days    int64  // since 1970-01-01
	end     int    // where the date (with " (BC)") ends
}

// readDuckDate reads the date at the start of s as DuckDB's DATE cast does, or
// says what is wrong with it: spaces, then infinity (or inf, alone), -infinity,
// epoch, or a year (one digit or more, after a minus sign if any: -2024 is 2025
// BC), month and day (one or two digits each), separated by the same one of
// "-", "/", "\" and a space, optionally followed by a space and "(BC)"; a
// digit right after it is refused, anything else left for the caller.
func readDuckDate(s string) (duckDate, string) {
	const notDate = "not a date in that form"
	var d duckDate
	i := 0
	for i < len(s) && duckSpace(s[i]) {
		i++
	}
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	if i >= len(s) {
		return d, notDate
	}
	if !isDigit(s[i]) {
		rest := strings.ToLower(s[i:])
		j := i
		switch {
		case strings.HasPrefix(rest, "infinity"):
			d.special, j = "infinity", i+8
		case rest == "inf":
			d.special, j = "infinity", len(s)
		case strings.HasPrefix(rest, "epoch"):
			d.special, j = "epoch", i+5 // "-epoch" too
		default:
			return d, notDate
		}
		for j < len(s) && duckSpace(s[j]) {
			j++
		}
		if j < len(s) {
			return d, notDate
		}
		if neg && d.special == "infinity" {
			d.special = "-infinity"
		}
		d.end = j
		return d, ""
	}
	year := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		if year >= 1e8 {
			return d, "the year has too many digits"
		}
		year = year*10 + int(s[i]-'0')
	}
	if neg {
		year = -year
	}
	if i >= len(s) {
		return d, notDate
	}
	sep := s[i]
	if sep != '-' && sep != '/' && sep != '\\' && sep != ' ' {
		return d, notDate
	}
	i++
	month, i, ok := twoDigits(s, i)
	if !ok || i >= len(s) || s[i] != sep {
		return d, notDate
	}
	day, i, ok := twoDigits(s, i+1)
	if !ok {
		return d, notDate
	}
	bc := ""
	if len(s)-i >= 5 && duckSpace(s[i]) && s[i+1] == '(' && strings.EqualFold(s[i+2:i+4], "bc") && s[i+4] == ')' {
		if neg {
			return d, "a year after a minus sign takes no (BC): -0001 is 0002 (BC)"
		}
		if year == 0 {
			return d, "there is no year 0 BC: the year before 0001 is 0001 (BC), which 0000 (without BC) also means"
		}
		bc, year, i = " (BC)", 1-year, i+5
	}
	if i < len(s) && isDigit(s[i]) {
		return d, notDate
	}
	if month < 1 || month > 12 {
		return d, fmt.Sprintf("there is no month %d", month)
	}
	shown := year // as written
	if bc != "" {
		shown = 1 - year
	}
	if year < 1-5877642 || year > 5881580 {
		return d, "DuckDB's dates run from 5877642-06-25 (BC) to 5881580-07-10"
	}
	// The day after the last of the month is day 1 of the next; the year 1 BC
	// is the year 0, whose February has 29 days.
	if last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day(); day < 1 || day > last {
		return d, fmt.Sprintf("%04d-%02d%s has days 1 to %d", shown, month, bc, last)
	}
	d.days, d.end = civilDays(year, month, day), i
	if d.days < duckDateMin || d.days > duckDateMax {
		return d, "DuckDB's dates run from 5877642-06-25 (BC) to 5881580-07-10"
	}
	return d, ""
}

// twoDigits reads one or two digits at s[i:].
func twoDigits(s string, i int) (n, end int, ok bool) {
	if i >= len(s) || !isDigit(s[i]) {
		return 0, i, false
	}
	n, i = int(s[i]-'0'), i+1
	if i < len(s) && isDigit(s[i]) {
		n, i = n*10+int(s[i]-'0'), i+1
	}
	return n, i, true
}

// duckClock is a time of day read from a text.
type duckClock struct {
	hour, minute, second int
	micros               int64 // the time of day in microseconds (the fraction cut to 6 digits)
	nanos                int64 // the fraction's 7th to 9th digits, in nanoseconds, if read
	end                  int   // where it ends in the text read
}

// readDuckClock reads the time of day at the start of s as DuckDB does (not
// strictly): spaces, an hour (one to nine digits), a colon, then nothing (09:
// is 09:00:00) or minutes (one or two digits, below 60), then nothing or a
// colon and nothing or seconds (one or two digits, below 60), then a fraction
// after a point, if any (any number of digits, 6 of them read, 9 with nanos).
// What follows is the caller's. It does not hold the time to 24:00:00.
func readDuckClock(s string, nanos bool) (duckClock, string) {
	const notTime = "not a time in that form"
	var c duckClock
	i := 0
	for i < len(s) && duckSpace(s[i]) {
		i++
	}
	start := i
	for ; i < len(s) && isDigit(s[i]); i++ {
		if i-start == 9 {
			return c, notTime
		}
		c.hour = c.hour*10 + int(s[i]-'0')
	}
	if i == start || i >= len(s) || s[i] != ':' {
		return c, notTime
	}
	i++
	if i < len(s) {
		var ok bool
		if c.minute, i, ok = twoDigits(s, i); !ok {
			return c, notTime
		}
		if c.minute >= 60 {
			return c, fmt.Sprintf("there is no minute %d", c.minute)
		}
		if i < len(s) {
			if s[i] != ':' {
				c.end = i
				return c, "after the minutes comes a colon and the seconds (HH:MM:SS) or nothing"
			}
			i++
			if i < len(s) {
				if c.second, i, ok = twoDigits(s, i); !ok {
					return c, notTime
				}
				if c.second >= 60 {
					return c, fmt.Sprintf("there is no second %d", c.second)
				}
			}
		}
	}
	var frac int64
	if i < len(s) && s[i] == '.' {
		digits := 6
		if nanos {
			digits = 9
		}
		n := 0
		for i++; i < len(s) && isDigit(s[i]); i++ {
			if n < digits {
				frac, n = frac*10+int64(s[i]-'0'), n+1
			}
		}
		for ; n < digits; n++ {
			frac *= 10
		}
		if nanos {
			frac, c.nanos = frac/1000, frac%1000
		}
	}
	c.micros = ((int64(c.hour)*60+int64(c.minute))*60+int64(c.second))*1e6 + frac
	c.end = i
	return c, ""
}

// pastDay says what is wrong with a time of day c past 24:00:00, or "".
func (c duckClock) pastDay() string {
	if c.micros <= microsPerDay {
		return ""
	}
	return fmt.Sprintf("there is no hour %d", c.hour)
}

// readDuckOffset reads an offset at s[i:] as DuckDB does: a sign and two digits
// of hours, then, if two digits follow (after a colon or not), minutes, then,
// with colons, ":" and two digits of seconds; a colon with no digits after it
// is read and ignored. Each field takes any two digits (+05:99). ok is false
// when s[i:] does not begin with one.
func readDuckOffset(s string, i int) (secs int64, end int, ok bool) {
	if i+3 > len(s) || s[i] != '+' && s[i] != '-' || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return 0, i, false
	}
	sign := int64(1)
	if s[i] == '-' {
		sign = -1
	}
	two := func(j int) int64 { return int64(s[j]-'0')*10 + int64(s[j+1]-'0') }
	secs, i = two(i+1)*3600, i+3
	colons := i < len(s) && s[i] == ':'
	if colons {
		i++
	}
	if i+2 > len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
		return sign * secs, i, true
	}
	secs, i = secs+two(i)*60, i+2
	if !colons || i >= len(s) || s[i] != ':' {
		return sign * secs, i, true
	}
	i++
	if i+2 > len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
		return sign * secs, i, true
	}
	return sign * (secs + two(i)), i + 2, true
}

// duckStamp is a timestamp read from a text.
type duckStamp struct {
	micros int64  // microseconds since 1970 (after the offset, when applied)
	local  int64  // the same as written, before any offset
	nanos  int64  // nanoseconds past micros, when read
	offset bool   // an offset or Z was written (or a special value: infinity, epoch)
	zone   string // a time zone by name after a space, as written ("" for none)
	spaced bool   // the zone's place holds an offset after a space (" +02:00")
}

// readDuckTimestamp reads s as DuckDB reads a timestamp (TryConvertTimestampTZ),
// or says what is wrong: a date (readDuckDate) alone, or followed by a space or
// T, then a time of day (readDuckClock) up to 24:00:00, then, if anything,
// either Z or an offset (readDuckOffset) right after it, or a space and a time
// zone's name (letters, digits and _/+-: — none at all is the session's zone),
// then only spaces. useOffset takes the offset into account (TIMESTAMPTZ,
// TIMESTAMP_NS); nanos reads 9 digits of the fraction (TIMESTAMP_NS).
func readDuckTimestamp(s string, useOffset, nanos bool) (duckStamp, string) {
	var st duckStamp
	d, why := readDuckDate(s)
	if why != "" {
		if why == "not a date in that form" {
			why = "not a timestamp in that form"
		}
		return st, why
	}
	switch d.special {
	case "infinity":
		st.micros, st.local, st.offset = duckInfinity, duckInfinity, true
		return st, ""
	case "-infinity":
		st.micros, st.local, st.offset = duckNInfinity, duckNInfinity, true
		return st, ""
	case "epoch":
		st.offset = true
		return st, ""
	}
	if d.days < duckTSMinDay || d.days > duckTSMaxDay {
		return st, "DuckDB's timestamps run from 290309-12-22 (BC) to 294247-01-10 04:00:54.775806"
	}
	st.micros = d.days * microsPerDay
	i := d.end
	if i == len(s) {
		st.local = st.micros
		return st, ""
	}
	if s[i] == ' ' || s[i] == 'T' {
		i++
	}
	c, why := readDuckClock(s[i:], nanos)
	switch {
	case strings.HasPrefix(why, "after the minutes"):
		if strings.TrimLeft(s[i+c.end:], dateTimeSpace) == "" {
			return st, "a space after the value needs the seconds before it (HH:MM:SS), or drop the space"
		}
		return st, "an offset or time zone needs the seconds before it (HH:MM:SS)"
	case why == "not a time in that form":
		if strings.TrimLeft(s[i:], dateTimeSpace) == "" {
			return st, "a space after the date needs a time after it, or drop the space"
		}
		return st, "not a timestamp in that form"
	case why != "":
		return st, why
	}
	if why := c.pastDay(); why != "" {
		return st, why
	}
	if st.micros > math.MaxInt64-c.micros || st.micros+c.micros == duckInfinity {
		return st, "DuckDB's timestamps run from 290309-12-22 (BC) to 294247-01-10 04:00:54.775806"
	}
	st.micros += c.micros
	st.nanos = c.nanos
	st.local = st.micros
	i += c.end
	if i == len(s) {
		return st, ""
	}
	switch off, end, ok := readDuckOffset(s, i); {
	case s[i] == 'Z':
		st.offset, i = true, i+1
	case ok:
		st.offset, i = true, end
		if useOffset {
			// Subtracted in an int64 (DuckDB does not hold the result to its
			// range, only to the int64's).
			d := off * 1e6
			if d > 0 && st.micros < math.MinInt64+d || d < 0 && st.micros > math.MaxInt64+d {
				return st, "DuckDB's timestamps run from 290309-12-22 (BC) to 294247-01-10 04:00:54.775806 (UTC)"
			}
			st.micros -= d
		}
	case s[i] != ' ':
		return st, fmt.Sprintf("after the seconds DuckDB reads an offset right after them (Z, +02:00), or a time zone after one space, not %q", s[i:])
	default:
		i++
		j := i
		for j < len(s) && zoneChar(s[j]) {
			j++
		}
		st.zone, i = s[i:j], j
		st.spaced = st.zone != "" && (st.zone[0] == '+' || st.zone[0] == '-')
	}
	for i < len(s) && duckSpace(s[i]) {
		i++
	}
	if i < len(s) {
		if st.spaced {
			return st, "an offset goes right after the seconds, with no space (2024-07-14 09:30:00+02:00)"
		}
		return st, fmt.Sprintf("DuckDB reads nothing after the offset or time zone, not %q", strings.TrimLeft(s[i:], dateTimeSpace))
	}
	return st, ""
}

// zoneChar reports whether c may be part of a time zone's name where DuckDB
// looks for one.
func zoneChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || strings.IndexByte("_/+-:", c) >= 0
}

// utcOnly says what is wrong with a timestamp's zone where DuckDB takes none
// but UTC (a TIMESTAMP, and the timestamp a TIME is read from), or "": typ is
// the type, readAs what it makes of 2024-07-14 09:30:00+02:00.
func (st duckStamp) utcOnly(typ, readAs string) string {
	switch {
	case st.zone == "" || strings.EqualFold(st.zone, "utc"):
		return ""
	case st.spaced:
		return "an offset goes right after the seconds, with no space (2024-07-14 09:30:00+02:00)"
	}
	return "a " + typ + " takes no time zone but UTC: write the offset right after the seconds (2024-07-14 09:30:00+02:00, which is read as " + readAs + "), or leave it out"
}

// checkDuckDate says what is wrong with v as a DuckDB DATE, or "": a date
// (readDuckDate), whatever follows it unread — but for BC without parentheses,
// which DuckDB reads as nothing, taking 2024-07-14 BC for the year 2024 AD: that
// is refused on purpose (TestTypedParamsDuckDBMisreads).
func checkDuckDate(v string) string {
	d, why := readDuckDate(v)
	if why != "" {
		return why
	}
	if rest := strings.ToLower(strings.TrimLeft(v[d.end:], dateTimeSpace)); strings.HasPrefix(rest, "bc") || strings.HasPrefix(rest, "b.c") {
		return "DuckDB reads BC only in parentheses, and would read this as a date AD: write 2024-07-14 (BC)"
	}
	return ""
}

// checkDuckTimestamp says what is wrong with v as a DuckDB TIMESTAMP (or
// TIMESTAMP_S, _MS, _US), TIMESTAMP_NS (ns) or TIMESTAMPTZ (tz), or "".
func checkDuckTimestamp(v string, ns, tz bool) string {
	st, why := readDuckTimestamp(v, ns || tz, ns)
	switch {
	case why != "":
		return why
	case tz:
		// A zone by name is ICU's to know, and so is where a time in it lies
		// (DuckDB's errors for both are blamed on the parameter: paramValueError);
		// no zone DuckDB knows is one letter, or begins with anything but one.
		switch z := st.zone; {
		case st.spaced:
			return "an offset goes right after the seconds, with no space (2024-07-14 09:30:00+02:00)"
		case z != "" && (len(z) == 1 || !(z[0] >= 'a' && z[0] <= 'z' || z[0] >= 'A' && z[0] <= 'Z')):
			return fmt.Sprintf("there is no time zone %q (a name such as Europe/Paris or UTC, or an offset right after the seconds: +02:00, Z)", z)
		}
		return ""
	case ns:
		if why := st.utcOnly("TIMESTAMP_NS", "07:30:00 UTC"); why != "" {
			return why
		}
		if st.micros == duckInfinity || st.micros == duckNInfinity {
			return "" // an infinity stays one
		}
		// Microseconds times 1000, plus the nanoseconds: an int64 short of the
		// infinities.
		if st.micros > math.MaxInt64/1000 || st.micros < math.MinInt64/1000 ||
			st.micros*1000 > math.MaxInt64-st.nanos || st.micros*1000+st.nanos == duckInfinity {
			return "DuckDB's TIMESTAMP_NS runs from 1677-09-21 00:12:43.145225 to 2262-04-11 23:47:16.854775806 (UTC)"
		}
		return ""
	}
	return st.utcOnly("TIMESTAMP", "09:30:00")
}

// checkDuckTime says what is wrong with v as a DuckDB TIME, or "": a time of
// day (readDuckClock) up to 24:00:00, whatever follows it unread; or else a
// timestamp that is not infinite, its time of day (its offset dropped).
func checkDuckTime(v string) string {
	c, why := readDuckClock(v, false)
	if why == "" {
		return c.pastDay()
	}
	if st, tsWhy := readDuckTimestamp(v, false, false); tsWhy == "" {
		if st.micros == duckInfinity || st.micros == duckNInfinity {
			return "an infinity is no time of day"
		}
		return st.utcOnly("TIME", "09:30:00")
	}
	return clockWhy(v, why)
}

// clockWhy is why, what readDuckClock found wrong with v, or a plainer word
// where v does not begin like a time (digits, then a colon) at all.
func clockWhy(v, why string) string {
	t := strings.TrimLeft(v, dateTimeSpace)
	n := 0
	for n < len(t) && isDigit(t[n]) {
		n++
	}
	if n == 0 || n == len(t) || t[n] != ':' {
		return "not a time in that form"
	}
	if strings.HasPrefix(why, "after the minutes") {
		return "an offset, time zone or space after the time needs the seconds before it (HH:MM:SS)"
	}
	return why
}

// checkDuckTimeTZ says what is wrong with v as a DuckDB TIMETZ, or "": a time
// of day (readDuckClock) up to 24:00:00, then, after spaces if any, an offset
// (readDuckOffset) of at most 15:59:59 or nothing (whatever follows the offset
// unread); or else a timestamp that is not infinite, its time of day in UTC
// (then in the session's time zone).
func checkDuckTimeTZ(v string) string {
	c, why := readDuckClock(v, false)
	if why != "" {
		if st, tsWhy := readDuckTimestamp(v, true, false); tsWhy == "" {
			if st.micros == duckInfinity || st.micros == duckNInfinity {
				return "an infinity is no time of day (nor a time its offset takes to one)"
			}
			return st.utcOnly("TIMETZ", "07:30:00 UTC")
		}
		return clockWhy(v, why)
	}
	if why := c.pastDay(); why != "" {
		return why
	}
	i := c.end
	for i < len(v) && duckSpace(v[i]) {
		i++
	}
	if i == len(v) {
		return ""
	}
	off, end, ok := readDuckOffset(v, i)
	switch {
	case !ok:
		return fmt.Sprintf("after the time DuckDB reads only an offset (+02:00; not Z or a time zone's name), not %q", v[i:])
	case off > duckMaxTZOffset || off < -duckMaxTZOffset:
		return fmt.Sprintf("an offset is at most 15:59:59 hours, not %s", v[i:end])
	}
	return ""
}

// duckZoneNearEnd reports whether v is a TIMESTAMPTZ that DuckDB reads in a
// time zone (the one it names, or the session's) within two days of either end
// of its range, where the zone's offset may take it past the end: DuckDB's
// error ("ICU date overflows timestamp range") does not quote the value.
func duckZoneNearEnd(v string) bool {
	st, why := readDuckTimestamp(v, true, false)
	if why != "" || st.offset {
		return false
	}
	days := st.local / microsPerDay
	if st.local < 0 && st.local%microsPerDay != 0 {
		days--
	}
	return days < duckTSMinDay+2 || days > duckTSMaxDay-2
}
