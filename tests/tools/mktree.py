#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build a test tree fast: one process, no fork per file, no path length
limit (every operation is relative to an open directory fd). Files are
empty, made with one mknod each. Used by the end-to-end tests
(tests/e2e/lib.sh: make_flat, make_tree, make_chain) and the benchmark
(scripts/bench/bench.sh).

    mktree.py [OPTIONS] DIR flat N          N files in DIR
    mktree.py [OPTIONS] DIR tree NDIRS M    NDIRS directories of M files each
    mktree.py [OPTIONS] DIR chain DEPTH [M] DIR/d/d/.../d, DEPTH levels, M files
                                            in each (default 0)

Names are f<i> and d<i>, i counting from --first (default 1); a chain's
directories are all named d.

    --first N   the first index (0 for f0, d0, ...)
    --parents   like mkdir -p: make DIR's missing parents, and DIR may exist
                (so may a flat tree's files, as with touch); without it DIR
                must not exist
    --mode M    the files' mode, octal, before the umask (default 644)
"""
import argparse
import os
import stat
import sys

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY


def files(dfd, count, first, mode, exist_ok):
    for j in range(first, first + count):
        try:
            os.mknod("f%d" % j, mode | stat.S_IFREG, dir_fd=dfd)
        except FileExistsError:
            if not exist_ok:
                raise


def main():
    ap = argparse.ArgumentParser(description="Build a test tree fd-relative.")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--parents", action="store_true")
    ap.add_argument("--mode", type=lambda s: int(s, 8), default=0o644)
    ap.add_argument("dir")
    ap.add_argument("kind", choices=("flat", "tree", "chain"))
    ap.add_argument("n", type=int)
    ap.add_argument("m", type=int, nargs="?")
    a = ap.parse_args()
    if a.kind == "tree" and a.m is None:
        ap.error("tree needs NDIRS and M (files per directory)")
    if a.kind == "flat" and a.m is not None:
        ap.error("flat takes one count")

    if a.parents:
        os.makedirs(a.dir, exist_ok=True)
    else:
        os.mkdir(a.dir)
    fd = os.open(a.dir, DIR_FLAGS)
    if a.kind == "flat":
        files(fd, a.n, a.first, a.mode, a.parents)
    elif a.kind == "tree":
        for i in range(a.first, a.first + a.n):
            os.mkdir("d%d" % i, dir_fd=fd)
            dfd = os.open("d%d" % i, DIR_FLAGS, dir_fd=fd)
            files(dfd, a.m, a.first, a.mode, False)
            os.close(dfd)
    else:
        for _ in range(a.n):
            files(fd, a.m or 0, a.first, a.mode, False)
            os.mkdir("d", dir_fd=fd)
            nfd = os.open("d", DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    os.close(fd)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit("mktree: %s" % e)
