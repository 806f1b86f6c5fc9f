#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No test logs a criterion warning or error.

Criterion 2.4 counts every cr_log_warn() and cr_log_error() against the
program: it exits 1 although every test printed "ok", and with --tap (how
meson runs the tests) the message itself is not printed. Two busy-loop
soak runs failed that way (test_net_tcp under ASan, a passing test's
"taken again" warning). A test says such things with tp_note()
(tests/proc_state.h), a TAP comment line. This check reads the sources, so
a warning on a path that only load takes fails here on every run.
Prints TAP: one line per file that has tests or test helpers.

usage: check_test_sources.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# A call, not a mention in a comment or a string: the name, optional
# blanks, an opening parenthesis, outside /* */ and // comments.
FORBIDDEN = re.compile(r"\bcr_log_(?:warn|error)\s*\(|\bcr_log\s*\(\s*CR_LOG_(?:WARNING|ERROR)")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_of(text):
    """@text with its comments blanked out, line numbers kept."""
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def offenders(path):
    """The lines of @path that log a warning or error: (line number, text)."""
    text = path.read_text(errors="replace")
    code = code_of(text)
    lines = text.splitlines()
    return [(code.count("\n", 0, m.start()) + 1, lines[code.count("\n", 0, m.start())].strip())
            for m in FORBIDDEN.finditer(code)]


def main():
    tests = pathlib.Path(sys.argv[1]) / "tests"
    files = sorted(p for p in list(tests.glob("*.c")) + list(tests.glob("*.h")))
    if not files:
        print("1..1\nnot ok 1 - no test sources under %s" % tests)
        return 1
    print("1..%d" % len(files))
    failed = 0
    for i, f in enumerate(files, 1):
        found = offenders(f)
        if found:
            failed += 1
            print("not ok %d - %s logs a criterion warning or error (use tp_note())" % (i, f.name))
            for line, text in found:
                print("#   %s:%d: %s" % (f.name, line, text))
        else:
            print("ok %d - %s" % (i, f.name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
