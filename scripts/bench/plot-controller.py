#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plot an adaptrm --json controller time series as a PNG.

    adaptrm -rf --json run.json DIR
    scripts/bench/plot-controller.py run.json [-o run.png]

Three panels sharing the time axis: active workers, each controller decision
marked and labelled with its rule; throughput in entries/s (a rolling mean,
the raw ticks faint behind it); and unlinkat latency (mean, p50, p99 when the
eBPF probes were loaded) with the contention and blocked shares. Needs
python3-matplotlib (the Debian package, hence /usr/bin/python3 rather than
whatever python3 is first in PATH).
"""
import argparse
import json
import math
import re
import sys

# Ticks averaged by the smoothed throughput line (centred).
SMOOTH_TICKS = 5
# Rows of decision labels above the worker line.
LABEL_ROWS = 4


def read_doc(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-controller: cannot read {path}: {e}")
    if d.get("format") != "adaptrm-controller-1":
        sys.exit(f"plot-controller: {path} is not an adaptrm --json controller file")
    rows = [i for t in d.get("trees", []) for i in t.get("intervals", [])]
    if not rows:
        sys.exit(f"plot-controller: {path} has no intervals (delete shorter than one tick?)")
    return d, rows


def rolling_mean(values, n):
    """Centred mean over N ticks, skipping the unmeasured ones."""
    out = []
    for i in range(len(values)):
        w = [v for v in values[max(0, i - n // 2):i + n // 2 + 1] if not math.isnan(v)]
        out.append(sum(w) / len(w) if w else float("nan"))
    return out


def decision_label(dec):
    """A short label: the worker change and the rule, or the trial's outcome."""
    why = dec.get("why", "")
    if not dec.get("from"):
        return f"start {dec.get('to')} ({why})"
    m = re.search(r"\[([^\]]+)\]\s*$", why)
    rule = m.group(1) if m else ""
    if dec["from"] != dec["to"]:
        # the rule, and the first piece of evidence (the throughput change)
        first = why.split(",")[0].strip() if m else ""
        return f"{dec['from']}\u2192{dec['to']} {rule}" + (f": {first}" if first else "")
    # a trial: "sharing big directories: on: throughput +59% (...)"
    parts = [p.strip() for p in why.split(":")]
    knob = {"sharing": "sharing", "inode": "inode order"}.get(why.split(" ")[0], parts[0])
    if len(parts) < 3:
        return f"{knob} trial"
    return f"{knob} {parts[1]}: {parts[2].split('(')[0].strip()}"


def worker_axis(ax, threads):
    """Integer ticks over the actual range: linear, log2 only when it is wide."""
    from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator
    known = [v for v in threads if not math.isnan(v)]
    lo, hi = (min(known), max(known)) if known else (1, 1)
    if hi >= 32 and hi / max(lo, 1) >= 16:
        ax.set_yscale("log", base=2)
        ticks = [2 ** k for k in range(int(math.log2(max(lo, 1))), int(math.log2(hi)) + 2)]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
        ax.set_ylim(max(lo, 1) / 1.5, hi * 4)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=2))
        ax.set_ylim(0, hi * 1.9 + 1)
    ax.grid(axis="y", alpha=0.3)


def label_decisions(ax, decisions, t_lo, t_hi):
    """A marker at each decision's new count and a label above, staggered so
    that labels close in time go to different rows; a label that would pass
    the right edge ends at its decision instead."""
    taken = [[] for _ in range(LABEL_ROWS)]
    chars = (t_hi - t_lo) / 130  # seconds per character at this size
    for dec in sorted(decisions, key=lambda d: d["t"]):
        label = decision_label(dec)
        t = dec["t"]
        width = (len(label) + 2) * chars
        right = t + width > t_hi
        span = (t - width, t) if right else (t, t + width)

        def clash(i):
            return sum(1 for a, b in taken[i] if a < span[1] and span[0] < b)
        row = min(range(LABEL_ROWS), key=lambda i: (clash(i), i))
        taken[row].append(span)
        ax.plot([t], [dec["to"]], marker="v" if dec.get("to", 0) < dec.get("from", 0) else "^",
                color="k", markersize=6, zorder=5)
        ax.annotate(label, xy=(t, dec["to"]), xycoords="data",
                    xytext=(t, 0.95 - 0.1 * row), textcoords=("data", "axes fraction"),
                    fontsize=8, ha="right" if right else "left", va="top",
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="0.7", alpha=0.9),
                    arrowprops=dict(arrowstyle="-", color="0.6", lw=0.6))


