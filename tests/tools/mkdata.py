#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build benchmark trees whose files hold blocks: one process, fd-relative,
no fork per file, a fixed seed (the same tree every run). Used by the
benchmark (scripts/bench/bench.sh, scripts/bench/gentle.sh).

    mkdata.py [OPTIONS] DIR srcbuild      a source checkout plus its build tree
    mkdata.py [OPTIONS] DIR nodemodules   a synthetic npm node_modules
    mkdata.py [OPTIONS] DIR hugemix       a few huge files among many small ones
    mkdata.py [OPTIONS] DIR fragmented    one huge file, every other block punched
    mkdata.py [OPTIONS] DIR huge          a few huge files only (gentle.sh)

    --scale F     multiply file counts and huge sizes (default 1)
    --huge-gib G  size of each huge file (hugemix 20, huge 8, fragmented 2)
    --huge-count N  number of huge files (hugemix and huge: 4)
    --seed N      random seed (default 1)
    --data        write zeros instead of fallocate (real data blocks)

Sizes are allocated with fallocate(2): extents, unwritten, so the loop
image stays sparse and building is fast. Where fallocate is not supported
(ext4 without extents, ext3's indirect-block format) the blocks are written
with zeros instead. fragmented: the whole file allocated, then every other
filesystem block punched out (FALLOC_FL_PUNCH_HOLE), one extent per
remaining block; where allocation is not supported, every other block is
written, which leaves the same map. Prints one line: files, dirs, bytes.

How the sizes were chosen (log-normal: file sizes in source trees and
package trees are close to log-normal in the body, Downey 2001; Agrawal et
al., FAST '07, a median of a few KiB):
  srcbuild  src/: 60% of the files, median 5 KiB, sigma 1.3 (p99 ~100 KiB);
            build/: objects and generated files, median 12 KiB, sigma 1.6
            (p99 ~500 KiB), plus 0.05% archives and binaries log-uniform
            4-64 MiB; 100,000 files, ~3 GiB in all, in directories of ~12
            files (src/mN/sN/, build/mN/sN/obj).
  nodemodules  a model of a real npm install (typescript, webpack, eslint,
            jest, babel, react, next, angular, rxjs, lodash: 2,764 dirs,
            24,240 files, depth 10, sizes p50 1.1 KB, p99 177 KB, max 101
            MB): median 1.1 KiB, sigma 2.1, capped at 16 MiB, one 100 MiB
            file; packages of ~9 files per dir, nested up to depth 10.
  hugemix   N huge files plus 100,000 small (median 4 KiB, sigma 1.0) in
            100 directories of 1,000.
"""
import argparse
import ctypes
import errno
import math
import os
import random
import sys

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY
FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2
GIB = 1 << 30
MIB = 1 << 20

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]


def fallocate(fd, mode, off, length):
    if libc.fallocate(fd, mode, off, length) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


class Builder:
    """Makes files and directories and counts what it made."""

    def __init__(self, data):
        self.data = data
        self.files = self.dirs = self.bytes = 0
        self.extra = {}  # more key=value for the summary line
        self.zeros = bytes(MIB)

    def write_zeros(self, fd, size, off=0):
        while size > 0:
            n = os.pwrite(fd, self.zeros[:min(size, MIB)], off)
            off += n
            size -= n

    def allocate(self, fd, size):
        if size <= 0:
            return
        if not self.data:
            try:
                fallocate(fd, 0, 0, size)
                return
            except OSError as e:
                if e.errno not in (errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
                self.data = True  # this filesystem cannot: write from now on
        self.write_zeros(fd, size)

    def file(self, dfd, name, size):
        fd = os.open(name, FILE_FLAGS, 0o644, dir_fd=dfd)
        try:
            self.allocate(fd, size)
        finally:
            os.close(fd)
        self.files += 1
        self.bytes += size

    def mkdir(self, dfd, name):
        os.mkdir(name, dir_fd=dfd)
        self.dirs += 1
        return os.open(name, DIR_FLAGS, dir_fd=dfd)


def lognormal(rng, median, sigma, cap):
    return min(cap, int(rng.lognormvariate(math.log(median), sigma)))


def scaled(n, scale):
    return max(1, int(n * scale + 0.5))


def srcbuild(b, root, rng, a):
    """src/mM/sS/fF.c and build/mM/sS/obj/fF.o: ~12 files a directory."""
    n = scaled(100000, a.scale)
    nsrc = n * 6 // 10
    per_dir = 12
    for top, count, median, sigma in (("src", nsrc, 5 << 10, 1.3), ("build", n - nsrc, 12 << 10, 1.6)):
        tfd = b.mkdir(root, top)
        ndirs = max(1, count // per_dir)
        mods = max(1, int(math.sqrt(ndirs)))
        made = 0
        for d in range(ndirs):
            if d % mods == 0:
                if d:
                    os.close(mfd)
                mfd = b.mkdir(tfd, "m%d" % (d // mods))
            sfd = b.mkdir(mfd, "s%d" % (d % mods))
            leaf = b.mkdir(sfd, "obj") if top == "build" else sfd
            k = per_dir if d < ndirs - 1 else count - made
            for f in range(k):
                if top == "build" and rng.random() < 0.00125:  # 0.05% of all files
                    size = int(math.exp(rng.uniform(math.log(4 * MIB), math.log(64 * MIB))))
                else:
                    size = lognormal(rng, median, sigma, 64 * MIB)
                b.file(leaf, "f%d.%s" % (f, "c" if top == "src" else "o"), size)
            made += k
            if leaf != sfd:
                os.close(leaf)
            os.close(sfd)
        os.close(mfd)
        os.close(tfd)


def nodemodules(b, root, rng, a):
    """Packages nested up to depth 10, ~9 files a directory, one big file."""
    nfiles = scaled(24240, a.scale)
    ndirs = scaled(2764, a.scale)
    nmfd = b.mkdir(root, "node_modules")
    b.file(nmfd, "big.wasm", scaled(100 * MIB, a.scale))
    # A stack of open directories: each new directory goes below the
    # current one (deeper, up to 10) or below an ancestor.
    stack = [nmfd]
    made_files = 1
    for d in range(ndirs):
        while len(stack) > 1 and (len(stack) >= 10 or rng.random() < 0.45):
            os.close(stack.pop())
        stack.append(b.mkdir(stack[-1], "p%d" % d))
        k = nfiles * (d + 1) // ndirs - made_files
        for f in range(max(0, k)):
            b.file(stack[-1], "f%d.js" % f, lognormal(rng, 1100, 2.1, 16 * MIB))
        made_files += max(0, k)
    for fd in stack[1:]:
        os.close(fd)
    os.close(nmfd)


def small_files(b, root, rng, n):
    per_dir = 1000
    ndirs = max(1, (n + per_dir - 1) // per_dir)
    made = 0
    for d in range(ndirs):
        dfd = b.mkdir(root, "d%d" % d)
        for f in range(min(per_dir, n - made)):
            b.file(dfd, "f%d" % f, lognormal(rng, 4 << 10, 1.0, 4 * MIB))
        made += min(per_dir, n - made)
        os.close(dfd)


def huge_files(b, root, a, default_gib):
    gib = a.huge_gib if a.huge_gib is not None else default_gib
    size = max(MIB, int(gib * GIB * a.scale) // MIB * MIB)
    for i in range(a.huge_count):
        b.file(root, "huge%d" % i, size)
    b.extra["huge"] = size


def hugemix(b, root, rng, a):
    huge_files(b, root, a, 20)
    small_files(b, root, rng, scaled(100000, a.scale))


def fragmented(b, root, rng, a):
    """Allocate, then punch every other block: size / (2 x block) extents."""
    gib = a.huge_gib if a.huge_gib is not None else 2
    bs = os.statvfs(root).f_bsize
    size = max(64 * bs, int(gib * GIB * a.scale) // (2 * bs) * (2 * bs))
    fd = os.open("frag", FILE_FLAGS, 0o644, dir_fd=root)
    try:
        try:
            if b.data:
                raise OSError(errno.EOPNOTSUPP, "data requested")
            fallocate(fd, 0, 0, size)
            for off in range(bs, size, 2 * bs):
                fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, bs)
        except OSError as e:
            if e.errno not in (errno.EOPNOTSUPP, errno.ENOSYS):
                raise
            b.data = True
            block = bytes(bs)
            for off in range(0, size, 2 * bs):
                os.pwrite(fd, block, off)
            os.ftruncate(fd, size)
    finally:
        os.close(fd)
    b.files += 1
    b.bytes += size // 2
    b.extra.update(size=size, extents=size // (2 * bs))


def main():
    ap = argparse.ArgumentParser(description="Build a benchmark tree with data, fd-relative.")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--huge-gib", type=float)
    ap.add_argument("--huge-count", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", action="store_true")
    ap.add_argument("dir")
    ap.add_argument("kind", choices=("srcbuild", "nodemodules", "hugemix", "fragmented", "huge"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    b = Builder(a.data)
    os.mkdir(a.dir)
    root = os.open(a.dir, DIR_FLAGS)
    if a.kind == "huge":
        huge_files(b, root, a, 8)
    else:
        globals()[a.kind](b, root, rng, a)
    os.close(root)
    extra = "".join(" %s=%d" % kv for kv in sorted(b.extra.items()))
    print("files=%d dirs=%d bytes=%d written=%d%s" % (b.files, b.dirs + 1, b.bytes, int(b.data), extra))


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit("mkdata: %s" % e)
