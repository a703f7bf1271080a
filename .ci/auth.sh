#!/usr/bin/env bash
# CI steps of package auth (OAuth resource server and client), run by .ci/run:
#   1. dependency rule: auth imports the standard library only, and no package of
#      jsonrpc/, transport/ or mcp/ imports auth;
#   2. short fuzz runs of auth's targets (WWW-Authenticate parser, JWT verifier,
#      JWKS decoder), 50000 executions each.
# Its tests (including the oidc-provider end-to-end test, which needs Node 20.19+
# through WIREMCP_NODE and npm) run with the rest in `go test -race ./...`; the
# official suite's OAuth client scenarios run in .ci/official-suite.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

deps() { go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' "$@"; }
bad=$(deps ./auth/ | grep -v '^github.com/wiremcp/wiremcp/auth$' || true)
[ -z "$bad" ] || { echo "auth imports outside the standard library: $bad"; exit 1; }
bad=$(deps ./jsonrpc/... ./transport/... ./mcp/... | grep '^github.com/wiremcp/wiremcp/auth' || true)
[ -z "$bad" ] || { echo "jsonrpc/transport/mcp import auth: $bad"; exit 1; }

for target in $(go test -list 'Fuzz.*' ./auth/ | grep '^Fuzz'); do
	go test -run '^$' -fuzz "^${target}\$" -fuzztime 50000x ./auth/
done
