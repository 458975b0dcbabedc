# SPDX-License-Identifier: GPL-3.0-or-later
# Cold-cache ext4 deletes on a fast device, each dominated by one kind of
# metadata read: inode tables, directory blocks, block bitmaps, extent-tree
# leaves. The remedy differs by kind (keep the tree warm, shorter or
# smaller directories, fewer block groups touched, less fragmentation), so
# the verdict must tell them apart. make_cold unmounts and mounts again,
# so every block the delete needs comes from the loop device.

# reads_since_cold: loop-device reads since mark_cold
mark_cold() { reads0=$(dev_stat "$DIAG_LOOP" reads); }
reads_since_cold() { echo $(($(dev_stat "$DIAG_LOOP" reads) - reads0)); }

# expect_reads MIN WHAT: the anchor of a cold delete: at least MIN reads
# reached the device (else the tree was cached and nothing was read)
expect_reads() {
	[ "$(reads_since_cold)" -ge "$1" ] ||
		setup_failed "only $(reads_since_cold) device reads, expected at least $1 ($2)"
}

# An aged ext4: files of six directories created interleaved (as a busy
# machine creates them), so each directory's inodes are spread over the
# whole inode table among the others'. One directory is deleted cold in
# hash order (find -delete, as rmz or any tool that unlinks in readdir
# order): nearly every lookup lands on an inode-table block not read yet,
# and the table's readahead brings mostly the other directories' inodes;
# offcputime puts the blocked time in __ext4_get_inode_loc <- __ext4_iget
# <- ext4_lookup.
itab_delete() {
	local n=300000
	big && n=1200000
	mount_img ext4 m 4G "-i 8192" || skip "cannot mount ext4"
	python3 - m $n <<'PY'
import os, sys
m, n = sys.argv[1], int(sys.argv[2])
for j in range(6):
    os.makedirs("%s/d%d" % (m, j))
for i in range(n):
    os.mknod("%s/d%d/f%d" % (m, i % 6, i))
PY
	make_cold m
	mark_cold
}
# itab_expect [IGNORED_IDS]: the verdict of the inode-table deletes; by
# default the machine's other load (cpu_contention) is left out of the
# ranking, as in every scenario whose cause is not the CPU
itab_expect() {
	expect_gone m/d0
	show_verdict t.json
	expect_reads 500 "inode-table blocks"
	expect_shares_sum t.json
	expect_top t.json inode_table_reads "${1-$IGNORED_IDS}"
	expect_text t.json inode_table_reads "inode"
	verdict_ok
}

# Expect inode_table_reads first after the filesystem's own CPU.
test_inode_table_reads_cold_flat() {
	need_bpf
	itab_delete
	"$ADAPTRM" --trace --json t.json -- find m/d0 -delete >report.txt || fail "trace failed"
	itab_expect
}

# The same beside two CPU hogs: the I/O-bound deleter keeps its top cause
# among the waits. Its wait for a CPU after each read completes is real
# and, on a fast device, may outweigh the reads themselves, so the
# contention is skipped when ranking, as the baseline is.
test_inode_table_reads_beside_hogs() {
	need_bpf
	command -v taskset >/dev/null || skip "needs taskset"
	itab_delete
	start_hogs 2
	"$ADAPTRM" --trace --json t.json -- find m/d0 -delete >report.txt || fail "trace failed"
	itab_expect "$BASELINE_IDS cpu_contention run_queue_delay"
}

# A huge directory with long names (64 hex digits, a content-addressed
# cache), deleted cold by GNU rm, which sorts the names by inode number
# first: the inode-table reads are then sequential and read ahead, and what
# is left is reading the directory itself, one 4 KiB block at a time
# (offcputime: ext4_read_bh <- ext4_bread <- __ext4_read_dirblock).

# Expect directory_block_reads first after the filesystem's own CPU.
# Anchor: the device read at least half as many blocks as the directory has.
test_directory_block_reads_long_names() {
	need_bpf
	local n=60000 dirblocks
	big && n=200000
	mount_img ext4 m 2G || skip "cannot mount ext4"
	python3 - m/d $n <<'PY'
import hashlib, os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d)
for i in range(n):
    os.mknod("%s/%s" % (d, hashlib.sha256(str(i).encode()).hexdigest()))
PY
	dirblocks=$(($(stat -c %s m/d) / 4096))
	make_cold m
	mark_cold
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	expect_reads $((dirblocks / 2)) "the directory's $dirblocks blocks"
	expect_shares_sum t.json
	expect_top t.json directory_block_reads
	expect_text t.json directory_block_reads "director"
	verdict_ok
}

# Big files spread over thousands of small block groups (2 MiB each, no
# flex_bg, mounted without the block-bitmap prefetch), deleted cold: freeing
# their blocks loads every group's buddy cache, one block-bitmap read per
# group (offcputime: ext4_wait_block_bitmap <- ext4_mb_init_cache <-
# ext4_mb_init_group). The files are preallocated, so no data is written.

