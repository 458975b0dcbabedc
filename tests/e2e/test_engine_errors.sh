# SPDX-License-Identifier: GPL-3.0-or-later
# Errors follow GNU rm: one message per entry, siblings continue, ancestors kept, exit 1.

test_unreadable_subtree_as_nobody_parallel() {
	need_root
	command -v setpriv >/dev/null || skip "no setpriv"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir -p w/t/a/locked/inner w/t/b; touch w/t/a/locked/inner/f w/t/a/sib w/t/b/f w/t/top
	make_tree w/t/c 20 20
	chown -R nobody:nogroup w; chmod 755 "$SCRATCH"
	chmod 0555 w/t/a/locked     # readable but not writable: its entries cannot go
	local err rc=0
	err=$(cd w && setpriv --reuid=nobody --regid=nogroup --clear-groups "$ADAPTRM" -rf --threads=2 t 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: cannot remove 't/a/locked/inner': Permission denied"
	expect_exists w/t/a/locked/inner; expect_gone w/t/a/locked/inner/f   # inner itself was writable
	expect_gone w/t/a/sib; expect_gone w/t/b; expect_gone w/t/c; expect_gone w/t/top
	expect_exists w/t/a   # ancestors of the failure are kept, silently
	chmod 755 w/t/a/locked
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_immutable_file_ext4() {
	enter_ext4 chattr 256M
	local before; before=$(sentinel_sum keep)
	mkdir -p t/a t/b; touch t/a/frozen t/a/x t/b/y
	chattr +i t/a/frozen || skip "chattr +i failed"
	on_exit chattr -i "$PWD/t/a/frozen"
	local err rc=0
	err=$("$ADAPTRM" -rf t 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: cannot remove 't/a/frozen': Operation not permitted"
	expect_exists t/a/frozen; expect_gone t/a/x; expect_gone t/b
	chattr -i t/a/frozen
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	cd ..
}

test_missing_operands() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir -p t; touch t/f
	local err rc=0
	err=$("$ADAPTRM" -r nothere t 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: cannot remove 'nothere': No such file or directory"
	expect_gone t
	"$ADAPTRM" -rf nothere || fail "-f: a missing operand is not an error"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# Bind mounts inside the operand, against GNU rm (coreutils) on the same
# setups: same messages, exit status and what is left. Without
# --one-file-system GNU rm enters a bind mount and empties the directory
# bound there, so does adaptrm; the mount point itself gives EBUSY.
GNU_RM=${GNU_RM:-/usr/bin/rm}

# Unmount what the setups mounted below $SCRATCH/b, innermost first.
bind_unmount() {
	awk -v p="$SCRATCH/b/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while IFS= read -r m; do umount -l "$m" 2>/dev/null; done
	return 0
}

# bind_side RM SETUP ARGS...: in a fresh $SCRATCH/b, SETUP, then RM ARGS;
# prints stderr (the program name as rm), the exit status and the tree left.
bind_side() {
	local rm=$1 setup=$2 rc=0
	shift 2
	bind_unmount
	rm -rf "$SCRATCH/b"
	mkdir "$SCRATCH/b" || fail "cannot make $SCRATCH/b"
	(cd "$SCRATCH/b" && eval "$setup") || fail "setup failed: $setup"
	(cd "$SCRATCH/b" && "$rm" "$@") >/dev/null 2>"$SCRATCH/bind.err" || rc=$?
	bind_unmount
	sed -E 's/^[^:]*rm: /rm: /' "$SCRATCH/bind.err"
	echo "exit $rc"
	(cd "$SCRATCH/b" && find . | LC_ALL=C sort)
}

# bind_compare SETUP ARGS...: adaptrm (at 1 and at 8 threads) against GNU rm.
bind_compare() {
	local setup=$1 gnu ada t
	shift
	gnu=$(bind_side "$GNU_RM" "$setup" "$@")
	for t in 1 8; do
		ada=$(bind_side "$ADAPTRM" "$setup" --threads=$t "$@")
		[ "$ada" = "$gnu" ] ||
			fail "$* after '$setup' at --threads=$t: GNU rm gave:$(printf '\n%s' "$gnu")$(printf '\nadaptrm gave:\n%s' "$ada")"
	done
}

need_gnu_rm() {
	need_root
	"$GNU_RM" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "no GNU rm at $GNU_RM"
}

# A directory bound inside the tree whose source went first (another operand
# before it, or its sibling read first): the mount point reads as a removed
# directory (getdents64 says ENOENT, glibc's readdir an end), and its rmdir
# says EBUSY. (The previous binary said "No such file or directory".)
test_bind_mount_of_a_removed_directory() {
	need_gnu_rm
	on_exit bind_unmount
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	bind_compare 'mkdir -p t/x/mnt s/sub; echo k >s/f; echo k >s/sub/g; mount --bind s t/x/mnt' -rf s t
	bind_compare 'mkdir -p t/x/mnt s/sub; echo k >s/f; echo k >s/sub/g; mount --bind s t/x/mnt' -r s t
	# the source outside: its content goes through the mount, it stays
	bind_compare 'mkdir -p t/x/mnt s/sub; echo k >s/f; echo k >s/sub/g; mount --bind s t/x/mnt' -rf t
	bind_compare 'mkdir -p t/x/mnt s/sub; echo k >s/f; mount --bind s t/x/mnt' -rf --one-file-system t
	# the source inside, a sibling created before and after the mount point
	bind_compare 'mkdir -p t/a/sub t/x/mnt; echo k >t/a/f; echo k >t/a/sub/g; mount --bind t/a t/x/mnt' -rf t
	bind_compare 'mkdir -p t/x/mnt t/a/sub; echo k >t/a/f; echo k >t/a/sub/g; mount --bind t/a t/x/mnt' -rf t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# A directory bound inside itself: GNU rm's warning, neither it nor its
# parent removed, the grandparent's rmdir reported (fts skips the parent's
# postorder visit). The setups are those where GNU's cycle check sees the
# cycle at once (it compares with one remembered directory, taken at
# power-of-two counts, and may notice later or never where other
# directories come first), the cycle alone in its parent (GNU rm would skip
# the entry after it in readdir order instead, and leave it). (The previous
# binary entered it, removed what was below the mount point and reported
# EBUSY.)
test_bind_mount_cycle() {
	need_gnu_rm
	on_exit bind_unmount
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	bind_compare 'mkdir -p t/a/b/c; echo k >t/f; mount --bind t/a t/a/b' -rf t
	bind_compare 'mkdir -p t/a/b/c; echo k >t/f; mount --bind t/a t/a/b' -r t
	# below the operand itself: the warning alone
	bind_compare 'mkdir -p t/b/c; mount --bind t t/b' -rf t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
