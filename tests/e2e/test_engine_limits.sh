# SPDX-License-Identifier: GPL-3.0-or-later
# Bounded fds and memory, syscall economy. Big cases: E2E_BIG=1.

test_ulimit_32_deep_and_wide_parallel() {
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_chain deep 5000
	make_tree wide 300 5
	local rc=0 err
	err=$( (ulimit -n 32; timeout 300 "$ADAPTRM" -rf --threads=4 deep wide) 2>&1) || rc=$?
	expect_eq "$rc" 0 "exit status (messages: $err)"
	expect_gone deep; expect_gone wide
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

# strace -fc on a 200 x 1000 tree: at most 1.05 syscalls per removed entry.
# Startup (loader, option parsing, thread creation, probes off) is measured
# by deleting an empty directory the same way and subtracted: what is left
# is the cost that grows with the tree.
strace_total() { # OPERAND -> syscalls, but for those a busy machine adds
	# LeakSanitizer cannot run under ptrace: the sanitizer build checks leaks elsewhere
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -c -o st.out "$ADAPTRM" -rf --threads=2 --no-profile "$1" >/dev/null 2>&1 || return 1
	# Waits and yields count how often the threads waited for each other or
	# for a CPU, which is the machine's load, not work per file.
	awk '$NF ~ /^(futex|sched_yield|nanosleep|clock_nanosleep|restart_syscall)$/ { w += $4 }
		$NF == "total" { t = $4 } END { print t - w }' st.out
}
test_syscalls_per_file() {
	command -v strace >/dev/null || skip "no strace"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	export ADAPTRM_CTL_BPF=0
	mkdir empty
	local base total entries=$((200 * 1000 + 200))
	base=$(strace_total empty) || fail "strace of the empty run failed"
	make_tree t 200 1000
	total=$(strace_total t) || fail "strace run failed"
	expect_gone t
	local per; per=$(awk -v t="$total" -v b="$base" -v n="$entries" 'BEGIN { printf "%.4f", (t - b) / n }')
	echo "syscalls: total $total, startup $base, per entry $per"
	awk -v p="$per" 'BEGIN { exit !(p <= 1.05) }' || fail "$per syscalls per entry (> 1.05)"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}

peak_rss_kb() { # ARGS... -> peak RSS of adaptrm in KiB
	/usr/bin/time -f %M -o rss.out "$ADAPTRM" "$@" >/dev/null || return 1
	tail -1 rss.out
}
test_big_flat_1m_rss_parallel() {
	[ "${E2E_BIG:-0}" = 1 ] || skip "set E2E_BIG=1"
	[ -x /usr/bin/time ] || skip "GNU time is not installed"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_flat t 1000000
	local kb; kb=$(peak_rss_kb -rf t) || fail "adaptrm failed"
	echo "flat 1,000,000: peak RSS $kb KiB"
	expect_gone t
	[ "$kb" -lt $((64 * 1024)) ] || fail "peak RSS $kb KiB >= 64 MiB"
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
test_big_chain_1m() {
	[ "${E2E_BIG:-0}" = 1 ] || skip "set E2E_BIG=1"
	[ -x /usr/bin/time ] || skip "GNU time is not installed"
	make_sentinel keep; local before; before=$(sentinel_sum keep)
	make_chain t 1000000
	local kb; kb=$(peak_rss_kb -rf t) || fail "adaptrm failed"
	echo "chain 1,000,000: peak RSS $kb KiB"
	expect_gone t
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
}
