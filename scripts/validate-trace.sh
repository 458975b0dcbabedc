#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Validate `adaptrm --trace` against the anchors a kernel engineer would use
# the same workloads as tests/diagnosis, each measured by
# adaptrm and by strace -fc, perf lock (tracepoint mode), perf sched,
# libbpf-tools offcputime / runqlat and bpftrace, on the same run where the
# tools can share one (a held process: `sh -c 'read <fifo; exec CMD'`, every
# tracer attached to its pid, then released). Prints per workload a
# side-by-side of what each measured, with the tolerance used and
# agree/disagree. Needs root; ~5-10 minutes; cleans up after itself (mounts,
# loop devices, the blkio cgroup, the processes it starts, by pid).
#
#   scripts/validate-trace.sh            ADAPTRM=path (default ./adaptrm)
#   VALIDATE_ONLY="tmpfs-rm xfs-shared"  run only these workloads
#
# Workloads: tmpfs-rm (syscall counts, unlinkat histogram), xfs-shared
# (lock waits), xfs-one-worker (blocked time and stacks, run-queue delay),
# ext4-cold, also named blkio-throttle (blocked time and stacks, the blkio
# cgroup's and the device's I/O counts, device_throttled), ext4-discard
# (stacks), cpu-hogs (run-queue delay), btrfs-rm (lock waits, btrfs
# tree-lock counts), cpu-quota (cpu.stat throttling, runnable time),
# memcg-reclaim (vmscan reclaim in the deleter's context, memory.failcnt),
# fuse (the daemon's answer time). Every held workload also checks the
# verdict's base: shares summing to 1 and whole_ns against the threads'
# lifetime from perf sched; the I/O workloads the top-3 wait sites against
# offcputime's stacks folded by the same rule.
set -u
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
ADAPTRM=$(realpath "${ADAPTRM:-./adaptrm}")
MKTREE=$repo/tests/tools/mktree.py
SLOWFS=${SLOWFS:-$repo/.output/tools/slowfs}
only=${VALIDATE_ONLY:-}
[ "$(id -u)" = 0 ] || { echo "validate-trace: needs root" >&2; exit 1; }
for t in jq strace perf bpftrace offcputime runqlat python3 taskset; do
	command -v $t >/dev/null || { echo "validate-trace: needs $t (apt-get install strace linux-perf bpftrace libbpf-tools jq)" >&2; exit 1; }
done
[ -x "$ADAPTRM" ] || { echo "validate-trace: no $ADAPTRM (make)" >&2; exit 1; }

work=$(mktemp -d /tmp/adaptrm-validate.XXXXXX)
PIDS=() MOUNTS=() LOOPS=() CGS=() IMGS=()
cleanup() {
	local i
	for i in "${PIDS[@]}"; do kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; done
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do mountpoint -q "${MOUNTS[$i]}" && { umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}"; }; done
	for i in "${LOOPS[@]}"; do losetup -d "$i" 2>/dev/null; done
	# a cgroup with tasks cannot go: move any left to the hierarchy's root
	for i in "${CGS[@]}"; do
		[ -d "$i" ] || continue
		while read -r t; do echo "$t" >"$(dirname "$i")/cgroup.procs"; done <"$i/cgroup.procs" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	for i in "${IMGS[@]}"; do rm -f "$i"; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null # perf and bpftrace tracepoints
mnt_tmpfs() { mkdir -p "$1" && mount -t tmpfs -o size=3G tmpfs "$1" && MOUNTS+=("$1"); }
# mnt_img TYPE DIR "MKFS_OPTS" [MOUNT_OPTS]: loop device with direct I/O; LOOP set
mnt_img() {
	local img
	img=$(mktemp -p /var/tmp adaptrm-validate-"$1".XXXXXX.img) && IMGS+=("$img")
	truncate -s 2G "$img"
	# shellcheck disable=SC2086
	case $1 in
	ext4) mkfs.ext4 -q -F $3 "$img" ;; xfs) mkfs.xfs -q -f $3 "$img" ;; btrfs) mkfs.btrfs -q -f $3 "$img" ;;
	esac >/dev/null 2>&1 || return 1
	LOOP=$(losetup --direct-io=on -f --show "$img") && LOOPS+=("$LOOP") || return 1
	mkdir -p "$2" && mount ${4:+-o "$4"} "$LOOP" "$2" && MOUNTS+=("$2")
}
# held CMD...: CMD waits on a fifo (release) before it execs; HELD is its pid
held() {
	rm -f "$work/fifo"; mkfifo "$work/fifo"
	sh -c 'read x <"$0"; exec "$@"' "$work/fifo" "$@" &
	HELD=$!; PIDS+=("$HELD")
}
release() { echo go >"$work/fifo"; }
# trace_pid OUT.json: adaptrm --trace -p $HELD, waits until it is attached
trace_pid() {
	"$ADAPTRM" --trace --json "$1" -p "$HELD" >"${1%.json}.txt" 2>"${1%.json}.err" &
	TRACER=$!; PIDS+=("$TRACER")
	for _ in $(seq 100); do grep -qs "tracing pid" "${1%.json}.err" && return 0; sleep 0.1; done
	echo "adaptrm -p did not attach: $(cat "${1%.json}.err")" >&2; return 1
}
# bg_anchor NAME CMD...: an anchor in the background until stop_anchor NAME (SIGINT)
declare -A ANCH
bg_anchor() { local n=$1; shift; "$@" >"$work/$n.out" 2>"$work/$n.err" & ANCH[$n]=$!; PIDS+=("$!"); }
stop_anchor() { kill -INT "${ANCH[$1]}" 2>/dev/null; wait "${ANCH[$1]}" 2>/dev/null; }
wait_held() { wait "$HELD" 2>/dev/null; wait "$TRACER" 2>/dev/null; }
# whole_anchors NAME: perf sched and the threads' user time at exit, for
# the whole-time check; whole_stop NAME writes NAME.th (timehist) and NAME.ut
whole_anchors() {
	bg_anchor "$1-sched" perf sched record -a -o "$work/$1.sched"
	bg_anchor "$1-ut" bpftrace -e "tracepoint:sched:sched_process_exit /pid == $HELD/ { printf(\"%d %d %d\\n\", tid, curtask->utime, curtask->stime); }"
	for _ in $(seq 100); do grep -qs Attaching "$work/$1-ut.out" && break; sleep 0.1; done
}
whole_stop() {
	stop_anchor "$1-sched"; stop_anchor "$1-ut"
	perf sched timehist --state -i "$work/$1.sched" -p "$HELD" >"$work/$1.th" 2>/dev/null
	cp "$work/$1-ut.out" "$work/$1.ut"
}
# blkio_serviced CG DEV: "reads writes" blk-throttle counted for DEV in CG
blkio_serviced() { awk -v d="$2" '$1 == d && $2 == "Read" { r = $3 } $1 == d && $2 == "Write" { w = $3 } END { print r + 0, w + 0 }' "$1/blkio.throttle.io_serviced"; }
# blk_ios LOOP: reads and writes the device completed (its stat's fields 1 and 5)
blk_ios() { awk '{ print $1 + $5 }' /sys/class/block/"$(basename "$1")"/stat; }
want() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }
say() { echo; echo "== $*"; }

