#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The deletion benchmark (`make bench`): adaptrm against GNU rm, rmz,
# find -delete and rsync --delete, on real filesystems and tree shapes.
#
# For every filesystem x shape cell a fresh filesystem is made; then, round
# robin over the repetitions (the tool order rotates each round, so slow drift
# of a noisy shared machine does not favour one tool), each tool gets a fresh
# tree, built and synced (warm cache), and deletes it. A run counts only if
# the tree is really gone afterwards; otherwise it is "incomplete", "fail"
# (non-zero exit), "crash" (killed by a signal) or "timeout", and that tool is
# not run again in that cell. The report has medians and ratios only:
#   auto/peer    adaptrm's default (adaptive) / the best of rm, rmz, find, rsync
#   auto/oracle  adaptrm's default / the best pinned --threads=N in the cell
# and their geometric means over the cells.
#
# Selection (environment):
#   BENCH_FS      filesystems: tmpfs ext4 xfs btrfs slowfs, and overlay
#                 (overlayfs over tmpfs, a container layer; not in the default)
#   BENCH_SHAPES  tree (200 dirs x 1000 files), flat (200,000 files in one
#                 dir), chain (50,000 nested dirs), smalldirs (20,000 dirs x 10)
#   BENCH_TOOLS   auto t1 t2 t4 t8 t16 t32 t64 (adaptrm --threads=N), rm, rmz,
#                 find, rsync
#   BENCH_REPS    repetitions (default 3)
#   BENCH_FULL=1  the whole matrix: all of the above (takes hours on 2 CPUs)
#   BENCH_SCALE   multiply every tree size (e.g. 0.05 for a smoke test)
#   BENCH_SLOWFS_DELAY_US  slowfs delay per operation (default 1000); its
#                 trees are smaller (see shape_args)
#   BENCH_TIMEOUT seconds before a run is killed (default 600)
#   BENCH_OUT     results directory (default bench-results)
#   BENCH_TRACE=0 do not run scripts/bench/trace-overhead.sh at the end
#   BENCH_BASE    another adaptrm binary (an earlier commit's), run as the
#                 tool "base": the report adds auto / base, paired by
#                 repetition, to check that a change is no slower
#   BENCH_MPI=1   instead of all this, adaptrm-mpi on the metadata-server
#                 stand-in: scripts/bench/mpi.sh, its variables
#                 (MPI_*, BENCH_SCALE, BENCH_REPS, BENCH_OUT) in its header
#
# Real I/O: trees whose files hold blocks, cold caches, slow disks.
#   BENCH_FS      also ext4noext: ext4 without extents (mkfs.ext4 -O
#                 ^extent,^64bit), ext3's indirect-block format; it has no
#                 fallocate, so its files are written with zeros
#   BENCH_SHAPES  also, built by tests/tools/mkdata.py (sizes fallocate'd,
#                 the images stay sparse; how the sizes were chosen: there):
#                 srcbuild    a source + build tree: 100,000 files, log-normal
#                             sizes, a few 4-64 MiB binaries, ~3.5 GiB
#                 nodemodules npm's real output for typescript webpack
#                             webpack-cli eslint jest @babel/core
#                             @babel/preset-env react react-dom next
#                             @angular/core rxjs lodash (2,764 dirs, 24,240
#                             files, 34 symlinks, 503 MB), installed once into
#                             BENCH_NPM_DIR (default /var/tmp/adaptrm-npm-tree)
#                             and copied per run; a synthetic model of it
#                             when npm or the registry is not at hand, or
#                             with BENCH_SCALE below 0.25
#                 hugemix     4 x 20 GiB files + 100,000 small ones
#                 fragmented  one 2 GiB file, every other block punched out
#                             (262,144 extents with 4 KiB blocks)
#   BENCH_CACHE   warm (default: built, synced, deleted) and/or cold (then
#                 unmounted, caches dropped, mounted again: the delete
#                 reads the disk); a list, e.g. "warm cold"
#   BENCH_DISK    none (default), iops:N (a cgroup v1 blkio group, made and
#                 removed here, caps reads and writes to the loop device at N
#                 IOPS each; every tool runs in it, trees are built outside;
#                 in cgroup v1 only I/O the tool submits itself is charged:
#                 its reads, not jbd2's or writeback's writes) and/or
#                 latency:US (the image on a slowfs mount over a directory
#                 on the host disk, every FUSE request US µs slower, requests
#                 overlapping: a network block device; the loop device over
#                 slowfs uses direct I/O, so every block read and write of
#                 the filesystem pays the latency, none is served by a page
#                 cache or readahead in between; trees are built through a
#                 direct loop device, the delete runs through the slow one;
#                 always cold); a list
#                 diskiops:N caps, in the same group, the disk that holds
#                 the images (BENCH_WORK's) instead of the loop device: the
#                 loop driver charges its reads of the image to the tool's
#                 group, after merging, as a volume counts I/O; where the
#                 loop device's cap exempts metadata reads (blk-throttle
#                 lets REQ_META bios through as a debt), this one counts
#                 every read (docs/benchmarks.md, the 400 IOPS cell)
#                 deviops:N is the same cap on the whole device (the root
#                 blkio group: jbd2, writeback and xfs's inodegc workers
#                 too, as a cloud volume's limit is), set after the build
#                 and lifted after the run
#   BENCH_CONDS   the cache+disk pairs to run instead of BENCH_CACHE x
#                 BENCH_DISK, e.g. "warm+none cold+iops:400"
#   BENCH_DIRECT_IO  loop devices with --direct-io=on (the guest does not
#                 cache the image twice): on, off, or auto (default: on when
#                 any of the real-I/O variables is set); a backing fs without
#                 O_DIRECT (tmpfs, FUSE) gets buffered I/O and a note
#   BENCH_PRESET=io  the real-I/O matrix: {ext4, xfs, btrfs} x {warm, cold,
#                 cold + 400 IOPS, cold + 500 µs} x {srcbuild, nodemodules,
#                 hugemix, fragmented}, and ext4noext x those x fragmented,
#                 tools auto, -t 1, -t 4, rm, rmz, find, rsync, 2
#                 repetitions, full size: about 2 hours here (estimated
#                 from one repetition of auto and rm per cell: ext4 ~45
#                 min, 27 of them under the 400 IOPS cap, where srcbuild
#                 takes ~65 s a run; xfs ~25, btrfs ~25, ext4noext ~15).
#                 Tool times exclude work the filesystem defers (xfs
#                 inodegc, btrfs's cleaner): xfs frees a 262,144-extent
#                 file in 0.01 s of the tool's time
#   BENCH_PRESET=realtree  trees made by the real tools (npm, pip, git,
#                 cargo: scripts/bench/realtree.sh, cached as tarballs in
#                 BENCH_TREE_CACHE, default ~/.cache/adaptrm-bench) on
#                 {ext4, xfs, btrfs} warm, tools auto, rm, rmz, find, rsync,
#                 3 repetitions; then every cell over 1.5x its CPU floor is
#                 deleted once more under adaptrm --trace, by adaptrm and by
#                 the best peer, for the report's "waits on" column
#                 (BENCH_WAITS=0: not)
#
# The default (no variables) is the warm matrix: {tmpfs, ext4, xfs, btrfs} x
# {tree, flat, chain} x {adaptrm auto, --threads=1, 2, rm, rmz, find, rsync},
# three repetitions, about 25 minutes here (BENCH_FULL=1: about 2 hours).
#
# Output: a markdown table on stdout and in $BENCH_OUT/latest.md, every run in
# $BENCH_OUT/latest.tsv, medians and ratios in $BENCH_OUT/latest.json, a plot
# in $BENCH_OUT/latest.png (and timestamped copies).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
[ "${BENCH_MPI:-0}" = 1 ] && exec bash scripts/bench/mpi.sh

