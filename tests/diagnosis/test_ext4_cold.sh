# (a) A cold ext4 behind a blkio read-IOPS limit: every lookup of an
# uncached inode reads its inode-table block from a slow disk.

# Expect inode_table_reads (or blocked_on_io) on top and no journal or discard
# finding on top: offcputime puts ~90% of the blocked time of this delete in
# __ext4_get_inode_loc <- __ext4_iget <- ext4_lookup (trace-evaluation 3.3);
# jbd2 commits run too but are a few % of it, and the mount has no discard.
test_cold_ext4_behind_read_iops_limit() {
	need_bpf
	local n=30000 iops=300
	big && n=200000 iops=400
	mount_img ext4 m 2G "-i 8192" || skip "cannot mount ext4"
	make_flat m/d $n
	make_cold m
	blkio_group cold
	echo "$(dev_of "$DIAG_LOOP") $iops" >"$DIAG_CG/blkio.throttle.read_iops_device"
	in_group "$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	expect_shares_sum t.json
	expect_top t.json "device_throttled" ""
	expect_absent t.json discard_io
	verdict_ok
}
