# Shared helpers of the CI scripts; sourced, not run. The caller sets CACHE (a cache
# folder, never required), WORK (a temporary folder it removes) and NPM.
# The npm installs print "official-suite:" in their diagnostics for historical reasons.

# with_timeout SECONDS CMD...: runs CMD, killing it after SECONDS when coreutils'
# timeout is available.
with_timeout() {
	local secs=$1
	shift
	if command -v timeout >/dev/null 2>&1; then
		timeout --kill-after=10 "$secs" "$@"
	else
		"$@"
	fi
}

# npm_install NAME SPEC CHECK: makes sure the npm package SPEC is installed in a folder
# of its own and prints that folder. CHECK is a command run inside the folder that
# succeeds when the install is complete. The install goes to a temporary folder that is
# renamed into the cache only when complete, so concurrent runs and interrupted
# installs never leave a half-installed cache behind.
npm_install() {
	local name=$1 spec=$2 check=$3 dir tmp
	for base in "$CACHE" "$WORK/npm"; do
		dir=$base/$name
		if [ -d "$dir" ] && (cd "$dir" && eval "$check") >/dev/null 2>&1; then
			echo "$dir"
			return 0
		fi
		mkdir -p "$base" 2>/dev/null || continue
		tmp=$(mktemp -d "$base/.install.XXXXXX" 2>/dev/null) || continue
		printf '{"name":"wiremcp-suite-%s","private":true}\n' "$name" >"$tmp/package.json"
		if (cd "$tmp" && with_timeout 600 "$NPM" install --no-audit --no-fund --loglevel=error "$spec" >&2) &&
			(cd "$tmp" && eval "$check") >/dev/null 2>&1; then
			# Another run may have completed the same install meanwhile: keep its copy.
			if ! { [ -d "$dir" ] && (cd "$dir" && eval "$check") >/dev/null 2>&1; }; then
				rm -rf "$dir"
				# mv -T (GNU) never moves into an existing folder; elsewhere plain mv.
				mv -T "$tmp" "$dir" 2>/dev/null || { [ ! -e "$dir" ] && mv "$tmp" "$dir"; }
			fi
			rm -rf "$tmp"
			if (cd "$dir" && eval "$check") >/dev/null 2>&1; then
				echo "$dir"
				return 0
			fi
		fi
		rm -rf "$tmp"
		echo "official-suite: could not install $spec into $base; trying elsewhere" >&2
	done
	return 1
}

