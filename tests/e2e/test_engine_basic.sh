# SPDX-License-Identifier: GPL-3.0-or-later
# Basic end-to-end cases of the deletion engine on tmpfs.

test_tree_parallel() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_tree t 50 200
	"$ADAPTRM" -rf --threads=4 t
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_verbose_postorder() {
	mkdir -p a/b; touch a/x a/b/y b
	out=$("$ADAPTRM" -rv --threads=1 a b)
	expect_eq "$out" "removed 'a/x'
removed 'a/b/y'
removed directory 'a/b'
removed directory 'a'
removed 'b'"
}

# Each getdents64 batch is unlinked last-first where that pays (tmpfs, xfs,
# btrfs), in readdir order elsewhere; ADAPTRM_REVERSE=0/1 overrides. Checked
# on both paths: entries unlinked straight from the buffer (one thread) and
# from a batch (two threads sharing the directory).
test_reverse_order_policy() {
	[ "$(stat -f -c %T .)" = tmpfs ] || skip "needs the test directory on tmpfs"
	local order rev mode
	for mode in "--threads=1" "--threads=2"; do
		for env in "" 0 1; do
			mkdir d; for i in $(seq 1 100); do : >"d/f$i"; done
			# shellcheck disable=SC2010 # ls -f: directory order; names are f1..f100
			order=$(ls -f d | grep -v '^\.\.\?$' | sed "s|^|removed 'd/|; s|\$|'|")
			rev=$(printf '%s\n' "$order" | tac)
			if [ -z "$env" ]; then out=$(ADAPTRM_DIR_SHARE=2 "$ADAPTRM" -rv "$mode" d)
			else out=$(ADAPTRM_REVERSE=$env ADAPTRM_DIR_SHARE=2 "$ADAPTRM" -rv "$mode" d); fi
			expect_gone d
			out=$(printf '%s\n' "$out" | grep -v "^removed directory 'd'$")
			if [ "$env" = 0 ]; then expect_eq "$out" "$order" "readdir order ($mode)"
			else expect_eq "$out" "$rev" "reverse order ($mode, ADAPTRM_REVERSE='$env')"; fi
		done
	done
}

# --max-ops paces unlinks and rmdirs (the rate is the benchmark's to measure);
# values that are not a count from 1 are usage errors, and nothing goes.
test_max_ops() {
	make_tree t 10 20
	"$ADAPTRM" -rf --max-ops=100000 t || fail "adaptrm --max-ops failed"
	expect_gone t
	make_tree t 1 1
	local v
	for v in 0 -5 abc 1x ''; do
		"$ADAPTRM" -rf --max-ops="$v" t 2>err && fail "--max-ops='$v' was accepted"
		grep -qE "invalid argument ['‘]${v}['’] for ['‘]--max-ops['’]" err || fail "no message for '$v': $(cat err)"
		expect_exists t/d1/f1
	done
}

# Subdirectories go the same way as files: last-first where the type (tmpfs)
# or ADAPTRM_REVERSE says so, readdir order otherwise, also now that a
# read's subdirectories are handed out before its files are unlinked.
test_reverse_order_of_subdirectories() {
	[ "$(stat -f -c %T .)" = tmpfs ] || skip "needs the test directory on tmpfs"
	local order rev env out
	for env in "" 0 1; do
		mkdir d; for i in $(seq 1 30); do mkdir "d/s$i"; done; : >d/f
		# shellcheck disable=SC2010 # ls -f: directory order; names are s1..s30
		order=$(ls -f d | grep '^s' | sed "s|^|removed directory 'd/|; s|\$|'|")
		rev=$(printf '%s\n' "$order" | tac)
		if [ -z "$env" ]; then out=$("$ADAPTRM" -rv --threads=1 d)
		else out=$(ADAPTRM_REVERSE=$env "$ADAPTRM" -rv --threads=1 d); fi
		expect_gone d
		out=$(printf '%s\n' "$out" | grep "^removed directory 'd/s")
		if [ "$env" = 0 ]; then expect_eq "$out" "$order" "readdir order"
		else expect_eq "$out" "$rev" "reverse order (ADAPTRM_REVERSE='$env')"; fi
	done
}
