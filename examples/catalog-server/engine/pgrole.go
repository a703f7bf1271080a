package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pgRisk is a privilege PUBLIC holds by default in PostgreSQL that lets ad-hoc
// SQL do, within a read-only transaction, what the read-only endpoint must not
// allow. A check of names in the SQL cannot stop them: functions that run SQL
// held in a string (query_to_xml('select …'), and any a database may have)
// call them without their names being in the text. The role's privileges can.
type pgRisk struct {
	Kind   string // FUNCTION or TABLE (a view), as REVOKE writes it
	Object string // regprocedure or regclass text, resolvable whatever the search_path
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
	{"FUNCTION", "pg_catalog.txid_current()", "assigns a transaction ID in the read-only transaction at each call, using up the cluster's IDs (toward wraparound vacuums)", false},
	{"FUNCTION", "pg_catalog.pg_current_xact_id()", "the same as txid_current", false},
	{"FUNCTION", "pg_catalog.pg_sleep(double precision)", "holds one of the model's connections for the whole time limit doing nothing", true},
	{"FUNCTION", "pg_catalog.pg_sleep_for(interval)", "the same as pg_sleep", true},
	{"FUNCTION", "pg_catalog.pg_sleep_until(timestamp with time zone)", "the same as pg_sleep", true},
	{"FUNCTION", "pg_catalog.pg_cancel_backend(integer)", "cancels another client's query (a role may signal its own sessions)", true},
	{"FUNCTION", "pg_catalog.pg_terminate_backend(integer,bigint)", "ends another client's connection", true},
}

// pgRiskSQL finds which of pgRisks the connected role holds (the objects as
// PostgreSQL writes them) and whether it is a superuser.
const pgRiskSQL = `SELECT r.i, CASE WHEN r.kind = 'TABLE' THEN to_regclass(r.obj)::text ELSE to_regprocedure(r.obj)::text END,
	(SELECT rolsuper FROM pg_roles WHERE rolname = current_user), quote_ident(current_user)
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(kind, obj, i)
WHERE CASE WHEN r.kind = 'TABLE' THEN has_table_privilege(to_regclass(r.obj), 'SELECT')
	ELSE has_function_privilege(to_regprocedure(r.obj), 'EXECUTE') END`

// PGRoleProblem says what a PostgreSQL model's role can still do that ad-hoc
// SQL must not (pgRisks without Warn), with the statements that take it away;
// "" when the role holds none of those privileges. The server refuses ad-hoc
// SQL on the model while it is not "".
func (p *Postgres) PGRoleProblem() string { return p.role.refuse }

// PGRoleWarning says which of pgRisks' Warn privileges the role still holds,
// with the statements that take them away; "" for none. Ad-hoc SQL is served.
func (p *Postgres) PGRoleWarning() string { return p.role.warn }

// roleCheck is what checkRole found.
type roleCheck struct{ refuse, warn string }

// checkRole reads which of risks the pool's role holds. A failure to read
// them is a refusal: ad-hoc SQL is not served on a role the server could not
// check.
func checkRole(ctx context.Context, pool *pgxpool.Pool, risks []pgRisk) roleCheck {
	kinds, objs := make([]string, len(risks)), make([]string, len(risks))
	for i, r := range risks {
		kinds[i], objs[i] = r.Kind, r.Object
	}
	unread := func(err error) roleCheck {
		return roleCheck{refuse: "the server could not read the privileges of its PostgreSQL role (" + err.Error() + "), so ad-hoc SQL is not served until the model opens again; the README's PostgreSQL section lists the privileges it checks"}
	}
	rows, err := pool.Query(ctx, pgRiskSQL, kinds, objs)
	if err != nil {
		return unread(err)
	}
	var held, revokes [2][]string // [0]: refused, [1]: warned
	super, role := false, ""
	for rows.Next() {
		var i int
		var obj string
		if err := rows.Scan(&i, &obj, &super, &role); err != nil {
			rows.Close()
			return unread(err)
		}
		r := risks[i-1]
		tier := 0
		if r.Warn {
			tier = 1
		}
		held[tier] = append(held[tier], obj+": "+r.Why)
		on := "EXECUTE ON FUNCTION "
		if r.Kind == "TABLE" {
			on = "SELECT ON "
		}
		revokes[tier] = append(revokes[tier], "REVOKE "+on+obj+" FROM PUBLIC, "+role+";")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return unread(err)
	}
	var c roleCheck
	if super && len(held[0])+len(held[1]) > 0 {
		c.refuse = fmt.Sprintf("the PostgreSQL role %s is a superuser, which holds every privilege (it may read the server's files, and write outside the read-only transaction), so ad-hoc SQL is not served: connect as a role of its own that is not a superuser, and revoke from it what the README's PostgreSQL section lists", role)
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
