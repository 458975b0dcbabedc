#!/usr/bin/env bash
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
#
# The default (no variables) is issue 2's matrix: {tmpfs, ext4, xfs, btrfs} x
# {tree, flat, chain} x {adaptrm auto, --threads=1, 2, rm, rmz, find, rsync},
# three repetitions, about 25 minutes here (BENCH_FULL=1: about 2 hours).
#
# Output: a markdown table on stdout and in $BENCH_OUT/latest.md, every run in
# $BENCH_OUT/latest.tsv, medians and ratios in $BENCH_OUT/latest.json, a plot
# in $BENCH_OUT/latest.png (and timestamped copies).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD

# The filesystem helpers shared with the end-to-end tests.
FS_PROG=bench
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"

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
read -r -a FSES <<<"${BENCH_FS:-$def_fs}"
read -r -a SHAPES <<<"${BENCH_SHAPES:-$def_shapes}"
read -r -a TOOLS_SEL <<<"${BENCH_TOOLS:-$def_tools}"
REPS=${BENCH_REPS:-$def_reps}
SCALE=${BENCH_SCALE:-1}
SLOW_DELAY=${BENCH_SLOWFS_DELAY_US:-1000}
TIMEOUT=${BENCH_TIMEOUT:-600}
OUT=${BENCH_OUT:-bench-results}

# Debian's python3 has matplotlib (install-deps.sh --bench) for the plot; any python3 builds trees.
PY=$(command -v /usr/bin/python3 || command -v python3)
RMZ=$(command -v rmz || { [ -x "$HOME/.cargo/bin/rmz" ] && echo "$HOME/.cargo/bin/rmz"; } || true)

for f in "${FSES[@]}"; do
	case $f in tmpfs | ext4 | xfs | btrfs | slowfs | overlay) ;; *) echo "bench: unknown filesystem '$f'" >&2; exit 2 ;; esac
done
for s in "${SHAPES[@]}"; do
	case $s in tree | flat | chain | smalldirs) ;; *) echo "bench: unknown shape '$s'" >&2; exit 2 ;; esac
done
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
	[ -e "$stale/fs.img" ] && fs_detach_image "$stale/fs.img"
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
# adaptrm keeps its learned profiles here, fresh for each benchmark run: the
# first run on each new filesystem starts from the filesystem-type prior.
export XDG_CACHE_HOME=$WORK/cache

