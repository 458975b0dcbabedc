# SPDX-License-Identifier: GPL-3.0-or-later
# What --explain and --json say of the engine's own choices on xfs: the
# workers' allocation-group order at the start, and the slow slices handed
# on (one line for the first, with its evidence, and a count at the end,
# never a line per slice). xfs on a loop image, as test_xfs_ag_order.

# xjson FILE EXPR: a Python expression on the --json document d
xjson() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
PY
}

# lines_of FILE REGEX: how many lines of FILE match REGEX
lines_of() { grep -cE -- "$2" "$1" || true; }

# explain_delete TREE ARG...: adaptrm --explain --json=c.json ARG... TREE,
# its --explain lines in err
explain_delete() {
	local tree=$1
	shift
	"$ADAPTRM" -rf --no-profile --explain --json "$SCRATCH/c.json" "$@" "$tree" 2>"$SCRATCH/err" ||
		fail "adaptrm failed: $(cat "$SCRATCH/err")"
	expect_gone "$tree"
}

# One line at the start, whichever way the order goes: the workers' own
# groups with two workers, why not with one or with ADAPTRM_AG_ORDER=0.
test_explain_xfs_ag_order() {
	need_root
	mount_fs xfs m 1G || skip "cannot mount xfs"
	make_sentinel m/keep
	local before
	before=$(sentinel_sum m/keep)
	make_tree m/t 40 20
	explain_delete m/t --threads=2
	expect_eq "$(lines_of "$SCRATCH/err" ' xfs: ')" 1 "xfs lines: $(cat "$SCRATCH/err")"
	grep -qE ' xfs: each worker takes the directories of its own allocation groups first \([0-9]+ groups, inode number >> [0-9]+' \
		"$SCRATCH/err" || fail "no allocation-group line: $(cat "$SCRATCH/err")"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["trees"][0]["ag_order"]["why"]')" groups "--json's ag_order"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["trees"][0]["ag_order"]["groups"] >= 2')" True "groups"

	make_tree m/t 40 20
	explain_delete m/t --threads=1
	grep -qE ' xfs: [0-9]+ allocation groups .*, but one worker' "$SCRATCH/err" ||
		fail "no one-worker line: $(cat "$SCRATCH/err")"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["trees"][0]["ag_order"]["why"]')" one-worker "one worker"

	make_tree m/t 40 20
	ADAPTRM_AG_ORDER=0 explain_delete m/t --threads=2
	grep -qE ' xfs: allocation-group order off \(ADAPTRM_AG_ORDER=0\)' "$SCRATCH/err" ||
		fail "no line for the order turned off: $(cat "$SCRATCH/err")"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["trees"][0]["ag_order"]["on"]')" False "order off"
	expect_eq "$(sentinel_sum m/keep)" "$before" "sentinel changed"
}

# Not xfs: no allocation-group line, and no ag_order in --json.
test_explain_no_ag_order_elsewhere() {
	need_root
	mount_fs tmpfs m 64M || skip "no tmpfs"
	make_tree m/t 10 10
	explain_delete m/t --threads=2
	expect_eq "$(lines_of "$SCRATCH/err" ' xfs: ')" 0 "xfs lines on tmpfs"
	expect_eq "$(xjson "$SCRATCH/c.json" '"ag_order" in d["trees"][0]')" False "ag_order off xfs"
}

# ADAPTRM_HEAVY_US=0 hands every slice on at every look (no timing): many
# slices are shared, yet one line tells of the first and one counts them
# all, the same count as --stats and --json.
test_explain_slow_slices_shared_once() {
	need_root
	mount_fs xfs m 1G || skip "cannot mount xfs"
	make_flat m/t 300
	make_flat m/t/sub 50
	ADAPTRM_HEAVY_US=0 explain_delete m/t --threads=2 --stats
	expect_eq "$(lines_of "$SCRATCH/err" ' slow slice handed on unmeasured \(ADAPTRM_HEAVY_US=0; its unlinks took [0-9.]+ us each over [0-9]+\): half its rest to an idle worker$')" \
		1 "first-slice lines: $(cat "$SCRATCH/err")"
	expect_eq "$(lines_of "$SCRATCH/err" 'slow slice')" 3 "slow-slice lines (first, count, --stats)"
	local n
	n=$(sed -nE 's/.* slow slices handed on: ([0-9]+) to idle workers.*/\1/p' "$SCRATCH/err")
	[ "${n:-0}" -ge 2 ] || fail "the count line says ${n:-nothing}: $(cat "$SCRATCH/err")"
	grep -qx "slow slices shared: $n (heavy unlinks: big files)" "$SCRATCH/err" ||
		fail "--stats does not count $n: $(cat "$SCRATCH/err")"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["trees"][0]["slow_slices"]["shared"]')" "$n" "--json's count"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["first_slow_slice"]["to"]')" idle_worker "--json's first"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["first_slow_slice"]["forced"]')" True "forced"
}

# One worker hands a slow slice's big files to the lane: the line says so.
test_explain_slow_slice_to_the_lane() {
	need_root
	mount_fs xfs m 1G || skip "cannot mount xfs"
	make_flat m/t 40
	local i
	for i in 1 2 3 4 5 6 7 8; do fallocate -l 2M "m/t/big$i" || skip "fallocate failed"; done
	ADAPTRM_HEAVY_US=0 explain_delete m/t --threads=1 --stats
	expect_eq "$(lines_of "$SCRATCH/err" ' slow slice handed on unmeasured .*: its big files to the large-file lane \(one worker\)$')" \
		1 "first-slice lines: $(cat "$SCRATCH/err")"
	grep -qE ' slow slices handed on: 0 to idle workers \(half the rest each\), [1-9][0-9]* to the lane' \
		"$SCRATCH/err" || fail "no count line: $(cat "$SCRATCH/err")"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["first_slow_slice"]["to"]')" lane "--json's first"
	local n
	n=$(xjson "$SCRATCH/c.json" 'd["trees"][0]["slow_slices"]["to_lane"]')
	grep -qx "slow slices to the large-file lane: $n (one worker: its big files)" "$SCRATCH/err" ||
		fail "--stats does not count $n to the lane: $(cat "$SCRATCH/err")"
}

# No slow slice (a bar of a second per unlink): no line, and
# first_slow_slice is null.
test_explain_no_slow_slice() {
	make_flat t 50
	ADAPTRM_HEAVY_US=1000000 explain_delete t --threads=2
	expect_eq "$(lines_of "$SCRATCH/err" 'slow slice')" 0 "slow-slice lines"
	expect_eq "$(xjson "$SCRATCH/c.json" 'd["first_slow_slice"]')" None "first_slow_slice"
}
