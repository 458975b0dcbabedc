#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The gentle mode's measurement: how long a database's commits
# stall while huge files are deleted. A probe on the same filesystem
# (tests/tools/fsync_probe.c) writes 4 KiB and fsyncs every 10 ms and records
# each latency while a tool deletes the tree; the table has the tool's wall
# time and the probe's p50, p99 and worst latency, against the probe alone.
#
# Per filesystem x case a fresh filesystem is made (a loop device with
# direct I/O on an image in BENCH_WORK, default /var/tmp); per run the tree
# is built, synced, the filesystem unmounted, every cache dropped and mounted
# again (cold), the probe started, and after 0.5 s the tool run; the probe
# runs on GENTLE_SETTLE_S seconds (default 6: past jbd2's 5 s commit
# interval, so the commits of what the tool freed happen under it, as they
# would beside a database), then stops, and syncfs is timed apart ("sync s":
# the write-back still owed; with the probe stopped first, a forced sync
# does not count as the tool's stall). The deleting tools take turns (the order
# rotates each repetition); "probe" (the probe alone, sleeping as long as
# the slowest tool of the cell so far) comes last.
#
# Selection (environment):
#   GENTLE_FS     ext4, ext4discard (ext4 mounted -o discard: an SSD that is
#                 told about freed blocks), xfs, btrfs, ext4noext (ext4
#                 without extents, ext3's indirect blocks: no fallocate, so
#                 its files are written with zeros and its huge files are
#                 GENTLE_NOEXT_GIB each); default all five
#   GENTLE_CASES  huge (GENTLE_HUGE_COUNT x GENTLE_HUGE_GIB files, default
#                 4 x 8 GiB, fallocate'd), fragmented (one GENTLE_FRAG_GIB
#                 file, default 8, every other block punched out); default both
#   GENTLE_TOOLS  rm rmz adaptrm gentle probe (gentle = adaptrm
#                 --free-rate=GENTLE_RATE, skipped if adaptrm lacks it)
#   GENTLE_RATE   default 1G (bytes a second: 32 GiB in about 32 s)
#   GENTLE_REPS   repetitions (default 2)
#   GENTLE_INTERVAL_MS  the probe's period (default 10)
#   GENTLE_NOEXT_GIB    ext4noext's huge files (default 1: written, not
#                 fallocate'd)
#   GENTLE_SETTLE_S  seconds the probe runs on after the tool (default 6)
#   GENTLE_DEVIOPS  cap every read and write of the loop device (the probe's,
#                 the tool's, jbd2's, writeback's) at N IOPS during each run:
#                 a cloud volume's limit, where a commit that must write the
#                 freed extents' metadata makes the probe's fsync wait;
#                 default 0 (no cap)
#   BENCH_SCALE   multiply every size (e.g. 0.01 for a smoke test)
#   BENCH_TIMEOUT seconds before a tool is killed (default 600)
#   BENCH_OUT     results directory (default bench-results): gentle.md,
#                 gentle.tsv, and every run's probe samples in gentle-samples/
# The default takes about 45 minutes here (5 fs x 2 cases x 5 tools x 2).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
FS_PROG=gentle
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"

[ "$(id -u)" = 0 ] || { echo "gentle: needs root (loop devices, drop_caches)" >&2; exit 1; }
ADAPTRM=${ADAPTRM:-$repo/adaptrm}
TOOLS=${TOOLS:-$repo/.output/tools}
PROBE=$TOOLS/fsync_probe
[ -x "$ADAPTRM" ] || { echo "gentle: $ADAPTRM is not built (make)" >&2; exit 1; }
[ -x "$PROBE" ] || { echo "gentle: $PROBE is not built (make tools)" >&2; exit 1; }

read -r -a FSES <<<"${GENTLE_FS:-ext4 ext4discard xfs btrfs ext4noext}"
read -r -a CASES <<<"${GENTLE_CASES:-huge fragmented}"
read -r -a TOOLS_SEL <<<"${GENTLE_TOOLS:-rm rmz adaptrm gentle probe}"
RATE=${GENTLE_RATE:-1G}
REPS=${GENTLE_REPS:-2}
INTERVAL=${GENTLE_INTERVAL_MS:-10}
SCALE=${BENCH_SCALE:-1}
TIMEOUT=${BENCH_TIMEOUT:-600}
OUT=${BENCH_OUT:-bench-results}
HUGE_GIB=${GENTLE_HUGE_GIB:-8} HUGE_COUNT=${GENTLE_HUGE_COUNT:-4}
FRAG_GIB=${GENTLE_FRAG_GIB:-8} NOEXT_GIB=${GENTLE_NOEXT_GIB:-1}
DEVIOPS=${GENTLE_DEVIOPS:-0}
SETTLE=${GENTLE_SETTLE_S:-6}
[[ $DEVIOPS =~ ^[0-9]+$ ]] || { echo "gentle: GENTLE_DEVIOPS must be a number" >&2; exit 2; }
RMZ=$(command -v rmz || { [ -x "$HOME/.cargo/bin/rmz" ] && echo "$HOME/.cargo/bin/rmz"; } || true)

