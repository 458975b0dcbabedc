#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The lint gates (`make lint`, or directly from anywhere in the repository):
#
#  * format: clang-format --dry-run --Werror (.clang-format) over user/,
#    bpf/, tests/unit/ and tests/tools/*.c
#  * shellcheck: every shell script, scripts/**/*.sh, tests/e2e/*.sh, tests/diagnosis/*.sh,
#    tests/gnu/*.sh and .ci/run, as bash, following their `source`s
#  * headers: each user/**/*.h compiles on its own
#  * layers: includes follow the layer matrix (below); getenv() only in
#    user/lib/env.c; no hand-written x86-64 syscall numbers; the engine's
#    worker count and pace set only by the steering (user/ctl/steer.c)
#  * circles: no two files of user/ or bpf/ depend on each other in a loop
#    of any length, through #include "x.h" (x.c's header) or a call that
#    nm shows between their objects under $OUTPUT (scripts/circles.py)
#  * exits: user/engine, listdel, probes, ctl and lib never end the process
#    (no exit, _exit, _Exit, quick_exit, abort, assert, die, err, errx);
#    out of memory ends it only through lib/xalloc (docs/design.md#how-errors-travel)
#  * analyze: clang --analyze over every user/**/*.c: any report fails
#  * spdx: every source file (C, shell, Python, make) names its licence in an
#    SPDX line near its top: GPL-2.0-or-later in bpf/, GPL-3.0-or-later elsewhere
#
# Usage: scripts/lint.sh [CHECK]...   (default: all of them, in that order)
# Every finding is printed GNU-style, "file:line: message"; the exit status is
# 1 if there was any. A check whose tool is not installed is skipped with a
# warning, except with CI_REQUIRE_LINT=1, where a missing tool is a failure.
#
# Environment: OUTPUT (the build's output directory with the generated BPF
# skeletons, default .output; `make lint` generates them), CC (cc), CLANG
# (clang), CLANG_FORMAT (clang-format-14 if installed, else clang-format), SHELLCHECK (shellcheck), LINT_JOBS (parallel analyzer jobs,
# default the number of CPUs).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