# Expect bitmap_reads first after the filesystem's own CPU. Anchor: the
# device read at least one block per group the files span.
test_bitmap_reads_files_over_many_groups() {
	need_bpf
	local files=3 groups
	big && files=6
	mount_img ext4 m 16G "-O ^flex_bg -g 512 -N 16384" no_prefetch_block_bitmaps ||
		skip "cannot mount ext4"
	for ((i = 0; i < files; i++)); do
		fallocate -l 2500M "m/f$i" || fail "fallocate failed"
	done
	# 2500 MiB in 2 MiB groups (their metadata aside)
	groups=$((files * 2500 / 2))
	make_cold m
	mark_cold
	"$ADAPTRM" --trace --json t.json -- sh -c 'exec rm -f m/f*' >report.txt || fail "trace failed"
	expect_gone m/f0
	show_verdict t.json
	expect_reads "$groups" "a block bitmap for each of $groups groups"
	expect_shares_sum t.json
	expect_top t.json bitmap_reads
	expect_text t.json bitmap_reads "bitmap"
	verdict_ok
}

# punch_file FILE MIB: FILE of MIB MiB preallocated, then every other 4 KiB
# block punched out: one extent per 8 KiB, so a deep extent tree with a
# leaf block per 340 extents
punch_file() {
	python3 - "$1" "$2" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
path, mib = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
os.posix_fallocate(fd, 0, mib << 20)
for off in range(0, mib << 20, 8192):
    # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
    if libc.fallocate(fd, 3, off, 4096) != 0:
        raise OSError(ctypes.get_errno(), "cannot punch " + path)
os.close(fd)
PY
}

# extent_count FILE: the extents filefrag lists
extent_count() { filefrag -v "$1" | grep -c '^ *[0-9]*:'; }

# One huge fragmented file deleted cold: the extent tree's leaves are read
# one by one as ext4_ext_remove_space walks it (offcputime: ext4_read_bh <-
# __read_extent_tree_block <- ext4_ext_remove_space).

# Expect extent_tree_reads first after the filesystem's own CPU. Anchor:
# the file has more than 100,000 extents, and the device read at least a
# block per 340 of them (a leaf holds 340).
test_extent_tree_reads_fragmented_file() {
	need_bpf
	local mib=1536 extents
	big && mib=3072
	command -v filefrag >/dev/null || skip "needs filefrag"
	mount_img ext4 m 4G || skip "cannot mount ext4"
	punch_file m/big $mib || fail "cannot fragment the file"
	extents=$(extent_count m/big)
	[ "$extents" -ge 100000 ] || setup_failed "only $extents extents"
	make_cold m
	mark_cold
	"$ADAPTRM" --trace --json t.json -- rm -f m/big >report.txt || fail "trace failed"
	expect_gone m/big
	show_verdict t.json
	expect_reads $((extents / 340)) "the leaves of $extents extents"
	expect_shares_sum t.json
	# The file's fragmentation is the cause either way: on a device that
	# serves reads fast, freeing its extents on CPU outweighs reading
	# their leaves, and both are named.
	expect_top t.json "extent_tree_reads extent_freeing"
	expect_present t.json extent_tree_reads
	expect_text t.json extent_tree_reads "extent"
	verdict_ok
}

# The same file deleted warm: nothing is read, and the time is the CPU
# work of freeing each extent (ext4_ext_remove_space -> ext4_free_blocks,
# a journalled bitmap and group-descriptor update per extent).

# Expect extent_freeing on top (of everything, it is the cause, not the
# baseline), its text naming fragmentation. Anchor: the delete read
# nothing and the kernel accounted most of its wall time as system time.
test_extent_freeing_fragmented_file_warm() {
	need_bpf
	local mib=3072 extents
	big && mib=6144
	command -v filefrag >/dev/null || skip "needs filefrag"
	mount_img ext4 m 8G || skip "cannot mount ext4"
	punch_file m/big $mib || fail "cannot fragment the file"
	extents=$(extent_count m/big)
	[ "$extents" -ge 100000 ] || setup_failed "only $extents extents"
	sync
	mark_cold
	"$ADAPTRM" --trace --json t.json -- python3 -c "$RUSAGE_PY" ru.txt rm -f m/big >report.txt ||
		fail "trace failed"
	expect_gone m/big
	show_verdict t.json
	[ "$(reads_since_cold)" -lt 10 ] || setup_failed "the warm delete read $(reads_since_cold) blocks"
	ge "$(frac "$(ru ru.txt stime)" "$(ru ru.txt wall)")" 0.6 ||
		setup_failed "rm had system time for only $(frac "$(ru ru.txt stime)" "$(ru ru.txt wall)") of its wall time"
	expect_shares_sum t.json
	expect_top t.json extent_freeing ""
	expect_text t.json extent_freeing "extent|fragment"
	verdict_ok
}
