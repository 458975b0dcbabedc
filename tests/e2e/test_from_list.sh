# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm --from-list FILE [--prune-empty]: the listed paths and nothing
# else; symlinks and '..' refused; no PATH_MAX limit; the directories left
# empty pruned below the common ancestor.

# NUL-separated paths of every 3rd file of a 100 x 100 tree: exactly those go.
test_fromlist_every_third_file() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_tree t 100 100
	find t -type f -print0 | LC_ALL=C sort -z >all
	sed -z -n '3~3p' all >list
	sed -z -n '3~3!p' all | tr '\0' '\n' >expected
	local rc=0
	"$ADAPTRM" --from-list list --threads=3 || rc=$?
	expect_eq "$rc" 0 "exit status"
	expect_eq "$(find t -type f | LC_ALL=C sort | md5sum)" "$(md5sum <expected)" "remaining files"
	expect_eq "$(find t -type d | wc -l)" 101 "directories"
	expect_eq "$(wc -l <expected)" 6667 "files left"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# One path a line, from standard input; the default thread count.
test_fromlist_newline_stdin() {
	make_flat a 5
	local rc=0
	printf 'a/f1\n\na/f3\na/f5' | "$ADAPTRM" --from-list - || rc=$?
	expect_eq "$rc" 0 "exit status"
	expect_eq "$(cd a && echo *)" "f2 f4" "remaining"
}

# A symlinked directory in a path is never followed, relative or absolute.
test_fromlist_symlink_refused() {
	mkdir real; echo data >real/f
	ln -s real link
	local rc=0
	# two parents, so two threads: the lines come in either order
	printf '%s\0' link/f "$SCRATCH/link/f" | "$ADAPTRM" -f --from-list - 2>err || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$(LC_ALL=C sort err)" "$(printf '%s\n' \
		"$ADAPTRM: refusing to remove 'link/f': 'link' is a symbolic link" \
		"$ADAPTRM: refusing to remove '$SCRATCH/link/f': '$SCRATCH/link' is a symbolic link" |
		LC_ALL=C sort)"
	expect_eq "$(cat real/f)" data "symlink target"
	expect_exists link
}

