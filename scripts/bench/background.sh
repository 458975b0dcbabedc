#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Time to return of `adaptrm -rf --background` against deleting in the
# foreground (GNU rm, rmz where installed, adaptrm), for trees from 10 to
# 100,000 entries on tmpfs and on a loop-mounted ext4. Each run builds the
# tree (100 files per directory), syncs, then times the tool with the
# shell's clock; for --background it then times `adaptrm --wait` too, so
# "until freed" is the background delete's whole time. Prints a markdown
# table (the median of BG_REPS runs and the range of the whole times, in
# milliseconds).
#
# BG_MODE=polite measures politeness instead: on ext4 (a loop device with
# direct I/O, capped at BG_DEVIOPS reads and writes a second for everyone,
# kernel threads included), a foreground workload (tests/tools/fsync_probe
# writing and fsyncing 4 KiB every 10 ms, and tests/tools/read_probe.py
# reading 4 KiB at random with direct I/O every 2 ms) runs for BG_WINDOW_S
# seconds while each tool deletes a tree of BG_POLITE_N entries, and once
# with nothing deleted ("alone"). The tools take turns, the order rotating
# each repetition, so that the machine's drift falls on all alike. One table
# row per run: the two probes' p99, and the tool's return and whole time.
#
#   BG_FS       tmpfs ext4 (default both)
#   BG_SIZES    entries per tree (default 10 1000 10000 100000)
#   BG_TOOLS    rm rmz adaptrm background (rmz skipped if not installed)
#   BG_REPS     runs per cell (default 3)
#   BENCH_WORK  where the ext4 image goes (default /var/tmp)
#   BG_MODE     return (default) or polite
#   BG_DEVIOPS  polite: the device cap (default 1000)
#   BG_WINDOW_S polite: the workload's seconds (default 10)
#   BG_POLITE_N polite: entries in the tree (default 20000)
#   BG_PROBE_RT polite: run the probes at this real-time priority (chrt -f),
#               so that other jobs on the CPUs do not blur their latency
#               (default: none, the probes at the normal priority)
#   BG_POLITE_TOOLS polite: the tools taking turns (default alone rm
#               background, and rmz where installed); "before" is
#               --background of the binary BG_BEFORE, so that two builds'
#               deleters pair within each repetition
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
FS_PROG=background
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"

[ "$(id -u)" = 0 ] || { echo "background: needs root (mounts)" >&2; exit 1; }
ADAPTRM=${ADAPTRM:-$repo/adaptrm}
[ -x "$ADAPTRM" ] || { echo "background: $ADAPTRM is not built (make)" >&2; exit 1; }
MKTREE=$repo/tests/tools/mktree.py
BG_FS=${BG_FS:-tmpfs ext4}
BG_SIZES=${BG_SIZES:-10 1000 10000 100000}
BG_TOOLS=${BG_TOOLS:-rm rmz adaptrm background}
BG_REPS=${BG_REPS:-3}
BG_MODE=${BG_MODE:-return}
DEVIOPS=${BG_DEVIOPS:-1000}
WINDOW=${BG_WINDOW_S:-10}
POLITE_N=${BG_POLITE_N:-20000}
TOOLS=${TOOLS:-$repo/.output/tools}
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bg.XXXXXX") || exit 1
mnt=$work/m img=$work/ext4.img
export XDG_STATE_HOME=$work/state
mkdir -p "$mnt" "$XDG_STATE_HOME"

cleanup() {
	[ -n "$FS_LOOP" ] && fs_devcap "$FS_LOOP" 0 2>/dev/null
	mountpoint -q "$mnt" && fs_umount "$mnt"
	fs_detach_image "$img" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mount_one() {
	case $1 in
	# room for a tree of a million entries: an inode per 4 KiB on ext4
	tmpfs) fs_tmpfs "$mnt" 4G ;;
	ext4) fs_make_image ext4 "$img" 4G -i 4096 && fs_loop_mount "$img" "$mnt" ;;
	*) return 1 ;;
	esac
}

# The tree of N entries: N/100 directories of 100 files (or N files).
build() {
	local n=$1
	if [ "$n" -ge 100 ]; then
		python3 "$MKTREE" "$mnt/t" tree $((n / 100)) 100
	else
		python3 "$MKTREE" "$mnt/t" flat "$n"
	fi
	sync -f "$mnt"
}

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# One run of TOOL on the tree: "RETURN_MS FREED_MS".
run_one() {
	local t0 ret
	t0=$(date +%s%N)
	case $1 in
	rm) rm -rf "$mnt/t" ;;
	rmz) rmz -f "$mnt/t" >/dev/null ;;
	adaptrm) "$ADAPTRM" -rf --no-progress "$mnt/t" ;;
	background) "$ADAPTRM" -rf --background "$mnt/t" ;;
	esac
	ret=$(ms_since "$t0")
	[ "$1" = background ] || { echo "$ret $ret"; return; }
	"$ADAPTRM" --wait "$mnt/t"
	echo "$ret $(ms_since "$t0")"
}

