#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against examples/everything-server and examples/everything-client.
#
#   .ci/official-suite.sh            # from anywhere inside a clone
#
# What it does:
#   1. installs Node 22 (npm package node@22) and the suite at two pinned versions
#      (0.1.16 and 0.2.0-alpha.12) into ${WIREMCP_CACHE:-$HOME/.cache/wiremcp}; a
#      complete cached install is reused, a missing or broken cache is rebuilt, and an
#      unusable cache folder falls back to a temporary one (the cache is never needed);
#   2. builds both example programs with go build;
#   3. starts the everything-server on a free 127.0.0.1 port, stateful and -stateless;
#   4. runs the server scenarios: 0.1.16 "server --suite all", alpha.12
#      "server --requirements 2025-11-25", and both again against -stateless for the
#      scenarios that apply without a session (see STATELESS_SCENARIOS);
#   5. runs the client scenarios that need no OAuth, with both versions, and with
#      alpha.12 the OAuth client scenarios (AUTH_SCENARIOS, the 2025-03-26 back-compat
#      pair, the client-credentials extensions);
#   6. runs the 2026-07-28 half with alpha.12: "server --requirements 2026-07-28"
#      (every scenario of that set, scored or not, tasks extension included) against
#      the same stateful server process and URL as the 2025-11-25 runs (the server is
#      dual-era), and the 2026-07-28 client scenarios, OAuth ones included;
#   7. prints each run's summary lines and fails when any check of any run is a
#      FAILURE or a WARNING. There is no expected-failures file.
# Every process it starts is stopped on exit (trap).
#
# Environment:
#   WIREMCP_CACHE        cache folder (default $HOME/.cache/wiremcp)
#   WIREMCP_SUITE_OUT    keep the suite's raw results (checks.json per scenario) here
#   WIREMCP_SUITE_2026=0 skip the 2026-07-28 scenarios (step 6; run by default)
#   NPM                  npm command (default npm)
set -uo pipefail

SUITE_OLD=0.1.16
SUITE_NEW=0.2.0-alpha.12
NODE_SPEC=node@22

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${WIREMCP_CACHE:-$HOME/.cache/wiremcp}
NPM=${NPM:-npm}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wiremcp-suite.XXXXXX")
OUT=${WIREMCP_SUITE_OUT:-$WORK/results}
mkdir -p "$OUT"

# Processes started by this script, as "pid:command" entries. cleanup stops those
# still running, after checking that the pid still runs the command it started (a pid
# is never signalled after it may have been reused).
PIDS=()
stop_pid() {
	local pid=${1%%:*} cmd=${1#*:}
	if ! command -v ps >/dev/null 2>&1; then
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
		return 0
	fi
	case "$(ps -o args= -p "$pid" 2>/dev/null)" in
	"$cmd"*) kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null ;;
	esac
	return 0
}
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		stop_pid "$p"
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '\n=== %s\n' "$*"; }
die() {
	printf 'official-suite: %s\n' "$*" >&2
	exit 1
}

# shellcheck source=lib.sh
. "$ROOT/.ci/lib.sh"

log "Installing Node 22 and the conformance suite ($SUITE_OLD, $SUITE_NEW)"
command -v "$NPM" >/dev/null || die "npm not found"
N22=$(npm_install n22 "$NODE_SPEC" 'node_modules/node/bin/node --version | grep -q "^v22\."') || die "cannot install $NODE_SPEC"
NODE=$N22/node_modules/node/bin/node
conf_check() { echo "[ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ] && grep -q '\"version\": \"$1\"' node_modules/@modelcontextprotocol/conformance/package.json"; }
D_OLD=$(npm_install "conformance-$SUITE_OLD" "@modelcontextprotocol/conformance@$SUITE_OLD" "$(conf_check $SUITE_OLD)") || die "cannot install conformance $SUITE_OLD"
D_NEW=$(npm_install "conformance-$SUITE_NEW" "@modelcontextprotocol/conformance@$SUITE_NEW" "$(conf_check $SUITE_NEW)") || die "cannot install conformance $SUITE_NEW"
CONF_OLD=$D_OLD/node_modules/@modelcontextprotocol/conformance/dist/index.js
CONF_NEW=$D_NEW/node_modules/@modelcontextprotocol/conformance/dist/index.js
echo "node $("$NODE" --version) at $NODE"
echo "suite $SUITE_OLD at $CONF_OLD"
echo "suite $SUITE_NEW at $CONF_NEW"

