package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// wrongKind is the answer to a parameter's value of another JSON kind than its
// type takes (want: "number", "boolean" or "string"): the JSON kind expected,
// with an example of it, and the kind given, so that "true" for a BOOLEAN does
// not read as a contradiction ("must be true or false, got "true"").
func wrongKind(eng string, p catalog.Param, want string, v any) error {
	got := "got " + givenKind(v)
	switch want {
	case "number":
		return fmt.Errorf("parameter %q must be a JSON number (%s; e.g. 1.5, without quotes), %s", p.Name, p.Type, got)
	case "boolean":
		return fmt.Errorf("parameter %q must be a JSON boolean (true or false, without quotes), %s", p.Name, got)
	}
	t := compactType(p.Type)
	if f, ok := typedFormFor(eng, t); ok {
		return fmt.Errorf("parameter %q must be a JSON string (%s, in double quotes, written %s, e.g. %q), %s", p.Name, p.Type, f.form, f.example, got)
	}
	if iv, list := isIntervalType(t); iv && !list {
		err := fmt.Errorf("parameter %q must be a JSON string (%s, in double quotes, e.g. \"1 day 02:00:00\" or \"90 minutes\"), %s", p.Name, p.Type, got)
		if _, text, ok := number(v); ok {
			err = fmt.Errorf("%w: a number of seconds is written %q", err, text+" seconds")
		}
		return err
	}
	return fmt.Errorf("parameter %q must be a JSON string (%s, in double quotes), %s", p.Name, p.Type, got)
}

// givenKind names the JSON kind of v with its text: the string "true", the
// number 3600, the boolean true, the list [1,2], the object {"a":1}.
func givenKind(v any) string {
	kind := "the value"
	switch v.(type) {
	case string:
		kind = "the string"
	case json.Number, float64, float32, int, int64, int32:
		kind = "the number"
	case bool:
		kind = "the boolean"
	case []any:
		kind = "the list"
	case map[string]any:
		kind = "the object"
	}
	return kind + " " + jsonText(v)
}

var (
	duckUnknownType = regexp.MustCompile(`Type with name (\S+) does not exist`)
	pgUnknownType   = regexp.MustCompile(`type "([^"]+)" does not exist`)
)

// unknownParamType turns the engine's error about a type it does not know, when
// a parameter of the named query q is declared as that type (@param f FOOTYPE),
// into the catalog's fault naming the parameter, as the check when the model
// loads says it: no call can run the query, and the caller's SQL is not at fault
// (DuckDB's "Did you mean "JSON"?" is for whoever fixes the @param line). nil for
// another error.
func unknownParamType(q *catalog.Query, err error) error {
	var se *engine.SQLError
	if q == nil || !errors.As(err, &se) {
		return nil
	}
	m := duckUnknownType.FindStringSubmatch(se.Message)
	if m == nil {
		m = pgUnknownType.FindStringSubmatch(se.Message)
	}
	if m == nil {
		return nil
	}
	name := strings.TrimRight(m[1], "!")
	for _, p := range q.Params {
		base := castType(p.Type)
		if base == "" {
			base = strings.ToUpper(strings.TrimSpace(p.Type))
		}
		if i := strings.IndexAny(base, "[("); i >= 0 {
			base = base[:i]
		}
		if !strings.EqualFold(base, name) {
			continue
		}
		what := "named query " + q.Name
		if q.Notebook != nil {
			what = "notebook cell " + q.Name
		}
		first, _, _ := strings.Cut(se.Message, "\n")
		return &catalogFaultError{fmt.Errorf("%s declares its parameter %q as %s (@param %s %s), a type the engine does not know (%s), so no call can run it; the catalog's @param line needs a type the engine knows (INTEGER, DOUBLE, VARCHAR, DATE, TIMESTAMP, BOOLEAN, …)", what, p.Name, p.Type, p.Name, p.Type, first)}
	}
	return nil
}
