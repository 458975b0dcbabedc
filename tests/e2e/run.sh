#!/usr/bin/env bash
# Runs every test_* function in tests/e2e/test_*.sh, each in its own subshell
# with a fresh scratch dir on a private tmpfs, and prints a closing line
# "N passed, N failed, N skipped". Usage: run.sh [PATTERN]
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ADAPTRM:?set ADAPTRM to the binary under test}"
export ADAPTRM TOOLS="${TOOLS:-}"
pattern=${1:-${E2E_FILTER:-}}

root=$(mktemp -d /tmp/adaptrm-e2e.XXXXXX)
mounted=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=6G tmpfs "$root" 2>/dev/null; then mounted=1; fi
chmod 755 "$root"
cleanup_root() {
	[ $mounted = 1 ] && umount -l "$root" 2>/dev/null
	rm -rf "$root"
}
trap cleanup_root EXIT

pass=0 failn=0 skipn=0 failed=()
for f in "$here"/test_*.sh; do
	for t in $(bash -c "source '$here/lib.sh'; source '$f'; declare -F" | awk '{print $3}' | grep '^test_'); do
		[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
		scratch="$root/$t"
		mkdir -p "$scratch"
		start=$(date +%s.%N)
		out=$( (
			export SCRATCH=$scratch
			# profiles stay in the test's scratch, not in the user's cache
			export XDG_CACHE_HOME=$scratch/.cache
			cd "$scratch" || exit 1
			source "$here/lib.sh"
			trap run_cleanup EXIT
			# shellcheck source=/dev/null # each test file is checked on its own
			source "$f"
			set -e
			"$t"
		) 2>&1)
		rc=$?
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
		chmod -R u+rwx "$scratch" 2>/dev/null; chattr -R -i "$scratch" 2>/dev/null
		rm -rf "$scratch"
		if [ $rc = 0 ]; then
			pass=$((pass + 1)); echo "PASS $t (${secs}s)"
		elif [ $rc = 77 ]; then
			skipn=$((skipn + 1)); echo "SKIP $t: $(echo "$out" | grep SKIP: | head -1)"
		else
			failn=$((failn + 1)); failed+=("$t"); echo "FAIL $t (${secs}s)"; echo "$out" | tail -20 | sed 's/^/    /'
		fi
	done
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "e2e: $pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
