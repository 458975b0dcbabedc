# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm --trace end to end: exact counts, children followed, lock
# contention, agreement with strace -fc, -p, --compare, JSON histograms,
# missing privileges. BPF tests skip when the probes cannot load, and fail
# instead when ADAPTRM_REQUIRE_BPF=1 (CI).

need_bpf() {
	need_root
	command -v jq >/dev/null || skip "needs jq"
	local err
	if ! err=$("$ADAPTRM" --trace -- true 2>&1 >/dev/null); then
		if [ "${ADAPTRM_REQUIRE_BPF:-0}" = 1 ]; then
			fail "BPF required but --trace cannot run: $err"
		fi
		skip "BPF probes unavailable: $err"
	fi
}

# calls of syscall $2 in trace JSON $1 (0 if absent)
calls() { jq -r --arg n "$2" '[.syscalls[] | select(.name == $n) | .calls] | add // 0' "$1"; }

# every histogram object (count + buckets) in $1 sums to its count
expect_hists_sum() {
	local bad
	bad=$(jq -r '[.. | objects | select(has("buckets") and has("count"))
		| select(([.buckets[][1]] | add // 0) != .count)] | length' "$1")
	expect_eq "$bad" 0 "histograms whose buckets do not sum to their count"
	local n
	n=$(jq '[.. | objects | select(has("buckets"))] | length' "$1")
	[ "$n" -gt 10 ] || fail "only $n histograms in $1"
}

test_trace_counts_unlinkat_exactly() {
	need_bpf
	make_flat d 777
	"$ADAPTRM" --trace --json t.json -- rm -rf d >report.txt
	expect_gone d
	expect_eq "$(jq -r .schema t.json)" adaptrm-trace/1
	expect_eq "$(calls t.json unlinkat)" 778 "unlinkat calls (777 files + the directory)"
	expect_eq "$(jq -r .unlinkat_removedir_ns.count t.json)" 1
	expect_eq "$(jq -r .exit_status t.json)" 0
	expect_hists_sum t.json
	grep -qE '^    \[[0-9]+(ns|us|ms|s), [0-9]+(ns|us|ms|s)\) +[0-9]+ \|@+$' report.txt ||
		fail "no latency histogram in time ranges in the report"
	grep -q '^Verdict' report.txt || fail "no verdict"
}

# The raw_tp fallback (kernels where tp_btf programs do not load) counts
# the same, and says it is in use.
test_trace_raw_tp_fallback_counts_exactly() {
	need_bpf
	make_flat d 555
	ADAPTRM_BPF_RAW_TP=1 "$ADAPTRM" --trace --json t.json -- rm -rf d >report.txt
	expect_gone d
	expect_eq "$(calls t.json unlinkat)" 556 "unlinkat calls (555 files + the directory)"
	grep -q "using raw_tp" report.txt || fail "no note about the raw_tp fallback"
	expect_hists_sum t.json
}

test_trace_follows_children() {
	need_bpf
	make_flat d 300
	"$ADAPTRM" --trace --json t.json -- sh -c 'sh -c "rm -rf d" && true' >/dev/null
	expect_gone d
	expect_eq "$(calls t.json unlinkat)" 301 "unlinkat calls of the grandchild"
	[ "$(jq -r .threads_seen t.json)" -ge 2 ] || fail "children not counted"
	expect_hists_sum t.json
}

test_trace_exit_status_is_the_commands() {
	need_bpf
	set +e
	"$ADAPTRM" --trace -- sh -c 'exit 3' >/dev/null
	rc=$?
	set -e
	expect_eq "$rc" 3
}

test_trace_in_process_delete_shows_rwsem_write_contention() {
	need_bpf
	# 40,000 files gave 2 to 14 waits on a loaded 2-CPU machine, around the
	# rule's floor of 10; 150,000 gave 30 to 49.
	make_flat d 150000
	"$ADAPTRM" --trace --json t.json -rf --threads=4 d >report.txt
	expect_gone d
	expect_eq "$(calls t.json unlinkat)" 150001
	w=$(jq -r '[.locks[] | select(.type == "rwsem:W") | .wait_ns.count] | add // 0' t.json)
	[ "$w" -gt 0 ] || fail "no rwsem:W contention with 4 unlinkers in one directory"
	jq -e '.findings[] | select(.id == "directory_lock_contention")' t.json >/dev/null ||
		fail "verdict misses the directory lock: $(jq -c '[.findings[].id]' t.json)"
	expect_hists_sum t.json
}

# --trace -rf shows what the adaptive controller decided beside the
# histograms, in the report and the JSON: on slowfs (1 ms/op) from one worker
# it climbs, every decision of the JSON is a row of the report, and the last
# one's count is where the summary says it ended.
test_trace_in_process_shows_the_controllers_decisions() {
	need_bpf
	mount_slowfs mnt 1000 || skip "cannot mount slowfs"
	make_tree "$SLOWFS_BACKING/t" 100 100
	# unwrapped, so that each decision is one line to find
	COLUMNS=1000 ADAPTRM_CTL_START=1 XDG_CACHE_HOME="$SCRATCH/cache" "$ADAPTRM" --trace \
		--json t.json -rf --no-profile mnt/t >report.txt || fail "trace failed"
	expect_gone "$SLOWFS_BACKING/t"
	grep -q "^Adaptive controller: [0-9]* (auto on fuse tree-" report.txt ||
		fail "no controller section: $(cat report.txt)"
	expect_eq "$(jq -r '.controller.decisions[0] | "\(.from) \(.to) \(.why)"' t.json)" "0 1 ADAPTRM_CTL_START" \
		"first decision"
	local n
	n=$(jq '.controller.decisions | length' t.json)
	[ "$n" -ge 3 ] || fail "no climb on a 1 ms/op filesystem: $(jq -c .controller t.json)"
	jq -r '.controller.decisions[] | "\(.from) -> \(.to)   \(.why)"' t.json | tail -n +2 |
		while IFS= read -r row; do
			grep -qF -- "$row" report.txt || fail "decision not in the report: $row"
		done || exit 1
	expect_eq "$(jq -r '.controller.decisions[-1].to' t.json)" \
		"$(jq -r '.controller.summary | split(" ")[0]' t.json)" "last decision against the final count"
	# pinned without --explain/--json: no controller, no section
	make_tree "$SLOWFS_BACKING/u" 10 10
	"$ADAPTRM" --trace --json u.json -rf --threads=4 mnt/u >report2.txt || fail "pinned trace failed"
	grep -q "Adaptive controller" report2.txt && fail "a section without a controller"
	expect_eq "$(jq 'has("controller")' u.json)" false "controller in the JSON of a pinned run"
}

# Contended callers are named by the kernel through a BPF program
# (ksym_names.bpf.c); /proc/kallsyms is the fallback. Both name the same.
test_trace_callers_named_without_kallsyms() {
	need_bpf
	local a b
	make_flat d 40000
	# LeakSanitizer cannot run under ptrace
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=openat -o opens.txt "$ADAPTRM" --trace --json a.json -rf --threads=4 d >/dev/null
	! grep -q kallsyms opens.txt || fail "read /proc/kallsyms although the kernel can name the callers"
	make_flat d 40000
	ADAPTRM_KALLSYMS=1 "$ADAPTRM" --trace --json b.json -rf --threads=4 d >/dev/null
	a=$(jq -r '[.lock_callers[] | select(.type == "rwsem:W") | .caller | sub("\\+.*"; "")] | unique | join(" ")' a.json)
	b=$(jq -r '[.lock_callers[] | select(.type == "rwsem:W") | .caller | sub("\\+.*"; "")] | unique | join(" ")' b.json)
	case " $a " in *" do_unlinkat "*) ;; *) fail "rwsem:W callers named by BPF: '$a'" ;; esac
	case " $b " in *" do_unlinkat "*) ;; *) fail "rwsem:W callers named from kallsyms: '$b'" ;; esac
}