OUTPUT=${OUTPUT:-.output}
CC=${CC:-cc}
CLANG=${CLANG:-clang}
SHELLCHECK=${SHELLCHECK:-shellcheck}
LINT_JOBS=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
# The build's flags (Makefile: CFLAGS), for the header and analyzer checks.
BUILD_FLAGS=(-std=gnu11 -D_GNU_SOURCE -pthread -Iuser "-I$OUTPUT")
# user/mpi/ needs MPI's headers (adaptrm-mpi): checked where Open MPI is.
read -ra MPI_FLAGS <<<"$(mpicc --showme:compile 2>/dev/null)"
[ ${#MPI_FLAGS[@]} -gt 0 ] && BUILD_FLAGS+=("${MPI_FLAGS[@]}")
BUILD_WARNINGS=(-Wall -Wextra -Werror -Wno-unused-parameter)

findings=0
failed_checks=()

# finding FILE:LINE MESSAGE
finding() {
	printf '%s: %s\n' "$1" "$2"
	findings=$((findings + 1))
}

# missing_tool TOOL CHECK: skip CHECK, or fail it under CI_REQUIRE_LINT=1.
missing_tool() {
	if [ "${CI_REQUIRE_LINT:-0}" = 1 ]; then
		echo "lint: $2: $1 is not installed (CI_REQUIRE_LINT=1)" >&2
		findings=$((findings + 1))
	else
		echo "lint: warning: $2: $1 is not installed, check skipped (scripts/install-deps.sh)" >&2
	fi
}

# The C sources of each tree, sorted; generated files never live in these
# directories (the skeletons go to $OUTPUT, vmlinux.h to vmlinux/).
# without MPI's headers, user/mpi/ is left out of the compiling checks
no_mpi() { if [ ${#MPI_FLAGS[@]} -gt 0 ]; then cat; else grep -v '^user/mpi/'; fi; }
user_c() { find user -name '*.c' | no_mpi | LC_ALL=C sort; }
user_h() { find user -name '*.h' | no_mpi | LC_ALL=C sort; }
format_files() {
	{
		find user bpf tests/unit -name '*.[ch]' -not -name 'vmlinux*.h' -not -name '*.skel.h'
		find tests/tools -maxdepth 1 -name '*.c'
	} | LC_ALL=C sort
}

# ---------------------------------------------------------------------------
# format: the code as .clang-format writes it (`clang-format -i FILE` fixes it).
pick_clang_format() {
	if [ -n "${CLANG_FORMAT:-}" ]; then
		command -v "$CLANG_FORMAT"
		return
	fi
	# Versions format differently: the one .clang-format was tuned with
	# (Debian 12's), else the default one.
	command -v clang-format-14 || command -v clang-format
}
check_format() {
	local cf out
	cf=$(pick_clang_format) || { missing_tool clang-format format; return; }
	# --dry-run prints "file:line:col: error: code should be clang-formatted"
	# and then the line and a caret; keep the first.
	out=$(format_files | xargs -r "$cf" --dry-run --Werror 2>&1)
	local rc=$?
	if [ -n "$out" ]; then
		local line
		while IFS= read -r line; do
			case $line in
			*:[0-9]*:[0-9]*:\ error:* | *:[0-9]*:[0-9]*:\ warning:*) finding "${line%%: *}" "${line#*: }" ;;
			esac
		done <<<"$out"
	fi
	if [ "$rc" != 0 ] && ! grep -q ': error: \|: warning: ' <<<"$out"; then
		finding .clang-format "$cf failed: $(head -3 <<<"$out")"
	fi
}

# ---------------------------------------------------------------------------
# The shellcheck check: every script as bash, following sourced files (their
# `# shellcheck source=` directives are relative to the script's directory).
shell_files() {
	{
		find scripts tests/e2e tests/gnu tests/diagnosis -name '*.sh'
		echo .ci/run
	} | LC_ALL=C sort -u
}
check_shellcheck() {
	command -v "$SHELLCHECK" >/dev/null || { missing_tool shellcheck shellcheck; return; }
	local out line
	out=$(shell_files | xargs -r "$SHELLCHECK" -x -P SCRIPTDIR -s bash -f gcc 2>&1)
	[ -n "$out" ] || return 0
	while IFS= read -r line; do
		finding "${line%%: *}" "${line#*: }"
	done <<<"$out"
}

# ---------------------------------------------------------------------------
# headers: a file that includes only the header must compile, with the
# build's flags and warnings.
check_headers() {
	command -v "$CC" >/dev/null || { missing_tool "$CC" headers; return; }
	local h rel out line
	for h in $(user_h); do
		rel=${h#user/}
		out=$(printf '#include "%s"\n' "$rel" |
			"$CC" -fsyntax-only "${BUILD_FLAGS[@]}" "${BUILD_WARNINGS[@]}" -x c - 2>&1) && continue
		# The compiler's own "file:line:col: error: ..." lines, else a summary.
		if grep -q ': error: ' <<<"$out"; then
			while IFS= read -r line; do
				case $line in
				*:[0-9]*:[0-9]*:\ error:*) finding "${line%%: *}" "${line#*: } (compiling $h on its own)" ;;
				esac
			done <<<"$out"
		else
			finding "$h:1" "does not compile on its own: $(head -1 <<<"$out")"
		fi
	done
}

# ---------------------------------------------------------------------------
# layers: user/Y/* may include "X/..." only for these X (user/main.c: any).
# A folderless include (a generated skeleton) only in probes/.
# tests/unit may include anything, and is not checked.
declare -A LAYER_ALLOWS=(
	[lib]="lib"
	[engine]="lib engine"
	[listdel]="lib engine listdel"
	[probes]="lib probes"
	[ctl]="lib engine probes ctl"
	[hold]="lib engine ctl hold"
	[cli]="lib engine listdel probes ctl hold cli"
	[ranks]="lib engine listdel probes ctl hold cli ranks"
	[mpi]="lib engine listdel probes ctl hold cli ranks mpi"
	[trace]="lib engine listdel probes ctl hold cli trace"
)
check_layers() {
	local f layer hit lineno inc target
	for f in $(find user -mindepth 2 -name '*.[ch]' | LC_ALL=C sort); do
		layer=${f#user/}
		layer=${layer%%/*}
		if [ -z "${LAYER_ALLOWS[$layer]+set}" ]; then
			finding "$f:1" "user/$layer/ is not a layer (${!LAYER_ALLOWS[*]})"
			continue
		fi
		while IFS= read -r hit; do
			[ -n "$hit" ] || continue
			lineno=${hit%%:*}
			inc=${hit#*:}
			target=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$inc")
			if [[ $target != */* ]]; then
				[ "$layer" = probes ] && continue
				finding "$f:$lineno" "include without a layer folder (only probes/ includes generated headers): $inc"
			elif [[ " ${LAYER_ALLOWS[$layer]} " != *" ${target%%/*} "* ]]; then
				finding "$f:$lineno" "$layer/ may not include ${target%%/*}/ (allowed: ${LAYER_ALLOWS[$layer]}): $inc"
			fi
		done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done

	# The environment is read in one place: user/lib/env.c.
	while IFS= read -r hit; do
		[ -n "$hit" ] || continue
		finding "${hit%%:*}:$(cut -d: -f2 <<<"$hit")" "getenv() outside user/lib/env.c (use lib/env.h): $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//')"
	done < <(grep -rnE '\bgetenv[[:space:]]*\(' --include='*.[ch]' user | grep -v '^user/lib/env\.c:')

	# One owner of the worker count and pace: the steering (user/ctl/steer.c)
	# calls engine_set_active and engine_set_pace; the engine defines them.
	while IFS= read -r hit; do
		[ -n "$hit" ] || continue
		finding "${hit%%:*}:$(cut -d: -f2 <<<"$hit")" "the engine's count or pace set outside ctl/steer.c (give the steering an input): $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//')"
	done < <(grep -rnE '\bengine_set_(active|pace)[[:space:]]*\(' --include='*.c' user |
		grep -vE '^user/(ctl/steer\.c|engine/[a-z_]+\.c):' |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|//|/\*)')

	# Syscall numbers come from <sys/syscall.h> (SYS_*), never written out
	# for one architecture: trace_detail_nrs initialised with bare
	# integers, or an NR_X = 123 constant of our own.
	while IFS= read -r hit; do
		[ -n "$hit" ] || continue
		finding "${hit%%:*}:$(cut -d: -f2 <<<"$hit")" "syscall numbers written out (use SYS_* from <sys/syscall.h>): $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//')"
	done < <(grep -rnE '\btrace_detail_nrs[[:space:]]*\[[^]]*\][[:space:]]*=[[:space:]]*\{[^}]*\b[0-9]+\b|\bNR_[A-Za-z0-9_]+[[:space:]]*=[[:space:]]*[0-9]+' \
		--include='*.[ch]' user)
}

# ---------------------------------------------------------------------------
# circles: a loop between files makes each of them unreadable without the
# others; scripts/circles.py finds the strongly connected components of the
# include and call graph. The call edges need the objects (`make lint`
# builds them); without them only the includes are seen, except under
# CI_REQUIRE_LINT=1, where a missing object fails.
check_circles() {
	command -v python3 >/dev/null || { missing_tool python3 circles; return; }
	command -v nm >/dev/null || { missing_tool nm circles; return; }
	local out line require=()
	[ "${CI_REQUIRE_LINT:-0}" = 1 ] && require=(--require-objects)
	out=$(python3 scripts/circles.py --objdir "$OUTPUT" "${require[@]}" user bpf)
	local rc=$?
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		finding "${line%%: *}" "${line#*: }"
	done <<<"$out"
	if [ $rc != 0 ] && [ -z "$out" ]; then
		finding scripts/circles.py "failed with status $rc"
	fi
}

# ---------------------------------------------------------------------------
# exits: only the faces (cli, trace, ranks, mpi, main.c) choose to end the
# process; the layers below return their errors. The one way out below the
# faces is lib/xalloc's "memory exhausted" (xmalloc and friends,
# xalloc_die), defined with die() in lib/xalloc.c and lib/msg.[ch], which are
# therefore not checked. Comments are not code: a line whose first
# non-blank is * or // is skipped.
EXIT_LAYERS=(user/engine user/listdel user/probes user/ctl user/lib)
EXIT_CALLS='\b(exit|_exit|_Exit|quick_exit|abort|assert|die|err|errx|verr|verrx)[[:space:]]*\('
check_exits() {
	local hit file
	while IFS= read -r hit; do
		[ -n "$hit" ] || continue
		file=${hit%%:*}
		case $file in user/lib/msg.[ch] | user/lib/xalloc.c) continue ;; esac
		finding "$file:$(cut -d: -f2 <<<"$hit")" "ends the process below the faces (return the error; out of memory: lib/xalloc.h): $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//')"
	done < <(grep -rnE "$EXIT_CALLS" --include='*.[ch]' "${EXIT_LAYERS[@]}" |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|//|/\*)')
}

# ---------------------------------------------------------------------------
# analyze: the clang static analyzer, one file per job, the build's flags.
analyze_one() { # FILE: prints the analyzer's output
	"$CLANG" --analyze "${BUILD_FLAGS[@]}" -Xanalyzer -analyzer-output=text \
		-o /dev/null "$1" 2>&1
}
check_analyze() {
	command -v "$CLANG" >/dev/null || { missing_tool "$CLANG" analyze; return; }
	local tmp f line i=0 pids=()
	tmp=$(mktemp -d) || return
	# At most LINT_JOBS files at a time; each file's output to its own log.
	for f in $(user_c); do
		i=$((i + 1))
		analyze_one "$f" >"$tmp/$i.log" &
		pids+=($!)
		if [ ${#pids[@]} -ge "$LINT_JOBS" ]; then
			wait "${pids[0]}"
			pids=("${pids[@]:1}")
		fi
	done
	wait
	# The reports ("warning: ... [checker]"), each followed by its path
	# of notes; a compile error counts too. Reports inside the generated
	# skeletons ($OUTPUT/*.skel.h: bpftool's code, whose error paths free
	# through libbpf, out of the analyzer's sight) are not ours to fix.
	local generated=0 skip=0
	for ((f = 1; f <= i; f++)); do
		while IFS= read -r line; do
			case $line in
			"$OUTPUT"/*:[0-9]*:\ warning:* | *.skel.h:[0-9]*:\ warning:*)
				generated=$((generated + 1)) skip=1 ;;
			*:[0-9]*:[0-9]*:\ warning:* | *:[0-9]*:[0-9]*:\ error:*)
				skip=0
				finding "${line%%: *}" "${line#*: }" ;;
			*:[0-9]*:[0-9]*:\ note:*)
				[ $skip = 1 ] || [ -n "${LINT_QUIET_NOTES:-}" ] || echo "$line" ;;
			esac
		done <"$tmp/$f.log"
	done
	rm -rf "$tmp"
	[ $generated = 0 ] || echo "lint: analyze: $generated report(s) in generated $OUTPUT/ files ignored" >&2
}

# ---------------------------------------------------------------------------
# spdx: the licence of every tracked source file, in its first three lines.
check_spdx() {
	local f want
	while IFS= read -r f; do
		case $f in
		vmlinux/* | docs/*) continue ;;
		bpf/*) want=GPL-2.0-or-later ;;
		*) want=GPL-3.0-or-later ;;
		esac
		head -3 "$f" | grep -Eq "SPDX-License-Identifier: $want( \*/)?\$" ||
			finding "$f:1" "no SPDX-License-Identifier: $want line in its first three lines"
	done < <(git ls-files '*.c' '*.h' '*.sh' '*.py' '*.mk' Makefile .ci/run 2>/dev/null)
}

# ---------------------------------------------------------------------------
all_checks=(format shellcheck headers layers circles exits analyze spdx)
checks=("$@")
[ ${#checks[@]} -gt 0 ] || checks=("${all_checks[@]}")
for c in "${checks[@]}"; do
	case " ${all_checks[*]} " in *" $c "*) ;; *) echo "lint: unknown check '$c' (${all_checks[*]})" >&2; exit 2 ;; esac
	before=$findings
	start=$SECONDS
	"check_$c"
	if [ $findings -gt "$before" ]; then
		failed_checks+=("$c")
		echo "lint: $c: $((findings - before)) finding(s) ($((SECONDS - start))s)" >&2
	else
		echo "lint: $c: ok ($((SECONDS - start))s)" >&2
	fi
done
if [ $findings -gt 0 ]; then
	echo "lint: $findings finding(s) in: ${failed_checks[*]}" >&2
	exit 1
fi