cat >"$work/cmp.py" <<'PY'
import json, re, sys
from collections import defaultdict

rows = []
def row(what, a, b, tol, ok):
    rows.append((what, a, b, tol, "agree" if ok else "DISAGREE"))

def flush(title_a="adaptrm", title_b="anchor"):
    w = [max(len(str(r[i])) for r in rows + [("measure", title_a, title_b, "tolerance", "")]) for i in range(5)]
    fmt = "  %%-%ds | %%-%ds | %%-%ds | %%-%ds | %%s" % tuple(w[:4])
    print(fmt % ("measure", title_a, title_b, "tolerance", "agree?"))
    print(fmt % (tuple("-" * x for x in w[:4]) + ("--------",)))
    for r in rows: print(fmt % r)
    rows.clear()
def within(a, b, rel, absol=0):
    return abs(a - b) <= max(absol, rel * max(abs(a), abs(b)))
def ms(ns): return "%.1f ms" % (ns / 1e6)
def load(p): return json.load(open(p))
def verdict(j):
    return ", ".join("%s %.0f%%" % (f["id"], 100 * f["share"]) for f in j["findings"])
# what is not a wait: the kernel's own CPU, the run queue, idle time
BASE = {"kernel_cpu", "syscall_cost", "user_cpu", "minor_parts", "idle_waits",
        "cpu_quota", "cpu_oversubscription", "cpu_contention"}
def top_wait(j, skip=()):
    for f in sorted(j["findings"], key=lambda f: -f["share"]):
        if f["id"] not in BASE and f["id"] not in skip: return f["id"]
    return "none"

# offcputime (libbpf-tools, default format): frames, "-  comm (pid)", value us
GENERIC = re.compile(r"bpf_|__traceiter|__schedule$|schedule$|schedule_timeout$|io_schedule|schedule_preempt_disabled$|"
                     r"bit_wait_io$|__wait_on_bit|out_of_line_wait_on_bit|wait_for_completion|__lock_buffer$|"
                     r"__down_common$|rwsem_down_|^down$|^down_read$|^down_write$")
CLASSES = [  # first rule that matches any frame of a stack decides its class
    ("fuse", re.compile(r"request_wait_answer|fuse_simple_request")),
    ("reclaim", re.compile(r"try_to_free_mem_cgroup_pages|try_to_free_pages|shrink_node|shrink_folio_list")),
    ("discard", re.compile(r"blkdev_issue_discard|ext4_issue_discard|__blkdev_issue_discard")),
    ("xfs log grant", re.compile(r"xlog_grant_head_wait")),
    ("xfs inodegc", re.compile(r"xfs_inodegc|^__flush_work$")),
    ("xfs buffer lock", re.compile(r"xfs_buf_lock")),
    ("ext4 inode/dir reads", re.compile(r"__ext4_get_inode_loc|__ext4_read_dirblock|ext4_read_inode_bitmap|ext4_read_block_bitmap|ext4_bread|ext4_read_bh")),
    ("journal (jbd2)", re.compile(r"jbd2_|wait_transaction_locked|add_transaction_credits|start_this_handle")),
    ("sleeping lock", re.compile(r"rwsem_down_|__mutex_lock|^__down|percpu_rwsem")),
    ("other I/O", re.compile(r"io_schedule|submit_bio_wait|folio_wait|wait_on_page")),
]
READS = "ext4 inode/dir reads|other I/O"
FINDING_CLASS = {"inode_table_reads": READS, "directory_block_reads": READS, "bitmap_reads": READS,
    "extent_tree_reads": READS, "btree_reads": READS, "metadata_reads": READS, "blocked_on_io": READS,
    "device_throttled": READS, "slow_device": READS,
    "journal_commit_waits": "journal (jbd2)", "journal_space": "journal (jbd2)", "journal_forced_by_other": "journal (jbd2)",
    "scattered_inode_order": "journal (jbd2)",
    "xfs_inodegc": "xfs inodegc|xfs log grant", "xfs_log_waits": "xfs inodegc|xfs log grant",
    "discard_io": "discard", "directory_lock_contention": "sleeping lock", "lock_contention": "sleeping lock|xfs buffer lock",
    "btrfs_tree_locks": "sleeping lock", "btrfs_waits": "sleeping lock", "fuse_daemon": "fuse",
    "memcg_reclaim": "reclaim", "memory_reclaim": "reclaim"}
def offcpu(path, frames=None):
    stacks, cur, total = defaultdict(float), [], 0.0
    bycls = defaultdict(float)
    lines = open(path).read().splitlines()
    i = 0
    while i < len(lines):
        l = lines[i].strip()
        if l.startswith("-") and "(" in l and i + 1 < len(lines):
            us = float(lines[i + 1].strip() or 0)
            cls = "other"
            for name, rx in CLASSES:
                if any(rx.search(f) for f in cur): cls = name; break
            key = " <- ".join([f for f in cur if not GENERIC.search(f)][:5] or [f for f in cur if not f.startswith(("bpf_", "__traceiter"))][:5])
            stacks[key] += us; bycls[cls] += us; total += us
            if frames is not None: frames.append((list(cur), us * 1000))
            cur = []; i += 2; continue
        if l and l != "--": cur.append(re.sub(r"\+0x.*", "", l))
        i += 1
    return total * 1000, {k: v * 1000 for k, v in bycls.items()}, {k: v * 1000 for k, v in stacks.items()}

def cmd_counts(strace_txt, js):
    j = load(js); ad = {s["name"]: s for s in j["syscalls"]}
    st = {}
    for l in open(strace_txt):
        p = l.split()
        if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
            calls = int(p[3]); errs = int(p[4]) if len(p) == 6 else 0
            st[p[-1]] = (calls, errs)
    for name in sorted(set(st) | set(ad), key=lambda n: -(st.get(n, (0,))[0])):
        a = ad.get(name, {"calls": 0, "errors": 0}); s = st.get(name, (0, 0))
        row("%s calls/errors" % name, "%d/%d" % (a["calls"], a["errors"]), "%d/%d" % s, "exact",
            a["calls"] == s[0] and a["errors"] == s[1])
    flush("adaptrm --trace", "strace -fc")

