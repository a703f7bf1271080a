#!/usr/bin/env bash
# The catalog-server example module: its tests with -race, against a PostgreSQL
# cluster of Debian's postgresql package started here on 127.0.0.1 and dropped
# afterwards, and its TypeScript SDK / MCP Inspector checks (Node 22).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Below Linux's range of ephemeral ports (32768-60999): a port there can be held
# by any outgoing connection on the machine (a test's, a pool's), and the
# cluster or a pgbouncer then cannot listen (seen: pgbouncer on 54330, "Address
# already in use", held for more than 10 s).
PGPORT="${CATALOG_PGPORT:-25432}"
# One cluster per port, so that runs on different ports do not drop each other's.
CLUSTER="catalogci$PGPORT"

BOUNCERPORT="${CATALOG_PGBOUNCERPORT:-$((PGPORT + 1))}"
# A second pgbouncer, built here from Debian's source tarball (bookworm has only
# 1.18): 1.21 and later track protocol-level prepared statements in transaction
# mode (max_prepared_statements, on by default from 1.24.0), which users run today.
BOUNCER2PORT="${CATALOG_PGBOUNCER2PORT:-$((BOUNCERPORT + 1))}"
BOUNCER2VER=1.24.1
BOUNCER2URL="http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_$BOUNCER2VER.orig.tar.gz"
# The tarball's sha256, computed from the file whose md5 and size trixie's Sources
# list (434cbb2db9034d358dddf525e0e5a3dd, 717796 bytes).
BOUNCER2SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0

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
		for log in "$BOUNCERDIR/pgbouncer.log" "$BOUNCERDIR/$BOUNCER2VER/pgbouncer.log"; do
			if [ "$status" -ne 0 ] && [ -f "$log" ]; then
				echo "$log (routine lines left out):" >&2
				grep -v -e 'login attempt' -e 'new connection' -e 'closing because' -e 'cancel request' -e 'LOG stats:' -e 'SSL established' "$log" | tail -40 >&2 || true
			fi
		done
		for pidfile in "$BOUNCERDIR/pgbouncer.pid" "$BOUNCERDIR/$BOUNCER2VER/pgbouncer.pid"; do
			if [ -f "$pidfile" ]; then
				kill "$(cat "$pidfile")" 2>/dev/null || true
			fi
		done
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
# bouncer_start BINARY DIR PORT: writes DIR/pgbouncer.ini (DIR/users.txt, its
# pidfile and log in DIR too) and starts BINARY with it on 127.0.0.1:PORT, until
# it accepts a connection (twice at most, its log shown when it did not come
# up), or the step fails here rather than in the tests.
bouncer_start() {
	local bin=$1 dir=$2 port=$3
	# Something else on the port (a pgbouncer left by a killed run) would
	# answer for this one, and the tests would run against it.
	if bouncer_up "$port"; then
		echo "127.0.0.1:$port is taken before $bin starts; set CATALOG_PGPORT (and the pgbouncer ports) to free ones" >&2
		return 1
	fi
	mkdir -p "$dir"
	cat >"$dir/pgbouncer.ini" <<INI
[databases]
catalog = host=127.0.0.1 port=$PGPORT dbname=catalog
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
default_pool_size = 8
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
INI
	echo '"catalog" ""' >"$dir/users.txt"
	chown -R postgres "$dir"
	for try in 1 2; do
		su postgres -c "'$bin' -d '$dir/pgbouncer.ini'" || true
		for _ in $(seq 100); do
			bouncer_up "$port" && break
			sleep 0.1
		done
		bouncer_up "$port" && break
		echo "$bin is not listening on 127.0.0.1:$port (try $try); its log:" >&2
		cat "$dir/pgbouncer.log" >&2 || true
	done
	bouncer_up "$port"
}
bouncer_up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
bouncer_start pgbouncer "$BOUNCERDIR" "$BOUNCERPORT"
export CATALOG_TEST_PGBOUNCER_DSN="postgres://catalog@127.0.0.1:$BOUNCERPORT/catalog?sslmode=disable"

