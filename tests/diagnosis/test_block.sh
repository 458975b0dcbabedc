# SPDX-License-Identifier: GPL-3.0-or-later
# The device under the delete: held back by a blkio throttle (the device
# itself is fast, the cgroup's limit makes the deleter wait), or slow in
# its own service time. The delete is a cold ext4 flat directory: every
# lookup of an uncached inode reads its inode-table block.

# cold_flat N: a cold ext4 at m holding the flat directory m/d of N files
cold_flat() {
	mount_img ext4 m 2G "-i 8192" || skip "cannot mount ext4"
	make_flat m/d "$1"
	make_cold m
	reads0=$(dev_stat "$DIAG_LOOP" reads) read_ms0=$(dev_stat "$DIAG_LOOP" read_ms)
}

# dev_reads, dev_read_ms: the loop device's reads and their total service
# time since cold_flat (its counters live as long as the device)
dev_reads() { echo $(($(dev_stat "$DIAG_LOOP" reads) - reads0)); }
dev_read_ms() { echo $(($(dev_stat "$DIAG_LOOP" read_ms) - read_ms0)); }

# throttle IOPS: a blkio group (DIAG_CG) capping reads of the delete's
# loop device at IOPS a second
throttle() {
	blkio_group cold
	echo "$(dev_of "$DIAG_LOOP") $1" >"$DIAG_CG/blkio.throttle.read_iops_device"
}

# throttle_held IOPS: the anchor of a throttled delete. The group's reads
# need at least reads/IOPS seconds, which must be most of the traced wall
# time, while the device's own mean read service time stays far below the
# throttle's interval of 1/IOPS.
throttle_held() {
	local iops=$1 reads wall
	reads=$(awk -v d="$(dev_of "$DIAG_LOOP")" '$1 == d && $2 == "Read" { print $3 }' "$DIAG_CG/blkio.throttle.io_serviced")
	wall=$(jq -r '.wall_ns / 1e9' t.json)
	ge "$(frac "${reads:-0}" "$iops")" "$(awk -v w="$wall" 'BEGIN { print w / 2 }')" ||
		setup_failed "${reads:-0} reads at $iops IOPS need less than half of the ${wall} s traced"
	ge "$(frac 333 "$iops")" "$(frac "$(dev_read_ms)" "$(dev_reads)")" ||
		setup_failed "the device's mean read takes $(frac "$(dev_read_ms)" "$(dev_reads)") ms: the device is slow, not only throttled"
}

# throttle_expect IOPS: the verdict of a throttled delete
throttle_expect() {
	expect_shares_sum t.json
	expect_top t.json device_throttled
	expect_text t.json device_throttled "adaptrm-diag-[0-9]+-cold"
	expect_text t.json device_throttled "read_iops|$1 (read )?IOPS"
	expect_absent t.json discard_io
	verdict_ok
}

# (a) A cold ext4 behind a blkio read-IOPS limit.

# Expect device_throttled on top: offcputime puts ~90% of the blocked time
# of this delete in __ext4_get_inode_loc <- __ext4_iget <- ext4_lookup,
# but each read waits in blk-throttle far longer
# than the device takes to serve it, so the remedy is the group's limit
# (named with the group), not the reads; no discard on this mount.
test_cold_ext4_behind_read_iops_limit() {
	need_bpf
	local n=20000 iops=150
	big && n=200000 iops=400
	cold_flat $n
	throttle $iops
	in_group "$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	throttle_held $iops
	throttle_expect $iops
}

# The same delete traced by pid: the deleter starts inside the throttled
# group and waits; the tracer, outside the group and working in another
# filesystem, attaches with -p; then the delete goes.
test_cold_ext4_throttled_traced_by_pid() {
	need_bpf
	local n=20000 iops=150 pid
	big && n=200000 iops=400
	cold_flat $n
	throttle $iops
	mkfifo go
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_group sh -c 'read -r x <"$0" && exec rm -rf "$1"' go m/d &
	pid=$!
	on_exit "kill $pid"
	mkdir elsewhere
	trace_pid "$SCRATCH/t.json" $pid elsewhere
	timeout 30 sh -c 'echo go >go' || fail "the deleter did not start"
	trace_wait
	expect_gone m/d
	show_verdict t.json
	throttle_held $iops
	throttle_expect $iops
}

