package engine

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
		// Large objects: before, lo_from_bytea in a read-only transaction
		// wrote 21 MB of write-ahead log in a second.
		"SELECT count(lo_from_bytea(0, '\\x00'::bytea)) FROM generate_series(1, 20)",
		"SELECT lo_create(0)",
		"SELECT lo_creat(-1)",
		"SELECT lo_put(1, 0, '\\x00'::bytea)",
		"SELECT lo_open(1, 131072)",
		"SELECT lowrite(0, '\\x00'::bytea)",
		"SELECT lo_truncate(0, 0)",
		"SELECT lo_truncate64(0, 0)",
		"SELECT lo_unlink(1)",
		"SELECT lo_import('/etc/hostname')",
		"SELECT lo_export(1, '/tmp/x')",
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
		"REVOKE EXECUTE ON FUNCTION now(), plpgsql_call_handler(), plpgsql_inline_handler(internal), plpgsql_validator(oid) FROM PUBLIC;",
		"REVOKE SELECT ON pg_class FROM PUBLIC;",
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
	if !strings.Contains(c.warn, "REVOKE EXECUTE ON FUNCTION clock_timestamp() FROM PUBLIC;") || strings.Contains(c.warn, "now()") {
		t.Errorf("warning %q", c.warn)
	}
	// With -pg-unlocked-role the refusal is a warning that says so.
	u := checkRole(context.Background(), pool, []pgRisk{
		{"FUNCTION", "pg_catalog.now()", "stands in for a refused one", false},
		{"FUNCTION", "pg_catalog.clock_timestamp()", "stands in for a warned one", true},
	}, true)
	if u.refuse != "" || !strings.Contains(u.warn, "clock_timestamp(): stands in for a warned one") ||
		!strings.Contains(u.warn, "ad-hoc SQL is served all the same, as the server was started with -pg-unlocked-role, though: the PostgreSQL role") ||
		!strings.Contains(u.warn, "REVOKE EXECUTE ON FUNCTION now() FROM PUBLIC;") || strings.Contains(u.warn, ";;") {
		t.Errorf("with -pg-unlocked-role: refuse %q, warn %q", u.refuse, u.warn)
	}
	// The real list on the tests' role: nothing refused.
	if c := checkRole(context.Background(), pool, pgRisks, false); c.refuse != "" {
		t.Errorf("the tests' role: %s", c.refuse)
	}
}

// TestPostgresRoleCheckNotShadowed: the check reads pg_catalog's privilege
// functions whatever the search_path. Before, a function
// has_function_privilege(regprocedure, text) in the model's schema (an exact
// match, where pg_catalog's takes an oid) answered for it, and the check
// found nothing.
func TestPostgresRoleCheckNotShadowed(t *testing.T) {
	dsn := pgDSN(t)
	pgSetup(t, dsn)
	execPG(t,
		"CREATE FUNCTION shop.has_function_privilege(regprocedure, text) RETURNS boolean LANGUAGE sql AS 'SELECT false'",
		"CREATE FUNCTION shop.has_table_privilege(regclass, text) RETURNS boolean LANGUAGE sql AS 'SELECT false'",
		"CREATE FUNCTION shop.aclexplode(aclitem[]) RETURNS TABLE(grantor oid, grantee oid, privilege_type text, is_grantable boolean) LANGUAGE sql AS 'SELECT 0::oid, 0::oid, ''EXECUTE'', false WHERE false'")
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = "shop"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := checkRole(context.Background(), pool, []pgRisk{
		{"FUNCTION", "pg_catalog.now()", "stands in for a refused one", false},
		{"TABLE", "pg_catalog.pg_class", "stands in for a refused view", false},
	}, false)
	if !strings.Contains(c.refuse, "REVOKE EXECUTE ON FUNCTION now() FROM PUBLIC;") || !strings.Contains(c.refuse, "REVOKE SELECT ON pg_class FROM PUBLIC;") {
		t.Errorf("with shop's privilege functions first in the search_path: %+v", c)
	}
}

