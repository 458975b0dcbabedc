#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The large-file lane's measurement: does a tree with a few huge
# files delete in about max(time of the huge files, time of the rest), not
# their sum? Three trees on one filesystem, each deleted cold on a slow disk
# (results and what they mean: docs/benchmarks.md#large-files-the-lane):
#   huge   LANE_HUGE_COUNT files of LANE_HUGE_GIB GiB, at the top
#   small  the hugemix tree's small files only (100 dirs x 1,000, scaled)
#   mix    both: the same huge files at the top, beside the small files' dirs
# Tools (LANE_TOOLS): auto (adaptrm -rf), t1 (--threads=1), wd0 (auto with
# ADAPTRM_LANE_WATCHDOG_MS=0: the lane on at 1 GiB from the start), wd0-t1
# (both), ds1 (auto with ADAPTRM_DIR_SHARE=1: one worker per directory, so
# no read is batched), base and base-t1 (LANE_BASE, an adaptrm without the
# lane, e.g. built from a commit before it), rm (GNU rm). Medians of LANE_REPS
# interleaved repetitions; the table adds, per tool, mix / max and mix / sum
# of the huge and small medians (1 at max: the huge files cost the mix
# nothing; 1 at sum: they held the rest up).
#
#   LANE_FS        ext4 (default), xfs, btrfs, ext4noext (no extents: ext3's
#                  indirect blocks; its files are written, not fallocate'd)
#   LANE_SHAPE     allocated (default: each huge file in one piece, or as
#                  few extents as the filesystem makes) or fragmented (every
#                  other block punched out: one extent per 4 KiB block kept,
#                  so freeing reads size / 8 MiB extent-tree leaves on ext4)
#   LANE_DISK      deviops:N (default deviops:200: the loop device's reads
#                  and writes capped at N a second, whoever submits them: a
#                  shared budget, so overlapping cannot beat the sum) or
#                  latency:US (the image on tests/tools/slowfs, each request
#                  US slower, requests overlapping: a network disk)
#   LANE_SLOW_DIO  1 (default): the loop device over slowfs uses direct I/O,
#                  so its requests overlap and every block request pays the
#                  latency; 0: buffered (one request at a time, and FUSE
#                  readahead serves most reads from an earlier request: the
#                  disk is then serial and faster than its latency says);
#                  slowfs opens its backing file without the client's
#                  O_DIRECT (an older slowfs that passed it on fails)
#   LANE_SLOW_RA_KB  read-ahead of slowfs's mount, KiB (unset: the kernel's,
#                  128; 0 makes every 4 KiB metadata read a request)
#   LANE_HUGE_GIB  LANE_HUGE_COUNT  (6, 4)
#   LANE_SCALE     the small files' scale (0.3: 30,000 files)
#   LANE_REPS      (3)
#   LANE_CTL_START the worker count every adaptrm run (auto, wd0, ds1, t1...)
#                  starts at (ADAPTRM_CTL_START); unset: the profile's, which
#                  the runs before wrote (all runs share one cache), or the
#                  filesystem type's prior. It decides the first read of the
#                  top directory: batched (shared) with more than one worker
#   LANE_BASE      the adaptrm without the lane (base tools skipped if unset)
#   LANE_TOOLS     (auto t1 wd0 rm, plus base base-t1 with LANE_BASE)
#   LANE_TREES     which trees (huge small mix); e.g. mix alone for one
#                  diagnostic run under strace (the table then has no rows)
#   BENCH_WORK     scratch directory (/var/tmp); BENCH_OUT results (bench-results)
# Writes $BENCH_OUT/lane.tsv (every run; note: adaptrm's --stats lane and
# threads lines),
# lane-files.txt (the huge files' block map as built) and lane.md (the table).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
FS_PROG=lane
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"
[ "$(id -u)" = 0 ] || { echo "lane: needs root (loop devices, blkio, drop_caches)" >&2; exit 1; }