# ext4 unlink order: a big directory unlinked in random order (as rmz does in
# hash order) is named in the verdict; adaptrm's inode-sorted delete is not.
test_trace_ext4_scattered_inode_order() {
	need_bpf
	mount_fs ext4 m 1G || skip "cannot mount ext4"
	make_flat m/d 20000
	"$ADAPTRM" --trace --json a.json -- sh -c 'cd m/d && ls -U | shuf | xargs rm -f' >a.txt
	expect_gone m/d/f1
	jq -e '.findings[] | select(.id == "scattered_inode_order")' a.json >/dev/null ||
		fail "random unlink order not named: $(jq -c '[.findings[].id]' a.json)"
	[ "$(jq '.fs.ext4.inode_jump.count' a.json)" -gt 15000 ] || fail "too few inode jumps in a.json"
	grep -q "unlink order: " a.txt || fail "no unlink-order line in the report"
	rmdir m/d
	make_flat m/d 20000
	"$ADAPTRM" --trace --json b.json -rf --threads=1 m/d >/dev/null
	expect_gone m/d
	! jq -e '.findings[] | select(.id == "scattered_inode_order")' b.json >/dev/null ||
		fail "inode-sorted delete reported as scattered"
	expect_hists_sum b.json
}

test_trace_agrees_with_strace() {
	need_bpf
	command -v strace >/dev/null || skip "needs strace"
	make_tree a 20 100
	make_tree b 20 100
	strace -fc -o strace.txt rm -rf a
	"$ADAPTRM" --trace --json t.json -- rm -rf b >/dev/null
	expect_gone a
	expect_gone b
	for sc in unlinkat getdents64 openat; do
		s=$(awk -v n="$sc" '$NF == n { print $4 }' strace.txt)
		expect_eq "$(calls t.json "$sc")" "${s:-0}" "$sc calls vs strace -fc"
	done
}

test_trace_attach_pid() {
	need_bpf
	make_flat d 500
	mkfifo fifo
	sh -c 'read x <fifo; rm -rf d' &
	pid=$!
	on_exit kill $pid
	"$ADAPTRM" --trace --json t.json -p $pid >report.txt 2>err.txt &
	tracer=$!
	# start the delete once the tracer says it is attached
	for _ in $(seq 100); do grep -q "tracing pid" err.txt && break; sleep 0.1; done
	timeout 30 sh -c 'echo go >fifo' || fail "the deleter did not start"
	timeout 60 tail --pid=$tracer -f /dev/null || fail "the tracer did not stop"
	wait $tracer
	expect_gone d
	expect_eq "$(calls t.json unlinkat)" 501
	expect_eq "$(jq -r .mode t.json)" pid
}

