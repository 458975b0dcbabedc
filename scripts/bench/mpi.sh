#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm-mpi on the metadata-server stand-in (`make bench BENCH_MPI=1`;
# results: docs/benchmarks.md#across-machines). One slowfs daemon serves N
# client mounts of one backing directory (a parallel filesystem's metadata
# server and N client nodes): every request costs
# MPI_DELAYS µs in one of the server's MPI_SLOTS service slots (a knee at
# slots / delay requests a second), and each mount has at most MPI_CAP
# requests in flight (Lustre's max_mod_rpcs_in_flight, 7). adaptrm-mpi runs
# under mpirun's MPMD form, rank i on mount i. The same trees are deleted on
# one mount by the single-node tools for reference.
#
# For every delay x slots x shape x rank count, a fresh tree is built in the
# backing directory (not through slowfs), a daemon with one mount per rank is
# started, and `mpirun adaptrm-mpi -rf` is timed. After the rank counts of
# the first slots value, adaptrm -rf, rm -rf and find -delete run on one
# mount of the same delay and shape (one client: at most MPI_CAP requests in
# flight, under any of the slot counts, so they run once per delay). The
# repetitions are interleaved and the order of the rank counts and of the
# references rotates each round. A run counts only if every rank exited 0
# and the tree is gone from the backing directory.
#
#   MPI_DELAYS   service time per request, µs (default "500 2000")
#   MPI_SLOTS    server slots (default "16 64")
#   MPI_RANKS    rank counts (default "1 2 4 8"; oversubscribed on 2 CPUs)
#   MPI_CAP      per-mount cap on requests in flight (default 7)
#   MPI_SHAPES   flat (1,000,000 files in one directory), tree (1,000 dirs x
#                1,000 files: both scaled by sqrt(BENCH_SCALE)), fanout
#                (random fan-out, seeded, built breadth first until 1,000,000
#                entries; each directory 0-30 files and 0, 1, 2, 3, 5 or 8
#                subdirectories, as test_mpi's) (default "flat tree fanout"),
#                chain (600 levels of 20-byte names, a 12,600-byte path,
#                deeper than PATH_MAX, a file every 50 levels: 613 entries,
#                never scaled; not in the default: slowfs serves paths, so
#                every tool, GNU rm too, gets ENAMETOOLONG past ~4 KiB)
#   MPI_REFS     reference tools: adaptrm rm find (default all three)
#   MPI_NOBUDGET rank counts also run with the ranks' shared budget off
#                (ADAPTRM_DIST_BUDGET=0, tool adaptrm-mpi-nobudget), to see
#                what it does to the server's queue (default "4 8"), in the
#                shapes MPI_NOBUDGET_SHAPES (default "tree fanout": a flat
#                directory is never split between ranks, so one rank works)
#   BENCH_SCALE  tree sizes (default 0.01: 10,000 entries a tree). At 2 ms
#                and 7 in flight one client deletes at most ~3,000
#                entries/s and GNU rm ~400, so the issue's 1,000,000
#                (BENCH_SCALE=1) takes 6 minutes or more a run for one rank
#                and 40 for rm and for find; at 0.01 the default matrix
#                takes ~40 minutes on 2 vCPUs, mostly rm and find at 2 ms
#   BENCH_REPS   repetitions (default 3)
#   MPI_TIMEOUT  seconds before a run is killed (default 600)
#   BENCH_WORK   scratch directory (/var/tmp); BENCH_OUT results
#                (bench-results)
#   ADAPTRM ADAPTRM_MPI SLOWFS  the binaries (copied to the scratch
#                directory first, so a rebuild during the run changes nothing)
#
# Per run: wall time of mpirun (launch included; the launch alone, mpirun
# of adaptrm-mpi -f on a missing operand on as many ranks, is measured at
# the start and shown above the tables), entries a second, the ranks' peak
# RSS summed (each rank under /usr/bin/time -f %M: its maximum resident set,
# KiB), every rank's exit status, and from the slowfs log (100 ms rows;
# "active" rows are those with a request completed or in service): the
# server queue's mean (active rows) and max depth, the mean requests in
# service, the mean requests waiting on the client side (the cap binding),
# the mean latency at the server. Rank 0's --stats "ranks:" line
# (donations) goes in the note. Every run starts with an empty
# XDG_CACHE_HOME (no learned profile: the controller starts from its
# prior), and mpirun does not bind ranks to CPUs (--bind-to none).
# Writes $BENCH_OUT/mpi.tsv (every run) and $BENCH_OUT/mpi.md (medians, the
# speed-up over one rank paired per repetition, the references).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
# shellcheck disable=SC2034 # read by fs.sh's messages
FS_PROG=mpi
# shellcheck source=../lib/fs.sh
source "$repo/scripts/lib/fs.sh"
[ "$(id -u)" = 0 ] || { echo "mpi: needs root (FUSE mounts)" >&2; exit 1; }

