# SPDX-License-Identifier: GPL-3.0-or-later
# Dirty-page throttling: a delete that also writes (its log) to a disk
# whose dirty pages are held to a small limit while another job fills it.

# `rm -rv tree >cleanup.log` on an ext4 whose loop device writes 32 MiB a
# second (for everyone: the flusher too), with a strict per-device dirty
# limit of 4 MiB (/sys/class/bdi/MAJ:MIN/strict_limit and max_bytes, as on
# a removable disk), while a backup writes a big file to the same disk: the
# device is always at its dirty limit, so every page of rm's log it dirties
# pauses it in balance_dirty_pages until the backup's pages are written.

# Expect writeback_throttle first after the filesystem's own CPU, its text
# naming the dirty limit. Anchor: sampled /proc/PID/wchan of rm sleeps in
# balance_dirty_pages for at least a fifth of the samples.
test_rm_log_writes_throttled_by_dirty_limit() {
	need_bpf
	local n=50 bdi majmin pid share root=/sys/fs/cgroup/blkio
	big && n=200
	[ -w "$root/blkio.throttle.write_bps_device" ] || skip "no cgroup v1 blkio controller"
	mount_img ext4 m 8G || skip "cannot mount ext4"
	make_tree m/t $n 1000
	sync
	majmin=$(dev_of "$DIAG_LOOP")
	bdi=/sys/class/bdi/$majmin
	[ -w "$bdi/max_bytes" ] || skip "no per-device dirty limit"
	# the bdi outlives the loop device: put its limits back (max_bytes 0
	# would mean no dirty pages at all; the ratio is what max_bytes sets)
	on_exit "echo $(cat "$bdi/max_ratio") >$bdi/max_ratio; echo $(cat "$bdi/strict_limit") >$bdi/strict_limit"
	if ! echo 1 >"$bdi/strict_limit" || ! echo $((4 << 20)) >"$bdi/max_bytes"; then
		fail "cannot set the dirty limit"
	fi
	echo "$majmin $((32 << 20))" >"$root/blkio.throttle.write_bps_device" || fail "cannot cap the writes"
	on_exit "echo '$majmin 0' >$root/blkio.throttle.write_bps_device"
	dd if=/dev/zero of=m/backup bs=1M count=6000 status=none &
	pid=$!
	on_exit "kill $pid; wait $pid"
	sleep 1
	wchan_sampler rm.pid wchan.txt
	# shellcheck disable=SC2016 # expanded by the inner shell
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >rm.pid && exec rm -rv m/t >m/cleanup.log' \
		>report.txt || fail "trace failed"
	expect_gone m/t
	wait "$DIAG_SAMPLER"
	show_verdict t.json
	share=$(wchan_share wchan.txt '^balance_dirty_pages')
	ge "$share" 0.2 || setup_failed "rm slept in balance_dirty_pages in only $share of the wchan samples"
	expect_shares_sum t.json
	expect_top t.json writeback_throttle
	expect_text t.json writeback_throttle "dirty"
	verdict_ok
}
