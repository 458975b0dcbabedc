# SPDX-License-Identifier: GPL-3.0-or-later
# Filesystems for the end-to-end tests (tests/e2e/lib.sh: mount_fs,
# mount_slowfs) and the benchmark (scripts/bench/bench.sh: setup_fs,
# teardown_fs). Sourced; needs root. Each function does one step and returns
# non-zero if it failed, leaving the cleanup to the caller, by exact path or
# device: the e2e tests register each undo step as it succeeds, the benchmark
# tears down what its variables name. Messages start with "$FS_PROG: "
# (default "fs").
#
#   fs_tmpfs DIR SIZE                   tmpfs of SIZE at DIR
#   fs_make_image TYPE IMG SIZE [MKFS_OPTION]...
#                                       IMG, a sparse file of SIZE made into an
#                                       ext4, xfs or btrfs filesystem
#   fs_loop_mount IMG DIR               IMG on a free loop device, mounted at
#                                       DIR; FS_LOOP names the device as soon
#                                       as it is attached
#   fs_overlay DIR LAYERS               overlayfs at DIR, a container layer:
#                                       an empty LAYERS/lower, the upper one in
#                                       LAYERS/upper (LAYERS/work its workdir)
#   fs_slowfs_start BIN DELAY_US BACKING DIR [OPTION]...
#                                       start tests/tools/slowfs mirroring
#                                       BACKING at DIR, each operation DELAY_US
#                                       slower; FS_SLOWFS_PID is the daemon.
#                                       OPTION: slowfs's own (--mount=DIR2,
#                                       --server-slots=K, --client-cap=C,
#                                       --log=FILE...) or libfuse's (-o ...)
#   fs_slowfs_start_clients BIN DELAY_US BACKING BASE N [OPTION]...
#                                       one slowfs daemon mounting BACKING at
#                                       BASE.0 .. BASE.N-1 (made if missing),
#                                       one client each, as nodes of a parallel
#                                       filesystem; FS_SLOWFS_MOUNTS lists
#                                       them, FS_SLOWFS_PID is the daemon
#   fs_slowfs_wait DIR...               wait up to 5 s for every one of those
#                                       mounts (fails at once if the daemon
#                                       exits)
#   fs_slowfs_stop PID DIR...           unmount every DIR still mounted (all
#                                       of them, even if one fails), stop the
#                                       daemon PID and wait up to 5 s for it
#   fs_umount DIR                       unmount DIR, lazily if it is busy
#   fs_umount_fuse DIR                  fusermount3 -u DIR, else lazily
#   fs_detach LOOP                      detach the loop device LOOP
#   fs_detach_image IMG                 detach every loop device backed by IMG
#   fs_detach_under DIR                 detach every loop device whose backing
#                                       file's path is under DIR
#   fs_loop_attach IMG DIO              IMG on a free loop device, direct I/O
#                                       on or off (the guest then does not
#                                       cache the image twice); FS_LOOP names
#                                       it, FS_LOOP_DIO says what it got (0 or
#                                       1: a backing fs without O_DIRECT gets 0)
#   fs_cold_remount DEV DIR [MOUNT_OPTION]...
#                                       unmount DIR, drop every cache, mount
#                                       DEV at DIR again: the next access
#                                       reads the disk (drop_caches alone
#                                       leaves the mounted fs's blocks cached)
#   fs_blkio_create CG DEV IOPS         a cgroup v1 blkio group CG (a path
#                                       under /sys/fs/cgroup/blkio) capping
#                                       reads and writes to block device DEV
#                                       at IOPS each
#   fs_blkio_wrap CG                    FS_BLKIO_WRAP, a command prefix that
#                                       runs the rest of the line in CG (the
#                                       command itself, not its caller)
#   fs_blkio_remove CG                  move CG's tasks out, remove it
#   fs_devcap DEV IOPS                  cap every read and write to DEV at
#                                       IOPS a second, whoever submits it
#                                       (the root blkio group: kernel threads
#                                       too); IOPS 0 lifts the cap. A loop
#                                       device keeps it after detaching:
#                                       lift it first

FS_LOOP=
FS_LOOP_DIO=
FS_SLOWFS_PID=
FS_SLOWFS_MOUNTS=()

fs_tmpfs() {
	mount -t tmpfs -o size="$2" tmpfs "$1"
}

fs_make_image() {
	local type=$1 img=$2 size=$3
	shift 3
	truncate -s "$size" "$img" || return 1
	case $type in
	ext4) mkfs.ext4 -q -F "$@" "$img" ;;
	xfs) mkfs.xfs -q -f "$@" "$img" ;;
	btrfs) mkfs.btrfs -q -f "$@" "$img" ;;
	*) false ;;
	esac >/dev/null 2>&1 || { echo "${FS_PROG:-fs}: mkfs.$type failed" >&2; return 1; }
}

