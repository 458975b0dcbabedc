# SPDX-License-Identifier: GPL-3.0-or-later
# A slow FUSE daemon (tests/tools/slowfs.c: every request sleeps 1 ms, as
# a network filesystem's round trip): a single-threaded `rm -rf` sends one
# request at a time and waits for each answer (offcputime:
# request_wait_answer <- fuse_simple_request <- fuse_unlink).

# Expect fuse_daemon on top, its text naming the remedy: more requests in
# flight (more workers) or a faster daemon. Anchor: slowfs's log counted
# an UNLINK per file, and rm was off the CPU most of its wall time.
test_fuse_slow_daemon_single_rm() {
	need_bpf
	local dirs=40 per=100 unlinks
	big && dirs=100
	mount_slowfs mnt 1000 --log="$SCRATCH/slowfs.log" --log-interval-ms=50 || skip "cannot mount slowfs"
	make_tree "$SLOWFS_BACKING/t" $dirs $per
	"$ADAPTRM" --trace --json t.json -- python3 -c "$RUSAGE_PY" ru.txt rm -rf mnt/t >report.txt ||
		fail "trace failed"
	expect_gone "$SLOWFS_BACKING/t"
	show_verdict t.json
	sleep 0.2 # the log's last interval
	unlinks=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "unlink") c = i; next }
		!/^#/ { n += $c } END { print n + 0 }' slowfs.log)
	[ "$unlinks" -ge $((dirs * per)) ] || setup_failed "slowfs served $unlinks unlinks, not $((dirs * per))"
	ge 0.3 "$(frac "$(awk -v u="$(ru ru.txt utime)" -v s="$(ru ru.txt stime)" 'BEGIN { print u + s }')" "$(ru ru.txt wall)")" ||
		setup_failed "rm was on the CPU for more than 30% of its wall time"
	expect_shares_sum t.json
	expect_top t.json fuse_daemon
	expect_text t.json fuse_daemon "thread|in flight|parallel|workers"
	verdict_ok
}
