#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plot an adaptrm --trace JSON's intervals as a PNG.

    adaptrm --trace --interval 0.1 --json trace.json -- rm -rf DIR
    scripts/bench/plot-trace.py trace.json [-o trace.png]

Top: the traced threads' time in each interval, split as the verdict's parts
are (on CPU outside and inside system calls, runnable, blocked in D, sleeping
in S), stacked as shares, with the threads alive; the whole trace's verdict
is listed beside it. Bottom: unlinkat calls per second and their p99.
Needs python3-matplotlib (the Debian package, hence /usr/bin/python3).
"""
import argparse
import json
import sys

# (JSON key or derived name, label, colour), bottom to top of the stack.
PARTS = (
    ("user", "on CPU, outside system calls", "tab:blue"),
    ("oncpu_syscall_ns", "on CPU, in system calls", "tab:cyan"),
    ("preempted_ns", "runnable (waiting for a CPU)", "tab:red"),
    ("blocked_ns", "blocked (D: I/O, locks)", "tab:orange"),
    ("oncpu_wait_syscall_ns", "on CPU, in waiting calls", "tab:olive"),
    ("sleeping_ns", "sleeping (S: locks, idle waits)", "tab:gray"),
)
COUNTERS = ("len_ns", "unlinkat_calls", "oncpu_ns", "oncpu_syscall_ns",
            "oncpu_wait_syscall_ns", "preempted_ns", "blocked_ns", "sleeping_ns")


def read_doc(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-trace: cannot read {path}: {e}")
    if d.get("schema") != "adaptrm-trace/1":
        sys.exit(f"plot-trace: {path} is not an adaptrm --trace JSON file")
    rows = d.get("intervals") or []
    if not rows:
        sys.exit(f"plot-trace: {path} has no intervals (trace with --interval SEC)")
    if "oncpu_ns" not in rows[0]:
        sys.exit(f"plot-trace: {path} has no verdict parts per interval (an older adaptrm)")
    # The last row ends with the trace and may be a sliver; a wait is
    # counted whole when it ends, so a sliver would show it as a spike: add
    # it to the row before (the counters add up).
    if len(rows) > 1 and rows[-1]["len_ns"] < d.get("interval_ns", 0) / 2:
        last = rows.pop()
        prev = rows[-1] = dict(rows[-1])
        for k in COUNTERS:
            prev[k] = prev.get(k, 0) + last.get(k, 0)
        prev["t_ns"] = last["t_ns"]
    return d, rows


def part(r, key):
    """Thread-ns of one part in row R."""
    if key == "user":
        return max(0, r["oncpu_ns"] - r["oncpu_syscall_ns"] - r["oncpu_wait_syscall_ns"])
    return r.get(key, 0)


def verdict_text(d):
    """The verdict's findings, one line each, as shares of the whole time."""
    lines = []
    for f in d.get("findings", []):
        pad = "   " if f.get("explains") else ""
        lines.append(f"{pad}{100 * f.get('share', 0):4.0f}%  {f.get('id')}")
    return "verdict (whole trace):\n" + "\n".join(lines[:12])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="file written by adaptrm --trace --interval SEC --json FILE")
    ap.add_argument("-o", "--output", help="PNG to write (default: JSON name with .png)")
    ap.add_argument("--title", help="plot title")
    a = ap.parse_args()
    d, rows = read_doc(a.json)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # each row covers (t - len, t]: drawn as steps over it
    edges = [(r["t_ns"] - r["len_ns"]) / 1e9 for r in rows] + [rows[-1]["t_ns"] / 1e9]
    secs = [max(r["len_ns"], 1) / 1e9 for r in rows]

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(11, 7.5),
                                   gridspec_kw={"height_ratios": [2, 1]})
    base = [0.0] * len(rows)
    whole = [sum(part(r, k) for k, _, _ in PARTS) or 1 for r in rows]
    for key, label, color in PARTS:
        vals = [100 * part(r, key) / w for r, w in zip(rows, whole)]
        top = [b + v for b, v in zip(base, vals)]
        ax1.stairs(top, edges, baseline=base, fill=True, color=color, alpha=0.8, label=label)
        base = top
    ax1.set_ylabel("share of the threads' time (%)")
    ax1.set_ylim(0, 100)
    ax1.grid(axis="y", alpha=0.3)
    ax1b = ax1.twinx()
    ax1b.stairs([r["threads"] for r in rows], edges, color="k", lw=1.2, linestyle="--",
                label="threads alive")
    ax1b.set_ylabel("threads alive")
    ax1b.set_ylim(0, max(r["threads"] for r in rows) * 1.1 + 1)
    ax1b.yaxis.get_major_locator().set_params(integer=True)
    h1, l1 = ax1.get_legend_handles_labels()
    h2, l2 = ax1b.get_legend_handles_labels()
    ax1.legend(h1[::-1] + h2, l1[::-1] + l2, loc="upper left", bbox_to_anchor=(1.07, 1),
               fontsize=8, frameon=False)
    ax1.text(1.08, 0.0, verdict_text(d), transform=ax1.transAxes, fontsize=8,
             family="monospace", va="bottom")

    rate = [r["unlinkat_calls"] / s for r, s in zip(rows, secs)]
    ax2.stairs(rate, edges, color="tab:green", lw=1.5, label="unlinkat calls/s")
    ax2.set_ylabel("unlinkat calls/s")
    ax2.set_ylim(bottom=0)
    ax2.yaxis.set_major_formatter(lambda v, _: f"{v / 1000:g}k" if v >= 1000 else f"{v:g}")
    ax2.grid(axis="y", alpha=0.3)
    ax2b = ax2.twinx()
    p99 = [r["unlinkat_p99_ns"] / 1e3 if r["unlinkat_calls"] else float("nan") for r in rows]
    mids = [(lo + hi) / 2 for lo, hi in zip(edges, edges[1:])]
    ax2b.plot(mids, p99, ":", color="tab:purple", marker=".", label="unlinkat p99 (µs)")
    ax2b.set_ylabel("p99 (µs)")
    ax2b.set_ylim(bottom=0)
    lines = ax2.get_legend_handles_labels()
    lines2 = ax2b.get_legend_handles_labels()
    ax2.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="upper left",
               bbox_to_anchor=(1.08, 1), fontsize=8, frameon=False)
    ax2.set_xlabel("seconds since the trace started")
    ax2.set_xlim(0, edges[-1])

    cmd = " ".join(d.get("command") or [])
    title = a.title or f"adaptrm --trace ({d.get('mode')}): {cmd[:90]}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = a.output or (a.json[:-5] if a.json.endswith(".json") else a.json) + ".png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
