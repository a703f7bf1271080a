package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgRisk is a privilege PUBLIC holds by default in PostgreSQL that lets ad-hoc
// SQL do, within a read-only transaction, what the read-only endpoint must not
// allow. A check of names in the SQL cannot stop them: functions that run SQL
// held in a string (query_to_xml('select …'), and any a database may have)
// call them without their names being in the text. The role's privileges can.
type pgRisk struct {
	// Kind is FUNCTION or TABLE (a view), as REVOKE writes it, or EXTENSION:
	// the functions and views of the extension Object, when the database
	// has it.
	Kind   string
	Object string // regprocedure or regclass text, resolvable whatever the search_path; an extension's name
	Why    string
	// Warn says holding it is told (describe, the log) but ad-hoc SQL is
	// still served: it neither writes, nor shows other clients' SQL, nor
	// grows the database server's memory, and a client's share of the
	// model's connections (-max-queries-per-client) bounds what it holds.
	Warn bool
}

// pgRisks are the privileges a PostgreSQL model's role is checked for when
// the model opens (PGRoleProblem). Objects missing on the server (another
// version) are skipped.
var pgRisks = []pgRisk{
	{"FUNCTION", "pg_catalog.pg_logical_emit_message(boolean,text,text)", "writes to the write-ahead log, with transactional = false outside the read-only transaction and surviving its rollback, as much as a query asks (replicas, archives and change-data-capture readers receive it)", false},
	{"FUNCTION", "pg_catalog.pg_logical_emit_message(boolean,text,bytea)", "the same, with a bytea message", false},
	{"FUNCTION", "pg_catalog.set_config(text,text,boolean)", "changes settings for the rest of the query's transaction: work_mem = '16GB' lets one query take gigabytes of the database server's memory", false},
	{"TABLE", "pg_catalog.pg_stat_activity", "shows the SQL other clients are running (the server's clients all share its role)", false},
	{"FUNCTION", "pg_catalog.pg_stat_get_activity(integer)", "the function behind pg_stat_activity: the same SQL of other clients", false},
	{"FUNCTION", "pg_catalog.pg_stat_get_backend_activity(integer)", "the SQL a session is running: other clients' SQL", false},
	{"FUNCTION", "pg_catalog.txid_current()", "assigns the read-only transaction a transaction ID (once per query), using up the cluster's IDs (toward wraparound vacuums)", false},
	{"FUNCTION", "pg_catalog.pg_current_xact_id()", "the same as txid_current", false},
	{"FUNCTION", "pg_catalog.lo_from_bytea(oid,bytea)", "creates a large object in the read-only transaction: as much write-ahead log as a query asks (20 MB a second), and a transaction ID", false},
	{"FUNCTION", "pg_catalog.lo_create(oid)", "creates a large object: write-ahead log and a transaction ID", false},
	{"FUNCTION", "pg_catalog.lo_creat(integer)", "the same as lo_create", false},
	{"FUNCTION", "pg_catalog.lo_put(oid,bigint,bytea)", "writes into a large object: as much write-ahead log as a query asks", false},
	{"FUNCTION", "pg_catalog.lo_open(oid,integer)", "opens a large object for writing too (lowrite, lo_truncate)", false},
	{"FUNCTION", "pg_catalog.lowrite(integer,bytea)", "writes into an open large object: write-ahead log", false},
	{"FUNCTION", "pg_catalog.lo_truncate(integer,integer)", "changes an open large object: write-ahead log", false},
	{"FUNCTION", "pg_catalog.lo_truncate64(integer,bigint)", "the same as lo_truncate", false},
	{"FUNCTION", "pg_catalog.lo_unlink(oid)", "deletes a large object the role owns, in the transaction: write-ahead log and a transaction ID", false},
	{"FUNCTION", "pg_catalog.lo_import(text)", "reads a file of the database server (only superusers may, unless granted)", false},
	{"FUNCTION", "pg_catalog.lo_import(text,oid)", "the same as lo_import", false},
	{"FUNCTION", "pg_catalog.lo_export(oid,text)", "writes a file on the database server (only superusers may, unless granted)", false},
	{"EXTENSION", "dblink", "connects to a database (this one too) outside the read-only transaction, where it may write", false},
	{"EXTENSION", "pg_stat_statements", "shows the SQL other clients ran", false},
	{"FUNCTION", "pg_catalog.pg_sleep(double precision)", "holds one of the model's connections for the whole time limit doing nothing", true},
	{"FUNCTION", "pg_catalog.pg_sleep_for(interval)", "the same as pg_sleep", true},
	{"FUNCTION", "pg_catalog.pg_sleep_until(timestamp with time zone)", "the same as pg_sleep", true},
	{"FUNCTION", "pg_catalog.pg_cancel_backend(integer)", "cancels another client's query (a role may signal its own sessions)", true},
	{"FUNCTION", "pg_catalog.pg_terminate_backend(integer,bigint)", "ends another client's connection", true},
}

