#!/usr/bin/env bash
# What tracing costs: GNU rm -rf of a 200 x 1000 tmpfs tree, plain, under
# adaptrm --trace, under strace -fc and under perf trace -s; median of RUNS
# runs each (round robin), printed as seconds and as the ratio to plain.
#   scripts/bench/trace-overhead.sh [RUNS]      (default 5; needs root)
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

# seconds of one run of "$@" deleting a fresh tree
one() {
	make_tree
	sync
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	[ ! -e "$mnt/t" ] || { echo "bench-trace-overhead: $* did not delete the tree" >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The variants, run round robin (one of each per round) so that the drift of
# a noisy shared machine hits them all alike.
names=("rm -rf" "adaptrm --trace -- rm -rf" "adaptrm --trace --no-callers -- rm -rf")
cmds=("rm -rf $mnt/t" "$adaptrm --trace -- rm -rf $mnt/t" "$adaptrm --trace --no-callers -- rm -rf $mnt/t")
if command -v strace >/dev/null; then
	names+=("strace -fc rm -rf"); cmds+=("strace -fc -o /dev/null rm -rf $mnt/t")
fi
have_perf=0
if perf trace -s -o /dev/null true >/dev/null 2>&1; then
	have_perf=1
	names+=("perf trace -s rm -rf"); cmds+=("perf trace -s -o /dev/null rm -rf $mnt/t")
fi
times=$(mktemp)
trap 'umount -l "$mnt"; rmdir "$mnt"; rm -f "$times"' EXIT
for _ in $(seq 1 "$runs"); do
	for i in "${!cmds[@]}"; do
		read -r -a cmd <<<"${cmds[$i]}"
		printf '%s\t%s\n' "$i" "$(one "${cmd[@]}")" >>"$times"
	done
done
results=$(
	for i in "${!cmds[@]}"; do
		printf '%s\t%s\n' "${names[$i]}" "$(awk -F'\t' -v i="$i" '$1 == i { print $2 }' "$times" | median)"
	done
	[ $have_perf = 1 ] || printf 'perf trace -s rm -rf\tunavailable\n'
)
plain=$(echo "$results" | head -1 | cut -f2)
echo "GNU rm -rf of a 200 x 1000 tree on tmpfs, median of $runs interleaved runs ($(nproc) CPUs)"
echo "$results" | awk -F'\t' -v p="$plain" '{
	if ($2 == "unavailable") printf "  %-42s %9s\n", $1, "skipped (perf trace unavailable)";
	else printf "  %-42s %8.3f s  %5.2fx\n", $1, $2, $2 / p }'
