#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every test_* function in tests/e2e/test_*.sh, each in its own subshell
# with a fresh scratch dir on a private tmpfs, and prints a closing line
# "e2e: N passed, N failed, N skipped". Usage: run.sh [PATTERN]
# The diagnosis suite runs through it too (tests/diagnosis/run.sh): SUITE_DIR
# holds its test_*.sh and a lib.sh sourced after this folder's; SUITE_NAME
# names the closing line; a test's "VERDICT: ..." lines are shown.
set -u
here=$(cd "$(dirname "$0")" && pwd)
suite=${SUITE_DIR:-$here}
name=${SUITE_NAME:-e2e}
: "${ADAPTRM:?set ADAPTRM to the binary under test}"
ADAPTRM=$(cd "$(dirname "$ADAPTRM")" && pwd)/$(basename "$ADAPTRM")
export ADAPTRM TOOLS="${TOOLS:-}"
pattern=${1:-${E2E_FILTER:-}}
libs=("$here/lib.sh")
[ "$suite" = "$here" ] || libs+=("$suite/lib.sh")

root=$(mktemp -d "/tmp/adaptrm-$name.XXXXXX")
mounted=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=6G tmpfs "$root" 2>/dev/null; then mounted=1; fi
chmod 755 "$root"
# Tests run the binary as other users too (setpriv, accounts of their own),
# who may not reach a checkout under a directory only root can enter (a
# clone in /root): every test runs a copy from this root-owned 0755
# directory, with adaptrm-mpi beside it where it was built.
mkdir -p "$root/bin"
for b in "$ADAPTRM" "$(dirname "$ADAPTRM")/adaptrm-mpi"; do
	[ -f "$b" ] && install -m 0755 "$b" "$root/bin/$(basename "$b")"
done
ADAPTRM=$root/bin/$(basename "$ADAPTRM")
cleanup_root() {
	[ $mounted = 1 ] && umount -l "$root" 2>/dev/null
	rm -rf "$root"
}
trap cleanup_root EXIT

# the test functions of FILE, with the libraries loaded
tests_in() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	bash -c 'for l in "${@:2}"; do source "$l"; done; source "$1"; declare -F' _ "$1" "${libs[@]}" |
		awk '{print $3}' | grep '^test_'
}

# seconds a test may run (E2E_TIMEOUT): far above the slowest one
limit=${E2E_TIMEOUT:-900}
pass=0 failn=0 skipn=0 failed=()
t0=$(date +%s.%N)
for f in "$suite"/test_*.sh; do
	for t in $(tests_in "$f"); do
		[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
		scratch="$root/$t"
		mkdir -p "$scratch"
		start=$(date +%s.%N)
		# A test that hangs is killed with everything it started (timeout
		# signals its own process group) and fails, named.
		# shellcheck disable=SC2016 # expanded by the inner shell
		out=$(timeout -k 10 "$limit" bash -c '
			set -u
			scratch=$1 f=$2 t=$3
			shift 3
			export SCRATCH=$scratch
			# profiles stay in the scratch of the test, not in the cache of
			# the user (which must exist: adaptrm never creates a cache home)
			export XDG_CACHE_HOME=$scratch/.cache
			mkdir -p "$XDG_CACHE_HOME"
			cd "$scratch" || exit 1
			for l in "$@"; do
				# shellcheck source=/dev/null # each library is checked on its own
				source "$l"
			done
			trap run_cleanup EXIT
			# shellcheck source=/dev/null # each test file is checked on its own
			source "$f"
			set -e
			"$t"' _ "$scratch" "$f" "$t" "${libs[@]}" 2>&1)
		rc=$?
		[ $rc = 124 ] || [ $rc = 137 ] && out+=$'\n'"TIMEOUT: $t ran over ${limit}s and was killed"
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
		chmod -R u+rwx "$scratch" 2>/dev/null; chattr -R -i "$scratch" 2>/dev/null
		rm -rf "$scratch"
		verdict=$(echo "$out" | grep '^VERDICT:' | sed 's/^VERDICT: */    verdict: /')
		if [ $rc = 0 ]; then
			pass=$((pass + 1)); echo "PASS $t (${secs}s)"
			[ -z "$verdict" ] || echo "$verdict"
		elif [ $rc = 77 ]; then
			skipn=$((skipn + 1)); echo "SKIP $t: $(echo "$out" | grep SKIP: | head -1)"
		else
			failn=$((failn + 1)); failed+=("$t"); echo "FAIL $t (${secs}s)"
			echo "$out" | grep -v '^VERDICT:' | tail -20 | sed 's/^/    /'
			[ -z "$verdict" ] || echo "$verdict"
		fi
	done
done
total=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}')
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$name: $pass passed, $failn failed, $skipn skipped (${total}s)"
[ $failn = 0 ]