# The filesystem helpers shared with the end-to-end tests.
FS_PROG=bench
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"
# The real-tree lane's trees (before XDG_CACHE_HOME is moved below).
# shellcheck source=realtree.sh
source "$repo/scripts/bench/realtree.sh"

[ "$(id -u)" = 0 ] || { echo "bench: needs root (mounts tmpfs, loop devices and FUSE)" >&2; exit 1; }

ADAPTRM=${ADAPTRM:-$repo/adaptrm}
TOOLS=${TOOLS:-$repo/.output/tools}
[ -x "$ADAPTRM" ] || { echo "bench: $ADAPTRM is not built (make)" >&2; exit 1; }

if [ "${BENCH_FULL:-0}" = 1 ]; then
	def_fs="tmpfs ext4 xfs btrfs slowfs"
	def_shapes="tree flat chain smalldirs"
	def_tools="auto t1 t2 t4 t8 t16 t32 t64 rm rmz find rsync"
	def_reps=3
else
	def_fs="tmpfs ext4 xfs btrfs"
	def_shapes="tree flat chain"
	def_tools="auto t1 t2 rm rmz find rsync"
	def_reps=3
fi
def_conds="warm+none"
if [ "${BENCH_PRESET:-}" = io ]; then
	def_fs="ext4 xfs btrfs ext4noext"
	def_shapes="srcbuild nodemodules hugemix fragmented"
	def_tools="auto t1 t4 rm rmz find rsync"
	def_reps=2
	def_conds="warm+none cold+none cold+iops:400 cold+latency:500"
elif [ "${BENCH_PRESET:-}" = realtree ]; then
	def_fs="ext4 xfs btrfs"
	def_shapes=$REAL_SHAPES
	def_tools="auto rm rmz find rsync"
	: "${BENCH_TRACE:=0}" "${BENCH_WAITS:=1}"
elif [ -n "${BENCH_PRESET:-}" ]; then
	echo "bench: unknown preset '$BENCH_PRESET' (io, realtree)" >&2; exit 2
