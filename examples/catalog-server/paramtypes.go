package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// Typed string parameters are checked before the query runs, by the model's
// engine: a value the engine would refuse, take for something else, or read
// only where the SQL casts it, is refused naming the parameter, its type and a
// value that works — the way an INTEGER parameter given "ten" is.
//
// For DuckDB the checks follow DuckDB 1.5.6's own casts (ISO 8601 forms, its
// offsets, its ranges; TestTypedParamsAgreeWithDuckDB holds them to DuckDB).
// PostgreSQL reads far more date and time forms (July 14 2024, yesterday,
// 09:30 Europe/Paris, a space before an offset), so for PostgreSQL the check
// refuses only what PostgreSQL surely refuses — a field out of range in an ISO
// date or time (month 13, 09:61), a UUID or JSON it cannot read, a number too
// wide for a DECIMAL — and leaves the rest to PostgreSQL, whose error
// paramValueError blames on the parameter (TestTypedParamsAgreeWithPostgres).

var (
	// A date: year (4 to 7 digits), month, day.
	dateForm = `(\d{4,7})-(\d{1,2})-(\d{1,2})`
	// A time of day: hours, minutes, optional seconds with a fraction.
	timeForm = `(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?`
	// DuckDB's offset in a TIMESTAMP: +02, +0200, +02:00, +02:00:00 (not
	// +020000, +02:0000 or +0200:00), right after the seconds.
	tsOffset = `[+-]\d{2}(?:\d{2}|:\d{2}(?::\d{2})?)?`
	// DuckDB's offset in a TIME or TIMETZ: also +020000, +02:0000, +0200:00.
	timeOffset = `[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?`
	// A time zone by name, after a space: Europe/Paris, UTC, EST, Etc/GMT+5.
	// Whether the engine knows it is the engine's to say; "Z" alone is none.
	zoneName = `[A-Za-z][A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*`

	// A DATE: a date, "(BC)" after it, or a timestamp whose time DuckDB
	// ignores.
	dateOnly = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(?:Z|` + timeOffset + `| ` + zoneName + `)?)?$`)
	// A TIMESTAMP (and TIMESTAMP_NS): an offset (Z, +02:00) or UTC after the
	// seconds; DuckDB refuses other zones.
	timestampOff = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(Z|` + tsOffset + `| (?i:utc))?)?$`)
	// A TIMESTAMPTZ also takes a time zone by name after a space (not an offset:
	// DuckDB reads " +02:00" as a zone's name).
	timestampTZ = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(Z|` + tsOffset + `| ` + zoneName + `)?)?$`)
	// A TIME: DuckDB reads and drops an offset or zone after the seconds.
	timeOnly = regexp.MustCompile(`^` + timeForm + `(Z|z|` + timeOffset + `| (?:Z|` + timeOffset + `|` + zoneName + `))?$`)
	// A TIMETZ: an offset after the seconds, with or without a space; not Z,
	// nor a zone's name (DuckDB refuses both).
	timeZoned = regexp.MustCompile(`^` + timeForm + `( ?(` + timeOffset + `))?$`)
	// An offset's parts.
	offsetParts = regexp.MustCompile(`^([+-])(\d{2}):?(\d{2})?:?(\d{2})?$`)
	// A UUID as DuckDB reads it: 32 hexadecimal digits, hyphens anywhere among
	// them (8-4-4-4-12, every four digits, none, even leading or doubled), in
	// braces or not.
	uuidDuck = regexp.MustCompile(`^(?:\{[0-9a-fA-F-]*\}|[0-9a-fA-F-]*)$`)
	// A UUID as PostgreSQL reads it: 32 hexadecimal digits, a hyphen allowed
	// after any group of four (not first, last or doubled), in braces or not.
	uuidPG = regexp.MustCompile(`^(?:\{[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}\}|[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7})$`)
	// An offset after a space, which DuckDB refuses.
	spacedOffset = regexp.MustCompile(`:\d{2}(?:\.\d+)? +(?:Z|[+-]\d)`)
	decimalType  = regexp.MustCompile(`^(?:DECIMAL|NUMERIC)\((\d+)(?:,(\d+))?\)$`)
	// A time type with a precision or PostgreSQL's long name: TIMESTAMP(3),
	// timestamp with time zone, time without time zone.
	timeTypeName = regexp.MustCompile(`^(TIMESTAMP|TIME)(?:\(\d+\))?(WITHTIMEZONE|WITHOUTTIMEZONE|TZ)?(?:\(\d+\))?$`)

	// PostgreSQL: an ISO date at the start (a year of four digits or more is
	// read year first whatever DateStyle says), a time of day at the start or
	// after the date, and the BC marker.
	pgDate  = regexp.MustCompile(`^(\d{4,})-(\d{1,2})-(\d{1,2})(?:\D|$)`)
	pgClock = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:\D|$)`)
	pgBC    = regexp.MustCompile(`(?i)\bbc\b`)
)