// pgRiskSQL finds which of pgRisks the connected role holds: for each, the
// objects as PostgreSQL writes them (a FUNCTION or TABLE risk's object; an
// EXTENSION risk's functions and views), the roles whose grant gives it to
// the connected role (PUBLIC, the role, or a role it is a member of: what a
// REVOKE must name), and whether the role is a superuser. It runs with
// search_path pg_catalog, pg_temp (readRole): a function of the same
// name in a schema of the path (has_function_privilege(regprocedure, text),
// an exact match where pg_catalog's takes an oid) would otherwise answer.
const pgRiskSQL = `WITH r AS (SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(kind, obj, i)),
o AS (
	SELECT r.i, 'FUNCTION' AS k, to_regprocedure(r.obj) AS f, NULL::regclass AS c FROM r WHERE r.kind = 'FUNCTION'
	UNION ALL SELECT r.i, 'TABLE', NULL, to_regclass(r.obj) FROM r WHERE r.kind = 'TABLE'
	UNION ALL SELECT r.i, CASE WHEN d.classid = 'pg_proc'::regclass THEN 'FUNCTION' ELSE 'TABLE' END,
		CASE WHEN d.classid = 'pg_proc'::regclass THEN d.objid::regprocedure END,
		CASE WHEN d.classid = 'pg_class'::regclass THEN d.objid::regclass END
	FROM r JOIN pg_extension e ON r.kind = 'EXTENSION' AND e.extname = r.obj
	JOIN pg_depend d ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid AND d.deptype = 'e'
		AND d.classid IN ('pg_proc'::regclass, 'pg_class'::regclass)
),
a AS (
	SELECT o.*, CASE WHEN o.k = 'FUNCTION'
		THEN (SELECT coalesce(p.proacl, acldefault('f', p.proowner)) FROM pg_proc p WHERE p.oid = o.f)
		ELSE (SELECT coalesce(c.relacl, acldefault('r', c.relowner)) FROM pg_class c WHERE c.oid = o.c) END AS acl
	FROM o WHERE CASE WHEN o.k = 'FUNCTION' THEN has_function_privilege(o.f, 'EXECUTE') ELSE has_table_privilege(o.c, 'SELECT') END
)
SELECT a.i, a.k, coalesce(a.f::text, a.c::text),
	coalesce((SELECT string_agg(CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.rolname) END, ', ' ORDER BY x.grantee <> 0, g.rolname)
		FROM aclexplode(a.acl) x LEFT JOIN pg_roles g ON g.oid = x.grantee
		WHERE x.privilege_type = CASE WHEN a.k = 'FUNCTION' THEN 'EXECUTE' ELSE 'SELECT' END
			AND (x.grantee = 0 OR pg_has_role(current_user, x.grantee, 'MEMBER'))), 'PUBLIC, ' || quote_ident(current_user)),
	(SELECT rolsuper FROM pg_roles WHERE rolname = current_user), quote_ident(current_user)
FROM a ORDER BY a.i, 3`

// pgRoleRetry is how often, at most, ad-hoc SQL on a model whose role's
// privileges could not be read makes the server read them again
// (PGRoleProblem).
const pgRoleRetry = 30 * time.Second

// pgRoleTimeout bounds one reading of the role's privileges.
const pgRoleTimeout = 10 * time.Second

// PGRoleProblem says what a PostgreSQL model's role can still do that ad-hoc
// SQL must not (pgRisks without Warn), with the statements that take it away;
// "" when the role holds none of those privileges. The server refuses ad-hoc
// SQL on the model while it is not "". It is what the last reading found
// (PGRoleRecheck reads them again when that failed).
func (p *Postgres) PGRoleProblem() string {
	p.roleMu.Lock()
	defer p.roleMu.Unlock()
	return p.role.refuse
}