for f in "${FSES[@]}"; do
	case $f in ext4 | ext4discard | xfs | btrfs | ext4noext) ;; *) echo "gentle: unknown filesystem '$f'" >&2; exit 2 ;; esac
done
for c in "${CASES[@]}"; do
	case $c in huge | fragmented) ;; *) echo "gentle: unknown case '$c'" >&2; exit 2 ;; esac
done
tools=()
for t in "${TOOLS_SEL[@]}"; do
	case $t in
	rm | adaptrm | probe) tools+=("$t") ;;
	rmz) if [ -n "$RMZ" ]; then tools+=(rmz); else echo "gentle: rmz is not installed, skipped" >&2; fi ;;
	gentle)
		if "$ADAPTRM" --help 2>&1 | grep -q -- --free-rate; then tools+=(gentle)
		else echo "gentle: $ADAPTRM has no --free-rate, gentle skipped" >&2; fi
		;;
	*) echo "gentle: unknown tool '$t'" >&2; exit 2 ;;
	esac
done

WORK=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bench.XXXXXX")
echo $$ >"$WORK/pid"
MNT=$WORK/mnt IMG=$WORK/fs.img
mkdir -p "$MNT" "$OUT/gentle-samples"
cp "$ADAPTRM" "$WORK/adaptrm" && ADAPTRM=$WORK/adaptrm || exit 1
export XDG_CACHE_HOME=$WORK/cache
mkdir -p "$XDG_CACHE_HOME"
LOOP='' PROBE_PID=''
teardown_fs() {
	if [ -n "$PROBE_PID" ]; then kill "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; PROBE_PID=; fi
	# a loop device keeps its cap after it is detached: lift it first
	[ -n "$LOOP" ] && [ "$DEVIOPS" != 0 ] && fs_devcap "$LOOP" 0
	mountpoint -q "$MNT" && fs_umount "$MNT"
	if [ -n "$LOOP" ]; then fs_detach "$LOOP" 2>/dev/null; LOOP=; fi
	rm -f "$IMG"
}
cleanup() {
	teardown_fs
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'echo "gentle: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

gib_of() { # CASE FS -> size of each file in GiB, scaled
	local g=$HUGE_GIB
	[ "$1" = fragmented ] && g=$FRAG_GIB
	[ "$1" = huge ] && [ "$2" = ext4noext ] && g=$NOEXT_GIB
	awk -v g="$g" -v f="$SCALE" 'BEGIN{print g * f}'
}

# A fresh filesystem for a cell, big enough for the case (sparse image).
MOUNT_OPTS=()
setup_fs() { # FS CASE
	local type=$1 opts=() size
	MOUNT_OPTS=()
	case $1 in
	ext4discard) type=ext4 MOUNT_OPTS=(-o discard) ;;
	ext4noext) type=ext4 opts=(-O "^extent,^64bit") ;;
	esac
	[ "$type" = ext4 ] && opts+=(-E "lazy_itable_init=0,lazy_journal_init=0")
	size=$(awk -v g="$(gib_of "$2" "$1")" -v n="$HUGE_COUNT" 'BEGIN{print int(g * n * 1.2 + 4.999) "G"}')
	fs_make_image "$type" "$IMG" "$size" "${opts[@]}" || return 1
	fs_loop_attach "$IMG" on || return 1
	LOOP=$FS_LOOP
	mount "${MOUNT_OPTS[@]}" "$LOOP" "$MNT"
}

size_text() { awk -v b="$1" 'BEGIN{printf (b >= 1073741824 ? "%.1f GiB" : "%.0f MiB"), b / (b >= 1073741824 ? 1073741824 : 1048576)}'; }
build() { # CASE FS
	local gib; gib=$(gib_of "$1" "$2")
	case $1 in
	huge) python3 "$repo/tests/tools/mkdata.py" --huge-gib "$gib" --huge-count "$HUGE_COUNT" "$MNT/t" huge ;;
	fragmented) python3 "$repo/tests/tools/mkdata.py" --huge-gib "$gib" "$MNT/t" fragmented ;;
	esac
}

tool_cmd() { # TOOL DIR SECS -> CMD
	case $1 in
	rm) CMD=(rm -rf "$2") ;;
	rmz) CMD=("$RMZ" -f "$2") ;;
	adaptrm) CMD=("$ADAPTRM" -rf "$2") ;;
	gentle) CMD=("$ADAPTRM" --free-rate="$RATE" -rf "$2") ;;
	probe) CMD=(sleep "$3") ;;
	esac
}

TSV=$WORK/gentle.tsv
printf 'fs\tcase\tlabel\ttool\trep\tstatus\twall\tcount\tp50_us\tp99_us\tmax_us\tbytes\trate\tsync\n' >"$TSV"

