# SPDX-License-Identifier: GPL-3.0-or-later
# (h) A single-threaded btrfs delete (GNU rm): btrfs unlink is CPU-heavy
# and takes a tree lock on every b-tree node it visits, almost always
# uncontended.

# Expect the filesystem's own CPU (kernel_cpu / syscall_cost) on top and no
# lock finding: one thread cannot serialize with itself, and perf lock counts
# few real tree-lock waits against millions of uncontended takes, so a lock
# finding here would be the trace mistaking a lock's fast path for a wait.
test_btrfs_single_thread() {
	need_bpf
	trace_flat_delete btrfs 50000 200000 -- rm -rf
	expect_absent t.json btrfs_waits lock_contention directory_lock_contention
	expect_top t.json "$BASELINE_IDS" "cpu_contention"
	verdict_ok
}

# commits: btrfs transaction commits of the filesystem at m so far
commits() { awk '$1 == "commits" { print $2 }' "/sys/fs/btrfs/$(findmnt -no UUID m)/commit_stats"; }

# A rotation script that deletes directories one by one and syncs the
# filesystem after each (`sync -f`, syncfs: on btrfs a full transaction
# commit), so that a crash never leaves a half-deleted one: the script
# spends its time waiting for the commits it asks for.

# Expect btrfs_transaction_commit first among the waits: the script's CPU
# work, in the kernel and in user space (600 processes started, each rm
# and sync linked and loaded), is its own and as large, and it waits on the
# commits it asks for. Anchor: commit_stats counted a commit per directory.
test_btrfs_syncfs_after_each_directory() {
	need_bpf
	local dirs=300 before
	big && dirs=1000
	mount_img btrfs m 2G || skip "cannot mount btrfs"
	[ -r "/sys/fs/btrfs/$(findmnt -no UUID m)/commit_stats" ] || skip "no btrfs commit_stats"
	make_tree m/t $dirs 100
	sync
	before=$(commits)
	# shellcheck disable=SC2016 # expanded by the inner shell
	"$ADAPTRM" --trace --json t.json -- sh -c 'for d in "$0"/*; do rm -rf "$d" && sync -f "$0"; done' m/t \
		>report.txt || fail "trace failed"
	expect_gone m/t/d1
	show_verdict t.json
	[ $(($(commits) - before)) -ge "$dirs" ] ||
		setup_failed "only $(($(commits) - before)) commits for $dirs syncs"
	expect_shares_sum t.json
	expect_top t.json btrfs_transaction_commit "$IGNORED_IDS user_cpu"
	expect_text t.json btrfs_transaction_commit "commit"
	verdict_ok
}
