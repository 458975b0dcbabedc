# SPDX-License-Identifier: GPL-3.0-or-later
# The plot scripts draw a PNG from real JSON: the controller's (--json) of a
# small delete and a trace's (--trace --interval --json). They need
# python3-matplotlib (Debian's, under /usr/bin/python3); skipped without it.

PLOTS=$E2E_REPO/scripts/bench

need_matplotlib() {
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "no python3-matplotlib"
}

# A PNG's eight-byte signature, and a picture bigger than an empty one.
expect_png() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
	[ "$(stat -c %s "$1")" -gt 20000 ] || fail "$1 is too small to hold the plot"
}

test_plot_controller() {
	need_matplotlib
	command -v jq >/dev/null || skip "needs jq"
	make_tree t 20 100
	# paced, so that the delete spans several controller ticks
	"$ADAPTRM" -rf --no-profile --max-ops=4000 --json c.json t || fail "adaptrm failed"
	[ "$(jq '[.trees[].intervals[]] | length' c.json)" -ge 2 ] || fail "fewer than two intervals"
	/usr/bin/python3 "$PLOTS/plot-controller.py" --describe c.json -o c.png >out ||
		fail "plot-controller failed"
	expect_eq "$(head -1 out)" c.png
	expect_png c.png
	# the worker axis: integer ticks over the range, at least three
	local ticks
	ticks=$(sed -n 's/^worker ticks: //p' out)
	[ "$(wc -w <<<"$ticks")" -ge 3 ] || fail "worker ticks: '$ticks'"
	[[ $ticks =~ ^[0-9\ ]+$ ]] || fail "worker ticks not integers: '$ticks'"
	# every decision labelled: the start with its source, changes with their rule
	expect_eq "$(grep -c '^decision: ' out)" "$(jq '.decisions | length' c.json)" "decision labels"
	grep -q "^decision: start [0-9]* ($(jq -r '.decisions[0].why' c.json))$" out || fail "no start label: $(cat out)"
}

test_plot_trace() {
	need_matplotlib
	need_root
	command -v jq >/dev/null || skip "needs jq"
	local err
	err=$("$ADAPTRM" --trace -- true 2>&1 >/dev/null) || skip "BPF probes unavailable: $err"
	make_tree t 20 100
	"$ADAPTRM" --trace --interval 0.05 --json t.json -- "$ADAPTRM" -rf --no-profile --max-ops=4000 t \
		>report.txt || fail "trace failed"
	expect_gone t
	[ "$(jq '.intervals | length' t.json)" -ge 2 ] || fail "fewer than two intervals"
	# the rows' parts add up to the verdict's whole time
	expect_eq "$(jq '[.intervals[] | .oncpu_ns + .blocked_ns + .sleeping_ns + .preempted_ns + .other_state_ns] | add' t.json)" \
		"$(jq .oncpu.thread_ns t.json)" "the intervals' parts against the whole time"
	/usr/bin/python3 "$PLOTS/plot-trace.py" t.json -o t.png >out || fail "plot-trace failed"
	expect_eq "$(cat out)" t.png
	expect_png t.png
}