LOOP='' SLOWFS_PID='' BACKING_MNT=''
teardown_fs() {
	if [ -n "$SLOWFS_PID" ]; then
		fs_umount_fuse "$MNT" 2>/dev/null
		kill "$SLOWFS_PID" 2>/dev/null; wait "$SLOWFS_PID" 2>/dev/null
		SLOWFS_PID=
	elif mountpoint -q "$MNT"; then
		fs_umount "$MNT"
	fi
	if [ -n "$BACKING_MNT" ]; then umount -l "$BACKING_MNT" 2>/dev/null; BACKING_MNT=; fi
	if [ -n "$LOOP" ]; then fs_detach "$LOOP" 2>/dev/null; LOOP=; fi
	rm -f "$WORK/fs.img"
}
cleanup() {
	teardown_fs
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

# setup_fs TYPE: a fresh filesystem at $MNT; trees are built under $BACKING
# (the same place, except on slowfs, where they are built directly in the
# backing directory: building through 1 ms/op FUSE would take longer than
# deleting).
setup_fs() {
	BACKING=$MNT
	case $1 in
	tmpfs) fs_tmpfs "$MNT" 16G ;;
	ext4 | xfs | btrfs)
		local mkfs_opts=()
		# No lazy inode-table init: its background zeroing would disturb the first runs.
		[ "$1" = ext4 ] && mkfs_opts=(-E "lazy_itable_init=0,lazy_journal_init=0")
		fs_make_image "$1" "$WORK/fs.img" "${BENCH_IMG_SIZE:-8G}" "${mkfs_opts[@]}" || return 1
		fs_loop_mount "$WORK/fs.img" "$MNT"
		local rc=$?
		LOOP=$FS_LOOP
		return $rc
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
	esac
}
shape_label() { # SHAPE FS
	local a; read -r -a a <<<"$(shape_args "$1" "$2")"
	case ${a[0]} in
	tree) echo "${a[1]} dirs x ${a[2]} files" ;;
	flat) echo "flat ${a[1]}" ;;
	chain) echo "chain ${a[1]} deep" ;;
	esac
}
build_tree() { # DIR KIND N [M]
	python3 "$repo/tests/tools/mktree.py" --first 0 "$@"
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
# can be concatenated and still be paired repetition by repetition.
RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$
printf 'fs\tshape\tlabel\ttool\trep\tstatus\twall\tuser\tsys\tnote\trun\n' >"$RESULTS"

# run_one FS SHAPE TOOL REP: build, sync, time the delete, verify, record.
run_one() {
	local fs=$1 shape=$2 tool=$3 rep=$4 a status note t rc
	read -r -a a <<<"$(shape_args "$shape" "$fs")"
	rm -rf "$BACKING/t"
	build_tree "$BACKING/t" "${a[@]}" || { echo "bench: building $shape on $fs failed" >&2; return 1; }
	sync
	tool_cmd "$tool" "$MNT/t"
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
	rm -rf "$BACKING/t"
	# shellcheck disable=SC2086 # ${t:-0 0 0} is split on purpose: wall, user, sys
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$shape" "$(shape_label "$shape" "$fs")" \
		"$tool" "$rep" "$status" ${t:-0 0 0} "$note" "$RUN_ID" >>"$RESULTS"
	LAST_STATUS=$status LAST_WALL=${t%% *}
}

# ---------------------------------------------------------------------------
tools=()
for t in "${TOOLS_SEL[@]}"; do
	if tool_available "$t"; then tools+=("$t"); else echo "bench: $t is not installed, skipped (scripts/install-deps.sh --bench)" >&2; fi
done
ncells=$((${#FSES[@]} * ${#SHAPES[@]}))
total=$((ncells * ${#tools[@]} * REPS))
echo "bench: ${FSES[*]} x ${SHAPES[*]} x ${tools[*]}, $REPS repetitions ($total runs)" >&2
n=0
started=$(date +%s)
for fs in "${FSES[@]}"; do
	for shape in "${SHAPES[@]}"; do
		teardown_fs
		setup_fs "$fs" || { echo "bench: cannot set up $fs, cell skipped" >&2; teardown_fs; continue; }
		declare -A dead=()
		for ((rep = 1; rep <= REPS; rep++)); do
			k=${#tools[@]}
			for ((i = 0; i < k; i++)); do
				tool=${tools[$(((i + rep - 1) % k))]}
				n=$((n + 1))
				if [ -n "${dead[$tool]:-}" ]; then continue; fi
				run_one "$fs" "$shape" "$tool" "$rep" || continue
				[ "$LAST_STATUS" = ok ] || dead[$tool]=1
				printf 'bench: [%d/%d %ds] %-6s %-9s %-5s rep %d: %6ss %s\n' "$n" "$total" \
					$(($(date +%s) - started)) "$fs" "$shape" "$tool" "$rep" "$LAST_WALL" "$LAST_STATUS" >&2
			done
		done
		unset dead
		teardown_fs
	done
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
BENCH_SLOW_DELAY=$SLOW_DELAY BENCH_FS_RUN="${FSES[*]}" \
	"$PY" "$repo/scripts/bench/report.py" "$OUT/latest.tsv" "$OUT/latest.md" "$OUT/latest.json" "$OUT/latest.png" || exit 1
for ext in tsv md json png; do [ -f "$OUT/latest.$ext" ] && cp "$OUT/latest.$ext" "$OUT/$stamp.$ext"; done
cat "$OUT/latest.md"
echo "bench: results in $OUT/latest.{md,tsv,json} ($(( $(date +%s) - started ))s)" >&2

if [ "${BENCH_TRACE:-1}" != 0 ] && [ -f scripts/bench/trace-overhead.sh ]; then
	teardown_fs
	echo "bench: scripts/bench/trace-overhead.sh" >&2
	ADAPTRM=$ADAPTRM TOOLS=$TOOLS BENCH_OUT=$OUT bash scripts/bench/trace-overhead.sh
fi
