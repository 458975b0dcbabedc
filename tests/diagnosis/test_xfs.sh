# SPDX-License-Identifier: GPL-3.0-or-later
# (c) Many workers sharing one xfs directory: every unlink takes the
# parent's i_rwsem for write.

# Expect directory_lock_contention on top: with 8 workers in one directory
# most of the waiting is rwsem:W waits at do_unlinkat, the same waits perf
# lock counts (a waiter woken by the release that queues for a CPU still
# waits for the lock, and the verdict counts that in the lock's part too).
# Eight workers on fewer CPUs also wait for a CPU behind each other, and
# beside other load behind it: those waits are reported apart, with their
# own parts (cpu_oversubscription, cpu_contention), and rank as the
# machine's load has it, so the lock must lead the other causes. The
# workers contend only while they run at once: beside busy loops sharing
# the CPUs they would take turns on them instead, so the delete runs at a
# higher CPU weight (nice), as one would to reproduce a lock's contention.
test_xfs_workers_share_one_directory() {
	need_bpf
	ADAPTRM_DIR_SHARE=8 DIAG_NICE=-10 trace_flat_delete xfs 50000 200000 -rf --threads=8
	expect_top t.json directory_lock_contention "$IGNORED_IDS cpu_oversubscription"
	verdict_ok
}

# (d) One worker on an xfs flat directory (xfs does not share a directory
# between workers by default, so --threads=8 leaves 7 idle).

# Expect xfs_inodegc / xfs_log_waits in the verdict, and no
# cpu_oversubscription: offcputime puts ~60% of the blocked time in the
# inodegc throttle (destroy_inode -> __flush_work) and ~30% in
# xlog_grant_head_wait; perf sched shows one thread running, preempted by
# kworkers (among them xfs's own inodegc worker), never by traced threads,
# so no finding may blame the traced threads for each other's waits. How
# the xfs waits rank against the others is the machine's: beside other
# processes the run-queue delay grows, and so do the waits in
# xfs_buf_iowait, and either may outrank them; the ranking of given waits
# is asserted on simulated input (test_findings.c). Beside busy loops the
# one worker would run so little that the inodegc workers keep up and it
# never waits for them: the delete runs at a higher CPU weight (nice), as
# one would to reproduce the filesystem's waits on a busy machine.
test_xfs_one_worker_flat_directory() {
	need_bpf
	DIAG_NICE=-10 trace_flat_delete xfs 100000 200000 -rf --threads=8
	expect_absent t.json cpu_oversubscription
	expect_any t.json "xfs_inodegc xfs_log_waits"
	verdict_ok
}

# Four workers, each in its own directory, deleting xfs files that own data
# blocks (64 KiB each, preallocated so no page cache is involved): the
# unlink only queues the inode for inactivation, and xfs's inodegc
# workers free the blocks in the background; once their per-CPU queue is
# full, each unlinker waits for it to drain (offcputime: __flush_work <-
# xfs_inodegc_queue... <- destroy_inode), which is most of its time, and
# for a CPU behind the inodegc workers, which do the unlinks' deferred work
# on the same CPUs (and end each flush wait): both are xfs_inodegc's, so
# its share is a large part, not just the sleeps in flush_work.

# Expect xfs_inodegc first after the filesystem's own CPU and the waits for
# a CPU: four workers on fewer CPUs are runnable behind each other and
# behind the inodegc workers, and those waits are reported apart, with
# their own parts (cpu_oversubscription, cpu_contention). Anchor: the
# files did own blocks (the free space grew by at least their size).
# The delete runs at a higher CPU weight (nice): beside busy loops the
# lock waiters' run-queue waits after each wake-up (the lock's, as perf
# lock counts them) would outgrow the inodegc throttle they queue behind.
test_xfs_inodegc_files_with_data() {
	need_bpf
	local dirs=10 per=6000 free0 free1
	big && per=12000
	mount_img xfs m 10G || skip "cannot mount xfs"
	python3 - m/t $dirs $per <<'PY'
import os, sys
t, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for j in range(dirs):
    d = "%s/d%d" % (t, j)
    os.makedirs(d)
    for i in range(per):
        fd = os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644)
        os.posix_fallocate(fd, 0, 64 << 10)
        os.close(fd)
PY
	sync
	free0=$(df -k --output=avail m | tail -1)
	nice -n -10 "$ADAPTRM" --trace --json t.json -rf --threads=4 --no-profile m/t >report.txt ||
		fail "trace failed"
	expect_gone m/t
	show_verdict t.json
	sync
	free1=$(df -k --output=avail m | tail -1)
	[ $((free1 - free0)) -ge $((dirs * per * 64 * 9 / 10)) ] ||
		setup_failed "only $((free1 - free0)) KiB freed for $((dirs * per)) files of 64 KiB"
	expect_shares_sum t.json
	expect_top t.json xfs_inodegc "$IGNORED_IDS cpu_oversubscription"
	expect_text t.json xfs_inodegc "inodegc|inactivat"
	jq -e '[.findings[] | select(.id == "xfs_inodegc") | .share] | add // 0 | . >= 0.10' t.json >/dev/null ||
		miss "xfs_inodegc has under 10% of the threads' time: $(verdict t.json)"
	verdict_ok
}

# A cold xfs tree of eight directories whose files were created in turns,
# so their inodes share inode clusters and AG headers, deleted by eight
# workers behind a blkio read-IOPS limit: a worker that needs a buffer
# another one is reading from the device sleeps in xfs_buf_lock until the
# holder's read (and its use of the buffer) is done. That is the buffer's
# read, serialized behind its lock, not contention among CPUs.

