# Large files: the lane, --free-rate's paced truncation, the space freed in
# --stats (docs/design.md#large-files-the-lane-and---free-rate). Huge files
# are fallocate'd: on ext4 they cost no real disk space. No timing is
# asserted: truncation steps are counted with strace.

# A fresh ext4 of 20G (sparse) holding the sentinel tree keep, entered;
# left again first at exit, so that its relative unmount finds it.
enter_big_ext4() {
	enter_ext4 fallocate 20G
	on_exit cd "$SCRATCH"
}

# strace -f of adaptrm ARGS..., its ftruncate calls in $SCRATCH/ftruncate.log;
# adaptrm's stderr in $SCRATCH/err, its stdout in $SCRATCH/out, its status in rc.
# (LeakSanitizer cannot run under ptrace.)
rc=0
traced() {
	command -v strace >/dev/null || skip "no strace"
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=ftruncate -o "$SCRATCH/ftruncate.log" \
		"$ADAPTRM" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
	cat "$SCRATCH/err" >&2
}
ftruncates() { grep -c 'ftruncate(' "$SCRATCH/ftruncate.log"; }

# A file of SIZE whose first MiB is random data (so a checksum tells
# whether it was truncated), the rest allocated.
make_huge() { # PATH SIZE
	head -c 1M /dev/urandom >"$1" && fallocate -l "$2" "$1"
}