# -p of a parent (a shell, make, a CI runner) whose deleting child already
# runs when the tracer attaches: the child is followed, and its unlinks are
# the trace's.
test_trace_attach_pid_follows_existing_children() {
	need_bpf
	make_flat d 500
	mkfifo fifo
	sh -c '(read x <fifo; rm -rf d) & wait' &
	pid=$!
	on_exit kill $pid
	# the child subshell exists before the tracer attaches
	for _ in $(seq 100); do pgrep -P $pid >/dev/null && break; sleep 0.05; done
	pgrep -P $pid >/dev/null || fail "the child did not start"
	"$ADAPTRM" --trace --json t.json -p $pid >report.txt 2>err.txt &
	tracer=$!
	for _ in $(seq 100); do grep -q "tracing pid" err.txt && break; sleep 0.1; done
	timeout 30 sh -c 'echo go >fifo' || fail "the deleter did not start"
	timeout 60 tail --pid=$tracer -f /dev/null || fail "the tracer did not stop"
	wait $tracer
	expect_gone d
	expect_eq "$(calls t.json unlinkat)" 501 "the existing child's unlinkat calls"
	expect_eq "$(jq -r .deletions_seen t.json)" 501
}

# -p PID is not a path: the tracer's working directory (here an ext4
# mounted with discard, its own device) is not the delete's filesystem.
# A process that deletes nothing is said to have deleted nothing.
test_trace_attach_pid_no_operand_no_deletion() {
	need_bpf
	command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
	mount_fs ext4 m 64M || skip "cannot mount ext4"
	mount -o remount,discard m 2>/dev/null || skip "cannot remount with discard"
	make_tree m/junk 4 500
	dd if=/dev/urandom of=m/junk/data bs=1M count=8 status=none
	sync
	sleep 2 &
	local pid=$!
	on_exit kill $pid
	(cd m && exec "$ADAPTRM" --trace --json ../t.json -p $pid) >report.txt 2>err.txt &
	local tracer=$!
	for _ in $(seq 100); do grep -q "tracing pid" err.txt && break; sleep 0.1; done
	# events on the tracer's filesystem by a process it does not trace:
	# journal commits and discards
	rm -rf m/junk
	sync
	wait $tracer || fail "the tracer failed: $(cat err.txt)"
	grep -q "^No deletion seen: the traced processes made no unlink, unlinkat or rmdir call" \
		report.txt || fail "no 'No deletion seen' line: $(head -20 report.txt)"
	expect_eq "$(jq -r .deletions_seen t.json)" 0
	expect_eq "$(jq -r '[.fs.devices[] | select(.traced)] | length' t.json)" 0 \
		"devices taken for the delete's"
}

test_trace_compare() {
	need_bpf
	make_flat a 200
	make_flat b 400
	"$ADAPTRM" --trace --json a.json -- rm -rf a >/dev/null
	"$ADAPTRM" --trace --json b.json -- rm -rf b >/dev/null
	out=$("$ADAPTRM" --trace --compare a.json b.json)
	echo "$out" | grep -Eq '^unlinkat +201 +401 +2\.00x' || fail "no unlinkat ratio row: $out"
	echo "$out" | grep -q -- '-- A --' || fail "no side-by-side histogram"
}

test_trace_compare_rejects_bad_json() {
	echo '{"schema": "other"}' >x.json
	echo '{"schema": ' >y.json
	set +e
	"$ADAPTRM" --trace --compare x.json x.json 2>err1.txt
	rc1=$?
	"$ADAPTRM" --trace --compare y.json y.json 2>err2.txt
	rc2=$?
	set -e
	expect_eq "$rc1" 1
	expect_eq "$rc2" 1
	grep -q "not an adaptrm trace" err1.txt || fail "$(cat err1.txt)"
	grep -q "y.json: invalid JSON at byte [0-9]* (line [0-9]*): " err2.txt || fail "$(cat err2.txt)"
}

test_trace_without_privileges_says_what_is_missing() {
	need_root
	command -v setpriv >/dev/null || skip "needs setpriv"
	cp "$ADAPTRM" ./adaptrm-copy
	chmod 755 . ./adaptrm-copy
	set +e
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		./adaptrm-copy --trace -- true 2>err.txt
	rc=$?
	set -e
	expect_eq "$rc" 1
	grep -q "needs root, or the capabilities CAP_BPF and CAP_PERFMON" err.txt ||
		fail "unexpected message: $(cat err.txt)"
}

test_trace_usage_errors() {
	set +e
	"$ADAPTRM" --trace 2>err1.txt; rc1=$?
	"$ADAPTRM" --trace --interval x -- true 2>err2.txt; rc2=$?
	"$ADAPTRM" --trace -- 2>err3.txt; rc3=$?
	set -e
	expect_eq "$rc1" 1
	expect_eq "$rc2" 1
	expect_eq "$rc3" 1
	grep -q "invalid interval" err2.txt || fail "$(cat err2.txt)"
}

# D1: execvp's PATH search happens before tracing, so the command makes one
# execve, not one per PATH entry before the hit (strace -f counts 1).
test_trace_command_execs_once() {
	need_bpf
	PATH="$SCRATCH/no1:$SCRATCH/no2:$SCRATCH/no3:$PATH" \
		"$ADAPTRM" --trace --json t.json -- rm -f /nonexistent >/dev/null
	expect_eq "$(calls t.json execve)" 1 "execve calls"
	expect_eq "$(jq -r '[.syscalls[] | select(.name == "execve") | .errors] | add' t.json)" 0 \
		"failed execve calls"
}

