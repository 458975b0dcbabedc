# SPDX-License-Identifier: GPL-3.0-or-later
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
	# A tree where a huge file's unlink held a worker says nothing about the
	# worker count, so the controller must not store one from it.
	grep -q "a huge file's unlink held a worker: count not learned" "$SCRATCH/err" ||
		fail "a worker count learned from a tree the lane ran in"
	for i in 1 2 3; do
		grep -qx "removed 't/big/h$i'" "$SCRATCH/out" || fail "-v does not list t/big/h$i"
	done
	expect_eq "$(grep -c '^removed ' "$SCRATCH/out")" $((20 * 50 + 3 + 20 + 2)) "-v lines"
	grep -qE '^free space: grew by 6\.[0-9] GiB on .*/m \(ext4\)$' "$SCRATCH/err" ||
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
	grep -qE '^free space: grew by 2\.[0-9] GiB on ' "$SCRATCH/err" || fail "--stats: freed space"
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
	grep -qE '^free space: grew by 1\.[23] GiB on ' "$SCRATCH/err" || fail "--stats: freed space"
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
	grep -q "^$ADAPTRM: cannot remove 't/d/x': Device or resource busy$" "$SCRATCH/err" ||
		fail "the mount point's failure is not reported"
	expect_eq "$(ftruncates)" 0 "ftruncate calls"
	expect_eq "$(md5sum <keep-huge)" "$sum" "the bind-mounted file changed"
	expect_gone t/d/y
}

# --free-rate never truncates what someone else can still reach
# (docs/design.md#what---free-rate-may-truncate). Each case runs on tmpfs and
# on ext4: $1 of these helpers is the directory to work in.
free_rate_fs() { # tmpfs|ext4: enter a fresh one
	if [ "$1" = ext4 ]; then
		enter_big_ext4
	else
		mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
		cd m || fail "cannot enter m"
		on_exit cd "$SCRATCH"
	fi
}

# A file another process has open (a reader, or a writer that keeps
# appending) is unlinked but never truncated: the holder keeps every byte,
# as it does with GNU rm.
free_rate_open_holder() { # FS < | >>
	free_rate_fs "$1"
	mkdir -p t/d; touch t/d/f
	make_huge t/d/big 256M || skip "fallocate failed"
	local sum; sum=$(md5sum <t/d/big)
	if [ "$2" = "<" ]; then
		exec 4<t/d/big
	else
		exec 4>>t/d/big
	fi
	on_exit exec 4>&-
	traced -rf --free-rate=1T t
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	expect_eq "$(ftruncates)" 0 "ftruncate calls"
	expect_eq "$(md5sum </proc/self/fd/4)" "$sum" "the open file's data changed"
	exec 4>&-
}
test_large_free_rate_open_reader_keeps_data_tmpfs() { free_rate_open_holder tmpfs "<"; }
test_large_free_rate_open_reader_keeps_data_ext4() { free_rate_open_holder ext4 "<"; }
test_large_free_rate_open_writer_keeps_data_tmpfs() { free_rate_open_holder tmpfs ">>"; }
test_large_free_rate_open_writer_keeps_data_ext4() { free_rate_open_holder ext4 ">>"; }

# A hard link made outside while the file is freed: the file keeps every
# byte at the new name, or the name was gone before the link could be made.
# The link is tried as soon as adaptrm has begun on the file (it shrank, or
# its name is gone), and again until adaptrm ends.
free_rate_link_meanwhile() { # FS
	free_rate_fs "$1"
	mkdir -p t/d out; touch t/d/f
	make_huge t/d/big 256M || skip "fallocate failed"
	local sum size; sum=$(md5sum <t/d/big); size=$(stat -c %s t/d/big)
	"$ADAPTRM" -rf --free-rate=64M t 2>"$SCRATCH/err" &
	local pid=$! linked=0
	on_exit "kill -9 $pid 2>/dev/null"
	while kill -0 "$pid" 2>/dev/null; do
		local now; now=$(stat -c %s t/d/big 2>/dev/null) || now=gone
		if [ "$now" != "$size" ]; then
			ln t/d/big out/big 2>/dev/null && linked=1
			[ $linked = 1 ] || [ "$now" = gone ] && break
		fi
		sleep 0.01
	done
	local rc=0
	wait "$pid" || rc=$?
	cat "$SCRATCH/err" >&2
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	if [ -e out/big ]; then
		expect_eq "$(stat -c %s out/big)" "$size" "the linked file's size"
		expect_eq "$(md5sum <out/big)" "$sum" "the linked file's data"
	fi
}
test_large_free_rate_link_meanwhile_tmpfs() { free_rate_link_meanwhile tmpfs; }
test_large_free_rate_link_meanwhile_ext4() { free_rate_link_meanwhile ext4; }