fi
read -r -a FSES <<<"${BENCH_FS:-$def_fs}"
read -r -a SHAPES <<<"${BENCH_SHAPES:-$def_shapes}"
read -r -a TOOLS_SEL <<<"${BENCH_TOOLS:-$def_tools}"
REPS=${BENCH_REPS:-$def_reps}
SCALE=${BENCH_SCALE:-1}
if [ -n "${BENCH_CONDS:-}" ]; then
	read -r -a CONDS <<<"$BENCH_CONDS"
elif [ -n "${BENCH_CACHE:-}${BENCH_DISK:-}" ]; then
	CONDS=()
	for c in ${BENCH_CACHE:-warm}; do for d in ${BENCH_DISK:-none}; do CONDS+=("$c+$d"); done; done
else
	read -r -a CONDS <<<"$def_conds"
fi
DIO=${BENCH_DIRECT_IO:-auto}
if [ "$DIO" = auto ]; then
	DIO=off
	[ -n "${BENCH_PRESET:-}${BENCH_CACHE:-}${BENCH_DISK:-}${BENCH_CONDS:-}" ] && DIO=on
fi
NPM_DIR=${BENCH_NPM_DIR:-/var/tmp/adaptrm-npm-tree}
SLOW_DELAY=${BENCH_SLOWFS_DELAY_US:-1000}
TIMEOUT=${BENCH_TIMEOUT:-600}
OUT=${BENCH_OUT:-bench-results}

# Debian's python3 has matplotlib (install-deps.sh --bench) for the plot; any python3 builds trees.
PY=$(command -v /usr/bin/python3 || command -v python3)
RMZ=$(command -v rmz || { [ -x "$HOME/.cargo/bin/rmz" ] && echo "$HOME/.cargo/bin/rmz"; } || true)

for f in "${FSES[@]}"; do
	case $f in tmpfs | ext4 | xfs | btrfs | ext4noext | slowfs | overlay) ;; *) echo "bench: unknown filesystem '$f'" >&2; exit 2 ;; esac
done
for s in "${SHAPES[@]}"; do
	case $s in tree | flat | chain | smalldirs | srcbuild | nodemodules | hugemix | fragmented | npm | venv | git | cargo) ;;
	*) echo "bench: unknown shape '$s'" >&2; exit 2 ;;
	esac
done
for c in "${CONDS[@]}"; do
	[[ $c =~ ^(warm|cold)\+(none|iops:[0-9]+|diskiops:[0-9]+|deviops:[0-9]+|latency:[0-9]+)$ ]] ||
		{ echo "bench: unknown cache+disk '$c' (warm|cold + none|iops:N|diskiops:N|deviops:N|latency:US)" >&2; exit 2; }
done
case $DIO in on | off) ;; *) echo "bench: BENCH_DIRECT_IO is on, off or auto" >&2; exit 2 ;; esac
for t in "${TOOLS_SEL[@]}"; do
	case $t in auto | t[0-9]* | base | rm | rmz | find | rsync) ;; *) echo "bench: unknown tool '$t'" >&2; exit 2 ;; esac
done

# ---------------------------------------------------------------------------
# A run that was killed outright (SIGKILL, a session torn down) could not
# clean up: its scratch directory records its pid, and a later run unmounts
# and detaches what a dead run left behind, so stale loop devices and 8 GiB
# images do not pile up. Only our own directories, only when their run is gone.
for stale in "${BENCH_WORK:-/var/tmp}"/adaptrm-bench.*/; do
	stale=${stale%/}
	[ -f "$stale/pid" ] || continue
	pid=$(cat "$stale/pid" 2>/dev/null)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && continue
	echo "bench: cleaning up after an interrupted run ($stale)" >&2
	fusermount3 -u "$stale/mnt" 2>/dev/null
	for m in "$stale/mnt" "$stale/backing" "$stale/layers"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	[ -f "$stale/devcap" ] && fs_devcap "$(cat "$stale/devcap")" 0
	[ -e "$stale/fs.img" ] && fs_detach_image "$stale/fs.img"
	fs_detach_under "$stale"
	fusermount3 -u "$stale/slow" 2>/dev/null
	[ -f "$stale/cgroup" ] && fs_blkio_remove "$(cat "$stale/cgroup")"
	rm -rf --one-file-system "$stale"
done

# Scratch space, mounts, and their cleanup on any exit (Ctrl-C included).
WORK=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-bench.XXXXXX")
echo $$ >"$WORK/pid"
MNT=$WORK/mnt
EMPTY=$WORK/empty
mkdir -p "$MNT" "$EMPTY" "$WORK/cache"
# Our own copy of the binary: the shared tree may be rebuilt while we run.
cp "$ADAPTRM" "$WORK/adaptrm" && ADAPTRM=$WORK/adaptrm || exit 1
# adaptrm keeps its learned profiles here, fresh for each benchmark run and
# apart for each tool (run_one): the first run on each new filesystem starts
# from the filesystem-type prior.
export XDG_CACHE_HOME=$WORK/cache

