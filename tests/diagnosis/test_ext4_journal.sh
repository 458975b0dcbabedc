# (b) An ext4 with the smallest journal (4 MiB) and unlinks in scattered
# inode order (a shuffled `rm`, as rmz deletes in hash order): each unlink
# dirties another inode-table block, the journal fills and every handle
# waits for a checkpoint.

# Expect journal_commit_waits or scattered_inode_order first after the
# filesystem's own CPU: offcputime puts the blocked time of such a delete in
# jbd2_log_wait_commit <- jbd2_log_do_checkpoint <- __jbd2_log_wait_for_space
# (trace-evaluation 3.1, rmz), the remedy being a bigger journal or inode order.
test_small_journal_scattered_unlinks() {
	need_bpf
	local n=30000
	big && n=200000
	mount_img ext4 m 2G "-i 8192 -J size=4" || skip "cannot mount ext4"
	make_flat m/d $n
	sync
	"$ADAPTRM" --trace --json t.json -- sh -c 'cd m/d && ls -U | shuf | xargs rm -f' >report.txt ||
		fail "trace failed"
	expect_gone m/d/f1
	show_verdict t.json
	expect_shares_sum t.json
	expect_top t.json "journal_space journal_commit_waits scattered_inode_order"
	expect_present t.json scattered_inode_order
	verdict_ok
}