def cmd_hist(js, bt):
    j = load(js); h = [s for s in j["syscalls"] if s["name"] == "unlinkat"][0]["latency_ns"]
    ab = {v: c for v, c in h["buckets"]}
    bb, btotal = {}, None
    for l in open(bt):
        l = l.strip()
        if not l.startswith("{"): continue
        o = json.loads(l)
        if o.get("type") == "hist":
            for b in o["data"]["@h"]:
                bb[b.get("min", 0)] = b["count"]
        elif o.get("type") == "map" and "@t" in o.get("data", {}):
            btotal = o["data"]["@t"]
    an, bn = sum(ab.values()), sum(bb.values())
    row("unlinkat calls", an, bn, "exact", an == bn)
    # Both tools time the same calls from sys_enter to sys_exit; whichever's
    # probes run first on entry and last on exit also times the other's probe
    # code (~100-200 ns a call). That moves calls across the bucket boundary
    # nearest the median; it is the anchors' overlap, not an error of either.
    nest = 250.0
    if btotal is not None:
        d = (h["total"] - btotal) / max(an, 1)
        row("unlinkat total time", ms(h["total"]), ms(btotal), "2%, or 250 ns a call (nested probes)",
            within(h["total"], btotal, 0.02) or abs(d) <= nest)
        row("  difference per call", "%+.0f ns" % d, "", "<= 250 ns", abs(d) <= nest)
    diff = 0
    for v in sorted(set(ab) | set(bb)):
        a, b = ab.get(v, 0), bb.get(v, 0); diff += abs(a - b)
        if v >= 8192:
            row("  bucket [%d ns, ...)" % v, a, b, "2% of calls, or 2", abs(a - b) <= max(2, 0.02 * an))
        else:
            row("  bucket [%d ns, ...)" % v, a, b, "10% of calls (boundary moved by nested probes)", abs(a - b) <= max(2, 0.10 * an))
    row("histogram mass moved", "%.2f%%" % (50.0 * diff / max(an, 1)), "", "<= 10%, all of it next to the median",
        50.0 * diff / max(an, 1) <= 10)
    flush("adaptrm --trace -p", "bpftrace (same run)")

def perf_lock(path):
    per = defaultdict(lambda: [0, 0.0]); callers = defaultdict(lambda: defaultdict(float))
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    for l in open(path):
        m = re.match(r"\s*(\d+)\s+([\d.]+) (ns|us|ms|s)\s+\S+ \S+\s+\S+ \S+\s+(\S+)\s+(\S+)", l)
        if not m: continue
        n, t = int(m.group(1)), float(m.group(2)) * unit[m.group(3)]
        per[m.group(4)][0] += n; per[m.group(4)][1] += t
        callers[m.group(4)][re.sub(r"\+0x.*", "", m.group(5))] += t
    return per, callers

def cmd_locks(js, perf_txt):
    j = load(js); per, callers = perf_lock(perf_txt)
    ad = {l["type"]: l["wait_ns"] for l in j["locks"]}
    # perf 6.1 names a sleeping mutex and a spinning one both "mutex"
    if "mutex-spin" in ad:
        m = ad.setdefault("mutex", {"count": 0, "total": 0})
        ad["mutex"] = {"count": m["count"] + ad["mutex-spin"]["count"], "total": m["total"] + ad["mutex-spin"]["total"]}
        del ad["mutex-spin"]
    for t in sorted(set(ad) | set(per), key=lambda t: -per.get(t, [0, 0])[1]):
        a = ad.get(t, {"count": 0, "total": 0}); p = per.get(t, [0, 0])
        row("%s waits" % t, a["count"], p[0], "2%, or 10", within(a["count"], p[0], 0.02, 10))
        row("%s wait time" % t, ms(a["total"]), ms(p[1]), "25%, or 1 ms (perf's cost lands inside)",
            within(a["total"], p[1], 0.25, 1e6))
    acall = defaultdict(lambda: defaultdict(float))
    for c in j.get("lock_callers", []):
        acall[c["type"]][re.sub(r"\+0x.*", "", c["caller"])] += c["total_ns"]
    for t in sorted(callers, key=lambda t: -per[t][1])[:3]:
        pc = max(callers[t], key=callers[t].get)
        if not acall.get(t):
            row("%s top caller" % t, "- (not among adaptrm's top callers)", pc, "same function", True); continue
        ac = max(acall[t], key=acall[t].get)
        row("%s top caller" % t, ac, pc, "same function", ac == pc)
    bt = j.get("fs", {}).get("btrfs", {}).get("tree_lock_wait_ns")
    if bt and bt.get("count"):
        rw = per.get("rwsem:R", [0])[0] + per.get("rwsem:W", [0])[0]
        row("btrfs tree-lock waits", bt["count"], "%d (rwsem:R+W)" % rw, "2%, or 10", within(bt["count"], rw, 0.02, 10))
    flush("adaptrm --trace", "perf lock contention")

def cmd_offcpu(js, off, expect=""):
    j = load(js); a = j["offcpu"]["blocked_ns"]["total"]
    total, bycls, stacks = offcpu(off)
    row("D (blocked) time", ms(a), ms(total), "5%, or 2 ms", within(a, total, 0.05, 2e6))
    sites = j.get("wait_sites") or j.get("offcpu", {}).get("wait_sites")
    for cls, v in sorted(bycls.items(), key=lambda x: -x[1]):
        row("  D in %s" % cls, "-" if not sites else "(wait sites below)", "%s (%.0f%%)" % (ms(v), 100 * v / max(total, 1)), "", True)
    xl = j.get("fs", {}).get("xfs", {}).get("log_grant_wait_ns", {}).get("total", 0)
    if xl or bycls.get("xfs log grant"):
        v = bycls.get("xfs log grant", 0)
        row("xfs log-grant wait", ms(xl), ms(v), "10%, or 2 ms", within(xl, v, 0.10, 2e6))
    if bycls.get("xfs inodegc"):
        g = sum(w.get("blocked_ns", 0) for w in (sites or []) if w.get("cause") == "xfs_inodegc")
        row("xfs inodegc throttle time", ms(g) if sites else "%d throttles, not timed" % j["fs"]["xfs"].get("inodegc_throttles", 0),
            ms(bycls["xfs inodegc"]), "10%, or 2 ms", bool(sites) and within(g, bycls["xfs inodegc"], 0.10, 2e6))
    topcls = max(bycls, key=bycls.get) if bycls else "none"
    tw = top_wait(j)
    ok = any(c == topcls for c in FINDING_CLASS.get(tw, "").split("|"))
    row("top wait: verdict vs stacks", tw, "%s %.0f%%" % (topcls, 100 * bycls.get(topcls, 0) / max(total, 1)),
        "finding names the top class", ok)
    flush("adaptrm --trace -p", "offcputime --state 2 (same run)")
    if sites:
        byc = defaultdict(float)
        for w in sites: byc[w.get("cause", "?")] += w.get("blocked_ns", 0)
        print("  adaptrm wait sites, D by cause: " + ", ".join("%s %s" % (c, ms(v)) for c, v in sorted(byc.items(), key=lambda x: -x[1])))
        w = max(sites, key=lambda w: w.get("blocked_ns", 0))
        print("  adaptrm top wait site: %s (%s) <- %s" % (w.get("site"), w.get("cause"), " <- ".join(w.get("stack", [])[:3])))
    print("  top D stacks (offcputime):")
    for k, v in sorted(stacks.items(), key=lambda x: -x[1])[:4]:
        print("    %8s  %s" % (ms(v), k))
    print("  adaptrm verdict: " + verdict(j))

