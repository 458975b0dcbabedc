# SPDX-License-Identifier: GPL-3.0-or-later
# Limits a cgroup puts on the deleter: a CFS bandwidth quota, a memory
# limit. Both act in the deleter's own context, so the remedy is the
# group's setting, not the filesystem.

# nr_throttled GROUP: nr_throttled of a cpu group's cpu.stat
nr_throttled() { awk '$1 == "nr_throttled" { print $2 }' "$1/cpu.stat"; }

# `rm -rf` in a cpu cgroup allowed 20 ms of CPU every 100 ms: the tmpfs
# delete is pure CPU, so it runs a fifth of the time and is throttled the
# rest (cpu.stat nr_throttled counts the periods that ran out).

# Expect cpu_quota on top (of everything), its text naming the group and
# its quota. Anchor: nr_throttled grew during the delete.
test_cpu_quota_throttles_rm() {
	need_bpf
	local n=100 before
	big && n=200
	mount_fs tmpfs t 2G || skip "cannot mount tmpfs"
	make_tree t/tree $n 1000
	v1_group cpu quota
	if ! echo 100000 >"$DIAG_CG/cpu.cfs_period_us" || ! echo 20000 >"$DIAG_CG/cpu.cfs_quota_us"; then
		skip "no CFS bandwidth control"
	fi
	before=$(nr_throttled "$DIAG_CG")
	# shellcheck disable=SC2016 # expanded by the inner shell
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >"$0/cgroup.procs" && exec rm -rf "$1"' \
		"$DIAG_CG" t/tree >report.txt || fail "trace failed"
	expect_gone t/tree
	show_verdict t.json
	[ "$(nr_throttled "$DIAG_CG")" -gt "$before" ] || setup_failed "nr_throttled did not grow"
	expect_shares_sum t.json
	expect_top t.json cpu_quota ""
	expect_text t.json cpu_quota "adaptrm-diag-[0-9]+-quota"
	expect_text t.json cpu_quota "20000|20 ?ms|20 ?%|0\.2 CPU"
	verdict_ok
}

# A memory cgroup at its limit (48 MiB) where a job writes a big file to a
# slow disk (the ext4's loop device writes 32 MiB a second, for everyone:
# the flusher too), so the group's pages are mostly under writeback; a
# cold ext4 tree deleted in the same group: every inode and dentry the
# delete looks up, and every metadata block it reads, is charged to the
# group, and each charge must first reclaim in the deleter's own context,
# where cgroup v1 reclaim waits for the writeback to finish (offcputime:
# folio_wait_writeback <- shrink_folio_list <- try_to_free_mem_cgroup_pages
# <- try_charge_memcg).

# Expect memcg_reclaim first after the filesystem's own CPU, its text
# naming the group and its limit. Anchor: the group's pages were under
# writeback and memory.failcnt (charges that hit the limit) grew during the
# delete.
test_memcg_limit_reclaims_in_deleter() {
	need_bpf
	local n=40 before pid wb majmin root=/sys/fs/cgroup/blkio
	big && n=200
	[ -w "$root/blkio.throttle.write_bps_device" ] || skip "no cgroup v1 blkio controller"
	mount_img ext4 m 8G || skip "cannot mount ext4"
	make_tree m/tree $n 1000
	make_cold m
	v1_group memory lim
	echo 48M >"$DIAG_CG/memory.limit_in_bytes" || skip "cannot set a memory limit"
	majmin=$(dev_of "$DIAG_LOOP")
	echo "$majmin $((32 << 20))" >"$root/blkio.throttle.write_bps_device" ||
		skip "cannot cap the loop device's writes"
	on_exit "echo '$majmin 0' >$root/blkio.throttle.write_bps_device"
	in_group dd if=/dev/zero of=m/big bs=1M count=6000 status=none &
	pid=$!
	on_exit "kill $pid; wait $pid"
	sleep 2
	wb=$(awk '$1 == "writeback" { print $2 }' "$DIAG_CG/memory.stat")
	before=$(cat "$DIAG_CG/memory.failcnt")
	# shellcheck disable=SC2016 # expanded by the inner shell
	"$ADAPTRM" --trace --json t.json -- sh -c 'echo $$ >"$0/cgroup.procs" && exec rm -rf "$1"' \
		"$DIAG_CG" m/tree >report.txt || fail "trace failed"
	expect_gone m/tree
	show_verdict t.json
	[ "${wb:-0}" -ge $((16 << 20)) ] || setup_failed "only ${wb:-0} bytes of the group under writeback"
	[ "$(cat "$DIAG_CG/memory.failcnt")" -gt "$before" ] ||
		setup_failed "memory.failcnt did not grow: the delete did not hit the limit"
	expect_shares_sum t.json
	expect_top t.json memcg_reclaim
	expect_text t.json memcg_reclaim "adaptrm-diag-[0-9]+-lim"
	expect_text t.json memcg_reclaim "48 ?M|50331648"
	verdict_ok
}
