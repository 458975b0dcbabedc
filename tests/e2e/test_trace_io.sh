# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# adaptrm --trace: which block I/O is the delete's. A writer beside the
# delete, on the same filesystem, is the device's other load, shown apart
# and left out of the delete's figures.

need_bpf_io() {
	need_root
	command -v jq >/dev/null || skip "needs jq"
	"$ADAPTRM" --trace -- true >/dev/null 2>&1 || skip "BPF probes unavailable"
}

# A writer that starts when the traced command says so (the file writer.go) and
# says when it is done (the file writer.done), so that all its I/O falls inside
# the trace whatever the machine's speed: 16 MiB with direct I/O (its own
# requests) and 16 MiB through the page cache, written back by sync.
test_trace_io_other_writer_is_other_load() {
	need_bpf_io
	mount_fs ext4 m 512M || skip "cannot mount ext4"
	make_flat m/d 3000
	sync
	(
		while [ ! -e writer.go ]; do sleep 0.01; done
		dd if=/dev/zero of=m/direct bs=1M count=16 oflag=direct status=none
		dd if=/dev/zero of=m/buffered bs=1M count=16 status=none
		sync
		touch writer.done
	) &
	local writer=$!
	"$ADAPTRM" --trace --json t.json -- sh -c \
		'touch writer.go; rm -rf m/d; while [ ! -e writer.done ]; do sleep 0.02; done' >report.txt ||
		fail "trace failed"
	wait "$writer"
	expect_gone m/d
	local dev
	dev=$(jq -r '[.fs.devices[] | select(.traced and (.name | startswith("loop")))][0].dev' t.json)
	[ "$dev" != null ] || fail "no traced loop device in the JSON"
	local own other
	own=$(jq -r --arg d "$dev" '.fs.devices[] | select(.dev == $d) | .block.bytes' t.json)
	other=$(jq -r --arg d "$dev" '.fs.devices[] | select(.dev == $d) | .other_block.bytes' t.json)
	[ "$other" -ge $((32 << 20)) ] || fail "the writer's 32 MiB not in the other load: $other bytes"
	[ "$own" -lt $((16 << 20)) ] || fail "the delete's block bytes include the writer's: $own"
	local fs_own
	fs_own=$(jq -r '.fs.block.bytes' t.json)
	[ "$fs_own" -lt $((16 << 20)) ] || fail "fs.block (what --compare reads) has the writer's: $fs_own"
	grep -q '^    other load: ' report.txt || fail "no other-load line in the report"
}

# On a filesystem mounted with discard, the discards of the extents the
# delete freed are the delete's, and those of another process's files,
# freed while the trace runs, are that device's other load, although the
# same kernel threads issue both.
test_trace_io_other_discards_are_other_load() {
	need_bpf_io
	mount_fs ext4 m 512M || skip "cannot mount ext4"
	mount -o remount,discard m || skip "cannot mount with discard"
	mkdir m/d
	local i
	for i in 1 2 3 4; do dd if=/dev/zero of="m/d/a$i" bs=1M count=4 status=none; done
	for i in 1 2 3 4; do dd if=/dev/zero of="m/b$i" bs=1M count=4 status=none; done
	sync
	# ext4 issues the discards from a worker after the commit: the trace
	# ends once the device has completed two more (the delete's and the
	# other's; /sys/block/*/stat field 12), or after ten seconds
	local stat
	stat=/sys/block/$(basename "$FS_LOOP")/stat
	[ -r "$stat" ] || skip "no $stat"
	awk '{ print $12 + 2 }' "$stat" >discards.want
	(
		while [ ! -e writer.go ]; do sleep 0.01; done
		rm -f m/b1 m/b2 m/b3 m/b4
		sync
		touch writer.done
	) &
	local other=$!
	# shellcheck disable=SC2016 # the traced shell expands it
	STAT=$stat "$ADAPTRM" --trace --json t.json -- sh -c \
		'rm -rf m/d; sync; touch writer.go; while [ ! -e writer.done ]; do sleep 0.02; done
		i=0; while [ $i -lt 200 ] && [ "$(awk "{ print \$12 }" "$STAT")" -lt "$(cat discards.want)" ]; do
			sleep 0.05; i=$((i + 1)); done' \
		>report.txt || fail "trace failed"
	wait "$other"
	expect_gone m/d
	local dev own oth
	dev=$(jq -r '[.fs.devices[] | select(.traced and .discard_mount)][0].dev' t.json)
	[ "$dev" != null ] || fail "no traced device mounted with discard in the JSON"
	own=$(jq -r --arg d "$dev" '.fs.devices[] | select(.dev == $d) | .block.discards' t.json)
	oth=$(jq -r --arg d "$dev" '.fs.devices[] | select(.dev == $d) | .other_block.discards' t.json)
	[ "$own" -ge 1 ] || fail "none of the delete's discards counted as its own"
	[ "$oth" -ge 1 ] || fail "the other process's discards counted as the delete's ($own own)"
}
