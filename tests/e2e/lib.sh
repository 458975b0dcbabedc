# SPDX-License-Identifier: GPL-3.0-or-later
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
expect_gone() { if [ -e "$1" ] || [ -L "$1" ]; then fail "$1 still exists"; fi; }
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

# The filesystem helpers shared with the benchmark, and the tree builder.
E2E_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MKTREE=$E2E_REPO/tests/tools/mktree.py
FS_PROG=e2e
# shellcheck source=../../scripts/lib/fs.sh
source "$E2E_REPO/scripts/lib/fs.sh"

# mount_fs TYPE DIR [SIZE]: a fresh filesystem of TYPE at DIR (tmpfs, a
# loop-mounted ext4/xfs/btrfs image, or overlayfs, a container layer, with an
# empty lower layer and its upper one in $SCRATCH/upper), unmounted at exit.
mount_fs() {
	local type=$1 dir=$2 size=${3:-1G}
	mkdir -p "$dir"
	case $type in
	tmpfs) fs_tmpfs "$dir" "$size" || return 1 ;;
	ext4 | xfs | btrfs)
		local img
		img=$(mktemp -p "${FSIMG_DIR:-/var/tmp}" "adaptrm-$type.XXXXXX.img")
		on_exit rm -f "$img"
		fs_make_image "$type" "$img" "$size" || return 1
		fs_loop_mount "$img" "$dir"
		local rc=$?
		[ -z "$FS_LOOP" ] || on_exit losetup -d "$FS_LOOP"
		[ $rc = 0 ] || return 1
		;;
	overlay) fs_overlay "$dir" "$SCRATCH" || return 1 ;;
	*) return 1 ;;
	esac
	on_exit umount -l "$dir"
}

# Build trees quickly (tests/tools/mktree.py: no fork per file, no PATH_MAX
# limit), names counting from 1, files made as touch makes them.
make_flat() { # DIR N (DIR and its files may exist)
	python3 "$MKTREE" --parents --mode 666 "$1" flat "$2"
}
make_tree() { # DIR NDIRS NFILES
	python3 "$MKTREE" --parents --mode 666 "$1" tree "$2" "$3"
}
make_chain() { # DIR DEPTH [NFILES per level]
	python3 "$MKTREE" --parents --mode 666 "$1" chain "$2" ${3:+"$3"}
}

# enter_ext4 TOOL SIZE: as root with TOOL installed, cd into a fresh ext4 of
# SIZE (else skip) holding the sentinel tree keep.
enter_ext4() {
	need_root
	command -v "$1" >/dev/null || skip "no $1"
	mount_fs ext4 m "$2" || skip "cannot mount ext4"
	cd m || fail "cannot enter m"
	make_sentinel keep
}
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# mount_slowfs DIR DELAY_US [FUSE_OPTION]...: DIR becomes a slowfs mount
# (tests/tools/slowfs.c, every operation sleeps DELAY_US microseconds)
# mirroring a fresh backing directory whose path is left in $SLOWFS_BACKING.
# Unmounted, and the daemon stopped, at exit.
mount_slowfs() {
	local dir=$1 delay=${2:-1000} bin=${TOOLS:-}/slowfs
	shift 2
	[ -x "$bin" ] || skip "slowfs is not built (make tools)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "no fusermount3"
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	SLOWFS_BACKING=$(mktemp -d "${SCRATCH:-/tmp}/slowfs-backing.XXXXXX") || return 1
	fs_slowfs_start "$bin" "$delay" "$SLOWFS_BACKING" "$dir" "$@"
	local pid=$FS_SLOWFS_PID
	on_exit "kill $pid; wait $pid"
	on_exit "fusermount3 -u $(printf %q "$dir") || umount -l $(printf %q "$dir")"
	fs_slowfs_wait "$dir"
}

# make_user: a fresh local account made with useradd -m (a home without
# ~/.local, as a new user has), its name printed; at exit its processes are
# killed and it is removed with its home. Call it in the test's own shell
# (not in $(...)), then read $MADE_USER.
make_user() {
	need_root
	command -v useradd >/dev/null || skip "no useradd"
	local name
	name=adaptrm-e2e-$$-$((${#CLEANUP[@]} + RANDOM % 1000))
	useradd -m -s /bin/sh "$name" >/dev/null 2>&1 || skip "useradd failed"
	on_exit "pkill -KILL -u $name; sleep 0.2; pkill -KILL -u $name; userdel -r $name"
	# shellcheck disable=SC2034 # read by the caller
	MADE_USER=$name
}

# as_user NAME COMMAND...: COMMAND as NAME with NAME's groups, home and a
# clean environment (what a login would give it), the sanitizers' options
# passed on; killed after 120 s, a bound only a hang reaches.
as_user() {
	local name=$1 home
	shift
	home=$(getent passwd "$name" | cut -d: -f6)
	timeout -k 5 120 setpriv --reuid="$name" --regid="$(id -g "$name")" --init-groups \
		env -i HOME="$home" USER="$name" LOGNAME="$name" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$@"
}