# The same delete beside two CPU hogs (one per CPU): the deleter is off
# the CPU waiting for its reads most of the time, so unrelated load must
# not change its top cause.
test_cold_ext4_throttled_beside_hogs() {
	need_bpf
	command -v taskset >/dev/null || skip "needs taskset"
	local n=20000 iops=150
	big && n=200000 iops=400
	cold_flat $n
	throttle $iops
	start_hogs 2
	in_group "$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	throttle_held $iops
	throttle_expect $iops
}

# A device slow in its own right: the ext4 image lives on slowfs (FUSE,
# every request sleeps 3 ms), so each read of the loop device takes a FUSE
# round trip, whoever asks. No throttle anywhere.

# Expect slow_device on top, its text naming the device. Anchor: the loop
# device's own mean read service time (/sys/block/loopN/stat) is at least
test_cold_ext4_on_a_slow_device() {
	need_bpf
	local n=30000 delay=3000
	big && n=100000
	mount_slowfs slow $delay || skip "cannot mount slowfs"
	FSIMG_DIR=$SCRATCH/slow cold_flat $n
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	ge "$(frac "$(dev_read_ms)" "$(dev_reads)")" "$(frac $delay 1000)" ||
		setup_failed "the loop device's mean read took $(frac "$(dev_read_ms)" "$(dev_reads)") ms, under the FUSE delay"
	expect_shares_sum t.json
	expect_top t.json slow_device
	expect_text t.json slow_device "$(basename "$DIAG_LOOP")"
	expect_absent t.json device_throttled
	verdict_ok
}

# The same delete by commands of several processes, of which only some
# remove: rsync (a sender and a receiver wait on pipes while the generator
# deletes) and a find | xargs -P4 rm pipeline (find waits for the pipe,
# xargs for its children).

# Expect device_throttled on top, as for rm: the shares are of the
# processes that remove or list, the helpers' waits left out
# (helper_wait_ns). With MOST, it is also most of the traced time: rsync's
# generator lists and removes alone, while find in a pipeline lists and
# then waits for the pipe, which is idle time of its own.
helpers_expect() {
	throttle_held "$1"
	jq -e '.helper_wait_ns > 0' t.json >/dev/null || miss "no helper waits left out: $(verdict t.json)"
	if [ "${2:-}" = most ]; then
		jq -e '[.findings[] | select(.id == "device_throttled") | .share] | first >= 0.5' t.json >/dev/null ||
			miss "device_throttled is under half of the removers' time: $(verdict t.json)"
	fi
	throttle_expect "$1"
}

test_cold_ext4_throttled_rsync() {
	need_bpf
	command -v rsync >/dev/null || skip "needs rsync"
	local n=20000 iops=150
	big && n=200000 iops=400
	cold_flat $n
	throttle $iops
	mkdir empty
	in_group "$ADAPTRM" --trace --json t.json -- rsync -a --delete empty/ m/d/ >report.txt ||
		fail "trace failed"
	[ -z "$(ls -A m/d)" ] || fail "m/d is not empty"
	show_verdict t.json
	helpers_expect $iops most
}

test_cold_ext4_throttled_xargs_pipeline() {
	need_bpf
	local n=20000 iops=150
	big && n=200000 iops=400
	cold_flat $n
	throttle $iops
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_group "$ADAPTRM" --trace --json t.json -- sh -c 'cd "$0" && find . -type f -print0 | xargs -0 -P4 rm -f' m/d \
		>report.txt || fail "trace failed"
	[ -z "$(ls -A m/d)" ] || fail "m/d is not empty"
	show_verdict t.json
	helpers_expect $iops
}
