#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite, as `make check` runs it:
#   0. make lint: format, shellcheck, headers, layers, circles, exits, static analyzer;
#   1. plain build: Criterion unit tests, the end-to-end tests, then the
#      diagnosis suite (tests/diagnosis: the --trace verdict on known causes);
#   2. ASan+UBSan build: unit tests, then the end-to-end tests again;
#   3. TSan build: the threaded-engine unit tests, the ranks' simulation and
#      the parallel e2e tests.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc)
status=0
step() { echo; echo "=== $*"; }

step "build"
make -j"$jobs" all tests tools || exit 1

step "lint"
make lint || status=1

step "unit tests"
make unit || status=1

step "end-to-end tests"
make e2e || status=1

step "diagnosis suite"
ADAPTRM=$PWD/adaptrm TOOLS=$PWD/.output/tools bash tests/diagnosis/run.sh || status=1

step "GNU rm differential suite"
ADAPTRM=./adaptrm bash tests/gnu/run.sh || status=1

# libFuzzer on the JSON reader, the profile reader, the option parser and
# --trace --compare: saved crashes replayed, then 20 s each (scripts/fuzz.sh)
step "fuzz (short)"
bash scripts/fuzz.sh 20 || status=1

step "ASan+UBSan: build"
make -j"$jobs" SAN=asan all tests tools || exit 1
step "ASan+UBSan: unit tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	make SAN=asan unit || status=1
step "ASan+UBSan: end-to-end tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 E2E_SAN=asan \
	make SAN=asan e2e || status=1

step "TSan: build"
make -j"$jobs" SAN=tsan all tests || exit 1
step "TSan: engine unit tests and the ranks' simulation"
for t in .output-tsan/tests/test_engine* .output-tsan/tests/test_ranks_sim; do
	[ -x "$t" ] || continue
	# a hang fails, named (the runner's own timeout names the test)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 timeout -k 10 3600 "$t" --jobs=1 ||
		{ echo "$t: failed, status $?"; status=1; }
done
step "TSan: parallel end-to-end tests"
TSAN_OPTIONS=halt_on_error=1 E2E_SAN=tsan E2E_FILTER=parallel make SAN=tsan e2e || status=1

echo
if [ $status = 0 ]; then echo "check: all suites passed"; else echo "check: FAILURES above"; fi
exit $status
