#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""read_probe: what a reader feels while something else uses the disk.

Every INTERVAL ms it reads 4 KiB at a random offset of FILE with direct I/O
(so that the page cache does not answer), timing each read, for DURATION
seconds; then prints one line of key=value (microseconds):
  count=N p50_us=N p99_us=N max_us=N

  read_probe.py [--interval-ms=N] [--duration=SEC] FILE
"""
import argparse
import mmap
import os
import random
import time

BLOCK = 4096


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval-ms", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("file")
    a = ap.parse_args()
    fd = os.open(a.file, os.O_RDONLY | os.O_DIRECT)
    blocks = os.fstat(fd).st_size // BLOCK
    buf = mmap.mmap(-1, BLOCK)  # page-aligned, as O_DIRECT needs
    lat = []
    end = time.monotonic() + a.duration
    nxt = time.monotonic()
    while time.monotonic() < end:
        t0 = time.monotonic()
        os.preadv(fd, [buf], random.randrange(blocks) * BLOCK)
        lat.append(time.monotonic() - t0)
        nxt += a.interval_ms / 1000
        time.sleep(max(0.0, nxt - time.monotonic()))
    lat.sort()
    us = [int(x * 1e6) for x in lat] or [0]
    print(f"count={len(lat)} p50_us={us[len(us) // 2]} "
          f"p99_us={us[min(len(us) - 1, len(us) * 99 // 100)]} max_us={us[-1]}")


if __name__ == "__main__":
    main()
