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
	expect_eq "$err" "adaptrm: cannot remove 't/a/locked/inner': Permission denied"
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
	expect_eq "$err" "adaptrm: cannot remove 't/a/frozen': Operation not permitted"
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
	expect_eq "$err" "adaptrm: cannot remove 'nothere': No such file or directory"
	expect_gone t
	"$ADAPTRM" -rf nothere || fail "-f: a missing operand is not an error"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
