#!/usr/bin/env bash
# CI step of package auth (OAuth resource server and client), run by .ci/run: short
# fuzz runs of auth's targets (WWW-Authenticate parser, JWT verifier, JWKS decoder),
# 50000 executions each. Its dependency rules are in internal/depcheck.
# Its tests (including the oidc-provider end-to-end test, which needs Node 20.19+
# through WIREMCP_NODE and npm) run with the rest in `go test -race ./...`; the
# official suite's OAuth client scenarios run in .ci/official-suite.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

for target in $(go test -list 'Fuzz.*' ./auth/ | grep '^Fuzz'); do
	go test -run '^$' -fuzz "^${target}\$" -fuzztime 50000x ./auth/
done
