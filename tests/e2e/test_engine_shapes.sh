# SPDX-License-Identifier: GPL-3.0-or-later
# Tree shapes the engine must delete completely, on tmpfs and real filesystems.
# Every case checks that a marked tree outside the operand is unchanged.

# shape_case SETUP_FN ARGS...: build with SETUP_FN into t, delete, check.
shape_case() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	"$@"
	timeout 300 "$ADAPTRM" -rf t || fail "adaptrm failed"
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_flat_100k_parallel() { shape_case make_flat t 100000; }
test_tree_1000x100_parallel() { shape_case make_tree t 1000 100; }
test_chain_100k_deep() { shape_case make_chain t 100000; }

# Symlinks to directories outside the tree, dangling links, fifos, sockets,
# hard links to files outside, odd names (newline, invalid UTF-8, 255 bytes).
make_mixed() { # DIR OUTSIDE
	local t=$1 out=$2 name255
	mkdir -p "$out/victim_dir" "$t/a/b/c" "$t/e"
	echo precious >"$out/victim_dir/file"; echo hard >"$out/hardfile"
	ln -s "$(cd "$out" && pwd)/victim_dir" "$t/a/abs_dirlink"
	ln -s ../../"$(basename "$out")"/victim_dir "$t/rel_dirlink"
	ln -s /nonexistent/nowhere "$t/a/b/dangling"
	mkfifo "$t/a/fifo" "$t/a/b/c/fifo2"
	python3 -c 'import socket,sys
for p in sys.argv[1:]:
    s=socket.socket(socket.AF_UNIX); s.bind(p); s.close()' "$t/a/sock" "$t/e/sock2"
	ln "$out/hardfile" "$t/a/b/hardlink"
	touch "$t/e/$(printf 'new\nline')" "$t/e/$(printf 'bad\xff\xfeutf8')"
	mkdir "$t/$(printf 'dir\nwith\nnewlines')" && touch "$t/$(printf 'dir\nwith\nnewlines')/x"
	name255=$(printf 'n%.0s' $(seq 255))
	touch "$t/a/$name255"; mkdir "$t/e/$name255"; touch "$t/e/$name255/$name255"
	ln -s "$(cd "$out" && pwd)/victim_dir" "$t/e/$name255/link"
}

mixed_on() { # FSTYPE
	local fs=$1
	if [ "$fs" = tmpfs ]; then mount_fs tmpfs m 256M || skip "no tmpfs"
	else mount_fs "$fs" m 1G || skip "cannot mount $fs"; fi
	cd m || fail "cannot enter m"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir out; make_mixed t out
	local obefore; obefore=$(sentinel_sum out)
	timeout 120 "$ADAPTRM" -rf t || fail "adaptrm failed on $fs"
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed on $fs"
	expect_eq "$(sentinel_sum out)" "$obefore" "symlink/hardlink targets changed on $fs"
	expect_eq "$(cat out/hardfile)" hard
	expect_eq "$(stat -c %h out/hardfile)" 1 "hard link count"
	cd .. || fail "cannot leave m"
}
test_mixed_tmpfs_parallel() { mixed_on tmpfs; }
test_mixed_ext4() { need_root; mixed_on ext4; }
test_mixed_xfs() { need_root; mixed_on xfs; }
test_mixed_btrfs() { need_root; mixed_on btrfs; }

