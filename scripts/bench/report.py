#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn scripts/bench/bench.sh's runs (TSV) into the report: medians per cell and
tool, adaptrm auto / best peer and auto / best pinned adaptrm (the oracle),
geometric means, as markdown and JSON.

    bench-report.py RUNS.tsv OUT.md OUT.json [OUT.png]

Context for the header comes from BENCH_* environment variables set by
bench.sh; without them (re-rendering an old TSV) the header is shorter.
"""
import csv
import json
import math
import os
import re
import statistics
import sys

PEERS = ["rm", "rmz", "find", "rsync"]
DATA_SHAPES = ("srcbuild", "nodemodules", "hugemix", "fragmented", "npm", "venv", "git", "cargo")
REAL_SHAPES = ("npm", "venv", "git", "cargo")
# Over this many times its CPU floor a tool waits more than it works: the
# cell gets a trace of what it waits on.
FLOOR_FLAG = 1.5
PEER_NAMES = {"rm": "GNU rm -rf", "rmz": "rmz", "find": "find -delete", "rsync": "rsync -a --delete"}


def is_pinned(tool):
    return tool.startswith("t") and tool[1:].isdigit()


def tool_header(tool):
    if tool == "auto":
        return "adaptrm auto"
    if is_pinned(tool):
        return "-t %s" % tool[1:]
    return PEER_NAMES.get(tool, tool)


def usable_cpus(tool, ncpu):
    """How many CPUs a tool can keep busy: adaptrm and rmz run threads on
    every CPU, -t N on N of them, GNU rm, find and rsync on one."""
    if is_pinned(tool):
        return max(1, min(int(tool[1:]), ncpu))
    return ncpu if tool in ("auto", "base", "rmz") else 1


def read_waits(path):
    """The traced waits (scripts/bench/realtree.sh): cell key -> {tool: text}."""
    waits = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 6:
                    waits.setdefault(tuple(parts[:4]), {})[parts[4]] = parts[5]
    return waits


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def median_ci(xs, level=0.95):
    """Distribution-free confidence interval for the median of xs: the
    order statistics x(k), x(n-k+1) with the largest k whose binomial tail
    P(Bin(n, 1/2) < k) stays within (1 - level) / 2. Returns (lo, hi,
    coverage); with fewer than 6 values no interval reaches 95%, and the
    whole range is returned with the coverage it has."""
    xs = sorted(xs)
    n = len(xs)
    tail = lambda k: sum(math.comb(n, i) for i in range(k)) / 2 ** n
    k = 1
    while k + 1 <= n // 2 and tail(k + 1) <= (1 - level) / 2:
        k += 1
    return xs[k - 1], xs[n - k], 1 - 2 * tail(k)


def paired(runs, cell, a, b):
    """Tool A over tool B repetition by repetition: the tools of one
    repetition ran back to back, so each pair shares the machine's state of
    the moment, which the medians of a noisy shared machine do not. Rows
    from several benchmark runs (concatenated TSVs) pair within their run."""
    walls = {}
    for r in runs:
        if key(r) == key(cell) and r["status"] == "ok" \
                and r["tool"] in (a, b):
            walls.setdefault((r.get("run") or "", r["rep"]), {})[r["tool"]] = float(r["wall"])
    ratios = [w[a] / w[b] for w in walls.values() if a in w and b in w and w[b] > 0]
    if not ratios:
        return None
    lo, hi, cover = median_ci(ratios)
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
            "ci_low": lo, "ci_high": hi, "ci_coverage": cover,
            "a_faster": sum(1 for x in ratios if x < 1), "n": len(ratios)}


def key(r):
    """A cell: filesystem, shape, and the condition (cache, disk)."""
    return (r["fs"], r["shape"], r["cache"], r["disk"])


def disk_text(disk):
    """iops:400 -> "400 IOPS"; latency:500 -> "500 µs/op"."""
    kind, _, value = disk.partition(":")
    return {"iops": "%s IOPS" % value, "diskiops": "%s IOPS disk" % value,
            "deviops": "%s IOPS device" % value,
            "latency": "%s µs/op" % value}.get(kind, disk)


def cell_name(c):
    """How the text names a cell: fs and tree, and the condition if any."""
    if (c["cache"], c["disk"]) == ("warm", "none"):
        return "%s %s" % (c["fs"], c["label"])
    cond = c["cache"] + ("" if c["disk"] == "none" else ", " + disk_text(c["disk"]))
    return "%s %s (%s)" % (c["fs"], c["label"], cond)


def short(note, n=60):
    return note if len(note) <= n else note[:n] + "..."


def fmt_s(x):
    if x is None:
        return ""
    return "%.2f" % x if x < 100 else "%.0f" % x


def paired_note(p):
    if not p:
        return ""
    return "; repetition by repetition %.2f (%.0f%% interval %.2f-%.2f), auto faster in %d of %d" % (
        p["median"], 100 * p["ci_coverage"], p["ci_low"], p["ci_high"], p["a_faster"], p["n"])


def measurably_slower(c):
    """Slower by the medians, and by the pairs too: the interval of the
    per-repetition ratio lies wholly above 1. Only an interval of 90% or
    more counts (5 repetitions or more): 3 give one of 75%."""
    p = c.get("paired_peer")
    return bool(c["auto_over_peer"] and c["auto_over_peer"] > 1.0 and p and p["ci_coverage"] >= 0.9
                and p["ci_low"] > 1.0)


def main():
    runs_path, md_path, json_path = sys.argv[1:4]
    with open(runs_path, newline="") as f:
        runs = [r for r in csv.DictReader(f, delimiter="\t") if r.get("status") and not r.get(None)]
    # Rows of runs from before the cache and disk conditions were recorded have
    # none: they ran warm, without a slow disk.
    for r in runs:
        r["cache"] = r.get("cache") or "warm"
        r["disk"] = r.get("disk") or "none"

    ncpu = int(os.environ.get("BENCH_NCPU") or os.cpu_count() or 1)
    waits = read_waits(os.environ.get("BENCH_WAITS_FILE"))
    cells, tools = [], []
    for r in runs:
        if key(r) not in [key(c) for c in cells]:
            kind, _, value = r["disk"].partition(":")
            cells.append({"fs": r["fs"], "shape": r["shape"], "label": r["label"], "cache": r["cache"],
                          "disk": r["disk"], "disk_kind": kind, "disk_value": int(value) if value else None})
        if r["tool"] not in tools:
            tools.append(r["tool"])
    order = os.environ.get("BENCH_TOOLS_RUN", "").split()
    tools = [t for t in order if t in tools] + [t for t in tools if t not in order]

    for c in cells:
        c["tools"] = {}
        for t in tools:
            rs = [r for r in runs if key(r) == key(c) and r["tool"] == t]
            if not rs:
                continue
            bad = [r for r in rs if r["status"] != "ok"]
            walls = [float(r["wall"]) for r in rs if r["status"] == "ok"]
            cpus = [float(r["user"]) + float(r["sys"]) for r in rs if r["status"] == "ok"]
            c["tools"][t] = {
                "status": bad[0]["status"] if bad else "ok",
                "note": bad[0]["note"] if bad else "",
                "runs": len(rs),
                "median": statistics.median(walls) if walls and not bad else None,
                "cpu_median": statistics.median(cpus) if cpus and not bad else None,
                "walls": walls,
            }
            v = c["tools"][t]
            # The CPU floor: the time the tool's CPU work takes spread over the
            # CPUs it can use; wall time above it is time spent waiting.
            floor = v["cpu_median"] / usable_cpus(t, ncpu) if v["cpu_median"] else None
            v["cpu_floor"] = floor
            v["over_floor"] = v["median"] / floor if floor and v["median"] else None
        ok = {t: v["median"] for t, v in c["tools"].items() if v["median"] is not None}
        peers = {t: m for t, m in ok.items() if t in PEERS}
        pinned = {t: m for t, m in ok.items() if is_pinned(t)}
        c["best_peer"] = min(peers, key=peers.get) if peers else None
        c["oracle"] = min(pinned, key=pinned.get) if pinned else None
        auto = ok.get("auto")
        c["auto_over_peer"] = auto / peers[c["best_peer"]] if auto and c["best_peer"] else None
        c["auto_over_oracle"] = auto / pinned[c["oracle"]] if auto and c["oracle"] else None
        c["auto_over_rm"] = auto / ok["rm"] if auto and "rm" in ok else None
        c["paired_peer"] = paired(runs, c, "auto", c["best_peer"]) if auto and c["best_peer"] else None
        c["auto_over_base"] = auto / ok["base"] if auto and "base" in ok else None
        c["paired_base"] = paired(runs, c, "auto", "base") if c["auto_over_base"] else None

    gm_peer = geomean([c["auto_over_peer"] for c in cells])
    gm_oracle = geomean([c["auto_over_oracle"] for c in cells])
    gm_rm = geomean([c["auto_over_rm"] for c in cells])

    env = os.environ.get
    lines = ["## Benchmark results", ""]
    if env("BENCH_MACHINE"):
        lines.append("Machine: %s. Date: %s. adaptrm %s; %s." % (
            env("BENCH_MACHINE"), env("BENCH_DATE", "?"), env("BENCH_COMMIT", "?"),
            env("BENCH_RMZ_VERSION") or "rmz not installed"))
        lines.append("")
    reps = env("BENCH_REPS_RUN")
    if not reps:
        # Concatenated runs: say how many repetitions the medians rest on.
        counts = sorted({len(v["walls"]) for c in cells for v in c["tools"].values() if v["status"] == "ok"})
        reps = "%d" % counts[0] if len(counts) == 1 else "%d to %d" % (counts[0], counts[-1])
    conds = any((c["cache"], c["disk"]) != ("warm", "none") for c in cells)
    data = any(c["shape"] in DATA_SHAPES for c in cells)
    real = any(c["shape"] in REAL_SHAPES for c in cells)
    lines.append("Median wall time in seconds over %s repetitions (tools interleaved, fresh tree "
                 "each run, built then synced: warm cache%s); %s. "
                 "`-t N` is `adaptrm --threads=N`. A failed cell names the failure "
                 "(crash = killed by a signal, fail = non-zero exit, incomplete = tree left behind)." % (
                     reps, ", unless the cache column says cold" if conds else "",
                     "trees made by npm, pip, git and cargo, unpacked from a tarball for each run "
                     "(scripts/bench/realtree.sh)" if real else
                     "empty files, except in the shapes with data (sizes fallocate'd, see "
                     "tests/tools/mkdata.py)" if data else "empty files"))
    if conds:
        lines.append("cold: after the build, the filesystem unmounted, every cache dropped, mounted again. "
                     "Loop devices %s. N IOPS: a cgroup v1 blkio throttle of the loop device at N reads "
                     "and N writes a second, the tool run in it (cgroup v1 charges only the I/O the "
                     "tool submits itself, not journal or writeback writes). N IOPS disk: the same group capping "
                     "the disk under the image instead (the loop device's reads of it, after merging). "
                     "N IOPS device: the same cap on "
                     "every I/O to the device (the root group: kernel threads too), during the run only. N µs/op: the image on "
                     "slowfs (every FUSE request N µs slower, up to 64 overlapping), on a loop device "
                     "with direct I/O (every block request pays N µs)." % ("with direct I/O" if env("BENCH_DIRECT_IO_RUN", "on") == "on"
                                  else "buffered"))
    if "slowfs" in env("BENCH_FS_RUN", "") or any(c["fs"] == "slowfs" for c in cells):
        lines.append("slowfs is tests/tools/slowfs.c, a pass-through FUSE filesystem over tmpfs that "
                     "sleeps %s µs per operation (smaller trees there)." % env("BENCH_SLOW_DELAY", "?"))
    lines.append("")
    cond_head = ["cache", "disk"] if conds else []
    head = ["fs", "tree"] + cond_head + [tool_header(t) for t in tools] + ["auto / best peer", "auto / oracle"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("| --- | --- | " + "--- | " * len(cond_head) + " | ".join(["---:"] * (len(tools) + 2)) + " |")
    for c in cells:
        ok = {t: v["median"] for t, v in c["tools"].items() if v["median"] is not None}
        fastest = min(ok.values()) if ok else None
        row = [c["fs"], c["label"]] + ([c["cache"], disk_text(c["disk"])] if conds else [])
        for t in tools:
            v = c["tools"].get(t)
            if v is None:
                row.append("n/a")
            elif v["median"] is None:
                row.append(v["status"])
            else:
                s = fmt_s(v["median"])
                row.append("**%s**" % s if v["median"] == fastest else s)
        row.append("%.2f (%s)" % (c["auto_over_peer"], c["best_peer"]) if c["auto_over_peer"] else "")
        row.append("%.2f (%s)" % (c["auto_over_oracle"], c["oracle"].replace("t", "-t ")) if c["auto_over_oracle"] else "")
        lines.append("| " + " | ".join(row) + " |")
    gm = ["**geometric mean**", ""] + [""] * (len(tools) + len(cond_head))
    gm.append("**%.2f**" % gm_peer if gm_peer else "")
    gm.append("**%.2f**" % gm_oracle if gm_oracle else "")
    lines.append("| " + " | ".join(gm) + " |")
    lines.append("")
    lines.append("auto / best peer: adaptrm's default over the fastest of GNU rm, rmz, find -delete and "
                 "rsync in that cell (below 1 = adaptrm wins). auto / oracle: over the fastest pinned "
                 "thread count that was run (1 = the controller found the best setting).")
    if gm_rm:
        lines.append("Geometric mean of auto / GNU rm: %.2f." % gm_rm)
    losses = [c for c in cells if c["auto_over_peer"] and c["auto_over_peer"] > 1.0]
    far = [c for c in cells if c["auto_over_oracle"] and c["auto_over_oracle"] > 1.10]
    lines.append("")
    lines.append("Cells where auto is slower than the best peer: %s." % (
        ", ".join("%s (%.2f vs %s%s)" % (cell_name(c), c["auto_over_peer"], c["best_peer"],
                                           paired_note(c["paired_peer"])) for c in losses)
        or "none"))
    if losses:
        slower = [c for c in losses if measurably_slower(c)]
        few = [c for c in losses if c["paired_peer"] and c["paired_peer"]["ci_coverage"] < 0.9]
        lines.append("Of these, measurably slower (the interval of the per-repetition ratio above 1): %s%s." % (
            ", ".join(cell_name(c) for c in slower) or "none",
            "; too few repetitions for a 90%% interval in %s" % ", ".join(
                cell_name(c) for c in few) if few else ""))
    based = [c for c in cells if c["auto_over_base"]]
    if based:
        lines.append("auto / base (this binary over BENCH_BASE, the same cells): %s; geometric mean %.2f." % (
            ", ".join("%s %.2f%s" % (cell_name(c), c["auto_over_base"], paired_note(c["paired_base"]))
                      for c in based), geomean([c["auto_over_base"] for c in based])))
    lines.append("Cells where auto is more than 10%% off the oracle: %s." % (
        ", ".join("%s (%.2f vs %s)" % (cell_name(c), c["auto_over_oracle"], c["oracle"]) for c in far)
        or "none"))
    lines.append("")
    lines.append("CPU time (user + sys, seconds, median):")
    lines.append("")
    lines.append("| fs | tree | " + "".join(h + " | " for h in cond_head) + " | ".join(tool_header(t) for t in tools) + " |")
    lines.append("| --- | --- | " + "--- | " * len(cond_head) + " | ".join(["---:"] * len(tools)) + " |")
    for c in cells:
        row = [c["fs"], c["label"]] + ([c["cache"], disk_text(c["disk"])] if conds else [])
        for t in tools:
            v = c["tools"].get(t)
            row.append("n/a" if v is None else (fmt_s(v["cpu_median"]) if v["cpu_median"] is not None else v["status"]))
        lines.append("| " + " | ".join(row) + " |")
    lines += floor_table(cells, tools, cond_head, ncpu, waits)
    # One line per distinct failure, with the cells it happened in.
    failures = {}
    for c in cells:
        for t, v in c["tools"].items():
            if v["status"] != "ok":
                fkey = (t, v["status"], short(re.sub(r"\(\d+\) ", "", v["note"])))
                failures.setdefault(fkey, []).append(cell_name(c))
    if failures:
        lines.append("")
        lines.append("Failures:")
        lines.append("")
        for (t, status, note), where in failures.items():
            lines.append("- %s, %s in %s: `%s`" % (tool_header(t), status, ", ".join(where), note))
    md = "\n".join(lines) + "\n"
    with open(md_path, "w") as f:
        f.write(md)

    if len(sys.argv) > 4:
        plot(cells, tools, sys.argv[4])

    doc = {
        "machine": env("BENCH_MACHINE"), "date": env("BENCH_DATE"), "commit": env("BENCH_COMMIT"),
        "repetitions": reps, "tools": tools, "direct_io": env("BENCH_DIRECT_IO_RUN"),
        "geomean_auto_over_best_peer": gm_peer, "geomean_auto_over_oracle": gm_oracle,
        "geomean_auto_over_rm": gm_rm,
        "cells": [{k: v for k, v in c.items()} for c in cells],
    }
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def floor_table(cells, tools, cond_head, ncpu, waits):
    """Each tool's wall time over its CPU floor, flagged over FLOOR_FLAG,
    and what the trace says the flagged cells wait on."""
    lines = ["", "Wall time over the CPU floor (CPU time / the CPUs the tool can use: %d for adaptrm and "
             "rmz, 1 for GNU rm, find and rsync; **bold** over %.1fx: the tool waits more than it "
             "works); waits on: the leading waits in `adaptrm --trace` of adaptrm and of the best "
             "peer deleting the cell's tree once more:" % (ncpu, FLOOR_FLAG), ""]
    lines.append("| fs | tree | " + "".join(h + " | " for h in cond_head) +
                 " | ".join(tool_header(t) for t in tools) + " | waits on |")
    lines.append("| --- | --- | " + "--- | " * len(cond_head) + " | ".join(["---:"] * len(tools)) + " | --- |")
    for c in cells:
        row = [c["fs"], c["label"]] + ([c["cache"], disk_text(c["disk"])] if cond_head else [])
        for t in tools:
            v = c["tools"].get(t)
            x = v and v.get("over_floor")
            row.append("" if not x else ("**%.2f**" % x if x > FLOOR_FLAG else "%.2f" % x))
        w = waits.get((c["fs"], c["shape"], c["cache"], c["disk"]), {})
        c["waits"] = w
        flagged = any((v.get("over_floor") or 0) > FLOOR_FLAG for v in c["tools"].values())
        row.append("; ".join("%s: %s" % (tool_header(t), w[t]) for t in tools if t in w)
                   or ("not traced" if flagged else ""))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def plot(cells, tools, png_path):
    """Grouped bars: each tool's median in a cell relative to the fastest
    tool there (1 = fastest); failed runs are drawn as empty slots."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report: no matplotlib, no plot (scripts/install-deps.sh --bench)", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(cells)), 4.5))
    width = 0.8 / len(tools)
    cmap = plt.get_cmap("tab20")
    for k, t in enumerate(tools):
        xs, ys = [], []
        for i, c in enumerate(cells):
            ok = [v["median"] for v in c["tools"].values() if v["median"]]
            v = c["tools"].get(t)
            x = i + (k - len(tools) / 2 + 0.5) * width
            if v and v["median"] and ok:
                xs.append(x)
                ys.append(v["median"] / min(ok))
            elif v:
                ax.text(x, 0.05, v["status"], rotation=90, fontsize=6, ha="center", va="bottom")
        style = {"edgecolor": "black", "linewidth": 1.2} if t == "auto" else {}
        ax.bar(xs, ys, width, label=tool_header(t), color=cmap(k % 20), **style)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(range(len(cells)))
    ax.set_xticklabels(["%s\n%s%s" % (c["fs"], c["label"], "" if (c["cache"], c["disk"]) == ("warm", "none")
                                         else "\n%s %s" % (c["cache"], c["disk"])) for c in cells], fontsize=7)
    ax.set_ylabel("time / fastest tool in the cell")
    ax.set_title("adaptrm vs peers (median wall time, lower is better)")
    ax.legend(fontsize=7, ncol=min(len(tools), 7), loc="upper left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    main()