LOOP='' SLOWFS_PID='' BACKING_MNT='' CG='' DISK_SLOWFS_PID='' IMGDIR=$WORK/imgdir SLOWDIR=$WORK/slow
teardown_fs() {
	if [ -n "$SLOWFS_PID" ]; then
		fs_umount_fuse "$MNT" 2>/dev/null
		kill "$SLOWFS_PID" 2>/dev/null; wait "$SLOWFS_PID" 2>/dev/null
		SLOWFS_PID=
	elif mountpoint -q "$MNT"; then
		fs_umount "$MNT"
	fi
	if [ -n "$BACKING_MNT" ]; then umount -l "$BACKING_MNT" 2>/dev/null; BACKING_MNT=; fi
	lift_devcap
	if [ -n "$LOOP" ]; then fs_detach "$LOOP" 2>/dev/null; LOOP=; fi
	stop_disk_slowfs
	if [ -n "$CG" ]; then fs_blkio_remove "$CG"; CG=; rm -f "$WORK/cgroup"; fi
	rm -f "$WORK/fs.img" "$IMGDIR/fs.img"
}
cleanup() {
	teardown_fs
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

# The image's size: 8G, or more for the shapes whose files hold more
# (fallocate'd: the image stays sparse on the host).
img_size() { # SHAPE
	local gib
	case $1 in
	srcbuild) gib=3.5 ;;
	nodemodules) gib=0.6 ;;
	hugemix) gib=80.5 ;;
	fragmented) gib=2 ;;
	*) gib=0 ;;
	esac
	awk -v g="$gib" -v f="$SCALE" 'BEGIN{v=int(g*f*1.3+0.999)+8; print v "G"}'
}

# setup_fs TYPE [SHAPE]: a fresh filesystem at $MNT; trees are built under
# $BACKING (the same place, except on slowfs, where they are built directly
# in the backing directory: building through 1 ms/op FUSE would take longer
# than deleting).
setup_fs() {
	BACKING=$MNT
	case $1 in
	tmpfs) fs_tmpfs "$MNT" 16G ;;
	ext4 | xfs | btrfs | ext4noext)
		local mkfs_opts=() type=$1
		# No lazy inode-table init: its background zeroing would disturb the first runs.
		[[ $1 == ext4* ]] && mkfs_opts=(-E "lazy_itable_init=0,lazy_journal_init=0")
		# ext3's indirect-block map (64bit needs extents).
		[ "$1" = ext4noext ] && { type=ext4; mkfs_opts+=(-O "^extent,^64bit"); }
		mkdir -p "$IMGDIR"
		fs_make_image "$type" "$IMGDIR/fs.img" "${BENCH_IMG_SIZE:-$(img_size "${2:-}")}" "${mkfs_opts[@]}" || return 1
		attach_direct
		;;
	overlay)
		# A container layer: overlayfs with an empty lower layer and the
		# upper one on tmpfs; trees are built and deleted through it.
		BACKING_MNT=$WORK/layers
		mkdir -p "$BACKING_MNT"
		fs_tmpfs "$BACKING_MNT" 16G || return 1
		fs_overlay "$MNT" "$BACKING_MNT" || { echo "bench: cannot mount overlayfs" >&2; return 1; }
		;;
	slowfs)
		[ -x "$TOOLS/slowfs" ] || { echo "bench: $TOOLS/slowfs is not built (make tools)" >&2; return 1; }
		BACKING_MNT=$WORK/backing
		mkdir -p "$BACKING_MNT"
		fs_tmpfs "$BACKING_MNT" 16G || return 1
		chmod 755 "$BACKING_MNT"
		fs_slowfs_start "$TOOLS/slowfs" "$SLOW_DELAY" "$BACKING_MNT" "$MNT"
		SLOWFS_PID=$FS_SLOWFS_PID
		fs_slowfs_wait "$MNT" || { echo "bench: slowfs did not mount" >&2; return 1; }
		BACKING=$BACKING_MNT
		;;
	esac
}

# The image on a loop device of its own path, mounted at $MNT: where trees
# are built, and deleted unless the disk is slow. DIO_NOTE says when the
# host refused O_DIRECT.
DIO_NOTE=
attach_direct() {
	fs_loop_attach "$IMGDIR/fs.img" "$DIO" || return 1
	LOOP=$FS_LOOP
	if [ "$DIO" = on ] && [ "$FS_LOOP_DIO" != 1 ]; then
		DIO_NOTE="the image's filesystem refused O_DIRECT: buffered loop device"
		echo "bench: $DIO_NOTE" >&2
	fi
	mount "$LOOP" "$MNT"
}