def cmd_sched(js, th_path, runqlat=None, ncpu=2):
    j = load(js); ncpu = int(ncpu)
    run, delay = defaultdict(float), 0.0
    for tid, e in timehist(th_path).items():
        for x in e: delay += x[1]; run[tid] += x[2]
    pre = j["offcpu"]["preempted_ns"]["total"]
    rq = j.get("runq")  # wakeup-to-run histogram; preempted-to-run is offcpu.preempted_ns
    rqt = rq["wakeup_to_run_ns"]["total"] + pre if rq else None
    tot = n = 0
    for l in open(runqlat):
        m = re.match(r"\s*(\d+) -> (\d+)\s*:\s*(\d+)", l)
        if m:
            lo, hi, c = int(m.group(1)), int(m.group(2)), int(m.group(3))
            tot += c * (lo + hi) / 2.0 * 1000; n += c
    # runqlat counts from wakeup and from preemption to running; its log2
    # buckets make the total an estimate within about a third
    row("run-queue delay", ms(rqt) if rqt is not None else "not measured",
        "~%s (runqlat, %d waits, log2 midpoints)" % (ms(tot), n), "35% (the anchor's total is an estimate)",
        rqt is not None and within(rqt, tot, 0.35))
    row("  preempted time (one part of it)", ms(pre), "<= ~" + ms(tot), "adaptrm <= anchor x 1.35", pre <= tot * 1.35 + 1e6)
    wk = rq["wakeup_to_run_ns"]["total"] if rq else None
    row("  wakeup-to-run delay", ms(wk) if wk is not None else "not measured",
        "%s (perf sched timehist sch delay)" % ms(delay), "20%, or 5 ms", wk is not None and within(wk, delay, 0.2, 5e6))
    ran = sorted((v for v in run.values() if v > 10e6), reverse=True)
    over = any(f["id"] == "cpu_oversubscription" for f in j["findings"])
    row("threads that ran > 10 ms", "max_threads %d, oversubscription %s" % (j["max_threads"], "claimed" if over else "not claimed"),
        "%d (%s)" % (len(ran), ", ".join(ms(v) for v in ran[:4])), "'N threads ran on %d CPUs' needs > %d traced threads running" % (ncpu, ncpu), over == (len(ran) > ncpu))
    flush("adaptrm --trace -p", "perf sched timehist / runqlat (same run)")
    print("  adaptrm verdict: " + verdict(j))

# adaptrm's site rule (user/probes/waitclass.c): the first frame that is not
# scheduling, generic waiting, locking or tracing code
SITE_SKIP = ["schedule", "__schedule", "schedule_timeout", "schedule_hrtimeout*", "schedule_preempt_disabled",
    "io_schedule", "io_schedule_timeout", "preempt_schedule*", "__cond_resched", "__wait_on_bit",
    "__wait_on_bit_lock", "out_of_line_wait_on_bit*", "bit_wait", "bit_wait_io", "bit_wait_timeout",
    "bit_wait_io_timeout", "__wait_on_buffer", "wait_on_buffer", "__lock_buffer", "lock_buffer",
    "wait_for_completion*", "__wait_for_common", "wait_for_common*", "do_wait_for_common", "__flush_work",
    "flush_work", "flush_delayed_work", "rwsem_down_*", "down", "down_*", "__down*", "mutex_lock*",
    "__mutex_lock*", "mutex_lock_io*", "rt_mutex*", "__rt_mutex*", "percpu_rwsem_wait", "__percpu_down_read",
    "percpu_down_*", "folio_wait_bit*", "__folio_lock*", "folio_lock*", "wait_on_page_bit*", "__lock_page*",
    "prepare_to_wait*", "finish_wait", "wait_woken", "___wait_var_event", "__wait_var_event",
    "finish_task_switch*", "bpf_*", "__bpf_*", "__traceiter_*", "trace_call_bpf", "perf_trace_*",
    "do_nanosleep", "hrtimer_nanosleep"]
import fnmatch
def site_fn(frames):
    for f in frames:
        if not any(fnmatch.fnmatchcase(f, g) for g in SITE_SKIP): return f
    return frames[0] if frames else "?"
def fn(site): return re.sub(r"\+0x\S*", "", site).replace(" (space)", "").strip()
def pct(x): return "%.0f%%" % (100 * x)
def na(what, b, tol="-", why="n/a: not in this binary"):
    rows.append((what, why, b, tol, "n/a"))
def finding_ns(j, ids):
    return sum(f["share"] for f in j["findings"] if f["id"] in ids and not f.get("explains")) * j["whole_ns"]
def top_id(j):
    c = [f for f in j["findings"] if f.get("cause", True) and not f.get("explains")]
    return max(c, key=lambda f: f["share"])["id"] if c else "none"
def timehist(path):
    """perf sched timehist --state: {tid: [(wait, sch delay, run in ns, state at the switch out)]}"""
    ev = defaultdict(list)
    for l in open(path):
        p = l.split()
        if len(p) >= 7 and re.match(r"[\d.]+$", p[0]) and p[1].startswith("["):
            m = re.search(r"\[(\d+)(?:/\d+)?\]$", p[2])
            try: ev[int(m.group(1)) if m else p[2]].append(tuple(float(x) * 1e6 for x in p[-4:-1]) + (p[-1],))
            except ValueError: pass
    return ev
def th_runnable(ev):
    """runnable time: the sch delay after each wakeup, and the wait that
    followed a switch out in state R (preempted or throttled), which perf
    puts in its wait time"""
    t = 0.0
    for e in ev.values():
        for i, x in enumerate(e):
            t += x[1] + (x[0] if i and e[i - 1][3].startswith("R") else 0)
    return t
def runqlat_total(path):
    tot = n = 0
    for l in open(path):
        m = re.match(r"\s*(\d+) -> (\d+)\s*:\s*(\d+)", l)
        if m:
            lo, hi, c = int(m.group(1)), int(m.group(2)), int(m.group(3))
            tot += c * (lo + hi) / 2.0 * 1000; n += c
    return tot, n

