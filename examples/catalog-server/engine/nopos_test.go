package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestDuckParserErrorWithoutPosition: an error of DuckDB's parser that has no
// position (its transformer's: LIKE or ILIKE with ANY over a list) is given
// none; it was placed at character 1. The message says which operator "~~*"
// is.
func TestDuckParserErrorWithoutPosition(t *testing.T) {
	d := openTestDuck(t)
	p := openProc(t, nil, DuckConfig{})
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		_, err := e.q.Query(context.Background(), "SELECT 1 WHERE 'a' ILIKE ANY (['b'])", nil, testLimits)
		var se *SQLError
		if !errors.As(err, &se) || se.Position != 0 || !strings.Contains(se.Message, `Unsupported comparison "~~*"`) || !strings.Contains(se.Message, `"~~*" is ILIKE`) {
			t.Errorf("%s: %#v", e.name, err)
		}
		// A syntax error keeps its place.
		_, err = e.q.Query(context.Background(), "SELECT 1 WHERE 'a' ILIKE ANY", nil, testLimits)
		if !errors.As(err, &se) || se.Position != 29 {
			t.Errorf("%s: a syntax error at the end: %#v", e.name, err)
		}
	}
}
