package main

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// Typed string parameters are checked before the query runs, in the forms both
// engines read (ISO 8601 for dates and times; TestTypedParamsAgreeWithDuckDB
// holds the checks to DuckDB's own casts), plus a few DuckDB reads that
// PostgreSQL may not (the engine's own error, blamed on the parameter, still
// comes back for those): a value the engine would take for something else, or
// read only where the SQL casts it, is refused naming the parameter, its type
// and a value that works — the way an INTEGER parameter given "ten" is.

var (
	// A date: year (4 to 7 digits), month, day.
	dateForm = `(\d{4,7})-(\d{1,2})-(\d{1,2})`
	// A time of day: hours, minutes, optional seconds with a fraction.
	timeForm = `(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?`
	// An offset from UTC written right after the seconds: +02, +0200, +02:00,
	// +02:00:00. Both engines need the seconds before an offset or a zone.
	offsetForm = `[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?`
	// A time zone by name, after a space: Europe/Paris, UTC, EST, Etc/GMT+5.
	// Whether the engine knows it is the engine's to say; "Z" alone is none.
	zoneName = `[A-Za-z][A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*`

	// A DATE: a date, "(BC)" after it (DuckDB), or a timestamp whose time the
	// engines ignore.
	dateOnly = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(?:Z|` + offsetForm + `| ` + zoneName + `)?)?$`)
	// A TIMESTAMP: an offset (Z, +02:00) or UTC after the seconds, which both
	// engines read and drop; DuckDB refuses other zones.
	timestampOff = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(Z|` + offsetForm + `| (?i:utc))?)?$`)
	// A TIMESTAMPTZ also takes a time zone by name after a space (not an offset:
	// DuckDB reads " +02:00" as a zone's name).
	timestampTZ = regexp.MustCompile(`^` + dateForm + `(?:( \((?i:bc)\))|[T ]` + timeForm + `(Z|` + offsetForm + `| ` + zoneName + `)?)?$`)
	// A TIME: DuckDB reads and drops an offset or zone after the seconds.
	timeOnly = regexp.MustCompile(`^` + timeForm + `(Z|z|` + offsetForm + `| (?:Z|` + offsetForm + `|` + zoneName + `))?$`)
	// A TIMETZ: an offset after the seconds, with or without a space; not Z,
	// nor a zone's name (DuckDB refuses both).
	timeZoned = regexp.MustCompile(`^` + timeForm + `( ?(` + offsetForm + `))?$`)
	// A UUID as DuckDB reads it: 32 hexadecimal digits, hyphens anywhere among
	// them (8-4-4-4-12, every four digits, none), in braces or not.
	uuidForm = regexp.MustCompile(`^(?:\{[0-9a-fA-F-]*\}|[0-9a-fA-F-]*)$`)
	// An offset after a space, which DuckDB refuses.
	spacedOffset = regexp.MustCompile(`:\d{2}(?:\.\d+)? +(?:Z|[+-]\d)`)
	decimalType  = regexp.MustCompile(`^(?:DECIMAL|NUMERIC)\((\d+)(?:,(\d+))?\)$`)
	// A time type with a precision or PostgreSQL's long name: TIMESTAMP(3),
	// timestamp with time zone, time without time zone.
	timeTypeName = regexp.MustCompile(`^(TIMESTAMP|TIME)(?:\(\d+\))?(WITHTIMEZONE|WITHOUTTIMEZONE|TZ)?(?:\(\d+\))?$`)
)

// Where the engines' dates and timestamps end (DuckDB's: 5881580-07-10 and
// 294247-01-10; PostgreSQL's are near).
const (
	maxDateYear      = 5881580
	maxTimestampYear = 294247
)

// typedForm is the form a string parameter of a type must have, with an example.
type typedForm struct {
	form, example string
	check         func(string) string // "" when v is good, else what is wrong
}

// typedForms are the checked string types, by DuckDB's and PostgreSQL's names
// (typeKey).
var typedForms = func() map[string]typedForm {
	date := typedForm{"YYYY-MM-DD", "2024-07-14", checkDate}
	// A TIMESTAMP takes an offset too, as both engines do (ISO 8601 text a client
	// wrote with Z), and both drop it: 2024-07-14 09:30:00+05:30 is 09:30:00.
	ts := typedForm{"YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset (Z, +02:00) or UTC right after the seconds if any", "2024-07-14 09:30:00", func(v string) string { return checkTimestamp(v, timestampOff, maxTimestampYear) }}
	tstz := typedForm{"YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset right after the seconds (Z, +02:00) or a time zone after a space (Europe/Paris, UTC) if any", "2024-07-14T09:30:00Z", func(v string) string { return checkTimestamp(v, timestampTZ, maxTimestampYear) }}
	tm := typedForm{"HH:MM[:SS[.fraction]]", "09:30:00", func(v string) string { return checkTime(v, timeOnly) }}
	tmtz := typedForm{"HH:MM[:SS[.fraction]] with an offset after the seconds (+02:00, not Z) if any", "09:30:00+02:00", func(v string) string { return checkTime(v, timeZoned) }}
	uuid := typedForm{"8-4-4-4-12 hexadecimal digits", "123e4567-e89b-12d3-a456-426614174000", checkUUID}
	return map[string]typedForm{
		"DATE":      date,
		"TIMESTAMP": ts, "DATETIME": ts, "TIMESTAMP_S": ts, "TIMESTAMP_MS": ts, "TIMESTAMP_NS": ts, "TIMESTAMP_US": ts,
		"TIMESTAMPTZ": tstz, "TIMESTAMP_TZ": tstz,
		"TIME": tm, "TIMETZ": tmtz, "TIME_TZ": tmtz,
		"UUID": uuid,
	}
}()

