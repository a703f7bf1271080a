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
// engines read (ISO 8601 for dates and times): a value the engine would take for
// something else, or read only where the SQL casts it, is refused naming the
// parameter, its type and a value that works — the way an INTEGER parameter given
// "ten" is.

var (
	dateForm = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})$`)
	// A time of day: hours, minutes, optional seconds with a fraction.
	timeForm = `(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?`
	// An offset from UTC: Z, +02, +0200, +02:00.
	zoneForm     = `(?:Z|[+-]\d{2}(?::?\d{2})?)`
	timeOnly     = regexp.MustCompile(`^` + timeForm + `$`)
	timeZoned    = regexp.MustCompile(`^` + timeForm + zoneForm + `?$`)
	timestampOff = regexp.MustCompile(`^(\d{4}-\d{1,2}-\d{1,2})(?:[T ]` + timeForm + ` ?` + zoneForm + `?)?$`)
	// A TIMESTAMPTZ also takes a time zone by name (Europe/Paris, UTC).
	timestampTZ = regexp.MustCompile(`^(\d{4}-\d{1,2}-\d{1,2})(?:[T ]` + timeForm + `(?: ?` + zoneForm + `| (?:UTC|GMT|[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+))?)?$`)
	uuidForm    = regexp.MustCompile(`^(?:\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$`)
	decimalType = regexp.MustCompile(`^(?:DECIMAL|NUMERIC)\((\d+)(?:,(\d+))?\)$`)
)

// typedForm is the form a string parameter of a type must have, with an example.
type typedForm struct {
	form, example string
	check         func(string) string // "" when v is good, else what is wrong
}

// typedForms are the checked string types, by DuckDB's and PostgreSQL's names.
var typedForms = func() map[string]typedForm {
	date := typedForm{"YYYY-MM-DD", "2024-07-14", checkDate}
	// A TIMESTAMP takes an offset too, as both engines do (ISO 8601 text a client
	// wrote with Z), though they read it differently: DuckDB converts to UTC,
	// PostgreSQL drops it.
	ts := typedForm{"YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS[.fraction]]", "2024-07-14 09:30:00", func(v string) string { return checkTimestamp(v, timestampOff) }}
	tstz := typedForm{"YYYY-MM-DD HH:MM[:SS[.fraction]] with an optional offset (Z, +02:00) or time zone (Europe/Paris)", "2024-07-14T09:30:00Z", func(v string) string { return checkTimestamp(v, timestampTZ) }}
	tm := typedForm{"HH:MM[:SS[.fraction]]", "09:30:00", func(v string) string { return checkTime(v, timeOnly) }}
	tmtz := typedForm{"HH:MM[:SS[.fraction]] with an optional offset (Z, +02:00)", "09:30:00+02:00", func(v string) string { return checkTime(v, timeZoned) }}
	uuid := typedForm{"8-4-4-4-12 hexadecimal digits", "123e4567-e89b-12d3-a456-426614174000", func(v string) string {
		if !uuidForm.MatchString(v) {
			return "not a UUID"
		}
		return ""
	}}
	return map[string]typedForm{
		"DATE":      date,
		"TIMESTAMP": ts, "DATETIME": ts, "TIMESTAMP_S": ts, "TIMESTAMP_MS": ts, "TIMESTAMP_NS": ts, "TIMESTAMP_US": ts,
		"TIMESTAMPTZ": tstz, "TIMESTAMP_TZ": tstz,
		"TIME": tm, "TIMETZ": tmtz, "TIME_TZ": tmtz,
		"UUID": uuid,
	}
}()

// checkTypedValue checks the value v of p, already of p's JSON type
// (checkParams), against p's SQL type where that says more: a DATE, TIMESTAMP,
// TIME or UUID written in a form both engines read, a DECIMAL(p,s) that fits its
// precision, a JSON parameter holding JSON text.
func checkTypedValue(p catalog.Param, v any) error {
	t := strings.ToUpper(strings.ReplaceAll(p.Type, " ", ""))
	if s, ok := v.(string); ok {
		if f, ok := typedForms[t]; ok {
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
			if prec >= 1 && prec <= 38 && scale <= prec && math.Abs(f) >= math.Pow10(prec-scale) {
				ex := "0"
				if prec > scale {
					ex = strings.Repeat("9", min(prec-scale, 3))
				}
				if scale > 0 {
					ex += "." + strings.Repeat("5", min(scale, 2))
				}
				return fmt.Errorf("parameter %q must be a number with at most %d digits before the decimal point (%s), got %s; e.g. %s", p.Name, prec-scale, p.Type, jsonText(v), ex)
			}
		}
	}
	return nil
}

// checkDate says what is wrong with v as a date, or "".
func checkDate(v string) string {
	if v == "infinity" || v == "-infinity" {
		return ""
	}
	m := dateForm.FindStringSubmatch(v)
	if m == nil {
		return "not a date in that form"
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	if mo < 1 || mo > 12 {
		return fmt.Sprintf("there is no month %d", mo)
	}
	// The day after the last of the month is day 1 of the next.
	last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if d < 1 || d > last {
		return fmt.Sprintf("%04d-%02d has days 1 to %d", y, mo, last)
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
	return clockRange(m[1], m[2], m[3])
}

// checkTimestamp says what is wrong with v as a timestamp (re: timestampOff or
// timestampTZ), or "".
func checkTimestamp(v string, re *regexp.Regexp) string {
	if v == "infinity" || v == "-infinity" {
		return ""
	}
	m := re.FindStringSubmatch(v)
	if m == nil {
		return "not a timestamp in that form"
	}
	if why := checkDate(m[1]); why != "" {
		return why
	}
	if m[2] == "" {
		return ""
	}
	return clockRange(m[2], m[3], m[4])
}

// clockRange says what is wrong with hours h, minutes mi and seconds s (which may
// be empty), or "". 24:00:00 is the end of a day, which both engines read.
func clockRange(h, mi, s string) string {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(mi)
	ss, _ := strconv.Atoi(s)
	switch {
	case hh > 24 || hh == 24 && (mm > 0 || ss > 0):
		return fmt.Sprintf("there is no hour %d", hh)
	case mm > 59:
		return fmt.Sprintf("there is no minute %d", mm)
	case ss > 59:
		return fmt.Sprintf("there is no second %d", ss)
	}
	return ""
}