test_fromlist_dotdot_refused() {
	mkdir -p a/b; echo keep >a/keep
	local err rc=0
	err=$(printf 'a/b/../keep\n' | "$ADAPTRM" --from-list - 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: refusing to remove 'a/b/../keep': it has a '..' component"
	expect_exists a/keep
}

# 60 directories of 100-byte names (a 6,000-byte path), made fd-relative;
# with ulimit -n 16 the chain also has to re-walk from the top.
test_fromlist_deeper_than_path_max() {
	python3 - <<-'EOF'
	import os
	name = "n" * 100
	fd = os.open(".", os.O_RDONLY)
	for level in range(1, 61):
	    os.mkdir(name, dir_fd=fd)
	    nfd = os.open(name, os.O_RDONLY, dir_fd=fd)
	    os.close(fd)
	    fd = nfd
	    if level == 30:
	        os.close(os.open("h", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
	for f in ("f", "g"):
	    os.close(os.open(f, os.O_CREAT | os.O_WRONLY, dir_fd=fd))
	deep, mid = "/".join([name] * 60), "/".join([name] * 30)
	with open("list", "w") as out:  # the middle one makes the chain re-walk
	    out.write(deep + "/f\n" + mid + "/h\n" + deep + "/g\n")
	EOF
	local rc=0
	(ulimit -n 16 && "$ADAPTRM" --from-list list --threads=1) || rc=$?
	expect_eq "$rc" 0 "exit status"
	local left
	left=$(python3 - <<-'EOF'
	import os
	fd = os.open(".", os.O_RDONLY)
	left = []
	for _ in range(60):
	    nfd = os.open("n" * 100, os.O_RDONLY, dir_fd=fd)
	    os.close(fd)
	    fd = nfd
	    left += [f for f in os.listdir(fd) if f != "n" * 100]
	print(left)
	EOF
	)
	expect_eq "$left" "[]" "files left at the bottom"
	rm -rf "$(printf 'n%.0s' $(seq 100))" 2>/dev/null || true
}

# --prune-empty: the directories left empty go, bottom-up; the common
# ancestor (top), non-empty directories and unlisted ones stay.
test_fromlist_prune_empty() {
	mkdir -p top/a/b/c top/a/d top/k top/other/empty top/listed top/full
	touch top/a/b/c/f top/a/b/g top/a/d/f top/k/f top/k/stay top/full/x
	printf '%s\n' top/a/b/c/f top/k/f top/a/d/f top/a/b/g top/listed top/full >list
	local out rc=0
	out=$("$ADAPTRM" -v --from-list list --prune-empty 2>&1) || rc=$?
	expect_eq "$rc" 0 "exit status"
	expect_gone top/a; expect_gone top/listed
	expect_exists top/k/stay; expect_exists top/other/empty; expect_exists top/full/x
	grep -qx "removed directory 'top/a'" <<<"$out" || fail "no -v line for top/a: $out"
	expect_eq "$(find top | LC_ALL=C sort | tr '\n' ' ')" \
		"top top/full top/full/x top/k top/k/stay top/other top/other/empty " "what is left"
	# everything under one directory: that directory is the common ancestor
	mkdir -p solo/x; touch solo/x/f
	printf 'solo/x/f\n' | "$ADAPTRM" --from-list - --prune-empty
	expect_exists solo/x
}

# A listed directory without --prune-empty is an error, as rm without -r.
test_fromlist_listed_directory() {
	mkdir d
	local err rc=0
	err=$(printf 'd\n' | "$ADAPTRM" --from-list - 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: cannot remove 'd': Is a directory"
	expect_exists d
}

test_fromlist_missing() {
	local err rc=0
	err=$(printf 'nope\nno/such/f\n' | "$ADAPTRM" --from-list - 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status without -f"
	expect_eq "$err" "$ADAPTRM: cannot remove 'nope': No such file or directory
$ADAPTRM: cannot remove 'no/such/f': No such file or directory"
	rc=0
	err=$(printf 'nope\nno/such/f\n' | "$ADAPTRM" -f --from-list - 2>&1) || rc=$?
	expect_eq "$rc" 0 "exit status with -f"
	expect_eq "$err" "" "-f says nothing"
}

test_fromlist_verbose_and_stats() {
	mkdir -p d; touch d/f "d/it's"
	local out err rc=0
	out=$(printf '%s\0' d/f "d/it's" | "$ADAPTRM" -v --stats --threads=1 --from-list - 2>err) || rc=$?
	expect_eq "$rc" 0 "exit status"
	expect_eq "$out" "removed 'd/f'
removed \"d/it's\""
	grep -q '^removed: 2 files, 0 directories in ' err || fail "stats: $(cat err)"
	grep -qx 'errors: 0' err || fail "stats errors: $(cat err)"
}

test_fromlist_unreadable_list() {
	local err rc=0
	err=$("$ADAPTRM" --from-list nolist 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status, missing list"
	expect_eq "$err" "$ADAPTRM: cannot open 'nolist' for reading: No such file or directory"
	mkdir adir
	rc=0; err=$("$ADAPTRM" --from-list adir 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status, a directory as the list"
	expect_eq "$err" "$ADAPTRM: error reading 'adir': Is a directory"
}

test_fromlist_usage_errors() {
	touch f
	local rc=0
	"$ADAPTRM" --prune-empty f 2>/dev/null || rc=$?
	expect_eq "$rc" 1 "--prune-empty alone"
	rc=0; "$ADAPTRM" --from-list /dev/null f 2>/dev/null || rc=$?
	expect_eq "$rc" 1 "an operand with --from-list"
	rc=0; "$ADAPTRM" -r --from-list /dev/null 2>/dev/null || rc=$?
	expect_eq "$rc" 1 "-r with --from-list"
	expect_exists f
}