# Opened through /proc/PID/fd while adaptrm frees it (the only way left to
# reach an unlinked file): from that open on it never shrinks again, and it
# holds the original's first bytes.
free_rate_open_through_proc() { # FS
	free_rate_fs "$1"
	mkdir -p t/d; touch t/d/f
	head -c 256M /dev/urandom >orig
	cp orig t/d/big
	"$ADAPTRM" -rf --free-rate=32M t 2>"$SCRATCH/err" &
	local pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	local out
	out=$(python3 - "$pid" <<'PY'
import os, sys, time
pid = sys.argv[1]
fd = None
while fd is None:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        break
    try:
        for n in os.listdir(f"/proc/{pid}/fd"):
            if os.readlink(f"/proc/{pid}/fd/{n}").split(" (deleted)")[0].endswith("/t/d/big"):
                fd = os.open(f"/proc/{pid}/fd/{n}", os.O_RDONLY)
                break
    except OSError:
        pass
    time.sleep(0.005)
if fd is None:
    print("never-opened")
    sys.exit(0)
opened = os.fstat(fd).st_size
while True:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        break
    time.sleep(0.05)
print(opened, os.fstat(fd).st_size)
PY
	)
	local rc=0
	wait "$pid" || rc=$?
	cat "$SCRATCH/err" >&2
	expect_eq "$rc" 0 "exit status"
	expect_gone t
	[ "$out" != never-opened ] || fail "the held file was never seen in /proc/$pid/fd"
	local opened after
	read -r opened after <<<"$out"
	expect_eq "$after" "$opened" "the size after it was opened elsewhere"
}
test_large_free_rate_open_through_proc_tmpfs() { free_rate_open_through_proc tmpfs; }
test_large_free_rate_open_through_proc_ext4() { free_rate_open_through_proc ext4; }

test_large_free_rate_bad_values() {
	mkdir -p t; touch t/f
	local v out rc
	for v in 0 -1 12Q 99999T "" 2T 1.5G; do
		rc=0
		out=$(LC_ALL=C "$ADAPTRM" -rf --free-rate="$v" t 2>&1) || rc=$?
		expect_eq "$rc" 1 "exit status for '$v'"
		expect_eq "$out" "$ADAPTRM: invalid argument '$v' for '--free-rate'
Try '$ADAPTRM --help' for more information." "message for '$v'"
	done
	expect_exists t/f
}

test_large_stats_freed_on_tmpfs() {
	mount_fs tmpfs m 256M || skip "cannot mount tmpfs"
	mkdir -p m/t; head -c 32M /dev/zero >m/t/f
	local err
	err=$("$ADAPTRM" -rf --stats m/t 2>&1) || fail "adaptrm failed"
	grep -qE '^free space: grew by 3[12]\.[0-9] MiB on .*/m \(tmpfs\)$' <<<"$err" || fail "freed: $err"
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
	grep -q "^$ADAPTRM: interrupted by SIGINT: removed " "$SCRATCH/err" || fail "no interrupt message"
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
	grep -qE '^free space: grew by 200\.0 MiB on .*/m \(tmpfs\)$' "$SCRATCH/err" || fail "--stats: freed space"
}

# The free space --stats shows is the filesystem's, and another writer's
# blocks count in it: it is worded as the free space's growth, never as what
# the delete freed, and never below zero. -i orders the steps without any
# timing: the writer writes between the answers for the two operands (8 MiB
# deleted in all), after the free space was first read.
test_large_stats_free_space_with_another_writer() {
	mount_fs tmpfs m 256M || skip "cannot mount tmpfs"
	local mb
	for mb in 2 32; do
		head -c 4M /dev/zero >m/a; head -c 4M /dev/zero >m/b
		rm -f in err; mkfifo in
		LC_ALL=C "$ADAPTRM" -i --stats m/a m/b <in 2>err &
		local pid=$!
		exec 3>in
		echo y >&3
		until grep -q "m/b'?" err; do sleep 0.05; done
		head -c "${mb}M" /dev/zero >>m/w
		echo y >&3
		exec 3>&-
		wait "$pid" || fail "adaptrm failed: $(cat err)"
		expect_gone m/a; expect_gone m/b
		grep -q 'freed' err && fail "a figure called freed: $(cat err)"
		case $mb in
		2) grep -qE '^free space: grew by 6\.0 MiB on .*/m \(tmpfs\)$' err ||
			fail "not the filesystem's growth: $(cat err)" ;;
		32) grep -qE '^free space: did not grow on .*/m \(tmpfs\)$' err ||
			fail "not 'did not grow': $(cat err)" ;;
		esac
		rm -f m/w
	done
}
