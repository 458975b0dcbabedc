# Shared helpers for end-to-end tests (sourced). Every test is a function
# named test_*; run.sh runs each in a fresh subshell with its own scratch
# directory and cleans up mounts and loop devices even when the test fails.
#
#   $ADAPTRM   the binary under test
#   $SCRATCH   a fresh directory on tmpfs for this test
#   $TOOLS     helper binaries (slowfs)

: "${ADAPTRM:?ADAPTRM must point at the adaptrm binary}"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
expect_gone() { [ ! -e "$1" ] && [ ! -L "$1" ] || fail "$1 still exists"; }
expect_exists() { [ -e "$1" ] || [ -L "$1" ] || fail "$1 is missing"; }

# A marked tree outside the operands: its checksum must not change.
make_sentinel() {
	local d=$1
	mkdir -p "$d/sub/deeper"
	echo keep >"$d/file"; echo keep >"$d/sub/file"; echo keep >"$d/sub/deeper/file"
	ln -s ../file "$d/sub/link"
}
sentinel_sum() { (cd "$1" && find . -printf '%p %y %s %m %l\n' | LC_ALL=C sort | md5sum); }

# Register cleanup actions; run.sh runs them in reverse order at exit.
CLEANUP=()
on_exit() { CLEANUP+=("$*"); }
run_cleanup() {
	local i
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[$i]}" >/dev/null 2>&1 || true; done
}

# mount_fs TYPE DIR [SIZE]: a fresh filesystem of TYPE at DIR (tmpfs, a
# loop-mounted ext4/xfs/btrfs image, or overlayfs, a container layer, with an
# empty lower layer and its upper one in $SCRATCH/upper), unmounted at exit.
mount_fs() {
	local type=$1 dir=$2 size=${3:-1G}
	mkdir -p "$dir"
	case $type in
	tmpfs) mount -t tmpfs -o size="$size" tmpfs "$dir" || return 1 ;;
	ext4 | xfs | btrfs)
		local img
		img=$(mktemp -p "${FSIMG_DIR:-/var/tmp}" "adaptrm-$type.XXXXXX.img")
		on_exit rm -f "$img"
		truncate -s "$size" "$img"
		case $type in
		ext4) mkfs.ext4 -q -F "$img" ;;
		xfs) mkfs.xfs -q -f "$img" ;;
		btrfs) mkfs.btrfs -q -f "$img" ;;
		esac >/dev/null 2>&1 || return 1
		local loop
		loop=$(losetup -f --show "$img") || return 1
		on_exit losetup -d "$loop"
		mount "$loop" "$dir" || return 1
		;;
	overlay)
		mkdir -p "$SCRATCH/lower" "$SCRATCH/upper" "$SCRATCH/work"
		mount -t overlay overlay \
			-o lowerdir="$SCRATCH/lower",upperdir="$SCRATCH/upper",workdir="$SCRATCH/work" "$dir" || return 1
		;;
	*) return 1 ;;
	esac
	on_exit umount -l "$dir"
}

# Build trees quickly (no per-file fork).
make_flat() { # DIR N
	mkdir -p "$1" && (cd "$1" && seq -f "f%.0f" 1 "$2" | xargs touch)
}
make_tree() { # DIR NDIRS NFILES
	local d
	mkdir -p "$1"
	for d in $(seq 1 "$2"); do mkdir "$1/d$d"; done
	for d in $(seq 1 "$2"); do (cd "$1/d$d" && seq -f "f%.0f" 1 "$3" | xargs touch); done
}
make_chain() { # DIR DEPTH (no PATH_MAX limit: walks down with cd)
	python3 - "$1" "$2" <<'PY'
import os, sys
top, depth = sys.argv[1], int(sys.argv[2])
os.makedirs(top, exist_ok=True)
fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
for i in range(depth):
    os.mkdir("d", dir_fd=fd)
    nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(fd)
PY
}

# enter_ext4 TOOL SIZE: as root with TOOL installed, cd into a fresh ext4 of
# SIZE (else skip) holding the sentinel tree keep.
enter_ext4() {
	need_root
	command -v "$1" >/dev/null || skip "no $1"
	mount_fs ext4 m "$2" || skip "cannot mount ext4"
	cd m
	make_sentinel keep
}
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# mount_slowfs DIR DELAY_US [FUSE_OPTION]...: DIR becomes a slowfs mount
# (tests/tools/slowfs.c, every operation sleeps DELAY_US microseconds)
# mirroring a fresh backing directory whose path is left in $SLOWFS_BACKING.
# Unmounted, and the daemon stopped, at exit.
mount_slowfs() {
	local dir=$1 delay=${2:-1000} bin=${TOOLS:-}/slowfs i
	shift 2
	[ -x "$bin" ] || skip "slowfs is not built (make tools)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "no fusermount3"
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	SLOWFS_BACKING=$(mktemp -d "${SCRATCH:-/tmp}/slowfs-backing.XXXXXX") || return 1
	"$bin" --delay-us="$delay" "$SLOWFS_BACKING" "$dir" -f "$@" </dev/null >/dev/null 2>&1 &
	local pid=$!
	on_exit "kill $pid; wait $pid"
	on_exit "fusermount3 -u $(printf %q "$dir") || umount -l $(printf %q "$dir")"
	for ((i = 0; i < 100; i++)); do
		grep -q " $dir fuse.slowfs " /proc/self/mounts && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
