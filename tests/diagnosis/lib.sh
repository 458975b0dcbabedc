# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers for the diagnosis scenarios (sourced after tests/e2e/lib.sh, which
# gives fail, skip, on_exit, mount_fs, make_flat, make_tree, fs_*).
#
# A scenario builds a slow delete whose cause is known, traces it with
# `adaptrm --trace --json`, and asserts on the verdict (`findings[]`, ranked
# by share): the top finding(s), that the shares add up to the whole, and
# that the top finding's text names the remedy (expect_text).
#
# The cause is built as a kernel engineer would build it (a cgroup limit, a
# mount option, a cold cache, a slow or throttled device, another process's
# fsyncs...), never by reading what the verdict says, and each scenario
# checks it with an anchor that does not depend on adaptrm (cpu.stat
# nr_throttled, memory.failcnt, the loop device's /sys/block stat, jbd2 and
# btrfs commit counts, slowfs's log, rusage, sampled /proc/PID/wchan): when
# the anchor misses, the scenario fails with "set-up did not produce the
# cause" (setup_failed) and the verdict is not blamed. skip is only for a
# missing tool or kernel feature.
#
# The files, by area: test_cpu.sh (waiting for a CPU, the filesystem's own
# CPU, the deleter's user code), test_cgroups.sh (cpu and memory limits),
# test_block.sh (a throttled or slow device), test_ext4_reads.sh (cold
# deletes dominated by one kind of metadata read; extent freeing),
# test_ext4_journal.sh, test_discard.sh, test_writeback.sh, test_xfs.sh,
# test_btrfs.sh, test_fuse.sh, test_overlay.sh, test_wrapper.sh (a script or
# shell waiting for its deleting child), test_tracer.sh (strace -f on the
# delete), test_pid.sh (-p on a
# process that deletes nothing).

# The text report keeps each sentence on one line for the checks that grep
# it (it wraps at COLUMNS, else 100 columns off a terminal).
export COLUMNS=1000

need_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v jq >/dev/null || skip "needs jq"
	local err
	if ! err=$("$ADAPTRM" --trace -- true 2>&1 >/dev/null); then
		[ "${ADAPTRM_REQUIRE_BPF:-0}" = 1 ] && fail "BPF required but --trace cannot run: $err"
		skip "BPF probes unavailable: $err"
	fi
}

# The verdict checks below (expect_top, expect_absent, expect_present,
# expect_shares_sum) do not stop at the first miss: each prints what it
# found, and verdict_ok fails the scenario if any missed, so one run shows
# everything a verdict gets wrong.
DIAG_MISSES=0
miss() { echo "FAIL: $*" >&2; DIAG_MISSES=$((DIAG_MISSES + 1)); }
verdict_ok() { [ "$DIAG_MISSES" = 0 ] || fail "$DIAG_MISSES verdict check(s) missed"; }

# The filesystem's own CPU cost ("Baseline"; kernel_cpu in the verdict's
# partition, syscall_cost its former name): present in nearly every
# verdict, and nothing can be done about it, so "the top finding" of a scenario whose
# cause is a wait means the first finding that is not one of these.
BASELINE_IDS="kernel_cpu syscall_cost"
# Other load on the machine (cpu_contention) is reported, but it is never
# the cause a scenario sets up, except in the CPU scenarios, which rank it:
# beside unrelated load an I/O scenario keeps its own cause on top.
IGNORED_IDS="$BASELINE_IDS cpu_contention"

# verdict JSON: "id share, id share, ..." in rank order (for messages)
verdict() {
	jq -r '[.findings[] | "\(.id) \(.share * 1000 | round / 10)%\(if .explains then " (explains \(.explains))" else "" end)"] | join(", ")' "$1"
}

# Print the verdict for the runner (it echoes VERDICT lines of passing
# scenarios too).
show_verdict() {
	echo "VERDICT: $(verdict "$1")  [sum $(share_sum "$1"), wall $(jq -r '.wall_ns / 1e7 | round / 100' "$1") s]" >&2
}

