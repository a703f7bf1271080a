package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// Typed string parameters are checked before the query runs, by the model's
// engine: a value the engine would refuse, take for something else, or read
// only where the SQL casts it, is refused naming the parameter, its type and a
// value that works — the way an INTEGER parameter given "ten" is.
//
// For DuckDB the checks follow DuckDB 1.5.6's own casts (its forms, offsets and
// ranges: duckdatetime.go; TestTypedParamsAgreeWithDuckDB holds them to DuckDB);
// a TIMESTAMPTZ's time zone by name, and where a time in it lies, are left to
// DuckDB, whose error paramValueError blames on the parameter.
// PostgreSQL reads far more date and time forms (July 14 2024, yesterday,
// 09:30 Europe/Paris, a space before an offset), so for PostgreSQL the check
// refuses only what PostgreSQL surely refuses — a field out of range in an ISO
// date or time (month 13, 09:61), a UUID or JSON it cannot read, a number too
// wide for a DECIMAL — and leaves the rest to PostgreSQL, whose error
// paramValueError blames on the parameter (TestTypedParamsAgreeWithPostgres).

var (
	// A UUID as DuckDB reads it: 32 hexadecimal digits, hyphens anywhere among
	// them (8-4-4-4-12, every four digits, none, even leading or doubled), in
	// braces or not.
	uuidDuck = regexp.MustCompile(`^(?:\{[0-9a-fA-F-]*\}|[0-9a-fA-F-]*)$`)
	// A UUID as PostgreSQL reads it: 32 hexadecimal digits, a hyphen allowed
	// after any group of four (not first, last or doubled), in braces or not.
	uuidPG = regexp.MustCompile(`^(?:\{[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}\}|[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7})$`)
	// A DECIMAL or NUMERIC, with its precision and scale if written.
	decimalType = regexp.MustCompile(`^(?:DECIMAL|NUMERIC)(?:\((\d+)(?:,(\d+))?\))?$`)
	// A time type with a precision or PostgreSQL's long name: TIMESTAMP(3),
	// timestamp with time zone, time without time zone.
	timeTypeName = regexp.MustCompile(`^(TIMESTAMP|TIME)(?:\(\d+\))?(WITHTIMEZONE|WITHOUTTIMEZONE|TZ)?(?:\(\d+\))?$`)

	// PostgreSQL: an ISO date at the start (a year of four digits or more is
	// read year first whatever DateStyle says), a time of day at the start or
	// after the date, and the BC marker.
	pgDate  = regexp.MustCompile(`^(\d{4,})-(\d{1,2})-(\d{1,2})(?:\D|$)`)
	pgClock = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(\D|$)`)
	pgBC    = regexp.MustCompile(`(?i)\bbc\b`)
)

// dateTimeSpace is what both engines skip before and after a date or time.
const dateTimeSpace = " \t\n\v\f\r"

// typedForm is the form a string parameter of a type must have, with an example.
type typedForm struct {
	form, example string
	check         func(string) string // "" when v is good, else what is wrong
}

// duckForms are the checked string types of a DuckDB model (typeKey).
var duckForms = func() map[string]typedForm {
	date := typedForm{"YYYY-MM-DD", "2024-07-14", checkDuckDate}
	// A TIMESTAMP takes an offset too (ISO 8601 text a client wrote with Z), and
	// drops it: 2024-07-14 09:30:00+05:30 is 09:30:00.
	ts := typedForm{"YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset (Z, +02:00) or UTC right after the seconds if any", "2024-07-14 09:30:00", func(v string) string { return checkDuckTimestamp(v, false, false) }}
	// A TIMESTAMP_NS converts an offset to UTC (2024-07-14 09:30:00+02 is 07:30).
	ns := ts
	ns.check = func(v string) string { return checkDuckTimestamp(v, true, false) }
	tstz := typedForm{"YYYY-MM-DD HH:MM[:SS[.fraction]], with an offset right after the seconds (Z, +02:00) or a time zone after a space (Europe/Paris, UTC) if any", "2024-07-14T09:30:00Z", func(v string) string { return checkDuckTimestamp(v, false, true) }}
	tm := typedForm{"HH:MM[:SS[.fraction]]", "09:30:00", checkDuckTime}
	tmtz := typedForm{"HH:MM[:SS[.fraction]] with an offset after the seconds (+02:00, not Z) if any", "09:30:00+02:00", checkDuckTimeTZ}
	uuid := typedForm{"8-4-4-4-12 hexadecimal digits", "123e4567-e89b-12d3-a456-426614174000", checkDuckUUID}
	// DuckDB's error for another character names the character, not the
	// value: checked here, it is blamed on the parameter.
	bit := typedForm{"as 0s and 1s only, at least one and no spaces", "10110", checkDuckBit}
	return map[string]typedForm{
		"BIT": bit, "BITSTRING": bit,
		"DATE":      date,
		"TIMESTAMP": ts, "DATETIME": ts, "TIMESTAMP_S": ts, "TIMESTAMP_MS": ts, "TIMESTAMP_US": ts,
		"TIMESTAMP_NS": ns,
		"TIMESTAMPTZ":  tstz, "TIMESTAMP_TZ": tstz,
		"TIME": tm, "TIMETZ": tmtz, "TIME_TZ": tmtz,
		"UUID": uuid,
	}
}()

// typedFormFor is the checked string form of the type t (upper case, without
// white space) in a model of eng, if it has one.
func typedFormFor(eng, t string) (typedForm, bool) {
	forms := duckForms
	if eng == catalog.EnginePostgres {
		forms = pgForms
	}
	f, ok := forms[typeKey(t)]
	return f, ok
}

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

// compactType is the SQL type t as the parameter checks compare it: upper
// case, without white space (interval day to second(3) is
// INTERVALDAYTOSECOND(3)). castType, which must keep the spaces a cast needs,
// reads t its own way.
func compactType(t string) string {
	return strings.ToUpper(strings.Join(strings.Fields(t), ""))
}

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

// checkTypedValue checks the string s, the value of p, against p's SQL type
// as the engine eng reads it: a DATE, TIMESTAMP, TIME or UUID in a form it
// reads, JSON text for a JSON parameter. (A DECIMAL's or NUMERIC's value is
// bindParam's to check, with decimalValue, before it comes here.)
func checkTypedValue(eng string, p catalog.Param, s string) error {
	pg := eng == catalog.EnginePostgres
	t := compactType(p.Type)
	if f, ok := typedFormFor(eng, t); ok {
		if why := f.check(s); why != "" {
			return fmt.Errorf("parameter %q must be a %s written %s (e.g. %q), got %s: %s", p.Name, p.Type, f.form, f.example, jsonText(s), why)
		}
	}
	if iv, list := isIntervalType(t); iv && !list {
		if decimalComma.MatchString(s) {
			// DuckDB refuses it; PostgreSQL reads the comma as a space
			// between fields ("1,5 hours" is 1 day 5 hours), which no
			// caller who wrote it means.
			return decimalCommaError(p, eng, s)
		}
		if why := intervalRange(eng, t, s); why != "" {
			return fmt.Errorf("parameter %q must be %s %s within its range (%s), got %s: %s; call again with one in range, written as %s", p.Name, typeArticle(p.Type), p.Type, intervalRangeText, jsonText(s), why, intervalForms(eng))
		}
	}
	if t == "JSON" || t == "JSONB" {
		why := ""
		switch {
		case !jsonValid(s, !pg):
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

// jsonValid reports whether s is JSON text, at any depth (encoding/json stops
// at 10000 levels, the engines do not), as the engine reads it: PostgreSQL
// RFC 8259's grammar; DuckDB (duck: its yyjson reader, with the flags DuckDB
// gives it) also NaN, Inf and Infinity in any case, a minus sign before them
// allowed, and a comma after the last element of an array or object.
func jsonValid(s string, duck bool) bool {
	r := jsonReader{s: s, duck: duck}
	return r.text()
}

// jsonReader reads JSON text: s[i:] is what is left, stack the arrays and
// objects open ('[' or '{').
type jsonReader struct {
	s     string
	i     int
	duck  bool
	stack []byte
}

func (r *jsonReader) space() {
	for r.i < len(r.s) && strings.IndexByte(" \t\n\r", r.s[r.i]) >= 0 {
		r.i++
	}
}

// next reports whether s[i:] begins with c, and if so skips it.
func (r *jsonReader) next(c byte) bool {
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		return true
	}
	return false
}

// text reads one value and then only spaces.
func (r *jsonReader) text() bool {
	r.space()
	for {
		if !r.value() {
			return false
		}
		// After a value: the end of its containers, or a comma and the next.
		for {
			r.space()
			if len(r.stack) == 0 {
				return r.i == len(r.s)
			}
			closer := byte(']')
			if r.stack[len(r.stack)-1] == '{' {
				closer = '}'
			}
			if r.next(closer) {
				r.stack = r.stack[:len(r.stack)-1]
				continue
			}
			if !r.next(',') {
				return false
			}
			r.space()
			if r.duck && r.next(closer) {
				r.stack = r.stack[:len(r.stack)-1]
				continue
			}
			if closer == '}' && !r.key() {
				return false
			}
			break
		}
	}
}

// key reads an object's key and its colon.
func (r *jsonReader) key() bool {
	if !r.str() {
		return false
	}
	r.space()
	if !r.next(':') {
		return false
	}
	r.space()
	return true
}

// value reads a value, or opens an array or object and reads up to its first
// value (an empty one it reads whole).
func (r *jsonReader) value() bool {
	for {
		if r.i >= len(r.s) {
			return false
		}
		c := r.s[r.i]
		if c != '[' && c != '{' {
			break
		}
		r.i++
		r.space()
		if r.next(c + 2) { // ']' is '[' + 2, '}' is '{' + 2
			return true
		}
		r.stack = append(r.stack, c)
		if c == '{' && !r.key() {
			return false
		}
	}
	rest := r.s[r.i:]
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(rest, lit) {
			r.i += len(lit)
			return true
		}
	}
	if rest[0] == '"' {
		return r.str()
	}
	return r.number()
}

// str reads a string: no control characters, escapes of JSON's.
func (r *jsonReader) str() bool {
	if !r.next('"') {
		return false
	}
	for r.i < len(r.s) {
		c := r.s[r.i]
		r.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if r.i >= len(r.s) {
				return false
			}
			e := r.s[r.i]
			r.i++
			if e == 'u' {
				if r.i+4 > len(r.s) {
					return false
				}
				for _, h := range []byte(r.s[r.i : r.i+4]) {
					if !isDigit(h) && (h|0x20 < 'a' || h|0x20 > 'f') {
						return false
					}
				}
				r.i += 4
			} else if strings.IndexByte(`"\/bfnrt`, e) < 0 {
				return false
			}
		}
	}
	return false
}

