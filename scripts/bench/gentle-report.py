#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn scripts/bench/gentle.sh's runs (TSV) into its report: per
filesystem, case and tool, the median wall time and the fsync probe's
latencies (median over the repetitions of each run's p50 and p99, and the
worst single latency of all of them), then, per cell, GNU rm's worst stall
over the gentle mode's, and the gentle mode's time against size / rate.

    gentle-report.py RUNS.tsv OUT.md
"""
import csv
import os
import re
import statistics
import sys

NAMES = {"probe": "probe alone", "rm": "GNU rm -rf", "rmz": "rmz", "adaptrm": "adaptrm -rf",
         "gentle": "adaptrm --free-rate"}
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def rate_bytes(rate):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)i?B?", rate.strip(), re.I)
    return float(m.group(1)) * UNITS[m.group(2).upper()] if m else None


def ms(us):
    return "%.1f" % (us / 1000.0)


def summarize(rows):
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        return {"status": rows[0]["status"]}
    return {"status": "ok", "wall": statistics.median(float(r["wall"]) for r in ok),
            "p50": statistics.median(int(r["p50_us"]) for r in ok),
            "p99": statistics.median(int(r["p99_us"]) for r in ok),
            "max": max(int(r["max_us"]) for r in ok), "n": len(ok),
            "sync": statistics.median(float(r.get("sync") or 0) for r in ok)}


def main():
    runs_path, md_path = sys.argv[1:3]
    with open(runs_path, newline="") as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    cells, tools = [], []
    for r in runs:
        if (r["fs"], r["case"]) not in [(c["fs"], c["case"]) for c in cells]:
            cells.append({"fs": r["fs"], "case": r["case"], "label": r["label"], "bytes": int(r["bytes"] or 0)})
        if r["tool"] not in tools:
            tools.append(r["tool"])
    for c in cells:
        c["tools"] = {t: summarize([r for r in runs if (r["fs"], r["case"], r["tool"]) == (c["fs"], c["case"], t)])
                      for t in tools if any((r["fs"], r["case"], r["tool"]) == (c["fs"], c["case"], t) for r in runs)}

    rate = os.environ.get("GENTLE_RATE") or (runs[0]["rate"] if runs else "")
    rb = rate_bytes(rate) if rate else None
    lines = ["## Gentle mode: fsync latency while huge files are deleted", ""]
    lines.append("A probe on the same filesystem writes 4 KiB and fsyncs every %s ms (tests/tools/fsync_probe.c); "
                 "cold cache, loop device with direct I/O. Per tool: median wall time (s) and the probe's "
                 "median p50 / p99 and worst latency (ms) over the repetitions; sync s: the syncfs after the tool "
                 "(xfs and btrfs free extents in the background). `adaptrm --free-rate` at %s; "
                 "size / rate is the time it should take." % (os.environ.get("GENTLE_INTERVAL_MS", "10"), rate))
    lines.append("")
    lines.append("| fs | case | tool | wall s | sync s | probe p50 ms | probe p99 ms | probe max ms |")
    lines.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for c in cells:
        for t, v in c["tools"].items():
            if v["status"] != "ok":
                lines.append("| %s | %s | %s | %s | | | | |" % (c["fs"], c["label"], NAMES.get(t, t), v["status"]))
                continue
            lines.append("| %s | %s | %s | %.2f | %.2f | %s | %s | %s |" % (
                c["fs"], c["label"], NAMES.get(t, t), v["wall"], v["sync"], ms(v["p50"]), ms(v["p99"]), ms(v["max"])))
    lines.append("")
    lines.append("| fs | case | rm worst stall / gentle worst stall | gentle time s | size / rate s |")
    lines.append("| --- | --- | ---: | ---: | ---: |")
    worst = None
    for c in cells:
        rm, gentle = c["tools"].get("rm"), c["tools"].get("gentle")
        ratio = rm["max"] / gentle["max"] if rm and gentle and rm["status"] == gentle["status"] == "ok" \
            and gentle["max"] else None
        expect = c["bytes"] / rb if rb else None
        lines.append("| %s | %s | %s | %s | %s |" % (
            c["fs"], c["label"], "%.1f" % ratio if ratio else "",
            "%.1f" % gentle["wall"] if gentle and gentle["status"] == "ok" else "",
            "%.1f" % expect if expect else ""))
        if rm and rm["status"] == "ok" and (worst is None or rm["max"] > worst[1]["max"]):
            worst = (c, rm, ratio)
    if worst:
        c, rm, ratio = worst
        lines.append("")
        lines.append("GNU rm stalls the probe most on %s %s (%s ms)%s." % (
            c["fs"], c["label"], ms(rm["max"]),
            "; the gentle mode cuts that worst stall %.1fx (the goal: 10x)" % ratio if ratio else
            "; no gentle-mode run there"))
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