def trial_windows(ax, rows):
    """The sharing and inode-order trials' base and trial windows, shaded."""
    colors = {("share", "base"): "tab:gray", ("share", "trial"): "tab:orange",
              ("sort", "base"): "tab:cyan", ("sort", "trial"): "tab:pink"}
    names = {"share": "sharing", "sort": "inode order"}
    labelled = set()
    for r in rows:
        for knob in ("share", "sort"):
            state = r.get(knob)
            if state in ("base", "trial"):
                label = None if (knob, state) in labelled else f"{names[knob]} {state}"
                labelled.add((knob, state))
                ax.axvspan(r["t"] - r["dt"], r["t"], color=colors[(knob, state)], alpha=0.2,
                           label=label)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="file written by adaptrm --json")
    ap.add_argument("-o", "--output", help="PNG to write (default: JSON name with .png)")
    ap.add_argument("--title", help="plot title")
    ap.add_argument("--describe", action="store_true",
                    help="also print the worker axis's ticks and the decisions' labels")
    a = ap.parse_args()
    d, rows = read_doc(a.json)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [r["t"] for r in rows]

    def col(k):
        return [r.get(k) if r.get(k) is not None else float("nan") for r in rows]

    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, sharex=True, figsize=(10, 9),
                                        gridspec_kw={"height_ratios": [1.3, 1, 1]})
    # each row holds the workers during the interval that ends at t
    ax1.step(t, col("threads"), where="pre", label="active workers", color="tab:blue", lw=1.8)
    ax1.set_ylabel("workers")
    worker_axis(ax1, col("threads"))
    gsize = sorted({g for g in col("getdents_size") if not math.isnan(g)})
    if len(gsize) > 1:
        ax1b = ax1.twinx()
        ax1b.step(t, [g / 1024 for g in col("getdents_size")], where="pre", color="tab:gray",
                  linestyle=":", label="getdents64 KiB")
        ax1b.set_ylabel("getdents64 buffer (KiB)")
        ax1b.legend(loc="lower right", fontsize=8)
    elif gsize:
        ax1.plot([], [], " ", label=f"getdents64 buffer {gsize[0] / 1024:g} KiB")
    ax1.legend(loc="best", fontsize=8)
    t_hi = max(t + [x["t"] for x in d.get("decisions", [])])
    label_decisions(ax1, d.get("decisions", []), 0, t_hi * 1.03)

    thr = col("throughput")
    ax2.plot(t, thr, color="tab:green", alpha=0.3, lw=1, label="per tick")
    ax2.plot(t, rolling_mean(thr, SMOOTH_TICKS), color="tab:green", lw=2,
             label=f"mean of {SMOOTH_TICKS} ticks")
    ax2.set_ylabel("entries/s")
    ax2.set_ylim(bottom=0)
    ax2.yaxis.set_major_formatter(lambda v, _: f"{v / 1000:g}k" if v >= 1000 else f"{v:g}")
    ax2.grid(axis="y", alpha=0.3)
    trial_windows(ax2, rows)
    ax2.legend(loc="lower right", fontsize=8)

    for k, style in (("lat_mean_us", "-"), ("lat_p50_us", "--"), ("lat_p99_us", ":")):
        ax3.plot(t, col(k), style, label=k.replace("lat_", "").replace("_us", ""))
    ax3.set_ylabel("unlinkat latency (µs)")
    ax3.set_yscale("log")
    ax3.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
    # within a decade, label 2x and 5x only: readable, never crowded
    ax3.yaxis.set_minor_formatter(
        lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else "")
    ax3.legend(loc="upper left", fontsize=8)
    ax3b = ax3.twinx()
    ax3b.plot(t, [100 * x for x in col("contention")], color="tab:red", alpha=0.6,
              label="contention %")
    ax3b.plot(t, [100 * x for x in col("blocked")], color="tab:purple", alpha=0.6,
              label="blocked %")
    ax3b.set_ylim(0, 100)
    ax3b.set_ylabel("share of busy time (%)")
    ax3b.legend(loc="upper right", fontsize=8)
    ax3.set_xlabel("seconds since the start")
    ax3.set_xlim(0, t_hi * 1.03)

    for dec in d.get("decisions", []):
        if dec.get("from"):
            for ax in (ax2, ax3):
                ax.axvline(dec["t"], color="k", alpha=0.15)
    trees = d.get("trees", [])
    title = a.title or "adaptrm controller: " + ", ".join(
        f'{tr.get("fs")} {tr.get("shape")} (start {tr.get("start_threads")} from '
        f'{tr.get("start_from")}, end {tr.get("final_threads")})' for tr in trees)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = a.output or (a.json[:-5] if a.json.endswith(".json") else a.json) + ".png"
    fig.savefig(out, dpi=110)
    print(out)
    if a.describe:
        lo, hi = ax1.get_ylim()
        print("worker ticks:", " ".join(f"{v:g}" for v in ax1.get_yticks() if lo <= v <= hi))
        for text in ax1.texts:
            print("decision:", text.get_text())


if __name__ == "__main__":
    main()