fs_loop_mount() {
	FS_LOOP=$(losetup -f --show "$1") || { FS_LOOP=; return 1; }
	mount "$FS_LOOP" "$2"
}

fs_overlay() {
	local dir=$1 layers=$2
	mkdir -p "$layers/lower" "$layers/upper" "$layers/work" || return 1
	mount -t overlay overlay \
		-o "lowerdir=$layers/lower,upperdir=$layers/upper,workdir=$layers/work" "$dir"
}

fs_slowfs_start() {
	local bin=$1 delay=$2 backing=$3 dir=$4
	shift 4
	"$bin" --delay-us="$delay" "$backing" "$dir" -f "$@" </dev/null >/dev/null 2>&1 &
	FS_SLOWFS_PID=$!
}

fs_slowfs_start_clients() {
	local bin=$1 delay=$2 backing=$3 base=$4 n=$5 i
	shift 5
	FS_SLOWFS_MOUNTS=()
	for ((i = 0; i < n; i++)); do
		mkdir -p "$base.$i" || return 1
		FS_SLOWFS_MOUNTS+=("$base.$i")
	done
	local extra=("${FS_SLOWFS_MOUNTS[@]:1}")
	fs_slowfs_start "$bin" "$delay" "$backing" "$base.0" "${extra[@]/#/--mount=}" "$@"
}

fs_slowfs_mounted() {
	grep -q " $1 fuse.slowfs " /proc/self/mounts
}

fs_slowfs_wait() {
	local dir i
	for dir; do
		for ((i = 0; i < 100; i++)); do
			fs_slowfs_mounted "$dir" && break
			kill -0 "$FS_SLOWFS_PID" 2>/dev/null || return 1
			sleep 0.05
		done
		[ "$i" -lt 100 ] || return 1
	done
}

fs_slowfs_stop() {
	local pid=$1 dir rc=0 i
	shift
	for dir; do
		fs_slowfs_mounted "$dir" || continue
		fs_umount_fuse "$dir" || rc=1
	done
	kill "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
	kill -0 "$pid" 2>/dev/null && return 1
	return $rc
}

fs_umount() {
	umount "$1" 2>/dev/null || umount -l "$1"
}

fs_umount_fuse() {
	fusermount3 -u "$1" 2>/dev/null || umount -l "$1"
}

fs_detach() {
	losetup -d "$1"
}

fs_detach_image() {
	losetup -j "$1" | cut -d: -f1 | xargs -r -n1 losetup -d
}

fs_loop_attach() {
	FS_LOOP=$(losetup -f --show --direct-io="$2" "$1" 2>/dev/null) || { FS_LOOP=; return 1; }
	# shellcheck disable=SC2034 # read by the caller
	FS_LOOP_DIO=$(cat "/sys/block/${FS_LOOP#/dev/}/loop/dio" 2>/dev/null || echo 0)
}

fs_cold_remount() {
	local dev=$1 dir=$2
	shift 2
	umount "$dir" || return 1
	sync
	echo 3 >/proc/sys/vm/drop_caches
	mount "$@" "$dev" "$dir"
}

fs_blkio_create() {
	local cg=$1 dev=$2 iops=$3 majmin
	majmin=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ') || return 1
	mkdir "$cg" || return 1
	echo "$majmin $iops" >"$cg/blkio.throttle.read_iops_device" &&
		echo "$majmin $iops" >"$cg/blkio.throttle.write_iops_device"
}

# The whole disk under directory $1 (a partition's disk), or fail.
fs_disk_of() {
	local src pk
	src=$(df --output=source "$1" 2>/dev/null | tail -1)
	[ -b "$src" ] || return 1
	pk=$(lsblk -no PKNAME "$src" 2>/dev/null | head -1)
	if [ -n "$pk" ]; then echo "/dev/$pk"; else echo "$src"; fi
}

fs_blkio_wrap() {
	# shellcheck disable=SC2016,SC2034 # expanded by the inner shell; read by the caller
	FS_BLKIO_WRAP=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$1")
}

fs_blkio_remove() {
	local cg=$1 pid
	[ -d "$cg" ] || return 0
	while read -r pid; do echo "$pid" >"${cg%/*}/cgroup.procs"; done <"$cg/cgroup.procs" 2>/dev/null
	rmdir "$cg"
}

fs_detach_under() {
	local dev back
	losetup -n -l -O NAME,BACK-FILE 2>/dev/null | while read -r dev back; do
		case $back in "$1"/*) losetup -d "$dev" ;; esac
	done
}

fs_devcap() {
	local majmin root=/sys/fs/cgroup/blkio
	majmin=$(lsblk -dno MAJ:MIN "$1" | tr -d ' ') || return 1
	echo "$majmin $2" >"$root/blkio.throttle.read_iops_device" &&
		echo "$majmin $2" >"$root/blkio.throttle.write_iops_device"
}
