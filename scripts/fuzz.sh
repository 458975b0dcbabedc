#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# libFuzzer runs on what adaptrm reads from outside (tests/fuzz/):
#   json     the JSON reader (user/lib/json.c) on arbitrary bytes
#   profile  the profile store's reader (user/ctl/profile.c profile_read)
#   options  the option parser (user/cli/options.c options_parse)
#   compare  --trace --compare's reader and report (user/trace/compare.c)
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]...   (default 30 s, all targets)
#
# Each harness is built with clang -fsanitize=fuzzer,address,undefined from
# the user/ sources under test, linked with the rest of the plain build's
# objects (no Makefile rule; `make all` first, which this runs if needed). Before fuzzing, every saved
# crash in tests/fuzz/regress/TARGET/ is replayed: it must pass. Then the
# target runs for SECONDS from its seed corpus (tests/fuzz/corpus/TARGET,
# left untouched: the working corpus is in $FUZZ_OUT/corpus/TARGET and grows
# across runs). A crash is copied to tests/fuzz/regress/TARGET/ to be fixed
# and kept, and the script exits 1.
#
# Environment: CLANG (clang); CI_REQUIRE_FUZZ=1 fails instead of skipping
# when clang cannot build a libFuzzer target; FUZZ_OUT (.output/fuzz);
# OBJ, the plain build's output directory (.output);
# FUZZ_ARGS, more libFuzzer flags (e.g. -jobs=2 -workers=2); FUZZ_CFLAGS,
# more compiler flags (with -fsanitize-recover=float-cast-overflow and
# UBSAN_OPTIONS=suppressions=FILE a long run can go on past a known case that
# is not fixed yet).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
secs=${1:-30}
shift 2>/dev/null || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json profile options compare)
CLANG=${CLANG:-clang}
out=${FUZZ_OUT:-$repo/.output/fuzz}
fuzz=$repo/tests/fuzz
u=$repo/user

mkdir -p "$out"
# clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev), else
# skipped with a warning, or a failure with CI_REQUIRE_FUZZ=1
if ! command -v "$CLANG" >/dev/null ||
	! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	"$CLANG" -fsanitize=fuzzer,address,undefined -x c - -o "$out/probe" 2>/dev/null; then
	echo "fuzz: $CLANG cannot build a libFuzzer target (install clang and libclang-rt-14-dev)" >&2
	[ "${CI_REQUIRE_FUZZ:-0}" = 1 ] && exit 1
	echo "fuzz: skipped"
	exit 0
fi
rm -f "$out/probe"

flags=("-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=undefined
	-fno-omit-frame-pointer -g -O1 -std=gnu11 -D_GNU_SOURCE -pthread -I"$u")
# shellcheck disable=SC2206 # a list of flags
flags+=(${FUZZ_CFLAGS:-})

# The user/ sources each harness compiles with the fuzzer's instrumentation:
# the code under test. The rest of adaptrm comes from the plain build's
# objects (make all: $OBJ, default .output), so that a new dependency of
# that code needs no change here.
sources() {
	case $1 in
	json) echo "$u/lib/json.c" ;;
	profile) echo "$u/ctl/profile.c $u/lib/json.c" ;;
	options) echo "$u/cli/options.c" ;;
	compare) echo "$u/trace/compare.c $u/trace/fsfields.c $u/trace/measure.c $u/trace/report.c $u/trace/findings.c $u/trace/findings_ctx.c $u/trace/findings_cpu.c $u/trace/findings_io.c $u/trace/waits.c $u/probes/hist.c $u/lib/json.c" ;;
	*) return 1 ;;
	esac
}
extra_flags() {
	case $1 in
	# exit and msg_close_stdout are wrapped: the harness jumps back from a
	# usage error, --help or --version, and stdout stays open
	options) echo "-Wl,--wrap=exit -Wl,--wrap=msg_close_stdout" ;;
	esac
}

obj=${OBJ:-$repo/.output}
# The build's objects of user/ sources, but main.o, adaptrm-mpi's own
# (user/mpi/: MPI and a main of their own) and those in $@.
objects() {
	local skip=" $* " o rel
	find "$obj" -mindepth 2 -name '*.o' -not -path "$out/*" -not -path "$obj/mpi/*" |
		LC_ALL=C sort | while read -r o; do
		rel=${o#"$obj"/}
		[ -f "$u/${rel%.o}.c" ] || continue # not ours, or its source is gone
		[[ $skip == *" $u/${rel%.o}.c "* ]] || echo "$o"
	done
}
libs="$(pkg-config --libs libbpf 2>/dev/null || echo -lbpf) $(pkg-config --libs json-c libseccomp 2>/dev/null || echo -ljson-c -lseccomp)"

build() { # TARGET
	local t=$1 src
	src=$(sources "$t") || { echo "fuzz: unknown target $t" >&2; return 1; }
	# shellcheck disable=SC2046,SC2086 # word lists built above
	"$CLANG" "${flags[@]}" $(extra_flags "$t") "$fuzz/fuzz_$t.c" $src $(objects $src) \
		$libs -lelf -lz -lm -o "$out/fuzz_$t"
}

if [ ! -f "$obj/main.o" ]; then
	echo "--- building adaptrm (make all) for the objects the harnesses link"
	make -s -j"$(nproc)" all >/dev/null || exit 1
fi

status=0
for t in "${targets[@]}"; do
	echo "--- fuzz_$t: build"
	if ! build "$t"; then
		status=1
		continue
	fi
	bin=$out/fuzz_$t
	opts=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
	[ -f "$fuzz/$t.dict" ] && opts+=(-dict="$fuzz/$t.dict")

	regress=$fuzz/regress/$t
	if compgen -G "$regress/*" >/dev/null; then
		echo "--- fuzz_$t: replaying $(find "$regress" -type f | wc -l) saved cases"
		if ! "$bin" "${opts[@]}" "$regress"/* >"$out/$t.replay.log" 2>&1; then
			echo "FAIL: fuzz_$t: a saved case in $regress still fails:"
			grep -E 'ERROR|SUMMARY|runtime error|Running:' "$out/$t.replay.log" | tail -20
			status=1
			continue
		fi
	fi

	[ "$secs" -gt 0 ] || continue
	echo "--- fuzz_$t: $secs s"
	mkdir -p "$out/corpus/$t" "$out/crash"
	rm -f "$out/crash/$t-"*
	log=$out/$t.log
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
	"$bin" "${opts[@]}" -max_total_time="$secs" -artifact_prefix="$out/crash/$t-" \
		${FUZZ_ARGS:-} "$out/corpus/$t" "$fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	grep -E '^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::peak_rss' "$log" | tail -3
	crashes=$(compgen -G "$out/crash/$t-*" || true)
	if [ $rc != 0 ] || [ -n "$crashes" ]; then
		echo "FAIL: fuzz_$t (exit $rc):"
		grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$log" | head -30
		mkdir -p "$regress"
		for c in $crashes; do
			cp "$c" "$regress/" && echo "kept $regress/$(basename "$c")"
		done
		status=1
	fi
done
exit $status
