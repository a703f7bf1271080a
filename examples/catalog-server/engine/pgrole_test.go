package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TestPostgresRoleLockedDown: the tests' role is set up as the README says
// (.ci/catalog.sh revokes pgRisks' refused privileges from PUBLIC), so the
// model reports no role problem, the server's own settings (the schema as
// search_path, statement_timeout) still apply, and what the red team did
// through ad-hoc SQL is refused by PostgreSQL — through query_to_xml too,
// which a check of names in the SQL would not see. Before, the server set
// the search_path with set_config, so a role without it could not run a
// query of a model with a schema.
func TestPostgresRoleLockedDown(t *testing.T) {
	p := openTestPG(t)
	if why := p.PGRoleProblem(); why != "" {
		t.Fatalf("the tests' role is not set up as the README says (see .ci/catalog.sh): %s", why)
	}
	ctx := context.Background()
	res, err := p.Query(ctx, "SELECT current_setting('search_path') AS sp, count(*) AS n FROM stock", nil, testLimits)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "shop" {
		t.Fatalf("search_path: %v %+v", err, res)
	}
	for _, s := range []string{
		"SELECT count(pg_logical_emit_message(false, 'x', repeat('y', 1000))) FROM generate_series(1, 5)",
		"SELECT pg_logical_emit_message(false, 'x', '\\x00'::bytea)",
		"SELECT set_config('work_mem', '16GB', true) AS a",
		"SELECT query FROM pg_stat_activity",
		"SELECT pg_stat_get_activity(NULL)",
		"SELECT pg_stat_get_backend_activity(1)",
		"SELECT txid_current()",
		"SELECT pg_current_xact_id()",
		"SELECT query_to_xml('SELECT set_config(''work_mem'', ''16GB'', true)', false, false, '')",
	} {
		_, err := p.Query(ctx, s, nil, testLimits)
		var se *SQLError
		if !errors.As(err, &se) || se.SQLState != "42501" {
			t.Errorf("%s: %v, want permission denied (42501)", s, err)
		}
	}
}

// TestPostgresRoleCheckFindsPrivileges: checkRole names what the role may
// still call or read among the privileges it is given, with the REVOKE
// statements that take each away, refused and warned apart; an object the
// server lacks is skipped. (The tests' role holds none of pgRisks' refused
// ones, so privileges every role holds stand in for them.)
func TestPostgresRoleCheckFindsPrivileges(t *testing.T) {
	dsn := pgDSN(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := checkRole(context.Background(), pool, []pgRisk{
		{"FUNCTION", "pg_catalog.now()", "stands in for a refused one", false},
		{"TABLE", "pg_catalog.pg_class", "stands in for a refused view", false},
		{"FUNCTION", "pg_catalog.no_such_function(integer)", "missing", false},
		{"FUNCTION", "pg_catalog.clock_timestamp()", "stands in for a warned one", true},
		{"EXTENSION", "plpgsql", "stands in for dblink", false},
		{"EXTENSION", "no_such_extension", "missing", false},
	}, false)
	for _, want := range []string{
		"now(): stands in for a refused one",
		"REVOKE EXECUTE ON FUNCTION now(), plpgsql_call_handler(), plpgsql_inline_handler(internal), plpgsql_validator(oid) FROM PUBLIC, catalog;",
		"REVOKE SELECT ON pg_class FROM PUBLIC, catalog;",
		"the extension plpgsql's plpgsql_call_handler(), plpgsql_inline_handler(internal), plpgsql_validator(oid): stands in for dblink",
		"ad-hoc SQL is not served",
	} {
		if !strings.Contains(c.refuse, want) {
			t.Errorf("refusal %q lacks %q", c.refuse, want)
		}
	}
	if strings.Contains(c.refuse, "no_such") || strings.Contains(c.refuse, "clock_timestamp") {
		t.Errorf("refusal names what it should not: %q", c.refuse)
	}
	if !strings.Contains(c.warn, "REVOKE EXECUTE ON FUNCTION clock_timestamp() FROM PUBLIC, catalog;") || strings.Contains(c.warn, "now()") {
		t.Errorf("warning %q", c.warn)
	}
	// With -pg-unlocked-role the refusal is a warning that says so.
	u := checkRole(context.Background(), pool, []pgRisk{
		{"FUNCTION", "pg_catalog.now()", "stands in for a refused one", false},
		{"FUNCTION", "pg_catalog.clock_timestamp()", "stands in for a warned one", true},
	}, true)
	if u.refuse != "" || !strings.Contains(u.warn, "clock_timestamp(): stands in for a warned one") ||
		!strings.Contains(u.warn, "ad-hoc SQL is served all the same, as the server was started with -pg-unlocked-role, though: the PostgreSQL role") ||
		!strings.Contains(u.warn, "REVOKE EXECUTE ON FUNCTION now() FROM PUBLIC, catalog;") {
		t.Errorf("with -pg-unlocked-role: refuse %q, warn %q", u.refuse, u.warn)
	}
	// The real list on the tests' role: nothing refused.
	if c := checkRole(context.Background(), pool, pgRisks, false); c.refuse != "" {
		t.Errorf("the tests' role: %s", c.refuse)
	}
}

// TestPostgresRowPastBudget: a row longer than pgMaxMessage is not read: the
// answer is the rows before it, truncated by the byte budget, within the time
// limit, without the server's process reading the value into memory (before,
// repeat('x', 200000000) took 7 s against a 5 s limit and a gigabyte of the
// server's memory for the same answer). The model's next queries run (the
// broken connection is dropped). A row whose binary form is longer than twice
// the budget but whose JSON fits (an int8[] of zeros) is still read.
func TestPostgresRowPastBudget(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	lim := Limits{RowLimit: 100, ByteBudget: 1 << 20, Timeout: 5 * time.Second}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := p.Query(ctx, "SELECT i, CASE WHEN i = 3 THEN repeat('x', 50000000) ELSE 'a' END AS s FROM generate_series(1, 5) i", nil, lim)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || !res.Truncated || res.TruncatedBy != "byteBudget" {
		t.Errorf("rows %v truncated %v by %q, want the 2 rows before the long one, truncated by byteBudget", res.Rows, res.Truncated, res.TruncatedBy)
	}
	if took > lim.Timeout {
		t.Errorf("answered after %v, past the %v limit", took, lim.Timeout)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
		t.Errorf("the server allocated %d MB reading the answer", grew>>20)
	}
	for range 2 * pgMaxConns {
		if res, err := p.Query(ctx, "SELECT 1 AS one", nil, lim); err != nil || len(res.Rows) != 1 {
			t.Fatalf("after: %v %+v", err, res)
		}
	}
	res, err = p.Query(ctx, "SELECT array_fill(0::int8, ARRAY[300000]) AS a", nil, lim)
	if err != nil || res.Truncated || len(res.Rows) != 1 {
		t.Fatalf("int8[] of 3.6 MB (600 KB of JSON) under a 1 MiB budget: %v %+v", err, res != nil && res.Truncated)
	}
}
