# SPDX-License-Identifier: GPL-3.0-or-later
# Operand safety and races: nothing outside the operands may change.

test_symlink_operand_removes_only_link() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	ln -s keep link; ln -s keep/ link2
	"$ADAPTRM" -rf link
	expect_gone link
	expect_eq "$(sentinel_sum keep)" "$before" "symlink target changed"
	# "link2/" names the directory behind it (GNU rm follows a trailing slash);
	# a plain symlink operand never does.
	rm -f link2
}

test_dot_dotdot_refused() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir -p d/sub; touch d/sub/f
	local err rc=0
	err=$(cd d/sub && "$ADAPTRM" -rf . .. 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: refusing to remove '.' or '..' directory: skipping '.'
$ADAPTRM: refusing to remove '.' or '..' directory: skipping '..'"
	rc=0; err=$("$ADAPTRM" -rf d/sub/.. 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status for d/sub/.."
	expect_exists d/sub/f
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# Operands that resolve to / must be refused. Run in a private mount namespace
# where / is read-only, so that a bug cannot delete the machine.
test_root_refused() {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	ln -s / rootlink
	local out
	# shellcheck disable=SC2016 # the script expands its variables itself
	out=$(unshare -m --propagation private bash -c '
		set -u
		mount -o remount,bind,ro / 2>/dev/null || mount -o remount,ro / || { echo NORO; exit 0; }
		touch /adaptrm-ro-probe 2>/dev/null && { rm -f /adaptrm-ro-probe; echo NORO; exit 0; }
		for op in / // /. rootlink/ rootlink/. ; do
			rc=0; msg=$("$0" -rf "$op" 2>&1) || rc=$?
			printf "%s|%s|%s\n" "$op" "$rc" "$msg"
		done' "$ADAPTRM")
	case $out in NORO*) skip "cannot make / read-only in a mount namespace" ;; esac
	echo "$out"
	# Every operand is refused (exit 1, a message); / and // with GNU's words.
	local n; n=$(grep -c "^[^|]*|1|$ADAPTRM: " <<<"$out")
	expect_eq "$n" 5 "every / operand refused"
	grep -q "^/|1|$ADAPTRM: it is dangerous to operate recursively on '/'" <<<"$out" || fail "/ message"
	grep -q "^//|1|$ADAPTRM: it is dangerous to operate recursively on '//' (same as '/')" <<<"$out" || fail "// message"
	expect_exists rootlink
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# '/' is named '/' to the kernel, not '.': its rmdir fails as GNU's does
# (EBUSY at the end of --no-preserve-root -r, "Device or resource busy",
# where '.' gave EINVAL). Shown with -d, which deletes nothing (the root is
# never empty): GNU's -d looks first and says "Directory not empty", and so
# does adaptrm. In the read-only namespace, so that a bug cannot delete.
test_root_rmdir_message() {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	local out
	# shellcheck disable=SC2016 # the script expands its variables itself
	out=$(unshare -m --propagation private bash -c '
		set -u
		mount -o remount,bind,ro / 2>/dev/null || mount -o remount,ro / || { echo NORO; exit 0; }
		touch /adaptrm-ro-probe 2>/dev/null && { rm -f /adaptrm-ro-probe; echo NORO; exit 0; }
		for a in -d "-d --no-preserve-root"; do
			rc=0; msg=$(LC_ALL=C "$0" $a / 2>&1) || rc=$?
			printf "%s|%s|%s\n" "$a" "$rc" "$msg"
		done' "$ADAPTRM")
	case $out in NORO*) skip "cannot make / read-only in a mount namespace" ;; esac
	expect_eq "$out" "-d|1|$ADAPTRM: cannot remove '/': Directory not empty
-d --no-preserve-root|1|$ADAPTRM: cannot remove '/': Directory not empty" "-d /"
}

test_one_file_system_skips_mount() {
	need_root
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mkdir -p t/a/mnt t/b; touch t/a/f t/b/f
	mount_fs tmpfs t/a/mnt 16M
	mkdir t/a/mnt/inner; echo data >t/a/mnt/inner/file
	local err rc=0
	err=$("$ADAPTRM" -rf --one-file-system t 2>&1) || rc=$?
	expect_eq "$rc" 1 "exit status"
	expect_eq "$err" "$ADAPTRM: skipping 't/a/mnt', since it's on a different device"
	expect_eq "$(cat t/a/mnt/inner/file)" data "mount contents"
	expect_gone t/b; expect_gone t/a/f
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# A process keeps swapping directories inside the tree with a directory
# outside it while we delete: whatever happens, the outside tree and the
# sentinel must survive intact (each swap is undone, so "out" stays whole
# only if the engine never deleted through a moved directory).
test_rename_race_parallel() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	local round
	for round in 1 2 3; do
		rm -rf t out; make_tree t 200 50
		mkdir -p out/victim; make_flat out/victim 200
		local obefore; obefore=$(sentinel_sum out)
		python3 - t out/victim <<'PY' &
import os, sys, time, ctypes
libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE = 2
t, victim = sys.argv[1], sys.argv[2]
end = time.time() + 20
i = 0
while time.time() < end and os.path.isdir(t):
    d = os.path.join(t, "d%d" % (1 + i % 200)); i += 1
    # swap in the outside directory for a moment, then swap it back
    if libc.renameat2(-100, d.encode(), -100, victim.encode(), RENAME_EXCHANGE) == 0:
        libc.renameat2(-100, d.encode(), -100, victim.encode(), RENAME_EXCHANGE)
PY
		local pid=$!
		timeout 120 "$ADAPTRM" -rf --threads=4 t 2>/dev/null || true
		wait $pid || true
		# a swap can be cut between its two halves by our rmdir: put it back
		[ -d out/victim ] || fail "outside directory vanished (round $round)"
		# shellcheck disable=SC2012 # counting f1..f200, plain names
		[ "$(ls out/victim | wc -l)" = 200 ] || [ "$(sentinel_sum out)" = "$obefore" ] ||
			fail "outside directory changed (round $round): $(ls out/victim | head -3)"
		expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	done
}

# A process keeps creating files in the tree: the delete must end, either
# with everything removed or with "Directory not empty" and exit 1.
test_concurrent_creator_parallel() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_tree t 100 200
	( i=0; while [ -d t/d7 ] || [ -d t/d50 ]; do i=$((i+1)); touch t/d7/new$i t/d50/new$i t/new$i 2>/dev/null || true; [ $i -gt 200000 ] && break; done ) &
	local pid=$! rc=0 err
	err=$(timeout 120 "$ADAPTRM" -rf t 2>&1) || rc=$?
	kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
	[ $rc = 124 ] && fail "adaptrm hung (killed by timeout)"
	if [ $rc = 0 ]; then
		[ -z "$err" ] || fail "exit 0 with messages: $err"
		expect_gone t
	else
		expect_eq "$rc" 1 "exit status (messages: $err)"
		grep -q "Directory not empty" <<<"$err" || fail "unexpected error: $err"
	fi
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# signal_case SIG CODE: interrupt a delete mid-way, expect exit CODE and the
# message. The tree sits on slowfs (1 ms per operation), so the delete lasts
# seconds whatever the machine's load, and the signal is sent only once
# adaptrm has installed its handler and removed something: never a race.
handler_installed() { # PID SIGNUM
	local mask
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$mask" ] && (( (16#$mask >> ($2 - 1)) & 1 ))
}
signal_case() {
	local sig=$1 code=$2 signum
	signum=$(kill -l "$sig")
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	mount_slowfs mnt 1000
	make_tree "$SLOWFS_BACKING/t" 20 100
	local total; total=$(find "$SLOWFS_BACKING/t" | wc -l)
	"$ADAPTRM" -rf --threads=2 mnt/t 2>err &
	local pid=$! i
	for ((i = 0; i < 600; i++)); do
		handler_installed $pid "$signum" &&
			[ "$(find "$SLOWFS_BACKING/t" | wc -l)" -lt "$total" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	kill -"$sig" $pid || fail "adaptrm was gone before the signal"
	local rc=0; wait $pid || rc=$?
	expect_eq "$rc" "$code" "exit status after SIG$sig"
	grep -q "^$ADAPTRM: interrupted by SIG$sig: removed [0-9]* files" err ||
		fail "no interruption message: $(cat err)"
	[ -d "$SLOWFS_BACKING/t" ] || fail "the whole tree went despite the signal"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	# whatever is left is still a consistent tree that can be deleted
	"$ADAPTRM" -rf --threads=8 mnt/t; expect_gone mnt/t; expect_gone "$SLOWFS_BACKING/t"
}
test_sigint_parallel() { signal_case INT 130; }
test_sigterm_parallel() { signal_case TERM 143; }