def cmd_sites(js, off, states="D", title="offcputime --state 2 (same run)"):
    """the top-3 wait sites by off-CPU time, both folded by adaptrm's site rule"""
    j = load(js); frames = []
    total, _, _ = offcpu(off, frames)
    b = defaultdict(float)
    for st, ns in frames:
        # the held shell's read of the fifo began before the trace did
        if "S" in states and site_fn(st) in ("pipe_read", "anon_pipe_read"): continue
        b[site_fn(st)] += ns
    a = defaultdict(float)
    for w in j.get("wait_sites", []):
        if w["state"] in states: a[fn(w["site"])] += w["total_ns"]
    at, bt = sum(a.values()), sum(b.values())
    row("off-CPU time at sites (%s)" % "+".join(states), ms(at), ms(bt), "5%, or 2 ms", within(at, bt, 0.05, 2e6))
    atop = sorted(a.items(), key=lambda x: -x[1])[:3]; btop = sorted(b.items(), key=lambda x: -x[1])[:3]
    for i in range(3):
        x = atop[i] if i < len(atop) else ("-", 0); y = btop[i] if i < len(btop) else ("-", 0)
        xs, ys = x[1] / max(at, 1), y[1] / max(bt, 1)
        # a rank below 2% of the time is noise: its function may differ
        ok = (x[0] == y[0] or max(xs, ys) < 0.02) and within(xs, ys, 0.15, 0.02)
        row("  site #%d (share of the sites' time)" % (i + 1), "%s %s" % (x[0], pct(xs)), "%s %s" % (y[0], pct(ys)),
            "same function, share within 15% or 2 points", ok)
    flush("adaptrm wait_sites", title)

def cmd_whole(js, th=None, ut=None, main=None):
    """the verdict's base: shares sum to 1; whole_ns against the threads' lifetime"""
    j = load(js); t = j["verdict_total_share"]
    row("verdict_total_share", "%.4f" % t, "1", "1 +- 0.01", abs(t - 1) <= 0.01)
    if not th:
        na("whole_ns vs thread lifetime", "-", why="n/a: no perf sched on this run")
        flush("adaptrm --trace", "perf sched timehist"); return
    ev = timehist(th); life = 0.0
    for tid, e in ev.items():
        life += sum(x[0] + x[1] + x[2] for x in e)
        # the held shell slept on the fifo since before the trace attached
        if str(tid) == str(main): life -= e[0][0]
    utime = nthr = 0
    for l in open(ut):
        p = l.split()
        if len(p) == 3 and p[0].isdigit(): utime += int(p[1]); nthr += 1
    w = j["whole_ns"]
    row("whole_ns", ms(w), "%s (%d threads: run + sch delay + wait)" % (ms(life), len(ev)),
        "<= lifetime; the gap is user CPU (below)", w <= life * 1.02 + 5e6)
    # without on-CPU accounting whole_ns leaves out user time (and the
    # kernel's outside system calls: faults, return to user); the exit's
    # utime is counted in ticks, a few ms off per thread
    tol = max(0.05 * life, 10e6 * max(nthr, 1))
    row("  whole_ns + user time at exit (%s)" % ms(utime), ms(w + utime), ms(life),
        "5%%, or 10 ms a thread (%s)" % ms(tol), abs(w + utime - life) <= tol)
    run = sum(x[2] for e in ev.values() for x in e)
    on = j.get("oncpu", {}).get("oncpu_ns")
    if on is None:
        na("  on-CPU time", "perf sched run time %s" % ms(run))
    else:
        tol = max(0.05 * run, 10e6 * len(ev))
        row("  on-CPU time (switch in to out)", ms(on), "perf sched run time %s" % ms(run),
            "5%%, or 10 ms a thread (%s)" % ms(tol), abs(on - run) <= tol)
    flush("adaptrm --trace -p", "perf sched timehist + utime at exit (same run)")

def cmd_quota(js, th, rq, cgdir, thr_ns, nthr):
    j = load(js); thr_ns, nthr = float(thr_ns), int(nthr)
    cg = [c for c in j["cgroups"]["cpu"] if c["dir"] == cgdir]
    c = cg[0] if cg else {"throttled_ns": None, "nr_throttled": None, "quota_us": None}
    row("quota of the cgroup", "%s/%s us" % (c.get("quota_us"), c.get("period_us")), "20000/100000 us", "exact",
        c.get("quota_us") == 20000)
    row("throttled periods", c["nr_throttled"], "%d (cpu.stat nr_throttled delta)" % nthr, "exact, or 1",
        c["nr_throttled"] is not None and abs(c["nr_throttled"] - nthr) <= 1)
    row("throttled time", ms(c["throttled_ns"] or 0), "%s (cpu.stat throttled_time delta)" % ms(thr_ns), "5%, or 2 ms",
        c["throttled_ns"] is not None and within(c["throttled_ns"], thr_ns, 0.05, 2e6))
    q = finding_ns(j, {"cpu_quota"})
    row("cpu_quota share x whole_ns", ms(q), ms(thr_ns), "5%, or 2 ms", within(q, thr_ns, 0.05, 2e6))
    run = j["offcpu"]["preempted_ns"]["total"] + j["runq"]["wakeup_to_run_ns"]["total"]
    fr = finding_ns(j, {"cpu_quota", "cpu_oversubscription", "cpu_contention"})
    row("runnable: findings x whole_ns vs measured", ms(fr), "%s (adaptrm's preempted + wakeup-to-run)" % ms(run),
        "1%, or 1 ms (a part under 1% is in minor_parts)", within(fr, run, 0.01, 1e6) or (fr <= run and run - fr <= 0.01 * j["whole_ns"]))
    delay = th_runnable(timehist(th))
    row("runnable time", ms(run), "%s (perf sched timehist: sch delay + wait after R)" % ms(delay), "10%, or 5 ms",
        within(run, delay, 0.10, 5e6))
    tot, n = runqlat_total(rq)
    row("runnable time", ms(run), "~%s (runqlat, %d waits, log2 midpoints)" % (ms(tot), n), "35% (the anchor's total is an estimate)",
        within(run, tot, 0.35))
    row("top cause", top_id(j), "cpu_quota", "same", top_id(j) == "cpu_quota")
    flush("adaptrm --trace -p", "cgroup cpu.stat, perf sched, runqlat (same run)")
    print("  adaptrm verdict: " + verdict(j))