// TestPostgresRoleUnlockedSuperuser: -pg-unlocked-role turns a refusal for
// privileges into a warning, but not a superuser's (who may read the
// server's files: revoking takes nothing from it), nor one for privileges
// that could not be read. Before, a superuser was served under the flag.
func TestPostgresRoleUnlockedSuperuser(t *testing.T) {
	if c := (roleCheck{refuse: "superuser", super: true}).unlock(); c.refuse == "" {
		t.Errorf("a superuser served under -pg-unlocked-role: %+v", c)
	}
	if c := (roleCheck{refuse: "unread", unread: true}).unlock(); c.refuse == "" {
		t.Errorf("unread privileges served under -pg-unlocked-role: %+v", c)
	}
	if c := (roleCheck{refuse: "held", warn: "w"}).unlock(); c.refuse != "" || !strings.HasPrefix(c.warn, "w ad-hoc SQL is served all the same") {
		t.Errorf("a role holding privileges under -pg-unlocked-role: %+v", c)
	}
	dsn := pgSuperDSN(t)
	pgSetup(t, pgDSN(t))
	m := loadModel(t, map[string]string{
		"p/wh/manifest.json": `{"engine": "postgres", "dsnEnv": "UNUSED", "schema": "shop"}`,
		"p/wh/stock.sql":     "-- @source stock\nSELECT sku FROM stock;\n",
	}, "p/wh/stock")
	p, err := OpenPostgres(context.Background(), m, dsn, PGConfig{UnlockedRole: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if why := p.PGRoleProblem(); !strings.Contains(why, "is a superuser") {
		t.Errorf("a superuser under -pg-unlocked-role: problem %q, warning %q", why, p.PGRoleWarning())
	}
}

// pgSuperDSN returns a superuser's connection string to the tests' database
// (CATALOG_TEST_PG_SUPER_DSN); without it the test skips.
func pgSuperDSN(t *testing.T) string {
	return pgEnvDSN(t, "CATALOG_TEST_PG_SUPER_DSN", "no superuser connection to test with")
}

// pgEnvDSN returns the connection string in the environment variable name,
// for a test that also needs the tests' database (pgDSN); without either the
// test skips, saying what is missing (what).
func pgEnvDSN(t *testing.T, name, what string) string {
	pgDSN(t)
	dsn := os.Getenv(name)
	if dsn == "" {
		t.Skipf("%s is unset: %s (see .ci/catalog.sh)", name, what)
	}
	return dsn
}

// TestPostgresRoleRevokeFromGrantingRoles: a privilege the role holds through
// a role it is a member of is revoked from that role, which the advice
// names. Before, it said "REVOKE … FROM PUBLIC, catalog;", which left the
// other role's grant (and the privilege).
func TestPostgresRoleRevokeFromGrantingRoles(t *testing.T) {
	super := pgSuperDSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, super)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var role string
	if err := conn.QueryRow(ctx, "SELECT quote_ident(rolname) FROM pg_roles r JOIN pg_database d ON d.datdba = r.oid WHERE d.datname = current_database()").Scan(&role); err != nil {
		t.Fatal(err)
	}
	run := func(stmts ...string) {
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatal(s, err)
			}
		}
	}
	run("DROP SCHEMA IF EXISTS zz_grants CASCADE", "DROP ROLE IF EXISTS zz_granting",
		"CREATE ROLE zz_granting NOLOGIN", "CREATE SCHEMA zz_grants", "GRANT USAGE ON SCHEMA zz_grants TO PUBLIC",
		"CREATE FUNCTION zz_grants.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"REVOKE EXECUTE ON FUNCTION zz_grants.f() FROM PUBLIC", "GRANT EXECUTE ON FUNCTION zz_grants.f() TO zz_granting",
		"GRANT zz_granting TO "+role)
	defer run("DROP SCHEMA zz_grants CASCADE", "DROP ROLE zz_granting")
	cfg, err := pgxpool.ParseConfig(pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec // as OpenPostgres's, which works behind pgbouncer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := checkRole(ctx, pool, []pgRisk{{"FUNCTION", "zz_grants.f()", "stands in for a refused one", false}}, false)
	if !strings.Contains(c.refuse, "REVOKE EXECUTE ON FUNCTION zz_grants.f() FROM zz_granting;") {
		t.Errorf("refusal %q", c.refuse)
	}
}

// TestPostgresRoleCheckRetried: privileges that could not be read are read
// again at the next ad-hoc query, at most every pgRoleRetry. Before, the
// model refused ad-hoc SQL until its file was touched.
func TestPostgresRoleCheckRetried(t *testing.T) {
	p := openTestPG(t)
	failed := roleCheck{refuse: "could not read", unread: true}
	p.role, p.roleAt = failed, time.Now()
	if why, _ := p.PGRoleRecheck(context.Background()); why != failed.refuse {
		t.Errorf("read again within pgRoleRetry: %q", why)
	}
	p.roleAt = time.Now().Add(-pgRoleRetry)
	// describe and the log never read them again (they must not wait).
	if why := p.PGRoleProblem(); why != failed.refuse {
		t.Errorf("PGRoleProblem read them again: %q", why)
	}
	if why, unread := p.PGRoleRecheck(context.Background()); why != "" || unread {
		t.Errorf("after pgRoleRetry: %q, want the locked-down role's \"\"", why)
	}
	// A failure to read is told, and retried later.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c := checkRole(ctx, p.pool, pgRisks, true); !c.unread || !strings.Contains(c.refuse, "reads them again at the next ad-hoc query") {
		t.Errorf("unread: %+v", c)
	}
}