// PGRoleRecheck is PGRoleProblem for ad-hoc SQL about to run: when the
// privileges could not be read, the server reads them again first, at most
// every pgRoleRetry, each reading bounded by pgRoleTimeout (and ended by
// Close). The reading runs on its own: the query waits for it while ctx lets
// it (its own time limit, its client still there), and the queries that
// arrive meanwhile wait for the same reading. A query whose ctx ends first is
// told that the privileges are being read again. unread says why is about
// privileges not read (yet), not about what the role holds. describe and the
// log take PGRoleProblem, and never wait.
func (p *Postgres) PGRoleRecheck(ctx context.Context) (why string, unread bool) {
	p.roleMu.Lock()
	c, wait := p.role, p.roleRead
	if c.unread && wait == nil && time.Since(p.roleAt) >= pgRoleRetry && !p.closed.Load() {
		wait = make(chan struct{})
		p.roleRead = wait
		go p.rereadRole(wait)
	}
	p.roleMu.Unlock()
	if !c.unread || wait == nil {
		return c.refuse, c.unread
	}
	select {
	case <-wait:
		p.roleMu.Lock()
		defer p.roleMu.Unlock()
		return p.role.refuse, p.role.unread
	case <-ctx.Done():
		return "the server is reading the privileges of its PostgreSQL role again, as its last reading failed, and had not finished in the time a query waits for it (a tenth of the query's time limit, at most 1 s): ask again shortly (the last reading: " + c.refuse + ")", true
	}
}

// PGRoleUnread reports whether the role's privileges could not be read at
// the last reading: PGRoleProblem then says why, not what the role holds.
func (p *Postgres) PGRoleUnread() bool {
	p.roleMu.Lock()
	defer p.roleMu.Unlock()
	return p.role.unread
}

// roleReader is the client whose turn a reading of the role's privileges
// takes (rereadRole): no client's address holds a NUL.
const roleReader = "\x00the server's reading of its role"

