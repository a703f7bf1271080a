#!/usr/bin/env bash
# Runs this repository's own conformance suite (conformance/cmd/mcp-conformance)
# against our example servers, over every transport and every revision:
#
#   everything-server  Streamable HTTP (stateful and -stateless), legacy HTTP+SSE
#                      (/sse of the stateful server) and stdio
#   reports-server     Streamable HTTP and stdio, with -binding reports
#
# each with -revision all, -call-tools all (our own servers: every tool not
# annotated destructive may be called) and -strict (ADVICE checks count). Every check of every run must
# pass (or be not applicable); the script exits 1 otherwise. It needs only the Go toolchain:
# go build (the module proxy for dependencies), servers on free 127.0.0.1
# ports, no other network.
#
#   .ci/conformance.sh             # from anywhere inside a clone
#
# Environment:
#   MCP_SCHEMA_DIR            official schemas (schema-<revision>.json); default
#                             ../shared/spec/schema next to the clone when present.
#                             When set, every server message is validated
#                             (-schema-dir); a set but missing folder is an error.
#   WIREMCP_CONFORMANCE_OUT   keep the -json, -junit and log files here (default:
#                             a temporary folder, removed on exit)
#   WIREMCP_CONFORMANCE_TIMEOUT  per-exchange time limit (default 10s)
# Every process it starts is stopped on exit (trap, by PID).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wiremcp-conformance.XXXXXX")
OUT=${WIREMCP_CONFORMANCE_OUT:-$WORK/results}
TIMEOUT=${WIREMCP_CONFORMANCE_TIMEOUT:-10s}
BIN=$WORK/bin
mkdir -p "$OUT" "$BIN"

# Servers this script started, as "pid:program" entries. cleanup stops those still
# running, after checking that the pid still runs the program it started (our
# binaries live in this run's own folder), so a reused pid is never signalled.
PIDS=()
cleanup() {
	local p pid prog
	for p in "${PIDS[@]}"; do
		pid=${p%%:*} prog=${p#*:}
		if command -v ps >/dev/null 2>&1; then
			case "$(ps -o args= -p "$pid" 2>/dev/null)" in
			"$prog"*) ;;
			*) continue ;;
			esac
		fi
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	printf 'conformance: %s\n' "$*" >&2
	exit 1
}

SCHEMA_ARGS=()
if [ -n "${MCP_SCHEMA_DIR:-}" ]; then
	[ -f "$MCP_SCHEMA_DIR/schema-2025-11-25.json" ] || die "MCP_SCHEMA_DIR=$MCP_SCHEMA_DIR has no schema-2025-11-25.json"
	SCHEMA_ARGS=(-schema-dir "$MCP_SCHEMA_DIR")
elif [ -f "$ROOT/../shared/spec/schema/schema-2025-11-25.json" ]; then
	SCHEMA_ARGS=(-schema-dir "$(cd "$ROOT/../shared/spec/schema" && pwd)")
else
	echo "note: no official schemas (MCP_SCHEMA_DIR unset, ../shared/spec/schema absent): messages are not validated against them"
fi

start=$SECONDS
echo "=== building"
(cd "$ROOT" && go build -o "$BIN/" ./conformance/cmd/mcp-conformance ./examples/everything-server ./examples/reports-server) ||
	die "go build failed"

# start_server NAME CMD...: starts an HTTP server on 127.0.0.1:0 and waits (at most
# 15 s) for the "http://127.0.0.1:PORT/mcp" line it prints on stderr; sets URL.
start_server() {
	local name=$1 log="$OUT/$1.server.log" i
	shift
	"$@" >"$log" 2>&1 &
	local pid=$!
	PIDS+=("$pid:$1")
	URL=
	for ((i = 0; i < 150; i++)); do
		URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" 2>/dev/null | head -n1)
		[ -n "$URL" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/    | /' "$log" >&2
	die "$name did not start"
}

echo "=== starting servers"
start_server everything "$BIN/everything-server" -http 127.0.0.1:0
EVERY_URL=$URL
EVERY_SSE=${URL%/mcp}/sse
start_server everything-stateless "$BIN/everything-server" -http 127.0.0.1:0 -stateless
STATELESS_URL=$URL
mkdir -p "$WORK/reports-http" "$WORK/reports-stdio"
start_server reports "$BIN/reports-server" -http 127.0.0.1:0 -data "$WORK/reports-http"
REPORTS_URL=$URL
echo "    everything-server $EVERY_URL (and $EVERY_SSE), stateless $STATELESS_URL, reports-server $REPORTS_URL"

FAILED=()
# run NAME ARGS...: one suite run over every revision; prints its summary line.
run() {
	local name=$1 t0=$SECONDS rc
	shift
	"$BIN/mcp-conformance" "$@" -revision all -call-tools all -strict -timeout "$TIMEOUT" "${SCHEMA_ARGS[@]}" \
		-json "$OUT/$name.json" -junit "$OUT/$name.xml" >"$OUT/$name.txt" 2>"$OUT/$name.log"
	rc=$?
	local total
	total=$(grep '^total ' "$OUT/$name.txt" | awk '{printf "%s pass, %s fail, %s n/a, %s not testable", $2, $3, $4, $5}')
	printf '%-28s %s (%ds)\n' "$name" "${total:-no summary}" $((SECONDS - t0))
	if [ $rc -ne 0 ]; then
		FAILED+=("$name")
		# The failing checks with their evidence, then the per-area table.
		sed -n '/^\(FAIL\|NOT-TESTABLE\) /,/^area /p' "$OUT/$name.txt" | sed '$d' | sed 's/^/    | /'
		[ -s "$OUT/$name.txt" ] || sed 's/^/    | /' "$OUT/$name.log" | tail -n 20
	fi
}

echo "=== running the suite (every revision)"
run everything-http -url "$EVERY_URL"
run everything-http-stateless -url "$STATELESS_URL"
run everything-sse -sse "$EVERY_SSE"
run everything-stdio -stdio "$BIN/everything-server -stdio"
run reports-http -url "$REPORTS_URL" -binding reports
run reports-stdio -stdio "$BIN/reports-server -stdio -data $WORK/reports-stdio" -binding reports

if [ -n "${WIREMCP_CONFORMANCE_OUT:-}" ]; then
	echo "=== done in $((SECONDS - start))s; results in $OUT"
else
	echo "=== done in $((SECONDS - start))s (set WIREMCP_CONFORMANCE_OUT to keep the -json/-junit files)"
fi
if [ ${#FAILED[@]} -gt 0 ]; then
	echo "FAILED: ${FAILED[*]}"
	exit 1
fi
echo "  all passed"
