# SPDX-License-Identifier: GPL-3.0-or-later
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

# slowfs_clients N DELAY_US [OPTION]...: one slowfs daemon mounting a fresh
# backing directory ($SLOWFS_BACKING) at mnt.0 .. mnt.N-1, as N client nodes
# of one metadata server; unmounted, and the daemon stopped, at exit.
# SLOWFS_PID is the daemon.
slowfs_clients() {
	local n=$1 delay=$2 bin=${TOOLS:-}/slowfs
	shift 2
	need_root
	[ -x "$bin" ] || skip "slowfs is not built (make tools)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "no fusermount3"
	SLOWFS_BACKING=$(mktemp -d "$SCRATCH/slowfs-backing.XXXXXX") || return 1
	fs_slowfs_start_clients "$bin" "$delay" "$SLOWFS_BACKING" "$SCRATCH/mnt" "$n" "$@"
	SLOWFS_PID=$FS_SLOWFS_PID
	on_exit "fs_slowfs_stop $SLOWFS_PID $(printf '%q ' "${FS_SLOWFS_MOUNTS[@]}")"
	fs_slowfs_wait "${FS_SLOWFS_MOUNTS[@]}"
}

# The largest value of the log's column NAME (header line first, a summary
# line starting with '#' last).
log_max() { # FILE NAME
	awk -F'\t' -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		/^#/ { next } { if ($c > m) m = $c } END { print m + 0 }' "$1"
}

# Two mounts from one daemon: the same inode numbers through both, and a tree
# listed through mount 0 then deleted through mount 1 is gone through mount 0
# at once (the daemon invalidates the other mounts' cached attributes) and
# from the backing directory.
test_slowfs_two_mounts() {
	slowfs_clients 2 100 --server-slots=0 --client-cap=0
	make_sentinel "$SLOWFS_BACKING/keep"; local before; before=$(sentinel_sum mnt.0/keep)
	make_tree "$SLOWFS_BACKING/t" 16 50
	mkdir -p "$SLOWFS_BACKING/t/d3/x/y"
	local p
	for p in t t/d3 t/d3/x/y t/d1/f1; do
		expect_eq "$(stat -c %i "mnt.1/$p")" "$(stat -c %i "mnt.0/$p")" "inode of $p through the two mounts"
		expect_eq "$(stat -c %i "mnt.0/$p")" "$(stat -c %i "$SLOWFS_BACKING/$p")" "inode of $p through mount and backing"
	done
	expect_eq "$(find mnt.0/t | wc -l)" $((1 + 16 + 800 + 2)) "listing through mount 0"
	"$ADAPTRM" -rf mnt.1/t
	expect_gone mnt.0/t/d3/x/y
	expect_gone mnt.0/t/d1/f1
	expect_gone mnt.0/t
	expect_gone mnt.1/t
	expect_gone "$SLOWFS_BACKING/t"
	expect_eq "$(sentinel_sum mnt.0/keep)" "$before" "sentinel changed (mount 0)"
	expect_eq "$(sentinel_sum mnt.1/keep)" "$before" "sentinel changed (mount 1)"
}

# The server model's limits, from its own log: three clients deleting in
# parallel (8 threads each) never have more than 2 requests in service, nor
# more than 1 of one mount in flight, nor more than 3 x 1 - 2 waiting. Then
# unmounting every mount ends the daemon, which writes its summary line.
test_slowfs_server_slots_log() {
	local log=$SCRATCH/server.tsv
	slowfs_clients 3 200 --server-slots=2 --client-cap=1 --log="$log" --log-interval-ms=20
	local i pids=()
	for i in 0 1 2; do make_tree "$SLOWFS_BACKING/t$i" 10 30; done
	for i in 0 1 2; do
		"$ADAPTRM" -rf --threads=8 "mnt.$i/t$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || fail "adaptrm failed"; done
	for i in 0 1 2; do expect_gone "$SLOWFS_BACKING/t$i"; done
	for i in 0 1 2; do fusermount3 -u "mnt.$i" || fail "cannot unmount mnt.$i"; done
	for ((i = 0; i < 200; i++)); do kill -0 "$SLOWFS_PID" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$SLOWFS_PID" 2>/dev/null && fail "the daemon outlived its mounts"
	head -1 "$log" | grep -q '^t_s	queued	queued_max	in_service	in_service_max	inflight_max	client_queued	client_queued_max	unlink	rmdir' ||
		fail "no header line: $(head -1 "$log")"
	local rows; rows=$(grep -vc '^[t#]' "$log")
	[ "$rows" -ge 1 ] || fail "no rows in the log"
	expect_eq "$(awk -F'\t' 'NR > 1 && !/^#/ { n += $9 } END { print n }' "$log")" $((3 * 300)) "unlinks counted"
	local m
	m=$(log_max "$log" in_service_max); [ "$m" -le 2 ] || fail "$m requests in service (2 slots)"
	[ "$m" -ge 1 ] || fail "nothing in service"
	m=$(log_max "$log" inflight_max); [ "$m" -le 1 ] || fail "$m requests of one mount in flight (cap 1)"
	m=$(log_max "$log" queued_max); [ "$m" -le 1 ] || fail "$m requests queued (3 clients x 1 - 2 slots)"
	tail -1 "$log" | grep -Eq '^# max_queued=[01] max_in_service=[12] max_inflight=1 requests=[0-9]+$' ||
		fail "no summary line: $(tail -1 "$log")"
}