log "Building examples/everything-server and examples/everything-client"
(cd "$ROOT" && go build -o "$WORK/everything-server" ./examples/everything-server) || die "go build everything-server failed"
(cd "$ROOT" && go build -o "$WORK/everything-client" ./examples/everything-client) || die "go build everything-client failed"

# start_server NAME [FLAGS...]: starts the everything-server on a free port and sets
# URL to its endpoint.
start_server() {
	local name=$1 logf i
	shift
	logf=$WORK/$name.log
	"$WORK/everything-server" -http 127.0.0.1:0 "$@" 2>"$logf" &
	local pid=$!
	PIDS+=("$pid:$WORK/everything-server")
	URL=
	for i in $(seq 1 200); do
		URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$logf" 2>/dev/null | head -n1)
		[ -n "$URL" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$URL" ] || {
		cat "$logf" >&2
		die "the everything-server ($name) did not start"
	}
	echo "everything-server ($name) at $URL"
}

FAILED=()
TOTAL_RUNS=0

# judge LABEL DIR: reports every FAILURE and WARNING check written under DIR.
judge() {
	"$NODE" - "$1" "$2" <<'EOF'
const fs = require('fs'), path = require('path');
const [label, dir] = process.argv.slice(2);
let bad = 0, scenarios = 0;
// checks.json sits one folder down, or two for scenarios named with a slash (auth/...).
const results = [];
for (const e of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  if (fs.existsSync(path.join(dir, e, 'checks.json'))) { results.push(e); continue; }
  const sub = path.join(dir, e);
  if (!fs.statSync(sub).isDirectory()) continue;
  for (const e2 of fs.readdirSync(sub)) {
    if (fs.existsSync(path.join(sub, e2, 'checks.json'))) results.push(path.join(e, e2));
  }
}
for (const e of results) {
  const f = path.join(dir, e, 'checks.json');
  scenarios++;
  const name = e.replace(/^(server|client)-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
  for (const c of JSON.parse(fs.readFileSync(f, 'utf8'))) {
    if (c.status === 'FAILURE' || c.status === 'WARNING') {
      bad++;
      console.log(`  ${label}: ${name}: ${c.status} ${c.id}: ${c.errorMessage || c.description}`);
    }
  }
}
if (scenarios === 0) { console.log(`  ${label}: no results were written`); process.exit(1); }
process.exit(bad ? 1 : 0);
EOF
}

# run LABEL CONF ARGS...: runs one suite invocation, prints its summary lines, and
# records a failure when it exits non-zero or any check failed or warned.
run() {
	local label=$1 conf=$2 dir rc
	shift 2
	TOTAL_RUNS=$((TOTAL_RUNS + 1))
	dir=$OUT/$(printf '%02d' "$TOTAL_RUNS")-${label//[^A-Za-z0-9._-]/_}
	rm -rf "$dir" "$dir.out"
	mkdir -p "$dir"
	log "$label"
	# In the background and waited for, so that a signal reaches the trap at once;
	# the suite run is stopped with the rest.
	with_timeout 900 "$NODE" "$conf" "$@" -o "$dir" >"$dir.out" 2>&1 &
	local pid=$!
	PIDS+=("$pid:$( command -v timeout >/dev/null 2>&1 && echo timeout || echo "$NODE")")
	wait "$pid"
	rc=$?
	unset 'PIDS[-1]'
	PIDS=("${PIDS[@]}")
	# The summary: one line per scenario, the totals, and the not-scored block.
	sed -e 's/\x1b\[[0-9;]*m//g' "$dir.out" |
		grep -E '^[[:space:]]*[✓✗]|^(Total|Passed|Not scored|Running (all|active|requirements))|^  - .*(pending|added|extension)' || true
	if ! judge "$label" "$dir" || [ "$rc" -ne 0 ]; then
		if [ "$rc" -ne 0 ]; then
			echo "  $label: the suite exited with status $rc; the end of its output:"
			sed -e 's/\x1b\[[0-9;]*m//g' "$dir.out" | grep -v '^[[:space:]]*$' | tail -n 12 | sed 's/^/    | /'
			grep -h '^everything-client:' "$dir.out" | head -n 5 | sed 's/^/    | /'
		fi
		FAILED+=("$label")
	fi
}

# run_scenarios LABEL CONF server|client URL|COMMAND SPEC-VERSION SCENARIOS...: one
# suite run per scenario, on the wire of SPEC-VERSION.
run_scenarios() {
	local label=$1 conf=$2 mode=$3 target=$4 spec=$5 s
	shift 5
	for s in "$@"; do
		if [ "$mode" = server ]; then
			run "$label $s" "$conf" server --url "$target" --scenario "$s" --spec-version "$spec"
		else
			run "$label $s" "$conf" client --command "$target" --scenario "$s" --spec-version "$spec"
		fi
	done
}

# Server scenarios of 2025-11-25 that apply to a server without sessions. Left out:
# tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults and
# elicitation-sep1330-enums (a server-to-client request needs a session to route the
# client's answer back), server-sse-polling (resuming a stream needs the session's GET
# stream), server-sse-multiple-streams and server-session-lifecycle (they test
# sessions), resources-subscribe and resources-unsubscribe (a subscription lives in a
# session).
STATELESS_SCENARIOS=(
	server-initialize logging-set-level ping completion-complete tools-list
	tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
	tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress
	json-schema-2020-12 resources-list resources-read-text resources-read-binary
	resources-templates-read prompts-list prompts-get-simple prompts-get-with-args
	prompts-get-embedded-resource prompts-get-with-image dns-rebinding-protection
)

# OAuth client scenarios (alpha.12), run against examples/everything-client, which
# authorizes with package auth. AUTH_SCENARIOS are scored by both 2025-11-25 and
# 2026-07-28 and run on both wires (run_auth_suite); AUTH_SCENARIOS_2026 only on the 2026-07-28 wire
# (step 6); AUTH_SCENARIOS_2025_03_26 are the two back-compat scenarios, on the
# 2025-03-26 wire; AUTH_EXTENSIONS are the client-credentials extension scenarios
# (not scored), run at the wire the suite picks for extensions. Left out: the other
# extensions (enterprise-managed-authorization, dpop, dpop-nonce, wif-jwt-bearer),
# which package auth does not implement.
AUTH_SCENARIOS=(
	auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
	auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
	auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
	auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
	auth/pre-registration
)
AUTH_SCENARIOS_2026=(
	auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
	auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
	auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
	auth/metadata-issuer-mismatch
)
AUTH_SCENARIOS_2025_03_26=(auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback)
AUTH_EXTENSIONS=(auth/client-credentials-basic auth/client-credentials-jwt)

# run_auth_suite SPEC-VERSION runs AUTH_SCENARIOS in one suite invocation ("--suite
# auth", which at alpha.12 is exactly those scenarios at both wires; the scenarios run
# in parallel, so this is much quicker than one invocation each), and fails when the
# scenarios that ran are not exactly AUTH_SCENARIOS.
run_auth_suite() {
	local spec=$1 dir got want
	run "$SUITE_NEW client --suite auth $spec" "$CONF_NEW" client --command "$WORK/everything-client" --suite auth --spec-version "$spec"
	dir=$(ls -d "$OUT/$(printf '%02d' "$TOTAL_RUNS")"-*/ 2>/dev/null | head -n 1)
	got=$(cd "$dir" 2>/dev/null && find . -name checks.json | sed -e 's|^\./||' -e 's|-[0-9]\{4\}-[0-9-]*T[0-9-]*Z/checks.json$||' | sort | tr '\n' ' ')
	want=$(printf '%s\n' "${AUTH_SCENARIOS[@]}" | sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "  --suite auth $spec ran: $got"
		echo "  expected:            $want"
		FAILED+=("$SUITE_NEW client --suite auth $spec: other scenarios than AUTH_SCENARIOS")
	fi
}

# Client scenarios without OAuth. 0.1.16 has the first four; alpha.12 adds
# json-schema-2020-12-preservation to the 2025-11-25 set (not scored there, run anyway).
CLIENT_SCENARIOS_OLD=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
CLIENT_SCENARIOS_NEW=(initialize tools_call elicitation-sep1034-client-defaults sse-retry json-schema-2020-12-preservation)

start_server stateful
STATEFUL_URL=$URL
start_server stateless -stateless
STATELESS_URL=$URL

run "$SUITE_OLD server --suite all" "$CONF_OLD" server --url "$STATEFUL_URL" --suite all
run "$SUITE_NEW server --requirements 2025-11-25" "$CONF_NEW" server --url "$STATEFUL_URL" --requirements 2025-11-25
run_scenarios "$SUITE_OLD stateless server" "$CONF_OLD" server "$STATELESS_URL" 2025-11-25 "${STATELESS_SCENARIOS[@]}"
run_scenarios "$SUITE_NEW stateless server" "$CONF_NEW" server "$STATELESS_URL" 2025-11-25 "${STATELESS_SCENARIOS[@]}"
run_scenarios "$SUITE_OLD client" "$CONF_OLD" client "$WORK/everything-client" 2025-11-25 "${CLIENT_SCENARIOS_OLD[@]}"
run_scenarios "$SUITE_NEW client" "$CONF_NEW" client "$WORK/everything-client" 2025-11-25 "${CLIENT_SCENARIOS_NEW[@]}"
run_auth_suite 2025-11-25
run_scenarios "$SUITE_NEW client 2025-03-26" "$CONF_NEW" client "$WORK/everything-client" 2025-03-26 "${AUTH_SCENARIOS_2025_03_26[@]}"
for s in "${AUTH_EXTENSIONS[@]}"; do
	run "$SUITE_NEW client $s" "$CONF_NEW" client --command "$WORK/everything-client" --scenario "$s"
done

# Client scenarios of the 2026-07-28 set without OAuth (the OAuth ones are
# AUTH_SCENARIOS and AUTH_SCENARIOS_2026 above), plus
# json-schema-2020-12-preservation (run but not scored there).
CLIENT_SCENARIOS_2026=(
	tools_call request-metadata sep-2322-client-request-state http-standard-headers
	http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref
	json-schema-2020-12-preservation
)

# run_2026_07_28_scenarios runs the 2026-07-28 (stateless-era) scenarios: the whole
# server requirement set against the dual-era server that also served the 2025-11-25
# runs, and the client scenarios on the 2026-07-28 wire.
run_2026_07_28_scenarios() {
	run "$SUITE_NEW server --requirements 2026-07-28" "$CONF_NEW" server --url "$STATEFUL_URL" --requirements 2026-07-28
	run_scenarios "$SUITE_NEW client 2026-07-28" "$CONF_NEW" client "$WORK/everything-client" 2026-07-28 "${CLIENT_SCENARIOS_2026[@]}"
	run_auth_suite 2026-07-28
	run_scenarios "$SUITE_NEW client 2026-07-28" "$CONF_NEW" client "$WORK/everything-client" 2026-07-28 "${AUTH_SCENARIOS_2026[@]}"
}
if [ "${WIREMCP_SUITE_2026:-1}" != 0 ]; then
	run_2026_07_28_scenarios
else
	log "2026-07-28 scenarios: skipped (WIREMCP_SUITE_2026=0)"
fi

log "Summary: $TOTAL_RUNS suite runs, ${#FAILED[@]} with failures or warnings"
if [ "${#FAILED[@]}" -gt 0 ]; then
	printf '  FAILED: %s\n' "${FAILED[@]}"
	[ -n "${WIREMCP_SUITE_OUT:-}" ] || echo "  (set WIREMCP_SUITE_OUT=DIR to keep the raw results)"
	exit 1
fi
echo "  all passed"