ADAPTRM=${ADAPTRM:-$repo/adaptrm}
ADAPTRM_MPI=${ADAPTRM_MPI:-$repo/adaptrm-mpi}
SLOWFS=${SLOWFS:-$repo/.output/tools/slowfs}
read -ra DELAYS <<<"${MPI_DELAYS:-500 2000}"
read -ra SLOTS <<<"${MPI_SLOTS:-16 64}"
read -ra RANKS <<<"${MPI_RANKS:-1 2 4 8}"
read -ra SHAPES <<<"${MPI_SHAPES:-flat tree fanout}"
read -ra REFS <<<"${MPI_REFS-adaptrm rm find}"
read -ra NOBUDGET <<<"${MPI_NOBUDGET-4 8}"
NOBUDGET_SHAPES=" ${MPI_NOBUDGET_SHAPES-tree fanout} "
CAP=${MPI_CAP:-7} REPS=${BENCH_REPS:-3} SCALE=${BENCH_SCALE:-0.01}
TIMEOUT=${MPI_TIMEOUT:-600} OUT=${BENCH_OUT:-bench-results}
for b in "$ADAPTRM" "$ADAPTRM_MPI" "$SLOWFS"; do
	[ -x "$b" ] || { echo "mpi: $b is not built (make && make tools; adaptrm-mpi needs Open MPI)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "mpi: no mpirun (Open MPI)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "mpi: no /usr/bin/time (GNU time)" >&2; exit 1; }
for s in "${SHAPES[@]}"; do
	case $s in flat | tree | chain | fanout) ;; *) echo "mpi: unknown shape '$s'" >&2; exit 2 ;; esac
done
for t in "${REFS[@]}"; do
	case $t in adaptrm | rm | find) ;; *) echo "mpi: unknown reference '$t'" >&2; exit 2 ;; esac
done

WORK=$(mktemp -d "${BENCH_WORK:-/var/tmp}/adaptrm-mpi-bench.XXXXXX") || exit 1
BACK=$WORK/back SLOW_PID='' MOUNTS=()
mkdir -p "$BACK" "$WORK/r" "$OUT" || exit 1
for b in ADAPTRM ADAPTRM_MPI SLOWFS; do
	cp "${!b}" "$WORK/${b,,}" && printf -v "$b" '%s' "$WORK/${b,,}" || exit 1
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# Where each rank leaves its peak RSS and exit status (rss.R, rc.R).
export MPIB_DIR=$WORK/r
# A fresh one per run (fresh_cache): no run learns from an earlier one.
export XDG_CACHE_HOME=$WORK/cache
fresh_cache() { rm -rf "$XDG_CACHE_HOME" && mkdir -p "$XDG_CACHE_HOME"; }

