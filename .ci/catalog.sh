#!/usr/bin/env bash
# The catalog-server example module: its tests with -race, against a PostgreSQL
# cluster of Debian's postgresql package started here on 127.0.0.1 and dropped
# afterwards, and its TypeScript SDK / MCP Inspector checks (Node 22).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PGPORT="${CATALOG_PGPORT:-54329}"
# One cluster per port, so that runs on different ports do not drop each other's.
CLUSTER="catalogci$PGPORT"

BOUNCERPORT="${CATALOG_PGBOUNCERPORT:-$((PGPORT + 1))}"

if ! command -v pg_createcluster >/dev/null || ! command -v pgbouncer >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql pgbouncer >/dev/null
fi
PGVER="$(ls /usr/lib/postgresql | sort -V | tail -1)"
BOUNCERDIR=""

cleanup() {
	local status=$?
	if [ -n "$BOUNCERDIR" ]; then
		# On a failure, what pgbouncer logged besides its routine lines: whether
		# it was up, and whether it stopped before the end.
		if [ "$status" -ne 0 ] && [ -f "$BOUNCERDIR/pgbouncer.log" ]; then
			echo "pgbouncer's log (routine lines left out):" >&2
			grep -v -e 'login attempt' -e 'new connection' -e 'closing because' -e 'cancel request' -e 'LOG stats:' "$BOUNCERDIR/pgbouncer.log" | tail -40 >&2 || true
		fi
		if [ -f "$BOUNCERDIR/pgbouncer.pid" ]; then
			kill "$(cat "$BOUNCERDIR/pgbouncer.pid")" 2>/dev/null || true
		fi
		rm -rf "$BOUNCERDIR"
	fi
	pg_dropcluster --stop "$PGVER" "$CLUSTER" 2>/dev/null || true
}
trap cleanup EXIT
cleanup
BOUNCERDIR="$(mktemp -d /tmp/catalog-pgbouncer.XXXXXX)"
# A throwaway cluster owned by the postgres user, listening on loopback only, with
# trust authentication for local TCP (nothing else can reach it).
pg_createcluster "$PGVER" "$CLUSTER" -p "$PGPORT" -- --auth-host=trust --auth-local=peer >/dev/null
echo "listen_addresses = '127.0.0.1'" >"/etc/postgresql/$PGVER/$CLUSTER/conf.d/listen.conf"
pg_ctlcluster "$PGVER" "$CLUSTER" start
su postgres -c "psql -q -p $PGPORT -c \"CREATE ROLE catalog LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE\" -c \"CREATE DATABASE catalog OWNER catalog\""
# The role set up as the README's PostgreSQL section says: the server refuses ad-hoc
# SQL on a model whose role may still call these (engine/pgrole.go, pgRisks). The
# sleep and signal functions, which the README recommends revoking too (the server
# only warns), stay: the tests use pg_sleep to hold connections and
# pg_terminate_backend to break one. The role's transactions are read-only by
# default, the README's second layer (engine's TestPostgresRoleReadOnlyByDefault
# fails under CI without it); the tests' fixtures, which the same role writes,
# begin their transactions READ WRITE.
su postgres -c "psql -q -v ON_ERROR_STOP=1 -p $PGPORT -d catalog" <<'SQL'
ALTER ROLE catalog SET default_transaction_read_only = on;
REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text), pg_logical_emit_message(boolean, text, bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION set_config(text, text, boolean) FROM PUBLIC;
REVOKE SELECT ON pg_stat_activity FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_stat_get_activity(integer), pg_stat_get_backend_activity(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION txid_current(), pg_current_xact_id() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION lo_from_bytea(oid, bytea), lo_create(oid), lo_creat(integer), lo_put(oid, bigint, bytea), lo_open(oid, integer), lowrite(integer, bytea), lo_truncate(integer, integer), lo_truncate64(integer, bigint), lo_unlink(oid) FROM PUBLIC;
SQL
export CATALOG_TEST_PG_DSN="postgres://catalog@127.0.0.1:$PGPORT/catalog?sslmode=disable"
# A superuser of the same cluster, for the role check's tests that need one
# (a granting role, a superuser under -pg-unlocked-role).
export CATALOG_TEST_PG_SUPER_DSN="postgres://postgres@127.0.0.1:$PGPORT/catalog?sslmode=disable"
# pgbouncer in front of the cluster, in transaction pooling mode (what users
# commonly run), on loopback only, letting the catalog role in without a
# password as the cluster does; it does not run as root. The engine's tests
# through it read CATALOG_TEST_PGBOUNCER_DSN.
cat >"$BOUNCERDIR/pgbouncer.ini" <<INI
[databases]
catalog = host=127.0.0.1 port=$PGPORT dbname=catalog
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCERPORT
unix_socket_dir =
auth_type = trust
auth_file = $BOUNCERDIR/users.txt
pool_mode = transaction
default_pool_size = 8
pidfile = $BOUNCERDIR/pgbouncer.pid
logfile = $BOUNCERDIR/pgbouncer.log
INI
echo '"catalog" ""' >"$BOUNCERDIR/users.txt"
chown -R postgres "$BOUNCERDIR"
# Started until it accepts a connection (twice at most, its log shown when it
# did not come up), or the step fails here rather than in the tests.
bouncer_up() { (exec 3<>"/dev/tcp/127.0.0.1/$BOUNCERPORT") 2>/dev/null; }
for try in 1 2; do
	su postgres -c "pgbouncer -d '$BOUNCERDIR/pgbouncer.ini'" || true
	for _ in $(seq 100); do
		bouncer_up && break
		sleep 0.1
	done
	bouncer_up && break
	echo "pgbouncer is not listening on 127.0.0.1:$BOUNCERPORT (try $try); its log:" >&2
	cat "$BOUNCERDIR/pgbouncer.log" >&2 || true
done
bouncer_up
export CATALOG_TEST_PGBOUNCER_DSN="postgres://catalog@127.0.0.1:$BOUNCERPORT/catalog?sslmode=disable"

if [ -z "${WIREMCP_NODE:-}" ] && [ -f "$ROOT/.ci/node22.sh" ]; then
	WIREMCP_NODE="$(bash "$ROOT/.ci/node22.sh")"
	export WIREMCP_NODE
fi

cd "$ROOT/examples/catalog-server"
# Race tests of every package, DuckDB ones included: a cold build of the module
# (duckdb-go's cgo glue, arrow-go) takes about 70 s of CPU; go vet would build it all
# a second time without -race, so it is left to the developers' pre-commit checks.
go test -race -count=1 ./...
# The query benchmarks once each (about 20 s): every way returns duckdb-go's rows, and
# the benchmark binary starts itself again with the query processes' allocator
# settings (benchdata.WithMalloc).
go test -race -count=1 -run '^$' -bench 'ExecuteQuery|HeadToHead|IsolatedQuery|WorkerMalloc|WorkerGoProcs' -benchtime 1x .

# The comparison with the other Go MCP libraries (a module of its own): one round per
# query, which checks that every library's way returns duckdb-go's rows. duckdb-go's
# race build is the one the tests above left in the cache.
cd "$ROOT/examples/catalog-server/compare"
go test -race -count=1 -run '^$' -bench Compare -benchtime 1x .
