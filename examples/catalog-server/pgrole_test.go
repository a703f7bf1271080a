package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// unlockedRole is a model's engine whose (PostgreSQL) role still holds what
// ad-hoc SQL must not (refuse) or should not (warn), as engine.Postgres
// reports it after checking the role's privileges when the model opens.
type unlockedRole struct {
	modelEngine
	refuse, warn string
	unread       bool // the privileges could not be read: refuse says why
}

func (u unlockedRole) PGRoleProblem() string { return u.refuse }
func (u unlockedRole) PGRoleRecheck(context.Context) (string, bool) {
	return u.refuse, u.unread
}
func (u unlockedRole) PGRoleUnread() bool    { return u.unread }
func (u unlockedRole) PGRoleWarning() string { return u.warn }

// TestRoleNotLockedDown: a model whose PostgreSQL role may still call
// pg_logical_emit_message (or set_config, or read pg_stat_activity) refuses
// ad-hoc SQL, saying so with the REVOKE statements, while its sources run; the
// problem is in describe (the model's and its package's) and the log. A role
// that holds only the warned privileges (pg_sleep) is served, with the warning
// in describe and the log. (The role check itself: engine's
// TestPostgresRoleCheckFindsPrivileges.)
func TestRoleNotLockedDown(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/locked/manifest.json": "{}", "p/locked/m.sql": "-- @source s\nSELECT 1 AS x;\n",
		"p/sleepy/manifest.json": "{}", "p/sleepy/m.sql": "-- @source s\nSELECT 1 AS x;\n",
		"p/unread/manifest.json": "{}", "p/unread/m.sql": "-- @source s\nSELECT 1 AS x;\n",
	})
	const refuse = "the PostgreSQL role catalog may still call what ad-hoc SQL must not (pg_logical_emit_message(boolean,text,text): writes …); REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean,text,text) FROM PUBLIC, catalog;"
	const warn = "the PostgreSQL role catalog may still call pg_sleep(double precision): …; REVOKE EXECUTE ON FUNCTION pg_sleep(double precision) FROM PUBLIC, catalog;"
	const unread = "the server could not read the privileges of its PostgreSQL role (timeout: context deadline exceeded), so ad-hoc SQL is not served for now"
	open := func(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
		e, err := real(ctx, m)
		if err != nil {
			return nil, err
		}
		switch m.Package.Name {
		case "locked":
			return unlockedRole{modelEngine: e, refuse: refuse}, nil
		case "unread":
			return unlockedRole{modelEngine: e, refuse: unread, unread: true}, nil
		}
		return unlockedRole{modelEngine: e, warn: warn}, nil
	}
	var logs syncBuffer
	svc, err := NewService(context.Background(), dir, Config{open: open}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")

	a := runQuery(t, cs, "p/locked/m", "SELECT 2 AS y")
	if !a.res.IsError || a.te.Kind != "unavailable" || !strings.Contains(a.te.Error, "ad-hoc SQL on p/locked/m is refused: "+refuse) || !strings.Contains(a.te.Hint, "REVOKE") {
		t.Errorf("ad-hoc SQL on a role not locked down: %s", text(a.res))
	}
	if r := call(t, cs, "execute_query", map[string]any{"path": "p/locked/m/s"}, nil); r.IsError {
		t.Errorf("its source: %s", text(r))
	}
	if a := runQuery(t, cs, "p/sleepy/m", "SELECT 2 AS y"); a.res.IsError {
		t.Errorf("ad-hoc SQL on a role holding only warned privileges: %s", text(a.res))
	}
	for path, want := range map[string]string{"p/locked/m": refuse, "p/locked": refuse, "p/sleepy/m": warn, "p/sleepy": warn} {
		var d struct{ Problems []string }
		call(t, cs, "describe", map[string]any{"path": path}, &d)
		if !strings.Contains(strings.Join(d.Problems, "\n"), want) {
			t.Errorf("describe %s: problems %q lack %q", path, d.Problems, want)
		}
	}
	// Privileges not read: refused, but no REVOKE asked for, and the log
	// says what it is (before: the hint asked for "the REVOKE statements
	// above" and the log said "role not locked down").
	u := runQuery(t, cs, "p/unread/m", "SELECT 2 AS y")
	if !u.res.IsError || u.te.Kind != "unavailable" || !strings.Contains(u.te.Error, unread) || strings.Contains(u.te.Hint, "REVOKE") || !strings.Contains(u.te.Hint, "Call again shortly") {
		t.Errorf("ad-hoc SQL on a role whose privileges were not read: %s", text(u.res))
	}
	if !strings.Contains(logs.String(), `msg="PostgreSQL role's privileges could not be read" model=p/unread/m`) {
		t.Errorf("the log lacks the unread role's line:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), `msg="PostgreSQL role not locked down" model=p/unread/m`) {
		t.Errorf("the log calls privileges not read a role not locked down:\n%s", logs.String())
	}
	for _, want := range []string{"PostgreSQL role not locked down", "REVOKE EXECUTE ON FUNCTION pg_logical_emit_message", "REVOKE EXECUTE ON FUNCTION pg_sleep"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
}