# -v names every entry once, GNU-quoted, even odd names.
test_mixed_verbose_counts() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir out; make_mixed t out
	local n; n=$(find t | wc -l)   # newline names make find's line count larger; count with -print0
	n=$(find t -print0 | tr -cd '\0' | wc -c)
	local lines; lines=$("$ADAPTRM" -rv t | grep -c '^removed')
	expect_eq "$lines" "$n" "one 'removed' line per entry"
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# ext4 order: a directory past the sort threshold is unlinked in ascending
# inode order; one whose size rules that out is not read whole first (its
# unlinks start before the getdents64 that returns 0), as rmz and GNU rm do.
test_ext4_inode_order_and_small_dirs_interleaved() {
	enter_ext4 strace 1G
	local before; before=$(sentinel_sum keep)
	make_flat big 12000
	make_flat small 500
	# shellcheck disable=SC2012 # inode and name of f1..f12000, plain names
	ls -i big | awk '{print $2, $1}' | LC_ALL=C sort >ino.txt
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=getdents64,unlinkat \
		-o big.st "$ADAPTRM" -rf --threads=1 --no-profile big || fail "adaptrm failed on big"
	expect_gone big
	# names in unlink order -> their inodes -> must be ascending
	grep -o 'unlinkat([0-9]*, "f[0-9]*", 0) *= 0' big.st | sed 's/.*"\(f[0-9]*\)".*/\1/' >order.txt
	expect_eq "$(wc -l <order.txt)" 12000 "unlinks of big"
	awk 'NR==FNR {ino[$1]=$2; next} {print ino[$1]}' ino.txt order.txt >inos.txt
	sort -n -c inos.txt 2>/dev/null || fail "big directory not unlinked in inode order"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=getdents64,unlinkat \
		-o small.st "$ADAPTRM" -rf --threads=1 --no-profile small || fail "adaptrm failed on small"
	expect_gone small
	local first_unlink eof
	first_unlink=$(grep -n 'unlinkat(.*"f' small.st | head -1 | cut -d: -f1)
	eof=$(grep -n 'getdents64(.*) *= 0$' small.st | tail -1 | cut -d: -f1)
	{ [ -n "$first_unlink" ] && [ -n "$eof" ]; } || fail "no unlinks or no end of directory in the trace"
	[ "$first_unlink" -lt "$eof" ] || fail "small directory read whole before its first unlink"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	cd ..
}

# On ext4 the subdirectories of every directory, however few, are opened in
# inode order (cold, each one's inode is a read; in order they share
# inode-table blocks), not in readdir's hash order; --sort=never keeps
# readdir's. One worker, so the opens are the order the tasks were taken.
subdir_open_order() { # ARGS...: the subdirectories' inodes, in the order adaptrm opened them
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=openat -o trace.txt "$ADAPTRM" -rf --threads=1 "$@" m/t >/dev/null 2>&1 ||
		fail "adaptrm failed"
	expect_gone m/t
	grep -o '"d[0-9]*"' trace.txt | tr -d '"' | while read -r d; do grep "^$d " inodes.txt | cut -d' ' -f2; done
}
test_subdirs_in_inode_order_on_ext4() {
	need_root
	command -v strace >/dev/null || skip "no strace"
	mount_fs ext4 m 256M || skip "cannot mount ext4"
	local i mode
	for mode in auto never; do
		mkdir m/t
		for i in $(shuf -i 1-300 --random-source=<(yes)); do mkdir "m/t/d$i"; touch "m/t/d$i/f"; done
		for i in m/t/d*; do printf '%s %s\n' "${i##*/}" "$(stat -c %i "$i")"; done >inodes.txt
		local order
		if [ $mode = auto ]; then order=$(subdir_open_order); else order=$(subdir_open_order --sort=never); fi
		expect_eq "$(echo "$order" | wc -l)" 300 "subdirectories opened ($mode)"
		if [ $mode = auto ]; then
			expect_eq "$order" "$(echo "$order" | sort -n)" "subdirectories not opened in inode order"
		else
			[ "$order" != "$(echo "$order" | sort -n)" ] || fail "--sort=never opened them in inode order too"
		fi
	done
}

