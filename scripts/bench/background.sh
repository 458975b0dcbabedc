#!/usr/bin/env bash
# Time to return of `adaptrm -rf --background` against deleting in the
# foreground (GNU rm, rmz where installed, adaptrm), for trees from 10 to
# 100,000 entries on tmpfs and on a loop-mounted ext4. Each run builds the
# tree (100 files per directory), syncs, then times the tool with the
# shell's clock; for --background it then times `adaptrm --wait` too, so
# "until freed" is the background delete's whole time. Prints a markdown
# table (the median of BG_REPS runs, in milliseconds).
#
#   BG_FS       tmpfs ext4 (default both)
#   BG_SIZES    entries per tree (default 10 1000 10000 100000)
#   BG_TOOLS    rm rmz adaptrm background (rmz skipped if not installed)
#   BG_REPS     runs per cell (default 3)
#   BENCH_WORK  where the ext4 image goes (default /var/tmp)
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
work=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bg.XXXXXX") || exit 1
mnt=$work/m img=$work/ext4.img
export XDG_STATE_HOME=$work/state
mkdir -p "$mnt" "$XDG_STATE_HOME"

cleanup() {
	mountpoint -q "$mnt" && fs_umount "$mnt"
	fs_detach_image "$img" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mount_one() {
	case $1 in
	tmpfs) fs_tmpfs "$mnt" 2G ;;
	ext4) fs_make_image ext4 "$img" 4G && fs_loop_mount "$img" "$mnt" ;;
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

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| fs | entries | tool | return ms | until freed ms |"
echo "|---|---:|---|---:|---:|"
for fs in $BG_FS; do
	mount_one "$fs" || { echo "background: cannot mount $fs" >&2; continue; }
	for n in $BG_SIZES; do
		for tool in $BG_TOOLS; do
			[ "$tool" = rmz ] && ! command -v rmz >/dev/null && continue
			rets=() frees=()
			for _ in $(seq 1 "$BG_REPS"); do
				build "$n"
				read -r r f < <(run_one "$tool")
				rets+=("$r") frees+=("$f")
			done
			echo "| $fs | $n | $tool | $(printf '%s\n' "${rets[@]}" | median) |" \
				"$(printf '%s\n' "${frees[@]}" | median) |"
		done
	done
	fs_umount "$mnt"
	fs_detach_image "$img" 2>/dev/null
	rm -f "$img"
done