# run_one FS CASE TOOL REP: build, sync, cold remount, probe, delete, record.
run_one() {
	local fs=$1 case=$2 tool=$3 rep=$4 out bytes rc t status line samples
	rm -rf "$MNT/t"
	out=$(build "$case" "$fs") || { echo "gentle: building $case on $fs failed" >&2; return 1; }
	declare -A kv=()
	for f in $out; do kv[${f%%=*}]=${f#*=}; done
	bytes=${kv[bytes]}
	if [ "$case" = huge ]; then LABEL="${kv[files]} x $(size_text "${kv[huge]}")"
	else LABEL="$(size_text "${kv[size]}"), ${kv[extents]} extents"
	fi
	[ "${kv[written]}" = 1 ] && LABEL="$LABEL, written"
	[ "$DEVIOPS" != 0 ] && LABEL="$LABEL, $DEVIOPS IOPS"
	sync
	fs_cold_remount "$LOOP" "$MNT" "${MOUNT_OPTS[@]}" || { echo "gentle: cannot remount $fs" >&2; return 1; }
	[ "$DEVIOPS" != 0 ] && { fs_devcap "$LOOP" "$DEVIOPS" || { echo "gentle: cannot cap $LOOP" >&2; return 1; }; }
	samples="$OUT/gentle-samples/$fs-$case-$tool-$rep.txt"
	"$PROBE" --interval-ms="$INTERVAL" --samples="$samples" "$MNT" >"$WORK/probe.out" 2>&1 &
	PROBE_PID=$!
	sleep 0.5
	tool_cmd "$tool" "$MNT/t" "$PROBE_SECS"
	local TIMEFORMAT='%3R'
	{ time timeout -k 5 "$TIMEOUT" "${CMD[@]}" </dev/null >"$WORK/out" 2>&1; } 2>"$WORK/time"
	rc=$?
	# xfs and btrfs free extents in the background after the unlink returns,
	# ext4 commits every 5 s: the probe runs on through both.
	local t0 sync_s
	sleep "$SETTLE"
	kill "$PROBE_PID"; wait "$PROBE_PID"; PROBE_PID=
	t0=$(date +%s.%N)
	sync -f "$MNT"
	sync_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')
	[ "$DEVIOPS" != 0 ] && fs_devcap "$LOOP" 0
	t=$(tail -n 1 "$WORK/time")
	[[ $t =~ ^[0-9.]+$ ]] || t=0
	line=$(grep '^count=' "$WORK/probe.out")
	if [ $rc = 124 ] || [ $rc = 137 ]; then status=timeout
	elif [ $rc != 0 ]; then status="exit$rc"
	elif [ "$tool" != probe ] && [ -e "$MNT/t" ]; then status=incomplete
	elif [ -z "$line" ]; then status=noprobe
	else status=ok
	fi
	[ "$status" = ok ] || echo "gentle: $tool on $fs $case: $status: $(head -1 "$WORK/out") $(head -1 "$WORK/probe.out")" >&2
	rm -rf "$MNT/t"
	kv=()
	for f in $line; do kv[${f%%=*}]=${f#*=}; done
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$case" "$LABEL" "$tool" "$rep" "$status" "$t" \
		"${kv[count]:-0}" "${kv[p50_us]:-0}" "${kv[p99_us]:-0}" "${kv[max_us]:-0}" "$bytes" "$RATE" "$sync_s" >>"$TSV"
	LAST="$t s, probe p99 ${kv[p99_us]:-?} µs, max ${kv[max_us]:-?} µs"
	[ "$tool" = probe ] || PROBE_SECS=$(awk -v a="$PROBE_SECS" -v b="$t" 'BEGIN{print (b > a ? b : a)}')
}

deleters=() has_probe=0
for t in "${tools[@]}"; do if [ "$t" = probe ]; then has_probe=1; else deleters+=("$t"); fi; done
total=$((${#FSES[@]} * ${#CASES[@]} * ${#tools[@]} * REPS))
echo "gentle: ${FSES[*]} x ${CASES[*]} x ${tools[*]}, $REPS repetitions ($total runs), rate $RATE" >&2
n=0 started=$(date +%s)
for fs in "${FSES[@]}"; do
	for case in "${CASES[@]}"; do
		teardown_fs
		setup_fs "$fs" "$case" || { echo "gentle: cannot set up $fs, cell skipped" >&2; teardown_fs; continue; }
		PROBE_SECS=2
		for ((rep = 1; rep <= REPS; rep++)); do
			order=()
			k=${#deleters[@]}
			for ((i = 0; i < k; i++)); do order+=("${deleters[$(((i + rep - 1) % k))]}"); done
			[ $has_probe = 1 ] && order+=(probe)
			for tool in "${order[@]}"; do
				n=$((n + 1))
				run_one "$fs" "$case" "$tool" "$rep" || continue
				printf 'gentle: [%d/%d %ds] %-11s %-10s %-7s rep %d: %s\n' "$n" "$total" \
					$(($(date +%s) - started)) "$fs" "$case" "$tool" "$rep" "$LAST" >&2
			done
		done
		teardown_fs
	done
done

cp "$TSV" "$OUT/gentle.tsv"
GENTLE_RATE=$RATE GENTLE_INTERVAL_MS=$INTERVAL python3 "$repo/scripts/bench/gentle-report.py" \
	"$OUT/gentle.tsv" "$OUT/gentle.md" || exit 1
cat "$OUT/gentle.md"
echo "gentle: results in $OUT/gentle.{md,tsv} ($(($(date +%s) - started))s)" >&2
