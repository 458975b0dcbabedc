# adaptrm on the slow FUSE filesystem (tests/tools/slowfs.c), the stand-in for
# a high-latency network filesystem: what is deleted through the mount must be
# gone from the backing directory, and nothing outside the operand may change.

test_slowfs_tree() {
	need_root
	mount_slowfs mnt 200
	make_sentinel "$SLOWFS_BACKING/keep"; local before; before=$(sentinel_sum mnt/keep)
	make_tree "$SLOWFS_BACKING/t" 64 100
	ln -s ../../keep "$SLOWFS_BACKING/t/d1/link-out"
	ln -s /nonexistent "$SLOWFS_BACKING/t/d2/dangling"
	mkdir -p "$SLOWFS_BACKING/t/d3/x/y/z"
	"$ADAPTRM" -rf mnt/t
	expect_gone mnt/t
	expect_gone "$SLOWFS_BACKING/t"
	expect_eq "$(sentinel_sum mnt/keep)" "$before" "sentinel changed (seen through the mount)"
	expect_eq "$(sentinel_sum "$SLOWFS_BACKING/keep")" "$before" "sentinel changed (backing directory)"
}

# A tree built through the mount itself (every create pays the delay), deleted
# with many threads so requests overlap in the FUSE daemon.
test_slowfs_built_through_mount_parallel() {
	need_root
	mount_slowfs mnt 100
	make_sentinel mnt/keep; local before; before=$(sentinel_sum mnt/keep)
	make_tree mnt/t 20 20
	make_chain mnt/t/chain 200
	expect_eq "$(find "$SLOWFS_BACKING/t" | wc -l)" $((1 + 20 + 400 + 1 + 200)) "tree not mirrored in backing dir"
	"$ADAPTRM" -rf --threads=32 mnt/t
	expect_gone mnt/t
	expect_gone "$SLOWFS_BACKING/t"
	expect_eq "$(sentinel_sum mnt/keep)" "$before" "sentinel changed"
}

# A flat directory large enough to need several READDIR requests (the daemon
# serves them by offset); every entry must be removed.
test_slowfs_flat() {
	need_root
	mount_slowfs mnt 50
	make_sentinel mnt/keep; local before; before=$(sentinel_sum mnt/keep)
	make_flat "$SLOWFS_BACKING/flat" 5000
	# shellcheck disable=SC2012 # counting f1..f5000, plain names
	expect_eq "$(ls mnt/flat | wc -l)" 5000 "listing through the mount"
	"$ADAPTRM" -rf mnt/flat
	expect_gone mnt/flat
	expect_gone "$SLOWFS_BACKING/flat"
	expect_eq "$(sentinel_sum mnt/keep)" "$before" "sentinel changed"
}

# Errors coming back from the filesystem (the kernel checks permissions with
# default_permissions) are reported GNU-style; the rest is still deleted.
test_slowfs_errors_reported() {
	need_root
	mount_slowfs mnt 100 -o allow_other,default_permissions
	mkdir -p "$SLOWFS_BACKING/t/ro"; touch "$SLOWFS_BACKING/t/ro/f" "$SLOWFS_BACKING/t/ok"
	chmod 777 "$SLOWFS_BACKING/t"; chmod 555 "$SLOWFS_BACKING/t/ro"
	chmod 755 "$SCRATCH" "$SLOWFS_BACKING"
	local rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$ADAPTRM" -rf mnt/t 2>err || rc=$?
	expect_eq "$rc" 1 "exit status"
	grep -q "cannot remove 'mnt/t/ro/f': Permission denied" err || fail "no message for the protected file: $(cat err)"
	expect_exists "$SLOWFS_BACKING/t/ro/f"
	expect_gone "$SLOWFS_BACKING/t/ok"
}
