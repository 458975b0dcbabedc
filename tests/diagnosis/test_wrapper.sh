# SPDX-License-Identifier: GPL-3.0-or-later
# A delete started by a wrapper: a script or a shell that does a little
# itself and then runs the remover as its child, waiting for it in wait4.

# Expect the wrapper's wait for its deleting child left out of the shares
# (it is the child's time, which the child's own threads hold): no
# idle_waits beyond a sliver, and the report says what was left out.
# Anchor: the wrapper read the directory itself (a remover too, not a bare
# helper) and waited in wait4 for most of its life (rusage of the child).
test_wrapper_waits_for_deleting_child() {
	need_bpf
	make_tree m/t 10 3000
	"$ADAPTRM" --trace --json t.json -- python3 -c '
import os, subprocess, sys, time
os.listdir(sys.argv[1])
t = time.monotonic()
subprocess.run(["rm", "-rf", sys.argv[1]], check=True)
open("waited", "w").write("%.3f" % (time.monotonic() - t))' m/t >report.txt || fail "trace failed"
	expect_gone m/t
	show_verdict t.json
	ge "$(cat waited)" 0.05 || setup_failed "the wrapper waited only $(cat waited) s for rm"
	expect_shares_sum t.json
	jq -e '[.findings[] | select(.id == "idle_waits") | .share] | add // 0 | . < 0.05' t.json >/dev/null ||
		miss "the wrapper's wait counts as idle_waits: $(verdict t.json)"
	grep -q "parents waited for their deleting children" report.txt ||
		miss "the report does not say the wrapper's wait was left out"
	verdict_ok
}

# Expect a parent that is the only remover to keep its waits for a child
# that removes nothing (a sleep between batches): that is the delete's own
# time, idle, so idle_waits stays in the verdict. Anchor: the child slept.
test_wrapper_only_remover_waiting_for_child_still_counts() {
	need_bpf
	make_flat m/d 2000
	"$ADAPTRM" --trace --json t.json -- python3 -c '
import os, subprocess, sys
d = sys.argv[1]
for n in os.listdir(d):
    os.unlink(os.path.join(d, n))
subprocess.run(["sleep", "0.3"], check=True)
os.rmdir(d)' m/d >report.txt || fail "trace failed"
	expect_gone m/d
	show_verdict t.json
	expect_shares_sum t.json
	jq -e '[.findings[] | select(.id == "idle_waits") | .share] | add // 0 | . > 0.05' t.json >/dev/null ||
		miss "the only remover's wait for its child left the shares: $(verdict t.json)"
	verdict_ok
}