stop_server() {
	[ -n "$SLOW_PID" ] || return 0
	fs_slowfs_stop "$SLOW_PID" "${MOUNTS[@]}" || echo "mpi: slowfs $SLOW_PID did not stop cleanly" >&2
	SLOW_PID=
}
cleanup() {
	stop_server
	local m
	for m in "$WORK"/m.*; do
		mountpoint -q "$m" 2>/dev/null && fs_umount_fuse "$m"
	done
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One daemon, N mounts $WORK/m.0 .. m.N-1, logging to LOG.
start_server() { # N DELAY SLOTS LOG
	fs_slowfs_start_clients "$SLOWFS" "$2" "$BACK" "$WORK/m" "$1" --server-slots="$3" \
		--client-cap="$CAP" --log="$4" -o max_threads=64 || return 1
	SLOW_PID=$FS_SLOWFS_PID
	MOUNTS=("${FS_SLOWFS_MOUNTS[@]}")
	fs_slowfs_wait "${MOUNTS[@]}" || { echo "mpi: slowfs did not mount" >&2; return 1; }
}

sc() { awk -v n="$1" -v f="$2" 'BEGIN{v=int(n*f+0.5); print (v<1?1:v)}'; }
SIDE=$(sc 1000 "$(awk -v f="$SCALE" 'BEGIN{print sqrt(f)}')")
NFLAT=$(sc 1000000 "$SCALE")
shape_label() {
	case $1 in
	flat) echo "flat $NFLAT" ;;
	tree) echo "$SIDE dirs x $SIDE files" ;;
	chain) echo "chain 600 deep (12,600-byte path)" ;;
	fanout) echo "random fan-out, $NFLAT entries" ;;
	esac
}
# 600 levels of 20-byte names, every step relative to the last fd.
build_chain() { # DIR
	python3 - "$1" <<'EOF'
import os, sys
os.mkdir(sys.argv[1])
cur = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(600):
    name = "level%015d" % i
    os.mkdir(name, dir_fd=cur)
    if i % 50 == 0:
        os.mknod("file", dir_fd=cur)
    nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=cur)
    os.close(cur)
    cur = nxt
EOF
}
# Random fan-out, seeded, breadth first until N entries (the root counted).
build_fanout() { # DIR N
	python3 - "$1" "$2" <<'EOF'
import collections, os, random, sys
root, target = sys.argv[1], int(sys.argv[2])
random.seed(20)
os.mkdir(root)
n, queue = 1, collections.deque([root])
while queue and n < target:
    d = queue.popleft()
    for f in range(min(random.randint(0, 30), target - n)):
        os.mknod(os.path.join(d, "f%d" % f))
        n += 1
    for i in range(min(random.choice([0, 1, 2, 3, 5, 8]), target - n)):
        os.mkdir(os.path.join(d, "d%d" % i))
        queue.append(os.path.join(d, "d%d" % i))
        n += 1
EOF
}
build() { # SHAPE
	rm -rf "$BACK/t"
	case $1 in
	flat) python3 tests/tools/mktree.py "$BACK/t" flat "$NFLAT" ;;
	tree) python3 tests/tools/mktree.py "$BACK/t" tree "$SIDE" "$SIDE" ;;
	chain) build_chain "$BACK/t" ;;
	fanout) build_fanout "$BACK/t" "$NFLAT" ;;
	esac || return 1
	sync -f "$BACK"
}
declare -A ENTRIES
count_entries() { # SHAPE (the tree just built)
	[ -n "${ENTRIES[$1]:-}" ] || ENTRIES[$1]=$(find "$BACK/t" | wc -l)
}