share_sum() { jq -r '[.findings[] | select(has("explains") | not) | .share] | add // 0 | . * 1000 | round / 1000' "$1"; }

# first_id JSON [IGNORED_IDS]: the top-ranked finding's id in the verdict's
# rank order (by share, but other load that is context and the deleter's
# own kernel CPU after the causes), skipping IGNORED_IDS (what is not a
# cause, idle_waits, is never the top)
first_id() {
	jq -r --arg skip " ${2:-} " '[.findings[] | select(.cause != false)
		| select(has("explains") | not)
		| select(.id as $id | $skip | contains(" " + $id + " ") | not)]
		| .[0].id // "none"' "$1"
}

# expect_top JSON "ALLOWED IDS" [IGNORED_IDS]: the top finding (skipping
# IGNORED_IDS, by default the baseline) is one of ALLOWED IDS
expect_top() {
	local top
	top=$(first_id "$1" "${3-$IGNORED_IDS}")
	case " $2 " in
	*" $top "*) ;;
	*) miss "top finding is '$top', expected one of: $2 -- verdict: $(verdict "$1")" ;;
	esac
}

# expect_any JSON "IDS": at least one of IDS is in the verdict
expect_any() {
	jq -e --arg ids " $2 " '[.findings[] | select(.id as $id | $ids | contains(" " + $id + " "))] | length > 0' \
		"$1" >/dev/null || miss "none of $2 in the verdict: $(verdict "$1")"
}

# expect_absent JSON ID...: none of these findings is in the verdict
expect_absent() {
	local j=$1 id
	shift
	for id in "$@"; do
		if jq -e --arg id "$id" '.findings[] | select(.id == $id)' "$j" >/dev/null; then
			miss "finding '$id' should not be in the verdict: $(verdict "$j")"
		fi
	done
}

# expect_present JSON ID...: each of these findings is in the verdict
expect_present() {
	local j=$1 id
	shift
	for id in "$@"; do
		jq -e --arg id "$id" '.findings[] | select(.id == $id)' "$j" >/dev/null ||
			miss "finding '$id' missing from the verdict: $(verdict "$j")"
	done
}

# expect_text JSON ID REGEX: the finding ID is in the verdict and its text
# matches the extended regular expression REGEX (it names the remedy: the
# cgroup and its limit, the mount option, the device...)
expect_text() {
	local j=$1 id=$2 re=$3 text
	text=$(jq -r --arg id "$id" '[.findings[] | select(.id == $id) | .text] | first // empty' "$j")
	if [ -z "$text" ]; then
		miss "no finding '$id' whose text should match /$re/: $(verdict "$j")"
	elif ! grep -qE -- "$re" <<<"$text"; then
		miss "finding '$id' does not match /$re/: $text"
	fi
}

# setup_failed WHAT: the anchor (a check that does not use adaptrm) says
# the cause was not there, so the verdict is not to blame
setup_failed() { fail "set-up did not produce the cause: $*"; }

# expect_shares_sum JSON: the verdict's shares sum to 100% (+-1%).
# The verdict's contract (a verdict that adds up): the findings that are parts
# of the traced threads' busy time (kernel CPU, each lock type, each class of
# wait site, run-queue delay, ...) partition it, so their shares sum to 1;
# a finding that only explains a part (it carries `explains: ID`, e.g.
# scattered_inode_order explaining journal_commit_waits) repeats that part's
# share and is left out of the sum. `verdict_total_share` states the sum;
# where it is missing (binaries before it), the parts' shares are summed,
# which under the planned partition is the same number. Both must be 1.
expect_shares_sum() {
	local j=$1 sum total
	sum=$(jq -r '[.findings[] | select(has("explains") | not) | .share] | add // 0' "$j")
	total=$(jq -r --argjson s "$sum" '.verdict_total_share // $s' "$j")
	awk -v t="$total" 'BEGIN { exit !(t >= 0.99 && t <= 1.01) }' ||
		miss "verdict_total_share is $total, not 1 (+-0.01): $(verdict "$j")"
	awk -v s="$sum" 'BEGIN { exit !(s >= 0.99 && s <= 1.01) }' ||
		miss "the parts' shares sum to $sum, not 1 (+-0.01): $(verdict "$j")"
}

