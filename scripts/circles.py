#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Find source files that depend on each other in a loop (make lint's
`circles` check, scripts/lint.sh).

A file depends on another when it includes a header whose .c counterpart is
that file (foo.h -> foo.c or foo.bpf.c; a header's own includes count for
its counterpart), or when its object calls or reads a symbol that the
other's object defines (nm: undefined in one, defined in the other). A loop
of any length is a strongly connected component of more than one file; each
of its files is reported GNU-style:

    user/a/x.c: in a loop with user/a/y.c, user/a/z.c (x.c uses y.c: calls y_run)

Usage: circles.py [--objdir DIR] [--require-objects] DIR...
  DIR          source trees, relative to the current directory (user bpf)
  --objdir     the build's output directory: DIR/a/x.c's object is
               OBJDIR/a/x.o (the first path component is dropped, as the
               Makefile does for user/); without objects, only the includes
               are seen, and a note on stderr says so
  --require-objects  a source without its object is a failure
Exit status: 0 no loop, 1 a loop (or a missing object when required), 2 usage.
"""

import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(dirs):
    """Every .c and .h under the trees, sorted."""
    out = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.normpath(os.path.join(root, f)))
    return sorted(out)


def counterpart(header, files):
    """The .c file a header declares, or None for a header of its own."""
    base = header[: -len(".h")]
    for cand in (base + ".c", base + ".bpf.c"):
        if cand in files:
            return cand
    return None


def resolve(target, includer, dirs, files):
    """The tree file an #include "target" names: next to the includer, or
    under one of the trees (the build's -Iuser -Ibpf)."""
    for base in [os.path.dirname(includer)] + list(dirs):
        cand = os.path.normpath(os.path.join(base, target))
        if cand in files:
            return cand
    return None


def include_edges(dirs, files, edges):
    for f in files:
        owner = f if f.endswith(".c") else counterpart(f, files)
        if owner is None:
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for target in INCLUDE.findall(text):
            h = resolve(target, f, dirs, files)
            if h is None or not h.endswith(".h"):
                continue
            dep = counterpart(h, files)
            if dep is not None and dep != owner:
                edges.setdefault(owner, {}).setdefault(dep, "includes " + os.path.basename(h))


def object_of(src, objdir):
    rel = src.split(os.sep, 1)[1] if os.sep in src else src
    return os.path.join(objdir, rel[: -len(".c")] + ".o")


def nm_symbols(obj):
    """(defined, undefined) external symbols of one object."""
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] not in ("U", "w", "v"):
            defined.add(parts[2])
    return defined, undefined


def symbol_edges(files, objdir, require, edges):
    """Edges from nm; returns the number of sources missing their object."""
    definer, uses, missing = {}, {}, []
    for src in files:
        if not src.endswith(".c") or src.endswith(".bpf.c"):
            continue
        obj = object_of(src, objdir)
        if not os.path.exists(obj):
            missing.append(src)
            continue
        defined, undefined = nm_symbols(obj)
        for s in defined:
            definer.setdefault(s, src)
        uses[src] = undefined
    for src, undefined in uses.items():
        for s in sorted(undefined):
            dep = definer.get(s)
            if dep is not None and dep != src:
                edges.setdefault(src, {}).setdefault(dep, "calls " + s)
    if missing:
        kind = "error" if require else "note"
        print(f"circles: {kind}: {len(missing)} source(s) without an object under "
              f"{objdir} (first {missing[0]}): their calls are not seen (make all)",
              file=sys.stderr)
    return len(missing)


def components(nodes, edges):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main(argv):
    objdir, require, dirs = None, False, []
    args = iter(argv)
    for a in args:
        if a == "--objdir":
            objdir = next(args, None)
            if objdir is None:
                print("circles: --objdir needs a directory", file=sys.stderr)
                return 2
        elif a == "--require-objects":
            require = True
        elif a.startswith("-"):
            print(f"circles: unknown option {a}", file=sys.stderr)
            return 2
        else:
            dirs.append(os.path.normpath(a))
    if not dirs:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    files = set(sources(dirs))
    edges = {}
    include_edges(dirs, sorted(files), edges)
    missing = symbol_edges(sorted(files), objdir, require, edges) if objdir else 0
    nodes = sorted(f for f in files if f.endswith(".c"))
    loops = [c for c in components(nodes, edges) if len(c) > 1]
    for comp in sorted(loops):
        for f in comp:
            others = [o for o in comp if o != f]
            why = "; ".join(f"{os.path.basename(f)} uses {os.path.basename(d)}: {r}"
                            for d, r in sorted(edges.get(f, {}).items()) if d in comp)
            print(f"{f}: in a loop with {', '.join(others)} ({why})")
    return 1 if loops or (require and missing) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
