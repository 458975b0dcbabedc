# SPDX-License-Identifier: GPL-3.0-or-later
# (b) An ext4 with the smallest journal (4 MiB) and unlinks in scattered
# inode order (a shuffled `rm`, as rmz deletes in hash order): each unlink
# dirties another inode-table block, the journal fills and every handle
# waits for a checkpoint.

# Expect journal_space (or journal_commit_waits, its former name, or
# scattered_inode_order) first after the filesystem's own CPU: offcputime
# puts the blocked time of such a delete in jbd2_log_wait_commit <-
# jbd2_log_do_checkpoint <- __jbd2_log_wait_for_space (rmz's delete too),
# so the verdict must name the journal, the remedy being a bigger journal or
# inode order.
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

# jbd2_commits: the transactions the journal of DIAG_LOOP has committed
# (/proc/fs/jbd2/DEV-8/info: "N transactions (M requested), ...")
jbd2_commits() { awk 'NR == 1 { print $1 }' "/proc/fs/jbd2/$(basename "$DIAG_LOOP")-8/info"; }

# An ext4 mounted with dirsync: every unlink is a synchronous directory
# update, so each one waits for the journal commit it asked for
# (offcputime: jbd2_log_wait_commit <- ext4_unlink via ext4_handle_sync).

# Expect journal_commit_waits first after the filesystem's own CPU, its
# text naming the dirsync mount. Anchor: the journal committed about once
# per unlink.
test_dirsync_commit_per_unlink() {
	need_bpf
	local n=1500 before
	big && n=5000
	mount_img ext4 m 1G "" dirsync || skip "cannot mount ext4 with dirsync"
	make_flat m/d $n
	sync
	before=$(jbd2_commits)
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	[ $(($(jbd2_commits) - before)) -ge $((n / 2)) ] ||
		setup_failed "only $(($(jbd2_commits) - before)) journal commits for $n unlinks"
	expect_shares_sum t.json
	expect_top t.json journal_commit_waits
	expect_text t.json journal_commit_waits "dirsync"
	verdict_ok
}

# A warm `rm -rf` (one thread) beside a database-like process that writes
# and fsyncs a file on the same ext4 every millisecond (fsync_probe). Every
# fsync commits the running transaction, which holds the deleter's
# handles: the deleter waits for commits it did not ask for
# (wait_transaction_locked) and, with the journal filling with thousands of
# small transactions, checkpoints for space (__jbd2_log_wait_for_space);
# without the fsync loop the same delete hardly waits at all.

# Expect journal_forced_by_other first after the filesystem's own CPU, its
# text pointing at the other process's fsyncs. Anchor: the probe fsynced
# hundreds of times, and the journal committed at least once for every two
# of them.
test_journal_forced_by_other_fsync() {
	need_bpf
	local n=100000 before pid count commits
	big && n=200000
	[ -x "${TOOLS:-}/fsync_probe" ] || skip "fsync_probe is not built (make tools)"
	mount_img ext4 m 2G || skip "cannot mount ext4"
	make_flat m/d $n
	sync
	mkdir m/db
	before=$(jbd2_commits)
	"$TOOLS/fsync_probe" --interval-ms=1 m/db >probe.txt &
	pid=$!
	on_exit "kill $pid"
	sleep 0.5
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	kill $pid && wait $pid
	expect_gone m/d
	show_verdict t.json
	count=$(sed -n 's/^count=\([0-9]*\).*/\1/p' probe.txt)
	commits=$(($(jbd2_commits) - before))
	if [ "${count:-0}" -lt 200 ] || [ "$commits" -lt $((count / 2)) ]; then
		setup_failed "${count:-0} fsyncs, $commits journal commits"
	fi
	expect_shares_sum t.json
	expect_top t.json journal_forced_by_other
	expect_text t.json journal_forced_by_other "fsync"
	verdict_ok
}
