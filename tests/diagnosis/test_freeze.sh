# SPDX-License-Identifier: GPL-3.0-or-later
# A frozen filesystem (fsfreeze -f, as a snapshot or backup freezes it):
# every writer waits in sb_start_write (mnt_want_write) until it is thawed.

# Expect frozen_filesystem first, with the remedy (wait for the snapshot,
# or thaw). Anchor: the deleter was in state D with percpu_rwsem_wait
# under mnt_want_write or sb_start_write in /proc/PID/stack.
test_freeze_frozen_filesystem_holds_the_writers() {
	need_bpf
	command -v fsfreeze >/dev/null || skip "needs fsfreeze"
	local pid tr state stack
	mount_img ext4 m 1G || skip "cannot mount ext4"
	make_flat m/d 10000
	sync
	fsfreeze -f m || skip "cannot freeze ext4"
	on_exit "fsfreeze -u $PWD/m"
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >pid.txt && exec rm -rf m/d' >report.txt &
	tr=$!
	on_exit "kill $tr"
	pid=$(wait_pidfile pid.txt)
	sleep 2
	state=$(proc_state "$pid")
	stack=$(cat "/proc/$pid/stack" 2>/dev/null)
	sleep 1
	fsfreeze -u m || fail "cannot thaw"
	wait "$tr" || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	if [ "$state" != D ] || ! grep -qE "mnt_want_write|sb_start_write" <<<"$stack"; then
		setup_failed "the deleter was in state '$state', not waiting for the freeze: $stack"
	fi
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json frozen_filesystem
	expect_text t.json frozen_filesystem "fsfreeze --unfreeze"
	expect_absent t.json lock_contention
	verdict_ok
}