// holdExtensions opens a superuser's transaction holding pg_extension, which
// a reading of the role's privileges joins: the reading waits until the
// transaction ends (rolled back at the test's end at the latest).
func holdExtensions(t *testing.T) pgx.Tx {
	ctx := context.Background()
	lock, err := pgx.Connect(ctx, pgSuperDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close(ctx) })
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	if _, err := tx.Exec(ctx, "LOCK TABLE pg_catalog.pg_extension IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestPostgresRoleRecheckWithinQueryLimit: a reading of the role's
// privileges made again runs on its own: a query waits for it no longer than
// its own time limit (ctx), queries meanwhile wait for the same reading, and
// Close ends it. Before, the query waited for the reading up to 10 s whatever
// its limit, and the queries meanwhile were refused at once with the old
// failure.
func TestPostgresRoleRecheckWithinQueryLimit(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	tx := holdExtensions(t)
	failed := roleCheck{refuse: "could not read", unread: true}
	p.roleMu.Lock()
	p.role, p.roleAt = failed, time.Now().Add(-pgRoleRetry)
	p.roleMu.Unlock()

	recheck := func(limit time.Duration) string {
		c, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		why, unread := p.PGRoleRecheck(c)
		if why != "" && !unread {
			t.Errorf("%q: not told as privileges not read", why)
		}
		return why
	}
	if why := recheck(300 * time.Millisecond); !strings.Contains(why, "reading the privileges of its PostgreSQL role again") || !strings.Contains(why, "could not read") {
		t.Errorf("while the reading waits: %q", why)
	}
	p.roleMu.Lock()
	first := p.roleRead
	p.roleMu.Unlock()
	if first == nil {
		t.Fatal("no reading running after the query's limit")
	}
	// A second query meanwhile waits for the same reading, not a new one.
	if why := recheck(200 * time.Millisecond); !strings.Contains(why, "reading the privileges of its PostgreSQL role again") {
		t.Errorf("second query meanwhile: %q", why)
	}
	p.roleMu.Lock()
	same := p.roleRead == first
	p.roleMu.Unlock()
	if !same {
		t.Error("the second query started a reading of its own")
	}
	// The lock released, the reading ends and a waiting query is served by it.
	got := make(chan string, 1)
	go func() { got <- recheck(pgRoleTimeout) }()
	time.Sleep(100 * time.Millisecond)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if why := <-got; why != "" {
		t.Errorf("after the reading: %q, want the locked-down role's \"\"", why)
	}
}

// TestPostgresRoleRecheckEndsAtClose: Close ends a reading of the role's
// privileges that waits, rather than waiting up to pgRoleTimeout for its
// connection.
func TestPostgresRoleRecheckEndsAtClose(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	holdExtensions(t)
	p.roleMu.Lock()
	p.role, p.roleAt = roleCheck{refuse: "could not read", unread: true}, time.Now().Add(-pgRoleRetry)
	p.roleMu.Unlock()
	c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	p.PGRoleRecheck(c)
	cancel()
	p.roleMu.Lock()
	reading := p.roleRead
	p.roleMu.Unlock()
	if reading == nil {
		t.Fatal("no reading running")
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(pgRoleTimeout / 2):
		t.Fatalf("Close waited for the role's reading past %v", pgRoleTimeout/2)
	}
	<-reading
	// After Close no new reading starts.
	p.roleMu.Lock()
	p.roleAt = time.Now().Add(-pgRoleRetry)
	p.roleMu.Unlock()
	if why, _ := p.PGRoleRecheck(ctx); why == "" {
		t.Error("a closed model served ad-hoc SQL")
	}
	p.roleMu.Lock()
	defer p.roleMu.Unlock()
	if p.roleRead != nil {
		t.Error("a reading started after Close")
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

// TestPostgresRoleRecheckTakesATurn: a reading of the role's privileges made
// again takes one of the model's connections in its turn, as a query does.
// Before, it took a connection from the pool outside the turns, so that a
// query given its turn could find the pool empty.
func TestPostgresRoleRecheckTakesATurn(t *testing.T) {
	p := openTestPG(t)
	ctx := context.Background()
	for range pgMaxConns {
		if err := p.slots.acquire(ctx, "busy", nil); err != nil {
			t.Fatal(err)
		}
	}
	released := 0
	defer func() {
		for ; released < pgMaxConns; released++ {
			p.slots.release()
		}
	}()
	p.roleMu.Lock()
	p.role, p.roleAt = roleCheck{refuse: "could not read", unread: true}, time.Now().Add(-pgRoleRetry)
	p.roleMu.Unlock()
	c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	why, unread := p.PGRoleRecheck(c)
	cancel()
	if !unread || !strings.Contains(why, "reading the privileges of its PostgreSQL role again") {
		t.Errorf("with every turn taken: %q (unread %v)", why, unread)
	}
	p.roleMu.Lock()
	reading := p.roleRead
	p.roleMu.Unlock()
	if reading == nil {
		t.Fatal("the reading did not wait for a turn")
	}
	if n := p.pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("the reading holds %d of the pool's connections without a turn", n)
	}
	p.slots.release()
	released++
	select {
	case <-reading:
	case <-time.After(pgRoleTimeout):
		t.Fatal("the reading did not end once a turn was free")
	}
	if why, unread := p.PGRoleRecheck(ctx); why != "" || unread {
		t.Errorf("after the reading: %q, want the locked-down role's \"\"", why)
	}
}