// number reads a number: an optional minus sign, an integer without leading
// zeros, an optional fraction and exponent; for DuckDB, NaN, Inf or Infinity
// (in any case) in its place.
func (r *jsonReader) number() bool {
	r.next('-')
	rest := strings.ToLower(r.s[r.i:min(r.i+len("infinity"), len(r.s))]) // not all that is left: once per number
	switch {
	case r.duck && strings.HasPrefix(rest, "infinity"):
		r.i += 8
		return true
	case r.duck && (strings.HasPrefix(rest, "inf") || strings.HasPrefix(rest, "nan")):
		r.i += 3
		return true
	}
	digits := func() bool {
		start := r.i
		for r.i < len(r.s) && isDigit(r.s[r.i]) {
			r.i++
		}
		return r.i > start
	}
	if !r.next('0') && !digits() {
		return false
	}
	if r.next('.') && !digits() {
		return false
	}
	if r.next('e') || r.next('E') {
		if !r.next('+') {
			r.next('-')
		}
		return digits()
	}
	return true
}

// jsonDepth is how deep the arrays and objects of JSON text s nest.
func jsonDepth(s string) int {
	depth, deepest, in := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// jsonHugeNumber reports whether JSON text s has a number of a thousand digits
// or more, or with an exponent of a thousand or more either way: past any
// double, and past PostgreSQL's numeric before long.
func jsonHugeNumber(s string) bool {
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case isDigit(c):
			j := i
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
				j++
			}
			if j-i > 1000 {
				return true
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				j++
				if j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}
				for j < len(s) && s[j] == '0' {
					j++
				}
				k := j
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				if k-j >= 4 {
					return true
				}
				j = k
			}
			i = j - 1
		}
	}
	return false
}