# Expect the reads' finding (device_throttled, as the limit holds them, or
# the read kinds) in the verdict and above any lock_contention, which only
# the buffer-lock waits with no read in flight may leave. Anchor: the
# delete read from the device. The warm lock contention of
# test_xfs_workers_share_one_directory stays lock contention.
test_xfs_cold_buffer_lock_waits_for_reads() {
	need_bpf
	local per=3000 reads0 reads1
	big && per=12000
	mount_img xfs m 2G || skip "cannot mount xfs"
	python3 - m/t 8 $per <<'PY'
import os, sys
t, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for j in range(dirs):
    os.makedirs("%s/d%d" % (t, j))
for i in range(per):
    for j in range(dirs):
        open("%s/d%d/f%d" % (t, j, i), "w").close()
PY
	make_cold m
	reads0=$(dev_stat "$DIAG_LOOP" reads)
	blkio_group xfsbuf
	echo "$(dev_of "$DIAG_LOOP") 300" >"$DIAG_CG/blkio.throttle.read_iops_device"
	in_group "$ADAPTRM" --trace --json t.json -rf --threads=8 --no-profile m/t >report.txt ||
		fail "trace failed"
	expect_gone m/t
	show_verdict t.json
	reads1=$(dev_stat "$DIAG_LOOP" reads)
	[ $((reads1 - reads0)) -ge 200 ] || setup_failed "only $((reads1 - reads0)) reads from the device"
	expect_shares_sum t.json
	local reads="device_throttled slow_device locked_buffer_reads inode_table_reads btree_reads metadata_reads"
	expect_any t.json "$reads"
	jq -e --arg ids " $reads " '[.findings[] | .id] as $f
		| ([$f | to_entries[] | select(.value as $id | $ids | contains(" " + $id + " ")) | .key] | min) as $r
		| ([$f | to_entries[] | select(.value == "lock_contention") | .key] | min // 1e9) as $l
		| $r < $l' t.json >/dev/null ||
		miss "lock_contention ranks above the reads: $(verdict t.json)"
	verdict_ok
}

# A delete on xfs whose command first reads cold files of another
# filesystem (ext4), as a deleter's start-up reads its binary, libraries
# and profile store on the root disk: the wait sites name the filesystem
# their frames are of, and those on no device of the delete say so, so no
# "slept most in __ext4_*" is read as the xfs delete's. Anchor: the ext4
# device was read while tracing.
test_xfs_delete_after_reads_on_another_filesystem() {
	need_bpf
	local e_loop reads0
	mount_img ext4 e 256M || skip "cannot mount ext4"
	mkdir e/src && make_data_files e/src 200 4
	make_cold e
	e_loop=$DIAG_LOOP
	mount_img xfs m 1G || skip "cannot mount xfs"
	make_flat m/t 2000
	make_cold m
	reads0=$(dev_stat "$e_loop" reads)
	# the ext4 files are no operand of the command (the delete's devices
	# include its operands'), as a deleter's own files are not
	# shellcheck disable=SC2016 # expanded by the inner shell
	DIAG_SRC=e/src "$ADAPTRM" --trace --json t.json -- sh -c 'cat "$DIAG_SRC"/* >/dev/null && rm -rf "$0"' m/t \
		>report.txt || fail "trace failed"
	expect_gone m/t
	show_verdict t.json
	[ "$(dev_stat "$e_loop" reads)" -gt "$reads0" ] || setup_failed "no reads from the ext4 device"
	jq -e '[.wait_sites[] | select(.fs == "ext4")] | length > 0' t.json >/dev/null ||
		miss "no wait site names ext4: $(jq -c '[.wait_sites[] | .site]' t.json)"
	jq -e '[.wait_sites[] | select(.fs == "ext4" and (.other_fs | not))] | length == 0' t.json >/dev/null ||
		miss "an ext4 site is not marked as another filesystem's"
	jq -e '[.wait_sites[] | select(.fs == "xfs" and .other_fs)] | length == 0' t.json >/dev/null ||
		miss "an xfs site is marked as another filesystem's"
	verdict_ok
}

# An xfs filesystem mounted wsync (synchronous namespace operations, as an
# NFS export may want): every unlink and rmdir commits its transaction
# synchronously, forcing the log to the device and waiting for it.

# Expect xfs_log_forces on top, naming the mount option and the remedy
# (remount without wsync), not a bigger log: the waits are log forces at
# commit, not log-space grants. Anchor: xfs's own counters for the device
# (/sys/fs/xfs/DEV/stats/stats, "log" line, the log forces) grew by at
# least one force per two entries removed.
test_xfs_wsync_mount_forces_log_per_unlink() {
	need_bpf
	local n=4000 f0 f1 st
	big && n=20000
	mount_img xfs m 1G "" wsync || skip "cannot mount xfs"
	make_tree m/t 4 $((n / 4))
	sync
	st=/sys/fs/xfs/$(basename "$DIAG_LOOP")/stats/stats
	[ -r "$st" ] || skip "no xfs stats for $DIAG_LOOP"
	f0=$(awk '$1 == "log" { print $5 }' "$st")
	"$ADAPTRM" --trace --json t.json -rf --no-profile m/t >report.txt || fail "trace failed"
	f1=$(awk '$1 == "log" { print $5 }' "$st")
	expect_gone m/t
	show_verdict t.json
	[ $((f1 - f0)) -ge $((n / 2)) ] || setup_failed "only $((f1 - f0)) log forces for $n files"
	expect_shares_sum t.json
	expect_top t.json xfs_log_forces
	expect_text t.json xfs_log_forces "wsync"
	verdict_ok
}
