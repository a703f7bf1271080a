package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPostgresErrorKeepsDetail: PostgreSQL's DETAIL line is kept in the
// error's message, after the message (before, only the hint was kept:
// "malformed array literal" said nothing of where).
func TestPostgresErrorKeepsDetail(t *testing.T) {
	p := openTestPG(t)
	_, err := p.Query(context.Background(), "SELECT '{1,2'::int[] AS a FROM stock", nil, testLimits)
	var se *SQLError
	if !errors.As(err, &se) || !strings.Contains(se.Message, `malformed array literal: "{1,2" (detail: Unexpected end of input.)`) {
		t.Errorf("%v", err)
	}
}

// TestConnectErrorWording: the variable is named after the server it names.
func TestConnectErrorWording(t *testing.T) {
	for _, tc := range []struct {
		e    ConnectError
		want string
	}{
		{ConnectError{Env: "CATALOG_X_DSN", Cause: "c", Lost: true}, "the connection to the PostgreSQL server named by CATALOG_X_DSN broke: c"},
		{ConnectError{Env: "CATALOG_X_DSN", Cause: "c"}, "could not connect to the PostgreSQL server named by CATALOG_X_DSN: c"},
		{ConnectError{Cause: "c", Lost: true}, "the connection to the PostgreSQL server broke: c"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