// dateTimeSpace is what both engines skip before and after a date or time.
const dateTimeSpace = " \t\n\v\f\r"

// Where DuckDB's dates and timestamps begin and end, found by casting text at
// the boundaries (TestTypedParamsAgreeWithDuckDB has both sides of each):
// a DATE runs from 5877642-06-25 (BC) to 5881580-07-10; a TIMESTAMP (and its
// _S, _MS and TZ kinds) from 290309-12-22 (BC) to 294247-01-10 04:00:54.775806,
// a TIMESTAMP_NS from 1677-09-22 to 2262-04-11 23:47:16.854775806 (UTC).
var (
	duckDateMin = instant{days: civilDays(1-5877642, 6, 25)}
	duckDateMax = instant{days: civilDays(5881580, 7, 10)}
	duckTSMin   = instant{days: civilDays(1-290309, 12, 22)}
	duckTSMax   = instant{days: civilDays(294247, 1, 10), nanos: ((4*60+0)*60+54)*1e9 + 775806000}
	duckNSMin   = instant{days: civilDays(1677, 9, 22)}
	duckNSMax   = instant{days: civilDays(2262, 4, 11), nanos: ((23*60+47)*60+16)*1e9 + 854775806}
)

// instant is a point in time: days since 1970-01-01 and nanoseconds into the day.
type instant struct{ days, nanos int64 }

func (a instant) before(b instant) bool {
	return a.days < b.days || a.days == b.days && a.nanos < b.nanos
}

// add returns a moved by d nanoseconds (|d| under a day).
func (a instant) add(d int64) instant {
	a.nanos += d
	switch {
	case a.nanos < 0:
		a.days--
		a.nanos += 86400e9
	case a.nanos >= 86400e9:
		a.days++
		a.nanos -= 86400e9
	}
	return a
}