ADAPTRM=${ADAPTRM:-$repo/adaptrm}
SLOWFS=${SLOWFS:-$repo/.output/tools/slowfs}
FS=${LANE_FS:-ext4} SHAPE=${LANE_SHAPE:-allocated} DISK=${LANE_DISK:-deviops:200}
HUGE_GIB=${LANE_HUGE_GIB:-6} HUGE_COUNT=${LANE_HUGE_COUNT:-4}
SCALE=${LANE_SCALE:-0.3} REPS=${LANE_REPS:-3} BASE=${LANE_BASE:-}
OUT=${BENCH_OUT:-bench-results}
[ -x "$ADAPTRM" ] || { echo "lane: $ADAPTRM is not built (make)" >&2; exit 1; }
case $SHAPE in allocated | fragmented) ;; *) echo "lane: unknown LANE_SHAPE '$SHAPE'" >&2; exit 2 ;; esac
case $DISK in
deviops:[0-9]*) ;;
latency:[0-9]*) [ -x "$SLOWFS" ] || { echo "lane: $SLOWFS is not built (make tools)" >&2; exit 1; } ;;
*) echo "lane: unknown LANE_DISK '$DISK' (deviops:N or latency:US)" >&2; exit 2 ;;
esac
if [ -n "${LANE_TOOLS:-}" ]; then
	read -ra tools <<<"$LANE_TOOLS"
else
	tools=(auto t1 wd0 rm)
	[ -n "$BASE" ] && tools+=(base base-t1)
fi
read -ra trees <<<"${LANE_TREES:-huge small mix}"
for tree in "${trees[@]}"; do
	case $tree in huge | small | mix) ;; *) echo "lane: unknown tree '$tree'" >&2; exit 2 ;; esac
done

WORK=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bench.XXXXXX")
echo $$ >"$WORK/pid"
MNT=$WORK/mnt IMGDIR=$WORK/img SLOWDIR=$WORK/slow LOOP='' SLOW_PID=''
IMG=$IMGDIR/fs.img
mkdir -p "$MNT" "$IMGDIR" "$OUT"
cp "$ADAPTRM" "$WORK/adaptrm" && ADAPTRM=$WORK/adaptrm || exit 1
export XDG_CACHE_HOME=$WORK/cache
mkdir -p "$XDG_CACHE_HOME"
stop_slowfs() {
	[ -n "$SLOW_PID" ] || return 0
	fs_umount_fuse "$SLOWDIR" 2>/dev/null
	kill "$SLOW_PID" 2>/dev/null
	wait "$SLOW_PID" 2>/dev/null
	SLOW_PID=
}
cleanup() {
	if [ -n "$LOOP" ]; then fs_devcap "$LOOP" 0; fi
	mountpoint -q "$MNT" && fs_umount "$MNT"
	if [ -n "$LOOP" ]; then fs_detach "$LOOP"; fi
	stop_slowfs
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

size=$(awk -v g="$HUGE_GIB" -v n="$HUGE_COUNT" 'BEGIN{print int(g * n * 1.3 + 8) "G"}')
case $FS in
ext4noext) fs_make_image ext4 "$IMG" "$size" -O "^extent,^64bit" || exit 1 ;;
*) fs_make_image "$FS" "$IMG" "$size" || exit 1 ;;
esac

