#!/usr/bin/env bash
# Installs Node 22 from the npm registry (npm package node@22) into the cache folder,
# reusing a complete cached install, and prints the path of its node binary. The
# machine's Node is 20; tests that need a newer one read WIREMCP_NODE.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${WIREMCP_CACHE:-$HOME/.cache/wiremcp}
NPM=${NPM:-npm}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wiremcp-node.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=lib.sh
. "$ROOT/.ci/lib.sh"
command -v "$NPM" >/dev/null || { echo "node22: npm not found" >&2; exit 1; }
N22=$(npm_install n22 node@22 'node_modules/node/bin/node --version | grep -q "^v22\."') || { echo "node22: cannot install node@22" >&2; exit 1; }
case "$N22" in "$WORK"/*) echo "node22: the cache is not writable; Node 22 cannot outlive this script" >&2; exit 1 ;; esac
echo "$N22/node_modules/node/bin/node"
