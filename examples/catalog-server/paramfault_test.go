package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestParamFaultOneRule: the load's check and a call's binding tell the same
// problem of a declaration (paramFault), and its two rules never both apply,
// so their order changes no message.
func TestParamFaultOneRule(t *testing.T) {
	for _, c := range []struct {
		eng, typ, want string // want: a piece of the message, "" for none
	}{
		{catalog.EngineDuckDB, "INTEGER[]", ""},
		{catalog.EngineDuckDB, "STRUCT(a INTEGER)[]", "declare it as JSON"},
		{catalog.EnginePostgres, "STRUCT(a INTEGER)[]", "declare it as TEXT[]"},
		{catalog.EngineDuckDB, "INTERVAL HOUR TO MINUTE", "PostgreSQL's interval fields"},
		{catalog.EngineDuckDB, "interval second (3) [ ][2]", "PostgreSQL's interval fields"},
		{catalog.EnginePostgres, "INTERVAL HOUR TO MINUTE[]", ""},
		{catalog.EngineDuckDB, "INTERVAL", ""},
	} {
		p := catalog.Param{Name: "p", Type: c.typ}
		got := paramFault(c.eng, p)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("paramFault(%s, %q) = %q, want one with %q", c.eng, c.typ, got, c.want)
		}
		if uncastList(c.eng, p) != "" && duckIntervalFields(c.eng, p) != "" {
			t.Errorf("%s %q: both rules apply", c.eng, c.typ)
		}
		_, err := bindParam(c.eng, p, []any{})
		var cf *catalogFaultError
		if isCF := errors.As(err, &cf); isCF != (got != "") || isCF && !strings.Contains(err.Error(), got) {
			t.Errorf("bindParam(%s, %q): %v, want the catalog's fault %q", c.eng, c.typ, err, got)
		}
	}
}