// civilDays is the number of days from 1970-01-01 to the proleptic Gregorian
// date y-m-d (y astronomical: 0 is 1 BC).
func civilDays(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// typedForm is the form a string parameter of a type must have, with an example.
type typedForm struct {
	form, example string
	check         func(string) string // "" when v is good, else what is wrong
}

// timestamp kinds of DuckDB, for its ranges.
const (
	kindDate = iota
	kindTS   // TIMESTAMP, _S, _MS, _US
	kindTSTZ
	kindNS
)

// duckForms are the checked string types of a DuckDB model (typeKey).
var duckForms = func() map[string]typedForm {
	date := typedForm{"YYYY-MM-DD", "2024-07-14", func(v string) string { return checkDuckTimestamp(v, kindDate) }}
	// A TIMESTAMP takes an offset too (ISO 8601 text a client wrote with Z), and
	// drops it: 2024-07-14 09:30:00+05:30 is 09:30:00.
	ts := typedForm{"YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset (Z, +02:00) or UTC right after the seconds if any", "2024-07-14 09:30:00", func(v string) string { return checkDuckTimestamp(v, kindTS) }}
	// A TIMESTAMP_NS converts an offset to UTC (2024-07-14 09:30:00+02 is 07:30).
	ns := ts
	ns.check = func(v string) string { return checkDuckTimestamp(v, kindNS) }
	tstz := typedForm{"YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset right after the seconds (Z, +02:00) or a time zone after a space (Europe/Paris, UTC) if any", "2024-07-14T09:30:00Z", func(v string) string { return checkDuckTimestamp(v, kindTSTZ) }}
	tm := typedForm{"HH:MM[:SS[.fraction]]", "09:30:00", func(v string) string { return checkDuckTime(v, timeOnly) }}
	tmtz := typedForm{"HH:MM[:SS[.fraction]] with an offset after the seconds (+02:00, not Z) if any", "09:30:00+02:00", func(v string) string { return checkDuckTime(v, timeZoned) }}
	uuid := typedForm{"8-4-4-4-12 hexadecimal digits", "123e4567-e89b-12d3-a456-426614174000", checkDuckUUID}
	return map[string]typedForm{
		"DATE":      date,
		"TIMESTAMP": ts, "DATETIME": ts, "TIMESTAMP_S": ts, "TIMESTAMP_MS": ts, "TIMESTAMP_US": ts,
		"TIMESTAMP_NS": ns,
		"TIMESTAMPTZ":  tstz, "TIMESTAMP_TZ": tstz,
		"TIME": tm, "TIMETZ": tmtz, "TIME_TZ": tmtz,
		"UUID": uuid,
	}
}()

// pgForms are the checked string types of a PostgreSQL model (typeKey).
var pgForms = func() map[string]typedForm {
	date := typedForm{"as a date PostgreSQL reads, such as YYYY-MM-DD", "2024-07-14", func(v string) string { return checkPGDateTime(v, true, false) }}
	ts := typedForm{"as a date and time PostgreSQL reads, such as YYYY-MM-DD HH:MM:SS", "2024-07-14 09:30:00", func(v string) string { return checkPGDateTime(v, true, true) }}
	tstz := typedForm{"as a date and time PostgreSQL reads, such as YYYY-MM-DD HH:MM:SS with an offset or a time zone", "2024-07-14T09:30:00Z", ts.check}
	tm := typedForm{"as a time of day PostgreSQL reads, such as HH:MM[:SS[.fraction]]", "09:30:00", func(v string) string { return checkPGDateTime(v, false, true) }}
	tmtz := typedForm{"as a time of day PostgreSQL reads, such as HH:MM[:SS[.fraction]] with an offset", "09:30:00+02:00", tm.check}
	uuid := typedForm{"8-4-4-4-12 hexadecimal digits", "123e4567-e89b-12d3-a456-426614174000", checkPGUUID}
	return map[string]typedForm{
		"DATE": date, "TIMESTAMP": ts, "TIMESTAMPTZ": tstz, "TIME": tm, "TIMETZ": tmtz, "UUID": uuid,
	}
}()

// typeKey is the key of the forms for the SQL type t (spaces removed, upper
// case): PostgreSQL's long names and a precision are read as the type they
// spell (timestamp(3) with time zone is TIMESTAMPTZ).
func typeKey(t string) string {
	m := timeTypeName.FindStringSubmatch(t)
	if m == nil {
		return t
	}
	switch m[2] {
	case "WITHTIMEZONE", "TZ":
		return m[1] + "TZ"
	}
	return m[1]
}

// queryEngine is the engine a named query runs on (catalog.EngineDuckDB when
// it has no model: then it does not run).
func queryEngine(q *catalog.Query) string {
	if q != nil && q.Model != nil && q.Model.Package != nil && q.Model.Package.Engine != "" {
		return q.Model.Package.Engine
	}
	return catalog.EngineDuckDB
}

// checkTypedValue checks the value v of p, already of p's JSON type
// (checkParams), against p's SQL type as the engine eng reads it: a DATE,
// TIMESTAMP, TIME or UUID, a DECIMAL(p,s) that fits its precision, a JSON
// parameter holding JSON text.
func checkTypedValue(eng string, p catalog.Param, v any) error {
	pg := eng == catalog.EnginePostgres
	t := strings.ToUpper(strings.Join(strings.Fields(p.Type), ""))
	if s, ok := v.(string); ok {
		forms := duckForms
		if pg {
			forms = pgForms
		}
		if f, ok := forms[typeKey(t)]; ok {
			if why := f.check(s); why != "" {
				return fmt.Errorf("parameter %q must be a %s written %s (e.g. %q), got %s: %s", p.Name, p.Type, f.form, f.example, jsonText(s), why)
			}
		}
		if t == "JSON" || t == "JSONB" {
			why := ""
			switch {
			case !json.Valid([]byte(s)):
				why = "not JSON"
			case pg && t == "JSON":
				// PostgreSQL's json keeps the text as written.
			case pg && strings.Contains(s, `\u0000`) && jsonNul(s):
				why = `PostgreSQL's jsonb has no \u0000 in a string`
			default:
				why = jsonSurrogates(s)
			}
			if why != "" {
				return fmt.Errorf("parameter %q must be a %s value written as JSON text (e.g. %q), got %s: %s", p.Name, p.Type, `{"a": 1}`, jsonText(s), why)
			}
		}
		return nil
	}
	if f, ok := v.(float64); ok {
		if m := decimalType.FindStringSubmatch(t); m != nil {
			prec, _ := strconv.Atoi(m[1])
			scale, _ := strconv.Atoi(m[2])
			var tooWide bool
			if pg {
				tooWide = prec >= 1 && prec <= 1000 && scale <= prec && pgDecimalTooWide(f, prec, scale)
			} else {
				// As DuckDB casts the number (a DOUBLE): times 10^scale, rounded
				// half away from zero, then held below 10^prec, all in DOUBLEs;
				// 9.999 is 10.00, too wide for DECIMAL(3,2).
				tooWide = prec >= 1 && prec <= 38 && scale <= prec && math.Abs(math.Round(f*pow10[scale])) >= pow10[prec]
			}
			if tooWide {
				ex := "0"
				if prec > scale {
					ex = strings.Repeat("9", min(prec-scale, 3))
				}
				if scale > 0 {
					ex += "." + strings.Repeat("5", min(scale, 2))
				}
				return fmt.Errorf("parameter %q must be a number with at most %d digits before the decimal point once rounded to %d decimals (%s), got %s; e.g. %s", p.Name, prec-scale, scale, p.Type, jsonText(v), ex)
			}
		}
	}
	return nil
}

// pow10 are DuckDB's powers of ten as DOUBLEs (NumericHelper::DOUBLE_POWERS_OF_TEN):
// exact literals, where math.Pow10 is off by a unit in the last place for some.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
	1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30,
	1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38}