# Bad values of slowfs's options are usage errors (exit 2, GNU-style); 0
# slots or no cap means no limit and is accepted (test_slowfs_two_mounts).
test_slowfs_usage_errors() {
	local bin=${TOOLS:-}/slowfs
	[ -x "$bin" ] || skip "slowfs is not built (make tools)"
	mkdir -p b m
	local opt rc
	for opt in --server-slots=-1 --server-slots=abc --server-slots= --client-cap=-3 \
		--client-cap=7x --delay-us=1.5 --readdir-us=-1 --log-interval-ms=0 --server-slots \
		--mount=; do
		rc=0
		"$bin" "$opt" b m -f </dev/null >out 2>err || rc=$?
		expect_eq "$rc" 2 "exit status of $opt"
		grep -q "^slowfs: .*" err || fail "no message for $opt: $(cat err)"
		grep -qx "Try 'slowfs --help' for more information." err || fail "no hint for $opt: $(cat err)"
		if grep -qs " $PWD/m fuse" /proc/self/mounts; then fusermount3 -u m; fail "$opt mounted"; fi
	done
	grep -q "slowfs: invalid --client-cap value: '-3'" <("$bin" --client-cap=-3 b m 2>&1) ||
		fail "message for --client-cap=-3"
}

# A file whose unlink takes seconds (a huge file on a cold disk) must not
# hold up the rest of the tree: the read that found it gives its
# subdirectories to the other worker before unlinking any of its files, so
# files inside them go while the slow unlink runs, instead of waiting
# unpublished in the reader's buffer until its slow unlink returns.
test_slowfs_slow_unlink_does_not_hold_the_subdirectories() {
	mount_slowfs smnt 0 --slow-unlink=huge --slow-unlink-us=3000000
	mkdir "$SLOWFS_BACKING/t"
	: >"$SLOWFS_BACKING/t/huge"
	make_tree "$SLOWFS_BACKING/t" 10 20
	"$ADAPTRM" -rfv --threads=2 smnt/t >out 2>err || fail "adaptrm failed: $(cat err)"
	expect_gone "$SLOWFS_BACKING/t"
	local huge first
	huge=$(grep -n "^removed 'smnt/t/huge'$" out | cut -d: -f1)
	first=$(grep -n "^removed 'smnt/t/d[0-9]*/f[0-9]*'$" out | head -1 | cut -d: -f1)
	if [ -z "$huge" ] || [ -z "$first" ]; then fail "missing lines: $(head -5 out)"; fi
	[ "$first" -lt "$huge" ] || fail "no file in a subdirectory went during the slow unlink (first at line $first, huge at $huge)"
}

# A cold cache: an xfs image whose every read goes through slowfs (a slow
# disk). Last-first order pays on xfs warm, and walks a cold disk backwards
# against every readahead below; the first directory reads wait, and from
# then on entries go in readdir order: the first subdirectory removed is
# the first one read (last-first, d30 would be), and --json says so.
test_slowfs_cold_xfs_goes_in_readdir_order() {
	need_root
	command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs"
	mount_slowfs smnt 1000 -o max_threads=64
	local img=$SLOWFS_BACKING/fs.img
	fs_make_image xfs "$img" 300M || skip "cannot make an xfs image"
	mkdir -p m
	fs_loop_attach "$img" off || skip "cannot attach a loop device"
	on_exit losetup -d "$FS_LOOP"
	mount "$FS_LOOP" m || fail "cannot mount xfs"
	on_exit umount -l "$PWD/m"
	make_tree m/t 30 3
	umount m || fail "cannot unmount the fast view"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fs_loop_attach smnt/fs.img off || fail "cannot attach the image through slowfs"
	on_exit losetup -d "$FS_LOOP"
	mount "$FS_LOOP" m || fail "cannot mount the slow view"
	on_exit umount -l "$PWD/m"
	"$ADAPTRM" -rfv --threads=1 --json=j.json m/t >out 2>err || fail "adaptrm failed: $(cat err)"
	expect_gone m/t
	local first
	first=$(grep -m1 "^removed directory 'm/t/d[0-9]*'$" out)
	expect_eq "$first" "removed directory 'm/t/d1'" "not in readdir order cold"
	python3 -c 'import json,sys; c=json.load(open("j.json"))["cold"]; sys.exit(0 if c["detected"] and c["reads_waited"] >= 0 else 1)' ||
		fail "--json does not say cold: $(grep -o '"cold": {[^}]*}' j.json)"
}