# D1/D13: a command that cannot run is an error like env's or timeout's:
# 127 not found, 126 not executable, a message, no report and no JSON.
test_trace_command_that_cannot_run() {
	need_bpf
	local rc
	set +e
	"$ADAPTRM" --trace --json t.json -- no-such-command-xyz >out1.txt 2>err1.txt
	rc=$?
	set -e
	expect_eq "$rc" 127 "exit status of a command not found"
	grep -qx "[^:]*: cannot run 'no-such-command-xyz': No such file or directory" err1.txt ||
		fail "message: $(cat err1.txt)"
	[ ! -s out1.txt ] || fail "a report for a command that did not run: $(head -3 out1.txt)"
	[ ! -e t.json ] || fail "a JSON for a command that did not run"
	: >noexec
	chmod 644 noexec
	set +e
	"$ADAPTRM" --trace -- ./noexec >out2.txt 2>err2.txt
	rc=$?
	"$ADAPTRM" --trace -- . >out3.txt 2>err3.txt
	rc3=$?
	set -e
	expect_eq "$rc" 126 "exit status of a file that is not executable"
	expect_eq "$rc3" 126 "exit status of a directory"
	grep -qx "[^:]*: cannot run './noexec': Permission denied" err2.txt || fail "message: $(cat err2.txt)"
	if [ -s out2.txt ] || [ -s out3.txt ]; then fail "a report for a command that did not run"; fi
	# a script without #! still runs through sh, as with execvp
	printf 'echo from-script\n' >script
	chmod 755 script
	PATH="$SCRATCH:$PATH" "$ADAPTRM" --trace -- script >out4.txt
	grep -q '^from-script$' out4.txt || fail "script without #! did not run: $(head -3 out4.txt)"
}

# D7: -p of a zombie is an error at once; a target that becomes a zombie
# ends the trace, not its parent's wait.
test_trace_pid_zombie() {
	need_bpf
	local z c rc start
	bash -c 'sleep 0.1 & exec sleep 30' &
	on_exit kill $!
	z=
	for _ in $(seq 50); do
		sleep 0.1
		z=$(ps -o pid=,stat= --ppid $! | awk '$2 ~ /^Z/ {print $1; exit}')
		[ -n "$z" ] && break
	done
	[ -n "$z" ] || fail "no zombie to trace"
	set +e
	timeout 10 "$ADAPTRM" --trace -p "$z" >out.txt 2>err.txt
	rc=$?
	set -e
	expect_eq "$rc" 1 "exit status for a zombie"
	grep -q "process $z is a zombie" err.txt || fail "message: $(cat err.txt)"
	[ ! -s out.txt ] || fail "a report for a zombie"
	# becomes a zombie while traced: the trace ends then
	bash -c 'sleep 1 & exec sleep 30' &
	on_exit kill $!
	c=
	for _ in $(seq 50); do
		c=$(ps -o pid=,comm= --ppid $! | awk '$2 == "sleep" {print $1; exit}')
		[ -n "$c" ] && break
		sleep 0.05
	done
	[ -n "$c" ] || fail "no child to trace"
	start=$(date +%s)
	set +e
	timeout 15 "$ADAPTRM" --trace -p "$c" >out2.txt 2>err2.txt
	rc=$?
	set -e
	expect_eq "$rc" 0 "exit status (124: still tracing a zombie)"
	[ $(($(date +%s) - start)) -le 5 ] || fail "the trace outlived the target by seconds"
	grep -q '^Verdict' out2.txt || fail "no report"
}

# D10: --interval rows cover the whole trace: the last partial interval is
# kept (the rows add up to the totals), the first row is measured from the
# start, and short intervals are kept.
test_trace_interval_rows_add_up() {
	need_bpf
	make_flat d 20000
	"$ADAPTRM" --trace --interval 0.03 --json t.json -- sh -c 'sleep 0.05; rm -rf d' >report.txt
	expect_gone d
	expect_eq "$(jq '[.intervals[].unlinkat_calls] | add' t.json)" "$(calls t.json unlinkat)" \
		"unlinkat calls summed over the intervals against the total"
	expect_eq "$(jq '[.intervals[].getdents64_calls] | add' t.json)" "$(calls t.json getdents64)" \
		"getdents64 calls summed over the intervals against the total"
	local first last wall
	first=$(jq '.intervals[0].len_ns' t.json)
	[ "$first" -le 200000000 ] || fail "first row is $first ns long, asked 30 ms"
	last=$(jq '.intervals[-1].t_ns' t.json)
	wall=$(jq '.wall_ns' t.json)
	[ $((wall - last)) -le 50000000 ] || fail "the rows end $((wall - last)) ns before the trace"
	expect_eq "$(jq .interval_ns t.json)" 30000000
	# 2 ms rows are rows of about 2 ms, not 10
	"$ADAPTRM" --trace --interval 0.002 --json s.json -- sleep 0.3 >short.txt
	local n mean
	n=$(jq '.intervals | length' s.json)
	mean=$(jq '[.intervals[:-1][].len_ns] | add / length' s.json)
	[ "$n" -ge 75 ] || grep -q "note: rows are" short.txt || fail "$n rows for 0.3 s at 2 ms, and no note"
	awk -v m="$mean" 'BEGIN { exit !(m < 5000000) }' || grep -q "note: rows are" short.txt ||
		fail "rows $mean ns apart on average for --interval 0.002, without a note"
}

