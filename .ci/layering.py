#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fail on a call or include circle among the files of lib/, and on a call
up the layers of lib/core.

Calls: every object file of the library (the static parts a build leaves in
BUILD/lib/*.a.p/) is read with nm: a file calls another when it uses a
symbol the other defines. Includes: every #include "..." of lib/**/*.c and
*.h that names a file of lib/. A circle is a strongly connected component of
more than one file (Tarjan); each is printed with the edges that close it.

Layers: every lib/core/*.c file is in one layer of LAYERS, and calls only
files of lower layers. A call to a higher layer or within one layer is
printed with the symbols it uses; so is a file that no layer lists.

    python3 .ci/layering.py BUILD-DIR [--graph]

--graph prints every file-to-file call, for reading the layers.
Exit status: 0 without a circle or a wrong call, 1 with one, 2 on bad input.
"""
import os
import re
import subprocess
import sys

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")

# The layers of lib/core, bottom-up: a file calls only files of the layers
# below its own, none of its own layer. A new lib/core/*.c file goes in the
# lowest layer above every core file it calls.
LAYERS = (
    # call nothing in lib/core; search.c is pure functions of a trial log
    ("base", "util stats hist counters cpuload error lazylib search"),
    # clock over counters and cpuload; the rest over util and stats
    ("values", "clock sysinfo params cfg result"),
    # the session (ctx) and the list of kernels with their parameters
    ("session", "ctx registry"),
    # a run's state and the API kernels call
    ("run", "run"),
    # the drivers of one case and of one trial, SCHED_FIFO for a run, and
    # the buffers of the memory kernels and blk.io
    ("drivers", "cases trial sched_fifo buffer"),
    # trials.c repeats trial.c's trials, runner.c takes a run through cases.c
    ("runners", "trials runner"),
    # the public facade
    ("facade", "bench"),
)


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
    """{file: {file it calls: symbols it uses of that file}} over lib/."""
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
    edges = {f: {} for f in objs}
    for f, undefined in needs.items():
        for s in undefined:
            g = owner.get(s)
            if g and g != f:
                edges[f].setdefault(g, set()).add(s)
    return edges


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_edges():
    """{file: files it includes} over lib/."""
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
    """Print the circles of one kind of edge; True when there is one."""
    found = circles(edges)
    for comp in found:
        members = set(comp)
        print(f"{kind} circle among {len(comp)} files: {', '.join(comp)}")
        for f in comp:
            for g in sorted(members.intersection(edges[f])):
                print(f"    {f} -> {g}")
    if not found:
        print(f"{kind}s: no circle among {len(edges)} files of lib/")
    return bool(found)


def layer_of(layers):
    """{"core/x.c": (rank, layer name)} of a layer table, bottom rank 0.
    A file listed twice raises ValueError."""
    layer = {}
    for rank, (name, files) in enumerate(layers):
        for f in files.split():
            path = "core/" + f + ".c"
            if path in layer:
                raise ValueError(f"{path} is in layers {layer[path][1]} and {name}")
            layer[path] = (rank, name)
    return layer


def check_layers(edges, layers=LAYERS):
    """The wrong calls among the lib/core files of @edges, a pure function.

    @edges maps a file to the files it calls, each with the symbols it
    uses ({"core/a.c": {"core/b.c": {"sym"}}}); files outside core/ are
    left out. Returns (missing, wrong): the core files no layer lists, and
    (caller, callee, symbols, caller's layer, callee's layer) for each call
    that does not go down.
    """
    layer = layer_of(layers)
    core = {f for f in edges if f.startswith("core/")}
    missing = sorted(core - set(layer))
    wrong = []
    for f in sorted(core & set(layer)):
        for g, syms in sorted(edges[f].items()):
            if g in layer and layer[g][0] >= layer[f][0]:
                wrong.append((f, g, sorted(syms), layer[f][1], layer[g][1]))
    return missing, wrong


def report_layers(edges, layers=LAYERS):
    """Print check_layers()' findings, or one line without any; True on one."""
    missing, wrong = check_layers(edges, layers)
    layer = layer_of(layers)
    for f in missing:
        rank = 1 + max((layer[g][0] for g in edges[f] if g in layer), default=-1)
        where = layers[rank][0] if rank < len(layers) else "a new top layer"
        print(f"core layers: {f} is in no layer: add it to LAYERS in "
              f".ci/layering.py, in the lowest layer above every core file "
              f"it calls ({where})")
    for f, g, syms, lf, lg in wrong:
        way = "upward" if lf != lg else "same-layer"
        print(f"{way} call: {f} -> {g} ({', '.join(syms)}): "
              f"layer {lf} calls layer {lg}")
    if not missing and not wrong:
        n = sum(1 for f in edges if f.startswith("core/"))
        print(f"core layers: no upward call among {n} files of lib/core "
              f"({len(layers)} layers)")
    return bool(missing or wrong)


def core_sources():
    """The lib/core/*.c files of the source tree, as 'core/x.c'."""
    return ["core/" + n for n in sorted(os.listdir(os.path.join(LIB, "core")))
            if n.endswith(".c")]


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
    # a source this build left out must still have its layer
    core = {f: calls.get(f, {}) for f in core_sources()}
    bad = report_layers({**calls, **core}) or bad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
