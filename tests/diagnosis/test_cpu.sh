# SPDX-License-Identifier: GPL-3.0-or-later
# CPU time: waiting for a CPU (behind other load, or behind the delete's
# own threads), the filesystem's own cost, and the deleter's own user code.

# (f) CPU-bound workers beside CPU hogs: tmpfs unlinks never block, so the
# workers' only wait is for a CPU, taken by busy loops pinned to each CPU.

# Expect cpu_contention on top (of everything; run_queue_delay is its
# former name): 2 workers and 4 hogs share 2 CPUs, so each worker is
# runnable but waiting about half of its busy time (runqlat / perf sched
# latency would show it), behind tasks that are not traced. And no
# cpu_oversubscription: the workers are no more than the CPUs (the main
# thread, counted with them, mostly sleeps), so fewer workers would wait
# as long.
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
	expect_top t.json cpu_contention ""
	expect_absent t.json cpu_oversubscription
	expect_text t.json cpu_contention "not traced|other (processes|tasks)"
	verdict_ok
}

# Eight workers on two CPUs, nothing else running: tmpfs unlinks never
# block, so six of the eight are always runnable behind the others.

# Expect cpu_oversubscription, its text naming the thread count: the remedy
# is as many workers as CPUs. It is on top (of everything) beside any other
# load too: the wait other tasks add is at most the CPUs' time (two threads'
# worth), the wait of six workers more than CPUs is six. Anchor: the
# workers were preempted (involuntary context switches), which only
# happens to a thread that another runnable thread displaces.
test_more_workers_than_cpus() {
	need_bpf
	local n=200
	big && n=400
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	rusage ru.txt "$ADAPTRM" --trace --json t.json -rf --threads=8 --no-profile t/tree >report.txt ||
		fail "trace failed"
	expect_gone t/tree
	show_verdict t.json
	[ "$(ru ru.txt nivcsw)" -ge 100 ] ||
		setup_failed "only $(ru ru.txt nivcsw) involuntary context switches: the workers were not runnable behind each other"
	expect_shares_sum t.json
	expect_present t.json cpu_oversubscription
	expect_top t.json cpu_oversubscription ""
	expect_text t.json cpu_oversubscription "thread"
	verdict_ok
}

# One `rm -rf` on a warm tmpfs tree: the unlink itself, on a filesystem
# that never blocks, with a CPU to itself (a higher CPU weight, nice, keeps
# it so beside busy loops).

# Expect kernel_cpu on top (of everything): nothing waits, and the text
# says this is the filesystem's own cost. Anchor: the kernel accounted
# more than half of rm's wall time to it as system time, more than every
# other part together, which is what kernel_cpu on top claims. (Quiet, it
# is over 0.8; the probes' own cost and other load take some of it.)
test_one_thread_warm_tmpfs() {
	need_bpf
	local n=200
	big && n=500
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	"$ADAPTRM" --trace --json t.json -- nice -n -10 python3 -c "$RUSAGE_PY" ru.txt rm -rf t/tree >report.txt ||
		fail "trace failed"
	expect_gone t/tree
	show_verdict t.json
	ge "$(frac "$(ru ru.txt stime)" "$(ru ru.txt wall)")" 0.5 ||
		setup_failed "rm had system time for only $(frac "$(ru ru.txt stime)" "$(ru ru.txt wall)") of its wall time (the CPUs were busy with something else)"
	expect_shares_sum t.json
	expect_top t.json kernel_cpu ""
	expect_text t.json kernel_cpu "own cost|nothing"
	verdict_ok
}

# A cleanup script that tests every name against a list of keep-patterns
# before unlinking it: Python's interpreter spends far more CPU per file in
# fnmatch than the tmpfs unlink costs.

# Expect user_cpu on top (of everything but cpu_contention, which other
# load on the machine adds and this scenario does not set up), its text
# pointing at the deleter's own code. Anchor: the kernel accounted most of
# the process's CPU time to user mode.
test_deleter_burns_user_cpu() {
	need_bpf
	local n=20
	big && n=100
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	cat >clean.py <<'PY'
import fnmatch, os, sys
keep = ["*.keep%d" % i for i in range(200)] + ["precious-%d-*" % i for i in range(100)]
for root, dirs, files in os.walk(sys.argv[1], topdown=False):
    for name in files:
        if not any(fnmatch.fnmatchcase(name, p) for p in keep):
            os.unlink(os.path.join(root, name))
    for name in dirs:
        os.rmdir(os.path.join(root, name))
os.rmdir(sys.argv[1])
PY
	"$ADAPTRM" --trace --json t.json -- python3 -c "$RUSAGE_PY" ru.txt python3 clean.py t/tree >report.txt ||
		fail "trace failed"
	expect_gone t/tree
	show_verdict t.json
	ge "$(frac "$(ru ru.txt utime)" "$(ru ru.txt stime)")" 3 ||
		setup_failed "user time $(ru ru.txt utime) s is not well above system time $(ru ru.txt stime) s"
	expect_shares_sum t.json
	expect_top t.json user_cpu cpu_contention
	expect_text t.json user_cpu "user"
	verdict_ok
}