// jsonEscapes returns the \u escapes of the strings of valid JSON text s, in
// order, with -1 for what comes between two of them in a string (a character,
// another escape) and for the end of a string: a \u escape right after another
// in the same string follows it in the list.
func jsonEscapes(s string) []rune {
	var out []rune
	gap := func() {
		if len(out) > 0 && out[len(out)-1] != -1 {
			out = append(out, -1)
		}
	}
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			in = !in
			gap()
		case in && c == '\\' && s[i+1] == 'u':
			r, _ := strconv.ParseUint(s[i+2:i+6], 16, 32)
			out = append(out, rune(r))
			i += 5
		case in && c == '\\':
			gap() // another escape: \n, \\, \"
			i++
		case in:
			gap()
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

// checkDuckBit says what is wrong with v as DuckDB's BIT (BITSTRING), or "":
// DuckDB reads one or more of 0 and 1 and nothing else.
func checkDuckBit(v string) string {
	if v == "" {
		return "empty"
	}
	for i, c := range v {
		if c != '0' && c != '1' {
			return fmt.Sprintf("%q at character %d is not 0 or 1", c, utf8.RuneCountInString(v[:i])+1)
		}
	}
	return ""
}

// checkPGUUID says what is wrong with v as a UUID for PostgreSQL, or "".
func checkPGUUID(v string) string {
	if uuidPG.MatchString(v) {
		return ""
	}
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") != strings.HasSuffix(t, "}") {
		return "not a UUID (a brace opened or closed without the other)"
	}
	if strings.Contains(v, "-") {
		return "not a UUID (32 hexadecimal digits; PostgreSQL allows a hyphen only after a group of four digits)"
	}
	return "not a UUID (32 hexadecimal digits, in braces or not)"
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
// 24:00:00 as the end of the day, but nothing past it; and two fields before a
// fraction as minutes and seconds). Any other form is left to PostgreSQL.
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
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	if m[3] == "" && m[5] == "." {
		// Two fields and a fraction: minutes and seconds (25:59.5 is 00:25:59.5).
		switch {
		case a > 59:
			return fmt.Sprintf("there is no minute %d (two fields before a fraction are minutes and seconds)", a)
		case b > 60:
			return fmt.Sprintf("there is no second %d", b)
		}
		return ""
	}
	ss, _ := strconv.Atoi(m[3])
	// A second 60 is the next minute's 0 (with its fraction: 09:12:60.5 is
	// 09:13:00.5), the time past 24:00:00 refused. PostgreSQL rounds the
	// fraction to 6 digits: a nonzero digit among them is surely past it.
	past := a*3600+b*60+ss > 86400 || a*3600+b*60+ss == 86400 && fracNonzero(m[4], 6)
	switch {
	case a > 24 || a == 24 && past:
		return fmt.Sprintf("there is no hour %d", a)
	case b > 59:
		return fmt.Sprintf("there is no minute %d", b)
	case ss > 60:
		return fmt.Sprintf("there is no second %d", ss)
	case past:
		return fmt.Sprintf("%s:%s:%s is past 24:00:00", m[1], m[2], strings.TrimSuffix(m[3]+m[4], "."))
	}
	return ""
}