# A slow disk of latency US: the same image through slowfs (a mount of
# $IMGDIR at $SLOWDIR, max_threads=64 so requests overlap), on a loop device
# of that path with direct I/O, cold: the fs is unmounted, slowfs restarted
# and every cache dropped. Direct I/O makes every block request of the
# filesystem a FUSE request of its own: a buffered loop device reads through
# the page cache of slowfs's file, where FUSE readahead serves most reads
# from one slow request, and it submits one request at a time. slowfs drops
# the O_DIRECT flag on its backing file, so the client's alignment is free.
to_slow_disk() { # US
	umount "$MNT" || return 1
	fs_detach "$LOOP"; LOOP=
	mkdir -p "$SLOWDIR"
	fs_slowfs_start "$TOOLS/slowfs" "$1" "$IMGDIR" "$SLOWDIR" -o max_threads=64
	DISK_SLOWFS_PID=$FS_SLOWFS_PID
	fs_slowfs_wait "$SLOWDIR" || { echo "bench: slowfs did not mount" >&2; return 1; }
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fs_loop_attach "$SLOWDIR/fs.img" on || return 1
	LOOP=$FS_LOOP
	[ "$FS_LOOP_DIO" = 1 ] || { echo "bench: the loop device over slowfs did not get direct I/O" >&2; return 1; }
	mount "$LOOP" "$MNT"
}
stop_disk_slowfs() {
	[ -n "$DISK_SLOWFS_PID" ] || return 0
	fs_umount_fuse "$SLOWDIR" 2>/dev/null
	kill "$DISK_SLOWFS_PID" 2>/dev/null; wait "$DISK_SLOWFS_PID" 2>/dev/null
	DISK_SLOWFS_PID=
}
to_direct_disk() {
	umount "$MNT" || return 1
	fs_detach "$LOOP"; LOOP=
	stop_disk_slowfs
	attach_direct
}

# The whole device's cap (deviops:N), from after the build to the end of
# the run; $WORK/devcap names the device for a later run's cleanup.
DEVCAP=
set_devcap() { # IOPS
	echo "$LOOP" >"$WORK/devcap"
	DEVCAP=$LOOP
	fs_devcap "$LOOP" "$1"
}
lift_devcap() {
	[ -n "$DEVCAP" ] || return 0
	fs_devcap "$DEVCAP" 0
	DEVCAP=
	rm -f "$WORK/devcap"
}

# set_disk COND: the cgroup of an IOPS cap on the cell's loop device.
set_disk() {
	local disk=${1#*+}
	case $disk in
	iops:* | diskiops:*)
		local dev=$LOOP
		if [ "${disk%%:*}" = diskiops ]; then
			dev=$(fs_disk_of "$IMGDIR") || { echo "bench: no block device under $IMGDIR for $disk" >&2; return 1; }
		fi
		CG=/sys/fs/cgroup/blkio/adaptrm-bench.$$
		echo "$CG" >"$WORK/cgroup"
		fs_blkio_create "$CG" "$dev" "${disk#*:}" || { echo "bench: cannot make the blkio cgroup $CG" >&2; return 1; }
		;;
	latency:*)
		[ -x "$TOOLS/slowfs" ] || { echo "bench: $TOOLS/slowfs is not built (make tools)" >&2; return 1; }
		;;
	esac
}

# ---------------------------------------------------------------------------
# Trees. Built fd-relative in one python process (tests/tools/mktree.py: no
# fork per file, no path length limit for the chain); files are empty, made
# with one mknod each.
# On slowfs every operation costs a millisecond, so its trees are smaller
# (same shapes): 64 x 100 as in shared/notes/machine.md, flat 5,000, a chain
# of 1,000, 1,000 x 10. Even so, one single-threaded run takes 7-10 s.
shape_args() { # SHAPE FS -> "kind n [m]" scaled
	sc() { awk -v n="$1" -v f="$SCALE" 'BEGIN{v=int(n*f+0.5); print (v<1?1:v)}'; }
	if [ "$2" = slowfs ]; then
		case $1 in
		tree) echo "tree $(sc 64) 100" ;;
		flat) echo "flat $(sc 5000)" ;;
		chain) echo "chain $(sc 1000)" ;;
		smalldirs) echo "tree $(sc 1000) 10" ;;
		esac
		return
	fi
	case $1 in
	tree) echo "tree $(sc 200) 1000" ;;
	flat) echo "flat $(sc 200000)" ;;
	chain) echo "chain $(sc 50000)" ;;
	smalldirs) echo "tree $(sc 20000) 10" ;;
	*) echo "$1" ;;
	esac
}
shape_label() { # SHAPE FS
	local a; read -r -a a <<<"$(shape_args "$1" "$2")"
	case ${a[0]} in
	tree) echo "${a[1]} dirs x ${a[2]} files" ;;
	flat) echo "flat ${a[1]}" ;;
	chain) echo "chain ${a[1]} deep" ;;
	*) echo "${DATA_LABEL:-$1}" ;;
	esac
}
build_tree() { # DIR KIND N [M]
	python3 "$repo/tests/tools/mktree.py" --first 0 "$@"
}