def cmd_memcg(js, bt, cgdir, fail):
    j = load(js); fail = int(fail); v = {}
    for l in open(bt):
        m = re.match(r"@(\w+): (\d+)", l.strip())
        if m: v[m.group(1)] = int(m.group(2))
    nm, nd = v.get("nm", 0), v.get("nd", 0)
    row("reclaims in the deleter's context", "(not counted)", "%d memcg, %d direct (vmscan tracepoints)" % (nm, nd),
        "the workload reclaims: > 0", nm + nd > 0)
    na("reclaim time, on and off CPU", "%s (begin to end)" % ms(v.get("tm", 0) + v.get("td", 0)), "10%, or 2 ms",
       "n/a: on-CPU samples not in this binary")
    sites = [w for w in j.get("wait_sites", []) if w["cause"] == "reclaim"]
    st = sum(w["total_ns"] for w in sites)
    off = v.get("off", 0)
    row("reclaim time off CPU", "%s (reclaim wait sites)" % ms(st), "%s (switch out to in, inside reclaim)" % ms(off),
        "10%, or 2 ms", within(st, off, 0.10, 2e6))
    rf = finding_ns(j, {"memcg_reclaim", "memory_reclaim"})
    named = [f["id"] for f in j["findings"] if f["id"] in ("memcg_reclaim", "memory_reclaim")]
    row("memcg_reclaim share x whole_ns", "%s (%s)" % (ms(rf), ", ".join(named) or "not named"),
        "%s (off CPU: what it can hold without samples)" % ms(off), "10%, or 2 ms (under 1%: minor_parts)",
        within(rf, off, 0.10, 2e6) or (not named and off < 0.01 * j["whole_ns"]))
    cg = [c for c in j["cgroups"]["memory"] if c["dir"] == cgdir]
    f = cg[0]["failcnt"] if cg else None
    row("failcnt", f, "%d (memory.failcnt delta)" % fail, "2%, or 2", f is not None and within(f, fail, 0.02, 2))
    flush("adaptrm --trace -p", "bpftrace vmscan + memory.failcnt (same run)")
    print("  adaptrm verdict: " + verdict(j))

def cmd_blkio(js, dev, cgdir, io_r, io_w, blk):
    j = load(js); io_r, io_w, blk = int(io_r), int(io_w), int(blk)
    d = [x for x in j["fs"]["devices"] if x["dev"] == dev]
    n = d[0]["block"]["latency_ns"]["count"] if d else 0
    row("block requests on %s" % dev, n, "%d (/sys/block stat, reads + writes)" % blk, "2%, or 5", within(n, blk, 0.02, 5))
    row("  the cgroup's I/Os on it", n, "%d + %d (blkio.throttle.io_serviced Read + Write delta)" % (io_r, io_w),
        "adaptrm >= cgroup (it counts every writer: jbd2, flusher), within 5% or 10",
        n >= io_r + io_w - 10 and within(n, io_r + io_w, 0.05, 10))
    cg = [c for c in j["cgroups"]["io"] if c["dir"] == cgdir]
    cd = [x for x in (cg[0]["devices"] if cg else []) if x["dev"] == dev]
    rios = cd[0]["rios"] if cd else None
    row("  cgroups.io rios", rios, "%d (io_serviced Read delta)" % io_r, "2%, or 2", rios is not None and within(rios, io_r, 0.02, 2))
    t = top_id(j); txt = [f["text"] for f in j["findings"] if f["id"] == "device_throttled"]
    row("top cause", t, "device_throttled", "same", t == "device_throttled")
    row("  names the cgroup and its limit", "yes" if txt and cgdir in txt[0] and "IOPS" in txt[0] else "no",
        "%s, %s read IOPS" % (cgdir, "300"), "both in the text", bool(txt) and cgdir in txt[0] and "IOPS" in txt[0])
    flush("adaptrm --trace -p", "blkio cgroup, /sys/block (same run)")

def cmd_fuse(js, off):
    j = load(js); frames = []
    offcpu(off, frames)
    a = sum(ns for st, ns in frames if any(f.startswith("request_wait_answer") for f in st))
    sites = [w for w in j.get("wait_sites", []) if w["cause"] == "fuse"]
    st, sb = sum(w["total_ns"] for w in sites), sum(w["blocked_ns"] for w in sites)
    row("off-CPU in request_wait_answer", "%s (fuse wait sites, %d waits)" % (ms(st), sum(w["count"] for w in sites)),
        ms(a), "5%, or 2 ms", within(st, a, 0.05, 2e6))
    f = finding_ns(j, {"fuse_daemon"})
    row("fuse_daemon share x whole_ns", ms(f), "%s (fuse sites' blocked_ns)" % ms(sb), "1%, or 1 ms", within(f, sb, 0.01, 1e6))
    # the anchor counts to the switch in, the finding to the wakeup: the
    # difference is the run-queue delay after each answer
    pre = j["runq"]["wakeup_to_run_ns"]["total"]
    row("fuse_daemon share x whole_ns", ms(f), ms(a), "anchor - finding <= adaptrm's wakeup-to-run (%s) + 5%%" % ms(pre),
        f <= a * 1.05 + 2e6 and a - f <= pre + 0.05 * a)
    row("top cause", top_id(j), "fuse_daemon", "same", top_id(j) == "fuse_daemon")
    flush("adaptrm --trace -p", "offcputime (all states, same run)")
    print("  adaptrm verdict: " + verdict(j))

globals()["cmd_" + sys.argv[1]](*sys.argv[2:])
PY
cmp() { python3 "$work/cmp.py" "$@"; }

echo "validate-trace: adaptrm $("$ADAPTRM" --version 2>/dev/null | head -1), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes'), $(uname -r), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC')"

# 1. tmpfs, GNU rm -rf of 50 x 1000: syscall counts, unlinkat histogram
if want tmpfs-rm; then
	say "tmpfs-rm: GNU rm -rf, tmpfs, 50 dirs x 1000 files"
	T=$work/tmp; mnt_tmpfs "$T"
	for d in a b c; do python3 "$MKTREE" "$T/$d" tree 50 1000; done
	echo "-- syscall counts: strace -fc rm -rf A  vs  adaptrm --trace -- rm -rf B (identical trees)"
	strace -fc -o "$work/strace.txt" rm -rf "$T/a"
	"$ADAPTRM" --trace --json "$work/cmd.json" -- rm -rf "$T/b" >/dev/null
	cmp counts "$work/strace.txt" "$work/cmd.json"
	cmp whole "$work/cmd.json"
	umount "$T"
	# on ext4 (unlinks of ~10 us) rather than tmpfs (~1 us): each tool's probe
	# cost lands inside the other's interval and moves tmpfs calls across the
	# 1 us bucket boundary
	echo "-- unlinkat latency, same run: adaptrm --trace -p and bpftrace on one held rm -rf, ext4 flat 50,000 (warm)"
	E=$work/ext4h; mnt_img ext4 "$E" "" || echo "cannot mount ext4"
	python3 "$MKTREE" "$E/c" flat 50000; sync
	held rm -rf "$E/c"
	bg_anchor bt bpftrace -f json -e "tracepoint:syscalls:sys_enter_unlinkat /pid == $HELD/ { @s[tid] = nsecs; }
		tracepoint:syscalls:sys_exit_unlinkat /pid == $HELD && @s[tid]/ { \$d = nsecs - @s[tid]; @h = hist(\$d); @t = sum(\$d); delete(@s[tid]); }"
	for _ in $(seq 100); do grep -qs attached_probes "$work/bt.out" && break; sleep 0.1; done
	trace_pid "$work/held.json" && release && wait_held
	stop_anchor bt
	cmp hist "$work/held.json" "$work/bt.out"
	cmp whole "$work/held.json"
	umount "$E"
