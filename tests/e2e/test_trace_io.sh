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
