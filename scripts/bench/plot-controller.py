#!/usr/bin/python3
"""Plot an adaptrm --json controller time series as a PNG.

    adaptrm -rf --json run.json DIR
    scripts/bench/plot-controller.py run.json [-o run.png]

Three panels sharing the time axis: active workers (and the getdents64
buffer), throughput in entries/s, and unlinkat latency (mean, p50, p99 when
the eBPF probes were loaded) with the contention and blocked shares.
Decisions are marked with vertical lines. Needs python3-matplotlib (the
Debian package, hence /usr/bin/python3 rather than whatever python3 is first
in PATH).
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="file written by adaptrm --json")
    ap.add_argument("-o", "--output", help="PNG to write (default: JSON name with .png)")
    ap.add_argument("--title", help="plot title")
    a = ap.parse_args()
    try:
        with open(a.json) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-controller: cannot read {a.json}: {e}")
    if d.get("format") != "adaptrm-controller-1":
        sys.exit(f"plot-controller: {a.json} is not an adaptrm --json controller file")
    rows = [i for t in d.get("trees", []) for i in t.get("intervals", [])]
    if not rows:
        sys.exit(f"plot-controller: {a.json} has no intervals (delete shorter than one tick?)")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [r["t"] for r in rows]
    def col(k):
        return [r.get(k) if r.get(k) is not None else float("nan") for r in rows]

    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, sharex=True, figsize=(9, 8))
    ax1.step(t, col("threads"), where="post", label="active workers", color="tab:blue")
    ax1.set_ylabel("workers")
    ax1.set_yscale("log", base=2)
    ax1b = ax1.twinx()
    ax1b.step(t, [g / 1024 for g in col("getdents_size")], where="post", color="tab:gray",
              linestyle=":", label="getdents64 KiB")
    ax1b.set_ylabel("getdents64 buffer (KiB)")
    ax1.legend(loc="upper left")
    ax1b.legend(loc="upper right")

    ax2.plot(t, col("throughput"), marker=".", color="tab:green")
    ax2.set_ylabel("entries/s")
    ax2.set_ylim(bottom=0)
    # The trials (where the filesystem type says nothing) of directory
    # sharing and of inode order: their base windows (switch off) and trial
    # windows (on), shaded; one trial runs at a time.
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
                ax2.axvspan(r["t"] - r["dt"], r["t"], color=colors[(knob, state)], alpha=0.2, label=label)
    if labelled:
        ax2.legend(loc="upper right")

    for k, style in (("lat_mean_us", "-"), ("lat_p50_us", "--"), ("lat_p99_us", ":")):
        ax3.plot(t, col(k), style, label=k.replace("lat_", "").replace("_us", ""))
    ax3.set_ylabel("unlinkat latency (µs)")
    ax3.set_yscale("log")
    ax3.legend(loc="upper left")
    ax3b = ax3.twinx()
    ax3b.plot(t, [100 * x for x in col("contention")], color="tab:red", alpha=0.6, label="contention %")
    ax3b.plot(t, [100 * x for x in col("blocked")], color="tab:purple", alpha=0.6, label="blocked %")
    ax3b.set_ylim(0, 100)
    ax3b.set_ylabel("share of busy time (%)")
    ax3b.legend(loc="upper right")
    ax3.set_xlabel("seconds")

    for dec in d.get("decisions", []):
        if dec.get("from"):
            for ax in (ax1, ax2, ax3):
                ax.axvline(dec["t"], color="k", alpha=0.15)
    trees = d.get("trees", [])
    title = a.title or "adaptrm controller: " + ", ".join(
        f'{tr.get("fs")} {tr.get("shape")} (start {tr.get("start_threads")} from {tr.get("start_from")}, '
        f'end {tr.get("final_threads")})' for tr in trees)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = a.output or (a.json[:-5] if a.json.endswith(".json") else a.json) + ".png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