# The image on a loop device with direct I/O, where trees are built.
to_direct_disk() {
	if [ -n "$LOOP" ]; then
		umount "$MNT" || return 1
		fs_detach "$LOOP"
		LOOP=
	fi
	stop_slowfs
	fs_loop_attach "$IMG" on || return 1
	LOOP=$FS_LOOP
	mount "$LOOP" "$MNT"
}
# The image through slowfs (max_threads=64, so requests may overlap), on a
# loop device (direct I/O unless LANE_SLOW_DIO=0), every cache dropped.
to_slow_disk() { # US
	umount "$MNT" || return 1
	fs_detach "$LOOP"
	LOOP=
	mkdir -p "$SLOWDIR"
	fs_slowfs_start "$SLOWFS" "$1" "$IMGDIR" "$SLOWDIR" -o max_threads=64
	SLOW_PID=$FS_SLOWFS_PID
	fs_slowfs_wait "$SLOWDIR" || { echo "lane: slowfs did not mount" >&2; return 1; }
	if [ -n "${LANE_SLOW_RA_KB:-}" ]; then
		echo "$LANE_SLOW_RA_KB" >"/sys/class/bdi/$(mountpoint -d "$SLOWDIR")/read_ahead_kb" || return 1
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	local dio=off
	[ "${LANE_SLOW_DIO:-1}" = 1 ] && dio=on
	fs_loop_attach "$SLOWDIR/fs.img" "$dio" || return 1
	LOOP=$FS_LOOP
	if [ "$dio" = on ] && [ "$FS_LOOP_DIO" != 1 ]; then
		echo "lane: the loop device over slowfs did not get direct I/O" >&2
		return 1
	fi
	mount "$LOOP" "$MNT"
}
to_disk() {
	case $DISK in
	deviops:*) fs_cold_remount "$LOOP" "$MNT" && fs_devcap "$LOOP" "${DISK#deviops:}" ;;
	latency:*) to_slow_disk "${DISK#latency:}" ;;
	esac
}
off_disk() {
	case $DISK in
	deviops:*) fs_devcap "$LOOP" 0 ;;
	latency:*) to_direct_disk ;;
	esac
}
to_direct_disk || exit 1

mk() { python3 "$repo/tests/tools/mkdata.py" "$@" >/dev/null; }
# The huge files, at scale 1 whatever LANE_SCALE, into DIR (made here).
build_huge() { # DIR
	if [ "$SHAPE" = allocated ]; then
		mk --huge-gib "$HUGE_GIB" --huge-count "$HUGE_COUNT" "$1" huge
		return
	fi
	local i
	mkdir "$1" || return 1
	for ((i = 0; i < HUGE_COUNT; i++)); do
		mk --huge-gib "$HUGE_GIB" "$MNT/frag.tmp" fragmented &&
			mv "$MNT/frag.tmp/frag" "$1/huge$i" && rmdir "$MNT/frag.tmp" || return 1
	done
}
build() { # TREE
	case $1 in
	huge) build_huge "$MNT/t" ;;
	small) mk --scale "$SCALE" --huge-count 0 "$MNT/t" hugemix ;;
	mix)
		mk --scale "$SCALE" --huge-count 0 "$MNT/t" hugemix &&
			build_huge "$MNT/h.tmp" && mv "$MNT"/h.tmp/huge* "$MNT/t/" && rmdir "$MNT/h.tmp"
		;;
	esac
}
# What the huge files are on disk, once: filefrag's extent count and, on
# ext4, debugfs's map (EXTENTS, or ext3's BLOCKS with IND/DIND).
record_files() {
	local f
	{
		echo "LANE_FS=$FS LANE_SHAPE=$SHAPE LANE_HUGE_GIB=$HUGE_GIB LANE_HUGE_COUNT=$HUGE_COUNT"
		for f in "$MNT"/t/huge*; do
			du -k --apparent-size "$f" | sed 's/\t.*//;s/$/ KiB apparent/'
			du -k "$f" | sed 's/\t.*//;s/$/ KiB allocated/'
			filefrag "$f" 2>&1
			case $FS in ext4*)
				sync
				debugfs -R "stat /t/${f##*/}" "$LOOP" 2>/dev/null |
					awk '/^(EXTENTS|BLOCKS):/{getline m; n = gsub(/, /, "", m) + 1;
					     i = gsub(/\((T)?IND\)|\(DIND\)|\(ETB[0-9]*\)/, "", m);
					     print $1, n, "map entries,", i, "indirect/extent-tree blocks"}'
				;;
			esac
			break
		done
	} >"$OUT/lane-files.txt"
}
tool_cmd() { # TOOL
	ENVS=()
	case $1 in
	auto) CMD=("$ADAPTRM" -rf --stats "$MNT/t") ;;
	t1) CMD=("$ADAPTRM" -rf --stats --threads=1 "$MNT/t") ;;
	wd0) CMD=("$ADAPTRM" -rf --stats "$MNT/t") ENVS=(ADAPTRM_LANE_WATCHDOG_MS=0) ;;
	wd0-t1) CMD=("$ADAPTRM" -rf --stats --threads=1 "$MNT/t") ENVS=(ADAPTRM_LANE_WATCHDOG_MS=0) ;;
	ds1) CMD=("$ADAPTRM" -rf --stats "$MNT/t") ENVS=(ADAPTRM_DIR_SHARE=1) ;;
	base) CMD=("$BASE" -rf "$MNT/t") ;;
	base-t1) CMD=("$BASE" -rf --threads=1 "$MNT/t") ;;
	rm) CMD=(rm -rf "$MNT/t") ;;
	*) echo "lane: unknown tool '$1'" >&2; return 1 ;;
	esac
}