# mount_img TYPE DIR SIZE "MKFS_OPTIONS" [MOUNT_OPTIONS]: a fresh TYPE
# filesystem at DIR on a loop device with direct I/O (the image is not
# cached twice, so a remount makes it cold); DIAG_LOOP, DIAG_IMG and
# DIAG_MNTOPT are left set. Unmounted, detached and removed at exit.
mount_img() {
	local type=$1 dir=$2 size=$3 mkfsopt=${4:-} mntopt=${5:-}
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	DIAG_IMG=$(mktemp -p "${FSIMG_DIR:-/var/tmp}" "adaptrm-diag-$type.XXXXXX.img") || return 1
	on_exit rm -f "$DIAG_IMG"
	# shellcheck disable=SC2086 # options are words
	fs_make_image "$type" "$DIAG_IMG" "$size" $mkfsopt || return 1
	DIAG_LOOP=$(losetup --direct-io=on -f --show "$DIAG_IMG") || return 1
	on_exit losetup -d "$DIAG_LOOP"
	DIAG_MNTOPT=$mntopt
	mount ${mntopt:+-o "$mntopt"} "$DIAG_LOOP" "$dir" || return 1
	on_exit umount -l "$dir"
}

# trace_flat_delete TYPE N BIG_N ARG...: a flat directory m/d of N files
# (BIG_N under DIAG_FULL) on a fresh 2G TYPE filesystem, deleted by
# `adaptrm --trace --json t.json ARG... m/d` (the report in report.txt);
# then m/d must be gone and the verdict's shares must add up. The caller
# asserts on t.json's findings and ends with verdict_ok. DIAG_NICE, if set,
# is the delete's nice value.
trace_flat_delete() {
	local type=$1 n=$2
	big && n=$3
	shift 3
	mount_img "$type" m 2G || skip "cannot mount $type"
	make_flat m/d "$n"
	sync
	nice -n "${DIAG_NICE:-0}" "$ADAPTRM" --trace --json t.json "$@" m/d >report.txt ||
		fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	expect_shares_sum t.json
}

# make_cold DIR: unmount the filesystem at DIR and mount it again from
# DIAG_LOOP, then drop caches: drop_caches alone leaves the blocks cached
# (machine.md), the remount makes the delete read from the device.
make_cold() {
	sync
	umount "$1" || fail "cannot unmount $1"
	mount ${DIAG_MNTOPT:+-o "$DIAG_MNTOPT"} "$DIAG_LOOP" "$1" || fail "cannot mount $1 again"
	echo 3 >/proc/sys/vm/drop_caches
}

# v1_group CONTROLLER NAME: a cgroup v1 group of CONTROLLER, its path left
# in DIAG_CG; at exit the tasks still in it move to the root group and it
# is removed (a group with tasks cannot be).
v1_group() {
	local root=/sys/fs/cgroup/$1
	[ -w "$root/cgroup.procs" ] || skip "no cgroup v1 $1 controller"
	DIAG_CG=$root/adaptrm-diag-$$-$2
	mkdir "$DIAG_CG" || skip "cannot create a $1 cgroup"
	on_exit "v1_group_remove $DIAG_CG"
}
v1_group_remove() {
	local p
	while read -r p; do echo "$p" >"$(dirname "$1")/cgroup.procs"; done <"$1/cgroup.procs"
	rmdir "$1"
}

# blkio_group NAME: a cgroup v1 blkio group (v1_group)
blkio_group() { v1_group blkio "$1"; }

# in_group CMD...: run CMD inside DIAG_CG
in_group() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$DIAG_CG" "$@"
}

# dev_of LOOP: MAJ:MIN of a block device
dev_of() { cat "/sys/class/block/$(basename "$1")/dev"; }

