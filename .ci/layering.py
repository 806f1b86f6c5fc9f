#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fail on a call or include circle among the files of lib/.

Calls: every object file of the library (the static parts a build leaves in
BUILD/lib/*.a.p/) is read with nm: a file calls another when it uses a
symbol the other defines. Includes: every #include "..." of lib/**/*.c and
*.h that names a file of lib/. A circle is a strongly connected component of
more than one file (Tarjan); each is printed with the edges that close it.

    python3 .ci/layering.py BUILD-DIR [--graph]

--graph prints every file-to-file call, bottom-up, for reading the layers.
Exit status: 0 without a circle, 1 with one, 2 on bad input.
"""
import os
import re
import subprocess
import sys

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")


def object_files(build):
    """Map 'area/file.c' -> object path, from the library's static parts."""
    objs = {}
    libdir = os.path.join(build, "lib")
    for part in sorted(os.listdir(libdir)):
        if not part.endswith(".a.p") or part == "libembperf.a.p":
            continue
        for name in os.listdir(os.path.join(libdir, part)):
            if name.endswith(".c.o"):
                area, _, rest = name[:-2].partition("_")
                objs[area + "/" + rest] = os.path.join(libdir, part, name)
    return objs


def symbols(paths):
    """{path: (functions defined, symbols used)} of the object files, from
    one nm run (a process per file cost minutes on a loaded CI machine).

    Only functions (nm kind T) make a call: a file that names another's
    table (the registry's list of kernels, a kernel's parameter table)
    depends on its data, not on its code, and the registry is the one place
    where the layers below list the kernels above them.
    """
    out = subprocess.run(["nm", "-A", "-P"] + list(paths), check=True,
                         capture_output=True, text=True).stdout
    found = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        path, _, rest = line.partition(": ")
        fields = rest.split()
        if path not in found or len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            found[path][1].add(name)
        elif kind == "T":
            found[path][0].add(name)
    return found


def call_edges(build):
    objs = object_files(build)
    if not objs:
        sys.exit(f"layering.py: no object files under {build}/lib/*.a.p")
    owner, needs = {}, {}
    found = symbols(objs.values())
    for f, path in objs.items():
        defined, undefined = found[path]
        for s in defined:
            owner[s] = f
        needs[f] = undefined
    edges = {f: set() for f in objs}
    for f, undefined in needs.items():
        for s in undefined:
            g = owner.get(s)
            if g and g != f:
                edges[f].add(g)
    return edges


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_edges():
    files = {}
    for root, _, names in os.walk(LIB):
        for n in names:
            if n.endswith((".c", ".h", ".def")):
                p = os.path.join(root, n)
                files[os.path.relpath(p, LIB)] = p
    edges = {f: set() for f in files}
    for f, p in files.items():
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        here = os.path.dirname(f)
        for inc in INCLUDE.findall(text):
            cands = [os.path.normpath(os.path.join(here, inc)),
                     os.path.normpath(inc[4:] if inc.startswith("lib/") else inc)]
            for c in cands:
                if c in files and c != f:
                    edges[f].add(c)
                    break
    return edges


def circles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def report(kind, edges):
    found = circles(edges)
    for comp in found:
        members = set(comp)
        print(f"{kind} circle among {len(comp)} files: {', '.join(comp)}")
        for f in comp:
            for g in sorted(edges[f] & members):
                print(f"    {f} -> {g}")
    if not found:
        print(f"{kind}s: no circle among {len(edges)} files of lib/")
    return bool(found)


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    calls = call_edges(argv[1])
    if "--graph" in argv:
        for f in sorted(calls):
            print(f"{f}: {' '.join(sorted(calls[f]))}")
    bad = report("call", calls)
    bad = report("include", include_edges()) or bad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