// typeKey is the key of typedForms for the SQL type t (spaces removed, upper
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

// checkTypedValue checks the value v of p, already of p's JSON type
// (checkParams), against p's SQL type where that says more: a DATE, TIMESTAMP,
// TIME or UUID written in a form both engines read, a DECIMAL(p,s) that fits its
// precision, a JSON parameter holding JSON text.
func checkTypedValue(p catalog.Param, v any) error {
	t := strings.ToUpper(strings.Join(strings.Fields(p.Type), ""))
	if s, ok := v.(string); ok {
		if f, ok := typedForms[typeKey(t)]; ok {
			if why := f.check(s); why != "" {
				return fmt.Errorf("parameter %q must be a %s written %s (e.g. %q), got %s: %s", p.Name, p.Type, f.form, f.example, jsonText(s), why)
			}
		}
		if t == "JSON" || t == "JSONB" {
			if !json.Valid([]byte(s)) {
				return fmt.Errorf("parameter %q must be a %s value written as JSON text (e.g. %q), got %s: not JSON", p.Name, p.Type, `{"a": 1}`, jsonText(s))
			}
		}
		return nil
	}
	if f, ok := v.(float64); ok {
		if m := decimalType.FindStringSubmatch(t); m != nil {
			prec, _ := strconv.Atoi(m[1])
			scale, _ := strconv.Atoi(m[2])
			// As DuckDB casts the number (a DOUBLE): scaled, rounded half away
			// from zero, then held to prec digits; 9.999 is 10.00, too wide for
			// DECIMAL(3,2). PostgreSQL rounds the same way.
			if prec >= 1 && prec <= 38 && scale <= prec && math.Abs(math.Round(f*math.Pow10(scale))) >= math.Pow10(prec) {
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

// checkDate says what is wrong with v as a date, or "".
func checkDate(v string) string {
	return checkTimestamp(v, dateOnly, maxDateYear)
}

// checkUUID says what is wrong with v as a UUID, or "".
func checkUUID(v string) string {
	digits := 0
	for _, c := range v {
		if c != '-' && c != '{' && c != '}' {
			digits++
		}
	}
	if !uuidForm.MatchString(v) || digits != 32 {
		return "not a UUID"
	}
	return ""
}

// checkTime says what is wrong with v as a time of day (re: timeOnly or
// timeZoned), or "".
func checkTime(v string, re *regexp.Regexp) string {
	m := re.FindStringSubmatch(v)
	if m == nil {
		return "not a time in that form"
	}
	if m[5] != "" && m[3] == "" {
		return "an offset or time zone needs the seconds before it (HH:MM:SS)"
	}
	if why := clockRange(m[1], m[2], m[3], m[4]); why != "" {
		return why
	}
	if re == timeZoned && m[6] != "" {
		// DuckDB's offsets go to 15:59:59.
		if h, _ := strconv.Atoi(m[6][1:3]); h > 15 {
			return fmt.Sprintf("an offset is at most 15:59 hours, not %s", m[6])
		}
	}
	return ""
}

// checkTimestamp says what is wrong with v as a timestamp or date (re:
// dateOnly, timestampOff or timestampTZ; years up to maxYear), or "".
func checkTimestamp(v string, re *regexp.Regexp, maxYear int) string {
	switch strings.ToLower(v) {
	case "infinity", "-infinity", "epoch":
		return ""
	}
	m := re.FindStringSubmatch(v)
	if m == nil {
		switch {
		case re == dateOnly:
			return "not a date in that form"
		case spacedOffset.MatchString(v):
			return "an offset goes right after the seconds, with no space (2024-07-14 09:30:00+02:00)"
		case re == timestampOff && timestampTZ.MatchString(v):
			if tz := timestampTZ.FindStringSubmatch(v); tz[7] == "" {
				return "an offset or time zone needs the seconds before it (HH:MM:SS)"
			}
			return "a TIMESTAMP takes no time zone but UTC: write the offset right after the seconds (2024-07-14 09:30:00+02:00, which is read as 09:30:00), or leave it out"
		}
		return "not a timestamp in that form"
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	if y > maxYear {
		return fmt.Sprintf("the engines' dates end in the year %d", maxYear)
	}
	if mo < 1 || mo > 12 {
		return fmt.Sprintf("there is no month %d", mo)
	}
	// The year 1 BC is the year 0, whose February has 29 days.
	ay := y
	if m[4] != "" {
		ay = 1 - y
	}
	// The day after the last of the month is day 1 of the next.
	last := time.Date(ay, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if d < 1 || d > last {
		return fmt.Sprintf("%04d-%02d%s has days 1 to %d", y, mo, m[4], last)
	}
	if m[5] == "" || re == dateOnly {
		// A DATE's time is not read.
		return ""
	}
	if m[9] != "" && m[7] == "" {
		return "an offset or time zone needs the seconds before it (HH:MM:SS)"
	}
	return clockRange(m[5], m[6], m[7], m[8])
}

// clockRange says what is wrong with hours h, minutes mi, seconds s and their
// fraction frac (".5"; s and frac may be empty), or "". 24:00:00 is the end of
// a day, which both engines read; 24:00:00.5 is past it.
func clockRange(h, mi, s, frac string) string {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(mi)
	ss, _ := strconv.Atoi(s)
	switch {
	case hh > 24 || hh == 24 && (mm > 0 || ss > 0 || strings.Trim(frac, ".0") != ""):
		return fmt.Sprintf("there is no hour %d", hh)
	case mm > 59:
		return fmt.Sprintf("there is no minute %d", mm)
	case ss > 59:
		return fmt.Sprintf("there is no second %d", ss)
	}
	return ""
}
