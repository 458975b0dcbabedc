# SPDX-License-Identifier: GPL-3.0-or-later
# Job control: the delete is stopped by SIGSTOP for two seconds and then
# continued (a shell's Ctrl-Z and fg do the same).

# Expect signal_stop first, with the remedy (continue it), and no tracer
# finding. Anchor: /proc/PID/stat said T (stopped) during the stop.
test_signals_sigstop_stops_the_delete() {
	need_bpf
	local n=100000 pid tr state
	mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
	make_flat m/d "$n"
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >pid.txt && exec rm -rf m/d' >report.txt &
	tr=$!
	on_exit "kill $tr"
	pid=$(wait_pidfile pid.txt)
	kill -STOP "$pid"
	on_exit "kill -CONT $pid"
	sleep 0.5
	state=$(proc_state "$pid")
	sleep 1.5
	kill -CONT "$pid"
	wait "$tr" || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	[ "$state" = T ] || setup_failed "the deleter was in state '$state', not stopped"
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json signal_stop
	expect_text t.json signal_stop "kill -CONT"
	expect_absent t.json ptrace_stops
	verdict_ok
}