fi

# 2. xfs, 8 workers sharing one directory: lock waits
if want xfs-shared; then
	say "xfs-shared: ADAPTRM_DIR_SHARE=8 adaptrm --trace -rf --threads=8, xfs flat 50,000"
	X=$work/xfs; mnt_img xfs "$X" "" || echo "cannot mount xfs"
	python3 "$MKTREE" "$X/d" flat 50000; sync
	echo "-- perf lock record -- adaptrm --trace (same run)"
	perf lock record -o "$work/lock.data" -- env ADAPTRM_DIR_SHARE=8 "$ADAPTRM" --trace --json "$work/locks.json" -rf --threads=8 "$X/d" >/dev/null 2>&1
	perf lock contention -i "$work/lock.data" -E 100000 >"$work/lock.txt" 2>&1 # it prints on stderr
	cmp locks "$work/locks.json" "$work/lock.txt"
	cmp whole "$work/locks.json"
	echo "  adaptrm verdict: $(jq -r '[.findings[] | "\(.id) \(.share * 100 | round)%"] | join(", ")' "$work/locks.json")"
fi

# 3. xfs, one worker on a flat directory (--threads=8, not shared): D stacks, run queue
if want xfs-one-worker; then
	say "xfs-one-worker: adaptrm -rf --threads=8 (one worker unlinks), xfs flat 100,000"
	X=$work/xfs; mountpoint -q "$X" || mnt_img xfs "$X" "" || echo "cannot mount xfs"
	python3 "$MKTREE" "$X/d" flat 100000; sync
	held "$ADAPTRM" -rf --threads=8 "$X/d"
	bg_anchor off offcputime -p "$HELD" --state 2
	whole_anchors x1
	bg_anchor rq runqlat -p "$HELD"
	sleep 2
	trace_pid "$work/x1.json" && release && wait_held
	stop_anchor off; stop_anchor rq; whole_stop x1
	cmp offcpu "$work/x1.json" "$work/off.out"
	cmp sites "$work/x1.json" "$work/off.out"
	cmp sched "$work/x1.json" "$work/x1.th" "$work/rq.out" "$(nproc)"
	cmp whole "$work/x1.json" "$work/x1.th" "$work/x1.ut" "$HELD"
fi

# 4. cold ext4 behind 300 read IOPS (blkio): D stacks, the cgroup's I/O
# counts, the verdict's device_throttled
if want ext4-cold || want blkio-throttle; then
	say "ext4-cold: GNU rm -rf, ext4 flat 30,000, remounted cold, 300 read IOPS (blkio cgroup)"
	E=$work/ext4; mnt_img ext4 "$E" "-i 8192" || echo "cannot mount ext4"
	python3 "$MKTREE" "$E/d" flat 30000; sync
	umount "$E"; mount "$LOOP" "$E"; echo 3 >/proc/sys/vm/drop_caches
	cg=/sys/fs/cgroup/blkio/adaptrm-validate-$$; mkdir "$cg" && CGS+=("$cg")
	echo "$(cat /sys/class/block/"$(basename "$LOOP")"/dev) 300" >"$cg/blkio.throttle.read_iops_device"
	# shellcheck disable=SC2016 # expanded by the held shell
	held sh -c 'echo $$ >"$0/cgroup.procs" && exec rm -rf "$1"' "$cg" "$E/d"
	bg_anchor off offcputime -p "$HELD" --state 2
	whole_anchors cold
	sleep 2
	dev=$(cat /sys/class/block/"$(basename "$LOOP")"/dev)
	io0=$(blkio_serviced "$cg" "$dev") blk0=$(blk_ios "$LOOP")
	trace_pid "$work/cold.json" && release && wait_held
	io1=$(blkio_serviced "$cg" "$dev") blk1=$(blk_ios "$LOOP")
	stop_anchor off; whole_stop cold
	cmp offcpu "$work/cold.json" "$work/off.out"
	cmp sites "$work/cold.json" "$work/off.out"
	echo "-- blkio-throttle: the same run against the cgroup's and the device's counters"
	read -r r0 w0 <<<"$io0"; read -r r1 w1 <<<"$io1"
	cmp blkio "$work/cold.json" "$dev" "$cg" $((r1 - r0)) $((w1 - w0)) $((blk1 - blk0))
	cmp whole "$work/cold.json" "$work/cold.th" "$work/cold.ut" "$HELD"
	umount "$E"
fi

# 5. ext4 mounted with discard (data=writeback: the unlinker discards inline)
if want ext4-discard; then
	say "ext4-discard: GNU rm -rf, ext4 -o discard,data=writeback, 3,000 files of 64 KiB"
	E=$work/ext4d; mnt_img ext4 "$E" "" discard,data=writeback || echo "cannot mount ext4"
	python3 -c 'import os,sys
d=sys.argv[1]; os.makedirs(d); b=b"x"*65536
for i in range(3000): open("%s/f%d" % (d, i), "wb").write(b)' "$E/d"; sync
	held rm -rf "$E/d"
	bg_anchor off offcputime -p "$HELD" --state 2
	whole_anchors disc
	sleep 2
	trace_pid "$work/disc.json" && release && wait_held
	stop_anchor off; whole_stop disc
	cmp offcpu "$work/disc.json" "$work/off.out"
	cmp sites "$work/disc.json" "$work/off.out"
	cmp whole "$work/disc.json" "$work/disc.th" "$work/disc.ut" "$HELD"
	umount "$E"
fi

# 6. CPU-bound workers beside 4 pinned busy loops: run-queue delay
if want cpu-hogs; then
	say "cpu-hogs: adaptrm -rf --threads=2, tmpfs 100 x 1000, beside 4 busy loops pinned to the CPUs"
	T=$work/tmp2; mnt_tmpfs "$T"
	python3 "$MKTREE" "$T/d" tree 100 1000
	hogs=()
	for i in 0 1 2 3; do taskset -c $((i % $(nproc))) sh -c 'while :; do :; done' & hogs+=($!); PIDS+=($!); done
	held "$ADAPTRM" -rf --threads=2 "$T/d"
	whole_anchors hogs
	bg_anchor rq runqlat -p "$HELD"
	sleep 2
	trace_pid "$work/hogs.json" && release && wait_held
	stop_anchor rq; whole_stop hogs
	for p in "${hogs[@]}"; do kill "$p"; wait "$p" 2>/dev/null; done
	cmp sched "$work/hogs.json" "$work/hogs.th" "$work/rq.out" "$(nproc)"
	cmp whole "$work/hogs.json" "$work/hogs.th" "$work/hogs.ut" "$HELD"
	umount "$T"
fi