# D11: SIGTERM to adaptrm in command mode goes to the command; the report
# and the JSON follow, and nothing is left running.
test_trace_sigterm_command_reports() {
	need_bpf
	local tracer rc pid
	"$ADAPTRM" --trace --json t.json -- sleep 31.7 >report.txt 2>err.txt &
	tracer=$!
	for _ in $(seq 100); do pgrep -f '^sleep 31.7$' >/dev/null && break; sleep 0.05; done
	pid=$(pgrep -f '^sleep 31.7$') || fail "the command did not start"
	on_exit "kill $pid 2>/dev/null"
	kill -TERM $tracer
	set +e
	timeout 10 tail --pid=$tracer -f /dev/null
	wait $tracer
	rc=$?
	set -e
	expect_eq "$rc" 143 "exit status (the command's, killed by SIGTERM)"
	! kill -0 "$pid" 2>/dev/null || fail "the command runs on after adaptrm got SIGTERM"
	grep -q '^Verdict' report.txt || fail "no report: $(cat err.txt)"
	expect_eq "$(jq -r .exit_status t.json)" 143
}

# D11: SIGINT stops the in-process delete as without --trace (130, "the rest
# is left"), and the report and JSON are still written, counting every
# unlink the delete made.
test_trace_sigint_in_process_reports() {
	need_bpf
	local tracer rc files dirs
	mount_slowfs mnt 1000 || skip "cannot mount slowfs"
	make_tree "$SLOWFS_BACKING/t" 40 100
	"$ADAPTRM" --trace --json t.json -rf --threads=2 mnt/t >report.txt 2>err.txt &
	tracer=$!
	sleep 1
	kill -INT $tracer
	set +e
	timeout 20 tail --pid=$tracer -f /dev/null
	wait $tracer
	rc=$?
	set -e
	expect_eq "$rc" 130 "exit status after SIGINT"
	grep -q "interrupted by SIGINT" err.txt || fail "$(cat err.txt)"
	[ -d mnt/t ] || fail "the delete finished before SIGINT: make the tree bigger"
	grep -q '^Verdict' report.txt || fail "no report"
	expect_eq "$(jq -r .exit_status t.json)" 130 "exit status in the JSON"
	files=$(sed -n 's/.*removed \([0-9]*\) files and \([0-9]*\) directories.*/\1/p' err.txt)
	dirs=$(sed -n 's/.*removed \([0-9]*\) files and \([0-9]*\) directories.*/\2/p' err.txt)
	[ "$(calls t.json unlinkat)" -ge $((files + dirs)) ] ||
		fail "unlinkat $(calls t.json unlinkat) < $files files + $dirs directories removed"
}

# D11: a --json FILE that cannot be written is an error before the command
# runs (before, the tree was gone when the error came).
test_trace_unwritable_json_fails_first() {
	need_bpf
	local rc rc2
	make_flat d 10
	set +e
	"$ADAPTRM" --trace --json nodir/t.json -- rm -rf d >out.txt 2>err.txt
	rc=$?
	"$ADAPTRM" --trace --json nodir/t.json -rf d >out2.txt 2>err2.txt
	rc2=$?
	set -e
	expect_eq "$rc" 1
	expect_eq "$rc2" 1
	expect_exists d/f1
	grep -q "cannot write nodir/t.json" err.txt || fail "$(cat err.txt)"
	if [ -s out.txt ] || [ -s out2.txt ]; then fail "a report although nothing ran"; fi
}

# A trace JSON with the given syscalls, findings and ext4 numbers.
fake_trace() { # FILE SYSCALLS FINDINGS EXT4
	jq -n --argjson sc "$2" --argjson finds "$3" --argjson e4 "$4" '{schema: "adaptrm-trace/1",
		command: ["x"], wall_ns: 1000000000, max_threads: 1, syscalls: $sc, locks: [],
		offcpu: {}, fs: {ext4: $e4, jbd2: {commits: 0, hz: 250}}, findings: $finds}' >"$1"
}

