# SPDX-License-Identifier: GPL-3.0-or-later
# Another process reads the directory being deleted, again and again: each
# getdents64 holds the directory's i_rwsem shared, and every unlink needs
# it exclusive, so the deleter waits for the reader.

# Expect directory_lock_contention first, naming the reader by name and
# pid (it releases the lock, so it wakes the deleter). Anchor: the
# deleter's wchan samples show it asleep in do_unlinkat (the rwsem
# write wait: nothing else sleeps there on a warm ext4).
test_holders_another_reader_holds_the_directory() {
	need_bpf
	local n=60000 rd
	big && n=200000
	mount_img ext4 m 2G || skip "cannot mount ext4"
	make_flat m/d "$n"
	sync
	python3 -c 'import os, sys
os.listdir(sys.argv[1])
open(sys.argv[2], "w").close()
while True:
    try:
        os.listdir(sys.argv[1])
    except FileNotFoundError:
        break' "$PWD/m/d" "$PWD/reading" &
	rd=$!
	on_exit "kill $rd"
	# the reader must be reading before the delete starts (an interpreter
	# behind a wrapper script can take a while to start on a busy machine)
	local _
	for _ in $(seq 600); do
		[ -e reading ] && break
		kill -0 "$rd" 2>/dev/null || setup_failed "the reader exited"
		sleep 0.1
	done
	[ -e reading ] || setup_failed "the reader did not start reading in 60 s"
	wchan_sampler pid.txt wchan.txt
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >pid.txt && exec rm -rf m/d' >report.txt ||
		fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	local share
	share=$(wchan_share wchan.txt 'do_unlinkat|rwsem|down_write')
	ge "$share" 0.05 || setup_failed "the deleter waited for the directory lock in $share of its wchan samples"
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json directory_lock_contention
	expect_text t.json directory_lock_contention "ended by python3 \(pid $rd\)"
	verdict_ok
}