# On xfs the engine reads the geometry once per operand, for the allocation
# group of each directory (its workers take their own groups' directories
# first), and deletes a tree spread over the groups completely with two
# workers; ADAPTRM_AG_ORDER=0 leaves the geometry unread.
test_xfs_ag_order() {
	need_root
	command -v strace >/dev/null || skip "no strace"
	mount_fs xfs m 1G || skip "cannot mount xfs"
	cd m || fail "cannot enter m"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	local env ags
	for env in "" 0; do
		make_tree t 40 20
		# xfs spreads new directories over its groups: the inode number's
		# top bits differ (agcount 4 at 1G).
		ags=$(find t -type d -printf '%i\n' | awk '{ print int($1 / 2^19) }' | sort -u | wc -l)
		[ "$ags" -ge 2 ] || fail "the directories are in $ags allocation group"
		# LeakSanitizer cannot run its check under a tracer.
		env ${env:+ADAPTRM_AG_ORDER=$env} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -e trace=ioctl -o trace.log "$ADAPTRM" -rf --threads=2 t ||
			{ cd .. && fail "adaptrm failed"; }
		expect_gone t
		if [ -z "$env" ]; then
			expect_eq "$(grep -c "_IOC(_IOC_READ, 0x58, 0x64, 0x70), .* = 0$" trace.log)" 1 \
				"the xfs geometry read once: $(grep 0x58 trace.log)"
		else
			expect_eq "$(grep -c "0x58, 0x64" trace.log)" 0 "geometry read with ADAPTRM_AG_ORDER=0"
		fi
		rm -f trace.log
	done
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	cd .. || fail "cannot leave m"
}

# A slice of slow unlinks (big files freeing their extents) hands half its
# rest to an idle worker. ADAPTRM_HEAVY_US=0 splits every slice at every
# look, idle workers or not, so no timing is involved. Each way the engine
# unlinks a directory (batched, as read, as read last-first) must remove
# every entry once and count the hand-offs in --stats.
heavy_case() { # VAR=VALUE...
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_flat t 300
	make_flat t/sub 50
	env ADAPTRM_HEAVY_US=0 "$@" "$ADAPTRM" -rfv --stats --threads=2 t >"$SCRATCH/out" 2>"$SCRATCH/err" ||
		{ cat "$SCRATCH/err" >&2; fail "adaptrm failed"; }
	expect_gone t
	expect_eq "$(grep -c '^removed ' "$SCRATCH/out")" 352 "-v lines"
	expect_eq "$(sort "$SCRATCH/out" | uniq -d | wc -l)" 0 "entries removed twice"
	grep -qE '^slow slices shared: [1-9]' "$SCRATCH/err" || fail "no slice shared in --stats"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
test_heavy_slices_shared_batched() { heavy_case ADAPTRM_DIR_SHARE=2; }
test_heavy_slices_shared_as_read() { heavy_case ADAPTRM_DIR_SHARE=1 ADAPTRM_REVERSE=0; }
test_heavy_slices_shared_as_read_last_first() { heavy_case ADAPTRM_DIR_SHARE=1 ADAPTRM_REVERSE=1; }

# A worker alone (one thread) hands a heavy slice's files of a MiB or more
# to the large-file lane instead; ADAPTRM_HEAVY_US=0 as above. tmpfs
# allocates what fallocate asks for.
test_heavy_slice_alone_goes_to_the_lane() {
	mount_fs tmpfs m 256M || skip "no tmpfs"
	make_sentinel m/keep; local before; before=$(sentinel_sum m/keep)
	make_flat m/t 40
	local i
	for i in 1 2 3 4 5 6 7 8; do fallocate -l 2M "m/t/big$i" || skip "fallocate failed"; done
	ADAPTRM_HEAVY_US=0 "$ADAPTRM" -rfv --stats --threads=1 m/t >"$SCRATCH/out" 2>"$SCRATCH/err" ||
		{ cat "$SCRATCH/err" >&2; fail "adaptrm failed"; }
	expect_gone m/t
	expect_eq "$(grep -c '^removed ' "$SCRATCH/out")" 49 "-v lines"
	grep -qE '^large files: [1-8] by the lane$' "$SCRATCH/err" || fail "no big file went to the lane"
	expect_eq "$(sentinel_sum m/keep)" "$before" "sentinel changed"
}