test_large_lane_auto_default_mode_ext4() {
	enter_big_ext4
	local before; before=$(sentinel_sum keep)
	make_tree t 20 50
	mkdir -p t/big
	for i in 1 2 3; do fallocate -l 2G "t/big/h$i" || skip "fallocate failed"; done
	# The watchdog's auto lane, on from the start: no timing involved.
	rc=0
	ADAPTRM_LANE_WATCHDOG_MS=0 "$ADAPTRM" -rf -v --stats --explain t >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
	cat "$SCRATCH/err" >&2
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	grep -q '^large files: 3 by the lane (auto' "$SCRATCH/err" || fail "the lane's count in --stats"
	# one worker held by a huge file is not a count to learn (6a10327)
	grep -q "a huge file's unlink held a worker: count not learned" "$SCRATCH/err" ||
		fail "a worker count learned from a tree the lane ran in"
	for i in 1 2 3; do
		grep -qx "removed 't/big/h$i'" "$SCRATCH/out" || fail "-v does not list t/big/h$i"
	done
	expect_eq "$(grep -c '^removed ' "$SCRATCH/out")" $((20 * 50 + 3 + 20 + 2)) "-v lines"
	grep -qE '^freed: 6\.[0-9] GiB on .*/m \(ext4\)$' "$SCRATCH/err" ||
		fail "--stats does not show about 6 GiB freed"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_large_lane_off_by_default() {
	enter_big_ext4
	make_tree t 4 10
	fallocate -l 2G t/h || skip "fallocate failed"
	rc=0
	"$ADAPTRM" -rf --stats t 2>"$SCRATCH/err" || rc=$?
	cat "$SCRATCH/err" >&2
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	# ext4 frees a fallocate'd file at once: no unlink is long, no lane
	if grep -q '^large files:' "$SCRATCH/err"; then fail "the lane ran without being needed"; fi
	grep -qE '^freed: 2\.[0-9] GiB on ' "$SCRATCH/err" || fail "--stats: freed space"
}

test_large_free_rate_truncates_in_chunks_ext4() {
	enter_big_ext4
	local before; before=$(sentinel_sum keep)
	make_tree t 10 20
	fallocate -l 1G t/d1/h1 || skip "fallocate failed"
	fallocate -l 200M t/d2/h2
	fallocate -l 64M t/h3 # one chunk: the lane unlinks it, never truncated
	traced -rf --stats --free-rate=1T t
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	# 1 GiB: 16 chunks, the last goes with the unlink (15 steps); 200M: 3
	expect_eq "$(ftruncates)" 18 "ftruncate calls"
	grep -q "^large files: 3 by the lane$" "$SCRATCH/err" || fail "--stats: the lane's files"
	grep -q '^free rate: 1.0 TiB/s asked, .* held (18 truncations)$' "$SCRATCH/err" ||
		fail "--stats: the free rate line"
	grep -qE '^freed: 1\.[23] GiB on ' "$SCRATCH/err" || fail "--stats: freed space"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

test_large_free_rate_on_tmpfs() {
	mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
	make_tree m/t 10 20
	fallocate -l 130M m/t/d1/h || skip "fallocate failed"
	traced -rf --free-rate=4G/s --json=j.json m/t
	expect_eq "$rc" 0 "exit status"
	expect_gone m/t
	expect_eq "$(ftruncates)" 2 "ftruncate calls (130M: to 128M, to 64M)"
	# the JSON's lane object says the same (docs/json.md#lane)
	expect_eq "$(python3 -c 'import json,sys; l = json.load(open(sys.argv[1]))["lane"]
print(l["files"], l["truncations"], l["paced_bytes"], l["auto"])' j.json)" \
		"1 2 136314880 False" "the JSON's lane"
}

# The tree is gone, nothing was truncated, and keep-huge still sums to SUM.
expect_gone_kept() { # SUM WHAT
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	expect_eq "$(ftruncates)" 0 "ftruncate calls"
	expect_eq "$(md5sum <keep-huge)" "$1" "$2"
}

test_large_free_rate_hard_link_keeps_data() {
	enter_big_ext4
	make_huge keep-huge 512M || skip "fallocate failed"
	local sum; sum=$(md5sum <keep-huge)
	mkdir -p t/d; ln keep-huge t/d/link; touch t/d/f
	traced -rf --free-rate=1T t
	expect_gone_kept "$sum" "the other name's data changed"
}

test_large_free_rate_symlink_target_intact() {
	enter_big_ext4
	make_huge keep-huge 512M || skip "fallocate failed"
	local sum; sum=$(md5sum <keep-huge)
	mkdir -p t/d; ln -s ../../keep-huge t/d/link; ln -s "$PWD/keep-huge" t/abs
	traced -rf --free-rate=1T t
	expect_gone_kept "$sum" "the symlink's target changed"
}

test_large_free_rate_bind_mounted_file_not_truncated() {
	enter_big_ext4
	make_huge keep-huge 512M || skip "fallocate failed"
	local sum; sum=$(md5sum <keep-huge)
	mkdir -p t/d; touch t/d/x t/d/y
	mount --bind keep-huge t/d/x || skip "cannot bind-mount a file"
	on_exit umount -l "$PWD/t/d/x"
	traced -rf --free-rate=1T t
	expect_eq "$rc" 1 "exit status"
	grep -q "^adaptrm: cannot remove 't/d/x': Device or resource busy$" "$SCRATCH/err" ||
		fail "the mount point's failure is not reported"
	expect_eq "$(ftruncates)" 0 "ftruncate calls"
	expect_eq "$(md5sum <keep-huge)" "$sum" "the bind-mounted file changed"
	expect_gone t/d/y
}

# A writer keeps appending while the file is truncated: the steps are
# bounded, the file is unlinked, the run ends with status 0.
test_large_free_rate_growing_file_bounded() {
	enter_big_ext4
	mkdir -p t/d; touch t/d/f
	fallocate -l 1G t/d/grow || skip "fallocate failed"
	(
		exec 3>>t/d/grow
		while head -c 4M /dev/zero >&3; do sleep 0.01; done
	) &
	local writer=$!
	on_exit "kill $writer 2>/dev/null; wait $writer 2>/dev/null"
	traced -rf --free-rate=2G t
	kill "$writer"; wait "$writer" 2>/dev/null || true
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	local n; n=$(ftruncates)
	# the steps are the size at the lane's first look / 64 MiB, plus 16 at
	# most for what is appended after it; the writer adds up to 400 MiB/s,
	# so a slow run (ASan) first sees more than 1 GiB: 48 is bounded, a
	# follow without a bound would be hundreds
	if [ "$n" -lt 1 ] || [ "$n" -gt 48 ]; then fail "ftruncate calls: $n"; fi
}

test_large_free_rate_bad_values() {
	mkdir -p t; touch t/f
	local v out rc
	for v in 0 -1 12Q 99999T "" 2T 1.5G; do
		rc=0
		out=$("$ADAPTRM" -rf --free-rate="$v" t 2>&1) || rc=$?
		expect_eq "$rc" 1 "exit status for '$v'"
		expect_eq "$out" "adaptrm: invalid argument '$v' for '--free-rate'
Try '$ADAPTRM --help' for more information." "message for '$v'"
	done
	expect_exists t/f
}

test_large_stats_freed_on_tmpfs() {
	mount_fs tmpfs m 256M || skip "cannot mount tmpfs"
	mkdir -p m/t; head -c 32M /dev/zero >m/t/f
	local err
	err=$("$ADAPTRM" -rf --stats m/t 2>&1) || fail "adaptrm failed"
	grep -qE '^freed: 3[12]\.[0-9] MiB on .*/m \(tmpfs\)$' <<<"$err" || fail "freed: $err"
}

# Under a slow --free-rate the lane's queue fills and the workers that meet
# more huge files wait for room; others run in their place, so the rest of
# the tree goes on. SIGINT then stops the lane (queued files abandoned):
# status 130, the huge files left, no hang.
test_large_free_rate_rest_goes_on_and_stops() {
	mount_fs tmpfs m 2G || skip "cannot mount tmpfs"
	local d i
	for d in 1 2 3; do
		mkdir -p "m/t/big$d"
		for i in 1 2 3 4 5 6 7 8; do fallocate -l 65M "m/t/big$d/h$i" || skip "fallocate failed"; done
	done
	make_tree m/t/small 10 100
	"$ADAPTRM" -rf --free-rate=1M m/t 2>"$SCRATCH/err" &
	local pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	for ((i = 0; i < 600; i++)); do
		[ -e m/t/small ] || break
		sleep 0.1
	done
	expect_gone m/t/small
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	cat "$SCRATCH/err" >&2
	expect_eq "$rc" 130 "exit status after SIGINT"
	grep -q '^adaptrm: interrupted by SIGINT: removed ' "$SCRATCH/err" || fail "no interrupt message"
	[ "$(find m/t -type f | wc -l)" -ge 20 ] || fail "the huge files were not paced"
}

# A file operand is shrunk as the lane would shrink it; a hard-linked one
# and a symlink to a huge file are not.
test_large_free_rate_file_operand() {
	mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
	fallocate -l 200M m/big || skip "fallocate failed"
	make_huge m/shared 100M
	ln m/shared m/shared2
	ln -s big m/link
	local sum; sum=$(md5sum <m/shared2)
	traced --stats --free-rate=1T m/link m/shared m/big
	expect_eq "$rc" 0 "exit status"
	expect_gone m/big; expect_gone m/shared; expect_gone m/link
	# 200M: to 192M, 128M, 64M
	expect_eq "$(ftruncates)" 3 "ftruncate calls"
	expect_eq "$(md5sum <m/shared2)" "$sum" "the other name's data changed"
	grep -qE '^freed: 200\.0 MiB on .*/m \(tmpfs\)$' "$SCRATCH/err" || fail "--stats: freed space"
}
