# (h) A single-threaded btrfs delete (GNU rm): btrfs unlink is CPU-heavy
# and takes a tree lock on every b-tree node it visits, almost always
# uncontended.

# Expect the filesystem's own CPU (kernel_cpu / syscall_cost) on top and no
# lock finding: perf lock counts ~1,200 real tree-lock waits for 200,000
# files against 3.6 million uncontended takes, and one thread cannot
# serialize with itself (trace-evaluation 3.4, D9).
test_btrfs_single_thread() {
	need_bpf
	local n=50000
	big && n=200000
	mount_img btrfs m 2G || skip "cannot mount btrfs"
	make_flat m/d $n
	sync
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	expect_shares_sum t.json
	expect_absent t.json btrfs_waits lock_contention directory_lock_contention
	expect_top t.json "$BASELINE_IDS" "cpu_contention"
	verdict_ok
}
