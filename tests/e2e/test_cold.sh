# SPDX-License-Identifier: GPL-3.0-or-later
# The start on a cold cache (docs/design.md#the-start-on-a-cold-cache): a tree
# whose first directory reads go to the disk starts with more workers than
# the prior, and the same tree in the cache starts at the prior.

# cold_start_json DIR: --json's first tree as "start_from start_threads".
cold_start_json() {
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trees"][0]; print(t["start_from"], t["start_threads"])' "$1"
}

# The same ext4 tree warm (just made), then cold (unmounted, the loop
# device's buffers dropped, mounted again): the prior (2 on two CPUs), then
# the cold count (two per CPU, at least 4). Which reads happen is fixed by
# the tree, not by timing.
test_cold_ext4_tree_starts_with_reads_in_flight() {
	need_root
	mount_fs ext4 m 256M || skip "cannot mount ext4"
	make_tree m/w 20 20
	make_tree m/c 20 20
	"$ADAPTRM" -rf --json=w.json m/w || fail "adaptrm failed warm"
	expect_gone m/w
	local prior=2
	[ "$(nproc)" -ge 2 ] || prior=1
	expect_eq "$(cold_start_json w.json)" "prior $prior" "warm start"
	sync
	umount m || fail "cannot unmount"
	blockdev --flushbufs "$FS_LOOP" || fail "cannot drop the loop device's buffers"
	mount "$FS_LOOP" m || fail "cannot mount again"
	"$ADAPTRM" -rf --json=c.json m/c || fail "adaptrm failed cold"
	expect_gone m/c
	local want=$(($(nproc) * 2))
	[ "$want" -ge 4 ] || want=4
	[ "$want" -le 16 ] || want=16
	expect_eq "$(cold_start_json c.json)" "cold $want" "cold start"
}

# Pinned by --threads, a cold tree keeps the count it was given.
test_cold_pinned_count_stays() {
	need_root
	mount_fs ext4 m 256M || skip "cannot mount ext4"
	make_tree m/c 20 20
	sync
	umount m || fail "cannot unmount"
	blockdev --flushbufs "$FS_LOOP" || fail "cannot drop the loop device's buffers"
	mount "$FS_LOOP" m || fail "cannot mount again"
	"$ADAPTRM" -rf --threads=1 --json=c.json m/c || fail "adaptrm failed"
	expect_gone m/c
	expect_eq "$(cold_start_json c.json)" "pinned 1" "pinned start"
}