# D12: --compare shows the filesystem events, the unlink order and both
# verdicts; syscall rows by time; a long name keeps the columns in place.
test_trace_compare_sections_and_order() {
	command -v jq >/dev/null || skip "needs jq"
	fake_trace a.json '[{"name":"close","nr":3,"calls":5,"total_ns":1000},
		{"name":"sched_getaffinity","nr":204,"calls":2,"total_ns":500},
		{"name":"unlinkat","nr":263,"calls":100,"total_ns":900000000}]' \
		'[{"id":"scattered_inode_order","share":0.53,"text":"a says"}]' \
		'{"unlink_ns":{"count":100,"total":1,"buckets":[]},"freed_blocks":7,
		  "inode_jump":{"count":100,"total":1,"buckets":[[1,90],[65536,10]]}}'
	fake_trace b.json '[{"name":"unlinkat","nr":263,"calls":100,"total_ns":200000},
		{"name":"close","nr":3,"calls":5,"total_ns":50000000}]' \
		'[{"id":"directory_lock_contention","share":0.2,"text":"b says"}]' \
		'{"unlink_ns":{"count":100,"total":1,"buckets":[]},"freed_blocks":9,
		  "inode_jump":{"count":100,"total":1,"buckets":[[65536,100]]}}'
	"$ADAPTRM" --trace --compare a.json b.json >out.txt
	# syscall rows: unlinkat (0.9 s in A) first, then close (50 ms in B);
	# sched_getaffinity, too small to matter, only in a closing line
	expect_eq "$(awk '/^syscall /{on=1; next} on && /^wall /{exit} on {print $1}' out.txt | tr '\n' ' ')" \
		"unlinkat close " "syscall row order"
	grep -q '^(1 syscalls alike .*: sched_getaffinity)$' out.txt || fail "no line for the alike syscall"
	"$ADAPTRM" --trace --all --compare a.json b.json >all.txt
	expect_eq "$(awk '/^syscall /{on=1; next} on && /^wall /{exit} on {print $1}' all.txt | tr '\n' ' ')" \
		"unlinkat close sched_getaffinity " "syscall rows with --all"
	# one column start for the calls of every row, the long name included
	local cols
	cols=$(awk '/^syscall /{on=1; next} on && /^wall /{exit} on {print index($0, " " $2 " ") + length($2)}' out.txt | sort -u | wc -l)
	expect_eq "$cols" 1 "calls columns at different places: $(cat out.txt)"
	grep -q '^Filesystem and block events' out.txt || fail "no fs events: $(cat out.txt)"
	grep -Eq '^  ext4 freed blocks +7 +9 ' out.txt || fail "no ext4 freed blocks row"
	grep -q '^Unlink order' out.txt || fail "no unlink order"
	grep -Eq '^  in order +90% +0%$' out.txt || fail "unlink order shares: $(grep -A3 '^Unlink' out.txt)"
	grep -q '^Findings' out.txt || fail "no findings"
	grep -Eq '^  scattered_inode_order +53% +-$' out.txt || fail "A's finding"
	grep -Eq '^  directory_lock_contention +- +20%$' out.txt || fail "B's finding"
}

# Small histograms (few calls, or not deletion syscalls) only with --all;
# p50/p99 are marked as estimates.
test_trace_all_shows_every_histogram() {
	need_bpf
	make_flat d 300
	"$ADAPTRM" --trace --json t.json -- rm -rf d >default.txt
	make_flat d 300
	"$ADAPTRM" --trace --all -- rm -rf d >all.txt
	grep -q '^  unlinkat: 301 calls' default.txt || fail "no unlinkat histogram"
	! grep -q '^  execve: ' default.txt || fail "execve's 1-call histogram in the default report"
	grep -q '^  execve: ' all.txt || fail "--all has no execve histogram"
	grep -q 'more histograms (syscalls with fewer than 100 calls' default.txt || fail "omission not said"
	grep -q 'p99~ usecs' default.txt || fail "p99 not marked as an estimate"
	[ "$(wc -l <default.txt)" -lt "$(wc -l <all.txt)" ] || fail "--all is not longer"
	expect_eq "$(jq '[.syscalls[] | select(.latency_ns.buckets | length > 0)] | length' t.json)" \
		"$(jq '.syscalls | length' t.json)" "every syscall's histogram in the JSON"
	# no percentile above the largest possible value
	expect_eq "$(jq '[.. | objects | select(has("max_bound")) | select(.p99 > .max_bound + 0.001)] | length' t.json)" 0
}

# More than PROBE_MAX_TGIDS (4,096) live processes: the ones past it are not
# followed, and the report says how many (they used to be dropped silently).
test_trace_says_when_processes_are_not_followed() {
	need_bpf
	# shellcheck disable=SC2016 # the inner shell expands it
	"$ADAPTRM" --trace --json t.json -- bash -c 'for i in $(seq 4300); do sleep 60 & done; kill $(jobs -p); wait' \
		>report.txt || fail "trace failed"
	n=$(jq '[.. | objects | select(has("processes_not_traced")) | .processes_not_traced] | add' t.json)
	[ "$n" -gt 0 ] || fail "no processes_not_traced in the JSON ($n)"
	grep -q "processes not traced: more than 4096" report.txt || fail "report does not say it: $(head -5 report.txt)"
}

# cg_v1_dir CONTROLLER: this shell's cgroup directory in the v1 hierarchy
# that holds CONTROLLER (co-mounted ones too), or nothing when none is mounted.
cg_v1_dir() {
	local mnt path
	mnt=$(awk -v c="$1" '$0 ~ / - cgroup / { n = split($NF, o, ",")
		for (i = 1; i <= n; i++) if (o[i] == c) { print $5; exit } }' /proc/self/mountinfo)
	path=$(awk -F: -v c="$1" '{ n = split($2, o, ",")
		for (i = 1; i <= n; i++) if (o[i] == c) { print $3; exit } }' /proc/self/cgroup)
	[ -n "$mnt" ] && [ -n "$path" ] && echo "$mnt${path%/}"
}

