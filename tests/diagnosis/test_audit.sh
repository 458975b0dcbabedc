# SPDX-License-Identifier: GPL-3.0-or-later
# Syscall auditing: a rule that audits every unlinkat of the delete, with
# the audit daemon behind. Each unlinkat formats an audit record on its way
# out; when kauditd and auditd fall behind, the backlog fills and each
# record waits in audit_log_start until kauditd drains it.

# Expect audit first, naming kauditd (or auditd) and the remedy (remove or
# narrow the rules). Anchor: auditctl -s says the kernel made tasks wait for
# the backlog (backlog_wait_time_actual grew) while the delete ran.
test_audit_rule_with_the_daemon_behind() {
	need_bpf
	local n=40000 w0 w1
	big && n=120000
	mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
	make_flat m/d "$n"
	audit_rule "$PWD/m"
	w0=$(audit_status backlog_wait_time_actual)
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	w1=$(audit_status backlog_wait_time_actual)
	expect_gone m/d
	show_verdict t.json
	[ "${w1:-0}" -gt "${w0:-0}" ] ||
		setup_failed "auditctl -s: no wait for the audit backlog ($w0 -> $w1)"
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json audit
	expect_text t.json audit "kauditd|auditd"
	expect_text t.json audit "auditctl"
	expect_absent t.json other_waits
	verdict_ok
}

# The same beside two CPU hogs: a busy host. Other load is context, and the
# cause the A/B isolates (the rule) stays first unless the hogs take most of
# the time and nothing of the delete's own explains the rest.
test_audit_on_a_busy_host() {
	need_bpf
	local n=40000 w0 w1
	big && n=120000
	mount_fs tmpfs m 1G || skip "cannot mount tmpfs"
	make_flat m/d "$n"
	audit_rule "$PWD/m"
	start_hogs 2
	w0=$(audit_status backlog_wait_time_actual)
	"$ADAPTRM" --trace --json t.json -- rm -rf m/d >report.txt || fail "trace failed"
	w1=$(audit_status backlog_wait_time_actual)
	expect_gone m/d
	show_verdict t.json
	[ "${w1:-0}" -gt "${w0:-0}" ] ||
		setup_failed "auditctl -s: no wait for the audit backlog ($w0 -> $w1)"
	expect_shares_sum t.json
	expect_states_whole t.json
	expect_first t.json audit
	expect_text t.json audit "auditctl"
	verdict_ok
}