// A DECIMAL or NUMERIC parameter's value is decimal text: a JSON number's text
// as the call wrote it, or a string (decimalForm). It is never a float64, which
// would keep about 16 digits. For a type with a precision (and DuckDB's
// DECIMAL, which is DECIMAL(18,3)), the value is rounded to the type's scale
// half away from zero, as both engines round decimal text (DuckDB: 1.125 is
// 1.13, 9.995 does not fit DECIMAL(3,2); PostgreSQL the same), exactly, and
// bound as the rounded text ("1.13"), which the query's cast reads unchanged.
// The server applies an exponent itself: DuckDB's own cast reads 15e-1 as too
// wide for DECIMAL(3,2) and 5e-5 as 0.001 in DECIMAL(18,3), and PostgreSQL's
// refuses 1e-20000 for any NUMERIC. PostgreSQL's NUMERIC without a precision
// takes the text as written, which PostgreSQL reads exactly, within its limits
// (pgNumericLimits).

// decimalForm is the decimal text both engines read as a number, as the server
// takes it: a sign if any, digits with a decimal point among, before or after
// them if any, and an exponent (e or E, a sign if any, digits) if any. No
// spaces, no NaN or Infinity.
var decimalForm = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$`)

// isDecimalType reports whether t is DECIMAL or NUMERIC, with a precision or not.
func isDecimalType(t string) bool {
	return decimalType.MatchString(compactType(t))
}

// decimalBounds returns the precision and scale of the decimal type t on the
// engine eng; bounded is false for PostgreSQL's NUMERIC without a precision,
// and valid false for a precision or scale the engine has no type for (then the
// query fails as the catalog's fault, and the value is not checked).
func decimalBounds(eng, t string) (prec, scale int, bounded, valid bool) {
	m := decimalType.FindStringSubmatch(compactType(t))
	if m == nil {
		return 0, 0, false, false
	}
	if m[1] == "" {
		if eng == catalog.EnginePostgres {
			return 0, 0, false, true
		}
		return 18, 3, true, true // DuckDB's DECIMAL
	}
	prec, err1 := strconv.Atoi(m[1])
	if m[2] != "" {
		var err error
		scale, err = strconv.Atoi(m[2])
		err1 = errors.Join(err1, err)
	}
	if eng == catalog.EnginePostgres {
		// PostgreSQL 15 takes a scale past the precision: NUMERIC(2,5) holds
		// values below 0.001.
		return prec, scale, true, err1 == nil && prec >= 1 && prec <= 1000 && scale <= 1000
	}
	return prec, scale, true, err1 == nil && prec >= 1 && prec <= 38 && scale <= prec
}

// decimal is decimal text read: the value is digits × 10^exp (digits without
// leading zeros, "" for zero), negative if neg; frac is the number of digits
// after the point as written and e the exponent as written.
type decimal struct {
	neg    bool
	digits string
	exp, e int64
	frac   int
}

// maxDecimalExp is past any exponent either engine takes: an exponent beyond
// it is read as it (1e99999999999999999999 is too wide, its inverse 0).
const maxDecimalExp = 1 << 40

// parseDecimal reads s in decimalForm.
func parseDecimal(s string) (decimal, bool) {
	m := decimalForm.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return decimal{}, false
	}
	d := decimal{neg: m[1] == "-", frac: len(m[3])}
	if m[4] != "" {
		e, err := strconv.ParseInt(m[4], 10, 64)
		if err != nil || e > maxDecimalExp || e < -maxDecimalExp {
			e = maxDecimalExp
			if strings.HasPrefix(m[4], "-") {
				e = -maxDecimalExp
			}
		}
		d.e = e
	}
	d.digits = strings.TrimLeft(m[2]+m[3], "0")
	d.exp = d.e - int64(len(m[3]))
	return d, true
}

// round returns d rounded to scale decimals half away from zero, as an integer
// n of units of 10^-scale, its sign apart; wide is true (and n nil) when n has
// more than prec digits (what is cut is digits past the first dropped one).
func (d decimal) round(prec, scale int) (n *big.Int, wide bool) {
	if d.digits == "" {
		return new(big.Int), false
	}
	shift := d.exp + int64(scale)
	if shift >= 0 {
		if int64(len(d.digits))+shift > int64(prec) {
			return nil, true
		}
		n, _ = new(big.Int).SetString(d.digits+strings.Repeat("0", int(shift)), 10)
		return n, false
	}
	drop := -shift
	if drop > int64(len(d.digits)) {
		return new(big.Int), false // the first digit dropped is a 0
	}
	kept := d.digits[:int64(len(d.digits))-drop]
	if len(kept) > prec {
		return nil, true
	}
	n = new(big.Int)
	if kept != "" {
		n.SetString(kept, 10)
	}
	if d.digits[len(kept)] >= '5' {
		n.Add(n, big.NewInt(1))
	}
	if len(n.String()) > prec {
		return nil, true
	}
	return n, false
}

// scaledText is the decimal text of n units of 10^-scale, negative if neg.
func scaledText(n *big.Int, scale int, neg bool) string {
	return engine.ScaledDigits(n.String(), scale, neg && n.Sign() != 0)
}

// PostgreSQL's numeric holds at most 131072 digits before the point and 16383
// after, and reads an exponent only below 2^30 - 1 either way (even on 0).
const (
	pgNumericWhole = 131072
	pgNumericScale = 16383
	pgNumericExp   = 1<<30 - 1
)

// decimalValue checks text, a DECIMAL or NUMERIC value of p, as the engine
// eng reads it, and returns the text bound for it: rounded to the type's scale
// (see above), or for PostgreSQL's NUMERIC without a precision as written.
func decimalValue(eng string, p catalog.Param, v any) (string, error) {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = string(x)
	case float64:
		text = strconv.FormatFloat(x, 'g', -1, 64)
	}
	d, ok := parseDecimal(text)
	if !ok {
		return "", fmt.Errorf("parameter %q must be a number (%s): a JSON number, or a string of a decimal number (an optional sign, digits with an optional decimal point, an optional exponent: \"-1234.5678\", \"1.5e3\"; a string keeps digits that not every client sends exactly as a number); got %s", p.Name, p.Type, givenKind(v))
	}
	prec, scale, bounded, valid := decimalBounds(eng, p.Type)
	if !valid {
		return text, nil // the engine refuses the type
	}
	if !bounded {
		// PostgreSQL's NUMERIC: its limits.
		why := ""
		switch dscale := int64(d.frac) - d.e; {
		case d.e >= pgNumericExp || d.e <= -pgNumericExp:
			why = fmt.Sprintf("PostgreSQL reads an exponent only between -%d and %d", pgNumericExp-1, pgNumericExp-1)
		case d.digits != "" && int64(len(d.digits))+d.exp > pgNumericWhole:
			why = fmt.Sprintf("PostgreSQL's numeric holds at most %d digits before the decimal point", pgNumericWhole)
		case dscale > pgNumericScale:
			why = fmt.Sprintf("PostgreSQL's numeric holds at most %d digits after the decimal point (as written, less the exponent)", pgNumericScale)
		}
		if why != "" {
			return "", fmt.Errorf("parameter %q must be a number PostgreSQL's numeric holds (%s), got %s: %s", p.Name, p.Type, jsonText(v), why)
		}
		return text, nil
	}
	n, wide := d.round(prec, scale)
	if wide {
		typ := p.Type
		if !strings.Contains(p.Type, "(") { // DECIMAL alone
			typ += ", DuckDB's DECIMAL(18,3)"
		}
		if scale > prec {
			return "", fmt.Errorf("parameter %q must be a number below %s in magnitude once rounded to %d decimals (%s), got %s", p.Name, "0."+strings.Repeat("0", scale-prec-1)+"1", scale, typ, jsonText(v))
		}
		// The largest value the type holds, or its bound when that is long.
		whole := "0"
		if prec > scale {
			whole = strings.Repeat("9", prec-scale)
		}
		ex := "the largest it holds is " + whole
		if scale > 0 {
			ex += "." + strings.Repeat("9", scale)
		}
		if prec > 24 {
			ex = fmt.Sprintf("it holds numbers below 1e%d", prec-scale)
		}
		return "", fmt.Errorf("parameter %q must be a number with at most %s before the decimal point once rounded to %d decimals (%s), got %s; %s", p.Name, countOf(prec-scale, "digit", "digits"), scale, typ, jsonText(v), ex)
	}
	return scaledText(n, scale, d.neg), nil
}

// countOf is n with the noun for one or for many: "1 digit", "2 digits".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