// pgDecimalTooWide reports whether f is too wide for PostgreSQL's
// NUMERIC(prec,scale): pgx sends the number as its shortest decimal text
// (9.995), which PostgreSQL rounds to scale decimals half away from zero
// (10.00), and then holds to prec digits.
func pgDecimalTooWide(f float64, prec, scale int) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	roundUp := len(frac) > scale && frac[scale] >= '5'
	if len(frac) > scale {
		frac = frac[:scale]
	}
	n, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", scale-len(frac)), 10)
	if roundUp {
		n.Add(n, big.NewInt(1))
	}
	return n.Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil)) >= 0
}

// jsonEscapes returns the \u escapes of the strings of valid JSON text s, in order.
func jsonEscapes(s string) []rune {
	var out []rune
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			in = !in
		case in && c == '\\':
			if s[i+1] == 'u' {
				r, _ := strconv.ParseUint(s[i+2:i+6], 16, 32)
				out = append(out, rune(r))
				i += 5
			} else {
				out = append(out, -1) // another escape: \n, \\, \"
				i++
			}
		}
	}
	return out
}

// jsonSurrogates says what DuckDB finds wrong with the \u escapes of valid JSON
// text s, or "": a high surrogate (\ud800–\udbff) must be followed at once by a
// low one (\udc00–\udfff), and a low one must follow a high one.
func jsonSurrogates(s string) string {
	if !strings.Contains(s, `\u`) {
		return ""
	}
	esc := jsonEscapes(s)
	for i := 0; i < len(esc); i++ {
		switch r := esc[i]; {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+1 >= len(esc) || esc[i+1] < 0xDC00 || esc[i+1] > 0xDFFF {
				return fmt.Sprintf(`the escape \u%04x (a UTF-16 high surrogate) is not followed by a low one (\udc00 to \udfff): write the character itself, or both halves`, r)
			}
			i++
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Sprintf(`the escape \u%04x (a UTF-16 low surrogate) follows no high one (\ud800 to \udbff): write the character itself, or both halves`, r)
		}
	}
	return ""
}

// jsonNul reports whether valid JSON text s has the escape \u0000 in a string.
func jsonNul(s string) bool {
	for _, r := range jsonEscapes(s) {
		if r == 0 {
			return true
		}
	}
	return false
}

// checkDuckUUID says what is wrong with v as a UUID for DuckDB, or "".
func checkDuckUUID(v string) string {
	digits := 0
	for _, c := range v {
		if c != '-' && c != '{' && c != '}' {
			digits++
		}
	}
	if !uuidDuck.MatchString(v) || digits != 32 {
		return "not a UUID"
	}
	return ""
}

// checkPGUUID says what is wrong with v as a UUID for PostgreSQL, or "".
func checkPGUUID(v string) string {
	if !uuidPG.MatchString(v) {
		return "not a UUID (PostgreSQL allows a hyphen only after a group of four digits)"
	}
	return ""
}

// trimSpaces returns v without the spaces around it, and whether it had any
// after it.
func trimSpaces(v string) (string, bool) {
	v = strings.TrimLeft(v, dateTimeSpace)
	t := strings.TrimRight(v, dateTimeSpace)
	return t, t != v
}

