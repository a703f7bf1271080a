package main

import (
	"context"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestPositionalPlaceholderRefused: a positional $1 the author wrote in a named
// query is the catalog's fault, on both engines: no call gives a value by
// position, and on PostgreSQL the server's own $1 (one per @name) would take its
// place — the author's $1 silently got @x's value, and a $2 was answered as the
// caller giving too few values.
func TestPositionalPlaceholderRefused(t *testing.T) {
	t.Run("duckdb", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"p/k/manifest.json": `{}`,
			"p/k/m.sql": "-- @source one\nSELECT 1 AS u;\n\n" +
				"-- @query dollar\n-- @param x VARCHAR\nSELECT $1 AS a, $x AS b FROM one;\n",
		})
		svc := newTestService(t, dir, Config{})
		q, err := svc.Describe(context.Background(), "p/k/m/dollar")
		if err != nil {
			t.Fatal(err)
		}
		if p := strings.Join(q.Problems, "\n"); !strings.Contains(p, "the SQL uses the positional placeholder $1 (line 6, column 8)") {
			t.Errorf("duckdb load problems: %q", q.Problems)
		}
		_, te := runNamed(t, svc, "p/k/m/dollar", `{"x":"hello"}`)
		if te == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, "uses the positional placeholder $1 (at character 8 of its SQL)") {
			t.Errorf("duckdb $1: %+v", te)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		svc := pgModelService(t, "-- @source one\nSELECT 1 AS u;\n\n"+
			"-- @query dollar\n-- @param x TEXT\nSELECT $1::text AS a, @x AS b, '$2' AS c FROM one;\n\n"+
			"-- @query dollar2\n-- @param x TEXT\nSELECT $2::text AS a, @x AS b FROM one;\n\n"+
			"-- @query glued\n-- @param lim INTEGER\nSELECT u FROM one WHERE u<@lim;\n")
		for path, want := range map[string]string{
			"p/pg/m/dollar":  "uses the positional placeholder $1 (at character 8 of its SQL)",
			"p/pg/m/dollar2": "uses the positional placeholder $2 (at character 8 of its SQL)",
		} {
			q, err := svc.Describe(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(q.Problems, "\n"), "the SQL uses the positional placeholder $") {
				t.Errorf("%s: load problems %q", path, q.Problems)
			}
			_, te := runNamed(t, svc, path, `{"x":"hello"}`)
			if te == nil || te.Kind != "unavailable" || !strings.Contains(te.Error, want) {
				t.Errorf("%s: %+v", path, te)
			}
		}
		q, err := svc.Describe(context.Background(), "p/pg/m/glued")
		if err != nil {
			t.Fatal(err)
		}
		if p := strings.Join(q.Problems, "\n"); !strings.Contains(p, "the SQL has <@lim, which is PostgreSQL's operator <@ before the name lim; for the parameter write a space before it: < @lim") {
			t.Errorf("glued operator: problems %q", q.Problems)
		}
	})
}

func TestPositionalSpans(t *testing.T) {
	sql := "SELECT $1, '$2', \"$3\", -- $4\n $tag$ $5 $tag$, a$6, $10 /* $7 */, $x"
	var got []string
	for _, sp := range catalog.PositionalSpans(sql, catalog.EnginePostgres) {
		got = append(got, sp.Name+"@"+sql[sp.Start:sp.End])
	}
	if strings.Join(got, " ") != "1@$1 10@$10" {
		t.Errorf("PositionalSpans: %q", got)
	}
	if n := catalog.PlaceholderSpans(sql, catalog.EngineDuckDB); len(n) != 1 || n[0].Name != "x" {
		t.Errorf("PlaceholderSpans after the change: %+v", n)
	}
}