# The server's view over the run: queue mean (active rows) and max,
# in service mean, client-side waiting mean, latency mean, requests.
log_figures() { # LOG
	awk -F'\t' 'NR > 1 && $1 !~ /^#/ {
		n = $9 + $10 + $11 + $12 + $13
		if ($15 + 0 > 0 || n > 0 || $4 > 0) { a++; q += $2; s += $4; c += $7 }
		if ($3 > qm) qm = $3
		lat += $14 * n; req += n
	} END {
		if (!a) a = 1
		printf "%.1f\t%d\t%.1f\t%.1f\t%.0f\t%d\n", q / a, qm, s / a, c / a, req ? lat / req : 0, req
	}' "$1"
}
wall_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}'; }
# ok, or why the run does not count (status of mpirun or the tool, or
# of a rank, or the tree left behind).
run_status() { # RC NRANKS
	local r s
	case $1 in 0) s=ok ;; 124) s=timeout ;; *) s=exit$1 ;; esac
	for ((r = 0; r < $2; r++)); do
		[ "$(cat "$MPIB_DIR/rc.$r" 2>/dev/null)" = 0 ] || { [ "$s" = ok ] && s=rank$r; }
	done
	[ -e "$BACK/t" ] && [ "$s" = ok ] && s=incomplete
	echo "$s"
}
rss_sum() { # NRANKS
	local r t=0 v
	for ((r = 0; r < $1; r++)); do
		v=$(tail -n1 "$MPIB_DIR/rss.$r" 2>/dev/null)
		[[ $v =~ ^[0-9]+$ ]] && t=$((t + v))
	done
	echo "$t"
}

# Each rank under /usr/bin/time, its status kept in rc.RANK.
# shellcheck disable=SC2016 # expanded by each rank's shell
RANK_SH='/usr/bin/time -f %M -o "$MPIB_DIR/rss.$OMPI_COMM_WORLD_RANK" "$0" "$@"
echo $? >"$MPIB_DIR/rc.$OMPI_COMM_WORLD_RANK"'

TSV=$OUT/mpi.tsv
printf 'tool\tranks\tdelay_us\tslots\tshape\trep\tstatus\twall\tentries\teps\trss_kib\tqueue_mean\tqueue_max\tin_service_mean\tclient_wait_mean\tlat_mean_us\trequests\tnote\n' >"$TSV"
record() { # TOOL NRANKS DELAY SLOTS SHAPE REP RC WALL LOG ERR
	local st eps note
	st=$(run_status "$7" "$2")
	eps=$(awk -v n="${ENTRIES[$5]}" -v t="$8" 'BEGIN{printf "%.0f", n / t}')
	note=$(grep -m1 '^ranks:' "${10}" | tr '\t' ' ')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
		"$st" "$8" "${ENTRIES[$5]}" "$eps" "$(rss_sum "$2")" "$(log_figures "$9")" "$note" >>"$TSV"
	echo "mpi: rep $6 ${3}us ${4} slots $5 $1 x$2: $8 s, $eps entries/s, $st" >&2
	[ "$st" = ok ] || tail -n5 "${10}" >&2
}

run_ranks() { # TOOL:N DELAY SLOTS SHAPE REP
	local tool=${1%:*} n=${1#*:} i args=() log=$WORK/r/log err=$WORK/r/err budget=1
	[ "$tool" = adaptrm-mpi-nobudget ] && budget=0
	build "$4" || { echo "mpi: building $4 failed" >&2; return 1; }
	count_entries "$4"
	start_server "$n" "$2" "$3" "$log" || return 1
	for ((i = 0; i < n; i++)); do
		[ "$i" -gt 0 ] && args+=(:)
		args+=(-np 1 sh -c "$RANK_SH" "$ADAPTRM_MPI" -rf)
		[ "$i" = 0 ] && args+=(--stats)
		args+=("$WORK/m.$i/t")
	done
	rm -f "$MPIB_DIR"/rc.* "$MPIB_DIR"/rss.*
	fresh_cache
	local t0 rc
	t0=$(date +%s.%N)
	ADAPTRM_DIST_BUDGET=$budget timeout "$TIMEOUT" mpirun --oversubscribe --bind-to none \
		-x MPIB_DIR -x XDG_CACHE_HOME -x ADAPTRM_DIST_BUDGET "${args[@]}" </dev/null >/dev/null 2>"$err"
	rc=$?
	local t
	t=$(wall_since "$t0")
	stop_server
	record "$tool" "$n" "$2" "$3" "$4" "$5" "$rc" "$t" "$log" "$err"
}

run_ref() { # TOOL DELAY SLOTS SHAPE REP
	local log=$WORK/r/log err=$WORK/r/err d=$WORK/m.0/t cmd
	case $1 in
	adaptrm) cmd=("$ADAPTRM" -rf --stats "$d") ;;
	rm) cmd=(rm -rf "$d") ;;
	find) cmd=(find "$d" -delete) ;;
	esac
	build "$4" || { echo "mpi: building $4 failed" >&2; return 1; }
	count_entries "$4"
	start_server 1 "$2" "$3" "$log" || return 1
	rm -f "$MPIB_DIR"/rc.* "$MPIB_DIR"/rss.*
	fresh_cache
	local t0 rc t
	t0=$(date +%s.%N)
	timeout "$TIMEOUT" /usr/bin/time -f %M -o "$MPIB_DIR/rss.0" "${cmd[@]}" </dev/null >/dev/null 2>"$err"
	rc=$?
	t=$(wall_since "$t0")
	echo "$rc" >"$MPIB_DIR/rc.0"
	stop_server
	record "$1" 1 "$2" "$3" "$4" "$5" "$rc" "$t" "$log" "$err"
}

