# SPDX-License-Identifier: GPL-3.0-or-later
# -p on a process that deletes nothing: no verdict about a delete to give,
# and the report says so before its verdict.

# Expect the report's verdict section to open with "No deletion seen" and
# the JSON's deletions_seen to be 0. Anchor: the process is a plain `ls -R`, which
# makes no unlink, unlinkat or rmdir (strace would show none).
test_pid_that_deletes_nothing() {
	need_bpf
	local pid
	make_tree tree 20 200
	mkfifo go
	# shellcheck disable=SC2016 # expanded by the inner shell
	sh -c 'read -r x <"$0" && exec ls -R "$1"' go tree >/dev/null &
	pid=$!
	on_exit "kill $pid"
	trace_pid "$SCRATCH/t.json" $pid
	timeout 30 sh -c 'echo go >go' || fail "ls did not start"
	trace_wait
	show_verdict t.json
	expect_exists tree/d1/f1
	[ "$(jq -r .deletions_seen t.json)" = 0 ] || miss "deletions_seen is $(jq -r .deletions_seen t.json), not 0"
	grep -E '^(No deletion seen|Verdict:)' report.txt | head -1 | grep -q '^No deletion seen' ||
		miss "no 'No deletion seen' before the verdict: $(grep -A3 '^Verdict:' report.txt)"
	verdict_ok
}