// checkDuckTime says what is wrong with v as a time of day for DuckDB (re:
// timeOnly or timeZoned), or "".
func checkDuckTime(v string, re *regexp.Regexp) string {
	v, trailing := trimSpaces(v)
	m := re.FindStringSubmatch(v)
	if m == nil {
		return "not a time in that form"
	}
	if (m[5] != "" || trailing) && m[3] == "" {
		return "an offset, time zone or space after the time needs the seconds before it (HH:MM:SS)"
	}
	if why := clockRange(m[1], m[2], m[3], m[4], 6); why != "" {
		return why
	}
	if re == timeZoned && m[6] != "" {
		// DuckDB's offsets go to 15:59:59 (+05:60 is +06:00).
		if off := offsetSeconds(m[6]); off > 15*3600+59*60+59 || off < -(15*3600+59*60+59) {
			return fmt.Sprintf("an offset is at most 15:59:59 hours, not %s", m[6])
		}
	}
	return ""
}

// offsetSeconds is the offset o (+05:30, -0200, +02) in seconds east of UTC.
func offsetSeconds(o string) int64 {
	m := offsetParts.FindStringSubmatch(o)
	if m == nil {
		return 0
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	s, _ := strconv.Atoi(m[4])
	off := int64(h*3600 + mi*60 + s)
	if m[1] == "-" {
		off = -off
	}
	return off
}

// checkDuckTimestamp says what is wrong with v as a DuckDB timestamp or date
// of the kind (kindDate, kindTS, kindTSTZ, kindNS), or "".
func checkDuckTimestamp(v string, kind int) string {
	v, trailing := trimSpaces(v)
	switch strings.ToLower(v) {
	case "infinity", "-infinity", "epoch":
		return ""
	}
	re := timestampOff // kindTS, kindNS
	switch kind {
	case kindDate:
		re = dateOnly
	case kindTSTZ:
		re = timestampTZ
	}
	m := re.FindStringSubmatch(v)
	if m == nil {
		switch {
		case kind == kindDate:
			return "not a date in that form"
		case spacedOffset.MatchString(v):
			return "an offset goes right after the seconds, with no space (2024-07-14 09:30:00+02:00)"
		case kind != kindTSTZ && timestampTZ.MatchString(v):
			if timestampTZ.FindStringSubmatch(v)[7] == "" {
				return "an offset or time zone needs the seconds before it (HH:MM:SS)"
			}
			return "a TIMESTAMP takes no time zone but UTC: write the offset right after the seconds (2024-07-14 09:30:00+02:00, which is read as 09:30:00), or leave it out"
		}
		return "not a timestamp in that form"
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	bc := m[4] != ""
	if mo < 1 || mo > 12 {
		return fmt.Sprintf("there is no month %d", mo)
	}
	if bc && y == 0 {
		return "there is no year 0 BC: the year before 0001 is 0001 (BC), which 0000 (without BC) also means"
	}
	// The year 1 BC is the year 0, whose February has 29 days.
	ay := y
	if bc {
		ay = 1 - y
	}
	// The day after the last of the month is day 1 of the next.
	last := time.Date(ay, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if d < 1 || d > last {
		return fmt.Sprintf("%04d-%02d%s has days 1 to %d", y, mo, m[4], last)
	}
	at := instant{days: civilDays(ay, mo, d)}
	if kind == kindDate {
		// A DATE's time is not read, nor a space after it.
		switch {
		case at.before(duckDateMin):
			return "DuckDB's dates begin at 5877642-06-25 (BC)"
		case duckDateMax.before(at):
			return "DuckDB's dates end at 5881580-07-10"
		}
		return ""
	}
	if trailing && m[7] == "" {
		return "a space after the value needs the seconds before it (HH:MM:SS), or drop the space"
	}
	if m[9] != "" && m[7] == "" {
		return "an offset or time zone needs the seconds before it (HH:MM:SS)"
	}
	digits := 6
	if kind == kindNS {
		digits = 9
	}
	if m[5] != "" {
		if why := clockRange(m[5], m[6], m[7], m[8], digits); why != "" {
			return why
		}
		at = at.add(clockNanos(m[5], m[6], m[7], m[8], digits))
	}
	utc := at
	if off := strings.TrimSpace(m[9]); off != "" && off != "Z" && !strings.EqualFold(off, "utc") && (off[0] == '+' || off[0] == '-') {
		utc = at.add(-offsetSeconds(off) * 1e9)
	}
	switch kind {
	case kindNS:
		if utc.before(duckNSMin) || duckNSMax.before(utc) {
			return "DuckDB's TIMESTAMP_NS runs from 1677-09-22 00:00:00 to 2262-04-11 23:47:16.854775806 (UTC)"
		}
	default:
		switch {
		case at.before(duckTSMin):
			return "DuckDB's timestamps begin at 290309-12-22 (BC)"
		case duckTSMax.before(at) || kind == kindTSTZ && duckTSMax.before(utc):
			return "DuckDB's timestamps end at 294247-01-10 04:00:54.775806 (UTC)"
		}
	}
	return ""
}

// clockNanos is the time of day h:mi:s.frac in nanoseconds, the fraction cut
// to digits digits (as DuckDB reads it).
func clockNanos(h, mi, s, frac string, digits int) int64 {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(mi)
	ss, _ := strconv.Atoi(s)
	f := strings.TrimPrefix(frac, ".")
	f = (f + strings.Repeat("0", 9))[:digits] + strings.Repeat("0", 9-digits)
	n, _ := strconv.ParseInt(f, 10, 64)
	return int64((hh*60+mm)*60+ss)*1e9 + n
}

// clockRange says what is wrong with hours h, minutes mi, seconds s and their
// fraction frac (".5"; s and frac may be empty) for DuckDB, or "". 24:00:00 is
// the end of a day, which both engines read; 24:00:00.5 is past it. DuckDB
// reads digits digits of the fraction and drops the rest.
func clockRange(h, mi, s, frac string, digits int) string {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(mi)
	ss, _ := strconv.Atoi(s)
	switch {
	case hh > 24 || hh == 24 && (mm > 0 || ss > 0 || fracNonzero(frac, digits)):
		return fmt.Sprintf("there is no hour %d", hh)
	case mm > 59:
		return fmt.Sprintf("there is no minute %d", mm)
	case ss > 59:
		return fmt.Sprintf("there is no second %d", ss)
	}
	return ""
}

// fracNonzero reports whether the first digits digits of the fraction frac
// (".5") are not all zero.
func fracNonzero(frac string, digits int) bool {
	f := strings.TrimPrefix(frac, ".")
	return strings.Trim(f[:min(len(f), digits)], "0") != ""
}

// checkPGDateTime says what PostgreSQL surely refuses in v, or "": in an ISO
// date at its start (withDate), the month, the day of the month and the year
// 0; in the time of day at its start or after the date (withTime), the hour,
// minute and second (PostgreSQL reads a second 60 as the next minute's 0, and
// 24:00:00 as the end of the day). Any other form is left to PostgreSQL.
func checkPGDateTime(v string, withDate, withTime bool) string {
	v = strings.Trim(v, dateTimeSpace)
	rest := v
	if m := pgDate.FindStringSubmatch(v); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		rest = v[len(m[1])+len(m[2])+len(m[3])+2:]
		if y > 1e7 {
			return "" // far past PostgreSQL's range, which it says
		}
		if y == 0 {
			return "there is no year 0: the year before 0001 is 0001 BC"
		}
		if mo < 1 || mo > 12 {
			return fmt.Sprintf("there is no month %d", mo)
		}
		ay := y
		if pgBC.MatchString(rest) {
			ay = 1 - y
		}
		last := time.Date(ay, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		if d < 1 || d > last {
			suffix := ""
			if ay != y {
				suffix = " BC"
			}
			return fmt.Sprintf("%04d-%02d%s has days 1 to %d", y, mo, suffix, last)
		}
		rest = strings.TrimLeft(rest, "T"+dateTimeSpace)
	} else if withDate && !withTime {
		return ""
	}
	if !withTime {
		return ""
	}
	m := pgClock.FindStringSubmatch(rest)
	if m == nil {
		return ""
	}
	hh, _ := strconv.Atoi(m[1])
	mm, _ := strconv.Atoi(m[2])
	ss, _ := strconv.Atoi(m[3])
	// PostgreSQL rounds the fraction to 6 digits: a nonzero digit among them
	// is past 24:00:00 or 60 seconds.
	frac := fracNonzero(m[4], 6)
	switch {
	case hh > 24 || hh == 24 && (mm > 0 || ss > 0 || frac):
		return fmt.Sprintf("there is no hour %d", hh)
	case mm > 59:
		return fmt.Sprintf("there is no minute %d", mm)
	case ss > 60 || ss == 60 && frac:
		return fmt.Sprintf("there is no second %s", strings.TrimSuffix(m[3]+m[4], "."))
	}
	return ""
}
