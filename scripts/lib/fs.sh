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
#   fs_slowfs_start BIN DELAY_US BACKING DIR [FUSE_OPTION]...
#                                       start tests/tools/slowfs mirroring
#                                       BACKING at DIR, each operation DELAY_US
#                                       slower; FS_SLOWFS_PID is the daemon
#   fs_slowfs_wait DIR                  wait up to 5 s for that mount (fails
#                                       at once if the daemon exits)
#   fs_umount DIR                       unmount DIR, lazily if it is busy
#   fs_umount_fuse DIR                  fusermount3 -u DIR, else lazily
#   fs_detach LOOP                      detach the loop device LOOP
#   fs_detach_image IMG                 detach every loop device backed by IMG

FS_LOOP=
FS_SLOWFS_PID=

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

fs_slowfs_wait() {
	local dir=$1 i
	for ((i = 0; i < 100; i++)); do
		grep -q " $dir fuse.slowfs " /proc/self/mounts && return 0
		kill -0 "$FS_SLOWFS_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
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
