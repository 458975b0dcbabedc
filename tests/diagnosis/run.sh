#!/usr/bin/env bash
# The diagnosis suite (issue 17): slow deletes whose cause is known, each
# traced with `adaptrm --trace --json`, asserting the verdict's top
# finding(s) and that its shares add up to 100%.
#
# Same conventions as tests/e2e/run.sh: every test_* function in
# tests/diagnosis/test_*.sh runs in its own subshell with a fresh scratch dir
# on a private tmpfs, helpers from tests/e2e/lib.sh (fail, skip, on_exit,
# mount_fs, make_flat, ...) and tests/diagnosis/lib.sh; cleanups registered
# with on_exit run even when the scenario fails. Prints each scenario's
# verdict and runtime, then "diagnosis: N passed, N failed, N skipped".
#
#   ADAPTRM=/path/to/adaptrm [TOOLS=dir] bash tests/diagnosis/run.sh [PATTERN]
#   DIAG_FULL=1 (or E2E_BIG=1): the larger variants of the scenarios
#   ADAPTRM_REQUIRE_BPF=1: "eBPF unavailable" is a failure, not a skip
set -u
here=$(cd "$(dirname "$0")" && pwd)
e2e=$(cd "$here/../e2e" && pwd)
: "${ADAPTRM:?set ADAPTRM to the binary under test}"
ADAPTRM=$(cd "$(dirname "$ADAPTRM")" && pwd)/$(basename "$ADAPTRM")
export ADAPTRM TOOLS="${TOOLS:-}"
pattern=${1:-${DIAG_FILTER:-}}

root=$(mktemp -d /tmp/adaptrm-diag.XXXXXX)
mounted=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4G tmpfs "$root" 2>/dev/null; then mounted=1; fi
chmod 755 "$root"
cleanup_root() {
	[ $mounted = 1 ] && umount -l "$root" 2>/dev/null
	rm -rf "$root"
}
trap cleanup_root EXIT

pass=0 failn=0 skipn=0 failed=()
t0=$(date +%s.%N)
for f in "$here"/test_*.sh; do
	for t in $(bash -c "source '$e2e/lib.sh'; source '$here/lib.sh'; source '$f'; declare -F" |
		awk '{print $3}' | grep '^test_'); do
		[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
		scratch="$root/$t"
		mkdir -p "$scratch"
		start=$(date +%s.%N)
		out=$( (
			export SCRATCH=$scratch
			export XDG_CACHE_HOME=$scratch/.cache
			cd "$scratch" || exit 1
			source "$e2e/lib.sh"
			source "$here/lib.sh"
			trap run_cleanup EXIT
			# shellcheck source=/dev/null # each scenario file is checked on its own
			source "$f"
			set -e
			"$t"
		) 2>&1)
		rc=$?
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
		rm -rf "$scratch"
		v=$(echo "$out" | grep '^VERDICT:' | sed 's/^VERDICT: */    verdict: /')
		if [ $rc = 0 ]; then
			pass=$((pass + 1)); echo "PASS $t (${secs}s)"
			[ -z "$v" ] || echo "$v"
		elif [ $rc = 77 ]; then
			skipn=$((skipn + 1)); echo "SKIP $t: $(echo "$out" | grep SKIP: | head -1)"
		else
			failn=$((failn + 1)); failed+=("$t"); echo "FAIL $t (${secs}s)"
			echo "$out" | grep -v '^VERDICT:' | tail -20 | sed 's/^/    /'
			[ -z "$v" ] || echo "$v"
		fi
	done
done
total=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "diagnosis: $pass passed, $failn failed, $skipn skipped (${total}s)"
[ $failn = 0 ]