# The shapes with data (tests/tools/mkdata.py), and npm's real tree. Their
# label comes from what was built: DATA_LABEL.
is_data_shape() { case $1 in srcbuild | nodemodules | hugemix | fragmented | npm | venv | git | cargo) true ;; *) false ;; esac; }
gib() { awk -v b="$1" 'BEGIN{printf (b >= 1073741824 ? "%.1f GiB" : "%.0f MiB"), b / (b >= 1073741824 ? 1073741824 : 1048576)}'; }
# npm's tree cannot be scaled; it is small (24,240 files), so only a smoke
# test's scale (below 0.25) takes the model instead.
use_npm_tree() { [ -d "$NPM_DIR/node_modules" ] && awk -v f="$SCALE" 'BEGIN{exit !(f >= 0.25)}'; }
build_data() { # DIR SHAPE
	local out kv files bytes extents
	is_real_shape "$2" && { unpack_real "$1" "$2"; return; }
	if [ "$2" = nodemodules ] && use_npm_tree; then
		cp -a "$NPM_DIR/node_modules" "$1" || return 1
		DATA_LABEL="npm node_modules ($NPM_LABEL)"
		return 0
	fi
	out=$(python3 "$repo/tests/tools/mkdata.py" --scale "$SCALE" "$1" "$2") || return 1
	declare -A kv=()
	for f in $out; do kv[${f%%=*}]=${f#*=}; done
	files=${kv[files]} bytes=$(gib "${kv[bytes]}") extents=${kv[extents]:-}
	case $2 in
	srcbuild) DATA_LABEL="srcbuild $files files $bytes" ;;
	nodemodules) DATA_LABEL="node_modules model $files files $bytes" ;;
	hugemix) DATA_LABEL="4 x $(gib "${kv[huge]}") + $((files - 4)) files" ;;
	fragmented) DATA_LABEL="fragmented $(gib "${kv[size]}") $extents extents" ;;
	esac
	[ "${kv[written]}" = 1 ] && DATA_LABEL="$DATA_LABEL (written)"
	return 0
}

# npm's output, installed once (the registry must be reachable) and kept.
NPM_PACKAGES="typescript webpack webpack-cli eslint jest @babel/core @babel/preset-env react react-dom next @angular/core rxjs lodash"
NPM_LABEL=
npm_install() {
	echo "bench: npm install into $NPM_DIR (once)" >&2
	rm -rf "$NPM_DIR.tmp" && mkdir -p "$NPM_DIR.tmp" || return 1
	# shellcheck disable=SC2086 # the package list is split on purpose
	(cd "$NPM_DIR.tmp" && npm init -y >/dev/null 2>&1 &&
		timeout 900 npm install --no-audit --no-fund --loglevel=error $NPM_PACKAGES >/dev/null) &&
		mv "$NPM_DIR.tmp" "$NPM_DIR" && return 0
	echo "bench: npm install failed: a model of its tree instead" >&2
	rm -rf "$NPM_DIR.tmp"
	return 1
}
ensure_npm_tree() {
	if [ ! -d "$NPM_DIR/node_modules" ] && [ "${BENCH_NPM:-1}" != 0 ] && command -v npm >/dev/null &&
		timeout 30 npm view lodash version >/dev/null 2>&1; then
		npm_install
	fi
	if use_npm_tree; then
		NPM_LABEL="$(find "$NPM_DIR/node_modules" -type f | wc -l) files, $(du -sm "$NPM_DIR/node_modules" | cut -f1) MiB"
	else
		echo "bench: nodemodules is a synthetic model (no npm tree in $NPM_DIR, or BENCH_SCALE below 0.25)" >&2
	fi
}

# Room on the host for what a cell writes: the images are sparse, except
# where blocks are written (ext4noext cannot fallocate).
host_room() { # FS SHAPE
	[ "$1" = ext4noext ] || return 0
	local need avail
	need=$(awk -v g="$(img_size "$2" | tr -d G)" 'BEGIN{print int((g - 8) * 1048576)}')
	avail=$(df -k --output=avail "$WORK" | tail -1)
	[ "$avail" -gt $((need + 4194304)) ]
}

# ---------------------------------------------------------------------------
# Tools.
tool_cmd() { # TOOL DIR -> sets CMD
	case $1 in
	auto) CMD=("$ADAPTRM" -rf "$2") ;;
	base) CMD=("$BENCH_BASE" -rf "$2") ;;
	t[0-9]*) CMD=("$ADAPTRM" -rf --threads="${1#t}" "$2") ;;
	rm) CMD=(rm -rf "$2") ;;
	rmz) CMD=("$RMZ" -f "$2") ;;
	find) CMD=(find "$2" -delete) ;;
	rsync) CMD=(rsync -a --delete "$EMPTY/" "$2/") ;;
	esac
}
tool_available() {
	case $1 in
	rmz) [ -n "$RMZ" ] ;;
	base) [ -x "${BENCH_BASE:-}" ] ;;
	rsync) command -v rsync >/dev/null ;;
	*) true ;;
	esac
}

RESULTS=$WORK/runs.tsv
# run: which benchmark run a row came from, so that results of several runs
# can be concatenated and still be paired repetition by repetition. cache and
# disk: the cell's condition (warm/cold, none/iops:N/latency:US).
RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$
printf 'fs\tshape\tlabel\ttool\trep\tstatus\twall\tuser\tsys\tnote\trun\tcache\tdisk\n' >"$RESULTS"