# start_hogs N: N busy loops, pinned round-robin over the online CPUs,
# killed by pid at exit
start_hogs() {
	local n=$1 i cpus pid
	cpus=$(nproc)
	for ((i = 0; i < n; i++)); do
		taskset -c $((i % cpus)) sh -c 'while :; do :; done' &
		pid=$!
		on_exit "kill $pid; wait $pid"
	done
}

# big: DIAG_FULL=1 (or E2E_BIG=1) picks the larger variant
big() { [ "${DIAG_FULL:-0}" = 1 ] || [ "${E2E_BIG:-0}" = 1 ]; }

# trace_pid JSON PID [DIR]: start `adaptrm --trace --json JSON -p PID` in
# the background from DIR (default: here; JSON then wants an absolute
# path) and return once it says it is attached; DIAG_TRACER is its pid,
# trace_wait waits for it (it stops when PID and its descendants exit).
trace_pid() {
	local j=$1 pid=$2 dir=${3:-.} i
	(cd "$dir" && exec "$ADAPTRM" --trace --json "$j" -p "$pid") >report.txt 2>tracer.err &
	DIAG_TRACER=$!
	on_exit "kill $DIAG_TRACER"
	for i in $(seq 100); do
		grep -q "tracing pid" tracer.err && return 0
		kill -0 "$DIAG_TRACER" 2>/dev/null || break
		sleep 0.1
	done
	fail "the tracer did not attach (after $i tries): $(cat tracer.err)"
}
trace_wait() {
	timeout 300 tail --pid="$DIAG_TRACER" -f /dev/null || fail "the tracer did not stop"
	wait "$DIAG_TRACER" || fail "trace failed: $(cat tracer.err)"
}

# rusage OUT CMD...: run CMD, then write to OUT what the kernel accounted
# to it and its waited-for children: "wall utime stime nvcsw nivcsw"
# (seconds, context switches), an anchor that does not depend on adaptrm.
# As a command to trace: "$ADAPTRM" --trace -- python3 -c "$RUSAGE_PY" OUT CMD...
RUSAGE_PY='
import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, st, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write("%.3f %.3f %.3f %d %d\n" % (time.monotonic() - t, ru.ru_utime, ru.ru_stime, ru.ru_nvcsw, ru.ru_nivcsw))
sys.exit(os.waitstatus_to_exitcode(st))'
rusage() { python3 -c "$RUSAGE_PY" "$@"; }

# ru FILE FIELD: one field of rusage's line (wall utime stime nvcsw nivcsw)
ru() {
	awk -v f="$2" 'BEGIN { split("wall utime stime nvcsw nivcsw", k, " "); for (i in k) col[k[i]] = i }
		{ print $col[f] }' "$1"
}

# frac A B: A / B with two decimals; ge X Y: X >= Y (decimals)
frac() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
ge() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x >= y) }'; }

# dev_stat LOOP FIELD: a field of /sys/block/DEV/stat (reads, read_ms,
# writes, write_ms, discards)
dev_stat() {
	awk -v f="$2" '{ n = f == "reads" ? 1 : f == "read_ms" ? 4 : f == "writes" ? 5 : f == "write_ms" ? 8 : 12
		print $n + 0 }' "/sys/class/block/$(basename "$1")/stat"
}

# make_data_files DIR N KIB: N files of KIB KiB each, written (blocks
# allocated, so deleting them frees data)
make_data_files() {
	python3 - "$@" <<'PY'
import os, sys
d, n, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
buf = b"x" * (kib * 1024)
for i in range(n):
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(buf)
PY
}

