package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// A named query's parameters are bound as their declared types: each
// placeholder of a declared parameter in the query's SQL ($day for DuckDB, @day
// for PostgreSQL) runs as (CAST($day AS DATE)), so the engine types the value as
// the catalog declares it wherever the SQL uses it ($day + 1 is a DATE plus
// days, a DECIMAL(5,2) is rounded to 2 decimals, a column that is the parameter
// is a DATE column). The cast is in parentheses: PostgreSQL refuses
// CAST(x AS int[])[1]. Errors the engine reports at a position of the text it
// ran are told at the position of the author's text (a position inside a cast
// is the placeholder's), and DuckDB's excerpt of the SQL is the author's.
//
// Values are sent to the engine in forms it casts exactly: integers as 64-bit
// integers, or as their decimal digits past that range; a DECIMAL as its
// decimal text, rounded to its scale (decimalValue); a list as JSON text
// (DuckDB: cast to JSON, then to the list type) or as an array literal
// (PostgreSQL).

// paramValues are the parameters of an execute_query call, decoded with their
// numbers as written (json.Number): 18446744073709551615 stays that number, and
// 1e400 is a number out of range rather than arguments Go could not decode.
type paramValues map[string]any

func (p *paramValues) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*p = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	*p = m
	return nil
}

// castable matches the declared types that the SQL may cast to as written: a
// name, a precision or two, list brackets (DECIMAL(5,2), INTEGER[], INTEGER[3]).
// A type of another form (MAP(VARCHAR,INTEGER)) is bound as before, uncast.
var castable = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*(?:\(\d+(?:,\d+)?\))?(?:\[\d*\])*$`)

// longTypeNames are SQL's type names of several words that castType writes as
// one both DuckDB and PostgreSQL read (the time types' are read by
// timeTypeName once their spaces are gone).
var longTypeNames = map[string]string{
	"DOUBLE PRECISION":  "FLOAT8",
	"CHARACTER VARYING": "VARCHAR",
	"CHAR VARYING":      "VARCHAR",
}

// castType is the type a parameter declared as t is cast to: t itself, but
// PostgreSQL's serial pseudo-types, which are no types, as the integers they
// are, and a long time type name (TIMESTAMPWITHTIMEZONE) as its short one; ""
// when t is not cast.
func castType(t string) string {
	t = strings.ToUpper(strings.Join(strings.Fields(t), " "))
	// SQL's longer names, as one word both engines read.
	for long, short := range longTypeNames {
		if rest, ok := strings.CutPrefix(t, long); ok && (rest == "" || rest[0] == '(' || rest[0] == '[' || rest[0] == ' ') {
			t = short + rest
		}
	}
	t = spaceAround.ReplaceAllString(t, "$1") // DECIMAL (10, 2), INTEGER []
	base, dims := t, ""
	if i := strings.IndexByte(t, '['); i >= 0 {
		base, dims = t[:i], t[i:]
	}
	if m := longTime.FindStringSubmatch(base); m != nil {
		// TIMESTAMP(3) WITH TIME ZONE is TIMESTAMPTZ(3), its precision kept.
		base = m[1] + m[2]
		if m[3] == "WITH" {
			base = m[1] + "TZ" + m[2]
		}
	}
	if hasIntervalFields(base) {
		return base + dims // INTERVAL DAY TO SECOND(3), as PostgreSQL reads it
	}
	if strings.Contains(base, " ") {
		return "" // words of another type (BIT VARYING)
	}
	if m := timeTypeName.FindStringSubmatch(base); m != nil && m[2] != "" && m[2] != "TZ" {
		base = typeKey(base) // TIMESTAMPWITHTIMEZONE, written as one word
	}
	switch base {
	case "SERIAL", "SERIAL4":
		base = "INTEGER"
	case "BIGSERIAL", "SERIAL8":
		base = "BIGINT"
	case "SMALLSERIAL", "SERIAL2":
		base = "SMALLINT"
	}
	if !castable.MatchString(base + dims) {
		return ""
	}
	return base + dims
}

// duckCastType is castType for DuckDB, which takes no precision on TIME,
// TIMETZ, TIMESTAMPTZ or INTERVAL (PostgreSQL does): the cast is to the type
// without it (TIMESTAMP(3) keeps it: DuckDB reads it as TIMESTAMP_MS).
func duckCastType(t string) string {
	return duckPrecision(castType(t))
}

// duckPrecision is the cast type ct without the precision DuckDB does not
// take (duckCastType).
func duckPrecision(ct string) string {
	if rest, ok := strings.CutPrefix(ct, "INTERVAL "); ok {
		// PostgreSQL's fields (duckIntervalFields): a plain INTERVAL.
		_, dims, _ := strings.Cut(rest, "[")
		return "INTERVAL" + strings.TrimSuffix("["+dims, "[")
	}
	if m := duckNoPrecision.FindStringSubmatch(ct); m != nil {
		return m[1] + m[2]
	}
	return ct
}

var (
	// duckNoPrecision is a cast type DuckDB takes without its precision.
	duckNoPrecision = regexp.MustCompile(`^(TIME|TIMETZ|TIMESTAMPTZ|INTERVAL)\(\d+\)((?:\[\d*\])*)$`)
	// spaceAround is white space around a type's parentheses, commas and
	// brackets, which castType drops.
	spaceAround = regexp.MustCompile(`\s*([(),\[\]])\s*`)
	// longTime is SQL's longer name of a time type, its precision kept.
	longTime = regexp.MustCompile(`^(TIMESTAMP|TIME)(\(\d+\))? ?(WITH|WITHOUT) TIME ZONE$`)
)

// listElem returns the element type of a list type (INTEGER[] and INTEGER[3]
// are lists of INTEGER, INTEGER[][] of INTEGER[]), the fixed size n of DuckDB's
// ARRAY type T[n] (-1 for a list of any size), and false for another type.
func listElem(t string) (elem string, size int, ok bool) {
	t = strings.ToUpper(strings.TrimSpace(t))
	if !strings.HasSuffix(t, "]") {
		return "", 0, false
	}
	i := strings.LastIndexByte(t, '[')
	if i <= 0 {
		return "", 0, false
	}
	size = -1
	if in := t[i+1 : len(t)-1]; in != "" {
		n, err := strconv.Atoi(in)
		if err != nil {
			return "", 0, false
		}
		size = n
	}
	return t[:i], size, true
}

// listBase is the element type of the innermost lists of the list type t
// (DATE of DATE[][]) and how deeply they nest.
func listBase(t string) (base string, depth int) {
	for {
		elem, _, ok := listElem(t)
		if !ok {
			return t, depth
		}
		t, depth = elem, depth+1
	}
}

// typedSQL is a named query's SQL with its parameters cast to their types.
type typedSQL struct {
	text   string
	pieces []castPiece // in order of the text
}

// castPiece is one placeholder replaced by its cast: where it was (orig, in
// characters from 0, and its length) and where the cast is in the text run.
type castPiece struct {
	param              string
	orig, origLen      int
	at, length         int
	shown, placeholder string // the cast as run, and the placeholder as written
}

// castParams returns q's SQL for the engine eng with each placeholder of a
// declared parameter of a castable type wrapped in a cast to it. For DuckDB, a
// list is cast from JSON (its value is JSON text).
//
// DuckDB reads parameter names without regard to case, and binds a value to
// the name as the statement first writes it: a placeholder written in another
// case than its @param line ($ab for Ab) runs as the declared name ($Ab), so
// the value given for Ab is bound to every use (two names differing only in
// case are the catalog's fault, catalog.ParamCaseClash).
func castParams(q *catalog.Query, eng string) *typedSQL {
	declared := map[string]catalog.Param{}
	for _, p := range q.Params {
		declared[catalog.ParamKey(p.Name, eng)] = p
	}
	ts := &typedSQL{}
	var b strings.Builder
	last, origChars, outChars := 0, 0, 0
	for _, ph := range catalog.PlaceholderSpans(q.SQL, eng) {
		p, ok := declared[catalog.ParamKey(ph.Name, eng)]
		if !ok {
			continue
		}
		written := q.SQL[ph.Start:ph.End]
		run := catalog.ParamSign(eng) + p.Name // the placeholder as run
		ct := castType(p.Type)
		if eng != catalog.EnginePostgres {
			ct = duckPrecision(ct)
		}
		if ct == "" && run == written {
			continue
		}
		inner := run
		if _, _, list := listElem(ct); list && eng != catalog.EnginePostgres {
			inner = "CAST(" + run + " AS JSON)"
			if base, depth := listBase(ct); (catalog.Param{Type: base}).JSONType() == "string" {
				// Elements written as strings are each read from VARCHAR, as a
				// single value is (DuckDB's cast from JSON to TIMESTAMPTZ
				// knows no time zone by name).
				inner = "CAST(" + inner + " AS VARCHAR" + strings.Repeat("[]", depth) + ")"
			}
		}
		cast := run // bound uncast, under the declared name
		if ct != "" {
			cast = "(CAST(" + inner + " AS " + ct + "))"
		}
		before := utf8.RuneCountInString(q.SQL[last:ph.Start])
		origChars += before
		outChars += before
		b.WriteString(q.SQL[last:ph.Start])
		ts.pieces = append(ts.pieces, castPiece{param: p.Name, orig: origChars, origLen: len(written), at: outChars, length: len(cast), shown: cast, placeholder: written})
		b.WriteString(cast)
		origChars += len(written) // ASCII
		outChars += len(cast)
		last = ph.End
	}
	b.WriteString(q.SQL[last:])
	ts.text = b.String()
	return ts
}

// duckTypedText is the text q runs as on DuckDB, its parameters cast to their
// declared types, and the mapping of a position in it back to q.SQL (the
// engine's check of named queries when a model opens).
func duckTypedText(q *catalog.Query) (string, func(int) int) {
	ts := castParams(q, catalog.EngineDuckDB)
	return ts.text, func(pos int) int {
		p, _ := ts.origPosition(pos)
		return p
	}
}

// pgTypedText is the text q runs as on PostgreSQL, its parameters cast to
// their declared types (still written @name), and the mapping of a position in
// it back to q.SQL, with the parameter whose cast holds it (the engine's check
// of named queries when a model opens).
func pgTypedText(q *catalog.Query) (string, func(int) (int, string)) {
	ts := castParams(q, catalog.EnginePostgres)
	return ts.text, ts.origPosition
}

// origPosition maps a 1-based character position in the text run to the
// author's text; a position inside a cast is its placeholder's. It also returns
// the parameter whose cast holds the position ("" for none).
func (ts *typedSQL) origPosition(pos int) (int, string) {
	if pos <= 0 {
		return pos, ""
	}
	p := pos - 1
	shift := 0
	for _, pc := range ts.pieces {
		switch {
		case p < pc.at:
			return p - shift + 1, ""
		case p < pc.at+pc.length:
			return pc.orig + 1, pc.param
		}
		shift += pc.length - pc.origLen
	}
	return p - shift + 1, ""
}

// restore turns an engine error about the text run into one about the
// author's text: its position, and DuckDB's excerpt of the SQL (the casts
// shown as the placeholders they replace, the caret under the same
// character). It also returns the parameter whose cast the error's position
// falls in.
func (ts *typedSQL) restore(err error) (error, string) {
	var se *engine.SQLError
	if ts == nil || len(ts.pieces) == 0 || !errors.As(err, &se) {
		return err, ""
	}
	out := *se
	var param string
	out.Position, param = ts.origPosition(se.Position)
	out.Message = ts.restoreExcerpt(se.Message)
	if param != "" {
		// DuckDB's note on its JSON reader, about a list cast from JSON text:
		// the query reads no JSON file.
		out.Message = strings.Replace(out.Message, duckJSONNote, "", 1)
	}
	return &out, param
}

const duckJSONNote = "\n If this error occurred during read_json, line/object number information is approximate"

// restoreExcerpt replaces the casts in DuckDB's excerpt of the SQL ("LINE n:
// …" and a caret line under it) by their placeholders, moving the caret with
// the text before it; a caret inside a cast goes under its placeholder.
func (ts *typedSQL) restoreExcerpt(msg string) string {
	lines := strings.Split(msg, "\n")
	i := engine.ExcerptLine(lines) // not a line of a value the message quotes
	if i < 0 {
		return msg
	}
	l := lines[i]
	m := excerptLine.FindStringIndex(l)
	if m == nil {
		return msg
	}
	caret := -1
	if i+1 < len(lines) && strings.Trim(lines[i+1], " ") == "^" {
		caret = strings.IndexByte(lines[i+1], '^')
	}
	shown := l
	// replace puts placeholder for the n bytes of a cast at k, moving the
	// caret (which counts columns; a cast is ASCII, a column a byte): one
	// inside the cast goes under the placeholder.
	replace := func(k, n int, placeholder string) {
		shown = shown[:k] + placeholder + shown[k+n:]
		switch {
		case caret >= k+n:
			caret -= n - len(placeholder)
		case caret >= k:
			caret = k
		}
	}
	for _, pc := range ts.pieces {
		for from := m[1]; ; {
			k := strings.Index(shown[from:], pc.shown)
			if k < 0 {
				break
			}
			replace(from+k, len(pc.shown), pc.placeholder)
			from += k + len(pc.placeholder)
		}
	}
	// DuckDB cuts a long line at either end ("...") around the error, maybe
	// inside a cast: the part of it shown stands for its placeholder too.
	if body, cut := strings.CutSuffix(shown, "..."); cut {
		// The line ends inside a cast: its start that is shown.
	ends:
		for _, pc := range ts.pieces {
			for n := len(pc.shown) - 1; n > len("(CAST("); n-- {
				if strings.HasSuffix(body, pc.shown[:n]) {
					replace(len(body)-n, n, pc.placeholder)
					break ends
				}
			}
		}
	}
	if start := m[1] + len("..."); strings.HasPrefix(shown[m[1]:], "...") {
		// The line starts inside a cast: its end that is shown, from its
		// last " AS " at least.
	starts:
		for _, pc := range ts.pieces {
			for n := len(pc.shown) - 1; n > 0; n-- {
				tail := pc.shown[len(pc.shown)-n:]
				if !strings.Contains(tail, " AS ") {
					break
				}
				if strings.HasPrefix(shown[start:], tail) {
					replace(start, n, pc.placeholder)
					break starts
				}
			}
		}
	}
	lines[i] = shown
	if caret >= 0 {
		lines[i+1] = strings.Repeat(" ", caret) + "^"
	}
	return strings.Join(lines, "\n")
}

// typeArticle is "a" or "an" before the type name t as it is read aloud (an
// INTERVAL, a UUID, a DATE).
func typeArticle(t string) string {
	if t != "" && strings.ContainsRune("AEIOaeio", rune(t[0])) {
		return "an"
	}
	return "a"
}

// maxIntDigits is more digits than any integer type's values have (2^128 has
// 39): a number with more is out of every range, and not computed.
const maxIntDigits = 40

// digitsForm is a string parameter's integer: digits, a minus sign if any.
var digitsForm = regexp.MustCompile(`^-?\d+$`)

// exactInt returns the integer the decimal text s denotes (a JSON number:
// 42, 4.2e1, 1e3; or digits with an optional minus sign), in one pass over s:
// its digits without leading zeros times ten to its exponent, as parseDecimal
// reads it (an exponent past ±maxDecimalExp is read as that). ok is false when
// s is not a JSON number (no plus sign, digits on both sides of a point) or
// has a fraction; huge is true when it is past maxIntDigits digits.
func exactInt(s string) (n *big.Int, ok, huge bool) {
	i := 0
	neg := strings.HasPrefix(s, "-")
	if neg {
		i++
	}
	digitRun := func() string { // the ASCII digits at i, at least one
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		run := s[i:j]
		i = j
		return run
	}
	whole := digitRun()
	if whole == "" {
		return nil, false, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		if frac = digitRun(); frac == "" {
			return nil, false, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		run := digitRun()
		if run == "" {
			return nil, false, false
		}
		e, _ = strconv.ParseInt(run, 10, 64)
		if len(strings.TrimLeft(run, "0")) > 13 || e > maxDecimalExp {
			e = maxDecimalExp // past 2^40 (13 digits), and past int64: read as the bound
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return nil, false, false
	}
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return new(big.Int), true, false
	}
	exp := e - int64(len(frac))
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return nil, false, false
	}
	if int64(len(digits))+exp > maxIntDigits {
		return nil, true, true
	}
	n, _ = new(big.Int).SetString(digits+strings.Repeat("0", int(exp)), 10)
	if neg {
		n.Neg(n)
	}
	return n, true, false
}

// maxFloatText is how long the text of a DOUBLE's or REAL's value may be: the
// longest exact decimal form of a double (2^-1074 written out) has 1077
// characters. Go's reader stops counting an exponent past 10000, which a
// longer text could offset with leading zeros ("0.000…1e2000001", 1, read
// as 0); within the bound such an exponent is past any double either way.
const maxFloatText = 1100

// number returns v as a float64 when it is a JSON number, and its text.
func number(v any) (f float64, text string, ok bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, "", false
		}
		return f, string(x), true
	case float64:
		return x, strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return 0, "", false
}

// bindParam checks the value v the call gave p (already known to be present)
// and returns it as it is bound for the engine eng: an integer as an int64 (or
// its digits past that range), a DECIMAL as decimal text (decimalValue), a
// DOUBLE or REAL as a float64, a boolean, a string, a list as text its cast
// reads (castParams). A null is the caller's fault; then a declaration no
// value can be bound to (paramFault) is the catalog's, told before the value
// is read.
func bindParam(eng string, p catalog.Param, v any) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("parameter %q must be %s %s, got null: parameters take no nulls (the query's SQL decides what a missing value means)", p.Name, typeArticle(p.Type), p.Type)
	}
	if why := paramFault(eng, p); why != "" {
		return nil, &catalogFaultError{fmt.Errorf("parameter %q cannot be bound, so no call can run this query: %s", p.Name, why)}
	}
	return bindValue(eng, p, v)
}

// paramFault says why no value can be bound to the parameter p of a package
// of engine eng, and what the catalog's author writes instead; "" when one
// can. It is the one rule both the model's load (addParamChecks) and a call
// (bindParam) apply, once per parameter (a list's elements are not asked
// again: their innermost type is the list's). Checked in this order, the
// first problem told: a list of a type the server does not cast
// (uncastList), then PostgreSQL's interval fields in a DuckDB package
// (duckIntervalFields). The two never both apply (a type with interval
// fields is cast), so the order changes no message.
func paramFault(eng string, p catalog.Param) string {
	if why := uncastList(eng, p); why != "" {
		return why
	}
	return duckIntervalFields(eng, p)
}

// bindValue is bindParam for a value known to be present whose declaration
// paramFault passed. An element of a list is checked as a parameter named
// after its place ("ids[1]").
func bindValue(eng string, p catalog.Param, v any) (any, error) {
	if _, _, ok := listElem(p.Type); ok {
		return bindList(eng, p, v)
	}
	if lo, hi, isInt := p.IntBounds(); isInt {
		return bindInt(p, v, lo, hi)
	}
	if isDecimalType(p.Type) {
		// A JSON number's text as written, or a string of one: never a float64.
		text, err := decimalValue(eng, p, v)
		if err != nil {
			return nil, err
		}
		return text, nil
	}
	switch p.JSONType() {
	case "number":
		f, text, ok := number(v)
		if !ok {
			return nil, wrongKind(eng, p, "number", v)
		}
		t := compactType(p.Type)
		single := t == "REAL" || t == "FLOAT4" || t == "FLOAT" && eng != catalog.EnginePostgres
		switch {
		case len(text) > maxFloatText:
			return nil, fmt.Errorf("parameter %q must be a number (%s) written in at most %d characters, got one of %d: write it with an exponent (1.5e-300)", p.Name, p.Type, maxFloatText, len(text))
		case math.IsInf(f, 0):
			return nil, fmt.Errorf("parameter %q must be a number (%s), and %s is out of range: a number's magnitude is at most about 1.8e308", p.Name, p.Type, text)
		case single && math.Abs(f) > math.MaxFloat32:
			return nil, fmt.Errorf("parameter %q must be a number (%s), and %s is out of range: a %s's magnitude is at most about 3.4e38", p.Name, p.Type, text, p.Type)
		case single && f != 0 && float32(f) == 0, f == 0 && nonZeroText(text):
			// Too small for the type, it would be bound as 0: PostgreSQL
			// refuses it ("out of range"), and 0 is not what was asked for.
			// The denormals, down to the smallest, are numbers of the type.
			least := "4.9e-324"
			if single {
				least = "1.4e-45"
			}
			return nil, fmt.Errorf("parameter %q must be a number (%s), and %s is out of range: a %s other than 0 has a magnitude of at least about %s (0 is written 0)", p.Name, p.Type, text, p.Type, least)
		}
		return f, nil
	case "boolean":
		if _, ok := v.(bool); !ok {
			return nil, wrongKind(eng, p, "boolean", v)
		}
		return v, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, wrongKind(eng, p, "string", v)
	}
	if err := checkTypedValue(eng, p, s); err != nil {
		return nil, err
	}
	if n, char, ok := pgLength(eng, p.Type); ok {
		// PostgreSQL's cast to varchar(n) or char(n) cuts a longer value short
		// without a word, and a query would match the shorter text.
		c := s
		if char {
			c = strings.TrimRight(s, " ") // char(n) drops trailing spaces
		}
		if got := utf8.RuneCountInString(c); got > n {
			return nil, fmt.Errorf("parameter %q must be at most %d characters (%s), got %d: PostgreSQL's cast would cut it to its first %d", p.Name, n, p.Type, got, n)
		}
	}
	if n, fixed, ok := pgBitLength(eng, p.Type); ok {
		// PostgreSQL's cast to bit(n) pads a shorter string with zeros, and its
		// casts to bit(n) and varbit(n) cut a longer one, without a word.
		if got, ok := bitCount(s); ok && (got > n || fixed && got != n) {
			bits := strconv.Itoa(n) + " bits"
			if n == 1 {
				bits = "1 bit"
			}
			if fixed {
				return nil, fmt.Errorf("parameter %q must be exactly %s (%s), got %d: PostgreSQL's cast would pad or cut it to %d without a word", p.Name, bits, p.Type, got, n)
			}
			return nil, fmt.Errorf("parameter %q must be at most %s (%s), got %d: PostgreSQL's cast would cut it to its first %d", p.Name, bits, p.Type, got, n)
		}
	}
	if eng == catalog.EnginePostgres && strings.EqualFold(strings.TrimSpace(p.Type), "NAME") && len(s) > pgNameBytes {
		// A name is cut to its first 63 bytes without a word, as char(n).
		return nil, fmt.Errorf("parameter %q must be at most %d bytes (%s), got %d: PostgreSQL's cast would cut it short", p.Name, pgNameBytes, p.Type, len(s))
	}
	if eng == catalog.EnginePostgres && strings.IndexByte(s, 0) >= 0 {
		// PostgreSQL's text holds no NUL: its refusal would read as the SQL's.
		return nil, fmt.Errorf("parameter %q must be text without a NUL character (\\u0000), which PostgreSQL's text cannot hold; got %s", p.Name, jsonText(s))
	}
	if iv, list := isIntervalType(compactType(p.Type)); iv && !list && eng != catalog.EnginePostgres {
		// DuckDB's reader refuses the time of day it writes for many hours.
		return duckIntervalBind(s), nil
	}
	return s, nil
}

// bindInt checks an integer parameter's value, a JSON number without a
// fraction or a string of decimal digits, against its type's range exactly.
func bindInt(p catalog.Param, v any, lo, hi *big.Int) (any, error) {
	var n *big.Int
	var ok, huge bool
	switch x := v.(type) {
	case string:
		if digitsForm.MatchString(x) {
			n, ok, huge = exactInt(x)
		}
	default:
		if _, text, isNum := number(v); isNum {
			n, ok, huge = exactInt(text)
		}
	}
	switch {
	case !ok && !huge:
		return nil, fmt.Errorf("parameter %q must be an integer (%s): a JSON number without a fraction (42), or a string of decimal digits (\"42\", for values past ±2^53, which not every client sends exactly as a number); got %s", p.Name, p.Type, givenKind(v))
	case huge || n.Cmp(lo) < 0 || n.Cmp(hi) > 0:
		return nil, fmt.Errorf("parameter %q must be an integer from %s to %s (%s), got %v", p.Name, lo, hi, p.Type, jsonText(v))
	case n.IsInt64():
		return n.Int64(), nil
	}
	return n.String(), nil // cast from its digits by the engine
}

// uncastList says why the list parameter p of a package of engine eng cannot
// be bound, and what the catalog's author writes instead: its element type is
// not one castParams casts to (STRUCT(a INTEGER)[], ENUM('a','b')[]), so its
// value would reach the engine as text, not as a list. "" when p is not such
// a list. Told when the model loads and when the query is called.
func uncastList(eng string, p catalog.Param) string {
	if _, _, ok := listElem(p.Type); !ok || castType(p.Type) != "" {
		return ""
	}
	_, depth := listBase(p.Type)
	base := listBrackets.ReplaceAllString(p.Type, "") // as written, not upper-cased
	sign := catalog.ParamSign(eng)
	upper := strings.ToUpper(base)
	var instead, value string
	switch {
	case eng == catalog.EnginePostgres:
		instead, value = "TEXT"+strings.Repeat("[]", depth), `["a", "b"]`
	case strings.HasPrefix(upper, "STRUCT") || strings.HasPrefix(upper, "MAP") || strings.HasPrefix(upper, "UNION") || strings.HasPrefix(upper, "ROW"):
		instead, value = "JSON", `"[{\"a\": 1}]"`
	default:
		instead, value = "VARCHAR"+strings.Repeat("[]", depth), `["a", "b"]`
	}
	return fmt.Sprintf("@param %s %s is a list of %s, a type the server does not cast a value to (only a name with an optional precision, and list brackets: INTEGER[], DECIMAL(5,2)[]), so its value would reach the engine as text, not as a list; declare it as %s (a call gives %s) and convert it in the SQL: CAST(%s%s AS %s)", p.Name, p.Type, base, instead, value, sign, p.Name, p.Type)
}

// listBrackets are the list brackets at the end of a type.
var listBrackets = regexp.MustCompile(`(?:\s*\[\s*\d*\s*\])+\s*$`)

// maxListDepth is how deeply list types may nest in a parameter's type.
const maxListDepth = 8

// bindList checks the value of p, a list parameter: a JSON array whose
// elements are each checked as a parameter of the element type (and, for
// DuckDB's T[n], n elements), and returns the text its cast reads: JSON for
// DuckDB, an array literal for PostgreSQL.
func bindList(eng string, p catalog.Param, v any) (any, error) {
	pg := eng == catalog.EnginePostgres
	var b strings.Builder
	var dims []int // PostgreSQL: the length of the arrays at each depth
	var walk func(name, typ string, v any, depth int) error
	walk = func(name, typ string, v any, depth int) error {
		elem, size, _ := listElem(typ)
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("parameter %q must be a list of %s (%s): a JSON array such as %s; got %v", name, elem, typ, listExample(elem), jsonText(v))
		}
		if !pg && size >= 0 && len(arr) != size {
			return fmt.Errorf("parameter %q must be a list of exactly %d %s values (%s), got %d: %v", name, size, elem, typ, len(arr), jsonText(v))
		}
		if depth >= maxListDepth {
			return fmt.Errorf("parameter %q: lists nest at most %d deep", name, maxListDepth)
		}
		if pg {
			// PostgreSQL's arrays are rectangular: every array at one depth has
			// the same length.
			if depth == len(dims) {
				dims = append(dims, len(arr))
			} else if dims[depth] != len(arr) {
				return fmt.Errorf("parameter %q must be a list of lists of one length (PostgreSQL's arrays of arrays are rectangular), got lists of %d and %d elements", p.Name, dims[depth], len(arr))
			}
			b.WriteByte('{')
		} else {
			b.WriteByte('[')
		}
		for i, x := range arr {
			if i > 0 {
				b.WriteByte(',')
			}
			en := fmt.Sprintf("%s[%d]", name, i)
			if x == nil {
				return fmt.Errorf("parameter %q (an element of the list %s) is null: lists take no nulls", en, name)
			}
			if _, _, nested := listElem(elem); nested {
				if err := walk(en, elem, x, depth+1); err != nil {
					return err
				}
				continue
			}
			bv, err := bindValue(eng, catalog.Param{Name: en, Type: elem}, x)
			if err != nil {
				return err
			}
			writeListElem(&b, pg, bv)
		}
		if pg {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
		return nil
	}
	if err := walk(p.Name, strings.ToUpper(p.Type), v, 0); err != nil {
		return nil, err
	}
	return b.String(), nil
}

// writeListElem writes a checked element bv of a list: as JSON for
// DuckDB (integers as strings of their digits, which DuckDB casts exactly at
// any size; a string, a JSON element's text too, as a JSON string), as a
// quoted element of an array literal for PostgreSQL.
func writeListElem(b *strings.Builder, pg bool, bv any) {
	var text string
	switch x := bv.(type) {
	case int64:
		text = strconv.FormatInt(x, 10)
	case float64:
		text = strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		text = strconv.FormatBool(x)
	case string:
		text = x
	}
	if pg {
		b.WriteByte('"')
		for i := 0; i < len(text); i++ {
			if text[i] == '"' || text[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(text[i])
		}
		b.WriteByte('"')
		return
	}
	switch x := bv.(type) {
	case float64, bool:
		b.WriteString(text)
	case string:
		// A JSON element too: its text as a JSON string, read back as that
		// text (castParams) and cast to JSON as a single value is. Written as
		// is, DuckDB's list cast would read a JSON string "1" as the number 1.
		raw, _ := json.Marshal(x)
		b.Write(raw)
	default:
		raw, _ := json.Marshal(text)
		b.Write(raw)
	}
}

// listExample is a JSON array of the element type elem, for a message.
func listExample(elem string) string {
	p := catalog.Param{Type: elem}
	if _, _, ok := listElem(elem); ok {
		return "[[…], […]]"
	}
	if _, _, ok := p.IntBounds(); ok {
		return "[1, 2]"
	}
	switch p.JSONType() {
	case "number":
		return "[1.5, 2]"
	case "boolean":
		return "[true, false]"
	}
	if f, ok := duckForms[typeKey(elem)]; ok {
		return `["` + f.example + `"]`
	}
	return `["a", "b"]`
}

// pgLength is the length n of a PostgreSQL varchar(n) or char(n) type (also
// written character varying(n), character(n), bpchar(n); char alone is
// char(1)), and whether it is a
// char type; false for other types and for DuckDB, whose VARCHAR takes a length
// and ignores it.
func pgLength(eng, typ string) (n int, char, ok bool) {
	if eng != catalog.EnginePostgres {
		return 0, false, false
	}
	t := strings.ToUpper(strings.Join(strings.Fields(typ), " "))
	if t == "CHAR" || t == "CHARACTER" {
		return 1, true, true // char without a length is char(1) (bpchar is unbounded)
	}
	m := pgLengthType.FindStringSubmatch(t)
	if m == nil {
		return 0, false, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n < 1 {
		return 0, false, false
	}
	return n, m[1] != "VARCHAR" && m[1] != "CHARACTER VARYING", true
}

// nonZeroText reports whether the text of a JSON number has a digit other than
// 0 before its exponent: a number other than 0.
func nonZeroText(text string) bool {
	m, _, _ := strings.Cut(strings.ToLower(text), "e")
	return strings.ContainsAny(m, "123456789")
}

// pgBitLength is the length n of a PostgreSQL bit(n) (bit alone is bit(1)) or
// varbit(n) (also written bit varying(n)) type, and whether it is fixed (bit);
// false for varbit without a length, other types and DuckDB, whose BIT has none.
func pgBitLength(eng, typ string) (n int, fixed, ok bool) {
	if eng != catalog.EnginePostgres {
		return 0, false, false
	}
	m := pgBitType.FindStringSubmatch(strings.ToUpper(strings.Join(strings.Fields(typ), " ")))
	if m == nil {
		return 0, false, false
	}
	fixed = m[1] == "BIT"
	if m[2] == "" {
		return 1, true, fixed // bit alone is bit(1); varbit alone is unbounded
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n < 1 {
		return 0, false, false
	}
	return n, fixed, true
}

var pgBitType = regexp.MustCompile(`^(BIT|VARBIT|BIT VARYING) ?(?:\( ?([0-9]{1,9}) ?\))?$`)

// bitCount is the number of bits of s as PostgreSQL reads a bit string: 0s and
// 1s, after a B if one leads; hexadecimal digits, 4 bits each, after an X.
// False when s is not one (PostgreSQL's refusal names the character).
func bitCount(s string) (int, bool) {
	digits, per, valid := s, 1, "01"
	switch {
	case strings.HasPrefix(s, "b"), strings.HasPrefix(s, "B"):
		digits = s[1:]
	case strings.HasPrefix(s, "x"), strings.HasPrefix(s, "X"):
		digits, per, valid = s[1:], 4, "0123456789abcdefABCDEF"
	}
	for _, r := range digits {
		if !strings.ContainsRune(valid, r) {
			return 0, false
		}
	}
	return len(digits) * per, true
}

// pgNameBytes is the most bytes a PostgreSQL name holds (NAMEDATALEN - 1).
const pgNameBytes = 63

var pgLengthType = regexp.MustCompile(`^(VARCHAR|CHARACTER VARYING|CHAR|CHARACTER|BPCHAR) ?\( ?([0-9]{1,9}) ?\)$`)
