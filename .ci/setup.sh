#!/usr/bin/env bash
# System packages the tests need on a fresh machine: Debian's chromium for the
# reports-server inbox test. Installed only when missing.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	else
		sudo apt-get update -qq
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	fi
fi
/usr/bin/chromium --version