# pgbouncer $BOUNCER2VER, built from Debian's source tarball (checked against its
# sha256; the step fails if the download, the check or the build does), with
# max_prepared_statements at its default (200). About 15 s on 2 cores, with
# the -dev packages it needs installed when missing.
BOUNCER2DEPS="curl libevent-dev libc-ares-dev libssl-dev pkg-config make gcc"
# shellcheck disable=SC2086 # a list of package names
if ! dpkg -s $BOUNCER2DEPS >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $BOUNCER2DEPS >/dev/null ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $BOUNCER2DEPS >/dev/null; }
fi
BUILD="$BOUNCERDIR/build"
mkdir -p "$BUILD"
if ! curl -fsSL --retry 3 --max-time 300 -o "$BUILD/pgbouncer.tar.gz" "$BOUNCER2URL"; then
	echo "catalog: could not download $BOUNCER2URL" >&2
	exit 1
fi
if ! echo "$BOUNCER2SHA256  $BUILD/pgbouncer.tar.gz" | sha256sum -c --quiet -; then
	echo "catalog: $BOUNCER2URL does not have the sha256 $BOUNCER2SHA256" >&2
	exit 1
fi
tar -xzf "$BUILD/pgbouncer.tar.gz" -C "$BUILD"
(
	cd "$BUILD/pgbouncer-$BOUNCER2VER"
	./configure --prefix="$BUILD/inst" >"$BUILD/build.log" 2>&1 &&
		make -j2 >>"$BUILD/build.log" 2>&1 &&
		make install >>"$BUILD/build.log" 2>&1
) || {
	echo "catalog: pgbouncer $BOUNCER2VER did not build; the end of its log:" >&2
	tail -40 "$BUILD/build.log" >&2
	exit 1
}
"$BUILD/inst/bin/pgbouncer" --version | grep -q "^PgBouncer $BOUNCER2VER\$" ||
	{ echo "catalog: the pgbouncer built is not $BOUNCER2VER" >&2; exit 1; }
bouncer_start "$BUILD/inst/bin/pgbouncer" "$BOUNCERDIR/$BOUNCER2VER" "$BOUNCER2PORT"

if [ -z "${WIREMCP_NODE:-}" ] && [ -f "$ROOT/.ci/node22.sh" ]; then
	WIREMCP_NODE="$(bash "$ROOT/.ci/node22.sh")"
	export WIREMCP_NODE
fi

cd "$ROOT/examples/catalog-server"
# Race tests of every package, DuckDB ones included: a cold build of the module
# (duckdb-go's cgo glue, arrow-go) takes about 70 s of CPU; go vet would build it all
# a second time without -race, so it is left to the developers' pre-commit checks.
go test -race -count=1 ./...
# The tests through pgbouncer once more, through $BOUNCER2VER (its
# max_prepared_statements at the default): in each package, the Test functions
# whose code (comments left out) names CATALOG_TEST_PGBOUNCER_DSN or
# pgbouncerDSN, found here so that a new one is not left out.
bouncer_tests() {
	awk '/^func /{name=""} /^func Test[A-Za-z0-9_]*\(/{name=$2; sub(/\(.*/, "", name)}
		!/^[ \t]*\/\// && /CATALOG_TEST_PGBOUNCER_DSN|pgbouncerDSN\(/{if (name != "") print name}' "$1"/*_test.go | sort -u | paste -sd'|' -
}
ran=0
for pkg in $(grep -rl --include='*_test.go' -e CATALOG_TEST_PGBOUNCER_DSN -e 'pgbouncerDSN(' . | xargs -r -n1 dirname | sort -u); do
	names=$(bouncer_tests "$pkg")
	[ -n "$names" ] || continue
	echo "through pgbouncer $BOUNCER2VER, in $pkg: $names"
	CATALOG_TEST_PGBOUNCER_DSN="postgres://catalog@127.0.0.1:$BOUNCER2PORT/catalog?sslmode=disable" go test -race -count=1 -run "^($names)\$" "$pkg/"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "catalog: no test through pgbouncer found to run against $BOUNCER2VER" >&2; exit 1; }
# The query benchmarks once each (about 20 s): every way returns duckdb-go's rows, and
# the benchmark binary starts itself again with the query processes' allocator
# settings (benchdata.WithMalloc).
go test -race -count=1 -run '^$' -bench 'ExecuteQuery|HeadToHead|IsolatedQuery|WorkerMalloc|WorkerGoProcs' -benchtime 1x .

# The comparison with the other Go MCP libraries (a module of its own): one round per
# query, which checks that every library's way returns duckdb-go's rows. duckdb-go's
# race build is the one the tests above left in the cache.
cd "$ROOT/examples/catalog-server/compare"
go test -race -count=1 -run '^$' -bench Compare -benchtime 1x .
