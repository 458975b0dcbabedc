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

# Another tracer left running system-wide (perf trace -a, as an engineer
# starts it to look at something else): its handlers run on every system
# call of every process, the delete's too, inside the kernel's syscall path,
# where they look like the filesystem's own kernel time.

# Expect tracing_cpu first, naming the process that holds the perf events
# and the remedy (stop the tracer or narrow it). Anchor: perf trace's own
# summary counts the deleter's unlinkat calls (it hooked them).
test_tracer_perf_trace_system_wide() {
	need_bpf
	command -v perf >/dev/null || skip "needs perf"
	perf trace -s -o /dev/null true >/dev/null 2>&1 || skip "perf trace does not run here"
	local n=20000 pt
	big && n=60000
	mount_fs tmpfs t 1G || skip "cannot mount tmpfs"
	make_tree t/tree 20 $((n / 20))
	perf trace -a -s -o perf.txt >/dev/null 2>&1 &
	pt=$!
	on_exit "kill -INT $pt 2>/dev/null; wait $pt"
	# perf trace counts once it has opened its events: wait until its
	# open files stop growing (the anchor below says if it missed the delete)
	local n0=0 n1 still=0 _
	for _ in $(seq 600); do
		n1=$(find /proc/"$pt"/fd -mindepth 1 2>/dev/null | wc -l)
		if [ "$n1" -gt 10 ] && [ "$n1" = "$n0" ]; then
			still=$((still + 1))
			[ $still -ge 5 ] && break
		else
			still=0
		fi
		n0=$n1
		sleep 0.1
	done
	"$ADAPTRM" --trace --json t.json -- rm -rf t/tree >report.txt || fail "trace failed"
	kill -INT "$pt"
	wait "$pt"
	expect_gone t/tree
	show_verdict t.json
	local seen
	# the most any rm made (other processes named rm may run meanwhile)
	seen=$(awk '/^ [^ ].* \([0-9]+\)/ { rm = /^ rm \(/ } rm && $1 == "unlinkat" && $2 > m { m = $2 }
		END { print m + 0 }' perf.txt)
	[ "${seen:-0}" -ge $((n / 2)) ] ||
		setup_failed "perf trace counted ${seen:-no} unlinkat calls of rm (of $n)"
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json tracing_cpu
	expect_text t.json tracing_cpu "perf \(pid $pt\).*Stop the tracer"
	verdict_ok
}