# cg_remove DIR: kill what is left in the cgroup (only this test's
# processes can be there) by pid, then remove it.
cg_remove() {
	local pid
	[ -d "$1" ] || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		while read -r pid; do kill -9 "$pid" 2>/dev/null; done <"$1/cgroup.procs"
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# A CPU quota of 20% throttles a busy loop of one second, whatever the
# machine's speed: the JSON names the cgroup, its quota and the throttling,
# and a memory limit beside it. The cgroups are made below this shell's own
# (nested, not moved out of any limit it is under); the tracer moves itself
# in before it execs, so the command starts there from its first instruction.
test_trace_reports_the_cgroups_limits() {
	need_bpf
	local cpu mem rc=0
	cpu=$(cg_v1_dir cpu) || true
	mem=$(cg_v1_dir memory) || true
	{ [ -n "$cpu" ] && [ -f "$cpu/cpu.cfs_quota_us" ]; } || skip "no cgroup v1 cpu controller"
	cpu=$cpu/adaptrm-test-$$
	mkdir "$cpu"
	on_exit cg_remove "$cpu"
	echo 100000 >"$cpu/cpu.cfs_period_us"
	echo 20000 >"$cpu/cpu.cfs_quota_us"
	local procs=("$cpu/cgroup.procs")
	if [ -n "$mem" ] && [ -f "$mem/memory.limit_in_bytes" ]; then
		mem=$mem/adaptrm-test-$$
		mkdir "$mem"
		on_exit cg_remove "$mem"
		echo 64M >"$mem/memory.limit_in_bytes"
		procs+=("$mem/cgroup.procs")
	else
		mem=
	fi
	# wide enough that the cgroup's long path keeps the quota on its line
	# shellcheck disable=SC2016 # the inner shell expands it
	COLUMNS=400 bash -c 'for f in "${@:2}"; do echo $$ >"$f" || exit 1; done
		exec "$1" --trace --json t.json -- timeout 1 sh -c "while :; do :; done"' \
		_ "$ADAPTRM" "${procs[@]}" >report.txt || rc=$?
	expect_eq "$rc" 124 "the busy loop's timeout"
	expect_eq "$(jq -r --arg d "$cpu" '.cgroups.cpu[] | select(.dir == $d) |
		"\(.traced) \(.quota_us) \(.period_us)"' t.json)" "true 20000 100000" "the quota in the JSON"
	local n
	n=$(jq --arg d "$cpu" '.cgroups.cpu[] | select(.dir == $d) | .nr_throttled' t.json)
	[ "$n" -gt 0 ] || fail "not throttled under a 20% quota: $(jq -c .cgroups.cpu t.json)"
	[ "$(jq --arg d "$cpu" '.cgroups.cpu[] | select(.dir == $d) | .throttled_ns' t.json)" -gt 0 ] ||
		fail "no throttled time"
	grep -qF "  cpu $cpu: quota 20% of a CPU (cfs_quota_us 20000 / period 100000), throttled $n of " report.txt ||
		fail "the report does not name the quota: $(sed -n '/^Cgroups/,$p' report.txt)"
	[ -z "$mem" ] || expect_eq "$(jq -r --arg d "$mem" '.cgroups.memory[] | select(.dir == $d) | .limit_bytes' t.json)" \
		67108864 "the memory limit in the JSON"
}

# The on-CPU sampler (probe group oncpu, a perf_event program): skip where
# it did not attach, fail instead under ADAPTRM_REQUIRE_BPF=1.
need_oncpu() { # JSON
	if [ "$(jq '.probes | index("oncpu") != null' "$1")" != true ]; then
		[ "${ADAPTRM_REQUIRE_BPF:-0}" != 1 ] || fail "oncpu probes not attached: $(jq -c .notes "$1")"
		skip "oncpu probes not attached: $(jq -c .notes "$1")"
	fi
}

# Whole-time accounting and samples. Only structural facts: make check runs
# beside CPU hogs, so no share of the wall time is asserted. A shell loop of
# builtins runs in user mode: most of its samples are user-mode ones (the
# loop gets at least a third of a CPU for 1 s, tens of samples at 199 Hz);
# sleep 1 is off CPU sleeping far longer than on CPU.
test_trace_oncpu_busy_loop_and_sleep() {
	need_bpf
	"$ADAPTRM" --trace --json b.json -- timeout 1 sh -c 'while :; do :; done' >report.txt ||
		true # timeout's status 124
	need_oncpu b.json
	local s u on th sc
	s=$(jq .oncpu.samples b.json)
	u=$(jq .oncpu.samples_user b.json)
	[ "$s" -gt 0 ] || fail "no samples of a 1 s busy loop"
	[ $((2 * u)) -gt "$s" ] || fail "a user-mode loop: $u of $s samples in user mode"
	on=$(jq .oncpu.oncpu_ns b.json)
	th=$(jq .oncpu.thread_ns b.json)
	sc=$(jq '.oncpu.syscall_ns + .oncpu.wait_syscall_ns + .oncpu.outside_syscall_ns' b.json)
	[ "$on" -gt 0 ] || fail "no on-CPU time"
	[ "$th" -ge "$on" ] || fail "thread time $th below on-CPU time $on"
	expect_eq "$sc" "$on" "the on-CPU parts do not add up"
	expect_eq "$(jq '.oncpu.offcpu_ns + .oncpu.oncpu_ns' b.json)" "$th" "on + off CPU is not the thread time"
	grep -q '^On-CPU time of the traced threads' report.txt || fail "no on-CPU section"
	grep -Eq '^  [0-9]+ samples at 199 Hz per CPU' report.txt || fail "no samples line"

	"$ADAPTRM" --trace --json s.json -- sleep 1 >/dev/null
	local sl
	sl=$(jq .offcpu.sleeping_ns.total s.json)
	on=$(jq .oncpu.oncpu_ns s.json)
	[ "$sl" -gt "$on" ] || fail "sleep 1: sleeping $sl ns, on CPU $on ns"
}

# --folded and --folded-offcpu: every line "stack count", on-CPU stacks
# (samples) in one file and off-CPU stacks (microseconds) in the other (the
# reader at the pipe's end sleeps in read, a busy syscall: an S wait site),
# sorted by count; the JSON splits the on-CPU kernel samples by category.
test_trace_folded_stacks() {
	need_bpf
	make_tree d 200 200
	"$ADAPTRM" --trace --json t.json --folded f.txt --folded-offcpu off.txt -- \
		sh -c 'rm -rfv d | cat >/dev/null' >/dev/null
	expect_gone d
	need_oncpu t.json
	[ -s f.txt ] || fail "empty folded file"
	[ -s off.txt ] || fail "empty off-CPU folded file"
	local bad
	bad=$(cat f.txt off.txt | grep -cvE '^[^ ]+ [0-9]+$' || true)
	expect_eq "$bad" 0 "lines not in the folded format: $(cat f.txt off.txt | grep -vE '^[^ ]+ [0-9]+$' | head -3)"
	grep -q '^oncpu;' f.txt || fail "no on-CPU stacks: $(head -3 f.txt)"
	if grep -q '^offcpu' f.txt; then fail "off-CPU stacks among the samples"; fi
	grep -Eq '^offcpu-[DS];' off.txt || fail "no off-CPU stacks: $(head -3 off.txt)"
	if grep -q '^oncpu' off.txt; then fail "on-CPU samples among the microseconds"; fi
	grep -q '^oncpu;.*do_unlinkat' f.txt || fail "no unlink in the on-CPU stacks"
	awk '{ print $NF }' f.txt | sort -c -rn || fail "not sorted by count"
	awk '{ print $NF }' off.txt | sort -c -rn || fail "off-CPU not sorted by count"
	expect_eq "$(jq '[.oncpu.kernel_categories[].share] | add | . > 0.999 and . < 1.001' t.json)" true \
		"category shares do not sum to 1"
}

# rm -rf of a tmpfs tree spends most of its kernel time unlinking: the
# unlink category is among the samples.
test_trace_oncpu_unlink_category() {
	need_bpf
	make_tree d 100 1000
	"$ADAPTRM" --trace --json t.json -- rm -rf d >report.txt
	expect_gone d
	need_oncpu t.json
	[ "$(jq '[.oncpu.kernel_categories[] | select(.id == "unlink") | .samples] | add // 0' t.json)" -gt 0 ] ||
		fail "no unlink samples: $(jq -c .oncpu t.json)"
	grep -q '^  on-CPU kernel: .*unlink [0-9]*%' report.txt || fail "no category line: $(grep -A3 '^On-CPU' report.txt)"
}

# --trace -rf on tmpfs: no block device is the delete's, neither the disk
# adaptrm was started from (its argv[0] is not an operand) nor the one its
# profile store writes to after the delete (the final read comes first), so
# the JSON counts no block I/O for the delete and the report names no device
# as the delete's, though a writer beside it keeps the disk of /var/tmp
# busy (direct writes, so its I/O falls inside the trace).
test_trace_rf_on_tmpfs_counts_no_block_io() {
	need_bpf
	make_tree t 10 100
	local w
	w=$(mktemp -d /var/tmp/adaptrm-writer.XXXXXX) || skip "no /var/tmp"
	on_exit "rm -rf $(printf %q "$w")"
	(while :; do dd if=/dev/zero of="$w/f" bs=64k count=4 oflag=direct 2>/dev/null; done) &
	local writer=$!
	on_exit "kill $writer"
	"$ADAPTRM" --trace --json t.json -rf --max-ops=1000 t >report.txt || fail "--trace failed"
	kill "$writer"
	expect_gone t
	expect_eq "$(jq -r '[.fs.devices[] | select(.traced) | .name] | join(", ")' t.json)" "" \
		"devices taken for the delete's"
	expect_eq "$(jq -r '.fs.block.bytes' t.json)" 0 "block bytes of the delete's devices"
	if grep "\[the delete's\]" report.txt; then fail "a device in the report is the delete's"; fi
}

# On btrfs a file's st_dev is its subvolume's anonymous device, neither the
# mount's nor a block device's: the delete's device is found by the
# operand's path, so the b-tree reads of a cold delete inside a subvolume are
# counted on the loop device under it.
test_trace_btrfs_subvolume_device_is_the_deletes() {
	need_bpf
	command -v btrfs >/dev/null || skip "no btrfs-progs"
	mount_fs btrfs m 1G || skip "cannot mount btrfs"
	btrfs -q subvolume create m/sv >/dev/null || fail "cannot make a subvolume"
	make_tree m/sv/t 20 100
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$ADAPTRM" --trace --json t.json -rf m/sv/t >report.txt || fail "--trace failed"
	expect_gone m/sv/t
	jq -e '[.fs.devices[] | select(.traced and (.name | test("btrfs")))] | length > 0' t.json \
		>/dev/null || fail "the btrfs device is not the delete's: $(jq -c '.fs.devices' t.json)"
	grep -q "btrfs on .*\[the delete's\]" report.txt || fail "the report names no btrfs device"
}
