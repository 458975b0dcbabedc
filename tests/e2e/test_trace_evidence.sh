# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# adaptrm --trace's evidence as a person reads it: flame graph input without
# the tracer's own frames, and a report that fits the screen.

need_bpf_ev() {
	need_root
	"$ADAPTRM" --trace -- true >/dev/null 2>&1 || skip "BPF probes unavailable"
}

# The stacks show the delete, not the tracer: no frame of its BPF programs,
# their helpers or the tracepoint glue, in either file; a sample taken in
# the tracer's program ends in "[tracer]".
test_trace_folded_has_no_bpf_frames() {
	need_bpf_ev
	make_tree d 100 500
	"$ADAPTRM" --trace --folded on.txt --folded-offcpu off.txt -- rm -rf d >/dev/null
	expect_gone d
	[ -s on.txt ] || skip "no on-CPU samples (no perf events)"
	local bpf
	bpf=$(grep -hE '(^|;)(bpf_|__bpf_|__traceiter_|htab_map_)' on.txt off.txt | head -3)
	[ -z "$bpf" ] || fail "BPF frames in the stacks: $bpf"
	if grep -q '\[tracer\];' on.txt; then fail "frames after the [tracer] leaf"; fi
}

# Wider than COLUMNS nowhere; 100 columns when COLUMNS is unset and the
# output is not a terminal; a verdict's continuation hangs under its text.
test_trace_report_wraps() {
	need_bpf_ev
	make_flat d 500
	COLUMNS=60 "$ADAPTRM" --trace -- rm -rf d >narrow.txt
	expect_gone d
	local w
	w=$(awk '{ print length($0) }' narrow.txt | sort -n | tail -1)
	[ "$w" -le 60 ] || fail "a line of $w columns at COLUMNS=60: $(awk 'length($0) > 60' narrow.txt | head -2)"
	grep -q '^  1\. \[' narrow.txt || fail "no verdict line"
	make_flat d 500
	env -u COLUMNS "$ADAPTRM" --trace -- rm -rf d >wide.txt
	w=$(awk '{ print length($0) }' wide.txt | sort -n | tail -1)
	[ "$w" -le 100 ] || fail "a line of $w columns not on a terminal: $(awk 'length($0) > 100' wide.txt | head -2)"
	[ "$w" -gt 60 ] || fail "the report wrapped narrower than 100 columns"
	# the verdict's first finding goes on under its text, not at the margin
	awk '/^  1\. \[/ { on = 1; next } on && /^            [^ ]/ { found = 1 } on && !/^            / { on = 0 }
		END { exit !found }' narrow.txt || fail "no hanging continuation: $(grep -A2 '^  1\. ' narrow.txt)"
}

# The tracer's own start is measured, so that its fixed cost is in view.
test_trace_reports_its_start_cost() {
	need_bpf_ev
	command -v jq >/dev/null || skip "needs jq"
	"$ADAPTRM" --trace --json t.json -- true >report.txt
	[ "$(jq '.probes_load_ns > 0 and .probes_attach_ns > 0' t.json)" = true ] ||
		fail "no start cost: $(jq -c '{probes_load_ns, probes_attach_ns}' t.json)"
	grep -Eq '^  probes. start: loaded in [0-9.]+ ms, attached in [0-9.]+ ms$' report.txt ||
		fail "no start cost in the header: $(grep probes report.txt)"
}
