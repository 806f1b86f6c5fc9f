#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every parameter a kernel reads by name is one that is declared.

ep_param_int/_double/_text/_range(run, "name") and ep_run_refuse(run, err,
"name", ...) look a parameter up by its name; a name no table declares
makes the run fail (lib/core/run.c), but only when that line runs. This
check reads the sources instead: each literal name read in lib/AREA/*.c
must be declared in a parameter table of the same area, .c or .h
({ "name", EP_PT_... }) or of the engine (lib/core/cfg.c), so a typo or a
renamed parameter fails here whether or not a test reaches the line.
Prints TAP: one line per area.

usage: check_param_names.py SOURCE_ROOT
"""
import pathlib
import re
import sys

DECL = re.compile(r'\{\s*"([a-z_0-9]+)",\s*EP_PT_[A-Z]+')
READ = re.compile(r'(?:ep_param_(?:int|double|text|range)\(\s*[^,()]+|'
                  r'ep_run_refuse\(\s*[^,()]+,\s*[^,()]+),\s*"([^"]*)"')


def names(pattern, files):
    found = {}
    for f in files:
        text = f.read_text(errors="replace")
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.setdefault(m.group(1), []).append("%s:%d" % (f.name, line))
    return found


def main():
    root = pathlib.Path(sys.argv[1]) / "lib"
    engine = set(names(DECL, [root / "core" / "cfg.c"]))
    if not engine:
        print("1..1\nnot ok 1 - the engine's parameters are declared in lib/core/cfg.c")
        return 1
    areas = sorted(d for d in root.iterdir() if d.is_dir())
    print("1..%d" % len(areas))
    failed = 0
    for n, area in enumerate(areas, 1):
        files = sorted(area.glob("*.c"))
        headers = sorted(area.glob("*.h"))
        declared = set(names(DECL, files + headers)) | engine
        reads = names(READ, files)
        bad = {k: v for k, v in reads.items() if k not in declared}
        if bad:
            failed += 1
            print("not ok %d - lib/%s: every parameter read by name is declared" % (n, area.name))
            for k, where in sorted(bad.items()):
                print("#   '%s' read at %s, declared in no table of lib/%s or the engine"
                      % (k, ", ".join(where), area.name))
        else:
            print("ok %d - lib/%s: %d parameter names read, each declared"
                  % (n, area.name, len(reads)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