# prepare_tree SHAPE FS COND: a fresh tree at $BACKING/t, synced, then made
# cold or moved onto the slow disk as COND says.
prepare_tree() {
	local shape=$1 fs=$2 cond=$3 a
	rm -rf "$BACKING/t"
	if is_data_shape "$shape"; then
		build_data "$BACKING/t" "$shape"
	else
		read -r -a a <<<"$(shape_args "$shape" "$fs")"
		build_tree "$BACKING/t" "${a[@]}"
	fi || { echo "bench: building $shape on $fs failed" >&2; return 1; }
	sync
	case $cond in
	*+latency:*) to_slow_disk "${cond#*+latency:}" ;;
	cold+*) fs_cold_remount "$LOOP" "$MNT" ;;
	esac || return 1
	case $cond in *+deviops:*) set_devcap "${cond#*+deviops:}" ;; esac
}

# warm_program PROG...: each program and its libraries back in the page
# cache after a cold remount dropped every cache: a cold tree, not a cold
# program (behind diskiops:N its pages would be read through the tool's cap).
warm_program() {
	local p
	for p in "$@"; do
		p=$(command -v "$p") || continue
		cat "$p" >/dev/null 2>&1
		ldd "$p" 2>/dev/null | awk '/=> \//{print $3}' | xargs -r cat >/dev/null 2>&1
	done
	true
}

# run_one FS SHAPE TOOL REP COND: build, sync, time the delete, verify, record.
run_one() {
	local fs=$1 shape=$2 tool=$3 rep=$4 cond=$5 status note t rc
	prepare_tree "$shape" "$fs" "$cond" || return 1
	tool_cmd "$tool" "$MNT/t"
	case $cond in cold+* | *+latency:*) warm_program "${CMD[0]}" timeout sh ;; esac
	if [ -n "$CG" ]; then fs_blkio_wrap "$CG"; CMD=("${FS_BLKIO_WRAP[@]}" "${CMD[@]}"); fi
	# Each tool learns its own profiles: base and auto must not start from
	# what the other learned.
	export XDG_CACHE_HOME=$WORK/cache/$tool
	mkdir -p "$XDG_CACHE_HOME"
	local TIMEFORMAT='%3R %3U %3S'
	{ time timeout -k 5 "$TIMEOUT" "${CMD[@]}" </dev/null >"$WORK/out" 2>&1; } 2>"$WORK/time"
	rc=$?
	# The last line: bash may print "Aborted" or the like before it.
	t=$(tail -n 1 "$WORK/time")
	[[ $t =~ ^[0-9.]+\ [0-9.]+\ [0-9.]+$ ]] || t="0 0 0"
	# Gone means gone: rsync empties the directory it is given, the others
	# remove it.
	local gone=0
	if [ "$tool" = rsync ]; then
		[ -d "$BACKING/t" ] && [ -z "$(ls -A "$BACKING/t" 2>/dev/null)" ] && gone=1
	else
		[ ! -e "$BACKING/t" ] && [ ! -L "$BACKING/t" ] && gone=1
	fi
	if [ $rc = 124 ] || [ $rc = 137 ]; then status=timeout
	elif [ $rc -ge 128 ]; then status=crash
	elif [ $rc != 0 ]; then status=fail
	elif [ $gone = 0 ]; then status=incomplete
	else status=ok
	fi
	note=$(grep -v '^$' "$WORK/out" | head -1 | tr '\t' ' ' | cut -c1-120)
	[ $rc != 0 ] && note="exit $rc: $note"
	[ -z "$note" ] && [ "$cond" != warm+none ] && note=$DIO_NOTE
	lift_devcap
	if [ -n "$DISK_SLOWFS_PID" ]; then to_direct_disk || return 1; fi
	rm -rf "$BACKING/t"
	# shellcheck disable=SC2086 # ${t:-0 0 0} is split on purpose: wall, user, sys
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$shape" "$(shape_label "$shape" "$fs")" \
		"$tool" "$rep" "$status" ${t:-0 0 0} "$note" "$RUN_ID" "${cond%+*}" "${cond#*+}" >>"$RESULTS"
	LAST_STATUS=$status LAST_WALL=${t%% *}
}

# cell_ok FS SHAPE COND: whether the cell can run (says why not).
cell_ok() {
	case $1 in
	ext4 | xfs | btrfs | ext4noext) ;;
	*) [ "$3" = warm+none ] || { echo "bench: $1 has no block device for $3, cell skipped" >&2; return 1; } ;;
	esac
	case $3 in
	warm+latency:*) echo "bench: a slow disk is always cold (warm+${3#*+} skipped)" >&2; return 1 ;;
	esac
	# The preset's indirect-block fs: only the fragmented file (hugemix
	# would write its huge files block by block).
	if [ "${BENCH_PRESET:-}" = io ] && [ -z "${BENCH_SHAPES:-}" ] && [ "$1" = ext4noext ] && [ "$2" != fragmented ]; then
		return 1
	fi
	host_room "$1" "$2" || { echo "bench: not enough room on the host for $2 on $1 (written blocks), cell skipped" >&2; return 1; }
}