# What launching costs on N ranks (median of 3, s): adaptrm-mpi -f on a
# missing operand, MPI's start and end and the ranks' last sum included.
LAUNCH=''
for n in "${RANKS[@]}"; do
	ts=()
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		mpirun --oversubscribe --bind-to none -np "$n" "$ADAPTRM_MPI" -rf "$WORK/none" </dev/null >/dev/null 2>&1
		ts+=("$(wall_since "$t0")")
	done
	LAUNCH+="$n:$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p) "
done
echo "mpi: mpirun launch (ranks:s) $LAUNCH" >&2

rotate() { # K ITEMS... -> ITEMS rotated left by K
	local k=$1
	shift
	local a=("$@") i
	for ((i = 0; i < ${#a[@]}; i++)); do echo "${a[$(((i + k) % ${#a[@]}))]}"; done
}
for ((rep = 1; rep <= REPS; rep++)); do
	for delay in "${DELAYS[@]}"; do
		for si in "${!SLOTS[@]}"; do
			for shape in "${SHAPES[@]}"; do
				runs=("${RANKS[@]/#/adaptrm-mpi:}")
				[[ $NOBUDGET_SHAPES == *" $shape "* ]] && runs+=("${NOBUDGET[@]/#/adaptrm-mpi-nobudget:}")
				for run in $(rotate $((rep - 1)) "${runs[@]}"); do
					run_ranks "$run" "$delay" "${SLOTS[$si]}" "$shape" "$rep" || exit 1
				done
				if [ "$si" != 0 ] || [ "${#REFS[@]}" = 0 ]; then continue; fi
				for tool in $(rotate $((rep - 1)) "${REFS[@]}"); do
					run_ref "$tool" "$delay" "${SLOTS[$si]}" "$shape" "$rep" || exit 1
				done
			done
		done
	done
done

labels=()
for s in "${SHAPES[@]}"; do labels+=("$s=$(shape_label "$s")"); done
python3 - "$TSV" "$CAP" "$SCALE" "$LAUNCH" "$(nproc)" "${labels[@]}" <<'EOF' | tee "$OUT/mpi.md"
import csv, statistics, sys
from collections import defaultdict
path, cap, scale, launch, cpus, *labels = sys.argv[1:]
label = dict(l.split("=", 1) for l in labels)
rows = list(csv.DictReader(open(path), delimiter="\t"))
ok = [r for r in rows if r["status"] == "ok"]
bad = [r for r in rows if r["status"] != "ok"]
med = lambda v: statistics.median(v) if v else float("nan")
def spread(v, f="{:.2f}"):
    return f"{f.format(med(v))} ({f.format(min(v))}-{f.format(max(v))})" if v else "-"
print(f"adaptrm-mpi on slowfs (one daemon, one mount per rank, {cap} requests in flight "
      f"per mount), {cpus} CPUs shared with other jobs, BENCH_SCALE={scale}; medians "
      f"(min-max) over the repetitions. Launch alone (ranks: s): {launch.strip()}. "
      f"The references (adaptrm, rm, find: one mount) run in the first slots value's "
      f"cells only; their speed-up is the one-rank time over theirs.\n")
cells = defaultdict(list)
for r in ok:
    cells[(r["delay_us"], r["slots"], r["shape"])].append(r)
for (delay, slots, shape) in sorted(cells, key=lambda k: (int(k[0]), int(k[1]), k[2])):
    runs = cells[(delay, slots, shape)]
    knee = int(slots) / (int(delay) / 1e6)
    print(f"### {shape}: {label.get(shape, shape)}, {delay} µs, {slots} slots "
          f"(knee {knee:,.0f} requests/s)\n")
    print("| tool | ranks | wall s | entries/s | speed-up vs 1 rank | peak RSS sum MiB "
          "| queue mean / max | in service | client wait | latency ms | runs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    one = {r["rep"]: float(r["wall"]) for r in runs if r["tool"] == "adaptrm-mpi" and r["ranks"] == "1"}
    keys = sorted({(not r["tool"].startswith("adaptrm-mpi"), r["tool"], int(r["ranks"])) for r in runs})
    for _, tool, n in keys:
        rs = [r for r in runs if r["tool"] == tool and int(r["ranks"]) == n]
        f = lambda k: [float(r[k]) for r in rs]
        sp = [one[r["rep"]] / float(r["wall"]) for r in rs if r["rep"] in one]
        lat = [x / 1000 for x in f("lat_mean_us")]
        print(f"| {tool} | {n} | {spread(f('wall'))} | {med(f('eps')):,.0f} | {spread(sp)} | "
              f"{med(f('rss_kib')) / 1024:.1f} | {med(f('queue_mean')):.1f} / {max(f('queue_max')):.0f} | "
              f"{med(f('in_service_mean')):.1f} | {med(f('client_wait_mean')):.1f} | "
              f"{med(lat):.2f} | {len(rs)} |")
    print()
ranks = sorted({int(r["ranks"]) for r in ok if r["tool"] == "adaptrm-mpi"})
nob = sorted({int(r["ranks"]) for r in ok if r["tool"] == "adaptrm-mpi-nobudget"})
print("### Speed-up over one rank (median of the paired ratios)\n")
print("| shape | µs | slots | " + " | ".join(f"{n} ranks" for n in ranks if n > 1) +
      "".join(f" | {n}, no budget" for n in nob) + " | single-node adaptrm |")
print("| --- | ---: | ---: |" + " ---: |" * (len(ranks) - (1 in ranks) + len(nob) + 1))
for (delay, slots, shape) in sorted(cells, key=lambda k: (k[2], int(k[0]), int(k[1]))):
    runs = cells[(delay, slots, shape)]
    one = {r["rep"]: float(r["wall"]) for r in runs if r["tool"] == "adaptrm-mpi" and r["ranks"] == "1"}
    def sp(tool, n):
        v = [one[r["rep"]] / float(r["wall"]) for r in runs
             if r["tool"] == tool and int(r["ranks"]) == n and r["rep"] in one]
        return f"{med(v):.2f}" if v else "-"
    print(f"| {shape} | {delay} | {slots} | " + " | ".join(sp("adaptrm-mpi", n) for n in ranks if n > 1) +
          "".join(" | " + sp("adaptrm-mpi-nobudget", n) for n in nob) + f" | {sp('adaptrm', 1)} |")
print()
if bad:
    print("Runs that do not count:\n")
    for r in bad:
        print(f"- {r['tool']} x{r['ranks']} {r['delay_us']} µs {r['slots']} slots {r['shape']} "
              f"rep {r['rep']}: {r['status']}")
EOF
