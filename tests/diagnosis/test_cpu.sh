# (f) CPU-bound workers beside CPU hogs: tmpfs unlinks never block, so the
# workers' only wait is for a CPU, taken by busy loops pinned to each CPU.

# Expect run_queue_delay or cpu_oversubscription on top (of everything): 2
# workers and 4 hogs share 2 CPUs, so each worker is runnable but waiting
# about half of its busy time (runqlat / perf sched latency would show it).
test_cpu_bound_workers_beside_hogs() {
	need_bpf
	command -v taskset >/dev/null || skip "needs taskset"
	local n=100
	big && n=200
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	start_hogs 4
	"$ADAPTRM" --trace --json t.json -rf --threads=2 t/tree >report.txt || fail "trace failed"
	expect_gone t/tree
	show_verdict t.json
	expect_shares_sum t.json
	expect_top t.json "cpu_contention cpu_oversubscription" ""
	verdict_ok
}