TSV=$OUT/lane.tsv
printf 'tree\ttool\trep\tstatus\twall\tnote\n' >"$TSV"
recorded=''
for ((rep = 1; rep <= REPS; rep++)); do
	for tree in "${trees[@]}"; do
		k=${#tools[@]}
		for ((i = 0; i < k; i++)); do
			tool=${tools[$(((i + rep - 1) % k))]}
			tool_cmd "$tool" || exit 2
			rm -rf "$MNT/t"
			build "$tree" || { echo "lane: building $tree failed" >&2; exit 1; }
			sync
			if [ -z "$recorded" ] && [ "$tree" != small ]; then record_files; recorded=1; fi
			to_disk || exit 1
			[ -n "${LANE_CTL_START:-}" ] && [ "$tool" != rm ] && ENVS+=(ADAPTRM_CTL_START="$LANE_CTL_START")
			t0=$(date +%s.%N)
			env "${ENVS[@]}" timeout 900 "${CMD[@]}" </dev/null >/dev/null 2>"$WORK/err"
			rc=$?
			t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')
			off_disk || exit 1
			status=ok
			[ $rc = 0 ] || status="exit$rc"
			[ -e "$MNT/t" ] && status=incomplete
			note=$(grep -E '^(large files|threads):' "$WORK/err" | tr '\t\n' '  ')
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tree" "$tool" "$rep" "$status" "$t" "$note" >>"$TSV"
			echo "lane: rep $rep $tree $tool: $t s $status $note" >&2
		done
	done
done

disk=$DISK
case $DISK in latency:*) disk+=" (loop dio ${LANE_SLOW_DIO:-1}${LANE_SLOW_RA_KB:+, slowfs read-ahead $LANE_SLOW_RA_KB KiB})" ;; esac
python3 - "$TSV" "$FS" "$disk" "$SHAPE" "$HUGE_COUNT" "$HUGE_GIB" "$SCALE" <<'EOF2' | tee "$OUT/lane.md"
import csv, statistics, sys
path, fs, disk, shape, count, gib, scale = sys.argv[1:]
runs = {}
for r in csv.DictReader(open(path), delimiter="\t"):
    if r["status"] == "ok":
        runs.setdefault((r["tree"], r["tool"]), []).append(float(r["wall"]))
order = ["auto", "wd0", "ds1", "t1", "wd0-t1", "base", "base-t1", "rm"]
tools = sorted({t for _, t in runs}, key=order.index)
print(f"{fs}, cold, {disk}; huge = {count} x {gib} GiB {shape}, small = hugemix's "
      f"small files at scale {scale}; medians (min-max) of the repetitions, s\n")
print("| tool | huge | small | mix | mix / max | mix / sum |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
cell = lambda v: f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
for t in tools:
    v = [runs.get((x, t)) for x in ("huge", "small", "mix")]
    if None in v:
        continue
    h, s, m = (statistics.median(x) for x in v)
    print(f"| {t} | {cell(v[0])} | {cell(v[1])} | {cell(v[2])} | "
          f"{m / max(h, s):.2f} | {m / (h + s):.2f} |")
EOF2
