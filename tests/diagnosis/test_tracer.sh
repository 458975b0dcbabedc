# SPDX-License-Identifier: GPL-3.0-or-later
# A delete run under a ptrace tracer (strace -f): the tracer stops the
# deleter at every system call's entry and exit and runs before it goes
# on, so the delete runs at the tracer's pace, outside any filesystem.

# Expect ptrace_stops first among the causes, naming the tracer and the
# remedy (run it without the tracer). Anchor: the kernel counted at least
# two voluntary context switches per file removed (rusage of strace and
# rm: a stop at each unlink's entry and exit), far more than rm alone makes.
test_tracer_strace_stops_each_syscall() {
	need_bpf
	command -v strace >/dev/null || skip "needs strace"
	local n=20000
	big && n=60000
	mount_img ext4 m 1G || skip "cannot mount ext4"
	make_tree m/t 10 $((n / 10))
	sync
	"$ADAPTRM" --trace --json t.json -- python3 -c "$RUSAGE_PY" ru.txt strace -f -o /dev/null rm -rf m/t \
		>report.txt || fail "trace failed"
	expect_gone m/t
	show_verdict t.json
	[ "$(ru ru.txt nvcsw)" -ge $((2 * n)) ] ||
		setup_failed "only $(ru ru.txt nvcsw) voluntary context switches for $n files"
	expect_shares_sum t.json
	expect_top t.json ptrace_stops
	expect_text t.json ptrace_stops "tracer.*without the tracer"
	verdict_ok
}
