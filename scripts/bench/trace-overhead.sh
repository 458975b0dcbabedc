#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What tracing costs: GNU rm -rf of a 200 x 1000 tmpfs tree, plain, under
# adaptrm --trace (with and without the on-CPU sampler), under strace -fc
# and under perf trace -s; RUNS rounds, each variant once per round (round
# robin). Printed: the median seconds, the median of the per-round ratios
# to plain (each variant against the plain run of its own round, so that a
# machine whose load drifts compares like with like) and a distribution-free
# 95% interval of that median (order statistics; from 6 rounds on).
#   scripts/bench/trace-overhead.sh [RUNS]      (default 5; needs root)
#   TRACE_PEERS=0: leave strace and perf trace out (they take minutes)
#   TRACE_VARIANTS=0: leave out the runs without the sampler, without the
#     callers and without the wakers (plain and the default --trace only)
#   ADAPTRM_BASE=BINARY: also another build's --trace, in the same rounds
#     (an A/B of two commits, each against the plain run of its round)
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
adaptrm=${ADAPTRM:-$here/adaptrm}
[ "$(id -u)" = 0 ] || { echo "bench-trace-overhead: needs root (tmpfs, BPF)" >&2; exit 1; }
[ -x "$adaptrm" ] || { echo "bench-trace-overhead: build adaptrm first (make)" >&2; exit 1; }

mnt=$(mktemp -d /tmp/adaptrm-trace-bench.XXXXXX)
mount -t tmpfs -o size=2G tmpfs "$mnt"
trap 'umount -l "$mnt"; rmdir "$mnt"' EXIT

make_tree() {
	mkdir "$mnt/t"
	for d in $(seq 1 200); do mkdir "$mnt/t/d$d"; done
	for d in $(seq 1 200); do (cd "$mnt/t/d$d" && seq -f "f%.0f" 1 1000 | xargs touch); done
}

# "WALL<tab>CPU" seconds of one run of "$@" deleting a fresh tree; CPU is
# the user and system time of the command and its children (the tracer, its
# probes, which run in the traced threads, and rm), which other load on a
# shared machine moves far less than the wall time
one() {
	make_tree
	sync
	local t0 t1 cpu
	t0=$(date +%s.%N)
	cpu=$({
		TIMEFORMAT='%3U %3S'
		time "$@" >/dev/null 2>&1
	} 2>&1)
	t1=$(date +%s.%N)
	[ ! -e "$mnt/t" ] || { echo "bench-trace-overhead: $* did not delete the tree" >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { split(c, x, " "); printf "%.4f\t%.4f\n", b - a, x[1] + x[2] }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The variants, run round robin (one of each per round) so that the drift of
# a noisy shared machine hits them all alike.
names=("rm -rf" "adaptrm --trace -- rm -rf")
cmds=("rm -rf $mnt/t" "$adaptrm --trace -- rm -rf $mnt/t")
if [ "${TRACE_VARIANTS:-1}" = 1 ]; then
	names+=("adaptrm --trace (no sampler) -- rm -rf" "adaptrm --trace --no-callers -- rm -rf"
		"adaptrm --trace (no wakers) -- rm -rf")
	cmds+=("env ADAPTRM_TRACE_NO=oncpu $adaptrm --trace -- rm -rf $mnt/t"
		"$adaptrm --trace --no-callers -- rm -rf $mnt/t"
		"env ADAPTRM_TRACE_NO=wakers $adaptrm --trace -- rm -rf $mnt/t")
fi
if [ -n "${ADAPTRM_BASE:-}" ]; then
	names+=("base: adaptrm --trace -- rm -rf"); cmds+=("$ADAPTRM_BASE --trace -- rm -rf $mnt/t")
fi
peers=${TRACE_PEERS:-1}
if [ "$peers" = 1 ] && command -v strace >/dev/null; then
	names+=("strace -fc rm -rf"); cmds+=("strace -fc -o /dev/null rm -rf $mnt/t")
fi
have_perf=0
if [ "$peers" = 1 ] && perf trace -s -o /dev/null true >/dev/null 2>&1; then
	have_perf=1
	names+=("perf trace -s rm -rf"); cmds+=("perf trace -s -o /dev/null rm -rf $mnt/t")
fi
times=$(mktemp)
trap 'umount -l "$mnt"; rmdir "$mnt"; rm -f "$times"' EXIT
for r in $(seq 1 "$runs"); do
	for i in "${!cmds[@]}"; do
		read -r -a cmd <<<"${cmds[$i]}"
		printf '%s\t%s\t%s\n' "$r" "$i" "$(one "${cmd[@]}")" >>"$times"
	done
done

# The ratios of variant $1 to plain, one per round, of column $2 (3: wall,
# 4: CPU).
ratios() {
	awk -F'\t' -v i="$1" -v c="${2:-3}" '$2 == 0 { p[$1] = $c } $2 == i { t[$1] = $c }
		END { for (r in t) if (p[r] > 0) printf "%.4f\n", t[r] / p[r] }' "$times"
}

# "LOW HIGH": a 95% interval of the median of the sorted values on stdin
# (order statistics k+1 and n-k, k the largest with P(Binomial(n, 1/2) < k+1)
# <= 0.025); "- -" below 6 values.
median_interval() {
	sort -g | awk '{ v[NR] = $1 } END {
		n = NR; if (n < 6) { print "- -"; exit }
		c = 0; k = 0; b = 1; for (j = 0; j < n; j++) b /= 2
		for (j = 0; j <= n; j++) { c += b; if (c > 0.025) break; k = j + 1; b = b * (n - j) / (j + 1) }
		print v[k + 1], v[n - k] }'
}

echo "GNU rm -rf of a 200 x 1000 tree on tmpfs, $runs interleaved rounds ($(nproc) CPUs)"
for col in 3 4; do
	[ $col = 3 ] && what="wall" || what="CPU (user + system)"
	printf '  %-44s %9s  %6s  %s\n' "variant: $what" "median" "ratio" "95% interval of the ratio"
	for i in "${!cmds[@]}"; do
		med=$(awk -F'\t' -v i="$i" -v c=$col '$2 == i { print $c }' "$times" | median)
		if [ "$i" = 0 ]; then
			printf '  %-44s %7.3f s  %6s\n' "${names[$i]}" "$med" "1.00x"
			continue
		fi
		r=$(ratios "$i" $col | median)
		read -r lo hi < <(ratios "$i" $col | median_interval)
		printf '  %-44s %7.3f s  %5.2fx  %s\n' "${names[$i]}" "$med" "$r" \
			"$([ "$lo" = - ] && echo "-" || printf '%.2fx - %.2fx' "$lo" "$hi")"
	done
done
[ "$peers" != 1 ] || [ $have_perf = 1 ] || printf '  %-44s %s\n' "perf trace -s rm -rf" "skipped (perf trace unavailable)"
