#!/usr/bin/env bash
# The large-file lane's measurement (issue 19): does a tree with a few huge
# files delete in about max(time of the huge files, time of the rest), not
# their sum? Three trees on one filesystem, each deleted cold behind a
# whole-device IOPS cap (where a huge file's unlink reads its extent tree
# and bitmaps, and takes seconds):
#   huge   LANE_HUGE_COUNT files of LANE_HUGE_GIB GiB (fallocate'd), at the top
#   small  the hugemix tree's small files only (100 dirs x 1,000, scaled)
#   mix    both: the huge files at the top, beside the small files' dirs
# Tools: adaptrm (auto and --threads=1), the same two of LANE_BASE (an
# adaptrm without the lane, e.g. built from 9ff9fdc), GNU rm. Medians of
# LANE_REPS interleaved repetitions; the table adds, per tool, mix / max and
# mix / sum of the huge and small medians (1 at max: the lane works).
#
#   LANE_FS        ext4 (default), xfs, btrfs, ext4noext (no extents: ext3's
#                  indirect blocks, read to free a file; its files are written)
#   LANE_DEVIOPS   the cap, read and write IOPS of the loop device (200)
#   LANE_HUGE_GIB  LANE_HUGE_COUNT  (6, 4)
#   LANE_SCALE     the small files' scale (0.3: 30,000 files)
#   LANE_REPS      (3)
#   LANE_BASE      the adaptrm without the lane (skipped if unset)
#   BENCH_WORK     scratch directory (/var/tmp); BENCH_OUT results (bench-results)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
FS_PROG=lane
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"
[ "$(id -u)" = 0 ] || { echo "lane: needs root (loop devices, blkio, drop_caches)" >&2; exit 1; }

ADAPTRM=${ADAPTRM:-$repo/adaptrm}
FS=${LANE_FS:-ext4} DEVIOPS=${LANE_DEVIOPS:-200}
HUGE_GIB=${LANE_HUGE_GIB:-6} HUGE_COUNT=${LANE_HUGE_COUNT:-4}
SCALE=${LANE_SCALE:-0.3} REPS=${LANE_REPS:-3} BASE=${LANE_BASE:-}
OUT=${BENCH_OUT:-bench-results}
[ -x "$ADAPTRM" ] || { echo "lane: $ADAPTRM is not built (make)" >&2; exit 1; }

WORK=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bench.XXXXXX")
echo $$ >"$WORK/pid"
MNT=$WORK/mnt IMG=$WORK/fs.img LOOP=''
mkdir -p "$MNT" "$OUT"
cp "$ADAPTRM" "$WORK/adaptrm" && ADAPTRM=$WORK/adaptrm || exit 1
export XDG_CACHE_HOME=$WORK/cache
cleanup() {
	if [ -n "$LOOP" ]; then fs_devcap "$LOOP" 0; fi
	mountpoint -q "$MNT" && fs_umount "$MNT"
	if [ -n "$LOOP" ]; then fs_detach "$LOOP"; fi
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
fs_loop_attach "$IMG" on || exit 1
LOOP=$FS_LOOP
mount "$LOOP" "$MNT" || exit 1

build() { # TREE
	local mk=("$repo/tests/tools/mkdata.py" --scale "$SCALE" --huge-gib "$HUGE_GIB")
	case $1 in
	huge) python3 "${mk[@]}" --scale 1 --huge-count "$HUGE_COUNT" "$MNT/t" huge ;;
	small) python3 "${mk[@]}" --huge-count 0 "$MNT/t" hugemix ;;
	mix) python3 "${mk[@]}" --huge-count "$HUGE_COUNT" "$MNT/t" hugemix ;;
	esac >/dev/null
}
tool_cmd() { # TOOL
	case $1 in
	auto) CMD=("$ADAPTRM" -rf "$MNT/t") ;;
	t1) CMD=("$ADAPTRM" -rf --threads=1 "$MNT/t") ;;
	base) CMD=("$BASE" -rf "$MNT/t") ;;
	base-t1) CMD=("$BASE" -rf --threads=1 "$MNT/t") ;;
	rm) CMD=(rm -rf "$MNT/t") ;;
	esac
}
tools=(auto t1 rm)
[ -n "$BASE" ] && tools+=(base base-t1)

TSV=$OUT/lane.tsv
printf 'tree\ttool\trep\tstatus\twall\n' >"$TSV"
for ((rep = 1; rep <= REPS; rep++)); do
	for tree in huge small mix; do
		k=${#tools[@]}
		for ((i = 0; i < k; i++)); do
			tool=${tools[$(((i + rep - 1) % k))]}
			rm -rf "$MNT/t"
			build "$tree" || { echo "lane: building $tree failed" >&2; exit 1; }
			sync
			fs_cold_remount "$LOOP" "$MNT" || exit 1
			fs_devcap "$LOOP" "$DEVIOPS" || exit 1
			tool_cmd "$tool"
			t0=$(date +%s.%N)
			timeout 900 "${CMD[@]}" </dev/null >/dev/null 2>"$WORK/err"
			rc=$?
			t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')
			fs_devcap "$LOOP" 0
			status=ok
			[ $rc = 0 ] || status="exit$rc"
			[ -e "$MNT/t" ] && status=incomplete
			printf '%s\t%s\t%s\t%s\t%s\n' "$tree" "$tool" "$rep" "$status" "$t" >>"$TSV"
			echo "lane: rep $rep $tree $tool: $t s $status" >&2
		done
	done
done

python3 - "$TSV" "$FS" "$DEVIOPS" "$HUGE_COUNT" "$HUGE_GIB" "$SCALE" <<'EOF' | tee "$OUT/lane.md"
import csv, statistics, sys
path, fs, iops, count, gib, scale = sys.argv[1:]
runs = {}
for r in csv.DictReader(open(path), delimiter="\t"):
    if r["status"] == "ok":
        runs.setdefault((r["tree"], r["tool"]), []).append(float(r["wall"]))
med = {k: statistics.median(v) for k, v in runs.items()}
tools = sorted({t for _, t in med}, key=["auto", "t1", "base", "base-t1", "rm"].index)
print(f"{fs}, cold, {iops} IOPS on the device; huge = {count} x {gib} GiB, "
      f"small = hugemix's small files at scale {scale}; medians of the repetitions, s\n")
print("| tool | huge | small | mix | mix / max | mix / sum |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for t in tools:
    h, s, m = (med.get((x, t)) for x in ("huge", "small", "mix"))
    if None in (h, s, m):
        continue
    print(f"| {t} | {h:.2f} | {s:.2f} | {m:.2f} | {m / max(h, s):.2f} | {m / (h + s):.2f} |")
EOF