# polite: the ext4 on a direct-I/O loop device, and the reader's file.
polite_mount() {
	fs_make_image ext4 "$img" 4G && fs_loop_attach "$img" on && mount "$FS_LOOP" "$mnt" &&
		head -c 256M /dev/urandom >"$mnt/readfile" && sync -f "$mnt"
}

# One polite run of TOOL: "FSYNC_P99_US READ_P99_US RETURN_MS WHOLE_MS".
polite_one() {
	local tool=$1 probe=$TOOLS/fsync_probe t0 ret rp99 p99
	build "$POLITE_N"
	echo 3 >/proc/sys/vm/drop_caches
	fs_devcap "$FS_LOOP" "$DEVIOPS"
	local rt=()
	[ -n "${BG_PROBE_RT:-}" ] && rt=(chrt -f "$BG_PROBE_RT")
	"${rt[@]}" "$probe" --interval-ms=10 --duration="$WINDOW" "$mnt" >"$work/probe.out" 2>&1 &
	local ppid=$!
	"${rt[@]}" python3 "$repo/tests/tools/read_probe.py" --duration="$WINDOW" "$mnt/readfile" \
		>"$work/read.out" 2>&1 &
	local dpid=$!
	sleep 0.5
	t0=$(date +%s%N)
	case $tool in
	alone) ;;
	rm) rm -rf "$mnt/t" ;;
	rmz) rmz -f "$mnt/t" >/dev/null ;;
	background) "$ADAPTRM" -rf --background "$mnt/t" ;;
	before) "$BG_BEFORE" -rf --background "$mnt/t" ;;
	esac
	ret=$(ms_since "$t0")
	[ "$tool" = background ] && "$ADAPTRM" --wait "$mnt/t"
	[ "$tool" = before ] && "$BG_BEFORE" --wait "$mnt/t"
	local whole
	whole=$(ms_since "$t0")
	wait "$ppid" "$dpid"
	fs_devcap "$FS_LOOP" 0
	rm -rf "$mnt/t"
	p99=$(sed -n 's/.*p99_us=\([0-9]*\).*/\1/p' "$work/probe.out")
	rp99=$(sed -n 's/.*p99_us=\([0-9]*\).*/\1/p' "$work/read.out")
	echo "${p99:-?} ${rp99:-?} $ret $whole"
}

polite_lane() {
	local tools=(alone rm background) rep i n
	command -v rmz >/dev/null && tools+=(rmz)
	# shellcheck disable=SC2206 # the list splits on purpose
	[ -n "${BG_POLITE_TOOLS:-}" ] && tools=($BG_POLITE_TOOLS)
	polite_mount || { echo "background: cannot make the capped ext4" >&2; return 1; }
	echo "| rep | tool | fsync p99 us | read p99 us | return ms | whole ms |"
	echo "|---:|---|---:|---:|---:|---:|"
	n=${#tools[@]}
	for rep in $(seq 1 "$BG_REPS"); do
		for i in $(seq 0 $((n - 1))); do
			local tool=${tools[$(((i + rep) % n))]}
			echo "| $rep | $tool | $(polite_one "$tool" | tr ' ' '|' | sed 's/|/ | /g') |"
		done
	done
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

if [ "$BG_MODE" = polite ]; then
	polite_lane
	exit
fi
range() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }

# The tools take turns within a repetition, the order rotating, so that a
# busy moment of a shared machine falls on all of them alike.
echo "| fs | entries | tool | return ms | until freed ms | freed range ms |"
echo "|---|---:|---|---:|---:|---:|"
for fs in $BG_FS; do
	mount_one "$fs" || { echo "background: cannot mount $fs" >&2; continue; }
	for n in $BG_SIZES; do
		tools=()
		for tool in $BG_TOOLS; do
			[ "$tool" = rmz ] && ! command -v rmz >/dev/null && continue
			tools+=("$tool")
		done
		declare -A rets=() frees=()
		for rep in $(seq 1 "$BG_REPS"); do
			for i in "${!tools[@]}"; do
				tool=${tools[$(((i + rep) % ${#tools[@]}))]}
				build "$n"
				read -r r f < <(run_one "$tool")
				rets[$tool]+="$r " frees[$tool]+="$f "
			done
		done
		for tool in "${tools[@]}"; do
			# shellcheck disable=SC2086 # the lists split on purpose
			echo "| $fs | $n | $tool | $(printf '%s\n' ${rets[$tool]} | median) |" \
				"$(printf '%s\n' ${frees[$tool]} | median) |" \
				"$(printf '%s\n' ${frees[$tool]} | range) |"
		done
		unset rets frees
	done
	fs_umount "$mnt"
	fs_detach_image "$img" 2>/dev/null
	rm -f "$img"
done