# ---------------------------------------------------------------------------
tools=()
for t in "${TOOLS_SEL[@]}"; do
	if tool_available "$t"; then tools+=("$t"); else echo "bench: $t is not installed, skipped (scripts/install-deps.sh --bench)" >&2; fi
done
for s in "${SHAPES[@]}"; do [ "$s" = nodemodules ] && ensure_npm_tree; done
declare -A no_tree=()
for s in "${SHAPES[@]}"; do is_real_shape "$s" && ! ensure_real_tree "$s" && no_tree[$s]=1; done
CELLS=()
for fs in "${FSES[@]}"; do
	for cond in "${CONDS[@]}"; do
		for shape in "${SHAPES[@]}"; do
			[ -z "${no_tree[$shape]:-}" ] && cell_ok "$fs" "$shape" "$cond" && CELLS+=("$fs $cond $shape")
		done
	done
done
total=$((${#CELLS[@]} * ${#tools[@]} * REPS))
conds_note=
[ "${CONDS[*]}" = warm+none ] || conds_note=" x ${CONDS[*]}"
echo "bench: ${FSES[*]}$conds_note x ${SHAPES[*]} x ${tools[*]}, $REPS repetitions ($total runs)" >&2
n=0
started=$(date +%s)
for cell in "${CELLS[@]}"; do
	read -r fs cond shape <<<"$cell"
	teardown_fs
	DATA_LABEL='' DIO_NOTE=''
	{ setup_fs "$fs" "$shape" && set_disk "$cond"; } ||
		{ echo "bench: cannot set up $fs ($cond), cell skipped" >&2; teardown_fs; continue; }
	declare -A dead=()
	for ((rep = 1; rep <= REPS; rep++)); do
		k=${#tools[@]}
		for ((i = 0; i < k; i++)); do
			tool=${tools[$(((i + rep - 1) % k))]}
			n=$((n + 1))
			if [ -n "${dead[$tool]:-}" ]; then continue; fi
			run_one "$fs" "$shape" "$tool" "$rep" "$cond" || continue
			[ "$LAST_STATUS" = ok ] || dead[$tool]=1
			printf 'bench: [%d/%d %ds] %-6s %-9s %-5s rep %d: %6ss %s%s\n' "$n" "$total" \
				$(($(date +%s) - started)) "$fs" "$shape" "$tool" "$rep" "$LAST_WALL" "$LAST_STATUS" \
				"$([ "$cond" = warm+none ] || echo " ($cond)")" >&2
		done
	done
	unset dead
	teardown_fs
done

# ---------------------------------------------------------------------------
# Report.
mkdir -p "$OUT"
stamp=$(date -u +%Y%m%d-%H%M%S)
cp "$RESULTS" "$OUT/latest.tsv"
cpu=$(awk -F: '/model name/{gsub(/^ +/,"",$2); print $2; exit}' /proc/cpuinfo)
machine="$(nproc) vCPU ($cpu), $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), Linux $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain -- user bpf 2>/dev/null | head -1)
[ -n "$dirty" ] && commit="$commit+dirty"
BENCH_MACHINE=$machine BENCH_COMMIT=$commit BENCH_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" \
BENCH_REPS_RUN=$REPS BENCH_TOOLS_RUN="${tools[*]}" BENCH_RMZ_VERSION="$([ -n "$RMZ" ] && "$RMZ" --version 2>/dev/null)" \
BENCH_SLOW_DELAY=$SLOW_DELAY BENCH_FS_RUN="${FSES[*]}" BENCH_DIRECT_IO_RUN=$DIO BENCH_NCPU=$(nproc)
export BENCH_MACHINE BENCH_COMMIT BENCH_DATE BENCH_REPS_RUN BENCH_TOOLS_RUN BENCH_RMZ_VERSION BENCH_SLOW_DELAY BENCH_FS_RUN \
	BENCH_DIRECT_IO_RUN BENCH_NCPU
report() { "$PY" "$repo/scripts/bench/report.py" "$OUT/latest.tsv" "$OUT/latest.md" "$OUT/latest.json" "$OUT/latest.png"; }
report || exit 1
# The waits behind the cells over their CPU floor, traced, then the report again with them.
if [ "${BENCH_WAITS:-0}" = 1 ]; then
	real_trace_flagged "$OUT/latest.json" "$OUT/latest-waits.tsv"
	BENCH_WAITS_FILE=$OUT/latest-waits.tsv report || exit 1
fi
for ext in tsv md json png; do [ -f "$OUT/latest.$ext" ] && cp "$OUT/latest.$ext" "$OUT/$stamp.$ext"; done
cat "$OUT/latest.md"
echo "bench: results in $OUT/latest.{md,tsv,json} ($(( $(date +%s) - started ))s)" >&2

if [ "${BENCH_TRACE:-1}" != 0 ] && [ -f scripts/bench/trace-overhead.sh ]; then
	teardown_fs
	echo "bench: scripts/bench/trace-overhead.sh" >&2
	ADAPTRM=$ADAPTRM TOOLS=$TOOLS BENCH_OUT=$OUT bash scripts/bench/trace-overhead.sh
fi
