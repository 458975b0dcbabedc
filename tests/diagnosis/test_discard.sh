# SPDX-License-Identifier: GPL-3.0-or-later
# Online discard: (e) on the traced filesystem, (g) on another one.

# (e) ext4 mounted with discard, data=writeback: freed data blocks are then
# discarded inline, by the unlinking thread (ext4_mb_clear_bb ->
# ext4_issue_discard), instead of later by jbd2, so the delete itself waits
# on every discard.

# Expect discard_io first after the filesystem's own CPU: the blocked time
# is in ext4_issue_discard -> blkdev_issue_discard -> submit_bio_wait, one
# per deleted file; the remedy is to mount without discard (fstrim instead).
test_ext4_mounted_with_discard() {
	need_bpf
	local n=3000
	big && n=20000
	mount_img ext4 m 2G "" discard,data=writeback || skip "cannot mount ext4 with discard"
	make_data_files m/d $n 64
	sync
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	[ "$(jq '.fs.block.discards + .fs.ext4.discards' t.json)" -gt 0 ] ||
		fail "no discards seen: the scenario did not discard"
	expect_shares_sum t.json
	expect_top t.json discard_io
	verdict_ok
}

# (g) A tmpfs delete traced while another filesystem (an ext4 mounted with
# discard) discards in a loop.

# Expect no discard_io (and no journal finding): tmpfs neither discards
# nor journals; the discards and jbd2 commits belong to another device and
# another process, and the verdict covers only the traced threads' time.
test_tmpfs_beside_a_discarding_ext4() {
	need_bpf
	local n=50
	big && n=200
	mount_img ext4 disc 1G "" discard || skip "cannot mount ext4 with discard"
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	# the other filesystem's discards, until killed (by pid, at exit)
	sh -c 'while :; do head -c 4M /dev/zero >"$0/x"; sync; rm "$0/x"; sync; done' "$SCRATCH/disc" &
	local pid=$!
	on_exit "kill $pid; wait $pid"
	sleep 1
	"$ADAPTRM" --trace --json t.json -- rm -rf t/tree >report.txt || fail "trace failed"
	expect_gone t/tree
	kill $pid
	show_verdict t.json
	expect_shares_sum t.json
	expect_absent t.json discard_io journal_commit_waits
	verdict_ok
}