# 7. btrfs, GNU rm -rf (one thread): lock waits, btrfs tree-lock counts
if want btrfs-rm; then
	say "btrfs-rm: GNU rm -rf, btrfs flat 50,000 (one thread)"
	B=$work/btrfs; mnt_img btrfs "$B" "" || echo "cannot mount btrfs"
	python3 "$MKTREE" "$B/d" flat 50000; sync
	perf lock record -o "$work/block.data" -- "$ADAPTRM" --trace --json "$work/btrfs.json" -- rm -rf "$B/d" >/dev/null 2>&1
	perf lock contention -i "$work/block.data" -E 100000 >"$work/block.txt" 2>&1
	cmp locks "$work/btrfs.json" "$work/block.txt"
	cmp whole "$work/btrfs.json"
	echo "  adaptrm verdict: $(jq -r '[.findings[] | "\(.id) \(.share * 100 | round)%"] | join(", ")' "$work/btrfs.json")"
fi

# 8. a CFS quota of 0.2 CPU: the cgroup's throttled time, the run queue
if want cpu-quota; then
	say "cpu-quota: GNU rm -rf, tmpfs 40 x 1000, in a v1 cpu cgroup of 20000/100000 us (0.2 CPU)"
	T=$work/tmpq; mnt_tmpfs "$T"
	python3 "$MKTREE" "$T/d" tree 40 1000
	cg=/sys/fs/cgroup/cpu/adaptrm-validate-$$; mkdir "$cg" && CGS+=("$cg")
	echo 100000 >"$cg/cpu.cfs_period_us" && echo 20000 >"$cg/cpu.cfs_quota_us"
	# shellcheck disable=SC2016 # expanded by the held shell
	held sh -c 'echo $$ >"$0/cgroup.procs" && exec rm -rf "$1"' "$cg" "$T/d"
	whole_anchors q
	bg_anchor rq runqlat -p "$HELD"
	sleep 2
	read -r t0 n0 < <(awk '$1 == "throttled_time" { t = $2 } $1 == "nr_throttled" { n = $2 } END { print t, n }' "$cg/cpu.stat")
	trace_pid "$work/q.json" && release && wait_held
	read -r t1 n1 < <(awk '$1 == "throttled_time" { t = $2 } $1 == "nr_throttled" { n = $2 } END { print t, n }' "$cg/cpu.stat")
	stop_anchor rq; whole_stop q
	cmp quota "$work/q.json" "$work/q.th" "$work/rq.out" "$cg" $((t1 - t0)) $((n1 - n0))
	cmp whole "$work/q.json" "$work/q.th" "$work/q.ut" "$HELD"
	umount "$T"
fi

# 9. a 48 MiB memory cgroup full of dirty page cache: the delete's own
# allocations (dentries, inodes, buffer heads of a cold ext4) reclaim
if want memcg-reclaim; then
	say "memcg-reclaim: GNU rm -rf, ext4 flat 20,000 cold, in a v1 memory cgroup of 48 MiB filled first by a 150 MiB write"
	E=$work/ext4m; mnt_img ext4 "$E" "-i 8192" || echo "cannot mount ext4"
	python3 "$MKTREE" "$E/d" flat 20000; sync
	umount "$E"; mount "$LOOP" "$E"; echo 3 >/proc/sys/vm/drop_caches
	cg=/sys/fs/cgroup/memory/adaptrm-validate-$$; mkdir "$cg" && CGS+=("$cg")
	echo $((48 << 20)) >"$cg/memory.limit_in_bytes"
	# shellcheck disable=SC2016 # expanded by the child shell
	sh -c 'echo $$ >"$0/cgroup.procs" && exec dd if=/dev/zero of="$1" bs=1M count=150 status=none' "$cg" "$E/big"
	# shellcheck disable=SC2016
	held sh -c 'echo $$ >"$0/cgroup.procs" && exec rm -rf "$1"' "$cg" "$E/d"
	r="tracepoint:vmscan:mm_vmscan_memcg_reclaim"; d="tracepoint:vmscan:mm_vmscan_direct_reclaim"
	bg_anchor vm bpftrace -e "${r}_begin /pid == $HELD/ { @s[tid] = nsecs; @nm = count(); }
		${d}_begin /pid == $HELD/ { @s[tid] = nsecs; @nd = count(); }
		${r}_end /pid == $HELD && @s[tid]/ { @tm = sum(nsecs - @s[tid]); delete(@s[tid]); }
		${d}_end /pid == $HELD && @s[tid]/ { @td = sum(nsecs - @s[tid]); delete(@s[tid]); }
		tracepoint:sched:sched_switch /@s[args->prev_pid]/ { @o[args->prev_pid] = nsecs; }
		tracepoint:sched:sched_switch /@o[args->next_pid]/ { @off = sum(nsecs - @o[args->next_pid]); delete(@o[args->next_pid]); }
		END { clear(@s); clear(@o); }"
	for _ in $(seq 100); do grep -qs Attaching "$work/vm.out" && break; sleep 0.1; done
	whole_anchors m
	f0=$(cat "$cg/memory.failcnt")
	trace_pid "$work/m.json" && release && wait_held
	f1=$(cat "$cg/memory.failcnt")
	stop_anchor vm; whole_stop m
	cmp memcg "$work/m.json" "$work/vm.out" "$cg" $((f1 - f0))
	cmp whole "$work/m.json" "$work/m.th" "$work/m.ut" "$HELD"
	umount "$E"
fi

# 10. FUSE, 1 ms per request: the daemon's answer time
if want fuse; then
	say "fuse: GNU rm -rf, slowfs --delay-us=1000, 20 dirs x 100 files"
	if [ -x "$SLOWFS" ] && [ -c /dev/fuse ]; then
		F=$work/fuse; mkdir -p "$F" "$work/fuse-backing"
		python3 "$MKTREE" "$work/fuse-backing/d" tree 20 100
		"$SLOWFS" --delay-us=1000 "$work/fuse-backing" "$F" -f </dev/null >/dev/null 2>&1 &
		fusepid=$!; PIDS+=("$fusepid"); MOUNTS+=("$F")
		for _ in $(seq 100); do mountpoint -q "$F" && break; sleep 0.05; done
		held rm -rf "$F/d"
		# every state: FUSE requests wait in S (request_wait_answer)
		bg_anchor off offcputime -p "$HELD"
		whole_anchors fuse
		sleep 2
		trace_pid "$work/fuse.json" && release && wait_held
		stop_anchor off; whole_stop fuse
		cmp fuse "$work/fuse.json" "$work/off.out"
		cmp sites "$work/fuse.json" "$work/off.out" DS "offcputime (all states, same run)"
		cmp whole "$work/fuse.json" "$work/fuse.th" "$work/fuse.ut" "$HELD"
		umount "$F"; kill "$fusepid"; wait "$fusepid" 2>/dev/null
	else
		echo "  skipped: no $SLOWFS (make tools) or no /dev/fuse"
	fi
fi
echo
echo "validate-trace: done"