// rereadRole reads the role's privileges again (PGRoleRecheck), and closes
// done when it has.
func (p *Postgres) rereadRole(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), pgRoleTimeout)
	defer cancel()
	go func() { // Close ends the reading: the pool waits for its connection

		select {
		case <-p.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	// The reading takes one of the model's connections as a query does, in
	// its turn (a client of its own), so that it never holds one a query's
	// turn was given.
	var c roleCheck
	switch err := p.slots.acquire(ctx, roleReader, p.closing); {
	case err == nil:
		c = checkRole(ctx, p.pool, pgRisks, p.unlocked)
		p.slots.release()
	case err == ErrClosed || p.closed.Load():
		c = roleCheck{unread: true, refuse: "the model was closed before the server could read the privileges of its PostgreSQL role again"}
	default:
		c = roleCheck{unread: true, refuse: fmt.Sprintf("the server could not read the privileges of its PostgreSQL role (every one of the model's %d connections stayed busy for %v), so ad-hoc SQL is not served for now: the server reads them again at the next ad-hoc query, at most every %v; the README's PostgreSQL section lists the privileges it checks", pgMaxConns, pgRoleTimeout, pgRoleRetry)}
	}
	p.roleMu.Lock()
	p.role, p.roleAt, p.roleRead = c, time.Now(), nil
	p.roleMu.Unlock()
	close(done)
}

// PGRoleWarning says which of pgRisks' Warn privileges the role still holds,
// with the statements that take them away; "" for none. Ad-hoc SQL is served.
func (p *Postgres) PGRoleWarning() string {
	p.roleMu.Lock()
	defer p.roleMu.Unlock()
	return p.role.warn
}

// roleCheck is what checkRole found.
type roleCheck struct {
	refuse, warn string
	super        bool // the role is a superuser
	unread       bool // the privileges could not be read (refuse says so)
}

// checkRole is readRole, and with unlocked (PGConfig.UnlockedRole) each
// refusal a warning instead (unlock), which says that ad-hoc SQL is served
// all the same.
func checkRole(ctx context.Context, pool *pgxpool.Pool, risks []pgRisk, unlocked bool) roleCheck {
	c := readRole(ctx, pool, risks)
	if unlocked {
		c = c.unlock()
	}
	return c
}

// unlock is c under -pg-unlocked-role: its refusal a warning, except for a
// superuser's (who may read and write the database server's files, and
// write outside the read-only transaction: no revoking takes that away) and
// for privileges that could not be read.
func (c roleCheck) unlock() roleCheck {
	if c.refuse == "" || c.super || c.unread {
		return c
	}
	c.warn = strings.TrimPrefix(c.warn+" ", " ") + "ad-hoc SQL is served all the same, as the server was started with -pg-unlocked-role, though: " + c.refuse
	c.refuse = ""
	return c
}

// readRole reads which of risks the pool's role holds. A failure to read
// them is a refusal: ad-hoc SQL is not served on a role the server could not
// check.
func readRole(ctx context.Context, pool *pgxpool.Pool, risks []pgRisk) roleCheck {
	kinds, objs := make([]string, len(risks)), make([]string, len(risks))
	for i, r := range risks {
		kinds[i], objs[i] = r.Kind, r.Object
	}
	unread := func(err error) roleCheck {
		return roleCheck{unread: true, refuse: fmt.Sprintf("the server could not read the privileges of its PostgreSQL role (%s), so ad-hoc SQL is not served for now: the server reads them again at the next ad-hoc query, at most every %v; the README's PostgreSQL section lists the privileges it checks", err, pgRoleRetry)}
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return unread(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO pg_catalog, pg_temp"); err != nil {
		return unread(err)
	}
	rows, err := tx.Query(ctx, pgRiskSQL, kinds, objs)
	if err != nil {
		return unread(err)
	}
	// The objects to revoke, by tier ([0]: refused, [1]: warned), privilege
	// ([0]: EXECUTE on functions, [1]: SELECT on views) and the roles to
	// revoke them from, in the order first met.
	type key struct {
		tier, on int
		from     string
	}
	revoke := map[key][]string{}
	var order []key
	objs = make([]string, len(risks))
	super, role := false, ""
	for rows.Next() {
		var i int
		var kind, obj, from string
		if err := rows.Scan(&i, &kind, &obj, &from, &super, &role); err != nil {
			rows.Close()
			return unread(err)
		}
		tier := 0
		if risks[i-1].Warn {
			tier = 1
		}
		if objs[i-1] != "" {
			objs[i-1] += ", "
		}
		objs[i-1] += obj
		on := 0
		if kind == "TABLE" {
			on = 1
		}
		k := key{tier, on, from}
		if _, ok := revoke[k]; !ok {
			order = append(order, k)
		}
		revoke[k] = append(revoke[k], obj)
	}
	var revokes [2][]string
	for _, k := range order {
		revokes[k.tier] = append(revokes[k.tier], "REVOKE "+[]string{"EXECUTE ON FUNCTION ", "SELECT ON "}[k.on]+strings.Join(revoke[k], ", ")+" FROM "+k.from+";")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return unread(err)
	}
	var held [2][]string
	for i, r := range risks {
		if objs[i] == "" {
			continue
		}
		what := objs[i]
		if r.Kind == "EXTENSION" {
			what = "the extension " + r.Object + "'s " + what
		}
		if r.Warn {
			held[1] = append(held[1], what+": "+r.Why)
		} else {
			held[0] = append(held[0], what+": "+r.Why)
		}
	}
	c := roleCheck{super: super}
	if super && len(held[0])+len(held[1]) > 0 {
		c.refuse = fmt.Sprintf("the PostgreSQL role %s is a superuser, which holds every privilege (it may read the server's files, and write outside the read-only transaction), so ad-hoc SQL is not served: connect as a role of its own that is not a superuser, and revoke from it what the README's PostgreSQL section lists (-pg-unlocked-role does not serve a superuser)", role)
		return c
	}
	const as = "as a superuser, in the model's database, run: "
	if len(held[0]) > 0 {
		c.refuse = fmt.Sprintf("the PostgreSQL role %s may still call what ad-hoc SQL must not (%s), so ad-hoc SQL is not served on this model (its named queries, sources and notebook cells still run); %s%s — then touch the model's file or restart the server",
			role, strings.Join(held[0], "; "), as, strings.Join(revokes[0], " "))
	}
	if len(held[1]) > 0 {
		c.warn = fmt.Sprintf("the PostgreSQL role %s may still call %s (ad-hoc SQL is served); %s%s",
			role, strings.Join(held[1], "; "), as, strings.Join(revokes[1], " "))
	}
	return c
}