# wchan_sampler PIDFILE OUT: in the background, once PIDFILE names a
# process, append its /proc/PID/wchan (the kernel function it sleeps in,
# 0 while it runs) to OUT every 10 ms until it exits; an anchor that does
# not depend on adaptrm. A traced command writes its pid first:
# "$ADAPTRM" --trace -- sh -c 'echo $$ >PIDFILE && exec CMD'
wchan_sampler() {
	(
		for _ in $(seq 1000); do
			[ -s "$1" ] && break
			sleep 0.01
		done
		pid=$(cat "$1") || exit 0
		while w=$(cat "/proc/$pid/wchan" 2>/dev/null); do
			echo "$w"
			sleep 0.01
		done >"$2"
	) &
	DIAG_SAMPLER=$!
	on_exit "kill $DIAG_SAMPLER"
}

# wchan_share OUT REGEX: the share of OUT's samples matching REGEX
wchan_share() {
	awk -v re="$2" '{ n++ } $0 ~ re { m++ } END { printf "%.2f", n ? m / n : 0 }' "$1"
}

# expect_first JSON ID: the verdict's first finding, in its rank order (not
# by share: other load is ranked as context), is ID
expect_first() {
	local got
	got=$(jq -r '.findings[0].id // "none"' "$1")
	[ "$got" = "$2" ] || miss "first finding is '$got', expected '$2' -- verdict: $(verdict "$1")"
}

# expect_states_whole JSON: every thread-second is in a state: the states
# and what no state holds add up to the threads' lifetimes within 2%, and
# that remainder is under 5% of it or is the first finding
expect_states_whole() {
	local j=$1 life acc na
	life=$(jq -r '.states.lifetime_ns // 0' "$j")
	acc=$(jq -r '.states.accounted_ns // 0' "$j")
	na=$(jq -r '.states.not_accounted_ns // 0' "$j")
	awk -v l="$life" -v a="$acc" -v n="$na" 'BEGIN { w = l > a ? l : a
		exit !(w > 0 && a + n >= 0.98 * w && a + n <= 1.02 * w) }' ||
		miss "states $acc + not accounted $na ns do not add up to the lifetimes $life ns"
	if ! awk -v l="$life" -v n="$na" 'BEGIN { exit !(n < 0.05 * l) }' &&
		[ "$(jq -r '.findings[0].id' "$j")" != not_accounted ]; then
		miss "not accounted: $na of $life ns, and not the first finding"
	fi
}

# proc_state PID: the state letter of /proc/PID/stat (R, S, D, T, t, ...)
proc_state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }

# wait_pidfile FILE: the pid a traced command wrote first (see wchan_sampler)
wait_pidfile() {
	local i
	for i in $(seq 500); do
		[ -s "$1" ] && cat "$1" && return 0
		sleep 0.01
	done
	fail "no pid in $1"
}

# audit_rule DIR: every unlinkat under DIR audited (auditctl -F dir=, so that
# nothing else on the machine is), with an audit daemon behind: auditd is
# started here when none runs, and stopped by its pid at exit; the rule is
# removed at exit. DIAG_AUDIT_KEY is the rule's key.
audit_rule() {
	local dir=$1 pid was i
	if ! command -v auditd >/dev/null || ! command -v auditctl >/dev/null; then
		skip "needs auditd and auditctl (apt-get install auditd)"
	fi
	DIAG_AUDIT_KEY=adaptrm-diag-$$
	if [ "$(audit_status pid)" = 0 ]; then
		was=$(audit_status enabled)
		auditd -n >/dev/null 2>&1 &
		pid=$!
		on_exit "auditctl -e $was"
		on_exit "kill $pid; wait $pid"
		for i in $(seq 100); do
			[ "$(audit_status pid)" = "$pid" ] && break
			sleep 0.05
		done
	fi
	auditctl -a always,exit -F arch=b64 -S unlinkat -F dir="$dir" -k "$DIAG_AUDIT_KEY" >/dev/null ||
		skip "cannot add an audit rule"
	on_exit "auditctl -d always,exit -F arch=b64 -S unlinkat -F dir=$dir -k $DIAG_AUDIT_KEY"
}

# audit_status FIELD: a field of auditctl -s (pid, enabled, backlog_wait_time_actual, lost)
audit_status() { auditctl -s | awk -v f="$1" '$1 == f { print $2 }'; }
